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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, groupby, pairwise
from typing import Literal, NamedTuple

from arena.games.cards import CardTable

SUITS = "SHDC"  # spades, hearts, diamonds, clubs; 3-suit decks use S H D
MAX_RANK = 17  # docs/rules.md §5.2: a wild is announced as any rank 0-17
WILD_RANKS = range(MAX_RANK + 1)

SINGLE, SET, RUN, GAP = range(4)
MeldName = Literal["single", "set", "run", "gap"]
KIND_NAMES: tuple[MeldName, ...] = ("single", "set", "run", "gap")
KIND_OF: dict[str, int] = {name: k for k, name in enumerate(KIND_NAMES)}


MeldKey = tuple[tuple[int, ...], int]  # natural card ids, number of wilds


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
    def key(self) -> MeldKey:
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
    ids: tuple[tuple[int, ...], ...]  # suit index -> rank -> card id
    order: tuple[int, ...]  # a sort key: by rank, then suit (ids ascend within a rank)


@cache
def cards() -> Cards:
    t = card_table()
    suits = tuple(SUITS.index(s) for s in t.suits)
    ids = tuple(tuple(t.index[f"{r}{s}"] for r in WILD_RANKS) for s in SUITS)
    order = tuple(r * len(SUITS) + s for r, s in zip(t.numbers, suits, strict=True))
    return Cards(t, t.numbers, suits, ids, order)


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
#
# The legal lists are built here at every decision, so the enumeration is
# output-sensitive: a run or gap is only looked for where a natural of its suit can
# be reached, a play only among the melds of the led type and size that beat it, and
# the melds come out already in legal-list order (`sort_key`). A hand's index and its
# full list are kept for the next time the same hand is asked (a hand is asked about
# again and again while its holder passes, leads or resolves a Pass Card).

#: at most this many hands are remembered (each cache is emptied when full)
CACHE_LIMIT = 1 << 14


class HandIndex(NamedTuple):
    """A hand's natural cards: the ids held of each rank (ranks ascending, ids ascending
    within a rank), and the ranks held as bit masks (bit r for rank r), one per suit and
    one over all suits, so a window of a run or gap is looked up with one `&`. Shared
    between the calls on the same hand."""

    by_rank: dict[int, tuple[int, ...]]
    suits: tuple[int, ...]
    held: int


_indexes: dict[tuple[int, ...], HandIndex] = {}


def index(hand: Iterable[int]) -> HandIndex:
    key = tuple(hand)
    idx = _indexes.get(key)
    if idx is None:
        c = cards()
        by_rank = {
            r: tuple(ids)
            for r, ids in groupby(sorted(key, key=c.order.__getitem__), c.ranks.__getitem__)
        }
        masks = [0] * len(SUITS)
        for i in key:
            masks[c.suits[i]] |= 1 << c.ranks[i]
        held = 0
        for m in masks:
            held |= m
        idx = HandIndex(by_rank, tuple(masks), held)
        if len(_indexes) >= CACHE_LIMIT:
            _indexes.clear()
        _indexes[key] = idx
    return idx


@cache
def _windows(step: int) -> tuple[tuple[int, ...], ...]:
    """`_windows(step)[count][low]`: the ranks low, low + step, ... (`count` of them, none
    above MAX_RANK) as a bit mask."""
    return tuple(
        tuple(
            sum(1 << r for r in range(low, min(low + step * count, MAX_RANK + 1), step))
            for low in WILD_RANKS
        )
        for count in range(MAX_RANK + 2)
    )


class _Singles(NamedTuple):
    naturals: tuple[Meld, ...]  # by card id
    wilds: tuple[Meld, ...]  # by declared rank


@cache
def _singles_table() -> _Singles:
    """Every single there is, built once: one per card and one per wild rank."""
    ranks = cards().ranks
    return _Singles(
        tuple(Meld(SINGLE, 1, r, r, (i,), ()) for i, r in enumerate(ranks)),
        tuple(Meld(SINGLE, 1, r, r, (), (r,)) for r in WILD_RANKS),
    )


def _beats_rank(r: int, floor: int, zero: bool) -> bool:
    """A single or set of rank `r` is above `floor`, or a 0 under the zeros rule
    (docs/rules.md §5.10: a 0 beats the deck's highest rank)."""
    return r > floor or (zero and r == 0)


