"""The `arena` command end to end: each subcommand as a user runs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.referee.records import read_records
from tests.helpers.paths import EXAMPLE_BOTS as EXAMPLES

RANDOM_PY = str(EXAMPLES / "random-py")
runner = CliRunner()


def test_games_lists_every_ruleset_with_players_and_options() -> None:
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    for ruleset in ("odin", "odin-race", "override-beta"):
        assert ruleset in result.output
    assert "cheat_code" in result.output and "full_deck" in result.output


def test_demo_prints_moves_and_result() -> None:
    result = runner.invoke(app, ["demo", "odin-race", "-n", "3", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "is dealt" in result.output and "plays" in result.output
    assert "rank" in result.output


def test_bad_player_count_and_option_are_clear_errors() -> None:
    result = runner.invoke(app, ["demo", "override-beta", "-n", "5"])
    assert result.exit_code == 2
    assert "override-beta takes 2-4 players, not 5" in result.output
    result = runner.invoke(app, ["demo", "odin", "-o", "target=12"])
    assert result.exit_code == 2
    assert "10|15|20" in result.output


def test_play_records_and_replay_reproduces(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    args = ["play", "odin", RANDOM_PY, RANDOM_PY, "--seed", "3", "--record", str(record)]
    result = runner.invoke(app, [*args, "-o", "target=10"])
    assert result.exit_code == 0, result.output
    assert "random-py" in result.output
    (rec,) = list(read_records(record))
    assert rec.ruleset == "odin" and rec.seed == 3 and rec.options["target"] == 10
    assert not rec.faults and sorted(rec.ranks) in ([1, 2], [1, 1])

    result = runner.invoke(app, ["replay", str(record), "--game", "1"])
    assert result.exit_code == 0, result.output
    assert "reproduced exactly" in result.output
    assert "plays" in result.output


def test_replay_detects_a_tampered_record(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    runner.invoke(app, ["play", "odin-race", RANDOM_PY, RANDOM_PY, "--record", str(record)])
    data = json.loads(record.read_text())
    data["seed"] += 1  # another deal: the recorded moves no longer fit
    record.write_text(json.dumps(data) + "\n")
    result = runner.invoke(app, ["replay", str(record), "-q"])
    assert result.exit_code == 1
    assert "does not reproduce" in result.output


def test_check_bot_passes_a_good_bot() -> None:
    result = runner.invoke(app, ["check-bot", RANDOM_PY, "-r", "odin", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "no problems found" in result.output


def test_check_bot_explains_a_broken_bot(tmp_path: Path) -> None:
    bot = tmp_path / "chatty.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n    print('hello there', flush=True)\n")
    result = runner.invoke(
        app, ["check-bot", f"{sys.executable} {bot}", "-r", "odin-race", "--games", "1"]
    )
    assert result.exit_code == 1
    assert "startup" in result.output and "hint:" in result.output


def test_unknown_bot_is_a_clear_error() -> None:
    result = runner.invoke(app, ["play", "odin", "no-such-bot-here", RANDOM_PY])
    assert result.exit_code == 2
    assert "neither a bot folder" in result.output


def test_protocol_schema_is_json_schema_for_both_directions() -> None:
    result = runner.invoke(app, ["protocol", "schema", "--ruleset", "override-beta"])
    assert result.exit_code == 0, result.output
    doc = msgspec.json.decode(result.output)
    assert doc["protocol"] == 1
    known = doc["referee_to_bot"]["anyOf"][0]  # (the other: a type it does not know)
    assert set(known["discriminator"]["mapping"]) == {"hello", "act", "game_over"}
    assert set(doc["bot_to_referee"]["discriminator"]["mapping"]) == {"ready", "action"}
    assert "OdinObservation" in doc["$defs"]


@pytest.mark.parametrize("ruleset", ["bested", "odin", "override-classic"])
def test_protocol_schema_speaks_no_python(ruleset: str) -> None:
    """Definition names and titles are the messages' own names, not Python module paths."""
    result = runner.invoke(app, ["protocol", "schema", "--ruleset", ruleset])
    assert result.exit_code == 0, result.output
    doc = msgspec.json.decode(result.output)
    assert {"Request", "Choice", "GameOver"} <= set(doc["$defs"])
    assert doc["$defs"]["Request"]["title"] == "Request"
    assert "arena." not in result.output
