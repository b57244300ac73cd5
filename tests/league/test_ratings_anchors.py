"""Rating anchors, as Ordo's: a bot's Elo fixed at a given value, the others and their error
bars relative to it (its own bar 0); several anchors keep their given differences; without
any, the mean of the pool is 0 as before. Anchors are given as BOT=ELO and refused in words
when malformed or naming no bot of the standings."""

from __future__ import annotations

import math
import random

import pytest

from arena.league.leaderboard import (
    AnchorError,
    Standings,
    check_anchors,
    leaderboard,
    parse_anchors,
)
from arena.league.ratings import Result, fit, game_results
from tests.helpers.boards import made_game

BOTS = ["a", "b", "c", "d", "e"]


def some_results(seed: int = 1) -> list[Result]:
    """Three-seat games among five bots of different strengths."""
    rng = random.Random(seed)
    strength = {name: k * 0.4 for k, name in enumerate(BOTS)}
    out: list[Result] = []
    for g in range(400):
        table = rng.sample(BOTS, 3)
        order = sorted(table, key=lambda name: -(strength[name] + rng.gauss(0.0, 1.0)))
        out += game_results(table, [order.index(name) + 1 for name in table], g)
    return out


def test_one_anchor_fixes_its_elo_and_makes_every_bar_relative_to_it() -> None:
    results = some_results()
    base = fit(results, BOTS)
    table = fit(results, BOTS, anchors={"c": 2000.0})
    assert table.anchors == {"c": 2000.0}
    anchor = table.rating("c")
    assert (anchor.elo, anchor.error) == (2000.0, 0.0)
    shift = 2000.0 - base.rating("c").elo
    names = base.names()
    k = names.index("c")
    for i, name in enumerate(names):
        row = table.rating(name)
        assert row.elo == pytest.approx(base.rating(name).elo + shift, abs=1e-9)
        # Its bar is that of its difference to the anchor, in the same fit.
        cov = base.covariance
        relative = cov[i][i] + cov[k][k] - 2.0 * cov[i][k]
        j = table.names().index(name)
        assert table.covariance[j][j] == pytest.approx(relative, rel=1e-9, abs=1e-9)
        if name != "c":
            assert row.error > base.rating(name).error  # the anchor's own noise is in it
    assert table.names() == names  # the same order
    for x in BOTS:
        for y in BOTS:
            assert table.los(x, y) == pytest.approx(base.los(x, y), abs=1e-9)


def test_without_anchors_the_mean_is_zero_as_before() -> None:
    table = fit(some_results(), BOTS, anchors={})
    assert table.anchors == {}
    assert math.fsum(row.elo for row in table.ratings) == pytest.approx(0.0, abs=1e-9)
    assert all(row.error > 0.0 for row in table.ratings)


def test_several_anchors_keep_their_given_differences() -> None:
    results = some_results()
    one = fit(results, BOTS, anchors={"a": 1500.0})
    # Anchors as far apart as the fit puts them anyway: the same table as one anchor gives.
    gap = one.rating("e").elo - 1500.0
    both = fit(results, BOTS, anchors={"a": 1500.0, "e": 1500.0 + gap})
    for name in BOTS:
        assert both.rating(name).elo == pytest.approx(one.rating(name).elo, abs=1e-6)
    assert both.rating("e").error == both.rating("a").error == 0.0
    # Anchors pulled closer than the games say: each stays where it is put, and the bots
    # between them are fitted to both (they come out between where either anchor alone
    # would put them).
    close = fit(results, BOTS, anchors={"a": 1500.0, "e": 1600.0})
    assert (close.rating("a").elo, close.rating("e").elo) == (1500.0, 1600.0)
    alone_e = fit(results, BOTS, anchors={"e": 1600.0})
    for name in ("b", "c", "d"):
        low, high = sorted((one.rating(name).elo, alone_e.rating(name).elo))
        assert low < close.rating(name).elo < high, name
        assert 0.0 < close.rating(name).error < one.rating(name).error
    three = fit(results, BOTS, anchors={"a": 0.0, "c": 100.0, "e": 300.0})
    assert [three.rating(n).elo for n in "ace"] == [0.0, 100.0, 300.0]
    assert [three.rating(n).error for n in "ace"] == [0.0, 0.0, 0.0]


