"""Measure a heuristic example bot against random-py, through the real referee.

    python examples/measure.py --games 200
    python examples/measure.py --games 200 --ruleset override-classic

Every game is refereed by `arena.referee.game.play_game` between real bot processes.
Seeds are paired: each deal (seed) is played once per seating, with the
heuristic in every seat in turn, so no bot profits from a lucky deal or seat.
One match per player count the ruleset allows among 2 and 3, `--games` games
each (rounded up to whole seatings):

- odin (the default), 2 players and 3 players: odin-heuristic against one,
  then two random bots;
- override-classic or override-original, 2 players: override-heuristic
  against one random bot.

For each match it prints the heuristic's win rate (a shared first place counts
as a fraction) with a 95% Wilson interval over games, its wins, shared firsts
and losses, and its mean rank with a 95% interval from the per-seed means
(normal approximation), beside what a bot no better than its opponents would
get; then the mean final score of the heuristic and of each opponent.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.games import get_ruleset
from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import play_game
from arena.referee.records import GameRecord

BOTS = Path(__file__).resolve().parent / "bots"
Z = 1.96  # the 95% normal quantile
#: the bot measured by default on each ruleset (odin-heuristic otherwise)
HEROES = {"override-classic": "override-heuristic", "override-original": "override-heuristic"}
#: what a ruleset's final score means, for the report
SCORES = {
    "override-classic": "1 a win, 0.5 a draw, 0 a loss",
    "override-original": "1 a win, 0.5 a draw, 0 a loss",
}
ODIN_SCORES = "the running totals: lower wins"


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


def report(
    title: str, games: list[Game], records: list[GameRecord], players: int, scores: str
) -> None:
    wins = 0.0
    outright = shared = 0
    by_seed: dict[int, list[int]] = {}
    faults = 0
    hero_points = other_points = 0.0
    for game, record in zip(games, records, strict=True):
        ranks = record.ranks
        mine = ranks[game.seat]
        if mine == 1:
            wins += 1 / ranks.count(1)
            outright += ranks.count(1) == 1
            shared += ranks.count(1) > 1
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
    print(f"  wins {outright}, shared firsts {shared}, losses {n - outright - shared}")
    print(
        f"  mean rank {mean_rank:6.3f}  95% CI [{mean_rank - half:.3f}, {mean_rank + half:.3f}]"
        f"   (an equal bot: {fair_rank:.1f})"
    )
    print(
        f"  final score per game ({scores}): {hero_points / n:.2f},"
        f" its opponents {other_points / n:.2f} each"
    )
    if faults:
        print(f"  faults: {faults} (see the records: timeouts or crashes count as losses)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per match (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--ruleset", default="odin", help="the ruleset (default odin)")
    parser.add_argument(
        "--hero", help="the bot measured (default: odin-heuristic, or override-heuristic)"
    )
    parser.add_argument("--opponent", default=str(BOTS / "random-py"), help="its opponents")
    args = parser.parse_args(argv)

    ruleset = get_ruleset(args.ruleset)
    hero_path = args.hero or str(BOTS / HEROES.get(ruleset.id, "odin-heuristic"))
    hero, other = load_bot(hero_path), load_bot(args.opponent)
    print(
        f"{hero.name} against {other.name}, ruleset {ruleset.id} (default options),"
        f" seeds from {args.seed}"
    )
    counts = [n for n in (2, 3) if ruleset.min_players <= n <= ruleset.max_players]
    for players in counts:
        games = schedule(ruleset.id, players, args.games, args.seed, hero, other)
        started = time.perf_counter()
        records = trio.run(play_all, games, args.concurrency)
        seconds = time.perf_counter() - started
        scores = SCORES.get(ruleset.id, ODIN_SCORES)
        report(f"{ruleset.id}, {players} players", games, records, players, scores)
        print(f"  {seconds:.0f} s")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
