"""A sandboxed bot's memory counts its memory files: memfd files written with write() and
never mapped, and files in its /dev/shm, are in no process's address space nor resident
memory, yet they are memory the bot holds. A bot holding three times its limit that way is
stopped with a `memory` fault (the other seat plays on, unharmed, to the game's end), and a
bot mapping its memory files is charged for their pages once. The bot is
tests/bots/memory_files_bot.py. A look at a bot of many descriptors lets the referee's other
tasks run as it goes."""

from __future__ import annotations

import sys
import time
from typing import Any

import msgspec
import pytest
import trio

from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import RefereeConfig, play_game
from arena.referee.memory import STEP, BotMemory
from arena.referee.records import GameRecord
from arena.referee.sandbox import SandboxConfig
from protocol.messages import Limits
from tests.helpers.paths import RANDOM, TEST_BOTS
from tests.helpers.records import check_record

ON = SandboxConfig(mode="on")
CONFIG = RefereeConfig(limits=Limits(startup_ms=5000, move_ms=2000), exit_grace_ms=500)


def hoarder(kind: str, mib: int, files: int, hold: float, **limits: Any) -> BotSpec:
    """tests/bots/memory_files_bot.py writing `mib` MiB into `files` files of `kind` at its
    first decision, then answering `hold` seconds later."""
    command = [sys.executable, str(TEST_BOTS / "memory_files_bot.py"), kind, mib, files, hold]
    sandbox = msgspec.structs.replace(ON, **limits)
    return BotSpec(f"hoarder-{kind}", list(map(str, command)), sandbox=sandbox)


async def play(bot: BotSpec) -> GameRecord:
    honest = msgspec.structs.replace(load_bot(str(RANDOM)), sandbox=ON)
    return await play_game("odin-race", [bot, honest], config=CONFIG)


@pytest.mark.parametrize(
    ("kind", "files", "limits"),
    [
        pytest.param("memfd", 1, {"file_size_mb": 256}, id="one-memfd"),
        pytest.param("memfd", 4, {}, id="memfds"),
        pytest.param("shm", 4, {"scratch_mb": 256}, id="dev-shm"),
    ],
)
async def test_memory_files_count_toward_the_memory_limit(
    kind: str, files: int, limits: dict[str, int]
) -> None:
    """192 MiB written under a 64 MiB limit: a `memory` fault, before the bot would answer
    (it holds the files 5 s; the move's limit is 2)."""
    record = await play(hoarder(kind, 192, files, 5, memory_mb=64, **limits))
    check_record(record, {0})
    (fault,) = record.faults
    assert fault.kind == "memory" and fault.seat == 0 and fault.decision is not None
    assert "over its limit of 64 MiB (" in fault.reason
    assert "MiB of it in memory files" in fault.reason
    assert record.ranks == [2, 1]


async def test_mapped_memory_files_are_counted_once() -> None:
    """150 MiB of memory files, mapped and written through (their pages resident in the bot's
    process and in the files), under a 256 MiB limit: the bot plays on."""
    record = await play(hoarder("mapped", 150, 3, 0.5, memory_mb=256))
    check_record(record, set())
    assert '"written": 150' in record.stderr[0]


MANY_DESCRIPTORS = """
import os, sys, time
for child in range(15):
    if os.fork() == 0:
        break
else:
    child = 15
held = [os.open("/dev/null", os.O_RDONLY) for _ in range(240)]
if child == 15:
    held.append(os.memfd_create("hoard"))
    os.write(held[-1], b"\\1" * (8 << 20))
    print("ready", flush=True)
time.sleep(60)
"""


async def test_a_long_look_lets_the_referees_other_tasks_run() -> None:
    """A bot of 16 processes holding 240 descriptors each (a readlink apiece for the watch):
    the look lets trio run other tasks as it goes, and still finds the memory file."""
    spec = BotSpec("descriptors", [sys.executable, "-c", MANY_DESCRIPTORS], sandbox=ON)
    bot = BotProcess(spec)
    gaps: list[float] = []
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        try:
            with trio.fail_after(10):
                assert (await bot.receive())[0] == b"ready"
            assert bot.process is not None
            held = BotMemory(bot.process.pid)
            done = trio.Event()

            async def tick() -> None:
                last = time.perf_counter()
                while not done.is_set():
                    await trio.lowlevel.checkpoint()
                    now = time.perf_counter()
                    gaps.append(now - last)
                    last = now

            nursery.start_soon(tick)
            await trio.sleep(0.01)
            gaps.clear()
            used = await held.look(1 << 40)
            done.set()
        finally:
            await bot.close()
    assert used.files >= 8 << 20
    # The look stopped between its steps, and the other task ran each time: counted in
    # turns, not timed, as a loaded machine may stop this process for longer than a step.
    assert held.spent > 4 * STEP  # (a look long enough to need stops)
    assert len(gaps) >= 4, (len(gaps), held.spent)
