"""A count of one takes the singular everywhere ("1 card", "1 game"), through one helper."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from arena.cli.views import fault_warnings, leaderboard_table
from arena.games.odin import RoundStarted
from arena.games.text import counted
from arena.league.leaderboard import leaderboard
from arena.referee.records import append_record
from tests.helpers.boards import made_game
from tests.helpers.cli import invoke


def test_counted_takes_the_singular_for_one_only() -> None:
    assert counted(1, "card") == "1 card"
    assert counted(0, "card") == "0 cards"
    assert counted(2, "game") == "2 games"
    assert counted(1, "worker process", "worker processes") == "1 worker process"
    assert counted(3, "worker process", "worker processes") == "3 worker processes"


def test_an_event_of_one_card_says_card() -> None:
    assert RoundStarted(1, 0, [9, 9], 1).text() == "round 1: seat 0 leads; 1 card set aside unseen"
    assert RoundStarted(1, 0, [9, 9], 0).text() == "round 1: seat 0 leads; 0 cards set aside unseen"


def test_a_ruleset_for_one_player_says_player() -> None:
    result = invoke("demo", "bested-solo", "-n", "2")
    assert result.exit_code == 2
    assert result.output == "error: bested-solo takes 1 player, not 2\n"
    result = invoke("demo", "odin", "-n", "9")
    assert result.output == "error: odin takes 2-6 players, not 9\n"


def test_the_faults_of_one_game(tmp_path: Path) -> None:
    file = tmp_path / "games.jsonl"
    append_record(file, made_game(["a", "b"], [2, 1], faulted=["a"]))
    result = invoke("faults", file)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "1 fault in 1 of 1 game (a: crash 1)"


def test_the_leaderboard_of_one_game_each() -> None:
    games = [
        made_game(["a", "b"], [2, 1], faulted=["a"]),
        made_game(["a", "b"], [1, 1], error="the referee ended it"),
    ]
    board = leaderboard(games, ["a", "b"])
    (warning,) = fault_warnings(board)
    assert "a faulted in 1 of its 1 game (crash 1)" in warning.plain
    out = io.StringIO()
    Console(file=out, width=200).print(leaderboard_table(board))
    assert "1 more game ended by a referee error, without a result: not rated" in out.getvalue()
    two = leaderboard([*games, games[1]], ["a", "b"])
    out = io.StringIO()
    Console(file=out, width=200).print(leaderboard_table(two))
    assert "2 more games ended by a referee error" in out.getvalue()
