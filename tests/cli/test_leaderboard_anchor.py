"""`arena leaderboard --anchor BOT=ELO`: the bot's Elo fixed, the others relative to it, in
the table, the JSON and the CSV; an anchor that is malformed or names no bot of the folder
is refused in one line, before anything is shown."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import Result

from arena.referee.records import append_record
from tests.helpers.boards import made_game
from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM
from tests.helpers.tournaments import command_bot, write_tournament


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """A folder holding a journal only (as an SPRT's does): a beats b 30-10, b beats c 20-0."""
    folder = tmp_path / "match"
    folder.mkdir()
    games = [made_game(["a", "b"], [1, 2], seed=s) for s in range(30)]
    games += [made_game(["b", "a"], [1, 2], seed=s) for s in range(10)]
    games += [made_game(["b", "c"], [1, 2], seed=100 + s) for s in range(20)]
    for game in games:
        append_record(folder / "games.jsonl", game)
    return folder


def refused(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    (line,) = result.output.splitlines()
    return line


def test_an_anchor_fixes_the_bots_elo_in_every_format(journal: Path) -> None:
    plain = json.loads(invoke("leaderboard", journal, "--json").output)
    data = json.loads(invoke("leaderboard", journal, "--json", "--anchor", "b=1800").output)
    assert plain["anchors"] == {} and data["anchors"] == {"b": 1800.0}
    rows = {row["bot"]: row for row in data["rows"]}
    before = {row["bot"]: row for row in plain["rows"]}
    assert (rows["b"]["elo"], rows["b"]["error"]) == (1800.0, 0.0)
    for name in ("a", "c"):
        gap = before[name]["elo"] - before["b"]["elo"]
        assert rows[name]["elo"] == pytest.approx(1800.0 + gap, abs=0.11)
    table = invoke("leaderboard", journal, "--anchor", "b=1800")
    assert table.exit_code == 0, table.output
    line = next(line for line in table.output.splitlines() if " b " in line)
    assert "1800" in line and "+1800" not in line  # a rating, not a difference
    shown = invoke("leaderboard", journal, "--csv", "--anchor", "b=1800", "--anchor", "a=2000")
    by_bot = {row["bot"]: row for row in csv.DictReader(io.StringIO(shown.output))}
    assert float(by_bot["a"]["elo"]) == 2000.0 and float(by_bot["b"]["elo"]) == 1800.0


@pytest.mark.parametrize(
    ("anchor", "says"),
    [
        ("bb=1800", "error: --anchor bb: no bot of that name in these results; did you mean `b`?"),
        ("zed=0", "error: --anchor zed: no bot of that name in these results; the bots: a, b, c"),
        ("b", "error: --anchor 'b': give a bot and its Elo as BOT=ELO"),
        ("b=high", "error: --anchor 'b=high': the Elo must be a number, not 'high'"),
    ],
)
def test_an_anchor_that_names_no_bot_or_no_elo_is_refused(
    journal: Path, anchor: str, says: str
) -> None:
    assert refused(invoke("leaderboard", journal, "--anchor", anchor)) == says


def test_a_tournaments_anchor_may_name_any_of_its_bots(tmp_path: Path) -> None:
    bots = [command_bot(name, "{python}", RANDOM / "bot.py") for name in ("rnd-a", "rnd-b")]
    file = write_tournament(tmp_path, bots, name="anchored")
    ran = invoke("tournament", file, "--results", tmp_path / "results")
    assert ran.exit_code == 0, ran.output
    folder = tmp_path / "results" / "anchored"
    data = json.loads(invoke("leaderboard", folder, "--json", "--anchor", "rnd-a=1000").output)
    assert {row["bot"]: row["elo"] for row in data["rows"]}["rnd-a"] == 1000.0
    line = refused(invoke("leaderboard", folder, "--anchor", "rnd-c=1000"))
    assert line.startswith("error: --anchor rnd-c: no bot of that name in these results; ")
    assert line.endswith("did you mean `rnd-b` or `rnd-a`?")
