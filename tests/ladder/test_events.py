"""The ladder's event hub: every open stream hears each event once, in order, with its kind
and a rising id; a stream that falls too far behind is dropped rather than held; closing the
hub ends every stream, and any opened later."""

from __future__ import annotations

import json

import trio
import trio.testing

from arena.ladder.events import Events, GameEvent, TableEvent, VersionEvent


async def test_every_stream_hears_each_event_in_order() -> None:
    hub = Events()
    hub.publish(TableEvent(0, 0))  # (nobody listening: nothing kept)
    with hub.subscribe() as first, hub.subscribe() as second:
        assert hub.subscribers == 2
        hub.publish(GameEvent("d-0", 12.5, ["a@1", "b@2"], [1, 2]))
        hub.publish(VersionEvent("a@1", "a", "active", "accepted"))
        hub.publish(TableEvent(1, 2))
        for stream in (first, second):
            got = [stream.receive_nowait() for _ in range(3)]
            assert [e.event for e in got] == ["game", "version", "table"]
            assert [e.id for e in got] == ["1", "2", "3"]
            assert json.loads(str(got[0].data)) == {
                "id": "d-0",
                "finished": 12.5,
                "seats": ["a@1", "b@2"],
                "ranks": [1, 2],
            }
            assert json.loads(str(got[2].data)) == {"games": 1, "versions": 2}
    assert hub.subscribers == 0


async def test_a_stream_that_falls_behind_is_dropped_and_the_others_go_on() -> None:
    hub = Events(backlog=4)
    with hub.subscribe() as slow, hub.subscribe() as quick:
        for n in range(6):
            hub.publish(TableEvent(n, 1))
            quick.receive_nowait()
        assert hub.subscribers == 1
        kept = [slow.receive_nowait().id for _ in range(4)]
        assert kept == ["1", "2", "3", "4"]
        assert [e async for e in slow] == []  # then it ends
        hub.publish(TableEvent(7, 1))
        assert quick.receive_nowait().id == "7"


async def test_closing_the_hub_ends_every_stream() -> None:
    hub = Events()
    ended: list[str] = []

    async def listen(name: str) -> None:
        with hub.subscribe() as stream:
            async for _ in stream:
                pass
        ended.append(name)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen, "a")
        nursery.start_soon(listen, "b")
        await trio.testing.wait_all_tasks_blocked()
        hub.close()
    assert sorted(ended) == ["a", "b"]
    with hub.subscribe() as late:
        assert [e async for e in late] == []
