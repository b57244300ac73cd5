"""Tournament benchmark: games per second with one game at a time and with two, same schedule.

Run it with `bash bench/run tournament`. A round robin of the Python example bots
(random-py, greedy-py, odin-heuristic) on `odin` (target 10) is played from scratch with
`--jobs 1` and with `--jobs 2`, alternately, on the same seeded schedule; each run is timed
whole (bot start-ups included, as a user waits for them). The scaling ratio is games/s
with 2 jobs over games/s with 1 job; on 2 cores the ideal is 2.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import msgspec
import trio

from arena.league.config import load_tournament
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament, schedule_of

BOTS = Path(__file__).resolve().parents[1] / "examples" / "bots"
TEMPLATE = """
name = "bench"
ruleset = "odin"
seats = 2
deals = {deals}
seed = 7
options = {{ target = 10 }}

[[bots]]
path = "{bots}/random-py"

[[bots]]
path = "{bots}/greedy-py"

[[bots]]
path = "{bots}/odin-heuristic"
"""


def run_once(file: Path, jobs: int) -> tuple[int, float]:
    t = load_tournament(file)
    t = msgspec.structs.replace(t, config=msgspec.structs.replace(t.config, jobs=jobs))
    with tempfile.TemporaryDirectory() as root, ResultsDir.open(root, t) as folder:
        start = time.perf_counter()
        progress = trio.run(run_tournament, t, folder)
        seconds = time.perf_counter() - start
    assert progress.done == progress.total == schedule_of(t).total()
    return progress.done, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=12, help="deals per pair of bots")
    parser.add_argument("--repeats", type=int, default=2, help="alternating repeats (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "bench.toml"
        file.write_text(TEMPLATE.format(deals=args.deals, bots=BOTS.as_posix()))
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.repeats):
            for jobs in (1, 2):
                games, seconds = run_once(file, jobs)
                rates[jobs].append(games / seconds)
                print(
                    f"jobs {jobs}: {games} games in {seconds:.2f} s = {games / seconds:.1f} games/s"
                )
    one, two = (statistics.median(rates[j]) for j in (1, 2))
    print(f"median games/s: jobs 1 {one:.1f}, jobs 2 {two:.1f}")
    print(f"scaling ratio jobs 2 / jobs 1: {two / one:.2f} (ideal 2 on 2 cores)")


if __name__ == "__main__":
    main()