def _singles(hand: Sequence[int], wilds: int, floor: int, zero: bool) -> list[Meld]:
    """Singles by rank: every natural held of it, or a wild declared as it when the hand
    holds none (arena's ruling: a wild single of a rank held is reached by a swap)."""
    table = _singles_table()
    c = cards()
    if not wilds:  # the naturals above `floor` (and the 0s, by the zeros rule), in order
        ranks = c.ranks
        above = [i for i in hand if ranks[i] > floor or (zero and ranks[i] == 0)]
        above.sort(key=c.order.__getitem__)
        natural = table.naturals
        return [natural[i] for i in above]
    by_rank = index(hand).by_rank
    out: list[Meld] = []
    for r in WILD_RANKS:
        if not _beats_rank(r, floor, zero):
            continue
        held = by_rank.get(r)
        if held:
            out.extend([table.naturals[i] for i in held])
        else:
            out.append(table.wilds[r])
    return out


@cache
def _natural_set(naturals: tuple[int, ...]) -> Meld:
    """The set of these naturals (all of one rank, ids ascending), built once."""
    r = cards().ranks[naturals[0]]
    return Meld(SET, len(naturals), r, r, naturals, ())


@cache
def _filled_set(held: tuple[int, ...], rank: int, size: int) -> Meld:
    """The set of `size` cards of `rank`: every natural `held` of it, wilds for the rest."""
    return Meld(SET, size, rank, rank, held, (rank,) * (size - len(held)))


def _sets(idx: HandIndex, wilds: int, size: int | None, floor: int, zero: bool) -> list[Meld]:
    """Sets by size, then rank: any `k` of the naturals held of that rank, or all of
    them and wilds for the rest (a wild never stands where a held natural could)."""
    by_size: dict[int, list[Meld]] = {}
    # Without wilds only the ranks held twice or more make sets.
    ranks = WILD_RANKS if wilds else [r for r, held in idx.by_rank.items() if len(held) > 1]
    for r in ranks:
        if not _beats_rank(r, floor, zero):
            continue
        held = idx.by_rank.get(r, ())
        h = len(held)
        for k in range(2, h + wilds + 1) if size is None else (size,):
            found = by_size.setdefault(k, [])
            if k <= h:
                found.extend(map(_natural_set, combinations(held, k)))
            elif k - h <= wilds:
                found.append(_filled_set(held, r, k))
    if len(by_size) == 1:
        return next(iter(by_size.values()))
    return [m for k in sorted(by_size) for m in by_size[k]]


#: a run or gap on its way to the legal list: (size, top, wilds used, naturals, meld),
#: sorted in legal-list order
_Entry = tuple[int, int, int, tuple[int, ...], Meld]


