"""`arena faults`: every fault of a tournament or a records file, with the bot's stderr tail."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest

import arena.cli.faults as faults_module
from arena.referee.records import GameRecord, decode_record, read_records
from tests.helpers.boards import made_game
from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM, TEST_BOTS
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

# A bot that says why it gives up on stderr, then exits at its first decision.
LOUD = """import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "loud"}), flush=True)
    elif msg["type"] == "act":
        print("thinking...", file=sys.stderr)
        print("giving up: no idea what to do", file=sys.stderr, flush=True)
        sys.exit(4)
"""


def tournament_with_faults(tmp_path: Path) -> Path:
    """A finished 3-bot round robin in which `loud` crashes in every game and `crash` in its
    games at its third decision; returns the results folder."""
    (tmp_path / "loud.py").write_text(LOUD)
    bots = [
        path_bot(RANDOM),
        command_bot("loud", sys.executable, tmp_path / "loud.py"),
        command_bot("crash", sys.executable, TEST_BOTS / "crash_bot.py", "2", "on-request"),
    ]
    file = write_tournament(tmp_path, bots, sandbox="off")
    result = invoke("tournament", file, "--results", tmp_path / "results")
    assert result.exit_code == 0, result.output
    return tmp_path / "results" / "t"


def test_faults_lists_each_fault_with_game_decision_reason_and_stderr(tmp_path: Path) -> None:
    folder = tournament_with_faults(tmp_path)
    result = invoke("faults", folder)
    assert result.exit_code == 0, result.output
    out = result.output
    # loud crashes in its 4 games (2 opponents, 2 rotations), crash in its 2 games with random
    # and in those with loud only if loud had not ended the game for it first
    assert out.count("loud exited with status 4") == 4
    assert "stderr: thinking..." in out and "giving up: no idea what to do" in out
    assert "crash at decision " in out and "crash exited with status 3" in out
    assert any(line.startswith("r0-t") for line in out.splitlines())  # the game ids
    assert "faults in " in out.splitlines()[-1] and "loud: crash 4" in out


def test_faults_of_one_bot_and_as_json(tmp_path: Path) -> None:
    folder = tournament_with_faults(tmp_path)
    result = invoke("faults", folder, "--bot", "loud", "--json")
    assert result.exit_code == 0, result.output
    entries = [json.loads(line) for line in result.output.splitlines()]
    assert len(entries) == 4 and {e["bot"] for e in entries} == {"loud"}
    assert all(e["kind"] == "crash" and e["decision"] is not None for e in entries)
    assert all(e["stderr_tail"][-1] == "giving up: no idea what to do" for e in entries)
    assert len({e["game"] for e in entries}) == 4


def test_faults_of_an_unknown_bot_or_a_missing_file_is_an_error(tmp_path: Path) -> None:
    folder = tournament_with_faults(tmp_path)
    result = invoke("faults", folder, "--bot", "nobody")
    assert result.exit_code == 2
    assert "no bot named 'nobody'" in result.output and "crash, loud, random-py" in result.output
    result = invoke("faults", tmp_path / "nothing-here")
    assert result.exit_code == 2 and "neither a results folder nor a file" in result.output


def test_faults_decode_whole_records_of_faulted_games_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games without faults are read as summaries (no stderr, no moves); the whole record,
    for its stderr, only of a game with a fault. A records file reads as its folder does."""
    folder = tournament_with_faults(tmp_path)
    journal = (folder / "games.jsonl").read_bytes()
    file = tmp_path / "games.jsonl"
    calm = [made_game(["a", "b"], [1, 2], game=f"calm-{i}") for i in range(3)]
    file.write_bytes(journal + b"".join(msgspec.json.encode(g) + b"\n" for g in calm))
    faulted = sum(1 for r in read_records(file) if r.faults)
    decoded: list[bytes] = []

    def counted(data: bytes) -> GameRecord:
        decoded.append(data)
        return decode_record(data)

    monkeypatch.setattr(faults_module, "decode_record", counted)
    from_file = invoke("faults", file)
    assert from_file.exit_code == 0, from_file.output
    assert len(decoded) == faulted
    games = len(journal.splitlines())
    assert f"in {faulted} of {games + 3} games" in from_file.output.splitlines()[-1]
    from_folder = invoke("faults", folder)
    assert from_folder.output.splitlines()[:-1] == from_file.output.splitlines()[:-1]
    assert "giving up: no idea what to do" in from_file.output
