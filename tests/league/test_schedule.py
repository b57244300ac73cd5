"""The tournament schedule: coverage, fair seating, seeds and Swiss pairing, as properties
over random fields (2-12 bots, 2-6 seats) and random results."""

from __future__ import annotations

import itertools
import math
import os
import random
import subprocess
import sys
import typing
from collections import Counter, defaultdict
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.league.config import Format, TournamentConfig
from arena.league.schedule import (
    SCHEDULES,
    Game,
    Standing,
    balanced_tables,
    bye_value,
    byes_from,
    deal_seed,
    game_scores,
    gauntlet,
    rotations,
    round_robin,
    schedule_for,
    standings_from,
    swiss_round,
)

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def names(n: int) -> list[str]:
    return [f"bot{i}" for i in range(n)]


@st.composite
def fields(draw: st.DrawFn, max_games: int = 3000) -> tuple[list[str], int, int]:
    """A field of 2-12 bots, a table size 2-6 no larger, and deals, of a bounded total size."""
    n = draw(st.integers(2, 12))
    seats = draw(st.integers(2, min(6, n)))
    deals = draw(st.integers(1, 3))
    while deals > 1 and math.comb(n, seats) * seats * deals > max_games:
        deals -= 1
    if math.comb(n, seats) * seats * deals > max_games:  # C(12,6) and such: fewer bots
        n = seats + 3
    return names(n), seats, deals


def by_table(games: Sequence[Game]) -> dict[tuple[int, int], list[Game]]:
    tables: dict[tuple[int, int], list[Game]] = defaultdict(list)
    for game in games:
        tables[game.round, game.table].append(game)
    return tables


def check_fair_deals(games: Sequence[Game], deals: int) -> None:
    """Every table plays `deals` deals, each in every rotation on one seed; ids are unique."""
    assert len({g.id for g in games}) == len(games)
    for table in by_table(games).values():
        members = set(table[0].seats)
        k = len(members)
        assert len(table) == deals * k
        for game in table:
            assert set(game.seats) == members and len(game.seats) == k
        for deal in range(deals):
            one = [g for g in table if g.deal == deal]
            assert sorted(g.rotation for g in one) == list(range(k))
            assert len({g.seed for g in one}) == 1
            for seat in range(k):  # each bot in each seat exactly once per deal
                assert {g.seats[seat] for g in one} == members
        assert len({g.seed for g in table}) == deals  # different deals, different seeds


# -- fair deals ----------------------------------------------------------------------------


@given(st.integers(1, 6))
def test_rotations_seat_every_bot_in_every_seat_once(k):
    bots = tuple(names(k))
    seatings = rotations(bots)
    assert len(seatings) == k and seatings[0] == bots
    for seat in range(k):
        assert sorted(s[seat] for s in seatings) == sorted(bots)
    assert rotations(("a", "b")) == [("a", "b"), ("b", "a")]


def test_deal_seed_is_stable_63_bit_and_keyed():
    seed = deal_seed(42, "round-robin:r0:t0:d0")
    assert seed == deal_seed(42, "round-robin:r0:t0:d0")
    assert 0 <= seed < 2**63
    assert seed == 6126907110891673978  # pinned: a resumed tournament re-derives the same seeds
    assert seed != deal_seed(43, "round-robin:r0:t0:d0")
    assert seed != deal_seed(42, "round-robin:r0:t0:d1")


def test_schedule_does_not_depend_on_the_process():
    code = (
        "from arena.league.schedule import round_robin, swiss_round;"
        "print(round_robin([f'b{i}' for i in range(9)], 3, 2, 7, max_tables=20));"
        "print(swiss_round([f'b{i}' for i in range(9)], {}, 0, 2, 1, 7))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
        ).stdout
        for hashseed in ("1", "2")
    }
    assert len(runs) == 1


# -- round robin -----------------------------------------------------------------------------


