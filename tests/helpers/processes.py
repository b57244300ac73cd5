"""Bot processes started for a test, and a count of the times a task lets trio run."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import trio

from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec
from protocol.messages import MAX_LINE_BYTES
from tests.helpers.paths import TEST_BOTS


def orphan_bot(folder: Path) -> Path:
    """tests/bots/orphan_bot.c (a bot that leaves short-lived orphans), built in `folder`."""
    program = folder / "orphan_bot"
    source = TEST_BOTS / "orphan_bot.c"
    subprocess.run(["cc", "-O2", "-o", str(program), str(source)], check=True)
    return program


@asynccontextmanager
async def running_bots(
    *commands: list[str], max_line: int = MAX_LINE_BYTES
) -> AsyncIterator[list[BotProcess]]:
    """Started bot processes, closed (killed and reaped) at the end; none lasts 10 s."""
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            bots = [
                BotProcess(BotSpec(f"test-{i}", c), max_line=max_line)
                for i, c in enumerate(commands)
            ]
            for bot in bots:
                await bot.start(nursery)
            try:
                yield bots
            finally:
                for bot in bots:
                    await bot.close()


class Yields(trio.abc.Instrument):
    """Counts the times the current task lets trio run (each ends one of its steps)."""

    def __init__(self) -> None:
        self.task = trio.lowlevel.current_task()
        self.count = 0

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task:
            self.count += 1


@contextmanager
def counting_yields() -> Iterator[Yields]:
    yields = Yields()
    trio.lowlevel.add_instrument(yields)
    try:
        yield yields
    finally:
        trio.lowlevel.remove_instrument(yields)
