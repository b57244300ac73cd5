"""Balanced round-robin tables at scale: the same tables as before the fast draw (a resumed
tournament derives its fixed schedule again from the seed), the fast draw against the
search it stands in for, its bookkeeping, and the balance with a thousand bots."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from array import array
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.league.schedule import Game, balanced_tables, gauntlet, round_robin
from arena.league.schedule.tables import (
    _add,
    _ByNoise,
    _count,
    _entry,
    _Greedy,
    _indices,
    _iter_bits,
    _Noise,
    _total,
)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def names(n: int, prefix: str = "bot") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def digest_tables(tables: Sequence[tuple[str, ...]]) -> str:
    return hashlib.sha256("\n".join(" ".join(t) for t in tables).encode()).hexdigest()[:16]


def digest_games(games: Sequence[Game]) -> str:
    return hashlib.sha256(repr([(g.id, g.seats, g.seed) for g in games]).encode()).hexdigest()[:16]


# -- the tables drawn before -------------------------------------------------------------------

#: (bots, size, count, seed, digest of the tables) as the search alone drew them, before the
#: fast draw existed, with the time it took then (bots named b0, b1, ...)
DRAWN_BEFORE = [
    (8, 4, 69, "7:round-robin", "31685d4b2e4126ae"),  # beyond half: the complement
    (10, 3, 60, "", "6d8dc7d748a664bc"),  # exactly half
    (10, 3, 119, "a", "6f219d9cbe2e1324"),
    (9, 4, 63, "a", "cf815c215248b731"),
    (11, 2, 27, "7:round-robin", "6130ea26b7a96ce3"),
    (12, 4, 248, "a", "854fa93b6c22eaf7"),
    (12, 5, 396, "7:round-robin", "7074c8bae12fae5d"),  # half, dead ends all along
    (12, 6, 462, "a", "9971ca2e53844f45"),
    (31, 2, 93, "31:2:93", "95924fe3d4a48db3"),
    (31, 3, 310, "31:3:310", "0129e92a2e0ba3c8"),
    (50, 5, 500, "50:5:500", "cddd7bacebe1a56b"),  # 0.6 s before
    (64, 4, 640, "64:4:640", "c6d5759b9d95d889"),  # 1.0 s
    (101, 2, 1010, "101:2:1010", "a99f08dcc046ea28"),  # 2.0 s
    (101, 6, 1010, "101:6:1010", "5bb73243a7ddeedb"),  # 1.9 s
    (200, 2, 2000, "l1", "ccf6782a1bec16bb"),  # 12 s
    (300, 3, 1500, "l2", "4bed3cd2b88fe227"),  # 10 s
    (1000, 2, 600, "l3", "31ac87c41194a1e6"),  # 27 s
    (1000, 4, 500, "l4", "8a6078cda5797ae1"),  # 13 s
    (1000, 5, 400, "l7", "10c4f71feb103413"),  # 20 s
    (1000, 6, 400, "l5", "d518117cbda8209a"),  # 11 s
    (999, 2, 1500, "l8", "6b101927be7ecda1"),  # 91 s
    (1000, 2, 5000, "l9", "2e1016d41e9a98bd"),  # 140-550 s
]


@pytest.mark.parametrize(("n", "size", "count", "seed", "digest"), DRAWN_BEFORE)
def test_balanced_tables_are_those_drawn_before(
    n: int, size: int, count: int, seed: str, digest: str
) -> None:
    assert digest_tables(balanced_tables(names(n, "b"), size, count, seed)) == digest


def test_sampled_schedules_are_those_planned_before() -> None:
    assert balanced_tables(names(7), 3, 6, "x") == [
        ("bot4", "bot5", "bot6"),
        ("bot0", "bot2", "bot3"),
        ("bot1", "bot3", "bot6"),
        ("bot0", "bot1", "bot5"),
        ("bot1", "bot2", "bot4"),
        ("bot3", "bot4", "bot5"),
    ]
    games = round_robin(names(40), 4, 2, 11, max_tables=300)
    assert digest_games(games) == "10133e887ba73c01"
    games = gauntlet("champ", names(30), 3, 1, 5, max_tables=100)
    assert digest_games(games) == "bc359236e3c08678"


# -- the fast draw against the search ----------------------------------------------------------


def drawn_fast(bots: list[str], size: int, count: int, seed: str) -> int:
    """How many of the tables the fast draw drew (the rest fell to the search)."""
    fast = 0
    draw = _Greedy._fast

    def counted(self: _Greedy, noise: _Noise) -> tuple[int, ...] | None:
        nonlocal fast
        members = draw(self, noise)
        fast += members is not None
        return members

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Greedy, "_fast", counted)
        balanced_tables(bots, size, count, seed)
    return fast


def searched(bots: list[str], size: int, count: int, seed: str) -> list[tuple[str, ...]]:
    """The tables drawn by the search alone, the fast draw turned off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Greedy, "_fast", lambda self, noise: None)
        return balanced_tables(bots, size, count, seed)


