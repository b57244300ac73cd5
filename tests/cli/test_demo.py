"""The README's demo: the example tournament runs to completion and ranks the bots sensibly."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.app import app
from tests.helpers.paths import ROOT

DEMO = ROOT / "examples" / "tournament.toml"


def test_demo_tournament_runs_and_ranks_the_heuristic_first(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["tournament", str(DEMO), "--results", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "odin-demo: 120 games" in result.output
    board = runner.invoke(app, ["leaderboard", str(tmp_path / "odin-demo"), "--json"])
    rows = json.loads(board.output)["rows"]
    assert [r["bot"] for r in rows] == ["odin-heuristic", "greedy-py", "random-py"]
    assert all(r["games"] == 80 and not r["faults"] for r in rows)
    # Running it again resumes: nothing left to play, the same table.
    again = runner.invoke(app, ["tournament", str(DEMO), "--results", str(tmp_path)])
    assert again.exit_code == 0 and "resuming: 120 games already played" in again.output
