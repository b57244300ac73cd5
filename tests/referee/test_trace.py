"""A traced game (`arena.referee.trace`): every line to and from each bot process, each way,
in order, with its seat and its time since the game started; whatever a bot writes is shown
escaped, and a flood is cut with its size; faults are in it as they are charged."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.trace import LINE_LIMIT, Trace, shown_line
from tests.helpers.paths import TEST_BOTS

LOG_BOT = TEST_BOTS / "log_bot.py"
LINE_BOT = TEST_BOTS / "line_bot.py"
TRACE_LINE = re.compile(r"^ *(\d+\.\d{3})  (to   |from |fault) seat (\d+)  (.*)$")


def parsed(lines: list[str]) -> list[tuple[float, str, int, str]]:
    """The trace's lines after its header: (ms, direction, seat, text)."""
    out = []
    for line in lines[1:]:
        found = TRACE_LINE.match(line)
        assert found, line
        out.append((float(found[1]), found[2].strip(), int(found[3]), found[4]))
    return out


async def test_a_traced_game_shows_every_line_each_way_of_each_seat_in_order(
    tmp_path: Path,
) -> None:
    logs = [tmp_path / "seat0.jsonl", tmp_path / "seat1.jsonl"]
    bots = [
        BotSpec(f"log-{i}", [sys.executable, str(LOG_BOT), str(log)]) for i, log in enumerate(logs)
    ]
    lines: list[str] = []
    record = await play_game("odin-race", bots, seed=3, trace=Trace(lines.append))
    assert record.faults == []
    assert lines[0] == (
        "trace of odin-race, 2 players, seed 3: seat 0 log-0, seat 1 log-1 "
        "(times in ms since the game started)"
    )
    entries = parsed(lines)
    times = [ms for ms, *_ in entries]
    assert times == sorted(times) and 0 <= times[0] < 10_000
    for seat, log in enumerate(logs):
        # what the bot itself read and wrote, in its order: the trace has all of it, no more
        seen = [tuple(json.loads(line)) for line in log.read_text().splitlines()]
        directions = {"in": "to", "out": "from"}
        expected = [(directions[way], line) for way, line in seen]
        assert [(d, text) for _, d, s, text in entries if s == seat] == expected
        assert expected[0][0] == "to" and json.loads(expected[0][1])["type"] == "hello"
        assert json.loads(expected[-1][1])["type"] == "game_over"
        acts = sum(1 for d, text in expected if d == "to" and '"type":"act"' in text)
        assert acts == sum(1 for m in record.moves if m.seat == seat) > 0


async def test_a_bots_garbage_is_traced_escaped_and_its_fault_follows(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"oops \x1b[2J\x07 \xff\xfe caf\xc3\xa9 \x9b \xe2\x80\xae")
    bots = [
        BotSpec("line", [sys.executable, str(LINE_BOT), "action", str(garbage)]),
        BotSpec("log", [sys.executable, str(LOG_BOT), str(tmp_path / "log.jsonl")]),
    ]
    lines: list[str] = []
    record = await play_game("odin-race", bots, seed=1, trace=Trace(lines.append))
    (fault,) = record.faults
    assert (fault.seat, fault.kind) == (0, "malformed")
    assert not any(c for line in lines for c in line if not c.isprintable())
    entries = parsed(lines)
    (at,) = [i for i, (_, d, s, text) in enumerate(entries) if d == "from" and "oops" in text]
    assert entries[at][2] == 0
    assert entries[at][3] == "oops \\x1b[2J\\x07 \\xff\\xfe café \\x9b \\u202e"
    _, direction, seat, text = entries[at + 1]  # the fault, at once
    assert (direction, seat) == ("fault", 0)
    assert text.startswith("malformed: line sent 'oops ")
    # the seat is out: nothing more to it or from it; the other seat plays on to game_over
    assert not [e for e in entries[at + 2 :] if e[2] == 0]
    assert '"type":"game_over"' in entries[-1][3] and entries[-1][2] == 1


def test_a_long_line_is_cut_with_its_size() -> None:
    assert shown_line(b'{"type": "ready"}\n') == '{"type": "ready"}'
    flood = b"x" * (LINE_LIMIT + 5000)
    shown = shown_line(flood)
    assert shown == "x" * LINE_LIMIT + f" … ({LINE_LIMIT + 5000:,} bytes in all, cut after 16,384)"
    assert shown_line(b"\xc3\xa9" * 3, limit=3) == "é\\xc3 … (6 bytes in all, cut after 3)"


async def test_a_flood_on_stdout_is_traced_cut(tmp_path: Path) -> None:
    flood = tmp_path / "flood"
    flood.write_bytes(b"debug " * 20_000)  # 120,000 bytes
    bots = [
        BotSpec("line", [sys.executable, str(LINE_BOT), "ready", str(flood)]),
        BotSpec("log", [sys.executable, str(LOG_BOT), str(tmp_path / "log.jsonl")]),
    ]
    lines: list[str] = []
    record = await play_game("odin-race", bots, trace=Trace(lines.append))
    assert [f.kind for f in record.faults] == ["startup"]
    (shown,) = [text for _, d, s, text in parsed(lines) if d == "from" and s == 0]
    assert shown.endswith(" … (120,000 bytes in all, cut after 16,384)")
    assert len(shown) < LINE_LIMIT + 100
