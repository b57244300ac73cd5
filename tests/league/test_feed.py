"""Games made as they are wanted (a ladder's): a `Feed` with no task now keeps the run going
until it is poked, its tasks are played as they come, never two of one deal at once, and the
run ends once it is closed (its `make` asked no more) and its games in flight have ended; in
process and on a Dask cluster alike."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import distributed
import pytest
import trio

from arena.league.executors import GameJob
from arena.league.executors.cluster import DaskExecutor
from arena.league.lineup import Feed
from arena.league.pool import GamePool
from arena.referee.folders import load_bot
from arena.referee.game import RefereeConfig
from arena.referee.records import GameRecord
from tests.helpers.dask import local_cluster
from tests.helpers.paths import GREEDY, RANDOM


class Queue:
    """Tasks put in by a test, handed to a feed as it asks for them."""

    def __init__(self) -> None:
        self.tasks: deque[tuple[str, int]] = deque()
        self.feed: Feed[tuple[str, int]] = Feed(self.make)

    def make(self) -> tuple[str, int] | None:
        return self.tasks.popleft() if self.tasks else None

    def put(self, *tasks: tuple[str, int]) -> None:
        self.tasks.extend(tasks)
        self.feed.poke()


async def test_a_feed_plays_its_tasks_as_they_come_and_ends_when_closed() -> None:
    queue = Queue()
    pool = GamePool(4, 2)
    playing: dict[int, int] = {}  # games in flight, by deal
    most: dict[int, int] = {}
    done: list[str] = []

    async def play(task: tuple[str, int]) -> str:
        name, deal = task
        playing[deal] = playing.get(deal, 0) + 1
        most[deal] = max(most.get(deal, 0), playing[deal])
        await trio.sleep(0.05)
        playing[deal] -= 1
        return name

    ended = trio.Event()

    async def run() -> None:
        await pool.run(queue.feed, play, lambda task, got: done.append(got), lambda t: t[1])
        ended.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run)
        await trio.sleep(0.1)
        assert not ended.is_set() and done == []  # nothing yet: the run waits, not ends
        queue.put(("a0", 0), ("a1", 0), ("b0", 1))  # two of one deal: one after the other
        await trio.sleep(0.3)
        assert sorted(done) == ["a0", "a1", "b0"] and not ended.is_set()
        queue.put(("c0", 2))
        await trio.sleep(0.01)  # (drawn: now in flight)
        queue.put(("d0", 3))
        queue.feed.close()  # `make` is asked no more: d0 is not played, c0 ends
        with trio.fail_after(5):
            await ended.wait()
    assert sorted(done) == ["a0", "a1", "b0", "c0"]
    assert most == {0: 1, 1: 1, 2: 1}


@pytest.mark.slow  # (a Dask cluster of a worker process)
async def test_a_feed_plays_on_a_dask_cluster_as_its_games_come(tmp_path: Path) -> None:
    bots = [load_bot(str(RANDOM)), load_bot(str(GREEDY))]

    def job(task: tuple[str, int]) -> GameJob:
        return GameJob("odin-race", bots, {}, task[1], RefereeConfig(), task[0])

    queue = Queue()
    done: list[GameRecord] = []
    with (
        local_cluster(1, 2, tmp_path / "bots") as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = DaskExecutor(client)
        ended = trio.Event()

        async def run() -> None:
            await executor.run(queue.feed, job, lambda task, record: done.append(record))
            ended.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run)
            await trio.sleep(1)
            assert not ended.is_set() and done == []
            queue.put(("g0", 0), ("g1", 1))
            with trio.fail_after(60):
                while len(done) < 2:
                    await trio.sleep(0.05)
            assert not ended.is_set()  # (open: more may come)
            queue.put(("g2", 0))
            with trio.fail_after(60):
                while len(done) < 3:
                    await trio.sleep(0.05)
            queue.feed.close()
            with trio.fail_after(60):
                await ended.wait()
    assert sorted(record.game for record in done) == ["g0", "g1", "g2"]
    assert all(record.faults == [] for record in done)
