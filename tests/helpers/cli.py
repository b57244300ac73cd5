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
