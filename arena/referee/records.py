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


class GameSummary(msgspec.Struct, frozen=True):
    """What standings, a resume and progress need of a game record: who sat where, the
    result and the faults, without the moves and the bots' stderr (most of a record's bytes).

    The fields keep their names and types in `GameRecord`, so code that reads only these
    takes either. A journal of a million games is read as summaries one line at a time
    (`read_summaries`); whole records are decoded only where the moves or the stderr are
    needed (replay, export, a fault's stderr).
    """

    ruleset: str
    seed: int
    players: int
    seats: list[SeatRecord]
    faults: list[Fault]
    scores: list[float]
    ranks: list[int]
    game: str = ""
    error: str | None = None

    @classmethod
    def of(cls, record: GameRecord | GameSummary) -> GameSummary:
        """The summary of a record (a summary is its own)."""
        if isinstance(record, GameSummary):
            return record
        return cls(
            record.ruleset,
            record.seed,
            record.players,
            record.seats,
            record.faults,
            record.scores,
            record.ranks,
            record.game,
            record.error,
        )


class _RecordShape(msgspec.Struct, frozen=True):
    """A game record as a summary reader decodes it: every field of `GameRecord` is checked
    as there, so a line is damaged for the same reasons, except the moves, which must be a
    JSON array but whose elements are not decoded (`msgspec.Raw`: a view into the line, so
    that nothing of them is built). Only the replay of a move checks it in full."""

    ruleset: str
    options: dict[str, Any]
    seed: int
    players: int
    seats: list[SeatRecord]
    moves: msgspec.Raw
    faults: list[Fault]
    scores: list[float]
    game_ranks: list[int]
    ranks: list[int]
    seconds: float
    stderr: list[str]
    game: str = ""
    version: int = RECORD_VERSION
    error: str | None = None


T = TypeVar("T")
PathLike = str | os.PathLike[str]

_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(GameRecord)
# Files of lines are read through a buffer of this size: a record with its moves is tens of
# kilobytes, and the default 8 KiB buffer copies such a line in pieces (3x slower to read).
_READ_BUFFER = 1 << 20
_shape_decoder = msgspec.json.Decoder(_RecordShape)

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
        fh = open(path, "rb", buffering=_READ_BUFFER)  # noqa: SIM115 - closed below
    except OSError as exc:
        raise storage_error("read", path, exc) from None
    decode = decoder.decode
    with fh:
        for number, data in enumerate(fh, 1):
            try:
                value = decode(data)
            except msgspec.DecodeError as exc:
                if data.strip():  # a blank line is no damage
                    damaged.append(DamagedLine(number, str(exc), data, not data.endswith(b"\n")))
                continue
            yield Line(number, data, value)


def read_summary_lines(path: PathLike, damaged: list[DamagedLine]) -> Iterator[Line[GameSummary]]:
    """Every line of the records file `path` that holds a game record, as its summary (see
    `GameSummary`), read as a stream; every other non-blank line is left out and added to
    `damaged`, as `read_lines` does. The line's bytes come along, to decode the whole
    record (`decode_record`) of the few games that need it. This is the loop a journal of a
    million games goes through, so it is `read_lines` written out, not wrapped."""
    decode = _shape_decoder.decode
    try:
        fh = open(path, "rb", buffering=_READ_BUFFER)  # noqa: SIM115 - closed below
    except OSError as exc:
        raise storage_error("read", path, exc) from None
    with fh:
        for number, data in enumerate(fh, 1):
            try:
                shape = decode(data)
            except msgspec.DecodeError as exc:
                if data.strip():
                    damaged.append(DamagedLine(number, str(exc), data, not data.endswith(b"\n")))
                continue
            if memoryview(shape.moves)[0] != 0x5B:  # "[": the moves are not an array
                reason = "Expected `array`, got another JSON value - at `$.moves`"
                damaged.append(DamagedLine(number, reason, data, not data.endswith(b"\n")))
                continue
            summary = GameSummary(
                shape.ruleset,
                shape.seed,
                shape.players,
                shape.seats,
                shape.faults,
                shape.scores,
                shape.ranks,
                shape.game,
                shape.error,
            )
            yield Line(number, data, summary)


def decode_record(data: bytes) -> GameRecord:
    """The whole record on one line of a records file (msgspec.DecodeError if it holds none)."""
    return _record_decoder.decode(data)


def _strictly(
    path: PathLike, lines: Iterator[Line[T]], damaged: list[DamagedLine]
) -> Iterator[Line[T]]:
    """`lines`, read from `path` into `damaged`, with the rule of a file that is verified
    rather than repaired: a torn last line (a crash mid-write, with or without its newline)
    is skipped, any other damaged line is a RecordError."""
    for line in lines:
        if damaged:  # a bad line with a record after it
            raise _not_a_record(path, damaged[0])
        yield line
    if len(damaged) > 1:
        raise _not_a_record(path, damaged[0])


def read_records(path: PathLike) -> Iterator[GameRecord]:
    """Every record in a JSON-lines file, streamed; a torn last line (a crash mid-write, with
    or without its newline) is skipped, any other line that is not a record is a RecordError."""
    damaged: list[DamagedLine] = []
    for line in _strictly(path, read_lines(path, GameRecord, damaged), damaged):
        yield line.value


def read_summaries(path: PathLike) -> Iterator[Line[GameSummary]]:
    """`read_records` as summaries, each with its line's number and bytes: the same lines are
    read, skipped or refused, without decoding moves and stderr."""
    damaged: list[DamagedLine] = []
    yield from _strictly(path, read_summary_lines(path, damaged), damaged)


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