@FAST
@given(st.data(), st.text(max_size=6))
def test_the_fast_draw_draws_what_the_search_draws(data: st.DataObject, seed: str) -> None:
    n = data.draw(st.integers(2, 30))
    size = data.draw(st.integers(1, min(6, n)))
    total = math.comb(n, size)
    count = data.draw(st.integers(0, min(total // 2, 120)) | st.just(min(total // 2, 400)))
    bots = names(n)
    assert balanced_tables(bots, size, count, seed) == searched(bots, size, count, seed)


@pytest.mark.parametrize(("n", "size", "count"), [(40, 2, 390), (60, 3, 600), (45, 5, 300)])
def test_the_fast_draw_draws_what_the_search_draws_for_larger_fields(
    n: int, size: int, count: int
) -> None:
    bots = names(n)
    assert balanced_tables(bots, size, count, "larger") == searched(bots, size, count, "larger")
    assert drawn_fast(bots, size, count, "larger") > 0.9 * count


def check_state(greedy: _Greedy, tables: list[tuple[int, ...]], meetings: bool) -> None:
    """The fast draw's bookkeeping after `tables`: floor, drawn tables, witness (and the
    meeting counts, slower)."""
    n, size = greedy.n, greedy.size
    appear = Counter(i for t in tables for i in t)
    low = min(appear[i] for i in range(n))
    floor = {i for i in range(n) if appear[i] == low}
    assert set(_indices(greedy.floor)) == floor
    assert greedy.floor_count == len(floor)
    assert [i for i in range(n) if greedy.on_floor[i]] == sorted(floor)
    if meetings:
        met = Counter(p for t in tables for p in itertools.permutations(t, 2))
        for i in range(n):
            assert [_entry(greedy.planes[i], j) for j in range(n)] == [met[i, j] for j in range(n)]
            assert set(_indices(greedy.met[i])) == {j for j in range(n) if met[i, j]}
    assert greedy.drawn == set(tables)
    assert greedy.most_held == max(appear.values(), default=0)
    witness = greedy.witness
    if witness is not None:  # a packing of the floor into new tables and a rest that fits
        blocks = set(witness.block_of.values())
        for block in blocks:
            assert len(block) == size and block not in greedy.drawn
            assert all(witness.block_of[i] == block for i in block)
        assert set(witness.block_of) | set(witness.rest) == floor
        assert not set(witness.block_of) & set(witness.rest)
        assert len(witness.rest) == len(floor) % size
        assert greedy.room(witness.rest, ())


@FAST
@given(st.integers(2, 40), st.integers(1, 6), st.integers(0, 150), st.text(max_size=4))
def test_the_fast_draw_keeps_its_books(n: int, size: int, count: int, seed: str) -> None:
    size = min(size, n)
    count = min(count, math.comb(n, size) // 2)
    greedy = _Greedy(n, size, seed)
    tables: list[tuple[int, ...]] = []
    for _ in range(count):
        tables.append(greedy.draw())
        check_state(greedy, tables, meetings=False)
    check_state(greedy, tables, meetings=True)


def test_the_witness_is_mended_table_by_table() -> None:
    greedy = _Greedy(200, 3, "mend")
    tables = [greedy.draw() for _ in range(3000)]
    kept = 0
    for _ in range(200):
        tables.append(greedy.draw())
        kept += greedy.witness is not None
        check_state(greedy, tables, meetings=False)
    assert kept > 50  # late in each pass the count proves too little: packings are kept


# -- the pieces ----------------------------------------------------------------------------------


@FAST
@given(st.integers(0, 2**64 - 1), st.integers(1, 300))
def test_noise_is_what_random_returns(seed: int, n: int) -> None:
    rng, same = random.Random(seed), random.Random(seed)
    noise = _Noise(rng, n)
    assert noise.floats() == [same.random() for _ in range(n)]
    assert rng.random() == same.random()  # the generator moved on exactly as far
    order = sorted(range(n), key=noise.floats().__getitem__)
    assert sorted(range(n), key=noise.key) == order
    assert noise.band(0, 256, int.from_bytes(b"\1" * n, "little")) == order
    low, high = sorted(random.Random(seed).sample(range(257), 2))
    among = random.Random(seed + 1).getrandbits(n)
    inside = [i for i in order if among >> i & 1 and low / 256 <= noise.floats()[i] < high / 256]
    assert noise.band(low, high, sum(1 << 8 * i for i in range(n) if among >> i & 1)) == inside


def test_noise_orders_words_that_agree_on_their_top_bits_by_the_next_word() -> None:
    noise = _Noise(random.Random(0), 3)
    # bot 0: a = 0x120 | 31, b small; bot 1: a = 0x120 (a lower a, the same a >> 5), b large
    noise.words[0:4] = array(noise.words.typecode, [0x120 | 31, 0, 0x120, 0xFFFFFFFF])
    noise.words[4:6] = array(noise.words.typecode, [0, 5])  # bot 2 lowest of all
    noise.high = noise.words[0::2]
    assert noise.key(0) < noise.key(1)
    assert noise.order([0, 1, 2]) == [2, 0, 1] == sorted(range(3), key=noise.key)


@FAST
@given(st.integers(0, 2**32), st.integers(1, 400), st.data())
def test_the_lowest_noise_of_a_set_is_found(seed: int, n: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    noise = _Noise(rng, n)
    pool = [i for i in range(n) if rng.random() < 0.7] or [0]
    by_noise = _ByNoise(noise, sum(1 << 8 * i for i in pool), len(pool))
    for _ in range(6):  # shrinking sets, as a table's steps ask
        among = data.draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
        assert by_noise.lowest(sum(1 << i for i in among)) == min(sorted(among), key=noise.key)


@given(st.lists(st.lists(st.integers(0, 40), min_size=5, max_size=5), max_size=6))
def test_bit_sliced_counts_add_up(vectors: list[list[int]]) -> None:
    def sliced(counts: list[int]) -> list[int]:
        planes: list[int] = []
        for i, c in enumerate(counts):
            for _ in range(c):
                _count(planes, 1 << i)
        return planes

    total = _total(sliced(v) for v in vectors)
    assert [_entry(total, i) for i in range(5)] == [sum(v[i] for v in vectors) for i in range(5)]
    if len(vectors) >= 2:
        pair = _add(sliced(vectors[0]), sliced(vectors[1]))
        assert [_entry(pair, i) for i in range(5)] == [
            vectors[0][i] + vectors[1][i] for i in range(5)
        ]


@given(st.sets(st.integers(0, 2000)))
def test_bit_sets_list_their_members(members: set[int]) -> None:
    bits = sum(1 << i for i in members)
    assert _indices(bits) == list(_iter_bits(bits)) == sorted(members)


# -- a thousand bots ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "count", "most"), [(2, 5000, 1), (3, 3000, 1), (4, 3000, 1), (6, 2000, 2)]
)
def test_a_thousand_bots_sit_evenly_at_every_prefix(size: int, count: int, most: int) -> None:
    bots = names(1000)
    tables = balanced_tables(bots, size, count, "thousand")
    assert len(set(tables)) == count
    seen = [0] * 1000
    tally = Counter(seen)  # bots by number of tables
    index = {b: i for i, b in enumerate(bots)}
    for table in tables:
        for b in table:
            i = index[b]
            tally[seen[i]] -= 1
            if not tally[seen[i]]:
                del tally[seen[i]]
            seen[i] += 1
            tally[seen[i]] += 1
        assert max(tally) - min(tally) <= 1
    met = Counter(p for t in tables for p in itertools.combinations(t, 2))
    assert max(met.values()) <= most  # hardly a pair meets twice: 0.01-0.06 meetings a pair


def test_a_hundred_bots_at_six_seats_meet_evenly() -> None:
    bots = names(100)
    tables = balanced_tables(bots, 6, 2000, "even")
    met = Counter(p for t in tables for p in itertools.combinations(t, 2))
    counts = [met[p] for p in itertools.combinations(bots, 2)]
    assert max(counts) - min(counts) <= 3  # 30,000 meetings over 4,950 pairs: 6.06 each