@cache
def _natural_lines(kind: int) -> tuple[tuple[tuple[Meld, ...], ...], ...]:
    """`_natural_lines(kind)[suit][size][low]`: the run or gap of naturals alone of that
    suit and size (2 or more) starting at rank `low`, for every start it fits, built once."""
    step = 1 if kind == RUN else 2

    def line(ids: tuple[int, ...], k: int, low: int) -> Meld:
        top = low + step * (k - 1)
        return Meld(kind, k, top, low, tuple([ids[r] for r in range(top, low - 1, -step)]), ())

    return tuple(
        tuple(
            tuple(line(ids, k, low) for low in range(MAX_RANK + 1 - step * (k - 1)))
            if k >= 2
            else ()
            for k in range(MAX_RANK // step + 2)
        )
        for ids in cards().ids
    )


def _lines(
    idx: HandIndex, wilds: int, kind: int, size: int | None, floor: int, zero: bool
) -> list[Meld]:
    """Runs (step 1) or gaps (step 2): every window of ranks in 0-17, filled in each suit
    by every natural held there, with wilds for the rest. A window of wilds alone has no
    suit: it is listed once, and only when the hand holds no natural of any of its ranks
    (else that natural could stand in it: play it, then swap it). With `size`, only the
    windows of that size whose top is above `floor` (or, with `zero`, that start at 0)."""
    step = 1 if kind == RUN else 2
    lo_k, hi_k = (2, MAX_RANK // step + 1) if size is None else (size, size)
    # The starts allowed, as a bit mask: those whose window of size `hi_k` tops `floor`.
    first = max(0, floor + 1 - step * (hi_k - 1))
    starts = (1 << (MAX_RANK + 1)) - (1 << first)
    if zero:
        starts |= 1
    if wilds:
        found = _lines_with_wilds(idx, wilds, kind, step, lo_k, hi_k, starts)
    else:
        found = _lines_of_naturals(idx, kind, step, lo_k, hi_k, starts)
    found.sort()
    return [entry[-1] for entry in found]


def _lines_of_naturals(
    idx: HandIndex, kind: int, step: int, lo_k: int, hi_k: int, starts: int
) -> list[_Entry]:
    """`_lines` without wilds: a window of size k is held whole in a suit where the
    suit's mask shifted by 0, step, .. (k - 1) steps has its start's bit set in all."""
    found: list[_Entry] = []
    table = _natural_lines(kind)
    for suit, mask in enumerate(idx.suits):
        held_from = mask  # the starts of the windows of size k held whole
        for k in range(2, hi_k + 1):
            held_from &= mask >> (step * (k - 1))
            if not held_from:
                break
            if k < lo_k:
                continue
            melds = table[suit][k]
            bits = held_from & starts
            while bits:
                low = (bits & -bits).bit_length() - 1
                bits &= bits - 1
                meld = melds[low]
                found.append((k, meld.top, 0, meld.naturals, meld))
    return found


def _lines_with_wilds(
    idx: HandIndex, wilds: int, kind: int, step: int, lo_k: int, hi_k: int, starts: int
) -> list[_Entry]:
    """`_lines` with wilds: the windows of wilds alone, and from each start worth it a
    walk up the suit, a natural where one is held and else a wild, while wilds last."""
    windows = _windows(step)
    found: list[_Entry] = []
    for k in range(lo_k, min(hi_k, wilds) + 1):  # wilds alone
        span = step * (k - 1)
        for low in range(MAX_RANK - span + 1):
            if starts >> low & 1 and not idx.held & windows[k][low]:
                top = low + span
                window = tuple(range(top, low - 1, -step))
                found.append((k, top, k, (), Meld(kind, k, top, low, (), window)))
    ids_of = cards().ids
    for suit, mask in enumerate(idx.suits):
        if not mask:
            continue
        # A start is worth walking only if a natural of the suit is within its first
        # wilds + 1 ranks (else the wilds run out before any natural): the starts
        # `step * j` below a rank held, for j up to `wilds`.
        reach = mask
        for j in range(1, min(wilds, MAX_RANK) + 1):
            reach |= mask >> (step * j)
        reach &= starts
        ids = ids_of[suit]
        while reach:
            low = (reach & -reach).bit_length() - 1
            reach &= reach - 1
            kept: list[int] = []  # ids, by rank ascending (so ids descending)
            wild: list[int] = []
            r = low
            for k in range(1, hi_k + 1):
                if r > MAX_RANK:
                    break
                if mask >> r & 1:
                    kept.append(ids[r])
                elif len(wild) == wilds:
                    break
                else:
                    wild.append(r)
                if k >= lo_k and kept:
                    nat = tuple(reversed(kept))
                    meld = Meld(kind, k, r, low, nat, tuple(reversed(wild)))
                    found.append((k, r, len(wild), nat, meld))
                r += step
    return found


def _of_kind(
    hand: Sequence[int], wilds: int, kind: int, size: int | None, floor: int, zero: bool
) -> list[Meld]:
    if kind == SINGLE:
        return _singles(hand, wilds, floor, zero) if size in (None, 1) else []
    if kind == SET:
        return _sets(index(hand), wilds, size, floor, zero)
    return _lines(index(hand), wilds, kind, size, floor, zero)


def beating(hand: Iterable[int], wilds: int, old: Meld, zero_high: int | None) -> list[Meld]:
    """Every meld of the hand that beats `old` (`beats`), in legal-list order: only the
    melds of its type and size, above its rank (or, by the zeros rule, starting at 0)."""
    zero = zero_high is not None and old.top == zero_high
    return _of_kind(tuple(hand), wilds, old.kind, old.size, old.top, zero)


_all: dict[tuple[tuple[int, ...], int, tuple[int, ...]], list[Meld]] = {}


def all_melds(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> list[Meld]:
    """Every meld of the given kinds that `hand` and `wilds` wilds make using wilds only
    where no natural of the hand could stand, each once, in legal-list order. Every
    other meld of the hand is one of these with naturals swapped for wilds (`swapped`)."""
    hand = tuple(hand)
    key = (hand, wilds, tuple(kinds))
    found = _all.get(key)
    if found is None:
        found = []
        for kind in sorted(set(key[2])):
            found.extend(_of_kind(hand, wilds, kind, None, -1, False))
        if len(_all) >= CACHE_LIMIT:
            _all.clear()
        _all[key] = found
    return list(found)


_removals: dict[tuple[tuple[int, ...], int, tuple[int, ...]], dict[MeldKey, Meld]] = {}


def removals(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> Mapping[MeldKey, Meld]:
    """One meld per different set of cards taken out of the hand (`Meld.key`), the first
    `all_melds` lists, in its order: when only the cards leaving the hand matter, as for
    a discarded meld. Shared between the calls on the same hand: read only."""
    hand = tuple(hand)
    key = (hand, wilds, tuple(kinds))
    out = _removals.get(key)
    if out is None:
        out = {}
        for m in all_melds(hand, wilds, key[2]):
            out.setdefault((m.naturals, len(m.wilds)), m)
        if len(_removals) >= CACHE_LIMIT:
            _removals.clear()
        _removals[key] = out
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
