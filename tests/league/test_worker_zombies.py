"""No zombie piles up in a Dask worker process (`--workers`), whose referee loop lives as long
as the worker: a thousand games of a bot that leaves an orphan at each game's start
(tests/bots/orphan_bot.c) leave at most a handful at any moment, and none at the end. (In
one process: tests/referee/test_zombies.py.)"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed
import msgspec
import pytest

from arena.league.executors import GameJob
from arena.league.executors.remote import play_remote
from arena.referee import processes
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig
from arena.referee.records import GameRecord
from tests.helpers.dask import local_cluster
from tests.helpers.processes import orphan_bot as build_orphan_bot

pytestmark = pytest.mark.slow  # (a thousand games on a Dask worker process)

HANDFUL = 12  # zombies there may be at once: the orphans of the games at once, till reaped
GAMES, AT_ONCE = 1000, 4


@pytest.fixture(scope="module")
def orphan_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/bots/orphan_bot.c, built (the worker, on this machine, runs it where it is)."""
    return build_orphan_bot(tmp_path_factory.mktemp("orphan-bot"))


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    """A client of one worker process of one thread."""
    with local_cluster(1, 1) as cluster, distributed.Client(cluster) as c:
        yield c


def zombies(pid: int) -> int:
    """How many zombies are children of process `pid`'s main thread (to which the kernel
    hands orphans)."""
    count = 0
    for child in processes.handed_over(pid):
        try:
            stat = Path(f"/proc/{child}/stat").read_bytes()
        except OSError:
            continue
        count += stat.rsplit(b")", 1)[1].split()[0] == b"Z"
    return count


def test_a_thousand_games_on_a_worker_leave_no_zombie(
    orphan_bot: Path, client: distributed.Client
) -> None:
    (worker,) = client.run(os.getpid).values()
    spec = BotSpec("orphans", [str(orphan_bot)])
    jobs = [
        GameJob("odin-race", [spec, spec], {}, seed, RefereeConfig(), f"g{seed}")
        for seed in range(GAMES)
    ]
    # One batch, played AT_ONCE games at a time by the worker's one slot.
    future = client.submit(
        play_remote, msgspec.msgpack.encode(jobs), [[None, None]] * GAMES, AT_ONCE, pure=False
    )
    most = 0
    while not future.done() and most <= HANDFUL:
        most = max(most, zombies(worker))
        time.sleep(0.01)
    answer: Any = future.result(timeout=120)  # (what the coroutine returned, on the worker)
    records = [msgspec.msgpack.decode(r, type=GameRecord) for r in answer]
    assert most <= HANDFUL
    assert len(records) == GAMES and all(r.faults == [] for r in records)
    deadline = time.monotonic() + 2  # the worker's next reaping: a tenth of a second away
    while zombies(worker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert zombies(worker) == 0