@FAST
@given(fields(), SEEDS)
def test_round_robin_covers_every_subset_in_every_rotation(field, seed):
    bots, seats, deals = field
    games = round_robin(bots, seats, deals, seed)
    check_fair_deals(games, deals)
    counts = Counter(frozenset(g.seats) for g in games)
    assert set(counts) == {frozenset(c) for c in itertools.combinations(bots, seats)}
    assert set(counts.values()) == {deals * seats}
    assert {g.round for g in games} == {0}
    # interleaved: deal by deal, every table once per deal, rotations of a deal together
    assert [g.deal for g in games] == sorted(g.deal for g in games)
    tables = math.comb(len(bots), seats)
    assert {g.table for g in games[: tables * seats]} == set(range(tables))
    for start in range(0, len(games), seats):
        assert len({(g.table, g.deal) for g in games[start : start + seats]}) == 1


@FAST
@given(fields(max_games=600), SEEDS, SEEDS)
def test_round_robin_is_a_function_of_the_seed(field, seed, other):
    bots, seats, deals = field
    games = round_robin(bots, seats, deals, seed)
    assert games == round_robin(list(bots), seats, deals, seed)
    if other != seed:
        assert {g.seed for g in games}.isdisjoint(
            g.seed for g in round_robin(bots, seats, deals, other)
        )


def test_round_robin_interleaves_tables():
    games = round_robin(names(6), 2, 2, 1)
    first = [g.table for g in games[:4]]
    assert len(set(first)) == 2  # two games of one table, then the next table
    assert len({g.table for g in games[:30]}) == 15


@FAST
@given(st.data(), SEEDS)
def test_round_robin_samples_balanced_tables(data, seed):
    n = data.draw(st.integers(3, 12))
    seats = data.draw(st.integers(2, min(6, n - 1)))
    total = math.comb(n, seats)
    max_tables = data.draw(st.integers(1, total - 1))
    deals = data.draw(st.integers(1, 2))
    games = round_robin(names(n), seats, deals, seed, max_tables=max_tables)
    check_fair_deals(games, deals)
    tables = {frozenset(t[0].seats) for t in by_table(games).values()}
    assert len(tables) == len(by_table(games)) == max_tables  # distinct tables
    appearances = Counter(bot for table in tables for bot in table)
    counts = [appearances[b] for b in names(n)]
    assert max(counts) - min(counts) <= 1


@pytest.mark.slow
@FAST
@given(st.data(), st.text(max_size=8))
def test_balanced_tables_are_balanced_at_every_prefix(data, seed):
    n = data.draw(st.integers(2, 12))
    size = data.draw(st.integers(1, min(6, n)))
    total = math.comb(n, size)
    count = data.draw(st.integers(0, total))
    bots = names(n)
    tables = balanced_tables(bots, size, count, seed)
    assert tables == balanced_tables(bots, size, count, seed)
    assert len(tables) == len(set(tables)) == count
    for table in tables:
        assert len(table) == size and list(table) == [b for b in bots if b in table]
    prefixes = range(1, count + 1) if 2 * count <= total else [count]
    for end in prefixes:
        seen = Counter(b for t in tables[:end] for b in t)
        counts = [seen[b] for b in bots]
        assert max(counts) - min(counts) <= 1


def test_balanced_tables_spread_pairs():
    bots = names(12)
    tables = balanced_tables(bots, 4, 30, "pairs")
    met = Counter(p for t in tables for p in itertools.combinations(t, 2))
    counts = [met[p] for p in itertools.combinations(bots, 2)]
    assert max(counts) - min(counts) <= 3  # 180 meetings over 66 pairs: 2-3 each ideally


# -- gauntlet ----------------------------------------------------------------------------------


@FAST
@given(fields(max_games=1500), SEEDS)
def test_gauntlet_seats_the_challenger_at_every_table(field, seed):
    bots, seats, deals = field
    challenger, rest = bots[0], bots[1:]
    games = gauntlet(challenger, rest, seats, deals, seed)
    check_fair_deals(games, deals)
    assert all(challenger in g.seats for g in games)
    groups = Counter(frozenset(g.seats) - {challenger} for g in games)
    assert set(groups) == {frozenset(c) for c in itertools.combinations(rest, seats - 1)}
    seat_counts = Counter(g.seats.index(challenger) for g in games)
    assert set(seat_counts) == set(range(seats))
    assert len(set(seat_counts.values())) == 1


