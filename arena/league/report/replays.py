"""The replays a page embeds: each game's viewer frames (`arena.referee.frames`), made from
its journal line, packed into compressed chunks that the page inflates only when a game of
the chunk is opened.

A game's frames are JSON tens of kilobytes long, mostly repeated card codes and field names;
deflate shrinks them about tenfold, and the browser inflates them with its own
`DecompressionStream`, so nothing but the page is needed to read them. Games are packed a
few hundred kilobytes of JSON to a chunk: small enough to inflate in milliseconds when one of
its games is opened, large enough for the compressor to find the repeats between games.

Frames take a replay of the game through the rules engine, which is most of a report's
work: with `jobs` > 1 the games are framed in worker processes, a bounded number of them in
flight at once, while the journal is read on; results come back in the journal's order.
"""

from __future__ import annotations

import base64
import zlib
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import msgspec

from arena.games.errors import ArenaError
from arena.referee.frames import frames
from arena.referee.records import GameRecord, decode_record

CHUNK_BYTES = 384 * 1024  # JSON of games packed into one compressed chunk, about
BATCH = 16  # games sent to a worker process at once
LEVEL = 9  # deflate's best: a report is written once and read many times

_encoder = msgspec.json.Encoder()


class Packed(msgspec.Struct, frozen=True):
    """The embedded replays: `chunks[c]` is a base64 deflate (zlib) stream of a JSON array
    of games' frames; `refs[k]` places replay k as [chunk, position], or says in words why
    game k has no replay (its record does not reproduce)."""

    chunks: list[str]
    refs: list[list[int] | str]


def frame_line(data: bytes) -> bytes | str:
    """One journal line's frames as JSON, or why it has none (in words)."""
    try:
        record = decode_record(data)
    except msgspec.DecodeError as exc:
        return f"its record cannot be read: {exc}"
    return frame_record(record)


def frame_record(record: GameRecord) -> bytes | str:
    """One record's frames as JSON, or why it has none: it does not reproduce, or its
    ruleset or options are not arena's (`ArenaError`, in words)."""
    try:
        return _encoder.encode(frames(record))
    except ArenaError as exc:
        return f"it does not reproduce: {exc}"


def _frame_batch(lines: list[bytes]) -> list[bytes | str]:
    return [frame_line(data) for data in lines]


class Packer:
    """Collects games' frames (as JSON, in order) into compressed chunks."""

    def __init__(self, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.chunk_bytes = chunk_bytes
        self.chunks: list[str] = []
        self.refs: list[list[int] | str] = []
        self._parts: list[bytes] = []
        self._size = 0

    def add(self, framed: bytes | str) -> None:
        """The next replay: its frames' JSON, or why it has none."""
        if isinstance(framed, str):
            self.refs.append(framed)
            return
        self.refs.append([len(self.chunks), len(self._parts)])
        self._parts.append(framed)
        self._size += len(framed)
        if self._size >= self.chunk_bytes:
            self._close()

    def _close(self) -> None:
        if not self._parts:
            return
        raw = b"[" + b",".join(self._parts) + b"]"
        self.chunks.append(base64.b64encode(zlib.compress(raw, LEVEL)).decode("ascii"))
        self._parts, self._size = [], 0

    def packed(self) -> Packed:
        self._close()
        return Packed(self.chunks, self.refs)


class LinePipe:
    """Journal lines fed in one at a time (`put`), framed in order (in `jobs` worker
    processes when `jobs` > 1, at most two batches per worker in flight), each result handed
    to `done` as it is ready: the report's single read of the journal feeds
    the games it embeds through this while it tallies the rest."""

    def __init__(self, done: Callable[[bytes | str], None], jobs: int) -> None:
        self._done = done
        self._jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._pending: deque[Future[list[bytes | str]]] = deque()
        self._batch: list[bytes] = []

    def put(self, data: bytes) -> None:
        if self._jobs <= 1:
            self._done(frame_line(data))
            return
        self._batch.append(data)
        if len(self._batch) == BATCH:
            self._submit()

    def _submit(self) -> None:
        if not self._batch:
            return
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self._jobs)
        self._pending.append(self._pool.submit(_frame_batch, self._batch))
        self._batch = []
        while len(self._pending) > 2 * self._jobs:
            self._drain_one()

    def _drain_one(self) -> None:
        for framed in self._pending.popleft().result():
            self._done(framed)

    def close(self) -> None:
        """Frame what is left and wait for every result; stop the workers."""
        try:
            self._submit()
            while self._pending:
                self._drain_one()
        finally:
            if self._pool is not None:
                self._pool.shutdown(cancel_futures=True)
                self._pool = None

    def __enter__(self) -> LinePipe:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
