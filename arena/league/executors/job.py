"""One game as data (`GameJob`: what `play_game` takes, ready to cross a process or machine
boundary) and the interface every executor offers (`Executor`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec

from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig
from arena.referee.records import GameRecord

T = TypeVar("T")
OnNote = Callable[[str], None]


class GameJob(msgspec.Struct, frozen=True):
    """Everything a referee needs to play one game, as plain data: the ruleset and its
    options, the bots seat by seat, the deal's seed, the referee's settings and the game's
    id in its tournament or match."""

    ruleset: str
    bots: list[BotSpec]
    options: dict[str, Any]
    seed: int
    config: RefereeConfig
    game_id: str

    @property
    def deal(self) -> int:
        """The draw of chance the game plays, which no other game in flight may share: its
        seed. The seed alone, whatever the ruleset, options or players: the rulesets of a
        family deal from one shuffle (odin, odin-race and override-beta deal the same cards
        from the same seed), options such as `rounds` change no deal, and a deal file gives
        several tables the same seed."""
        return self.seed


class Executor(ABC):
    """Plays games and hands back their records; plans, journals and ratings stay with the
    caller. `run` takes the tasks lazily (a match stops drawing them at its verdict) through
    a `Lineup`, so that no two games of one deal (`GameJob.deal`) are in flight at once, and
    calls `done(task, record)` for each finished game as it finishes, each task once.
    `wanted(task)`, when given, is asked of a task held back (its deal was in flight) when its
    turn comes: one no longer wanted is not played, and `done` never hears of it."""

    @property
    @abstractmethod
    def jobs(self) -> int:
        """How many games it plays at once (for the heading of a run)."""

    @abstractmethod
    async def run(
        self,
        tasks: Iterable[T],
        job: Callable[[T], GameJob],
        done: Callable[[T, GameRecord], None],
        wanted: Callable[[T], bool] | None = None,
    ) -> None: ...

    def describe(self) -> str:
        """Where the games run, for the heading of a run."""
        return f"{self.jobs} at once"

    def close(self) -> None:
        """Let go of what the executor holds (a cluster client, worker processes)."""
        return None
