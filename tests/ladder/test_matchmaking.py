"""The ladder's matchmaker: games in proportion, one bot per author, every rotation of a deal,
suspended bots left out, settled places and their weight, the same
tables from the same seed."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.errors import ArenaError
from arena.ladder.matchmaking import (
    SLACK,
    Entrant,
    NotEnoughAuthors,
    Table,
    next_table,
    settled,
    weights,
)
from arena.league.ratings import BotRating, RatingTable

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def field(n: int, per_author: int = 1, rated: bool = True, seed: int = 0) -> list[Entrant]:
    """`n` bots, `per_author` to an author, ratings normal with sd 300 (or none)."""
    rng = random.Random(seed)
    return [
        Entrant(
            id=f"bot{i}",
            author=f"author{i // per_author}",
            rating=rng.gauss(0.0, 300.0) if rated else None,
            error=50.0 if rated else None,
        )
        for i in range(n)
    ]


def play(bots: list[Entrant], table: Table) -> list[Entrant]:
    """The field after `table` has played all its games."""
    seated = set(table.bots)
    return [
        msgspec.structs.replace(bot, games=bot.games + len(table.games))
        if bot.id in seated
        else bot
        for bot in bots
    ]


def run(
    bots: list[Entrant], seats: int | dict[int, float], tables: int, seed: int = 1
) -> tuple[list[Entrant], list[Table]]:
    rng = random.Random(seed)
    drawn = []
    for _ in range(tables):
        table = next_table(bots, seats, rng)
        drawn.append(table)
        bots = play(bots, table)
    return bots, drawn


# -- fewest games first ---------------------------------------------------------------------


@FAST
@given(
    n=st.integers(8, 40),
    per_author=st.sampled_from([1, 2]),
    seats=st.sampled_from([2, 3, 4, 6, {2: 1.0, 4: 1.0}, {2: 3.0, 6: 1.0}]),
    rated=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_every_active_bot_gets_games_in_proportion(n, per_author, seats, rated, seed):
    most = seats if isinstance(seats, int) else max(seats)
    if n // per_author < 2 * most:  # too few authors for every bot to keep up
        n = 2 * most * per_author
    bots = field(n, per_author, rated, seed)
    rng = random.Random(seed)
    worst = 0
    for _ in range(400):
        bots = play(bots, next_table(bots, seats, rng))
        counts = [bot.games for bot in bots]
        worst = max(worst, max(counts) - min(counts))
    assert worst <= SLACK + 2 * most


def test_the_least_played_bot_always_sits_at_the_next_table():
    bots = field(30, seed=3)
    rng = random.Random(3)
    for _ in range(200):
        least = min(bot.games for bot in bots)
        table = next_table(bots, 4, rng)
        assert least in {bot.games for bot in bots if bot.id in table.bots}
        bots = play(bots, table)


def test_a_new_bot_plays_the_established_bots_not_only_other_newcomers():
    old, _ = run(field(40, seed=4), 4, 300)
    new = [Entrant(f"new{i}", f"newcomer{i}", rating=None) for i in range(5)]
    bots = old + new
    rng = random.Random(4)
    opponents: Counter[str] = Counter()
    for _ in range(40):
        table = next_table(bots, 4, rng)
        if any(bot.startswith("new") for bot in table.bots):
            opponents.update(bot[:3] for bot in table.bots)
        bots = play(bots, table)
    assert opponents["bot"] > opponents["new"]


def test_opponents_are_near_in_rating_and_every_pair_still_meets():
    bots = [Entrant(f"bot{i}", f"author{i}", rating=100.0 * i) for i in range(10)]
    bots, tables = run(bots, 2, 4000, seed=5)
    met = Counter(frozenset(t.bots) for t in tables)
    assert len(met) == 10 * 9 // 2  # every pair has met, the two ends too
    gap = Counter(abs(int(a[3:]) - int(b[3:])) for a, b in (sorted(p) for p in met.elements()))
    assert gap[1] > 5 * gap[9] > 0  # neighbours meet far more often than distant bots


# -- authors, rotations, suspensions ------------------------------------------------------------


@FAST
@given(
    authors=st.lists(st.integers(0, 7), min_size=6, max_size=40),
    seats=st.sampled_from([2, 3, 4, 6, {2: 1.0, 4: 1.0}]),
    seed=st.integers(0, 2**32),
)
def test_no_table_ever_seats_two_bots_of_one_author(authors, seats, seed):
    bots = [Entrant(f"bot{i}", f"author{a}", rating=float(i)) for i, a in enumerate(authors)]
    distinct = len(set(authors))
    smallest = seats if isinstance(seats, int) else min(seats)
    rng = random.Random(seed)
    if distinct < smallest:
        with pytest.raises(NotEnoughAuthors, match=f"{smallest} authors"):
            next_table(bots, seats, rng)
        return
    author_of = {bot.id: bot.author for bot in bots}
    for _ in range(100):
        table = next_table(bots, seats, rng)
        assert len({author_of[b] for b in table.bots}) == table.seats
        bots = play(bots, table)


def test_a_seat_count_too_large_for_the_authors_is_skipped():
    bots = field(9, per_author=3)  # three authors
    _, tables = run(bots, {2: 1.0, 4: 1.0}, 50)
    assert {t.seats for t in tables} == {2}


def test_every_deal_comes_with_all_its_rotations():
    _, tables = run(field(12, per_author=2), {2: 1.0, 3: 1.0, 5: 1.0}, 200)
    assert {t.seats for t in tables} == {2, 3, 5}
    for table in tables:
        k = table.seats
        assert len(table.games) == k
        assert table.games[0] == table.bots
        for seat in range(k):  # each bot in each seat exactly once
            assert sorted(game[seat] for game in table.games) == sorted(table.bots)
        assert table.deal == f"{table.seed:016x}"
    assert len({t.deal for t in tables}) == len(tables)  # a key per deal, for `Lineup`


@FAST
@given(suspended=st.sets(st.integers(0, 19), max_size=12), seed=st.integers(0, 2**32))
def test_suspended_bots_are_never_seated(suspended, seed):
    bots = [
        msgspec.structs.replace(bot, suspended=i in suspended)
        for i, bot in enumerate(field(20, seed=seed))
    ]
    out = {f"bot{i}" for i in suspended}
    _, tables = run(bots, {2: 1.0, 4: 1.0}, 60, seed)
    assert not out & {b for t in tables for b in t.bots}


def test_a_field_with_everyone_suspended_says_so():
    bots = [msgspec.structs.replace(b, suspended=True) for b in field(6)]
    with pytest.raises(NotEnoughAuthors, match="0 active bots belong to 0 authors"):
        next_table(bots, 2, random.Random(0))


# -- settled places ---------------------------------------------------------------------------


def rating_table(elo: list[float], sd: list[float]) -> RatingTable:
    """A table of independent ratings (best first) with standard deviations `sd`."""
    n = len(elo)
    cov = [[sd[i] ** 2 if i == j else 0.0 for j in range(n)] for i in range(n)]
    rows = [
        BotRating(f"b{i}", e, 1.96 * s, 100, 0.5)
        for i, (e, s) in enumerate(zip(elo, sd, strict=True))
    ]
    return RatingTable(ratings=rows, covariance=cov, pair_points=[], pair_games=[])


def test_a_place_is_settled_once_both_neighbours_are_95_percent_apart():
    # LOS of b0 over b1: Phi(300 / 14.1) ~ 1; b1 over b2: Phi(10 / 14.1) = 0.76; b2 over b3 ~ 1
    table = rating_table([300.0, 0.0, -10.0, -400.0], [10.0] * 4)
    assert settled(table) == {"b0": True, "b1": False, "b2": False, "b3": True}
    # 24 Elo apart with sd 10 each: LOS = Phi(24 / 14.14) = 0.955, settled; 22: 0.94, not
    assert settled(rating_table([24.0, 0.0], [10.0, 10.0])) == {"b0": True, "b1": True}
    assert settled(rating_table([22.0, 0.0], [10.0, 10.0])) == {"b0": False, "b1": False}


def test_the_covariance_counts_in_settling():
    table = rating_table([20.0, 0.0], [10.0, 10.0])  # LOS 0.92 if independent
    assert not any(settled(table).values())
    cov = [[100.0, 50.0], [50.0, 100.0]]  # correlated: the difference varies less (LOS 0.98)
    assert all(settled(msgspec.structs.replace(table, covariance=cov)).values())


def test_with_a_line_only_the_bots_near_it_stay_unsettled():
    elo = [500.0, 490.0, 470.0, 100.0, 95.0, -300.0, -305.0]
    table = rating_table(elo, [10.0] * 7)
    # under place 3: the top three are far above the fourth, the rest far below the third
    assert all(settled(table, places=[3]).values())
    # under place 1: b0 is 10 above b1, not separated; b2, 30 under b0, is (LOS 0.98)
    # among some bots only: the others leave the order (b2, b4 and b6 are then neighbours)
    assert settled(table, among=["b2", "b4", "b6"]) == {"b2": True, "b4": True, "b6": True}
    assert settled(table, among=["b0", "b1", "b5"]) == {"b0": False, "b1": False, "b5": True}
    assert settled(table, places=[1]) == {
        "b0": False,
        "b1": False,
        "b2": True,
        "b3": True,
        "b4": True,
        "b5": True,
        "b6": True,
    }


def test_settled_bots_weigh_less():
    assert weights({"a": True, "b": False}, 0.25) == {"a": 0.25, "b": 1.0}
    with pytest.raises(ArenaError, match="in \\(0, 1\\]"):
        weights({"a": True}, 0.0)


def test_settled_bots_get_fewer_games_than_unsettled_ones():
    bots = field(40, seed=6)
    done = {f"bot{i}" for i in range(0, 40, 2)}
    weight = weights({bot.id: bot.id in done for bot in bots}, 0.25)
    bots = [msgspec.structs.replace(bot, weight=weight[bot.id]) for bot in bots]
    bots, _ = run(bots, 4, 1000, seed=6)
    fewer = [bot.games for bot in bots if bot.id in done]
    more = [bot.games for bot in bots if bot.id not in done]
    assert max(fewer) < min(more)
    assert sum(fewer) / sum(more) == pytest.approx(0.25, abs=0.1)


# -- determinism ---------------------------------------------------------------------------


@FAST
@given(seed=st.integers(0, 2**32), n=st.integers(4, 30))
def test_the_same_seed_draws_the_same_tables(seed, n):
    bots = field(n, per_author=2, seed=seed)
    a = run(bots, {2: 1.0, 4: 2.0} if n >= 8 else 2, 40, seed)
    b = run(bots, {2: 1.0, 4: 2.0} if n >= 8 else 2, 40, seed)
    assert a == b


def test_another_seed_draws_other_tables():
    bots = field(30)
    assert run(bots, 4, 20, seed=1)[1] != run(bots, 4, 20, seed=2)[1]


def test_seat_counts_are_checked_in_words():
    bots = field(10)
    with pytest.raises(ArenaError, match="at least 2 seats"):
        next_table(bots, 1, random.Random(0))
    with pytest.raises(ArenaError, match="positive number"):
        next_table(bots, {2: 0.0}, random.Random(0))
