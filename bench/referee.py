"""Referee benchmark: decisions per second through the referee against the raw pipe round trip.

Run it with `bash bench/run referee`. One trivial Python bot (it always answers index 0,
through `protocol.bot`) is measured three ways, in pairs, in the same run:

- referee: a whole game of `odin` through `arena.referee.game.play_game`, two seats of the same
  bot, timed from the first decision to the last (start-up and shut-down excluded);
- raw: right after it, as many round trips of the same `act` line to the same bot over a
  pipe, in a plain blocking loop: the least any referee could spend per decision;
- raw on trio: as many round trips through trio's pipe streams (the referee's I/O layer),
  for information: what the event loop itself costs.

Timings on these machines drift by 2x over seconds (where the scheduler puts the two
processes), so each game is paired with raw round trips measured right after it, and the
figure of merit is the median of the per-pair ratios: referee time per decision divided by
the raw round trip. Goal: under 2, i.e. the referee adds less than the round trip itself.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio
from common import BOT_SOURCE, HELLO, sample_line

from arena.games import GameState
from arena.referee.bot import BotSpec
from arena.referee.game import play_game

GOAL_RATIO = 2.0


class RawBot:
    """The bot on plain blocking pipes."""

    def __init__(self, spec: BotSpec) -> None:
        self.proc = subprocess.Popen(spec.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.round_trip(HELLO)

    def round_trip(self, line: bytes) -> bytes:
        self.stdin.write(line)
        self.stdin.flush()
        return self.stdout.readline()

    def time(self, line: bytes, n: int) -> float:
        start = time.perf_counter()
        for _ in range(n):
            self.round_trip(line)
        return time.perf_counter() - start

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


class TrioBot:
    """The bot on trio's pipe streams, as the referee's I/O layer uses them."""

    def __init__(self, proc: trio.Process) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc, self.stdin, self.stdout = proc, proc.stdin, proc.stdout

    @classmethod
    async def start(cls, spec: BotSpec) -> TrioBot:
        proc = await trio.lowlevel.open_process(
            spec.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        bot = cls(proc)
        await bot.time(HELLO, 1)
        return bot

    async def time(self, line: bytes, n: int) -> float:
        start = time.perf_counter()
        for _ in range(n):
            await self.stdin.send_all(line)
            answer = await self.stdout.receive_some(65536)
            assert answer.endswith(b"\n")  # one short line arrives whole
        return time.perf_counter() - start

    async def close(self) -> None:
        self.proc.kill()
        await self.proc.wait()


async def referee_game(spec: BotSpec, seed: int) -> tuple[int, float]:
    """One game through the referee: decisions, and seconds from first decision to the end."""
    marks: list[float] = []

    def observe(state: GameState[Any, Any], events: object) -> None:
        # The first call comes before the first decision, the last once the game is over.
        if not marks or state.is_terminal:
            marks.append(time.perf_counter())

    record = await play_game("odin", [spec, spec], seed=seed, observer=observe)
    return len(record.moves), marks[-1] - marks[0]


async def measure(spec: BotSpec, seconds: float) -> dict[str, list[float]]:
    """Pairs of (referee game, raw round trips, trio round trips) until `seconds` pass."""
    line = sample_line()
    raw, on_trio = RawBot(spec), await TrioBot.start(spec)
    out: dict[str, list[float]] = {"referee": [], "raw": [], "trio": [], "ratio": []}
    try:
        raw.time(line, 200)  # warm-up
        await on_trio.time(line, 200)
        started, seed = time.perf_counter(), 0
        while time.perf_counter() - started < seconds or seed < 3:
            n, ref = await referee_game(spec, seed)
            out["referee"].append(ref / n * 1e6)
            out["raw"].append(raw.time(line, n) / n * 1e6)
            out["trio"].append(await on_trio.time(line, n) / n * 1e6)
            out["ratio"].append(out["referee"][-1] / out["raw"][-1])
            seed += 1
    finally:
        raw.close()
        await on_trio.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to measure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        bot = Path(tmp) / "first_choice.py"
        bot.write_text(BOT_SOURCE)
        spec = BotSpec("first-choice", [sys.executable, str(bot)])
        out = trio.run(measure, spec, args.seconds)
    med = {k: statistics.median(v) for k, v in out.items()}
    trio_ratio = statistics.median(r / t for r, t in zip(out["referee"], out["trio"], strict=True))
    q = statistics.quantiles(out["ratio"], n=4)
    print(f"request line: {len(sample_line())} bytes; {len(out['ratio'])} paired games of odin")
    for label, key in (
        ("raw pipe round trip", "raw"),
        ("raw, on trio's pipes", "trio"),
        ("through the referee", "referee"),
    ):
        us = med[key]
        print(f"{label:22}: {us:8.1f} us/decision  ({1e6 / us:8.0f} decisions/s)  (median)")
    print(f"ratio referee/raw on trio's pipes: {trio_ratio:5.2f}  (for information)")
    verdict = "met" if med["ratio"] < GOAL_RATIO else "NOT met"
    print(
        f"ratio referee/raw: median {med['ratio']:.2f} (quartiles {q[0]:.2f}-{q[2]:.2f})"
        f"   goal < {GOAL_RATIO:g}: {verdict}"
    )


if __name__ == "__main__":
    main()
