"""The ladder's live stream of events, `GET /api/events`, as server-sent events (sse-starlette).

Three kinds, each a JSON object in its event's `data`, named by the event's `event` field:

- `game`: a game finished and journaled (`GameEvent`: its id, when, the version in each
  seat and their ranks);
- `table`: the table was refitted with new games (`TableEvent`: how many games it rates);
  read it with `GET /api/leaderboard`, which gives that refit without fitting again;
- `version`: a version changed status (`VersionEvent`: submitted and validating, active,
  rejected, retired, suspended), with the reason its author reads.

`Events` is the hub: the server publishes to it, and each open stream is a subscriber with a
queue of its own, bounded (BACKLOG events). A client that falls that far behind is dropped
(its stream ends; an `EventSource` reconnects by itself) rather than holding the server's
memory or slowing anyone else. Event ids count up from 1 within a run of the server; a stream
does not resume across a reconnect, so a client that must miss nothing reads
`GET /api/games` after reconnecting.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator

import msgspec
import trio
from sse_starlette import EventSourceResponse, ServerSentEvent

BACKLOG = 256  # events a stream may fall behind before it is dropped
PING = 15.0  # seconds between keep-alive comments on a quiet stream (for proxies)


class GameEvent(msgspec.Struct, frozen=True):
    """A game just journaled: its id, when (Unix seconds), the version in each seat and each
    seat's rank (1 best, after the fault policy)."""

    id: str
    finished: float
    seats: list[str]
    ranks: list[int]


class TableEvent(msgspec.Struct, frozen=True):
    """The table refitted: the games it rates now, and the versions on it."""

    games: int
    versions: int


class VersionEvent(msgspec.Struct, frozen=True):
    """A version's new status, and why."""

    label: str
    bot: str
    status: str
    reason: str


Body = GameEvent | TableEvent | VersionEvent
KINDS: dict[type[Body], str] = {GameEvent: "game", TableEvent: "table", VersionEvent: "version"}


class Events:
    """Publish events to every open stream: each subscriber's queue holds at most `backlog`
    of them, and one that is full is dropped (its stream ends)."""

    def __init__(self, backlog: int = BACKLOG) -> None:
        self.backlog = backlog
        self._subscribers: set[trio.MemorySendChannel[ServerSentEvent]] = set()
        self._sent = 0
        self._closed = False

    @property
    def subscribers(self) -> int:
        """How many streams are open."""
        return len(self._subscribers)

    def publish(self, body: Body) -> None:
        """Send `body` to every stream (at once: never waits on a slow client)."""
        if not self._subscribers:
            return
        self._sent += 1
        event = ServerSentEvent(
            data=msgspec.json.encode(body).decode(), event=KINDS[type(body)], id=str(self._sent)
        )
        for send in list(self._subscribers):
            try:
                send.send_nowait(event)
            except trio.WouldBlock:  # fallen BACKLOG events behind: dropped
                self._drop(send)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                self._drop(send)

    def _drop(self, send: trio.MemorySendChannel[ServerSentEvent]) -> None:
        self._subscribers.discard(send)
        send.close()

    @contextlib.contextmanager
    def subscribe(self) -> Iterator[trio.MemoryReceiveChannel[ServerSentEvent]]:
        """A stream's queue of events, from now on, for the duration of the block (ended at
        once when the hub is closed)."""
        send, receive = trio.open_memory_channel[ServerSentEvent](self.backlog)
        if self._closed:
            send.close()
        else:
            self._subscribers.add(send)
        try:
            yield receive
        finally:
            self._drop(send)
            receive.close()

    def close(self) -> None:
        """End every stream, and any opened later (the server is stopping)."""
        self._closed = True
        for send in list(self._subscribers):
            self._drop(send)

    def response(self) -> EventSourceResponse:
        """A response streaming the events from now on, with a comment every PING seconds
        to keep proxies from closing a quiet stream."""

        async def stream() -> AsyncIterator[ServerSentEvent]:
            with self.subscribe() as receive:
                async for event in receive:
                    yield event

        return EventSourceResponse(stream(), ping=int(PING), headers={"X-Accel-Buffering": "no"})
