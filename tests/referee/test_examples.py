"""The example bots work through the real referee: the JavaScript one too (node is required).

check-bot (`arena.referee.check.check_bot`) finds no problem in each, in every ruleset it
plays, and each heuristic beats random-py on paired deals."""

from __future__ import annotations

import shutil

import pytest

from arena.games import all_rulesets, get_ruleset
from arena.referee.check import check_bot
from arena.referee.folders import load_bot
from arena.referee.game import play_game
from tests.helpers.paths import EXAMPLE_BOTS as BOTS

ODIN_FAMILY = ["odin", "odin-race", "override-beta"]


def test_node_is_installed() -> None:
    # The JavaScript example bot is part of what users rely on: no silent skip.
    assert shutil.which("node"), "node is needed for examples/bots/random-js (.ci/run installs it)"


@pytest.mark.slow
async def test_random_js_plays_every_ruleset_without_problems() -> None:
    report = await check_bot(load_bot(str(BOTS / "random-js")), all_rulesets(), games=1)
    # One game per seat of each ruleset at its fewest and at its most players (one count if
    # they agree).
    assert report.games == sum(n for r in all_rulesets() for n in {r.min_players, r.max_players})
    assert report.ok, [p.fault for p in report.problems]


@pytest.mark.slow
async def test_random_py_plays_every_ruleset_without_problems() -> None:
    report = await check_bot(load_bot(str(BOTS / "random-py")), all_rulesets(), games=1)
    assert report.ok, [p.fault for p in report.problems]


@pytest.mark.slow
async def test_heuristic_plays_the_odin_family_without_problems() -> None:
    rulesets = [get_ruleset(r) for r in ODIN_FAMILY]
    report = await check_bot(load_bot(str(BOTS / "odin-heuristic")), rulesets, games=2)
    assert report.ok, [p.fault for p in report.problems]


@pytest.mark.slow
async def test_heuristic_beats_random_on_paired_deals() -> None:
    hero = load_bot(str(BOTS / "odin-heuristic"))
    rand = load_bot(str(BOTS / "random-py"))
    wins = games = 0
    for seed in range(5):
        for seats in ([hero, rand], [rand, hero]):
            record = await play_game("odin", seats, options={"target": 10}, seed=seed)
            assert not record.faults
            games += 1
            wins += record.ranks[seats.index(hero)] == 1 and record.ranks.count(1) == 1
    assert wins >= 9, f"the heuristic won only {wins} of {games} paired games"


OVERRIDE = ["override-classic", "override-original"]


async def test_override_heuristic_plays_both_boards_without_problems() -> None:
    rulesets = [get_ruleset(r) for r in OVERRIDE]
    report = await check_bot(load_bot(str(BOTS / "override-heuristic")), rulesets, games=2)
    assert report.ok, [p.fault for p in report.problems]


@pytest.mark.slow
async def test_override_heuristic_beats_random_on_paired_deals() -> None:
    hero = load_bot(str(BOTS / "override-heuristic"))
    rand = load_bot(str(BOTS / "random-py"))
    for ruleset in OVERRIDE:
        wins = games = 0
        for seed in range(4):
            for seats in ([hero, rand], [rand, hero]):
                record = await play_game(ruleset, seats, seed=seed)
                assert not record.faults
                games += 1
                wins += record.ranks[seats.index(hero)] == 1 and record.ranks.count(1) == 1
        assert wins >= 7, f"{ruleset}: the heuristic won only {wins} of {games} paired games"


@pytest.mark.slow
async def test_bested_heuristic_plays_both_rulesets_without_problems() -> None:
    rulesets = [get_ruleset("bested"), get_ruleset("bested-solo")]
    report = await check_bot(load_bot(str(BOTS / "bested-heuristic")), rulesets, games=1)
    assert report.ok, [p.fault for p in report.problems]


@pytest.mark.slow
async def test_bested_heuristic_beats_random_on_paired_deals() -> None:
    hero = load_bot(str(BOTS / "bested-heuristic"))
    rand = load_bot(str(BOTS / "random-py"))
    wins = games = 0
    for seed in range(3):
        for seats in ([hero, rand], [rand, hero]):
            record = await play_game("bested", seats, seed=seed)
            assert not record.faults
            games += 1
            wins += record.ranks[seats.index(hero)] == 1 and record.ranks.count(1) == 1
    assert wins >= 5, f"the heuristic won only {wins} of {games} paired games"
    margins = {}
    for bot in (hero, rand):
        records = [await play_game("bested-solo", [bot], seed=seed) for seed in range(4)]
        margins[bot.name] = sum(r.scores[0] for r in records)
    assert margins[hero.name] > margins[rand.name]
