"""`arena games` off a terminal (a pipe, a file): nothing cut, however narrow COLUMNS says."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.games import all_rulesets, describe_options
from arena.games.registry import show_value


@pytest.mark.parametrize("columns", ["40", "80"])
def test_games_off_a_terminal_shows_every_option_and_summary_whole(columns: str) -> None:
    result = CliRunner().invoke(app, ["games"], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    lines = result.output.splitlines()
    assert any("difficulty=normal|hard (default normal)" in line for line in lines)
    for rs in all_rulesets():
        (row,) = [line for line in lines if line.startswith(f"│ {rs.id} ")]
        assert rs.summary in row and rs.player_counts in row
        for option in describe_options(rs.options_type):
            said = f"{option.name}={option.allowed} (default {show_value(option.default)})"
            assert any(said in line for line in lines), said
