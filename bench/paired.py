"""Paired-deals benchmark: error bars grouped by deal against the same bars game by game.

How much narrower the error bars get when the rotations of a deal count as one draw of
chance, and so how many fewer games the same bar needs.

Run it with `bash bench/run paired`. Each row fits the same games twice: the bars taken game
by game (each game its own draw of chance: the baseline, as the leaderboard had them) and
grouped by deal (every rotation of a deal at one table one draw, as it has them now). The
width of a bar shrinks as 1/sqrt(games), so the games needed for equal width are in the ratio
(grouped / game by game)²; "games needed" is that ratio, "x fewer" its inverse.

- simulated: `tests/helpers/rating_sim.paired_tournament` (10 bots, normal(0, 150) Elo, 200
  games each, 2 to 6 seats), the deal's luck deciding a share of the deals (`luck`: each
  seat's noise drawn once per deal, so it cancels over the rotations); the mean 95% bar of
  either kind, and how often each holds the true rating (goal: grouped 94-96%).
- the SPRT case: two equal bots whose every deal pair scores 1-1 (the bot in seat 0 wins).
- real rules: random players of several rulesets in process, every deal played in every
  rotation of its table (each player's choices its own, seeded by deal and player, so a
  rotation is another game on the same cards); how much the deal decides there.
- speed: the fit of 1,000,000 two-seat results among 1,000 bots, keyless (each game alone)
  and grouped in deal pairs, as a ratio measured in the same run.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=300, help="per simulated row")
    parser.add_argument("--deals", type=int, default=400, help="per real-rules row")
    parser.add_argument("--skip-real", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load}")
    simulated(args.tournaments)
    sprt_case()
    if not args.skip_real:
        real_rules(args.deals)
    if not args.skip_speed:
        speed()


HEADER = (
    f"{'':<34} {'± game by game':>14} {'± by deal':>10} {'games needed':>13} {'x fewer':>8}"
    f" {'cover (game)':>13} {'cover (deal)':>13}"
)


def row(label: str, before: float, after: float, cover: tuple[str, str] = ("-", "-")) -> None:
    ratio = (after / before) ** 2
    print(
        f"{label:<34} {before:>14.1f} {after:>10.1f} {ratio:>13.2f} {1 / ratio:>8.2f}"
        f" {cover[0]:>13} {cover[1]:>13}"
    )
    sys.stdout.flush()


def simulated(count: int) -> None:
    import numpy as np

    from arena.league.ratings import fit_columns
    from tests.helpers.rating_sim import BOTS, GAMES_PER_BOT, paired_tournament

    print(
        f"\nsimulated paired tournaments: {count} per row, {BOTS} bots, about {GAMES_PER_BOT}"
        " games each; mean 95% bar (Elo) and coverage of the true ratings"
    )
    print(HEADER)
    for seats in (2, 3, 4, 6):
        for luck in (0.0, 0.5, 0.9, 1.0):
            bars: dict[bool, list[float]] = {True: [], False: []}
            hits = {True: 0, False: 0}
            for grouped in (False, True):
                rng = np.random.default_rng(1000 * seats + round(100 * luck))  # the same games
                for _ in range(count):
                    names, truth, columns = paired_tournament(rng, seats, luck, grouped)
                    table = fit_columns(columns, names)
                    for name, true in zip(names, truth.tolist(), strict=True):
                        r = table.rating(name)
                        bars[grouped].append(r.error)
                        hits[grouped] += abs(r.elo - true) <= r.error
            share = {g: f"{hits[g] / (count * BOTS):.1%}" for g in (False, True)}
            row(
                f"{seats} seats, luck {luck:.1f}",
                statistics.fmean(bars[False]),
                statistics.fmean(bars[True]),
                (share[False], share[True]),
            )


def sprt_case() -> None:
    from arena.league.leaderboard import leaderboard
    from arena.league.match import game_name, match_seed
    from arena.league.sprt import elo_estimate
    from tests.helpers.boards import made_game

    print("\nthe SPRT case: two equal bots, every deal pair 1-1 (the bot in seat 0 wins)")
    print(HEADER)
    for pairs in (60, 600):
        games = [
            made_game(seats, [1, 2], game=game_name(deal, order), seed=match_seed(1, deal))
            for deal in range(pairs)
            for order, seats in enumerate((["a", "b"], ["b", "a"]))
        ]
        alone = [
            made_game([s.bot for s in g.seats], g.ranks, game=g.game, seed=k)
            for k, g in enumerate(games)
        ]
        before = leaderboard(alone).rows[0].error
        after = leaderboard(games).rows[0]
        row(f"{pairs} pairs", before, after.error)
        estimate = elo_estimate(after.pentanomial or [])
        if estimate is not None:
            print(
                f"{'':<34} (each bar is a bot's, relative to the mean: the difference's is"
                f" twice it; the SPRT's own interval of the difference: ± {estimate.error:.1f})"
            )


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "bots"


def example(name: str) -> Any:
    """The `decide` of an example bot (examples/bots/NAME/bot.py), loaded in process."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", EXAMPLES / name / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.decide


