"""README's "Your first bot in 15 minutes", run as written: its files are written and its
commands run in order, each expected to succeed."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.helpers.cli import invoke
from tests.helpers.paths import ROOT

SECTION = "## Your first bot in 15 minutes"


def walkthrough() -> list[tuple[str, str]]:
    """The section's steps in order: ("file", path + body) or ("run", command line)."""
    text = (ROOT / "README.md").read_text()
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    steps: list[tuple[str, str]] = []
    pattern = re.compile(r"(?:File `([^`]+)`:\n\n)?```(\w+)\n(.*?)```", re.S)
    for match in pattern.finditer(body):
        path, lang, code = match.groups()
        if path is not None:
            steps.append(("file", f"{path}\n{code}"))
        elif lang == "console":
            steps += [("run", line[2:]) for line in code.splitlines() if line.startswith("$ ")]
    return steps


def test_the_walkthrough_has_every_step() -> None:
    kinds = [shlex.split(c)[1] for kind, c in walkthrough() if kind == "run"]
    assert kinds == ["check-bot", "play", "tournament", "leaderboard"]
    files = [c.split("\n", 1)[0] for kind, c in walkthrough() if kind == "file"]
    assert files == ["my-bot/bot.py", "my-bot/bot.toml", "league.toml"]


@pytest.mark.slow
def test_the_walkthrough_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    for kind, content in walkthrough():
        if kind == "file":
            path, code = content.split("\n", 1)
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(code)
            continue
        words = shlex.split(content)
        assert words[0] == "arena"
        result = invoke(*words[1:])
        assert result.exit_code == 0, f"$ {content}\n{result.output}"
        if words[1] == "leaderboard":
            assert "my-bot" in result.output and "greedy-py" in result.output
    assert os.path.isfile("results/league/games.jsonl")
