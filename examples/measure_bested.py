"""Measure the bested-heuristic bot against random-py, through the real referee.

    python examples/measure_bested.py --games 120

Every game is refereed by `arena.referee.game.play_game` between real bot processes.

- bested, 2, 3, 4 and 6 players: seeds are paired, each deal is played once per seating
  with the heuristic in every seat in turn against random-py in the others. It prints
  the heuristic's win rate (a shared first place counts as a fraction) with a 95%
  Wilson interval, beside what a bot no better than its opponents would get, and the
  mean final points (most points wins) of the heuristic and of each opponent.
- bested-solo (normal and hard): both bots play the same seeded deals; it prints each
  one's win rate (a draw counts as a win: rank 1) and mean margin (dummy score minus
  bot score, higher is better) with a 95% interval.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import trio
from measure import mean_interval, wilson

from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import play_game
from arena.referee.records import GameRecord

BOTS = Path(__file__).resolve().parent / "bots"


async def play_all(
    jobs: list[tuple[str, list[BotSpec], dict[str, object], int]], concurrency: int
) -> list[GameRecord]:
    records: list[GameRecord | None] = [None] * len(jobs)
    limiter = trio.CapacityLimiter(concurrency)

    async def one(i: int) -> None:
        ruleset, bots, options, seed = jobs[i]
        async with limiter:
            records[i] = await play_game(ruleset, bots, options=options, seed=seed)

    async with trio.open_nursery() as nursery:
        for i in range(len(jobs)):
            nursery.start_soon(one, i)
    return [r for r in records if r is not None]


def bested_match(hero: BotSpec, other: BotSpec, players: int, games: int, args) -> None:
    seeds = math.ceil(games / players)
    jobs, seats = [], []
    for seed in range(args.seed, args.seed + seeds):
        for seat in range(players):
            bots = [other] * players
            bots[seat] = hero
            jobs.append(("bested", bots, {}, seed))
            seats.append(seat)
    records = trio.run(play_all, jobs, args.concurrency)
    wins = 0.0
    mine = theirs = 0.0
    faults = 0
    for seat, record in zip(seats, records, strict=True):
        if record.ranks[seat] == 1:
            wins += 1 / record.ranks.count(1)
        mine += record.scores[seat]
        theirs += (sum(record.scores) - record.scores[seat]) / (players - 1)
        faults += len(record.faults)
    n = len(records)
    lo, hi = wilson(wins, n)
    print(f"bested, {players} players: {n} games ({seeds} seeds x {players} seatings)")
    print(
        f"  win rate {wins / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"  (an equal bot: {1 / players:.1%})"
    )
    print(
        f"  mean final points {mine / n:.1f}, its opponents {theirs / n:.1f} each; faults {faults}"
    )


def solo_match(hero: BotSpec, other: BotSpec, difficulty: str, games: int, args) -> None:
    options = {"difficulty": difficulty}
    seeds = range(args.seed, args.seed + games)
    for bot in (hero, other):
        jobs = [("bested-solo", [bot], options, seed) for seed in seeds]
        records = trio.run(play_all, jobs, args.concurrency)
        margins = [r.scores[0] for r in records]
        wins = sum(1 for r in records if r.game_ranks[0] == 1)
        lo, hi = wilson(wins, len(records))
        mean, half = mean_interval(margins)
        faults = sum(len(r.faults) for r in records)
        print(
            f"bested-solo ({difficulty}), {bot.name:16}: win rate {wins / len(records):6.1%}"
            f" [{lo:.1%}, {hi:.1%}], mean margin {mean:+6.1f} +- {half:.1f}; faults {faults}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=120, help="games per match")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once")
    args = parser.parse_args(argv)
    hero = load_bot(str(BOTS / "bested-heuristic"))
    other = load_bot(str(BOTS / "random-py"))
    for players in (2, 3, 4, 6):
        bested_match(hero, other, players, args.games, args)
        sys.stdout.flush()
    for difficulty in ("normal", "hard"):
        solo_match(hero, other, difficulty, args.games, args)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
