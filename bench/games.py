"""Game-engine benchmark: random play, decisions per second, against RLCard's Dou Dizhu.

Run it with `bash bench/run games` (see bench/README.md). Every registered ruleset is
played at a few player counts by a uniformly random player; every decision builds the
acting seat's observation and the full legal action list, as the referee does. The
peer is RLCard's `doudizhu` environment with `RandomAgent`s, timed the same way in the
same process. Measurements are interleaved over a few repeats and the median is shown.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.games import Ruleset, all_rulesets

GOAL_RATIO = 30.0
#: a random game longer than this is taken as a ruleset that never ends: an error
MAX_DECISIONS_PER_GAME = 1_000_000

#: the reference peer variant: the ratio and the goal are measured against it
PEER_REFERENCE = "env.run"


@dataclass
class Budget:
    """How long one measurement runs: whole games until `seconds` pass, or exactly `games`."""

    seconds: float
    games: int | None

    def more(self, games_done: int, started: float) -> bool:
        if self.games is not None:
            return games_done < self.games
        return games_done == 0 or time.perf_counter() - started < self.seconds


@dataclass
class Sample:
    games: int
    decisions: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds


@dataclass
class Row:
    """One benchmarked configuration and its samples, one per repeat."""

    engine: str  # "arena" or "rlcard"
    name: str  # ruleset id, or the peer's game
    setup: str  # player count, or the peer's driving loop
    measure: Callable[[Budget, int], Sample]
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(s.rate for s in self.samples)


# --------------------------------------------------------------------------
# arena


def player_counts(ruleset: Ruleset) -> list[int]:
    """Representative seat counts: the minimum, the middle and the maximum."""
    lo, hi = ruleset.min_players, ruleset.max_players
    return sorted({lo, (lo + hi) // 2, hi})


def play_random_game(ruleset: Ruleset, players: int, rng: random.Random) -> int:
    """Play one game with default options, choosing uniformly; return its decision count."""
    state = ruleset.new_game(players, None, rng.getrandbits(32))
    decisions = 0
    while (seat := state.current_player) is not None:
        state.observation(seat)
        actions = state.legal_actions()
        if not actions:
            raise RuntimeError(f"{ruleset.id}: seat {seat} to act but no legal action")
        state.apply(actions[rng.randrange(len(actions))])
        decisions += 1
        if decisions > MAX_DECISIONS_PER_GAME:
            raise RuntimeError(
                f"{ruleset.id} with {players} players: no end after {decisions} random decisions"
            )
    state.outcome()
    return decisions


def arena_measure(ruleset: Ruleset, players: int) -> Callable[[Budget, int], Sample]:
    def measure(budget: Budget, seed: int) -> Sample:
        rng = random.Random(f"{ruleset.id}/{players}/{seed}")
        games = decisions = 0
        started = time.perf_counter()
        while budget.more(games, started):
            decisions += play_random_game(ruleset, players, rng)
            games += 1
        return Sample(games, decisions, time.perf_counter() - started)

    return measure


# --------------------------------------------------------------------------
# the peer: RLCard's Dou Dizhu with random agents


def rlcard_measures() -> dict[str, Callable[[Budget, int], Sample]]:
    """The two usual ways to drive RLCard with random agents, timed per decision.

    - env.run: `env.run(is_training=False)`, RLCard's own random play (its
      examples/run_random.py). This is the reference. `RandomAgent.eval_step` builds a
      probability list over all 27,472 Dou Dizhu actions per decision.
    - step loop: `env.reset()`, then `agent.step(state)` / `env.step(action)` until
      `env.is_over()`. Each step still returns the next player's encoded state with its
      legal actions, but skips the agent's probability list: a stricter yardstick, shown
      beside the reference.
    """
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    def make_env(seed: int) -> Any:
        env = rlcard.make("doudizhu", config={"seed": seed})
        np.random.seed(seed)  # RandomAgent draws from numpy's global generator
        env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
        return env

    def step_loop(budget: Budget, seed: int) -> Sample:
        env = make_env(seed)
        agents = env.agents
        games = decisions = 0
        started = time.perf_counter()
        while budget.more(games, started):
            state, player = env.reset()
            while not env.is_over():
                state, player = env.step(agents[player].step(state))
                decisions += 1
            env.get_payoffs()
            games += 1
        return Sample(games, decisions, time.perf_counter() - started)

    def run_eval(budget: Budget, seed: int) -> Sample:
        env = make_env(seed)
        games = decisions = 0
        started = time.perf_counter()
        while budget.more(games, started):
            env.run(is_training=False)
            decisions += len(env.action_recorder)  # reset by every env.reset()
            games += 1
        return Sample(games, decisions, time.perf_counter() - started)

    return {PEER_REFERENCE: run_eval, "step loop": step_loop}


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("rlcard", "numpy", "msgspec"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --------------------------------------------------------------------------
# running and reporting


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bash bench/run games",
        description="Random-play decisions per second of every ruleset vs RLCard's Dou Dizhu.",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=2.0,
        help="time budget of one measurement, whole games until it passes (default 2)",
    )
    p.add_argument("--games", type=int, help="play exactly this many games per measurement instead")
    p.add_argument(
        "--repeats", type=int, default=3, help="measurements per row; the median is shown"
    )
    p.add_argument(
        "--ruleset",
        action="append",
        metavar="ID",
        help="benchmark only this ruleset (repeatable; default: every registered one)",
    )
    p.add_argument("--no-peer", action="store_true", help="skip RLCard (no ratios then)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    args = p.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or (args.games is not None and args.games < 1):
        p.error("--seconds must be > 0, --repeats and --games >= 1")
    return args


def build_rows(args: argparse.Namespace) -> list[Row]:
    rulesets = all_rulesets()
    if args.ruleset:
        known = {r.id: r for r in rulesets}
        unknown = [r for r in args.ruleset if r not in known]
        if unknown:
            sys.exit(f"unknown ruleset(s) {', '.join(unknown)}; registered: {', '.join(known)}")
        rulesets = [known[r] for r in args.ruleset]
    rows = [
        Row("arena", rs.id, f"{n}p", arena_measure(rs, n))
        for rs in rulesets
        for n in player_counts(rs)
    ]
    if not args.no_peer:
        try:
            peers = rlcard_measures()
        except ImportError as exc:
            sys.exit(
                f"cannot import the peer engine ({exc}); run through `bash bench/run games`, "
                "which installs it into .bench-venv, or pass --no-peer"
            )
        rows += [Row("rlcard", "doudizhu", name, fn) for name, fn in peers.items()]
    return rows


def run(rows: list[Row], budget: Budget, repeats: int, err: Console) -> None:
    for row in rows:  # warm-up: imports, caches, first-call costs; not timed
        row.measure(Budget(0.0, 1), 0)
    # Interleave: every row once per repeat, so slow phases of a noisy machine are
    # spread over all rows rather than landing on one.
    for r in range(1, repeats + 1):
        parts = []
        for row in rows:
            sample = row.measure(budget, r)
            row.samples.append(sample)
            parts.append(f"{row.name}/{row.setup} {sample.rate:,.0f}")
        err.print(
            f"[dim]repeat {r}/{repeats}: " + ", ".join(parts) + "[/dim]",
            highlight=False,
            soft_wrap=True,
        )


def _k(rate: float) -> str:
    return f"{rate / 1000:.1f}k" if rate >= 1000 else f"{rate:.0f}"


def report(rows: list[Row], budget: Budget, repeats: int, out: Console) -> dict[str, Any]:
    peers = {row.setup: row for row in rows if row.engine == "rlcard"}
    peer = peers.get(PEER_REFERENCE)
    peer_rate = peer.median if peer else None

    what = f"{budget.games} games" if budget.games else f"{budget.seconds:g} s"
    table = Table(
        title=f"Random-play decisions per second (median of {repeats} x {what})",
        caption=(
            f"÷ X: decisions/s divided by RLCard doudizhu's with X. Goal: ÷ {PEER_REFERENCE} "
            f">= {GOAL_RATIO:g} on every row; other ÷ columns are for information."
            if peers
            else None
        ),
    )
    table.add_column("game", no_wrap=True)
    table.add_column("setup", no_wrap=True)
    for name in ("games", "decisions/s", "min-max", "µs/decision"):
        table.add_column(name, justify="right", no_wrap=True)
    # the reference first, then any other peer variant
    setups = sorted(peers, key=lambda setup: setup != PEER_REFERENCE)
    for setup in setups:
        table.add_column(f"÷ {setup}", justify="right", no_wrap=True)
    table.add_column("goal", justify="center")

    results = []
    for i, row in enumerate(rows):
        rates = [s.rate for s in row.samples]
        med = row.median
        ratios = (
            {setup: med / p.median for setup, p in peers.items()} if row.engine == "arena" else {}
        )
        ratio = ratios.get(PEER_REFERENCE)
        met = None if ratio is None else ratio >= GOAL_RATIO
        if row.engine == "arena":
            goal = "-" if met is None else ("[green]yes[/green]" if met else "[red]NO[/red]")
        else:
            goal = "reference" if row is peer else ""
        table.add_row(
            row.name if row.engine == "arena" else f"{row.engine} {row.name}",
            row.setup,
            f"{sum(s.games for s in row.samples):,}",
            f"{med:,.0f}",
            f"{_k(min(rates))}-{_k(max(rates))}",
            f"{1e6 / med:.1f}",
            *(f"{ratios[setup]:.1f}" if setup in ratios else "" for setup in setups),
            goal,
            end_section=i + 1 < len(rows) and rows[i + 1].engine != row.engine,
        )
        results.append(
            {
                "engine": row.engine,
                "game": row.name,
                "setup": row.setup,
                "decisions_per_s": med,
                "samples": [vars(s) for s in row.samples],
                "ratio": ratio,
                "ratios": ratios,
                "goal_met": met,
            }
        )
    out.print(table)

    arena_ratios = [r["ratio"] for r in results if r["ratio"] is not None]
    if arena_ratios:
        worst = min(arena_ratios)
        verdict = "[green]met[/green]" if worst >= GOAL_RATIO else "[red]NOT met[/red]"
        out.print(
            f"Goal: every ruleset >= {GOAL_RATIO:g}x RLCard doudizhu's decisions/s "
            f"({PEER_REFERENCE}, {peer_rate:,.0f}/s). Lowest ratio {worst:.1f}: goal {verdict}."
        )
    else:
        out.print(f"Goal: every ruleset >= {GOAL_RATIO:g}x the peer's decisions/s (no peer run).")
    return {
        "goal_ratio": GOAL_RATIO,
        "peer_reference": f"rlcard doudizhu {PEER_REFERENCE}",
        "peer_decisions_per_s": peer_rate,
        "budget": {"seconds": budget.seconds, "games": budget.games, "repeats": repeats},
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), **versions()},
        "rows": results,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = Console(width=None if sys.stdout.isatty() else 160)
    err = Console(stderr=True)
    budget = Budget(args.seconds, args.games)
    rows = build_rows(args)
    info = versions()
    out.print(
        f"machine: {cpu_model()}, {os.cpu_count()} cores; "
        + ", ".join(f"{k} {v}" for k, v in info.items()),
        highlight=False,
    )
    run(rows, budget, args.repeats, err)
    data = report(rows, budget, args.repeats, out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
