"""Run a tournament: the schedule from the seed, games in parallel, every result journaled.

The schedule (`arena.league.schedule.formats`) plans the games round by round; an executor
(`arena.league.executors`) plays them, never two rotations of one deal at once
(`arena.league.lineup`), and each finished game is appended to the results folder before it
counts, so an interrupted tournament resumes where it stopped with no game
lost or played twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import msgspec
import trio

from arena.league.config import Tournament
from arena.league.executors import Executor, GameJob, InProcess, OnNote
from arena.league.results import ResultsDir
from arena.league.schedule import Game, Schedule, schedule_for
from arena.referee.records import GameRecord


@dataclass
class Progress:
    """Where a tournament stands: games done and planned (Swiss plans round by round)."""

    done: int
    total: int
    round: int = 0
    rounds: int = 0


OnGame = Callable[[GameRecord, Progress], None]


def schedule_of(t: Tournament) -> Schedule:
    """The tournament's schedule, from its format, its bots and its seed."""
    return schedule_for(t.config, [b.name for b in t.bots])


class _Planned(Sequence[Game]):
    """The games of the schedule file, read when first asked for: a Swiss round is paired from
    them, while a fixed schedule (round robin, gauntlet) knows its games and never asks, so a
    million planned games are not read back to be ignored."""

    def __init__(self, results: ResultsDir) -> None:
        self._results = results
        self._games: list[Game] | None = None

    def _read(self) -> list[Game]:
        if self._games is None:
            self._games = self._results.planned()
        return self._games

    def __len__(self) -> int:
        return len(self._read())

    @overload
    def __getitem__(self, index: int) -> Game: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Game]: ...
    def __getitem__(self, index: int | slice) -> Game | Sequence[Game]:
        return self._read()[index]

    def __iter__(self) -> Iterator[Game]:
        return iter(self._read())


async def run_tournament(
    t: Tournament,
    results: ResultsDir,
    on_game: OnGame | None = None,
    on_note: OnNote | None = None,
    *,
    finished: dict[str, tuple[int, ...]] | None = None,
    schedule: Schedule | None = None,
    executor: Executor | None = None,
) -> Progress:
    """Play every game of the tournament not yet in `results`; return how many are done of
    how many planned. `finished` holds the ranks of the games already journaled, by id, as
    `results.finished()` reads them (read here when not given, so a caller that tallies
    standings in the same read passes its own); every game played is added to it. `schedule`
    is `schedule_of(t)`, when the caller already made it. `on_game` hears each game once it
    is journaled; `on_note` hears, once, that fewer games run at once than asked, and why.
    `executor` plays the games (default: `InProcess`, `t.jobs` at once); whatever plays
    them, this process alone plans and journals."""
    c = t.config
    schedule = schedule_of(t) if schedule is None else schedule
    executor = InProcess(t.jobs, c.seats, on_note) if executor is None else executor
    ranks = results.finished() if finished is None else finished
    progress = Progress(done=len(ranks), total=schedule.total(), rounds=max(schedule.rounds))
    specs = {b.name: b for b in t.bots}
    # Every deal is played again in other seats, so game_over keeps the seed; no bot may
    # see the tournament file or any results.
    private = (t.source, str(results.path.resolve().parent))
    config = msgspec.structs.replace(c.referee_config(), reveal_seed=False, private=private)

    def job(game: Game) -> GameJob:
        bots = [specs[name] for name in game.seats]
        return GameJob(c.ruleset, bots, c.options, game.seed, config, game.id)

    # Ctrl-C is held off here until the next checkpoint: a game journaled is always counted
    # (the "N finished games are saved" a user reads is the journal's count).
    @trio.lowlevel.enable_ki_protection
    def done(game: Game, record: GameRecord) -> None:
        if game.id in ranks:  # played twice (an executor's retry): journaled once
            return
        results.append(record)  # journaled before it counts
        ranks[game.id] = tuple(record.ranks)
        progress.done += 1
        if on_game is not None:
            on_game(record, progress)

    for number in schedule.rounds:
        # A round is planned from the rounds before it, all finished and journaled.
        games = schedule.plan(number, _Planned(results), ranks)
        results.plan(games)
        progress.round = number
        await executor.run([g for g in games if g.id not in ranks], job, done)
    return progress
