"""The ladder's server records each finished game in a thread: its two writes to disk (the
journal, then the index, each flushed) never hold up the trio loop, where the referee reads
the bots' answers against their deadlines and the API answers requests; and the garbage
collector, tuned while it serves, walks only what came since it started, and rarely."""

from __future__ import annotations

import gc
import threading
import time
from pathlib import Path

import msgspec
import pytest
import trio

from arena.ladder.config import LadderConfig
from arena.ladder.server import GC_THRESHOLDS, LadderServer, collected_rarely
from arena.ladder.store import LadderStore, Recorded, init_ladder
from arena.league.executors import InProcess
from arena.referee.records import GameRecord
from tests.helpers.ladder import stock

SLOW_WRITE = 0.5  # seconds each recording takes here (a disk that is slow to flush)


async def test_a_slow_write_of_a_game_does_not_hold_up_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, msgspec.convert({"ruleset": "odin-race"}, LadderConfig))
    stock(folder, {"a1": "alice", "b1": "bob"})
    store = LadderStore.open(folder)
    writers: list[threading.Thread] = []
    record_game = store.record_game

    def slow(record: GameRecord) -> Recorded:
        writers.append(threading.current_thread())
        time.sleep(SLOW_WRITE)
        return record_game(record)

    monkeypatch.setattr(store, "record_game", slow)
    server = LadderServer(store, InProcess(2, 2, None), sandbox=None, seed=1)
    lag = 0.0
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run, "127.0.0.1", 0)
        with trio.fail_after(60):
            while len(writers) < 4:  # the loop's lag, sampled every 10 ms meanwhile
                before = trio.current_time()
                await trio.sleep(0.01)
                lag = max(lag, trio.current_time() - before - 0.01)
        nursery.cancel_scope.cancel()
    store.close()
    assert all(writer is not threading.main_thread() for writer in writers)
    assert lag < SLOW_WRITE / 2, lag
    with LadderStore.open(folder, writer=False) as ladder:
        assert ladder.game_count() >= 3


def test_the_collector_is_tuned_while_serving_and_restored_after() -> None:
    before = gc.get_threshold()
    with collected_rarely():
        # (what lived at the start is frozen: full collections walk only what came since)
        assert gc.get_threshold() == GC_THRESHOLDS and gc.get_freeze_count() > 1000
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
