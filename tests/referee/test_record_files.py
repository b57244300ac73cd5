"""Files of game records as organisers' disks leave them: damaged lines told apart (not a
stopped reader), set aside and dropped without losing a good line, a last record that lost
its newline kept, and places that cannot be written named in words."""

from __future__ import annotations

import base64
import errno
from pathlib import Path

import msgspec
import pytest

from arena.referee.records import (
    DamagedLine,
    Fault,
    GameRecord,
    GameSummary,
    RecordError,
    SeatRecord,
    SetAside,
    StorageError,
    append_record,
    decode_record,
    drop_lines,
    read_lines,
    read_records,
    read_summaries,
    read_summary_lines,
    set_aside,
    storage_error,
)


def record(game: str) -> GameRecord:
    """A small finished game (its content does not matter to storage)."""
    seats = [SeatRecord(0, "a", ["a"]), SeatRecord(1, "b", ["b"])]
    return GameRecord(
        ruleset="odin-race",
        options={},
        seed=1,
        players=2,
        seats=seats,
        moves=[],
        faults=[],
        scores=[1.0, 0.0],
        game_ranks=[1, 2],
        ranks=[1, 2],
        seconds=0.5,
        stderr=["", ""],
        game=game,
    )


def line(game: str) -> bytes:
    return msgspec.json.encode(record(game)) + b"\n"


def test_damaged_lines_are_named_by_number_and_the_good_ones_still_read(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    cut = line("g4")[:60] + b"\n"  # a cut last line that kept its newline
    torn = line("g5")[:70]  # a write cut short by a crash: no newline
    path.write_bytes(line("g1") + b"not json\n" + line("g2") + b"\n" + line("g3") + cut + torn)
    damaged: list[DamagedLine] = []
    good = list(read_lines(path, GameRecord, damaged))
    assert [(g.number, g.value.game) for g in good] == [(1, "g1"), (3, "g2"), (5, "g3")]
    assert good[1].data == line("g2")  # the bytes as they are on disk
    assert [(d.line, d.data, d.torn) for d in damaged] == [
        (2, b"not json\n", False),
        (6, cut, False),
        (7, torn, True),
    ]
    assert all(d.reason for d in damaged)


def test_summaries_are_read_from_the_same_lines_as_whole_records(tmp_path: Path) -> None:
    """A summary reader (standings, resumes) finds the same good and damaged lines as a whole
    record reader, without decoding moves: a line whose moves are no array is damaged too."""
    path = tmp_path / "games.jsonl"
    faulted = msgspec.structs.replace(
        record("g2"), faults=[Fault(1, "b", "crash", 0, "exited")], stderr=["", "boom\n"]
    )
    no_moves = line("g4").replace(b'"moves":[]', b'"moves":{}')
    path.write_bytes(
        line("g1") + b"{}\n" + msgspec.json.encode(faulted) + b"\n\n" + no_moves + line("g5")[:90]
    )
    whole: list[DamagedLine] = []
    summary: list[DamagedLine] = []
    records = list(read_lines(path, GameRecord, whole))
    summaries = list(read_summary_lines(path, summary))
    assert [(s.number, s.data, s.value) for s in summaries] == [
        (r.number, r.data, GameSummary.of(r.value)) for r in records
    ]
    assert [s.value.game for s in summaries] == ["g1", "g2"]
    assert summaries[1].value.faults == faulted.faults
    assert decode_record(summaries[1].data) == faulted  # the whole record, when needed
    assert [(d.line, d.torn) for d in summary] == [(d.line, d.torn) for d in whole]
    assert [d.line for d in summary] == [2, 5, 6]
    assert "moves" in summary[1].reason
    with pytest.raises(RecordError, match=r"games\.jsonl:2: not a game record"):
        list(read_summaries(path))


def test_read_records_still_refuses_a_damaged_line_in_the_middle(tmp_path: Path) -> None:
    """`arena replay` verifies a file: a bad line followed by records is an error in words."""
    path = tmp_path / "games.jsonl"
    path.write_bytes(line("g1") + b"{}\n" + line("g2"))
    with pytest.raises(RecordError, match=r"games\.jsonl:2: not a game record"):
        list(read_records(path))
    path.write_bytes(line("g1") + line("g2")[:50] + b"\n")  # a torn last line: skipped
    assert [r.game for r in read_records(path)] == ["g1"]


def test_damaged_lines_are_set_aside_and_dropped_keeping_every_other_line(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    binary = b"\xff\xfe not utf-8\n"
    path.write_bytes(line("g1") + b"garbage\n" + line("g2") + binary + line("g3")[:40])
    damaged: list[DamagedLine] = []
    list(read_lines(path, GameRecord, damaged))
    aside = tmp_path / "games.damaged.jsonl"
    set_aside(path, [d for d in damaged if not d.torn], aside)
    drop_lines(path, {d.line for d in damaged})
    assert path.read_bytes() == line("g1") + line("g2")
    entries = [msgspec.json.decode(x, type=SetAside) for x in aside.read_bytes().splitlines()]
    assert [(e.file, e.line, e.text) for e in entries] == [
        ("games.jsonl", 2, "garbage"),
        ("games.jsonl", 4, None),
    ]
    assert entries[1].base64 is not None
    assert base64.b64decode(entries[1].base64) == binary.removesuffix(b"\n")
    assert all(e.reason and e.at for e in entries)
    assert not (tmp_path / ".games.jsonl.new").exists()
    set_aside(path, damaged[:1], aside)  # a later repair appends
    assert len(aside.read_bytes().splitlines()) == 3


def test_a_last_record_that_lost_only_its_newline_is_kept_by_the_next_append(
    tmp_path: Path,
) -> None:
    """It reads as a finished game, so the next append must not cut it as a torn line."""
    path = tmp_path / "games.jsonl"
    path.write_bytes(line("g1") + line("g2").removesuffix(b"\n"))
    assert [r.game for r in read_records(path)] == ["g1", "g2"]
    append_record(path, record("g3"))
    assert path.read_bytes() == line("g1") + line("g2") + line("g3")


def test_appending_where_no_file_can_be_is_a_storage_error_in_words(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder")
    with pytest.raises(StorageError) as error:
        append_record(blocker / "games.jsonl", record("g1"))
    assert str(error.value) == (
        f"cannot append to {blocker}/games.jsonl: {blocker} is a file, not a folder"
    )
    with pytest.raises(StorageError, match=r"it is a folder, not a file"):
        append_record(tmp_path, record("g1"))


def test_a_read_only_disk_and_a_full_one_are_said_in_words(tmp_path: Path) -> None:
    file = tmp_path / "games.jsonl"
    read_only = OSError(errno.EROFS, "Read-only file system", str(file))
    assert str(storage_error("append to", file, read_only)) == (
        f"cannot append to {file}: the file system is read-only"
    )
    full = OSError(errno.ENOSPC, "No space left on device", str(file))
    assert str(storage_error("append to", file, full)).endswith(": the disk is full")
