"""`arena.referee.export`: a recorded game as a text log for people (tags, every move in
words numbered by decision, faults where they happened, the result). One export is pinned by
a golden file, so a change to the format shows up as a diff; regenerate after a deliberate
change and review:

    ARENA_UPDATE_GOLDEN=1 .venv/bin/pytest tests/referee/test_export.py
    git diff tests/golden/export-override-classic-2p-seed7.txt
"""

from __future__ import annotations

import os
import re

import msgspec
import pytest

from arena.games import all_rulesets
from arena.referee.export import export_game
from arena.referee.local import Decide, play_local, random_decider
from arena.referee.records import Fault, GameRecord
from arena.referee.replay import ReplayError
from tests.helpers.paths import GOLDEN

UPDATE = os.environ.get("ARENA_UPDATE_GOLDEN") == "1"
GOLDEN_EXPORT = GOLDEN / "export-override-classic-2p-seed7.txt"


def illegal_at(n: int, seed: str) -> Decide:
    """Random legal choices, except an index out of range at this bot's n-th decision."""
    choose = random_decider(seed)
    asked = 0

    def decide(request: dict[str, object]) -> int:
        nonlocal asked
        asked += 1
        return 999 if asked == n else choose(request)

    return decide


def steady(record: GameRecord) -> GameRecord:
    """`record` with made-up think times (decision i took i + 0.5 ms) and game length, the
    only things that differ from run to run."""
    moves = [
        msgspec.structs.replace(m, ms=i + 0.5 if m.by == "bot" else m.ms)
        for i, m in enumerate(record.moves)
    ]
    return msgspec.structs.replace(record, moves=moves, seconds=0.25)


async def test_an_export_is_the_golden_text_log() -> None:
    record, _ = await play_local(
        "override-classic",
        [random_decider("a"), illegal_at(4, "b")],
        seed=7,
        names=["steady-bot", "clumsy-bot"],
    )
    record = steady(record)
    text = export_game(record)
    if UPDATE:
        GOLDEN_EXPORT.write_text(text)
    assert GOLDEN_EXPORT.is_file(), f"create {GOLDEN_EXPORT} with ARENA_UPDATE_GOLDEN=1"
    assert text == GOLDEN_EXPORT.read_text(), (
        "the export changed; if deliberate, regenerate with ARENA_UPDATE_GOLDEN=1 and review"
    )


async def test_every_move_is_a_numbered_line_and_the_log_ends_with_the_result() -> None:
    for ruleset in all_rulesets():
        players = ruleset.min_players
        deciders = [random_decider(f"{ruleset.id}-{i}") for i in range(players)]
        record, _ = await play_local(ruleset.id, deciders, seed=2)
        lines = export_game(record).splitlines()
        numbered = [line for line in lines if re.match(r" *\d+\. seat \d+ local-\d+: \S", line)]
        assert len(numbered) == len(record.moves), ruleset.id
        for number, (line, move) in enumerate(zip(numbered, record.moves, strict=True)):
            assert line.lstrip().startswith(f"{number}. seat {move.seat} local-{move.seat}: ")
            assert line.endswith(" ms)"), line
        assert lines[0] == f'[Ruleset "{ruleset.id}"]'
        assert re.fullmatch(
            r"result: \d(st|nd|rd|th) seat \d local-\d \(score [-\d.]+\).*", lines[-1]
        )


async def test_a_fault_is_told_where_it_happened_and_the_fallback_marked() -> None:
    record, _ = await play_local(
        "odin-race", [random_decider("x"), illegal_at(2, "y")], seed=5, names=["ok", "bad"]
    )
    (fault,) = record.faults
    lines = export_game(record).splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("fault: seat 1"))
    assert f"illegal at decision {fault.decision}: bad sent an illegal action" in lines[at]
    assert lines[at + 1].lstrip().startswith(f"{fault.decision}. seat 1 bad: ")
    assert lines[at + 1].endswith("(by the fallback)")
    later = [line for line in lines[at + 1 :] if re.match(r" *\d+\. seat 1 bad: ", line)]
    assert later and all(line.endswith("(by the fallback)") for line in later)
    assert lines[-1].startswith("result: 1st seat 0 ok (score ")
    assert re.search(r"; 2nd seat 1 bad \(score [\d.]+, faulted: illegal\)$", lines[-1])


async def test_what_a_bot_chose_is_shown_as_plain_text() -> None:
    record, _ = await play_local("odin-race", [random_decider("p"), random_decider("q")], seed=1)
    evil = '\x1b[2J"quoted" \\ [red]x[/red]\u202e'
    seats = [msgspec.structs.replace(s, bot=evil) for s in record.seats]
    fault = Fault(1, evil, "crash", None, "exited \x1b[31mred\x07")
    record = msgspec.structs.replace(record, seats=seats, faults=[fault])
    text = export_game(record)
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert '[Seat0 "\\x1b[2J\\"quoted\\" \\\\ [red]x[/red]\\u202e"]' in text
    assert "exited \\x1b[31mred\\x07" in text


async def test_a_record_that_does_not_reproduce_is_not_exported() -> None:
    record, _ = await play_local("odin-race", [random_decider("p"), random_decider("q")], seed=1)
    with pytest.raises(ReplayError):
        export_game(msgspec.structs.replace(record, seed=record.seed + 1))
    with pytest.raises(ReplayError, match="do not fit its 2 players"):
        export_game(msgspec.structs.replace(record, seats=record.seats[:1]))
