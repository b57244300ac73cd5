"""Melds for `bested` and `bested-solo` (docs/rules.md §5-§6): the meld types, when a
meld is valid, its rank, when it beats another (the zeros rule included), and every
meld a hand can make with its wilds.

A meld is its natural cards (card ids) plus the ranks its wilds are declared as. A
wild may stand for any rank 0-17 and any suit, so the only thing declared is its rank:
suits never matter for beating, and in a run or gap every card takes the meld's suit.

The melds offered use wilds sparingly (arena's ruling, docs/rules.md §5.4): a wild only
where no natural card of the hand could stand. Using a wild where a natural could stand
leaves a different hand, so it is a legal play too, but it is reached by a follow-up
*swap* (`swapped`): offering every such choice up front made lists of many thousand
plays for hands holding many wilds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, pairwise
from typing import Literal, NamedTuple

from arena.games.cards import CardTable

SUITS = "SHDC"  # spades, hearts, diamonds, clubs; 3-suit decks use S H D
MAX_RANK = 17  # docs/rules.md §5.2: a wild is announced as any rank 0-17
WILD_RANKS = range(MAX_RANK + 1)

SINGLE, SET, RUN, GAP = range(4)
MeldName = Literal["single", "set", "run", "gap"]
KIND_NAMES: tuple[MeldName, ...] = ("single", "set", "run", "gap")
KIND_OF: dict[str, int] = {name: k for k, name in enumerate(KIND_NAMES)}


class Meld(NamedTuple):
    """One meld: its type, size, top and lowest rank, natural card ids (canonical order)
    and the ranks its wilds are declared as (descending)."""

    kind: int
    size: int
    top: int
    low: int
    naturals: tuple[int, ...]
    wilds: tuple[int, ...]

    @property
    def key(self) -> tuple[tuple[int, ...], int]:
        """What the meld takes out of a hand: these naturals and this many wilds."""
        return self.naturals, len(self.wilds)


def sort_key(meld: Meld) -> tuple[int, int, int, int, tuple[int, ...]]:
    """The order of melds in a legal list: by type, size, rank, then fewer wilds first."""
    return (meld.kind, meld.size, meld.top, len(meld.wilds), meld.naturals)


@cache
def card_table() -> CardTable:
    """Every card any bested deck can hold: ranks 0-17 in four suits (ids shared by all)."""
    return CardTable.build(((n, s) for n in WILD_RANKS for s in SUITS), SUITS)


@dataclass(frozen=True)
class Cards:
    """Per-card rank and suit index of the shared card table, for fast look-ups."""

    table: CardTable
    ranks: tuple[int, ...]
    suits: tuple[int, ...]


@cache
def cards() -> Cards:
    t = card_table()
    return Cards(t, t.numbers, tuple(SUITS.index(s) for s in t.suits))


def deck_ids(ranks: Iterable[int], suits: str) -> tuple[int, ...]:
    """The card ids of the deck made of these ranks in these suits, in canonical order."""
    index = card_table().index
    return tuple(sorted(index[f"{r}{s}"] for r in ranks for s in suits))


# --------------------------------------------------------------------------
# Validity and beating


def check(kind: int, naturals: Sequence[int], wilds: Sequence[int]) -> Meld | str:
    """The meld these cards make as `kind`, or the reason they make none.

    `naturals` are card ids (distinct), `wilds` declared ranks 0-17 (docs/rules.md §5.2: a wild
    may copy any card, even one in the same meld)."""
    c = cards()
    size = len(naturals) + len(wilds)
    if size == 0:
        return "a meld needs at least one card"
    for r in wilds:
        if not 0 <= r <= MAX_RANK:
            return f"a wild is declared as a rank 0-{MAX_RANK}, not {r}"
    ranks = [c.ranks[i] for i in naturals] + list(wilds)
    nat = tuple(sorted(naturals))
    wild = tuple(sorted(wilds, reverse=True))
    if kind == SINGLE:
        if size != 1:
            return "a single is exactly one card"
        return Meld(SINGLE, 1, ranks[0], ranks[0], nat, wild)
    if size < 2:
        return f"a {KIND_NAMES[kind]} needs at least two cards"
    if kind == SET:
        if len(set(ranks)) != 1:
            return "a set's cards all share one rank"
        return Meld(SET, size, ranks[0], ranks[0], nat, wild)
    # Runs and gaps: one suit, ranks stepping by exactly 1 (run) or 2 (gap), no wrap.
    step = 1 if kind == RUN else 2
    if len({c.suits[i] for i in naturals}) > 1:
        return f"a {KIND_NAMES[kind]}'s cards all share one suit"
    ordered = sorted(ranks)
    for a, b in pairwise(ordered):
        if b - a != step:
            what = "consecutive" if step == 1 else "two apart"
            return f"a {KIND_NAMES[kind]}'s ranks must be {what}: {ordered}"
    return Meld(kind, size, ordered[-1], ordered[0], nat, wild)


def beats(new: Meld, old: Meld, zero_high: int | None) -> bool:
    """docs/rules.md §5.3: same type, same size, strictly higher rank (a run or gap by its top).
    With the zeros rule (`zero_high` = the deck's highest rank), a meld starting at 0
    also beats one of the same type and size whose top is exactly that rank."""
    if new.kind != old.kind or new.size != old.size:
        return False
    if new.top > old.top:
        return True
    return zero_high is not None and new.low == 0 and old.top == zero_high


# --------------------------------------------------------------------------
# Enumeration: every meld a hand can make


class HandIndex(NamedTuple):
    """A hand's natural cards by rank and by suit."""

    by_rank: dict[int, list[int]]
    by_suit: dict[int, dict[int, int]]  # suit -> rank -> card id


def index(hand: Iterable[int]) -> HandIndex:
    c = cards()
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, dict[int, int]] = {}
    for i in sorted(hand):
        r = c.ranks[i]
        by_rank.setdefault(r, []).append(i)
        by_suit.setdefault(c.suits[i], {})[r] = i
    return HandIndex(by_rank, by_suit)