@FAST
@given(st.data(), SEEDS)
def test_gauntlet_samples_the_field_evenly(data, seed):
    field = names(data.draw(st.integers(3, 11)))
    seats = data.draw(st.integers(2, min(6, len(field))))
    total = math.comb(len(field), seats - 1)
    max_tables = data.draw(st.integers(1, max(1, total - 1)))
    games = gauntlet("champ", field, seats, 1, seed, max_tables=max_tables)
    assert all("champ" in g.seats for g in games)
    tables = [frozenset(t[0].seats) for t in by_table(games).values()]
    assert len(tables) == len(set(tables)) == min(max_tables, total)
    counts = Counter(b for t in tables for b in t if b != "champ")
    assert max(counts[b] for b in field) - min(counts[b] for b in field) <= 1


def test_bad_fields_are_refused():
    with pytest.raises(ValueError, match="unique"):
        round_robin(["a", "a", "b"], 2, 1, 0)
    with pytest.raises(ValueError, match="at least 3 bots"):
        round_robin(["a", "b"], 3, 1, 0)
    with pytest.raises(ValueError, match="deals"):
        round_robin(["a", "b"], 2, 0, 0)
    with pytest.raises(ValueError, match="max_tables"):
        round_robin(["a", "b", "c"], 2, 1, 0, max_tables=0)
    with pytest.raises(ValueError, match="also in the field"):
        gauntlet("a", ["a", "b"], 2, 1, 0)
    with pytest.raises(ValueError, match="at least 2 seats"):
        swiss_round(["a", "b"], {}, 0, 1, 1, 0)


# -- standings ---------------------------------------------------------------------------------


def test_game_scores_count_seats_beaten_and_tied():
    assert game_scores([1, 2]) == [1.0, 0.0]
    assert game_scores([1, 1]) == [0.5, 0.5]
    assert game_scores([1, 2, 2, 4]) == [1.0, 0.5, 0.5, 0.0]
    assert game_scores([3, 1, 2]) == [0.0, 1.0, 0.5]


@given(st.lists(st.integers(1, 6), min_size=2, max_size=6))
def test_a_game_hands_out_half_a_point_per_seat(ranks):
    assert sum(game_scores(ranks)) == pytest.approx(len(ranks) / 2)


def test_standings_from_games_and_byes():
    games = round_robin(["a", "b", "c"], 3, 1, 5)  # one table, one deal, three rotations
    ranks = {"a": 1, "b": 2, "c": 2}
    results = [(g, [ranks[name] for name in g.seats]) for g in games]
    table = standings_from(results, ["c", "c"], bye_points=3.0)
    assert table["a"].points == 3.0
    assert table["b"].points == 3 * 0.25
    assert table["c"].points == 3 * 0.25 + 6.0
    assert table["c"].byes == 2 and table["a"].byes == 0
    for standing in table.values():
        assert standing.games == 3
        assert standing.seat_counts == [1, 1, 1]
        assert sum(standing.opponents.values()) == 2  # one shared table with each other bot
    assert sum(s.leads for s in table.values()) == 1
    assert table["a"].leads == (games[0].seats[0] == "a")
    assert standings_from([], ["x"])["x"] == Standing("x", points=1.0, byes=1)
    assert bye_value(2, 3) == 6.0


# -- Swiss ---------------------------------------------------------------------------------


class Swiss:
    """A Swiss tournament played with random results, recording every round's inputs."""

    def __init__(self, bots: list[str], seats: int, deals: int, seed: int) -> None:
        self.bots, self.seats, self.deals, self.seed = bots, seats, deals, seed
        self.results: list[tuple[Game, list[int]]] = []
        self.byes: list[str] = []
        self.games: list[Game] = []
        self.rng = random.Random(f"results:{seed}")

    def standings(self) -> dict[str, Standing]:
        points = bye_value(self.seats, self.deals)
        return standings_from(self.results, self.byes, bye_points=points)

    def play(self, round: int) -> tuple[dict[str, Standing], list[Game], list[str]]:
        before = self.standings()
        games, byes = swiss_round(self.bots, before, round, self.seats, self.deals, self.seed)
        assert (games, byes) == swiss_round(
            self.bots, before, round, self.seats, self.deals, self.seed
        )
        self.byes += byes
        self.games += games
        assert Counter(byes_from(self.bots, self.games)) == Counter(self.byes)  # on resume
        for game in games:
            ranks = [self.rng.randint(1, self.seats) for _ in game.seats]
            self.results.append((game, ranks))
        return before, games, byes


