"""Start-up benchmark: how long `arena --help`, `arena --version` and `arena games` take, from
exec to exit, against Python itself in the same run.

Run it with `bash bench/run startup`. Every command is a fresh process started the way a user
starts it (the `arena` script beside this interpreter), its output thrown away. Rows:

- baselines: `python -c pass` (the interpreter's own start) and `python -c "import typer"`
  (the command-line library, which every command needs); and, for scale, every command
  module imported at once (what each of the three rows below paid before they were imported
  lazily: arena.cli.app imported them all to register the commands);
- `arena --help`, `arena --version`, `arena games`.

Each round runs every row `--runs` times, interleaved (so a burst of load on a shared machine
falls on every row alike), and keeps each row's best; the table shows the median of the
rounds' bests with their min-max spread, and each arena row's ratio to the baselines (the
ratios hold better than seconds on a busy machine). Goal: every arena row under 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from arena.cli.app import COMMANDS

GOAL = 0.3  # seconds, exec to exit, for each arena row
EAGER = "every command module"


def arena_command() -> list[str]:
    """How a user starts arena: the `arena` script installed beside this interpreter, else
    `python -m arena`."""
    script = Path(sys.executable).parent / "arena"
    return [str(script)] if script.exists() else [sys.executable, "-m", "arena"]


def rows() -> dict[str, list[str]]:
    arena = arena_command()
    modules = sorted({entry.module for entry in COMMANDS.values()})
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import typer'": [sys.executable, "-c", "import typer"],
        EAGER: [sys.executable, "-c", f"import {', '.join(modules)}"],
        "arena --help": [*arena, "--help"],
        "arena --version": [*arena, "--version"],
        "arena games": [*arena, "games"],
    }


def wall(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from starting `argv` to its exit; a failing command stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each row per round")
    args = parser.parse_args()
    env = {**os.environ, "COLUMNS": "100", "PYTHONDONTWRITEBYTECODE": "1"}
    commands = rows()
    for argv in commands.values():  # warm the file cache; not timed
        wall(argv, env)
    best: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                runs[name].append(wall(argv, env))
        for name, times in runs.items():
            best[name].append(min(times))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"start-up, exec to exit: median of {args.rounds} rounds of the best of {args.runs} "
        f"runs (load average {load}); goal: arena rows under {GOAL:g} s"
    )
    pass_s = statistics.median(best["python -c pass"])
    typer_s = statistics.median(best["python -c 'import typer'"])
    eager_s = statistics.median(best[EAGER])
    print(
        f"{'row':<26} {'median s':>9} {'min-max s':>13} {'÷ pass':>7} {'÷ typer':>8} "
        f"{'÷ modules':>9}  goal"
    )
    met = True
    for name, times in best.items():
        median = statistics.median(times)
        spread = f"{min(times):.3f}-{max(times):.3f}"
        line = f"{name:<26} {median:>9.3f} {spread:>13}"
        if name.startswith("arena"):
            ok = median < GOAL
            met = met and ok
            ratios = f"{median / pass_s:>7.1f} {median / typer_s:>8.2f} {median / eager_s:>9.2f}"
            line += f" {ratios}  {'met' if ok else 'NOT met'}"
        print(line)
    print("goal met on every row" if met else "goal NOT met on every row")


if __name__ == "__main__":
    main()