def shaky(decide: Any, chance: float, seed: str) -> Any:
    """`decide`, except that with probability `chance` a uniformly random legal action."""
    rng = random.Random(seed)

    def choose(request: dict[str, Any]) -> Any:
        if rng.random() < chance:
            return rng.randrange(len(request["actions"]))
        return decide(request)

    return choose


def real_rules(deals: int) -> None:
    import trio

    from arena.league.ratings import Result, fit, game_results
    from arena.referee.local import play_local

    print(
        f"\nreal rules through the referee (in process), {deals} deals each played in every"
        " rotation: the example bots odin-heuristic (H, and H2 the same) and greedy-py (G),"
        " and each taking a random action 10% of the time (H~, G~: their own draws in every"
        " game); per row the mean bar of the bots ('cover' not known: no true ratings)"
    )
    print(HEADER)
    heuristic, greedy = example("odin-heuristic"), example("greedy-py")
    cases = [
        ("odin", ["H", "H2"]),
        ("odin", ["H", "H~"]),
        ("odin", ["G", "G~"]),
        ("override-beta", ["H", "H~"]),
        ("odin", ["H", "H~", "G", "G~"]),
    ]
    for ruleset, bots in cases:
        k = len(bots)
        grouped: list[Result] = []
        alone: list[Result] = []
        start = time.perf_counter()
        for deal in range(deals):
            for turn in range(k):
                seats = bots[turn:] + bots[:turn]
                decide = {name: greedy if name.startswith("G") else heuristic for name in seats}
                deciders = [
                    shaky(decide[name], 0.1, f"{deal}:{turn}:{name}")
                    if name.endswith("~")
                    else decide[name]
                    for name in seats
                ]

                record, _ = trio.run(functools.partial(play_local, ruleset, deciders, seed=deal))
                key = f"{deal}-{turn}"
                grouped += game_results(seats, record.ranks, game=key, deal=deal)
                alone += game_results(seats, record.ranks, game=key)
        before = statistics.fmean(r.error for r in fit(alone, bots).ratings)
        after = statistics.fmean(r.error for r in fit(grouped, bots).ratings)
        seconds = time.perf_counter() - start
        row(f"{ruleset} {' '.join(bots)} ({seconds:.0f} s)", before, after)


def speed() -> None:
    import numpy as np

    from arena.league.ratings import ResultColumns, fit_columns

    rng = np.random.default_rng(1)
    n, count = 1000, 1_000_000
    names = [f"bot{i}" for i in range(n)]
    theta = rng.normal(0.0, 1.0, n)
    a = np.repeat(rng.integers(0, n, count // 2), 2)
    b = (a + np.repeat(rng.integers(1, n, count // 2), 2)) % n
    score = (rng.random(count) < 1.0 / (1.0 + np.exp(theta[b] - theta[a]))).astype(np.float64)
    columns: dict[str, Any] = {
        "keyless": ResultColumns(a, b, score, np.ones(count), np.full(count, -1)),
        "grouped in deal pairs": ResultColumns(
            a, b, score, np.ones(count), np.repeat(np.arange(count // 2), 2)
        ),
    }
    print(f"\nspeed: fit of {count:,} two-seat results among {n:,} bots (CPU s, median of 3)")
    times: dict[str, float] = {}
    for label, data in columns.items():
        cpu = []
        for _ in range(3):
            start = time.process_time()
            fit_columns(data, names)
            cpu.append(time.process_time() - start)
        times[label] = statistics.median(cpu)
        print(f"{label:<34} {times[label]:>7.2f}")
    print(
        f"{'ratio grouped / keyless':<34} {times['grouped in deal pairs'] / times['keyless']:>7.2f}"
    )


if __name__ == "__main__":
    main()