def tables_of(games: Sequence[Game]) -> list[tuple[str, ...]]:
    """Each table's seating in deal 0's rotation 0."""
    return [g.seats for g in games if g.deal == 0 and g.rotation == 0]


def check_round(bots: list[str], seats: int, deals: int, games: list[Game], byes: list[str]):
    check_fair_deals(games, deals)
    tables = tables_of(games)
    assert all(len(t) == seats for t in tables)
    seated = [b for t in tables for b in t]
    assert sorted(seated + byes) == sorted(bots)  # everyone plays once or has a bye
    assert len(byes) == len(bots) % seats


def rematch_free_exists(bots: list[str], standings: dict[str, Standing]) -> bool:
    """Brute force: can the field (minus a fewest-byes bot if odd) pair without rematches?"""

    def met(a: str, b: str) -> bool:
        return a in standings and standings[a].opponents.get(b, 0) > 0

    def pairable(rest: list[str]) -> bool:
        if not rest:
            return True
        top = rest[0]
        return any(
            not met(top, other) and pairable([b for b in rest[1:] if b != other])
            for other in rest[1:]
        )

    if len(bots) % 2 == 0:
        return pairable(bots)
    byes = {b: standings[b].byes if b in standings else 0 for b in bots}
    fewest = min(byes.values())
    return any(pairable([x for x in bots if x != b]) for b in bots if byes[b] == fewest)


@FAST
@given(SEEDS, st.integers(1, 3))
def test_swiss_eight_bots_five_rounds_never_rematch(seed, deals):
    bots = names(8)
    swiss = Swiss(bots, 2, deals, seed)
    for round in range(5):
        before, games, byes = swiss.play(round)
        check_round(bots, 2, deals, games, byes)
        for a, b in tables_of(games):
            assert before.get(a, Standing(a)).opponents.get(b, 0) == 0


@FAST
@given(st.integers(2, 12), SEEDS, st.integers(1, 2))
def test_swiss_pairs_without_rematch_whenever_possible(n, seed, deals):
    bots = names(n)
    swiss = Swiss(bots, 2, deals, seed)
    for round in range(n + 1):
        before, games, byes = swiss.play(round)
        check_round(bots, 2, deals, games, byes)
        rematches = [
            (a, b) for a, b in tables_of(games) if before.get(a, Standing(a)).opponents.get(b)
        ]
        if rematches:
            assert not rematch_free_exists(bots, before)


@FAST
@given(st.sampled_from([3, 5, 7, 9, 11]), SEEDS, st.integers(1, 2))
def test_swiss_spreads_byes_in_odd_fields(n, seed, deals):
    bots = names(n)
    swiss = Swiss(bots, 2, deals, seed)
    for round in range(n):
        _, _, byes = swiss.play(round)
        assert len(byes) == 1
        counts = Counter(swiss.byes)
        assert max(counts.values()) == 1  # no second bye within the first n rounds
        assert byes[0] not in swiss.byes[:-1]
    assert sorted(swiss.byes) == sorted(bots)


@FAST
@given(st.integers(2, 12), SEEDS, st.integers(1, 3))
def test_swiss_seat_balance(n, seed, deals):
    """What is guaranteed: every bot sits in seat 0 and seat 1 exactly equally often (each
    deal is played in both rotations), so with deals=1 the seat-0 counts of the field differ
    by at most 1 while the byes are spread; at every table the bot that leads (seat 0 of deal
    0, rotation 0) had led no more often for its games played than its opponent; with even
    deals, leads are shared exactly."""
    bots = names(n)
    swiss = Swiss(bots, 2, deals, seed)
    for round in range(min(n, 6)):
        before, games, _ = swiss.play(round)
        for first, second in tables_of(games):
            a, b = before.get(first, Standing(first)), before.get(second, Standing(second))
            assert a.leads - a.games / 4 <= b.leads - b.games / 4
        table = swiss.standings()
        for bot in bots:
            mine = table.get(bot, Standing(bot))
            played = round + 1 - mine.byes
            assert mine.seat_counts == ([deals * played] * 2 if played else [])
            if deals % 2 == 0:
                assert mine.leads * 4 == mine.games
        if deals == 1:
            seat0 = [table[b].seat_counts[0] if table[b].seat_counts else 0 for b in bots]
            assert max(seat0) - min(seat0) <= 1


