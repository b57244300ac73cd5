"""Bots at the speed of real bots, and games that last: what microsecond bots never show.

These are the suite's few slow tests; each says what it proves. Bots that answer at once hid
a sandbox that killed every game at 10 seconds (its processes were started from a helper
thread that trio retires when idle for 10 s, and the sandbox dies with the thread that
started it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec
import pytest
import trio

from arena.league.config import load_tournament
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import GameRecord
from arena.referee.sandbox import SandboxConfig, sandbox_problem
from protocol.messages import Limits
from tests.helpers.paths import TEST_BOTS as BOTS
from tests.helpers.records import check_record
from tests.helpers.sandbox import ON
from tests.helpers.tournaments import command_bot, write_tournament


def thinker(seconds: float, sandbox: SandboxConfig | None) -> BotSpec:
    """A good bot that thinks `seconds` before every answer (random legal actions)."""
    command = [sys.executable, str(BOTS / "random_bot.py"), str(seconds)]
    return BotSpec(f"think-{seconds}", command, sandbox=sandbox)


def test_the_sandbox_works_here() -> None:
    assert sandbox_problem() is None, f"{sandbox_problem()}: bash .ci/run installs bubblewrap"


@pytest.mark.slow
async def test_games_longer_than_15_seconds_and_a_soak_of_thinking_bots_end_without_a_fault(
    tmp_path: Path,
) -> None:
    """At once (their bots mostly wait, so they share the run without slowing each other):
    - two games, one sandboxed and one not, each between bots that think 0.3 and 0.35 s a
      move, run well past the 10 s at which trio retires idle threads: no fault, every move by
      the bots themselves (odin-race, seed 9: 52 decisions with these bots);
    - a soak: 40 games (20 deals, both seatings) between bots that take 50 ms a move,
      sandboxed, four games at once: every game ends with no fault, each one journaled."""
    config = RefereeConfig(limits=Limits(startup_ms=10_000, move_ms=1_000))
    records: dict[str, GameRecord] = {}

    async def game(key: str, sandbox: SandboxConfig | None) -> None:
        bots = [thinker(0.3, sandbox), thinker(0.35, sandbox)]
        records[key] = await play_game("odin-race", bots, seed=9, config=config)

    bots = [
        command_bot("steady", "{python}", BOTS / "random_bot.py", "0.05"),
        command_bot("steady-too", "{python}", BOTS / "random_bot.py", "0.05"),
    ]
    t = load_tournament(write_tournament(tmp_path, bots, deals=20, jobs=4, sandbox="on"))
    with ResultsDir.open(tmp_path / "results", t) as folder:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(game, "sandboxed", ON)
            nursery.start_soon(game, "unsandboxed", None)
            nursery.start_soon(run_tournament, t, folder)
        soak = folder.records()
    for key, record in records.items():
        check_record(record, set())
        assert record.seconds > 15, (key, record.seconds)
        assert all(m.by == "bot" for m in record.moves), key
        assert all(s.sandboxed == (key == "sandboxed") for s in record.seats)
    assert len(soak) == 40
    assert [f for r in soak for f in r.faults] == []
    assert all(s.sandboxed for r in soak for s in r.seats)
    assert all(m.by == "bot" and m.ms >= 50 for r in soak for m in r.moves)
    assert sum(r.seconds for r in soak) > 60  # real thinking: about 2 s a game


@pytest.mark.parametrize("sandbox", [ON, None], ids=["sandboxed", "unsandboxed"])
async def test_a_bot_that_closes_its_output_crashes_at_once(sandbox: SandboxConfig | None) -> None:
    """Closing stdout (while still running) is a crash noticed at once, not a timeout after
    the move time: in the sandbox, no copy of the bot's output is held outside it."""
    bots = [
        msgspec.structs.replace(thinker(0.0, sandbox), name="good"),
        BotSpec("closer", [sys.executable, str(BOTS / "crash_bot.py"), "1", "close-output"]),
    ]
    bots[1] = msgspec.structs.replace(bots[1], sandbox=sandbox)
    config = RefereeConfig(limits=Limits(startup_ms=10_000, move_ms=20_000))
    with trio.fail_after(15):
        record = await play_game("odin-race", bots, seed=1, config=config)
    check_record(record, {1})
    (fault,) = record.faults
    assert fault.kind == "crash" and "closed its output" in fault.reason
    assert record.seconds < 10
