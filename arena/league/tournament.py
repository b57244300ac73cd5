"""Run a tournament: the schedule from the seed, games in parallel, every result journaled.

The schedule (`arena.league.schedule.formats`) plans the games round by round; a pool of
workers (`arena.league.pool`) plays them, and each finished game is appended to the results
folder before it counts, so an interrupted tournament resumes where it stopped with no game
lost or played twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from arena.league.config import Tournament
from arena.league.pool import GamePool, OnNote
from arena.league.results import ResultsDir
from arena.league.schedule import Game, Schedule, schedule_for
from arena.referee.game import play_game
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


async def run_tournament(
    t: Tournament,
    results: ResultsDir,
    on_game: OnGame | None = None,
    on_note: OnNote | None = None,
) -> list[GameRecord]:
    """Play every game of the tournament not yet in `results`; return all records.
    `on_note` hears, once, that fewer games run at once than asked, and why."""
    c = t.config
    schedule = schedule_of(t)
    pool = GamePool(t.jobs, c.seats, on_note)
    ranks = {game: record.ranks for game, record in results.finished().items()}
    progress = Progress(done=len(ranks), total=schedule.total(), rounds=max(schedule.rounds))
    specs = {b.name: b for b in t.bots}
    # Every deal is played again in other seats, so game_over keeps the seed; no bot may
    # see the tournament file or any results.
    private = (t.source, str(results.path.resolve().parent))
    config = msgspec.structs.replace(c.referee_config(), reveal_seed=False, private=private)

    async def play(game: Game) -> GameRecord:
        return await play_game(
            c.ruleset,
            [specs[name] for name in game.seats],
            options=c.options,
            seed=game.seed,
            config=config,
            start_limiter=pool.starting,
            game_id=game.id,
        )

    def done(game: Game, record: GameRecord) -> None:
        results.append(record)  # journaled before it counts
        ranks[game.id] = record.ranks
        progress.done += 1
        if on_game is not None:
            on_game(record, progress)

    for number in schedule.rounds:
        # A round is planned from the rounds before it, all finished and journaled.
        games = schedule.plan(number, results.planned(), ranks)
        results.plan(games)
        progress.round = number
        await pool.run([g for g in games if g.id not in ranks], play, done)
    return results.records()