def test_swiss_pairs_top_down_by_points():
    bots = names(8)
    standings = {b: Standing(b, points=float(8 - i)) for i, b in enumerate(bots)}
    games, byes = swiss_round(list(reversed(bots)), standings, 3, 2, 1, 11)
    assert byes == []
    assert sorted(tuple(sorted(t)) for t in tables_of(games)) == [
        ("bot0", "bot1"),
        ("bot2", "bot3"),
        ("bot4", "bot5"),
        ("bot6", "bot7"),
    ]
    standings["bot0"].opponents["bot1"] = 1
    standings["bot1"].opponents["bot0"] = 1
    games, _ = swiss_round(bots, standings, 3, 2, 1, 11)
    pairs = {tuple(sorted(t)) for t in tables_of(games)}
    assert ("bot0", "bot2") in pairs and ("bot0", "bot1") not in pairs


def test_swiss_bye_goes_to_the_lowest_ranked_without_a_bye():
    bots = names(5)
    standings = {b: Standing(b, points=float(5 - i)) for i, b in enumerate(bots)}
    assert swiss_round(bots, standings, 1, 2, 1, 3)[1] == ["bot4"]
    standings["bot4"].byes = 1
    assert swiss_round(bots, standings, 2, 2, 1, 3)[1] == ["bot3"]


@FAST
@given(st.data(), SEEDS)
def test_swiss_k_seats_seats_everyone_once_per_round(data, seed):
    n = data.draw(st.integers(3, 12))
    seats = data.draw(st.integers(3, min(6, n)))
    deals = data.draw(st.integers(1, 2))
    bots = names(n)
    swiss = Swiss(bots, seats, deals, seed)
    for round in range(4):
        _, games, byes = swiss.play(round)
        check_round(bots, seats, deals, games, byes)
        assert {g.round for g in games} == {round}
        counts = Counter(swiss.byes)
        spread = [counts[b] for b in bots]
        assert max(spread) - min(spread) <= 1


def test_swiss_k_seats_groups_by_score():
    bots = names(9)
    standings = {b: Standing(b, points=float(9 - i)) for i, b in enumerate(bots)}
    games, byes = swiss_round(bots, standings, 1, 3, 1, 4)
    assert byes == []
    assert [set(t) for t in tables_of(games)] == [
        {"bot0", "bot1", "bot2"},
        {"bot3", "bot4", "bot5"},
        {"bot6", "bot7", "bot8"},
    ]


def test_every_tournament_format_has_a_schedule() -> None:
    """A format a tournament file may name is planned by the one `Schedule` interface."""
    assert set(SCHEDULES) == set(typing.get_args(Format))


def test_swiss_reads_a_planned_round_back_and_plans_the_next_from_results() -> None:
    bots = [f"b{i}" for i in range(5)]
    config = TournamentConfig(name="s", ruleset="odin", bots=[], format="swiss", rounds=2, deals=1)
    schedule = schedule_for(config, bots)
    assert list(schedule.rounds) == [1, 2] and schedule.total() == 2 * 2 * 2
    first = schedule.plan(1, [], {})
    assert first == schedule.plan(1, first, {})  # read back, not paired again
    ranks = {g.id: [1, 2] if g.seats[0] < g.seats[1] else [2, 1] for g in first}
    second = schedule.plan(2, first, ranks)
    assert {g.round for g in second} == {2} and len(second) == 4
    assert second == schedule.plan(2, first, ranks)  # a pure function of what came before
    cut = first + second[:1]  # a crash cut the plan of round 2 after its first game
    assert schedule.plan(2, cut, ranks) == second
