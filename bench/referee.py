"""Referee benchmark: decisions per second through the referee against the raw pipe round trip.

Run it with `bash bench/run referee`. One trivial Python bot (it always answers index 0,
through `protocol.bot`) is measured two ways in the same run:

- raw: the same `act` line written to the bot over a pipe and its answer read back, in a
  plain blocking loop: the least any referee could spend per decision;
- referee: whole games of `odin` through `arena.referee.play_game`, two seats of the same
  bot, timed from the first decision to the last (start-up excluded).

The figure of merit is the referee's time per decision divided by the raw round trip.
Goal: under 2, i.e. the referee adds less than the round trip itself.
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

from arena.bot import BotSpec
from arena.games import GameState, new_game
from arena.referee import play_game
from protocol.messages import Request, encode_line

GOAL_RATIO = 2.0
BOT_SOURCE = """
from protocol.bot import run
run(lambda request: 0, name="first-choice")
"""


def sample_line() -> bytes:
    """A typical mid-game `act` line of odin, 2 players, exactly as the referee builds it."""
    state = new_game("odin", 2, None, 7)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    seat = state.current_player
    assert seat is not None
    request = Request(
        decision=6,
        observation=state.observation(seat),
        actions=state.legal_actions(),
        events=state.events_for(seat),
        time_ms=1000.0,
        bank_ms=0.0,
    )
    return encode_line(request)


def raw_round_trips(spec: BotSpec, seconds: float) -> tuple[int, float]:
    """Round trips of one line to the bot over a pipe, for about `seconds`."""
    hello = (
        b'{"type":"hello","protocol":1,"ruleset":"odin","options":{},"seat":0,"players":2,'
        b'"limits":{"startup_ms":10000,"move_ms":1000,"bank_ms":0,"increment_ms":0}}\n'
    )
    line = sample_line()
    proc = subprocess.Popen(spec.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(hello)
        proc.stdin.flush()
        proc.stdout.readline()
        for _ in range(200):  # warm-up
            proc.stdin.write(line)
            proc.stdin.flush()
            proc.stdout.readline()
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(100):
                proc.stdin.write(line)
                proc.stdin.flush()
                proc.stdout.readline()
            n += 100
        return n, time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()


async def referee_games(spec: BotSpec, seconds: float) -> tuple[int, float]:
    """Decisions through the referee over whole games, for about `seconds`."""
    decisions, busy, seed = 0, 0.0, 0
    marks: list[float] = []

    def observe(state: GameState[Any, Any], events: object) -> None:
        # The first call comes before the first decision, the last once the game is over.
        if not marks or state.is_terminal:
            marks.append(time.perf_counter())

    while busy < seconds:
        marks.clear()
        record = await play_game("odin", [spec, spec], seed=seed, observer=observe)
        # Time from the first decision to the game's end, without start-up and shut-down.
        decisions += len(record.moves)
        busy += marks[-1] - marks[0]
        seed += 1
    return decisions, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        bot = Path(tmp) / "first_choice.py"
        bot.write_text(BOT_SOURCE)
        spec = BotSpec("first-choice", [sys.executable, str(bot)])
        raw_us, ref_us = [], []
        for _ in range(args.repeats):
            n, s = raw_round_trips(spec, args.seconds)
            raw_us.append(s / n * 1e6)
            n, s = trio.run(referee_games, spec, args.seconds)
            ref_us.append(s / n * 1e6)
    raw, ref = statistics.median(raw_us), statistics.median(ref_us)
    ratio = ref / raw
    print(f"request line: {len(sample_line())} bytes; median of {args.repeats} repeats")
    print(f"raw pipe round trip : {raw:8.1f} us/decision  ({1e6 / raw:8.0f} decisions/s)")
    print(f"through the referee : {ref:8.1f} us/decision  ({1e6 / ref:8.0f} decisions/s)")
    verdict = "met" if ratio < GOAL_RATIO else "NOT met"
    print(f"ratio referee/raw   : {ratio:8.2f}   (goal < {GOAL_RATIO:g}: {verdict})")


if __name__ == "__main__":
    main()
