"""Game records: one JSON object per finished game, appended as JSON lines."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Literal

import msgspec

from arena.games.errors import ArenaError
from arena.referee.faults import FaultKind

RECORD_VERSION = 1


class RecordError(ArenaError, ValueError):
    """A file of game records with a line that is not one (a damaged journal, another file)."""


class Fault(msgspec.Struct, frozen=True):
    """A bot broke the protocol: which, at which decision, what kind and why."""

    seat: int
    bot: str
    kind: FaultKind
    decision: int | None
    reason: str
    overrun_ms: float | None = None

    def sentence(self) -> str:
        """The fault in words, as shown to people: the bot's name, then the reason (a verb
        phrase: "my-bot did not answer within 1000 ms (waited 500 ms more)")."""
        return f"{self.bot} {self.reason}"


class Move(msgspec.Struct, frozen=True):
    """One applied action: who made it, how long the bot took, and who chose it."""

    seat: int
    action: Any
    ms: float
    by: Literal["bot", "fallback"] = "bot"


class SeatRecord(msgspec.Struct, frozen=True):
    seat: int
    bot: str
    command: list[str]
    sandboxed: bool = False  # whether the bot ran in the sandbox (arena.referee.sandbox)


class GameRecord(msgspec.Struct, frozen=True):
    """Everything needed to replay a game exactly, and its result under the fault policy."""

    ruleset: str
    options: dict[str, Any]
    seed: int
    players: int
    seats: list[SeatRecord]
    moves: list[Move]
    faults: list[Fault]
    scores: list[float]
    game_ranks: list[int]
    ranks: list[int]
    seconds: float
    stderr: list[str]
    game: str = ""  # the tournament's id for this game, if any
    version: int = RECORD_VERSION
    # A referee error ended the game before its end (it passed the most decisions its rules
    # allow: docs/rules.md): no result, charged to no bot, left out of the ratings.
    error: str | None = None


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(GameRecord)


def drop_torn_tail(fh: BinaryIO) -> None:
    """Cut an unfinished last line (a crash mid-write), so the next record starts a line."""
    end = pos = fh.seek(0, os.SEEK_END)
    while pos > 0:
        step = min(pos, 1 << 16)
        fh.seek(pos - step)
        block = fh.read(step)
        if pos == end and block.endswith(b"\n"):
            return
        nl = block.rfind(b"\n")
        if nl >= 0:
            fh.truncate(pos - step + nl + 1)
            return
        pos -= step
    fh.truncate(0)


def append_record(path: str | os.PathLike[str], record: GameRecord) -> None:
    """Append one record as a line and flush it to disk, so a crash loses no finished game."""
    line = _encoder.encode(record) + b"\n"
    with open(path, "ab+") as fh:
        drop_torn_tail(fh)
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def read_records(path: str | os.PathLike[str]) -> Iterator[GameRecord]:
    """Every record in a JSON-lines file; a torn last line (crash mid-write) is skipped."""
    with open(Path(path), "rb") as fh:
        lines = fh.read().split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield _decoder.decode(line)
        except msgspec.DecodeError as exc:
            if number == len(lines) or (number == len(lines) - 1 and not lines[-1]):
                return
            raise RecordError(f"{path}:{number}: not a game record: {exc}") from None
