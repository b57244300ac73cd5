"""Measure the odin-heuristic bot against random-py, through the real referee.

    python examples/measure.py --games 200

Every game is refereed by `arena.referee.play_game` between real bot processes.
Seeds are paired: each deal (seed) is played once per seating, with the
heuristic in every seat in turn, so no bot profits from a lucky deal or seat.
Two matches are played, `--games` games each (rounded up to whole seatings):

- odin, 2 players: the heuristic against one random bot;
- odin, 3 players: the heuristic against two random bots.

For each match it prints the heuristic's win rate (a shared first place counts
as a fraction) with a 95% Wilson interval over games, and its mean rank with a
95% interval from the per-seed means (normal approximation), beside what a
bot no better than its opponents would get; then the mean final points (odin's
running totals: lower wins) of the heuristic and of each opponent.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.bot import BotSpec, load_bot
from arena.records import GameRecord
from arena.referee import play_game

BOTS = Path(__file__).resolve().parent / "bots"
Z = 1.96  # the 95% normal quantile


@dataclass(frozen=True)
class Game:
    ruleset: str
    seed: int
    seat: int  # the heuristic's seat
    bots: tuple[BotSpec, ...]


def schedule(
    ruleset: str, players: int, games: int, first_seed: int, hero: BotSpec, other: BotSpec
) -> list[Game]:
    """Whole seatings: every seed once with the heuristic in each seat."""
    seeds = math.ceil(games / players)
    out = []
    for seed in range(first_seed, first_seed + seeds):
        for seat in range(players):
            bots = [other] * players
            bots[seat] = hero
            out.append(Game(ruleset, seed, seat, tuple(bots)))
    return out


async def play_all(games: list[Game], concurrency: int) -> list[GameRecord]:
    """Play every game, at most `concurrency` at a time; records in schedule order."""
    records: list[GameRecord | None] = [None] * len(games)
    limiter = trio.CapacityLimiter(concurrency)

    async def one(i: int, game: Game) -> None:
        async with limiter:
            records[i] = await play_game(game.ruleset, list(game.bots), seed=game.seed)

    async with trio.open_nursery() as nursery:
        for i, game in enumerate(games):
            nursery.start_soon(one, i, game)
    return [r for r in records if r is not None]


def wilson(successes: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, Z * math.sqrt(var / n)


def report(title: str, games: list[Game], records: list[GameRecord], players: int) -> None:
    wins = 0.0
    by_seed: dict[int, list[int]] = {}
    faults = 0
    hero_points = other_points = 0.0
    for game, record in zip(games, records, strict=True):
        ranks = record.ranks
        mine = ranks[game.seat]
        if mine == 1:
            wins += 1 / ranks.count(1)
        by_seed.setdefault(game.seed, []).append(mine)
        faults += len(record.faults)
        hero_points += record.scores[game.seat]
        other_points += (sum(record.scores) - record.scores[game.seat]) / (players - 1)
    n = len(records)
    lo, hi = wilson(wins, n)
    mean_rank, half = mean_interval([sum(r) / len(r) for r in by_seed.values()])
    fair_rank = (players + 1) / 2
    print(f"{title}: {n} games ({len(by_seed)} seeds x {players} seatings)")
    print(
        f"  win rate  {wins / n:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"   (an equal bot: {1 / players:.1%})"
    )
    print(
        f"  mean rank {mean_rank:6.3f}  95% CI [{mean_rank - half:.3f}, {mean_rank + half:.3f}]"
        f"   (an equal bot: {fair_rank:.1f})"
    )
    print(
        f"  final points per game (lower wins): {hero_points / n:.1f},"
        f" its opponents {other_points / n:.1f} each"
    )
    if faults:
        print(f"  faults: {faults} (see the records: timeouts or crashes count as losses)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--hero", default=str(BOTS / "odin-heuristic"), help="the bot measured")
    parser.add_argument("--opponent", default=str(BOTS / "random-py"), help="its opponents")
    args = parser.parse_args(argv)

    hero, other = load_bot(args.hero), load_bot(args.opponent)
    print(
        f"{hero.name} against {other.name}, ruleset odin (default options), seeds from {args.seed}"
    )
    for players in (2, 3):
        games = schedule("odin", players, args.games, args.seed, hero, other)
        started = time.perf_counter()
        records = trio.run(play_all, games, args.concurrency)
        seconds = time.perf_counter() - started
        report(f"odin, {players} players", games, records, players)
        print(f"  {seconds:.0f} s")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
