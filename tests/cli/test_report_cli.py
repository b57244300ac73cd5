"""`arena report` and `arena replay --html` as a user runs them: where the file goes, what
is said, and mistakes refused in words (the pages themselves: test_report_browser.py)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import invoke
from tests.helpers.reports import write_random_results


def test_report_writes_the_html_into_the_results_folder(tmp_path: Path) -> None:
    folder = write_random_results(tmp_path / "t", 6, options={"rounds": 1})
    result = invoke("report", folder)
    assert result.exit_code == 0, result.output
    page = folder / "report.html"
    assert page.is_file() and page.read_text().startswith("<!DOCTYPE html>")
    assert f"wrote {page}" in result.output and "6 games, 6 replays" in result.output
    other = tmp_path / "elsewhere.html"
    result = invoke("report", folder, "-o", other, "--replays", "2", "-j", "1")
    assert result.exit_code == 0, result.output
    assert other.is_file() and "6 games" in result.output


def test_report_refuses_a_folder_without_results(tmp_path: Path) -> None:
    result = invoke("report", tmp_path)
    assert result.exit_code == 2
    assert "is not a tournament results folder" in result.output


def test_replay_output_needs_html(tmp_path: Path) -> None:
    folder = write_random_results(tmp_path / "t", 2, options={"rounds": 1})
    result = invoke("replay", folder / "games.jsonl", "-o", tmp_path / "x.html")
    assert result.exit_code == 2 and "give --html too" in result.output
    result = invoke("replay", folder / "games.jsonl", "--html")
    assert result.exit_code == 0, result.output
    assert (folder / "games.html").is_file()


def test_report_is_listed_after_tournament_and_leaderboard() -> None:
    names = [
        line.split()[1] for line in invoke("--help").output.splitlines() if line.startswith("│ ")
    ]
    assert names.index("tournament") < names.index("leaderboard") < names.index("report")
    assert names.index("report") < names.index("faults")
