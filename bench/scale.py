"""Scale benchmark: reading a results folder of a million games, as `arena` commands do.

Run it with `bash bench/run scale` (options: `bash bench/run scale --help`). It writes
synthetic results folders in the real record format (`bench/journal.py`), then times real
commands, each in a child process of its own, and takes from the kernel (`wait4`) its wall
time, its CPU time and its peak memory (ru_maxrss):

- `arena leaderboard` of a finished round robin of 1,000 bots, 2 seats, 1 deal (999,000
  games, no moves: about 400 bytes a record). Goal: under 30 s and 1 GB.
- `arena tournament` resuming that finished tournament (every scheduled game is in the
  journal, so it reads, finds nothing to play and shows the standings). Goal: under 30 s
  and 1 GB.
- `arena leaderboard` of 30,000 whole odin records (real moves of odin games, 19 KB each,
  and 512 bytes of stderr per seat) among 1,000 bots. Goal: under 15 s and 600 MB.

Beside each command, what it is made of, measured the same way in the same run: the
reading alone (the journal read as summaries into the standings' tallies, no rating fit,
no table printed; for the resume, `run_tournament` with its schedule and no standings) and
the tournament's schedule alone (made by `arena/league/schedule`, not by the journal). The
baseline is the journal read whole, as before: every line decoded as a `GameRecord` and all
of them kept, as the leaderboard did once and a resume three times; it is measured on the
journal's first `--baseline-mb` megabytes of lines (40) over the same child reading none,
and scaled to the whole journal (time and memory grow linearly with the games). An empty
interpreter start (`python -c "import arena.cli"`) is printed too, the floor under every
figure.

The machine is shared: wall time stretches when other processes take the cores, CPU time
much less. Both are printed; the goals are wall time. Smaller sizes run quickly: `--bots 100`
(9,900 games) and `--odin-games 3000`. `--data DIR` keeps the generated folders there and
reuses them on the next run with the same sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
MB = 1024 * 1024


@dataclass
class Run:
    """A child process's cost, from the kernel: wall and CPU seconds, peak memory (bytes)."""

    wall: float
    cpu: float
    peak: int
    status: int
    timed_out: bool = False

    def cells(self) -> list[str]:
        if self.timed_out:
            return [f"> {self.wall:.0f} (stopped)", f"{self.cpu:.1f}", f"> {self.peak / MB:.0f}"]
        return [f"{self.wall:.1f}", f"{self.cpu:.1f}", f"{self.peak / MB:.0f}"]


def measure(argv: list[str], timeout: float) -> Run:
    """Run `argv` with its output discarded; its wall time, CPU time and peak memory."""
    start = time.perf_counter()
    pid = os.posix_spawn(
        argv[0],
        argv,
        os.environ,
        file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)],
    )
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() - start > timeout:
            os.kill(pid, signal.SIGKILL)
            done, status, usage = os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.02)
    wall = time.perf_counter() - start
    run = Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, status, timed_out)
    if status and not timed_out:
        print(f"warning: {' '.join(argv[1:4])}... exited with status {status}", file=sys.stderr)
    return run


def python(*args: str | Path) -> list[str]:
    return [sys.executable, *map(str, args)]


def arena(*args: str | Path) -> list[str]:
    return python("-m", "arena", *args)


def child(*args: str | Path) -> list[str]:
    return python(Path(__file__), "child", *args)


# -- what a child process does --------------------------------------------------------------


def child_main(args: list[str]) -> None:
    """The parts of the commands, timed alone (`bench/scale.py child KIND ...`)."""
    kind = args[0]
    if kind == "read":  # the journal as summaries, into the standings' tallies: no fit
        from arena.league.leaderboard import Standings
        from arena.league.results import ResultsDir

        folder = ResultsDir.existing(Path(args[1]))
        stored = folder.stored()
        standings = Standings(stored.bots if stored else ())
        for line in folder.games():
            standings.add(line.value)
        assert standings.played > 0
    elif kind == "resume":  # run_tournament on a finished folder: schedule, journal, plan
        import trio

        from arena.league.config import load_tournament
        from arena.league.results import ResultsDir
        from arena.league.tournament import run_tournament

        t = load_tournament(Path(args[1]))
        with ResultsDir.open(Path(args[2]), t) as folder:
            progress = trio.run(run_tournament, t, folder)
        assert progress.done == progress.total
    elif kind == "schedule":  # the tournament's schedule alone
        from arena.league.config import load_tournament
        from arena.league.tournament import schedule_of

        assert schedule_of(load_tournament(Path(args[1]))).total() > 0
    elif kind == "whole":  # the baseline: the first N lines decoded whole, and kept
        from arena.referee.records import GameRecord, read_lines

        kept: list[GameRecord] = []
        lines = read_lines(Path(args[1]), GameRecord, [])
        while len(kept) < int(args[2]) and (line := next(lines, None)) is not None:
            kept.append(line.value)
    else:
        raise SystemExit(f"unknown child {kind}")


# -- the data -------------------------------------------------------------------------------


def prepare(data: Path, name: str, params: list[str], timeout: float) -> Path:
    """DIR/name written by `bench/journal.py` with `params` (reused when written so before)."""
    folder = data / name
    stamp = data / f"{name}.stamp.json"
    if stamp.exists() and json.loads(stamp.read_text()) == params and folder.exists():
        print(f"reusing {folder} ({' '.join(params)})", flush=True)
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    print(f"writing {folder} ({' '.join(params)}) ...", flush=True)
    run = measure(python(HERE / "journal.py", params[0], folder, *params[1:]), timeout)
    if run.status or run.timed_out:
        raise SystemExit(f"bench/journal.py failed (status {run.status})")
    print(f"  written in {run.wall:.0f} s", flush=True)
    stamp.write_text(json.dumps(params))
    return folder


