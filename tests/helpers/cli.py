"""The `arena` command run in process, as a user runs it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner, Result

from arena.cli.app import app

runner = CliRunner()
WIDE = {"COLUMNS": "400"}  # no line wrapping of the messages and tables tests check


def invoke(*args: str | Path) -> Result:
    """`arena ARGS` in process, with wide lines (no wrapping of what is checked)."""
    return runner.invoke(app, [str(a) for a in args], env=WIDE)


def commands_seating(bot: str | Path, opponent: str | Path, record: Path) -> list[list[str | Path]]:
    """Every command that loads `bot` before its first game (play, check-bot, sprt), on
    odin-race; `play` would append its game to `record`."""
    return [
        ["play", "odin-race", bot, opponent, "--record", record],
        ["check-bot", bot, "-r", "odin-race"],
        ["sprt", bot, opponent, "-r", "odin-race", "--max-pairs", "1"],
    ]
