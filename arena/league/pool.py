"""Many games at once, for tournaments and matches alike: one pool of workers per run.

Workers take the next game as they come free, so a slow game never holds up the rest. The
pool plays no more games at once than the process's file descriptors allow, throttles bot
start-ups across all its games, and treats a game the referee could not start for lack of
descriptors or processes (`NoResources`) as the machine's limit, never a bot's fault: the
game is played again by the next free worker, with one worker fewer from then on; when no
worker is left, `NoResources` propagates (a tournament stops, and resumes later).
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

import trio

from arena.games.errors import first_leaf
from arena.league.capacity import games_at_once
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
    ) -> None:
        """`play` every task (taken lazily, each once) and hand each result to `done` as it
        finishes; `done` runs before the worker takes its next task."""
        queue = iter(tasks)
        again: list[T] = []  # tasks the referee could not start: played by the next free worker
        live = min(self.jobs, max(1, operator.length_hint(tasks, self.jobs)))

        async def worker() -> None:
            nonlocal live
            # Workers share one iterator (each task is taken once); a worker checks `again`
            # before it leaves, so no task handed back is lost.
            while (task := again.pop() if again else next(queue, None)) is not None:
                try:
                    result = await play(task)
                except NoResources as exc:
                    if live == 1:
                        raise
                    again.append(task)
                    live -= 1
                    self.jobs = max(1, self.jobs - 1)
                    self._note(f"{exc}: playing {live} games at once from now on")
                    return
                done(task, result)
            live -= 1

        try:
            async with trio.open_nursery() as nursery:
                for _ in range(live):
                    nursery.start_soon(worker)
        except BaseExceptionGroup as group:
            lack, rest = group.split(NoResources)
            if lack is None or rest is not None:
                raise
            raise first_leaf(lack) from None  # the machine's limit, as one error in words
