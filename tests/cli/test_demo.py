"""The README's demo: the example tournament runs to completion, ranks the bots sensibly, and
prints the standings the README and the docs show.

After a change that moves the demo's figures (the rating fit, the table's layout), rewrite the
blocks that show them and review the change:

    ARENA_UPDATE_DOCS=1 .venv/bin/pytest tests/cli/test_demo.py
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from tests.helpers.paths import ROOT

DEMO = ROOT / "examples" / "tournament.toml"
TITLE = "odin-demo: 120 games"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results root of one run of the demo tournament, shared by this file's tests."""
    root = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(app, ["tournament", str(DEMO), "--results", str(root)])
    assert result.exit_code == 0, result.output
    assert TITLE in result.output
    return root


@pytest.mark.slow
def test_demo_tournament_runs_and_ranks_the_heuristic_first(demo: Path) -> None:
    runner = CliRunner()
    board = runner.invoke(app, ["leaderboard", str(demo / "odin-demo"), "--json"])
    rows = json.loads(board.output)["rows"]
    assert [r["bot"] for r in rows] == ["odin-heuristic", "greedy-py", "random-py"]
    assert all(r["games"] == 80 and not r["faults"] for r in rows)
    # Running it again resumes: nothing left to play, the same table.
    again = runner.invoke(app, ["tournament", str(DEMO), "--results", str(demo)])
    assert again.exit_code == 0 and "resuming: 120 games already played" in again.output


def shown_standings() -> list[tuple[str, list[str]]]:
    """Every text block of the README and the docs that shows the demo's standings: (the
    file, the block's lines)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```text\n(.*?)```", path.read_text(), re.S):
            lines = [line.rstrip() for line in block.splitlines()]
            if lines and lines[0].strip() == TITLE:
                found.append((str(path.relative_to(ROOT)), lines))
    return found


def test_the_readme_and_the_docs_show_the_demo_standings() -> None:
    where = [path for path, _ in shown_standings()]
    assert "README.md" in where and "docs/ratings.md" in where


@pytest.mark.slow
def test_the_shown_standings_are_what_the_demo_prints(demo: Path) -> None:
    """The games are seeded and the bots deterministic, so every figure shown is checked:
    each block must be a run of consecutive lines of `arena leaderboard`'s output."""
    board = CliRunner().invoke(app, ["leaderboard", str(demo / "odin-demo")])
    assert board.exit_code == 0, board.output
    printed = [line.rstrip() for line in board.output.splitlines()]
    if os.environ.get("ARENA_UPDATE_DOCS"):
        update_shown_standings(printed)
    for path, lines in shown_standings():
        starts = [i for i, line in enumerate(printed) if line == lines[0]]
        assert any(printed[i : i + len(lines)] == lines for i in starts), (
            f"{path} shows standings of the demo that it no longer prints; "
            "replace that block with the matching lines of:\n" + "\n".join(printed)
        )


def update_shown_standings(printed: list[str]) -> None:
    """Rewrite each block that `shown_standings` finds with as many lines of `printed`, from
    its title on."""
    start = next(i for i, line in enumerate(printed) if line.strip() == TITLE)

    def fresh(match: re.Match[str]) -> str:
        lines = match.group(1).splitlines()
        if not lines or lines[0].strip() != TITLE:
            return match.group(0)
        return "```text\n" + "\n".join(printed[start : start + len(lines)]) + "\n```"

    for path, _ in shown_standings():
        file = ROOT / path
        file.write_text(re.sub(r"```text\n(.*?)```", fresh, file.read_text(), flags=re.S))
