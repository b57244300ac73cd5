"""No zombie piles up in a long-running referee: once it has started an unsandboxed bot it is
a child subreaper, and it reaps the orphans handed to it that end by themselves (the bot
tests/bots/orphan_bot.c leaves one at each game's start) and the sandboxes' inits handed to
it when their bwrap is killed, while the children other code of the process waits for keep
their exit status. (In a Dask worker: tests/league/test_worker_zombies.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.referee import processes
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.sandbox import SandboxConfig
from tests.helpers.processes import orphan_bot as build_orphan_bot

HANDFUL = 12  # zombies there may be at once: a game's orphans between two reapings


@pytest.fixture(scope="module")
def orphan_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/bots/orphan_bot.c, built."""
    return build_orphan_bot(tmp_path_factory.mktemp("orphan-bot"))


def zombie_name(pid: int) -> str | None:
    """The name of process `pid` if it is a zombie, else None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    name, rest = stat.split(b" (", 1)[1].rsplit(b")", 1)
    return name.decode() if rest.split()[0] == b"Z" else None


def children_now() -> frozenset[int]:
    """This process's children now (those of its main thread, to which the kernel hands
    orphans), once it is a subreaper with its guardian (as once an unsandboxed bot has
    started): the guardian among them, and what earlier tests of the same process left (their
    code's processes, running or never waited for)."""
    processes.new_mark()
    return frozenset(processes.handed_over(os.getpid()))


def zombies(pid: int, before: frozenset[int]) -> list[str]:
    """The names of the zombies among process `pid`'s children but those of `before`."""
    names = (zombie_name(c) for c in frozenset(processes.handed_over(pid)) - before)
    return [name for name in names if name is not None]


async def play_many(specs: list[BotSpec], games: int, at_once: int, before: frozenset[int]) -> int:
    """Play `games` games of odin-race between `specs`, `at_once` at a time, counting this
    process's zombies (but `before`) all along; the most there were at once."""
    most = 0
    limiter = trio.CapacityLimiter(at_once)

    async def count() -> None:
        nonlocal most
        while most <= HANDFUL:  # (past it, the test has failed: counting thousands is slow)
            most = max(most, len(zombies(os.getpid(), before)))
            await trio.sleep(0.01)

    async def game(seed: int) -> None:
        async with limiter:
            record = await play_game("odin-race", specs, seed=seed)
        assert record.faults == []

    async with trio.open_nursery() as counting:
        counting.start_soon(count)
        async with trio.open_nursery() as nursery:
            for seed in range(games):
                nursery.start_soon(game, seed)
        counting.cancel_scope.cancel()
    return most


async def none_left(before: frozenset[int]) -> list[str]:
    """This process's zombies (but `before`) once every process handed to it since has ended
    and been reaped, or 2 s have passed: a game is over once its bots are, and a sandbox's
    init may still be dying then (it ends after its bwrap, handed to the referee), an orphan
    still running; each is a zombie a moment later, until the next reaping (a tenth of a
    second at most). Nothing is handed over once none of them is left."""
    with trio.move_on_after(2):
        while frozenset(processes.handed_over(os.getpid())) - before:
            await trio.sleep(0.02)
    return zombies(os.getpid(), before)


@pytest.mark.slow
async def test_a_thousand_games_of_a_bot_leaving_orphans_leave_no_zombie(
    orphan_bot: Path,
) -> None:
    spec = BotSpec("orphans", [str(orphan_bot)])
    before = children_now()
    most = await play_many([spec, spec], 1000, at_once=4, before=before)
    assert most <= HANDFUL
    assert await none_left(before) == []


@pytest.mark.slow
async def test_sandboxes_beside_unsandboxed_bots_leave_no_defunct_bwrap(orphan_bot: Path) -> None:
    """A sandbox's init is handed to the referee (a subreaper) when bwrap ends: reaped too."""
    inside = BotSpec("inside", [str(orphan_bot)], sandbox=SandboxConfig(mode="on"))
    outside = BotSpec("outside", [str(orphan_bot)])
    before = children_now()
    most = await play_many([inside, outside], 30, at_once=2, before=before)
    assert most <= HANDFUL
    assert await none_left(before) == []  # (before: a defunct bwrap for each sandbox)


def test_the_children_other_code_waits_for_keep_their_exit_status() -> None:
    """Children that other code of the referee's process started and waits for (a build, in a
    session of its own; a plain subprocess, in the referee's) are left to it, ended or not."""
    processes.new_mark()  # a subreaper, as once an unsandboxed bot has started
    for leader in (True, False):
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", "import sys; sys.exit(3)"], start_new_session=leader
        )
        while Path(f"/proc/{proc.pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
            time.sleep(0.005)
        processes.reap_orphans()
        assert proc.wait() == 3
