"""The meld enumeration of `melds.py` (docs/rules.md §5.2-§5.4, §5.10) against a plain
reference written from the rules: every meld a hand offers, in legal-list order, for hands
of any deck, size and number of wilds; the melds that beat a meld; the needless-wild check.

melds.py works on bit sets, tables built once and kept melds, for speed (issue "Scale").
This reference loops over ranks, windows and suits the obvious way and sorts by
`sort_key`, so a fast path that leaves out, adds or reorders a meld fails here, on hands
far larger than the brute force of tests/games/test_bested.py can reach.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import astuple

from arena.games import melds as M

#: a meld as a plain tuple: (kind, size, top, low, naturals, wilds)
Ref = tuple[int, int, int, int, tuple[int, ...], tuple[int, ...]]
#: a hand, its number of wilds and the meld types of the game
Case = tuple[list[int], int, tuple[int, ...]]


def reference(hand: list[int], wilds: int, kinds: tuple[int, ...]) -> list[Ref]:
    """Every meld the offered lists hold (arena's ruling, docs/rules.md §5.4: a wild only
    where no natural of the hand could stand), sorted by `sort_key`."""
    c = M.cards()
    held = set(hand)
    ranks_held = {c.ranks[i] for i in hand}
    by_rank = {r: sorted(i for i in hand if c.ranks[i] == r) for r in M.WILD_RANKS}
    out: list[Ref] = []
    for kind in set(kinds):
        if kind == M.SINGLE:  # a natural, or a wild declared as a rank not held
            for r, ids in by_rank.items():
                out += [(M.SINGLE, 1, r, r, (i,), ()) for i in ids]
                if not ids and wilds:
                    out.append((M.SINGLE, 1, r, r, (), (r,)))
        elif kind == M.SET:  # any k naturals of a rank, or all of them and wilds
            for r, ids in by_rank.items():
                for k in range(2, len(ids) + wilds + 1):
                    if k <= len(ids):
                        out += [(M.SET, k, r, r, combo, ()) for combo in combinations(ids, k)]
                    else:
                        out.append((M.SET, k, r, r, tuple(ids), (r,) * (k - len(ids))))
        else:  # every window of ranks: per suit its naturals and wilds, or wilds alone
            step = 1 if kind == M.RUN else 2
            for k in range(2, M.MAX_RANK // step + 2):
                for low in range(M.MAX_RANK + 1 - step * (k - 1)):
                    window = range(low + step * (k - 1), low - 1, -step)  # descending
                    top = window[0]
                    if k <= wilds and not ranks_held & set(window):
                        out.append((kind, k, top, low, (), tuple(window)))
                    for suit in c.ids:
                        nat = tuple(suit[r] for r in window if suit[r] in held)
                        gaps = tuple(r for r in window if suit[r] not in held)
                        if nat and len(gaps) <= wilds:
                            out.append((kind, k, top, low, nat, gaps))
    return sorted(out, key=lambda m: (m[0], m[1], m[2], len(m[5]), m[4]))


def ref_beats(new: Ref, old: M.Meld, zero_high: int | None) -> bool:
    """docs/rules.md §5.3 and §5.10: same type and size, higher, or a 0 over the highest."""
    kind, size, top, low, _, _ = new
    if (kind, size) != (old.kind, old.size):
        return False
    return top > old.top or (zero_high is not None and low == 0 and old.top == zero_high)


def ref_needless_wild(meld: M.Meld, hand: list[int]) -> int | None:
    """The first natural of the hand, left out of the meld, that could stand for a wild."""
    if not meld.wilds:
        return None
    c = M.cards()
    free = [i for i in sorted(hand) if i not in meld.naturals]
    if meld.kind in (M.SINGLE, M.SET):
        return next((i for i in free if c.ranks[i] == meld.top), None)
    if meld.naturals:
        suit = c.suits[meld.naturals[0]]
        return next((i for i in free if c.suits[i] == suit and c.ranks[i] in meld.wilds), None)
    return next((i for i in free if c.ranks[i] in meld.wilds), None)


@st.composite
def hands(draw: st.DrawFn) -> Case:
    """A hand of any bested deck (ranks from 0-2 up to 12-17, three or four suits), in
    any order, with 0-8 wilds, and the meld types of some game."""
    low = draw(st.integers(0, 2))
    high = draw(st.integers(12, M.MAX_RANK))
    deck = M.deck_ids(range(low, high + 1), draw(st.sampled_from(["SHD", "SHDC"])))
    hand = draw(st.lists(st.sampled_from(deck), max_size=22, unique=True))
    wilds = draw(st.sampled_from([0, 0, 1, 1, 2, 3, 5, 8]))
    kinds = draw(st.sampled_from([(0, 1, 2), (0, 1, 2, 3), (1, 2), (3, 0), (2,)]))
    return hand, wilds, kinds


def tuples(melds: list[M.Meld]) -> list[Ref]:
    return [astuple(m) for m in melds]


@settings(max_examples=300, deadline=None)
@given(case=hands())
def test_every_offered_meld_in_legal_list_order(case: Case) -> None:
    hand, wilds, kinds = case
    want = reference(hand, wilds, kinds)
    assert tuples(M.all_melds(hand, wilds, kinds)) == want
    assert tuples(M.all_melds(list(reversed(hand)), wilds, kinds)) == want  # any order
    # A discard: the first of the offered melds taking out each set of cards.
    firsts: dict[tuple[tuple[int, ...], int], Ref] = {}
    for m in want:
        firsts.setdefault((m[4], len(m[5])), m)
    assert tuples(M.removal_melds(hand, wilds, kinds)) == list(firsts.values())


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(case=hands(), data=st.data())
def test_the_melds_that_beat_a_meld(case: Case, data: st.DataObject) -> None:
    """`beating` is the offered list cut to the melds that beat the one on the table."""
    hand, wilds, kinds = case
    other, other_wilds, _ = data.draw(hands())
    led = M.all_melds(other, other_wilds, (0, 1, 2, 3))
    if not led:
        return
    old = data.draw(st.sampled_from(led))
    zero_high = data.draw(st.sampled_from([None, old.top, 15, M.MAX_RANK]))
    kinds = (*kinds, old.kind)
    want = [m for m in reference(hand, wilds, kinds) if ref_beats(m, old, zero_high)]
    assert tuples(M.beating(hand, wilds, old, zero_high)) == want


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(case=hands(), data=st.data())
def test_a_wild_where_a_natural_could_stand(case: Case, data: st.DataObject) -> None:
    """`needless_wild` on the offered melds, those melds with naturals swapped for wilds,
    and hands holding a few more cards than the meld was made from."""
    hand, wilds, kinds = case
    offered = M.all_melds(hand, max(wilds, 1), kinds)
    if not offered:
        return
    meld = data.draw(st.sampled_from(offered))
    for card in data.draw(st.lists(st.sampled_from(meld.naturals or (0,)), unique=True)):
        if card in meld.naturals:
            meld = M.swapped(meld, card)
    more = data.draw(st.lists(st.integers(0, len(M.card_table()) - 1), max_size=4))
    for h in (hand, [*hand, *(c for c in more if c not in hand and c not in meld.naturals)]):
        assert M.needless_wild(meld, h) == ref_needless_wild(meld, h)