def _singles(idx: HandIndex, wilds: int) -> Iterator[Meld]:
    for r, ids in idx.by_rank.items():
        for i in ids:
            yield Meld(SINGLE, 1, r, r, (i,), ())
    if wilds:
        # A wild single of a rank the hand holds is reached by playing the natural and
        # swapping it (arena's ruling: wilds only where no natural can stand).
        for r in WILD_RANKS:
            if r not in idx.by_rank:
                yield Meld(SINGLE, 1, r, r, (), (r,))


def _sets(idx: HandIndex, wilds: int, size: int | None) -> Iterator[Meld]:
    """Sets of each rank: any `k` of the naturals held of that rank, or all of them and
    wilds for the rest (a wild never stands where a held natural could)."""
    for r in WILD_RANKS:
        held = idx.by_rank.get(r, [])
        h = len(held)
        for k in range(2, h + wilds + 1) if size is None else (size,):
            if k < 2:
                continue
            if k <= h:
                for nat in combinations(held, k):
                    yield Meld(SET, k, r, r, nat, ())
            elif k - h <= wilds:
                yield Meld(SET, k, r, r, tuple(held), (r,) * (k - h))


def _lines(idx: HandIndex, wilds: int, kind: int, size: int | None) -> Iterator[Meld]:
    """Runs (step 1) or gaps (step 2): every window of ranks in 0-17, filled in each suit
    by every natural held there, with wilds for the rest. A window of wilds alone has no
    suit: it is listed once, and only when the hand holds no natural of any of its ranks
    (else that natural could stand in it: play it, then swap it)."""
    step = 1 if kind == RUN else 2
    lo_k = 2 if size is None else size
    hi_k = MAX_RANK // step + 1 if size is None else size
    if wilds >= lo_k:  # wilds alone
        for k in range(lo_k, min(hi_k, wilds) + 1):
            span = step * (k - 1)
            for low in range(MAX_RANK - span + 1):
                window = range(low + span, low - 1, -step)
                if not any(q in idx.by_rank for q in window):
                    yield Meld(kind, k, low + span, low, (), tuple(window))
    for held_map in idx.by_suit.values():
        for low in range(MAX_RANK + 1):
            kept: list[int] = []
            wild: list[int] = []
            for k, r in enumerate(range(low, MAX_RANK + 1, step), start=1):
                if k > hi_k:
                    break
                i = held_map.get(r)
                if i is None:
                    if len(wild) == wilds:
                        break
                    wild.append(r)
                else:
                    kept.append(i)
                if k >= lo_k and kept:
                    yield Meld(kind, k, r, low, tuple(sorted(kept)), tuple(reversed(wild)))


