"""Sandbox benchmark: what the bubblewrap sandbox costs per bot start and per decision.

Run it with `bash bench/run sandbox`. One trivial Python bot (it always answers index 0,
through `protocol.bot`) is measured with and without the sandbox, in pairs, in the same run:

- start: spawn the bot, send hello and read its ready, through `arena.referee.bot.BotProcess` (the
  referee's own path: for the sandbox, building the bwrap command line, bwrap, the shell that
  moves the bot's streams into place, setpriv when root, prlimit, then the interpreter);
  then it is killed and reaped, untimed;
- decision: a whole game of `odin` (2 seats, the same bot) through `arena.referee.game.play_game`,
  timed from the first decision to the last (start-up and shut-down excluded), per decision;
- round trip: one typical `act` line to the bot and its answer over plain blocking pipes,
  with the benchmark and both bots pinned to one core. On two cores a round trip costs about
  13 us when the bot runs on the referee's core and about 50 us when it sits on the other
  (a wake-up across cores), and which core a process lands on at start is luck: unpinned,
  that luck swamps everything else. Pinned, what remains is the sandbox's own cost.

Timings on these machines drift over seconds, so the two variants alternate (which goes first
alternates too) and each figure is the median over pairs: the start overhead is the median of
the per-pair differences, the decision ratio the median of the per-pair ratios.
Goal: under 20 ms more per start, and no measurable cost per decision.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import trio
from common import BOT_SOURCE, HELLO, sample_line

from arena.games import GameState
from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.sandbox import SandboxConfig, sandbox_problem, wrap

GOAL_START_MS = 20.0


async def start_ms(spec: BotSpec) -> float:
    """Milliseconds from spawning the bot to reading its ready."""
    async with trio.open_nursery() as nursery:
        bot = BotProcess(spec)
        begin = time.perf_counter()
        await bot.start(nursery)
        await bot.send(HELLO)
        line, _ = await bot.receive()
        elapsed = (time.perf_counter() - begin) * 1000
        assert b'"ready"' in line, line
        assert bot.sandboxed == (spec.sandbox is not None)
        await bot.close()
        nursery.cancel_scope.cancel()
    return elapsed


async def decision_us(spec: BotSpec, seed: int) -> float:
    """Microseconds per decision over one game through the referee."""
    marks: list[float] = []

    def observe(state: GameState[Any, Any], events: object) -> None:
        if not marks or state.is_terminal:
            marks.append(time.perf_counter())

    record = await play_game("odin", [spec, spec], seed=seed, observer=observe)
    assert not record.faults, record.faults
    assert all(s.sandboxed == (spec.sandbox is not None) for s in record.seats)
    return (marks[-1] - marks[0]) / len(record.moves) * 1e6


async def measure(
    plain: BotSpec, boxed: BotSpec, starts: int, games: int
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {k: [] for k in ("start", "start_sb", "dec", "dec_sb")}
    await start_ms(plain)  # warm-up: caches, the sandbox check
    await start_ms(boxed)
    for i in range(starts):
        pair = [("start", plain), ("start_sb", boxed)]
        for key, spec in pair if i % 2 else reversed(pair):
            out[key].append(await start_ms(spec))
    for seed in range(games):
        pair = [("dec", plain), ("dec_sb", boxed)]
        for key, spec in pair if seed % 2 else reversed(pair):
            out[key].append(await decision_us(spec, seed))
    return out


class PipeBot:
    """A bot on plain blocking pipes (started with hello answered), in a session of its own
    as the referee starts every bot (a session is also a scheduler group: about 0.5 us more
    per round trip than a bot in the benchmark's own session)."""

    def __init__(self, argv: list[str], env: dict[str, str] | None) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.round_trips(HELLO, 1)

    def round_trips(self, line: bytes, n: int) -> float:
        """Microseconds per round trip of `line`, over `n`."""
        start = time.perf_counter()
        for _ in range(n):
            self.stdin.write(line)
            self.stdin.flush()
            self.stdout.readline()
        return (time.perf_counter() - start) / n * 1e6

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def pinned_round_trips(plain: BotSpec, boxed: BotSpec, pairs: int) -> dict[str, list[float]]:
    """Round trips to both bots, all pinned to one core, alternating; us per round trip."""
    assert boxed.sandbox is not None
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})  # the bots inherit it
    argv, env = wrap(boxed.argv(), cwd=None, config=boxed.sandbox)
    bots = {"rt": PipeBot(plain.argv(), None), "rt_sb": PipeBot(argv, env)}
    out: dict[str, list[float]] = {k: [] for k in bots}
    line = sample_line()
    try:
        for bot in bots.values():
            bot.round_trips(line, 500)  # warm-up
        for i in range(pairs):
            for key in sorted(bots, reverse=bool(i % 2)):
                out[key].append(bots[key].round_trips(line, 200))
    finally:
        for bot in bots.values():
            bot.close()
        os.sched_setaffinity(0, before)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=200, help="bot starts of each kind")
    parser.add_argument("--games", type=int, default=60, help="games of each kind")
    parser.add_argument("--pairs", type=int, default=100, help="pinned round-trip pairs")
    args = parser.parse_args()
    if (problem := sandbox_problem()) is not None:
        sys.exit(f"bench: the sandbox cannot run here: {problem}")

    with tempfile.TemporaryDirectory() as tmp:
        bot = Path(tmp) / "first_choice.py"
        bot.write_text(BOT_SOURCE)
        plain = BotSpec("first-choice", [sys.executable, str(bot)])
        boxed = msgspec.structs.replace(plain, sandbox=SandboxConfig(mode="on"))
        out = trio.run(measure, plain, boxed, args.starts, args.games)
        out.update(pinned_round_trips(plain, boxed, args.pairs))

    def q(values: list[float]) -> str:
        lo, mid, hi = statistics.quantiles(values, n=4)
        return f"{mid:8.2f} (quartiles {lo:.2f}-{hi:.2f})"

    extra = [b - a for a, b in zip(out["start"], out["start_sb"], strict=True)]
    ratio = [b / a for a, b in zip(out["dec"], out["dec_sb"], strict=True)]
    print(f"bot start, spawn to ready ({args.starts} pairs), ms:")
    print(f"  unsandboxed        {q(out['start'])}")
    print(f"  sandboxed          {q(out['start_sb'])}")
    verdict = "met" if statistics.median(extra) < GOAL_START_MS else "NOT met"
    print(f"  sandbox overhead   {q(extra)}   goal < {GOAL_START_MS:g} ms: {verdict}")
    print(f"decision through the referee, odin, 2 seats ({args.games} pairs of games), us:")
    print(f"  unsandboxed        {q(out['dec'])}")
    print(f"  sandboxed          {q(out['dec_sb'])}")
    print(f"  ratio sandboxed/unsandboxed {q(ratio)}")
    pinned = [b / a for a, b in zip(out["rt"], out["rt_sb"], strict=True)]
    print(f"pipe round trip of an act line, pinned to one core ({args.pairs} pairs), us:")
    print(f"  unsandboxed        {q(out['rt'])}")
    print(f"  sandboxed          {q(out['rt_sb'])}")
    print(f"  ratio sandboxed/unsandboxed {q(pinned)}")


if __name__ == "__main__":
    main()