def sample(path: Path, megabytes: float) -> int:
    """How many of the first lines of `path` hold `megabytes` (at least one)."""
    size = (path.stat().st_size or 1) / lines_in(path)
    return max(1, min(lines_in(path), round(megabytes * MB / size)))


def lines_in(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))


# -- the report -----------------------------------------------------------------------------

HEADER = ["", "wall s", "CPU s", "peak MB", "goal", "met"]


def row(label: str, run: Run, goal: tuple[float, float] | None = None) -> list[str]:
    if goal is None:
        return [label, *run.cells(), "", ""]
    seconds, megabytes = goal
    met = not run.timed_out and run.wall < seconds and run.peak < megabytes * MB
    return [label, *run.cells(), f"< {seconds:g} s, < {megabytes:g} MB", "yes" if met else "NO"]


def baseline(label: str, run: Run, measured: int, total: int, floor: Run) -> list[str]:
    """The baseline on `measured` games, scaled linearly to `total`: its cost over `floor`
    (the same child reading no game) times total / measured, plus the floor."""
    scale = total / measured
    wall = floor.wall + (run.wall - floor.wall) * scale
    cpu = floor.cpu + (run.cpu - floor.cpu) * scale
    peak = floor.peak + (run.peak - floor.peak) * scale
    return [
        f"{label} ({measured:,} games, x{scale:,.0f})",
        f"~{wall:,.0f}",
        f"~{cpu:,.0f}",
        f"~{peak / MB:,.0f}",
        "",
        "",
    ]


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000, help="bots of the round robin")
    parser.add_argument("--deals", type=int, default=1, help="deals per pair of bots")
    parser.add_argument("--odin-games", type=int, default=30_000, help="whole odin records")
    parser.add_argument("--odin-bots", type=int, default=1000, help="bots of the odin records")
    parser.add_argument("--stderr", type=int, default=512, help="odin records: stderr per seat")
    parser.add_argument("--only", default="leaderboard,resume,odin", help="which (comma-separated)")
    parser.add_argument(
        "--baseline-mb", type=float, default=40, help="MB of each journal read whole (baseline)"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds per command")
    parser.add_argument("--data", type=Path, help="keep (and reuse) the generated folders here")
    args = parser.parse_args()
    only = set(args.only.split(","))
    data = args.data or Path(tempfile.mkdtemp(prefix="arena-scale-"))
    data.mkdir(parents=True, exist_ok=True)
    timeout = args.timeout
    try:
        floor = measure(python("-c", "import arena.cli"), timeout)
        rows = [HEADER, row("empty start: python -c 'import arena.cli'", floor)]
        if only & {"leaderboard", "resume"}:
            spec = ["tournament", "--bots", str(args.bots), "--deals", str(args.deals)]
            base = prepare(data, "round-robin", spec, 3 * timeout)
            results = base / "results" / "scale"
            games = lines_in(results / "games.jsonl")
            what = f"{args.bots:,} bots, {games:,} games"
            if "leaderboard" in only:
                rows.append([f"arena leaderboard, {what}", "", "", "", "", ""])
                run = measure(arena("leaderboard", results), timeout)
                rows.append(row("  the command", run, (30, 1024)))
                rows.append(
                    row(
                        "  its reading alone (no fit, no table)",
                        measure(child("read", results), timeout),
                    )
                )
            if "resume" in only:
                rows.append(
                    [f"arena tournament, resuming it finished ({what})", "", "", "", "", ""]
                )
                toml = base / "tournament.toml"
                run = measure(arena("tournament", toml, "--results", base / "results"), timeout)
                rows.append(row("  the command", run, (30, 1024)))
                part = measure(child("resume", toml, base / "results"), timeout)
                rows.append(row("  run_tournament alone (no standings)", part))
                rows.append(
                    row(
                        "  its schedule alone (schedule_of)",
                        measure(child("schedule", toml), timeout),
                    )
                )
            n = sample(results / "games.jsonl", args.baseline_mb)
            whole = measure(child("whole", results / "games.jsonl", n), timeout)
            none = measure(child("whole", results / "games.jsonl", 0), timeout)
            rows.append(baseline("  baseline: read whole, as before", whole, n, games, none))
        if "odin" in only:
            spec = [
                "records", "--bots", str(args.odin_bots), "--games", str(args.odin_games),
                "--moves", "--stderr", str(args.stderr),
            ]  # fmt: skip
            folder = prepare(data, "odin", spec, 3 * timeout)
            games = lines_in(folder / "games.jsonl")
            size = (folder / "games.jsonl").stat().st_size
            rows.append(
                [
                    f"arena leaderboard, {games:,} whole odin records, {args.odin_bots:,} bots "
                    f"({size / games / 1024:.0f} KB a record)",
                    "", "", "", "", "",
                ]
            )  # fmt: skip
            run = measure(arena("leaderboard", folder), timeout)
            rows.append(row("  the command", run, (15, 600)))
            rows.append(
                row(
                    "  its reading alone (no fit, no table)",
                    measure(child("read", folder), timeout),
                )
            )
            n = sample(folder / "games.jsonl", args.baseline_mb)
            whole = measure(child("whole", folder / "games.jsonl", n), timeout)
            none = measure(child("whole", folder / "games.jsonl", 0), timeout)
            rows.append(baseline("  baseline: read whole, as before", whole, n, games, none))
        print()
        print(table(rows))
        print(
            "\nwall and CPU: seconds; peak: the process's maximum resident memory (ru_maxrss); "
            "baselines scaled linearly from the games measured"
        )
    finally:
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