def melds(
    hand: Iterable[int], wilds: int, kinds: Iterable[int], size: int | None = None
) -> Iterator[Meld]:
    """Every meld of the given kinds (and size, if given) that `hand` and `wilds` wilds
    make using wilds only where no natural of the hand could stand, each once
    (unordered). Every other meld of the hand is one of these with naturals swapped
    for wilds (`swapped`)."""
    idx = index(hand)
    for kind in kinds:
        if kind == SINGLE:
            if size in (None, 1):
                yield from _singles(idx, wilds)
        elif kind == SET:
            yield from _sets(idx, wilds, size)
        else:
            yield from _lines(idx, wilds, kind, size)


def beating(hand: Iterable[int], wilds: int, old: Meld, zero_high: int | None) -> list[Meld]:
    """Every meld of the hand that beats `old`, in legal-list order."""
    out = [m for m in melds(hand, wilds, (old.kind,), old.size) if beats(m, old, zero_high)]
    out.sort(key=sort_key)
    return out


def all_melds(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> list[Meld]:
    """Every meld of the given kinds the hand can make, in legal-list order."""
    out = list(melds(hand, wilds, kinds))
    out.sort(key=sort_key)
    return out


def distinct_removals(found: Iterable[Meld]) -> list[Meld]:
    """One meld per different set of cards taken out of the hand (the first listed):
    when only the cards leaving the hand matter, as for a discarded meld."""
    seen: set[tuple[tuple[int, ...], int]] = set()
    out = []
    for m in found:
        key = m.key
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


# --------------------------------------------------------------------------
# Wilds where a natural could stand: refused in a play, reached by swaps


def needless_wild(meld: Meld, hand: Iterable[int]) -> int | None:
    """A natural card of `hand`, not in the meld, that could stand where the meld uses a
    wild (the first such), or None when the meld uses wilds only where it must.

    Such a meld is not offered as a play (arena's ruling): it is the meld with that
    natural in the wild's place, followed by a swap."""
    if not meld.wilds:
        return None
    c = cards()
    used = set(meld.naturals)
    free = [i for i in sorted(hand) if i not in used]
    if meld.kind in (SINGLE, SET):
        return next((i for i in free if c.ranks[i] == meld.top), None)
    wild = set(meld.wilds)
    if meld.naturals:  # a run or gap: its suit is its naturals' suit
        suit = c.suits[meld.naturals[0]]
        return next((i for i in free if c.suits[i] == suit and c.ranks[i] in wild), None)
    # Wilds alone take any suit: the suit of any natural of the window's ranks would do.
    return next((i for i in free if c.ranks[i] in wild), None)


def swapped(meld: Meld, card: int) -> Meld:
    """The meld with natural `card` replaced by a wild declared as its rank (the same
    ranks, so the same type, size and rank: it beats what the meld beat)."""
    rank = cards().ranks[card]
    out = check(meld.kind, [i for i in meld.naturals if i != card], [*meld.wilds, rank])
    assert not isinstance(out, str), out
    return out