def test_an_anchor_for_no_bot_or_not_a_number_is_refused() -> None:
    with pytest.raises(ValueError, match="anchor for unknown bot 'z'"):
        fit(some_results(), BOTS, anchors={"z": 1.0})
    with pytest.raises(ValueError, match="finite"):
        fit(some_results(), BOTS, anchors={"a": math.inf})


def test_anchors_are_read_as_bot_equals_elo() -> None:
    assert parse_anchors([]) == {}
    assert parse_anchors(["a=2000", "b = c=-12.5", "d=1e3"]) == {
        "a": 2000.0,
        "b = c": -12.5,  # split at the last "=": a name may hold one
        "d": 1000.0,
    }


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (["stockfish"], "--anchor 'stockfish': give a bot and its Elo as BOT=ELO"),
        (["=2000"], "--anchor '=2000': give a bot and its Elo as BOT=ELO"),
        (["a=strong"], "--anchor 'a=strong': the Elo must be a number, not 'strong'"),
        (["a="], "--anchor 'a=': the Elo must be a number, not ''"),
        (["a=nan"], "--anchor 'a=nan': the Elo must be a finite number"),
        (["a=1", "a=2"], "--anchor a: the bot is anchored twice; anchor it once"),
    ],
)
def test_a_malformed_anchor_is_refused_in_words(given: list[str], says: str) -> None:
    with pytest.raises(AnchorError) as refused:
        parse_anchors(given)
    assert str(refused.value) == says


def test_an_anchor_naming_no_bot_says_which_come_close_or_lists_them() -> None:
    bots = ["alpha-bot", "beta-bot", "gamma"]
    with pytest.raises(AnchorError) as close:
        check_anchors({"alpha-bto": 1.0}, bots)
    assert str(close.value) == (
        "--anchor alpha-bto: no bot of that name in these results; did you mean `alpha-bot`?"
    )
    with pytest.raises(AnchorError) as far:
        check_anchors({"zzz": 1.0}, bots)
    assert str(far.value).endswith("; the bots: alpha-bot, beta-bot, gamma")
    many = [f"bot{k:02d}" for k in range(25)]
    with pytest.raises(AnchorError) as listed:
        check_anchors({"other": 1.0}, many)
    assert str(listed.value).endswith("the bots: " + ", ".join(many[:10]) + " and 15 more")
    with pytest.raises(AnchorError, match=r"these results; they hold no games$"):
        check_anchors({"a": 1.0}, [])
    check_anchors({"gamma": 1.0}, bots)  # a bot of the standings: accepted


def test_the_leaderboard_shows_anchored_ratings() -> None:
    games = [made_game(["a", "b"], [1, 2], seed=s) for s in range(30)]
    games += [made_game(["b", "a"], [1, 2], seed=s) for s in range(10)]
    games += [made_game(["b", "c"], [1, 2], seed=100 + s) for s in range(20)]
    plain = leaderboard(games)
    anchored = leaderboard(games, anchors={"b": 1800.0})
    assert plain.anchors == {} and anchored.anchors == {"b": 1800.0}
    rows = {row.bot: row for row in anchored.rows}
    before = {row.bot: row for row in plain.rows}
    assert (rows["b"].elo, rows["b"].error) == (1800.0, 0.0)
    assert rows["a"].elo == pytest.approx(1800.0 + before["a"].elo - before["b"].elo, abs=0.11)
    assert [row.bot for row in anchored.rows] == [row.bot for row in plain.rows]
    standings = Standings(["a", "b", "c", "idle"])
    for game in games:
        standings.add(game)
    with pytest.raises(AnchorError, match="did you mean `idle`"):
        standings.leaderboard({"idel": 0.0})
    assert standings.leaderboard({"a": 0.0}).anchors == {"a": 0.0}
