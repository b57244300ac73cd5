"""Scale-out benchmark: games per second with bots that think 50 ms a move, many games at once,
in one process, in local worker processes and through a Dask `LocalCluster`.

Run it with `bash bench/run scale-out` (options: `--help`). The bot is a small C program that
sleeps `--move-ms` milliseconds before answering each decision (the first legal action). A
round robin of copies of it on `--ruleset` is played through `run_tournament` (journal and
all), with C games at once for each C of `--concurrency`:

- bare: N processes, each running a bare trio loop (`_bare_games`) that passes one fixed
  request line to two bots and reads the answer, as many times as a game has decisions, C / N
  games at once: no rules, views, clocks or records, the floor of any trio referee here;
- one process: `InProcess`, the default executor, C games in this process's trio loop;
- apart: N processes, each playing its own share of the games (C / N at once) in one
  process as above, started together, with no coordinator or executor between them: the
  most N referee processes can do on this machine, the bound for the two rows below;
- workers: `--workers N` worker processes on this machine (`DaskExecutor.local`, what
  `arena tournament --workers N --jobs C` uses), C games at once in all;
- cluster: a `LocalCluster` of the same N processes (as many threads each as local workers
  have) started apart and reached by its address, asked for C games at once
  (`DaskExecutor.connect`, what `--cluster ADDRESS --jobs C` uses: the bot is sent as an
  archive).

Ideal: C games at once each taking as long as one game played alone (measured first, in
the same run): C / T1 games per second. Measured: the steady rate, games finished per second,
from the finishes taken C at a time (`steady_rate`): the first C (all started at once) and
the last C (the queue no longer feeds every slot) left out. Printed as a ratio of
the ideal. Goals: at least 0.9 with workers at 256 games at once, and the cluster within
10% of the workers.

The ideal assumes the machine's cores keep up. Each row also prints the processor time a game
took (the referee, its workers and coordinator, and the bots; for the Dask rows the workers'
start-up too), and each concurrency the machine's ceiling: its cores divided by the one
process's time a game, as a ratio of the ideal. Where the ceiling is under the goal, the
cores, not the executor, are the limit.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
from common import compile_c_bot, sample_line

from arena.league.config import load_tournament
from arena.league.executors import Executor, InProcess
from arena.league.executors.cluster import SLOTS_PER_WORKER, DaskExecutor
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament
from arena.referee.bot import READ_SIZE


def make_bot(folder: Path, move_ms: int) -> Path:
    """The thinking bot (bench/common.py's C bot, sleeping `move_ms` a move) as a bot folder."""
    bot = folder / "thinker"
    bot.mkdir()
    made = compile_c_bot(bot, "bot")
    if isinstance(made, str):
        raise SystemExit(f"bench scale-out: needs a C compiler: {made}")
    (bot / "bot.toml").write_text(f'name = "thinker"\ncommand = ["./bot", "{move_ms}"]\n')
    return bot


def tournament_file(
    folder: Path, bot: Path, ruleset: str, games: int, name: str, copies: int = 8
) -> Path:
    """A round robin of `copies` of the bot with enough deals for at least `games` games."""
    per_deal = copies * (copies - 1)  # each pair, each deal in both seatings
    deals = -(-games // per_deal)
    lines = [
        f'name = "{name}"', f'ruleset = "{ruleset}"', "seats = 2", f"deals = {deals}",
        'sandbox = "off"', "", "[time]", "move = 5.0", "startup = 30.0", "",
    ]  # fmt: skip
    for i in range(copies):
        lines += ["[[bots]]", f'path = "{bot}"', f'name = "thinker-{i}"', ""]
    file = folder / f"{name}.toml"
    file.write_text("\n".join(lines))
    return file


def play(file: Path, results: Path, executor: Executor) -> list[float]:
    """Play the tournament on `executor`; each game's finishing time, from the start."""
    t = load_tournament(file)
    finished: list[float] = []
    start = time.perf_counter()

    def on_game(record: object, progress: object) -> None:
        finished.append(time.perf_counter() - start)

    with ResultsDir.open(results, t) as folder:
        trio.run(lambda: run_tournament(t, folder, on_game, executor=executor))
    return finished


def _apart(file: str, results: str, slots: int, barrier: Any, out: Any) -> None:
    """One process of the "apart" row: its share of the games, started with the others."""
    barrier.wait()
    out.put(play(Path(file), Path(results), InProcess(slots, 2)))


async def _bare_games(
    bot: str, move_ms: int, slots: int, games: int, decisions: int
) -> list[float]:
    """`games` games of `decisions` exchanges of one fixed request line with two bots, `slots`
    at once, in trio's own processes and streams: no rules, views, clocks or records."""
    line, finished, start = sample_line(), [], time.perf_counter()
    limiter = trio.CapacityLimiter(slots)

    async def game() -> None:
        async with limiter:
            bots = [
                await trio.lowlevel.open_process(
                    [bot, str(move_ms)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
                )
                for _ in range(2)
            ]
            for i in range(decisions):
                process = bots[i % 2]
                assert process.stdin is not None and process.stdout is not None
                await process.stdin.send_all(line)
                await process.stdout.receive_some(READ_SIZE)
            for process in bots:
                assert process.stdin is not None
                await process.stdin.aclose()
                await process.wait()
            finished.append(time.perf_counter() - start)

    async with trio.open_nursery() as nursery:
        for _ in range(games):
            nursery.start_soon(game)
    return finished


def _bare(
    bot: str, move_ms: int, slots: int, games: int, decisions: int, barrier: Any, out: Any
) -> None:
    """One process of the "bare" row, started with the others."""
    barrier.wait()
    out.put(trio.run(_bare_games, bot, move_ms, slots, games, decisions))


def apart(target: Callable[..., None], shares: list[tuple[Any, ...]]) -> list[float]:
    """One process per share, each running `target(*share, barrier, queue)`, started together
    (they wait at the barrier); every game's finishing time, from the start."""
    spawn = multiprocessing.get_context("spawn")
    barrier, out = spawn.Barrier(len(shares)), spawn.Queue()
    children = [spawn.Process(target=target, args=(*share, barrier, out)) for share in shares]
    for child in children:
        child.start()
    finished = sorted(t for _ in children for t in out.get())
    for child in children:
        child.join()
    return finished


def steady_rate(finished: list[float], slots: int) -> float:
    """Games per second in the steady state: the finishes in blocks ("waves") of `slots`,
    the first wave (every game starting at once) and the tail (the last `slots` games, when
    the queue no longer feeds every slot) left out; `slots` games per difference between the
    mean finishing times of consecutive waves. Means, not a wave's last finish: games that
    start together finish in waves, and the last of a wave is the longest of its games,
    which would count the spread of game lengths as the referee's time."""
    waves = (len(finished) - slots) // slots  # whole waves before the tail
    if waves < 3:
        raise SystemExit("bench scale-out: too few games for the steady state (raise --rounds)")

    def mean_finish(wave: int) -> float:
        return statistics.fmean(finished[wave * slots : (wave + 1) * slots])

    return slots * (waves - 2) / (mean_finish(waves - 1) - mean_finish(1))


def cpu_seconds() -> float:
    """Processor time of this process and of its children waited for (bots, workers)."""
    own, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, nargs="*", default=[64, 256, 512])
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--move-ms", type=int, default=50, help="the bot's thinking time")
    parser.add_argument("--ruleset", default="odin-race")
    parser.add_argument("--rounds", type=float, default=4, help="games per slot (>= 4)")
    parser.add_argument("--modes", default="bare,process,apart,workers,cluster")
    args = parser.parse_args()
    modes = args.modes.split(",")
    import distributed

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load}; {args.move_ms} ms a move, {args.ruleset}")
    with tempfile.TemporaryDirectory() as root:
        base = Path(root)
        bot = make_bot(base, args.move_ms)
        alone = play(
            tournament_file(base, bot, args.ruleset, 12, "alone", copies=3),
            base / "r",
            InProcess(1, 2),
        )
        one_game = statistics.mean(b - a for a, b in zip([0.0, *alone], alone, strict=False))
        records = ResultsDir.existing(base / "r" / "alone").records()
        decisions = round(statistics.mean(len(r.moves) for r in records))
        print(f"one game alone: {one_game:.2f} s (the ideal: C / this games per second)\n")
        print(
            f"{'at once':>8} {'mode':<34} {'games':>6} {'games/s':>8} {'ideal':>8} {'ratio':>6}"
            f" {'cpu ms/game':>12}"
        )
        for slots in args.concurrency:
            games = int(slots * max(4.0, args.rounds))
            ideal = slots / one_game
            file = tournament_file(base, bot, args.ruleset, games, f"c{slots}")
            rates: dict[str, float] = {}
            for mode in modes:
                results = base / f"{mode}-{slots}"
                cluster = None
                executor: Executor | None = None
                shares: list[tuple[Any, ...]] = []
                if mode == "apart":
                    label = f"{args.workers} processes apart (bound)"
                    names = [f"c{slots}-apart{i}" for i in range(args.workers)]
                    share = games // args.workers
                    shares = [
                        (
                            str(tournament_file(base, bot, args.ruleset, share, name)),
                            str(base / name),
                            slots // args.workers,
                        )
                        for name in names
                    ]
                elif mode == "bare":
                    label = f"{args.workers} bare trio pipe loops (floor)"
                    share = (str(bot / "bot"), args.move_ms, slots // args.workers)
                    shares = [(*share, games // args.workers, decisions)] * args.workers
                elif mode == "process":
                    executor = InProcess(slots, 2)
                    label = "one process"
                elif mode == "workers":
                    executor = DaskExecutor.local(args.workers, slots)
                    label = f"{args.workers} workers (--workers)"
                else:
                    cluster = distributed.LocalCluster(
                        n_workers=args.workers,
                        threads_per_worker=min(SLOTS_PER_WORKER, -(-slots // args.workers)),
                        processes=True,
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
                    executor = DaskExecutor.connect(cluster.scheduler_address, jobs=slots)
                    label = f"LocalCluster of {args.workers} (--cluster)"
                cpu = cpu_seconds()
                try:
                    if executor is None:
                        finished = apart(_apart if mode == "apart" else _bare, shares)
                    else:
                        finished = play(file, results, executor)
                finally:
                    if executor is not None:
                        executor.close()
                    if cluster is not None:
                        cluster.close()
                per_game = (cpu_seconds() - cpu) / len(finished)
                rates[mode] = rate = steady_rate(finished, slots)
                print(
                    f"{slots:>8} {label:<34} {len(finished):>6} {rate:>8.1f} {ideal:>8.1f}"
                    f" {rate / ideal:>6.2f} {per_game * 1000:>12.1f}"
                )
                if mode == "process":
                    ceiling = (os.cpu_count() or 1) / per_game
                    print(
                        f"{'':>8} the machine's ceiling: {ceiling:.1f} games/s"
                        f" ({ceiling / ideal:.2f} of ideal)"
                    )
                sys.stdout.flush()
            if "workers" in rates and "cluster" in rates:
                print(f"{'':>8} cluster / workers: {rates['cluster'] / rates['workers']:.2f}")
    print("\ngoals: workers >= 0.90 of ideal at 256 at once; cluster within 10% of workers")


if __name__ == "__main__":
    main()
