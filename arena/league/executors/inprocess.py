"""Every game in this process's trio loop: the default executor, a `GamePool` over
`play_game`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from arena.league.executors.job import Executor, GameJob, OnNote
from arena.league.pool import GamePool
from arena.referee.folders import BotSpec
from arena.referee.game import Connection, play_game
from arena.referee.records import GameRecord

T = TypeVar("T")


class InProcess(Executor):
    """Games in this process, at most `jobs` at once (fewer if descriptors run short: see
    `GamePool`). `connect` replaces the bot processes (tests)."""

    def __init__(
        self,
        jobs: int,
        seats: int,
        on_note: OnNote | None = None,
        connect: Callable[[BotSpec], Connection] | None = None,
    ) -> None:
        self.pool = GamePool(jobs, seats, on_note)
        self.connect = connect

    @property
    def jobs(self) -> int:
        return self.pool.jobs

    async def run(
        self,
        tasks: Iterable[T],
        job: Callable[[T], GameJob],
        done: Callable[[T, GameRecord], None],
        wanted: Callable[[T], bool] | None = None,
    ) -> None:
        async def play(task: T) -> GameRecord:
            j = job(task)
            return await play_game(
                j.ruleset,
                j.bots,
                options=j.options,
                seed=j.seed,
                config=j.config,
                connect=self.connect,
                start_limiter=self.pool.starting,
                game_id=j.game_id,
            )

        await self.pool.run(tasks, play, done, lambda task: job(task).deal, wanted)
