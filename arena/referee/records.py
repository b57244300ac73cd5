"""Game records: one JSON object per finished game, appended as JSON lines.

Files of JSON lines are read as a stream, one line at a time. A line that is not what the
file should hold is told apart (its number, its bytes and why) instead of stopping the
reader, so a damaged journal can still be read, and repaired: its damaged lines set aside in
a file beside it and the journal rewritten without them (`set_aside`, `drop_lines`).
"""

from __future__ import annotations

import base64
import errno
import os
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Generic, Literal, NamedTuple, TypeVar

import msgspec

from arena.games.errors import ArenaError
from arena.referee.faults import FaultKind

RECORD_VERSION = 1


class RecordError(ArenaError, ValueError):
    """A file of game records with a line that is not one (a damaged journal, another file)."""


class StorageError(ArenaError):
    """A records file or results folder that cannot be read or written (a read-only disk, a
    path under a regular file, no permission, a full disk): which path, and why, in words."""


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


T = TypeVar("T")
PathLike = str | os.PathLike[str]

_encoder = msgspec.json.Encoder()

# What an OSError's errno means to someone choosing where results go.
_REASONS = {
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EISDIR: "it is a folder, not a file",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many symbolic links",
}


def storage_error(action: str, path: PathLike, exc: OSError) -> StorageError:
    """`exc` in words, for a person: "cannot {action} {path}: {why}" (which part of the path
    is a file, or that the disk is read-only, full or not ours to write)."""
    return StorageError(f"cannot {action} {path}: {_why(Path(path), exc)}")


def _why(path: Path, exc: OSError) -> str:
    failed = Path(exc.filename) if isinstance(exc.filename, str | os.PathLike) else path
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        for part in reversed((failed, *failed.parents)):  # the first part that is no folder
            if os.path.lexists(part) and not part.is_dir():
                return (
                    f"{part} is a file, not a folder"
                    if part.is_file()
                    else f"{part} is not a folder"
                )
    reason = _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    if failed != path:
        reason += f" ({failed})"
    return reason


class DamagedLine(msgspec.Struct, frozen=True):
    """A line of a JSON-lines file that is not what the file holds: its number (from 1), its
    bytes and why. `torn`: a last line without its newline, a write cut short by a crash."""

    line: int
    reason: str
    data: bytes
    torn: bool = False


class Line(NamedTuple, Generic[T]):
    """A good line of a JSON-lines file: its number (from 1), its bytes and what it holds."""

    number: int
    data: bytes
    value: T


def read_lines(path: PathLike, type: type[T], damaged: list[DamagedLine]) -> Iterator[Line[T]]:
    """Every line of the JSON-lines file `path` that decodes as `type`, read as a stream (one
    line in memory at a time); every other non-blank line is left out and added to `damaged`."""
    decoder = msgspec.json.Decoder(type)
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, after the last line
    except OSError as exc:
        raise storage_error("read", path, exc) from None
    with fh:
        for number, data in enumerate(fh, 1):
            if not data.strip():
                continue
            try:
                yield Line(number, data, decoder.decode(data))
            except msgspec.DecodeError as exc:
                torn = not data.endswith(b"\n")
                damaged.append(DamagedLine(number, str(exc), data, torn))


def read_records(path: PathLike) -> Iterator[GameRecord]:
    """Every record in a JSON-lines file, streamed; a torn last line (a crash mid-write, with
    or without its newline) is skipped, any other line that is not a record is a RecordError."""
    damaged: list[DamagedLine] = []
    for line in read_lines(path, GameRecord, damaged):
        if damaged:  # a bad line with a record after it
            raise _not_a_record(path, damaged[0])
        yield line.value
    if len(damaged) > 1:
        raise _not_a_record(path, damaged[0])


def _not_a_record(path: PathLike, bad: DamagedLine) -> RecordError:
    return RecordError(f"{path}:{bad.line}: not a game record: {bad.reason}")


def holds(type: type[T]) -> Callable[[bytes], bool]:
    """Whether a line holds a whole `type` (for a last line that lost only its newline)."""
    decoder = msgspec.json.Decoder(type)

    def check(data: bytes) -> bool:
        try:
            decoder.decode(data)
        except msgspec.DecodeError:
            return False
        return True

    return check


def drop_torn_tail(fh: BinaryIO, whole: Callable[[bytes], bool] | None = None) -> None:
    """Cut an unfinished last line (a crash mid-write), so the next line starts a line; a last
    line that `whole` says is complete (it lost only its newline) is kept and ended instead."""
    end = pos = fh.seek(0, os.SEEK_END)
    start = 0  # where the last line starts
    while pos > 0:
        step = min(pos, 1 << 16)
        fh.seek(pos - step)
        block = fh.read(step)
        if pos == end and block.endswith(b"\n"):
            return
        nl = block.rfind(b"\n")
        if nl >= 0:
            start = pos - step + nl + 1
            break
        pos -= step
    if start == end:
        return
    if whole is not None:
        fh.seek(start)
        if whole(fh.read()):
            fh.write(b"\n")  # an append-mode file writes at its end
            return
    fh.truncate(start)


def append_lines(path: PathLike, data: bytes, whole: Callable[[bytes], bool] | None = None) -> None:
    """Append whole lines and flush them to disk, after cutting a torn last line (see
    `drop_torn_tail`); a file that cannot be written is a StorageError in words."""
    try:
        with open(path, "ab+") as fh:
            drop_torn_tail(fh, whole)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise storage_error("append to", path, exc) from None


_holds_record = holds(GameRecord)


def append_record(path: PathLike, record: GameRecord) -> None:
    """Append one record as a line and flush it to disk, so a crash loses no finished game."""
    append_lines(path, _encoder.encode(record) + b"\n", _holds_record)


class SetAside(msgspec.Struct, frozen=True, omit_defaults=True):
    """A damaged line moved out of a JSON-lines file: from which file and line, why, when, and
    its bytes (as `text` when they are UTF-8, else as `base64`)."""

    file: str
    line: int
    reason: str
    at: str
    text: str | None = None
    base64: str | None = None


def set_aside(path: PathLike, damaged: Sequence[DamagedLine], aside: PathLike) -> None:
    """Append the damaged lines of `path` to the file `aside`, one JSON line each, flushed to
    disk (before the lines leave `path`, so a crash between the two loses none of them)."""
    at = datetime.now(UTC).isoformat(timespec="seconds")
    out = []
    for d in damaged:
        data = d.data.removesuffix(b"\n")  # the line as it was, without its line end
        try:
            text: str | None = data.decode()
            b64 = None
        except UnicodeDecodeError:
            text, b64 = None, base64.b64encode(data).decode()
        entry = SetAside(Path(path).name, d.line, d.reason, at, text, b64)
        out.append(_encoder.encode(entry) + b"\n")
    append_lines(aside, b"".join(out))


def drop_lines(path: PathLike, numbers: set[int]) -> None:
    """Replace `path` by a copy without the lines numbered `numbers`, every other line kept
    byte for byte: the copy is written beside it, flushed to disk and renamed over it, so a
    crash leaves either the old file or the new one, whole."""
    path = Path(path)
    new = path.with_name(f".{path.name}.new")
    try:
        with open(path, "rb") as old, open(new, "wb") as out:
            for number, data in enumerate(old, 1):
                if number not in numbers:
                    out.write(data if data.endswith(b"\n") else data + b"\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(new, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)  # the rename itself reaches the disk
        finally:
            os.close(folder)
    except OSError as exc:
        new.unlink(missing_ok=True)
        raise storage_error("rewrite", path, exc) from None
