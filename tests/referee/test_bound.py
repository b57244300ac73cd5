"""A game that passes the most decisions its rules allow ends as a referee error, charged to no
bot: a rules bug never hangs a tournament (docs/rules.md gives each ruleset's bound)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

import arena.referee.game as referee_module
import arena.referee.replay as replay_module
from arena.games import get_ruleset
from arena.league.leaderboard import leaderboard
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.local import LocalBot, random_decider
from arena.referee.replay import ReplayError, replay
from tests.helpers.paths import RANDOM as RANDOM_PY
from tests.helpers.paths import TEST_BOTS as BOTS
from tests.helpers.tournaments import command_bot, write_tournament

RANDOM = BotSpec("random", [sys.executable, str(BOTS / "random_bot.py")])
BOUND = 7


@pytest.fixture
def tight(monkeypatch: pytest.MonkeyPatch) -> None:
    """odin-race as if its rules allowed only BOUND decisions (as a rules bug would look)."""
    real = get_ruleset("odin-race")
    fake = dataclasses.replace(real, max_decisions=lambda players, options: BOUND)

    def lookup(ruleset_id: str) -> Any:
        return fake if ruleset_id == "odin-race" else get_ruleset(ruleset_id)

    monkeypatch.setattr(referee_module, "get_ruleset", lookup)
    monkeypatch.setattr(replay_module, "get_ruleset", lookup)


def test_every_ruleset_declares_a_bound() -> None:
    from arena.games import all_rulesets

    for rs in all_rulesets():
        for players in range(rs.min_players, rs.max_players + 1):
            assert rs.max_decisions(players, rs.options({})) > 0, rs.id


async def test_a_game_past_its_bound_is_a_referee_error_charged_to_no_bot(tight: None) -> None:
    record = await play_game("odin-race", [RANDOM, RANDOM], seed=9)
    assert record.error is not None and f"passed the {BOUND} decisions" in record.error
    assert len(record.moves) == BOUND and record.faults == []
    assert record.ranks == [1, 1] and record.scores == [0.0, 0.0]
    replay(record)  # it reproduces: the same moves, and the game not over
    board = leaderboard([record], ["random"])
    assert board.games == 0 and board.unrated == 1


async def test_a_record_that_claims_a_referee_error_falsely_does_not_replay(tight: None) -> None:
    def local(spec: BotSpec) -> LocalBot:
        return LocalBot(spec, random_decider(spec.name))

    record = await play_game("odin-race", [RANDOM, RANDOM], seed=9, connect=local)
    forged = msgspec.structs.replace(record, moves=record.moves[:-1])
    with pytest.raises(ReplayError, match="referee ended it"):
        replay(forged)


async def test_a_tournament_journals_such_games_and_finishes(tight: None, tmp_path: Path) -> None:
    from arena.league.config import load_tournament
    from arena.league.results import ResultsDir
    from arena.league.tournament import run_tournament

    bots = [command_bot(n, "{python}", BOTS / "random_bot.py") for n in "ab"]
    t = load_tournament(write_tournament(tmp_path, bots, deals=2, jobs=2))
    with ResultsDir.open(tmp_path / "results", t) as folder:
        await run_tournament(t, folder)
        records = folder.records()
        assert len(folder.records()) == 4  # journaled: a resume does not play them again
    assert all(r.error is not None and r.faults == [] for r in records)
    assert leaderboard(records, ["a", "b"]).unrated == 4


def test_arena_play_says_the_game_had_no_result(tight: None, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli.app import app

    bot = str(RANDOM_PY)
    record = tmp_path / "games.jsonl"
    result = CliRunner().invoke(
        app, ["play", "odin-race", bot, bot, "-q", "--sandbox", "off", "--record", str(record)]
    )
    assert result.exit_code == 0, result.output
    assert "referee error" in result.output and "has no result" in result.output
    replayed = CliRunner().invoke(app, ["replay", str(record), "-q"])
    assert replayed.exit_code == 0 and "reproduced exactly" in replayed.output
