"""`arena --help`, `--version` and `games` start without the heavy layers: every command's
module is imported only when that command runs or shows its own help, and `arena --help`
lists the commands from a table that must agree with the commands themselves."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from typing import Any

import pytest
import typer.main

from arena.cli.app import COMMANDS
from arena.cli.common import registry
from tests.helpers.cli import invoke

HEAVY = ("numpy", "trio", "pydantic", "arena.league", "arena.cli.play", "arena.cli.tournament")

# The command `arena ARGS` as its console script runs it, then the heavy modules it loaded.
PROBE = """
import sys
from arena.cli import app
try:
    app(sys.argv[1:], prog_name="arena")
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in {heavy!r}))
print("HEAVY", code, " ".join(heavy))
"""


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["games"]])
def test_help_version_and_games_import_no_numpy_trio_or_league(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
        timeout=60,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last.split() == ["HEAVY", "0"], (args, last, done.stderr[-2000:])


def real_commands() -> dict[str, Any]:
    """Every command the command modules register, as click builds it."""
    for entry in COMMANDS.values():
        importlib.import_module(entry.module)
    return dict(typer.main.get_group(registry).commands)


def first_paragraph(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def test_the_table_lists_every_command_with_its_own_first_paragraph() -> None:
    real = real_commands()
    assert set(COMMANDS) == set(real)
    for name, entry in COMMANDS.items():
        assert entry.help == first_paragraph(real[name].help), name


def test_help_lists_every_command_in_order() -> None:
    result = invoke("--help")
    assert result.exit_code == 0, result.output
    names = [line.split()[1] for line in result.output.splitlines() if line.startswith("│ ")]
    listed = [n for n in names if not n.startswith("-")]
    assert listed == [
        "games", "demo", "play", "replay", "export", "check-bot", "tournament", "leaderboard",
        "report", "faults", "sprt", "ladder", "submit", "protocol",
    ]  # fmt: skip
    assert "List the rulesets with their player counts and options." in result.output


def test_a_command_s_own_help_shows_its_options() -> None:
    result = invoke("play", "--help")
    assert result.exit_code == 0, result.output
    assert "--move-time" in result.output and "Play one game between bots" in result.output
    result = invoke("protocol", "--help")
    assert "schema" in result.output and "Print the JSON Schema" in result.output
