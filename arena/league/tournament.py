"""Run a tournament: the schedule from the seed, games in parallel, every result journaled.

Games run concurrently (`jobs`, fewer if the process's file descriptors do not allow that
many), bot start-ups are throttled, and each finished game is appended to the results folder
before the next one is counted, so an interrupted tournament resumes where it stopped with no
game lost or played twice. A game the referee could not start for lack of descriptors or
processes is never a bot's fault: it is played again by another worker, with one game fewer
at once; when none is left, the tournament stops (NoResources) and resumes later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import msgspec
import trio

from arena.league.capacity import games_at_once
from arena.league.config import Tournament
from arena.league.results import ResultsDir
from arena.league.schedule import (
    Game,
    bye_value,
    byes_from,
    gauntlet,
    round_robin,
    solo,
    standings_from,
    swiss_round,
)
from arena.referee.game import play_game
from arena.referee.records import GameRecord
from arena.referee.spawn import NoResources

MAX_STARTING = 8  # bots starting at once, across all games


@dataclass
class Progress:
    """Where a tournament stands: games done and planned (Swiss plans round by round)."""

    done: int
    total: int
    round: int = 0
    rounds: int = 0


OnGame = Callable[[GameRecord, Progress], None]
OnNote = Callable[[str], None]


def fixed_schedule(t: Tournament) -> list[Game]:
    """The whole schedule of a round-robin or gauntlet tournament."""
    c = t.config
    names = [b.name for b in t.bots]
    if c.seats == 1:
        return solo(names, c.deals, c.seed)
    if c.format == "gauntlet":
        assert c.challenger is not None
        field = [n for n in names if n != c.challenger]
        return gauntlet(c.challenger, field, c.seats, c.deals, c.seed, c.max_tables)
    return round_robin(names, c.seats, c.deals, c.seed, c.max_tables)


def planned_total(t: Tournament) -> int:
    """How many games the tournament will play in all."""
    c = t.config
    if c.format != "swiss":
        return len(fixed_schedule(t))
    tables = len(t.bots) // c.seats
    return c.rounds * tables * c.deals * c.seats


async def _play_all(
    t: Tournament,
    games: list[Game],
    results: ResultsDir,
    on_game: OnGame | None,
    progress: Progress,
    jobs: int,
    on_note: OnNote | None = None,
) -> None:
    specs = {b.name: b for b in t.bots}
    # Every deal is played again in other seats, so game_over keeps the seed; no bot may
    # see the tournament file or any results.
    private = (t.source, str(results.path.resolve().parent))
    config = msgspec.structs.replace(t.config.referee_config(), reveal_seed=False, private=private)
    starting = trio.CapacityLimiter(MAX_STARTING)
    queue: Iterator[Game] = iter(games)
    again: list[Game] = []  # games the referee could not start: played by the next free worker
    live = [min(jobs, max(1, len(games)))]

    async def worker() -> None:
        # Workers share one iterator (each game is taken once); a worker checks `again`
        # before it leaves, so no game handed back is lost.
        while (game := again.pop() if again else next(queue, None)) is not None:
            try:
                record = await play_game(
                    t.config.ruleset,
                    [specs[name] for name in game.seats],
                    options=t.config.options,
                    seed=game.seed,
                    config=config,
                    start_limiter=starting,
                    game_id=game.id,
                )
            except NoResources as exc:
                if live[0] == 1:
                    raise
                again.append(game)
                live[0] -= 1
                if on_note is not None:
                    on_note(f"{exc}: playing {live[0]} games at once from now on")
                return
            results.append(record)  # journaled before it counts
            progress.done += 1
            if on_game is not None:
                on_game(record, progress)
        live[0] -= 1

    async with trio.open_nursery() as nursery:
        for _ in range(live[0]):
            nursery.start_soon(worker)


async def run_tournament(
    t: Tournament,
    results: ResultsDir,
    on_game: OnGame | None = None,
    on_note: OnNote | None = None,
) -> list[GameRecord]:
    """Play every game of the tournament not yet in `results`; return all records.
    `on_note` hears, once, that fewer games run at once than asked, and why."""
    c = t.config
    jobs, note = games_at_once(t.jobs, c.seats)
    if note is not None and on_note is not None:
        on_note(note)
    finished = results.finished()
    progress = Progress(done=len(finished), total=planned_total(t), rounds=c.rounds)
    if c.format != "swiss":
        games = fixed_schedule(t)
        results.plan(games)
        todo = [g for g in games if g.id not in finished]
        await _play_all(t, todo, results, on_game, progress, jobs, on_note)
        return results.records()
    names = [b.name for b in t.bots]
    for number in range(1, c.rounds + 1):
        # Each round is derived from the results of the rounds before it (all journaled).
        records = results.finished()
        schedule = results.planned()
        games = [g for g in schedule if g.round == number]
        if not games:  # a round already planned is read back, never re-derived
            planned = [g for g in schedule if g.round < number]
            earlier = [(g, records[g.id].ranks) for g in planned]
            standings = standings_from(
                earlier, byes_from(names, planned), bye_points=bye_value(c.seats, c.deals)
            )
            games, _ = swiss_round(names, standings, number, c.seats, c.deals, c.seed)
            results.plan(games)
        progress.round = number
        todo = [g for g in games if g.id not in records]
        await _play_all(t, todo, results, on_game, progress, jobs, on_note)
    return results.records()
