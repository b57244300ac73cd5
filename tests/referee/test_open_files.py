"""Bots do not get the referee's raised limit on open files (arena.league.capacity raises
it to the hard limit, 20,000 here and often a million elsewhere): a sandboxed bot gets its
sandbox's `open_files` (soft and hard), an unsandboxed one the soft limit the referee
started with, which a worker process learns from the referee that started it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest
import trio

from arena.referee import spawn
from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec
from arena.referee.sandbox import SandboxConfig

#: reads its limits once the referee has started it and says go, as a bot reads its hello
#: line first: the limit is given back just after the start (spawn._give_back_fd_limit)
LIMITS = ["/bin/sh", "-c", "read go; ulimit -Sn >&2; ulimit -Hn >&2"]


async def limits(sandbox: SandboxConfig | None) -> list[str]:
    """The soft and hard limits on open files a bot started with `sandbox` has."""
    bot = BotProcess(BotSpec("limits", LIMITS, sandbox=sandbox))
    async with trio.open_nursery() as nursery:
        await bot.start(nursery)
        assert bot.process is not None
        await bot.send(b"go\n")
        with trio.fail_after(10):
            await bot.process.wait()
            await bot._stderr_closed.wait()  # (read to its end before it is closed)
        await bot.close()
    return bot.stderr_text().split()


async def test_a_sandboxed_bot_has_its_own_limit_on_open_files() -> None:
    assert await limits(SandboxConfig(mode="on")) == ["256", "256"]
    assert await limits(SandboxConfig(mode="on", open_files=64)) == ["64", "64"]


async def test_an_unsandboxed_bot_gets_the_soft_limit_the_referee_started_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    monkeypatch.setattr(spawn, "FD_LIMIT", 100)
    assert await limits(None) == ["100", str(hard)]


SCRIPT = """
import subprocess, sys, trio
from arena.league.capacity import raise_fd_limit
from arena.referee import spawn

raised = raise_fd_limit()

async def main():
    child = spawn.spawn(["/bin/sh", "-c", "read go; ulimit -Sn"])
    await child.stdin.send_all(b"go\\n")
    print(spawn.FD_LIMIT, raised, (await child.stdout.receive_some(100)).decode().strip())
    await child.wait()

trio.run(main)
worker = "from arena.referee import spawn; print(spawn.FD_LIMIT)"
print(subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True).stdout)
"""


def test_the_limit_the_referee_started_with_is_handed_down_to_its_workers() -> None:
    """A referee started with a soft limit of 512 raises its own, gives its bots 512, and a
    process it starts (a worker, with the raised limit) gives its own bots 512 too."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))

    env = {k: v for k, v in os.environ.items() if k != spawn.FD_LIMIT_VARIABLE}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        preexec_fn=low,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    referee, worker = done.stdout.splitlines()[:2]
    assert referee.split() == ["512", str(hard), "512"]
    assert worker == "512"
