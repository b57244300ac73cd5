"""Many games at once, for tournaments and matches alike: one pool of workers per run.

A game starts as soon as another ends, so a slow game never holds up the rest, and never
beside a game of its own deal (`arena.league.lineup`). The pool plays no more games at once
than the process's file descriptors allow, throttles bot start-ups across all its games, and
treats a game the referee could not start for lack of descriptors or processes
(`NoResources`) as the machine's limit, never a bot's fault: the game is played again first,
one game fewer at once from then on; when even one game at once cannot start, `NoResources`
propagates (a tournament stops, and resumes later).
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import TypeVar

import trio

from arena.games.errors import first_leaf
from arena.games.text import counted
from arena.league.capacity import games_at_once
from arena.league.lineup import Feed, Lineup
from arena.referee.spawn import NoResources

MAX_STARTING = 8  # bots starting at once, across all the pool's games

T = TypeVar("T")
R = TypeVar("R")
OnNote = Callable[[str], None]


class GamePool:
    """Plays games at most `jobs` at once (fewer if descriptors run short); `starting` is the
    limiter every game of the pool passes to the referee for its bots' start-ups."""

    def __init__(self, jobs: int, seats: int, on_note: OnNote | None = None) -> None:
        self.jobs, note = games_at_once(jobs, seats)
        self.on_note = on_note
        self.starting = trio.CapacityLimiter(MAX_STARTING)
        if note is not None:
            self._note(note)

    def _note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(text)

    async def run(
        self,
        tasks: Iterable[T],
        play: Callable[[T], Awaitable[R]],
        done: Callable[[T, R], None],
        deal: Callable[[T], Hashable | None] | None = None,
        wanted: Callable[[T], bool] | None = None,
    ) -> None:
        """`play` every task (taken lazily, each once, through a `Lineup`: never two of one
        `deal` at once; without `deal`, each task a deal of its own) and hand each result to
        `done` as it finishes; `done` runs before the next task is taken. `wanted`: as
        `Lineup` asks it of a task held back. A `Feed` of tasks is drawn again when poked, and
        the run ends once it is closed and its games have ended."""
        lineup = Lineup(tasks, deal or _no_deal, wanted)
        at_once = min(self.jobs, max(1, operator.length_hint(tasks, self.jobs)))
        playing = 0
        changed = trio.Event()  # set when a game ends, or a feed is poked

        def wake() -> None:
            changed.set()

        feed = tasks if isinstance(tasks, Feed) else None
        unwake = feed.waking(wake) if feed is not None else None

        async def one(task: T) -> None:
            nonlocal at_once, playing
            try:
                result = await play(task)
            except NoResources as exc:
                if at_once == 1:
                    raise
                lineup.again(task)
                at_once -= 1
                self.jobs = max(1, self.jobs - 1)
                self._note(f"{exc}: playing {counted(at_once, 'game')} at once from now on")
            else:
                lineup.ended(task)
                done(task, result)
            finally:
                playing -= 1
                changed.set()

        try:
            async with trio.open_nursery() as nursery:
                while True:
                    task = lineup.take() if playing < at_once else None
                    if task is not None:
                        playing += 1
                        nursery.start_soon(one, task)
                    elif playing == 0 and (feed is None or lineup.finished):
                        break  # (nothing in flight: nothing was held back)
                    else:  # a game to end, or a feed with nothing now to be poked
                        await changed.wait()
                        changed = trio.Event()
        except BaseExceptionGroup as group:
            lack, rest = group.split(NoResources)
            if lack is None or rest is not None:
                raise
            raise first_leaf(lack) from None  # the machine's limit, as one error in words
        finally:
            if unwake is not None:
                unwake()


def _no_deal(task: object) -> None:
    """Each task a deal of its own."""
    return None
