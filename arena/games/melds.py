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
from itertools import chain, combinations, pairwise
from operator import attrgetter, getitem
from typing import Literal, NamedTuple, cast

from msgspec import Struct

from arena.games.cards import CardTable

SUITS = "SHDC"  # spades, hearts, diamonds, clubs; 3-suit decks use S H D
MAX_RANK = 17  # docs/rules.md §5.2: a wild is announced as any rank 0-17
WILD_RANKS = range(MAX_RANK + 1)

SINGLE, SET, RUN, GAP = range(4)
MeldName = Literal["single", "set", "run", "gap"]
KIND_NAMES: tuple[MeldName, ...] = ("single", "set", "run", "gap")
KIND_OF: dict[str, int] = {name: k for k, name in enumerate(KIND_NAMES)}


MeldKey = tuple[tuple[int, ...], int]  # natural card ids, number of wilds


class Meld(Struct, frozen=True, gc=False):
    """One meld: its type, size, top and lowest rank, natural card ids (canonical order)
    and the ranks its wilds are declared as (descending).

    Immutable and hashable, and out of the cycle collector's sight (`gc=False`: it holds
    only integers, so it is in no cycle): the tables and caches below keep thousands of
    melds, which the collector would otherwise walk again and again."""

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


#: a card's code by its id (`card_table`'s), as the rulesets' views show it
code_of = card_table().codes.__getitem__


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
# output-sensitive and works on bit sets: a hand is an integer with one bit per card,
# a suit's ranks one with one bit per rank. Every meld comes from a table built once
# or is made once and kept (`_line_melds`, `_filled_sets`), so the same meld is the
# same object each time (meld_actions.py maps it to its action by identity); a run or
# gap is only looked for where a natural of its suit can be reached, a play only among
# the melds of the led type and size that beat it, and the melds come out in
# legal-list order (`sort_key`). A hand's index and its full list are kept for the
# next time the same hand is asked (a hand is asked about again and again while its
# holder passes, leads or resolves a Pass Card).

#: at most this many hands are remembered (each cache is emptied when full): the hands
#: asked about again are recent ones, and small caches stay in the processor's caches
CACHE_LIMIT = 1 << 11

_RANKS = MAX_RANK + 1
#: a card's id is (MAX_RANK - rank) * NIBBLE + suit (`card_table`'s order), so in a hand's
#: bit set (`HandIndex.bits`) each rank is a nibble: rank r's at bit NIBBLE * (MAX_RANK - r),
#: with bit `suit` of it set per suit held
NIBBLE = len(SUITS)
_HAND_BYTES = _RANKS * NIBBLE // 8  # a hand's bit set in bytes: two ranks a byte
#: by card id: its bit in a hand's bit set, and its rank's bit (the id's low bits are its suit)
_BITS = tuple(1 << i for i in range(_RANKS * NIBBLE))
_RANK_BITS = tuple(1 << (MAX_RANK - i // NIBBLE) for i in range(_RANKS * NIBBLE))
assert NIBBLE == 4  # `HandIndex` takes a card's suit as its id & 3


class HandIndex(Struct, gc=False):
    """A hand's natural cards as bit sets, shared between the calls on the same hand:
    `bits`, bit `id` per card held (a nibble per rank, see `NIBBLE`), so a hand's singles
    and sets are looked up byte by byte; and, made when first asked for (runs and gaps
    only), `suits`, the ranks held in each suit (bit r for rank r), and `held`, the ranks
    held in any suit, so a window of a run or gap is looked up with one `&`. Out of the
    cycle collector's sight, like `Meld` (integers only)."""

    hand: tuple[int, ...]
    bits: int
    masks: tuple[tuple[int, ...], int] | None = None

    def _suit_masks(self) -> tuple[tuple[int, ...], int]:
        """`suits` and `held`, made from the hand the first time they are asked for."""
        if self.masks is None:
            masks = [0] * len(SUITS)
            for i in self.hand:
                masks[i & 3] |= _RANK_BITS[i]
            held = 0
            for m in masks:
                held |= m
            self.masks = tuple(masks), held
        return self.masks

    @property
    def suits(self) -> tuple[int, ...]:
        return self._suit_masks()[0]

    @property
    def held(self) -> int:
        return self._suit_masks()[1]


#: a meld on its way to a legal list that is sorted: (its place in the order, the meld)
_Entry = tuple[int, Meld]


def _line_key(size: int, top: int, wilds: int, first: int) -> int:
    """A run's or gap's place in the legal order (`sort_key`) as one integer: by size,
    top rank, wilds used, then its first natural (ids of one suit's cards differ, so that
    decides between two suits; a window of wilds alone uses more wilds than any other)."""
    return ((size * 32 + top) * 128 + wilds) * 128 + first


class _Tables(NamedTuple):
    """Everything the enumeration looks up, built once (`_tables`)."""

    pop: tuple[int, ...]  # a nibble (suit subset) -> how many suits it holds
    rank_ids: tuple[tuple[tuple[int, ...], ...], ...]  # rank -> nibble -> ids, ascending
    #: byte of a hand's bit set (most significant first: byte i holds ranks 2i and
    #: 2i + 1) -> byte value -> the singles of its cards, by rank then suit; and the same
    #: with a wild single for each of the two ranks not held
    single_bytes: tuple[tuple[tuple[Meld, ...], ...], ...]
    single_bytes_wild: tuple[tuple[tuple[Meld, ...], ...], ...]
    #: rank -> nibble -> its naturals' singles, or (empty nibble) the wild single
    single_rows: tuple[tuple[tuple[Meld, ...], ...], ...]
    #: rank -> nibble -> k -> the sets of k of those naturals (combinations' order)
    nat_sets: tuple[tuple[tuple[tuple[Meld, ...], ...], ...], ...]
    #: by line type (0 run, 1 gap), then size k: the starts whose window fits in 0-17
    fit: tuple[tuple[int, ...], ...]
    #: by line type, size k and start: the window's ranks as a bit mask
    windows: tuple[tuple[tuple[int, ...], ...], ...]
    #: by line type, size k and start: the window of wilds alone
    wild_lines: tuple[tuple[tuple[_Entry, ...], ...], ...]
    #: by line type, size k and the bit of its first card in a hand's bit set: the run
    #: or gap of naturals alone (None where the window does not fit, which
    #: `_lines_of_naturals` never looks up)
    nat_line_at: tuple[tuple[tuple[_Entry, ...], ...], ...]


def _byte_rows(
    single_rows: tuple[tuple[tuple[Meld, ...], ...], ...], wild: bool
) -> tuple[tuple[tuple[Meld, ...], ...], ...]:
    """`_Tables.single_bytes` (or, with `wild`, `single_bytes_wild`) from the rows by rank."""
    out = []
    for i in range(_HAND_BYTES):
        row = []
        for b in range(256):
            melds: list[Meld] = []
            # the byte's high nibble holds rank 2i, its low nibble rank 2i + 1
            for r, sub in ((2 * i, b >> NIBBLE), (2 * i + 1, b & 15)):
                if sub or wild:
                    melds.extend(single_rows[r][sub])
            row.append(tuple(melds))
        out.append(tuple(row))
    return tuple(out)


class _LineTables(NamedTuple):
    """The line tables of one type (run or gap), as `_Tables` holds them by type."""

    fit: tuple[int, ...]
    windows: tuple[tuple[int, ...], ...]
    wild_lines: tuple[tuple[_Entry, ...], ...]
    nat_line_at: tuple[tuple[_Entry, ...], ...]


def _line_tables(kind: int) -> _LineTables:
    """The tables of one line type (`_Tables.fit`, `windows`, `wild_lines`, `nat_line_at`)."""
    step = 1 if kind == RUN else 2
    ids = cards().ids
    sizes = range(MAX_RANK // step + 3)

    def starts(k: int) -> range:  # those whose window of k ranks fits in 0-17
        return range(max(0, _RANKS - step * (k - 1)))

    def line(suit: int | None, k: int, low: int) -> _Entry:
        top = low + step * (k - 1)
        ranks = range(top, low - 1, -step)
        if suit is None:
            return _line_key(k, top, k, 0), Meld(kind, k, top, low, (), tuple(ranks))
        nat = tuple([ids[suit][r] for r in ranks])
        return _line_key(k, top, 0, nat[0]), Meld(kind, k, top, low, nat, ())

    nat_lines = tuple(  # by suit, size k and start: the run or gap of naturals alone
        tuple(tuple(line(s, k, low) for low in starts(k)) if k >= 2 else () for k in sizes)
        for s in range(len(SUITS))
    )
    by_bit = range(_RANKS * NIBBLE)  # bit b: rank MAX_RANK - b // NIBBLE, suit b % NIBBLE
    return _LineTables(
        fit=tuple((1 << len(starts(k))) - 1 if k else 0 for k in sizes),
        windows=tuple(
            tuple(
                sum(1 << r for r in range(low, min(low + step * k, _RANKS), step))
                for low in WILD_RANKS
            )
            for k in sizes
        ),
        wild_lines=tuple(
            tuple(line(None, k, low) for low in starts(k)) if k else () for k in sizes
        ),
        nat_line_at=tuple(
            tuple(
                nat_lines[b % NIBBLE][k][MAX_RANK - b // NIBBLE]
                if k >= 2 and MAX_RANK - b // NIBBLE in starts(k)
                else cast(_Entry, None)
                for b in by_bit
            )
            for k in sizes
        ),
    )


@cache
def _tables() -> _Tables:
    c = cards()
    ids = range(len(c.ranks))
    assert all(i == (MAX_RANK - c.ranks[i]) * NIBBLE + c.suits[i] for i in ids)
    nibbles = range(1 << NIBBLE)
    rank_ids = tuple(
        tuple(tuple(c.ids[s][r] for s in range(NIBBLE) if sub >> s & 1) for sub in nibbles)
        for r in WILD_RANKS
    )
    singles = tuple(Meld(SINGLE, 1, r, r, (i,), ()) for i, r in enumerate(c.ranks))
    single_rows = tuple(
        tuple(
            tuple(singles[i] for i in rank_ids[r][sub])
            if sub
            else (Meld(SINGLE, 1, r, r, (), (r,)),)
            for sub in nibbles
        )
        for r in WILD_RANKS
    )
    nat_sets = tuple(
        tuple(
            tuple(
                tuple(Meld(SET, k, r, r, combo, ()) for combo in combinations(rank_ids[r][sub], k))
                if k >= 2
                else ()
                for k in range(len(rank_ids[r][sub]) + 1)
            )
            for sub in nibbles
        )
        for r in WILD_RANKS
    )
    lines = (_line_tables(RUN), _line_tables(GAP))
    return _Tables(
        pop=tuple(bin(sub).count("1") for sub in nibbles),
        rank_ids=rank_ids,
        single_bytes=_byte_rows(single_rows, False),
        single_bytes_wild=_byte_rows(single_rows, True),
        single_rows=single_rows,
        nat_sets=nat_sets,
        fit=tuple(t.fit for t in lines),
        windows=tuple(t.windows for t in lines),
        wild_lines=tuple(t.wild_lines for t in lines),
        nat_line_at=tuple(t.nat_line_at for t in lines),
    )


_indexes: dict[tuple[int, ...], HandIndex] = {}


def index(hand: Iterable[int]) -> HandIndex:
    """The bit sets of a hand (distinct card ids), kept for the next call on it."""
    key = tuple(hand)
    idx = _indexes.get(key)
    if idx is None:
        idx = HandIndex(key, sum(map(_BITS.__getitem__, key)))
        if len(_indexes) >= CACHE_LIMIT:
            _indexes.clear()
        _indexes[key] = idx
    return idx


#: `_ABOVE[floor + 1]`: the bits of a hand's bit set whose rank is above `floor` (-1 to
#: 17); `_ZEROS`, those of the 0s (docs/rules.md §5.10: a 0 beats the deck's highest rank)
_ABOVE = tuple((1 << NIBBLE * (MAX_RANK - floor)) - 1 for floor in range(-1, _RANKS))
_ZEROS = ((1 << NIBBLE) - 1) << NIBBLE * MAX_RANK
#: `_RANKS_ABOVE[zero][floor + 1]`: the ranks above `floor`, ascending, with `zero` the 0 first
_RANKS_ABOVE = (
    tuple(range(floor + 1, _RANKS) for floor in range(-1, _RANKS)),
    tuple(
        range(floor + 1, _RANKS) if floor < 0 else (0, *range(floor + 1, _RANKS))
        for floor in range(-1, _RANKS)
    ),
)


def _ranks_above(floor: int, zero: bool) -> Sequence[int]:
    """The ranks above `floor`, ascending, the 0 first with `zero`."""
    return _RANKS_ABOVE[zero][floor + 1]


def _singles(idx: HandIndex, wilds: int, floor: int, zero: bool) -> list[Meld]:
    """Singles by rank: every natural held of it, or a wild declared as it when the hand
    holds none (arena's ruling: a wild single of a rank held is reached by a swap)."""
    t = _tables()
    if not wilds:  # the naturals above `floor` (and the 0s, by the zeros rule), in order
        bits = idx.bits & (_ABOVE[floor + 1] | _ZEROS if zero else _ABOVE[floor + 1])
        return list(
            chain.from_iterable(map(getitem, t.single_bytes, bits.to_bytes(_HAND_BYTES, "big")))
        )
    if floor < 0:
        return list(
            chain.from_iterable(
                map(getitem, t.single_bytes_wild, idx.bits.to_bytes(_HAND_BYTES, "big"))
            )
        )
    bits, rows = idx.bits, t.single_rows
    out: list[Meld] = []
    for r in _ranks_above(floor, zero):
        out.extend(rows[r][bits >> NIBBLE * (MAX_RANK - r) & 15])
    return out


#: every set with wilds made so far: few (a rank, the suits held of it, a size under 256)
_filled_sets: dict[int, Meld] = {}


def _filled_set(rank: int, sub: int, size: int) -> Meld:
    """The set of `size` cards of `rank`: every natural held of it (the suits of nibble
    `sub`), wilds for the rest; made once."""
    key = ((rank << NIBBLE | sub) << 8) + size
    meld = _filled_sets.get(key)
    if meld is None:
        held = _tables().rank_ids[rank][sub]
        meld = _filled_sets[key] = Meld(SET, size, rank, rank, held, (rank,) * (size - len(held)))
    return meld


def _rank_sets(rank: int, sub: int, wilds: int) -> list[_Entry]:
    """Every set of `rank` with the naturals of nibble `sub` and `wilds` wilds, as entries
    whose key `(k * 32 + rank) * 8 + j` orders a list of them by size, rank, then
    combination (j): any k of the naturals, or all of them and wilds for the rest."""
    t = _tables()
    h = t.pop[sub]
    out: list[_Entry] = []
    for k in range(2, h + wilds + 1):
        if k <= h:
            out.extend(((k * 32 + rank) * 8 + j, m) for j, m in enumerate(t.nat_sets[rank][sub][k]))
        else:
            out.append(((k * 32 + rank) * 8, _filled_set(rank, sub, k)))
    return out


#: up to this many wilds, a hand's sets are looked up by byte (`_set_bytes`)
_SET_BYTES_WILDS = 8


@cache
def _set_bytes(wilds: int) -> tuple[tuple[tuple[_Entry, ...], ...], ...]:
    """By byte of a hand's bit set (ranks 2i and 2i + 1) and its value: `_rank_sets` of
    both ranks with `wilds` wilds, so a hand's sets are nine look-ups and a sort."""
    ranks = [[tuple(_rank_sets(r, sub, wilds)) for sub in range(1 << NIBBLE)] for r in WILD_RANKS]
    return tuple(
        tuple(ranks[2 * i][b >> NIBBLE] + ranks[2 * i + 1][b & 15] for b in range(256))
        for i in range(_HAND_BYTES)
    )


@cache
def _set_bytes_of_size(size: int) -> tuple[tuple[tuple[Meld, ...], ...], ...]:
    """By byte of a hand's bit set and its value: the sets of `size` naturals of its two
    ranks, by rank (the sets a hand without wilds beats a set of `size` with)."""
    nat_sets = _tables().nat_sets
    return tuple(
        tuple(
            tuple(
                m
                for r, sub in ((2 * i, b >> NIBBLE), (2 * i + 1, b & 15))
                if size < len(nat_sets[r][sub])
                for m in nat_sets[r][sub][size]
            )
            for b in range(256)
        )
        for i in range(_HAND_BYTES)
    )


def _sets(idx: HandIndex, wilds: int, size: int | None, floor: int, zero: bool) -> list[Meld]:
    """Sets by size, then rank: any `k` of the naturals held of that rank, or all of
    them and wilds for the rest (a wild never stands where a held natural could)."""
    bits = idx.bits & (_ABOVE[floor + 1] | _ZEROS if zero else _ABOVE[floor + 1])
    if size is None:
        if floor < 0 and wilds <= _SET_BYTES_WILDS:
            rows = _set_bytes(wilds)
            found = list(chain.from_iterable(map(getitem, rows, bits.to_bytes(_HAND_BYTES, "big"))))
        else:
            found = []
            for r in _ranks_above(floor, zero):
                found.extend(_rank_sets(r, bits >> NIBBLE * (MAX_RANK - r) & 15, wilds))
        if len(found) > 1:
            found.sort()  # by the entries' keys, all different: melds are never compared
        return [entry[1] for entry in found]
    if not wilds:
        if size > NIBBLE:
            return []
        rows_of_size = _set_bytes_of_size(size)
        return list(
            chain.from_iterable(map(getitem, rows_of_size, bits.to_bytes(_HAND_BYTES, "big")))
        )
    t = _tables()
    pop, nat_sets = t.pop, t.nat_sets
    out: list[Meld] = []
    for r in _ranks_above(floor, zero):
        sub = bits >> NIBBLE * (MAX_RANK - r) & 15
        h = pop[sub]
        if size <= h:
            out.extend(nat_sets[r][sub][size])
        elif size - h <= wilds:
            out.append(_filled_set(r, sub, size))
    return out


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
    starts = (1 << _RANKS) - (1 << first)
    if zero:
        starts |= 1
    if wilds:
        found = _lines_with_wilds(idx, wilds, kind, step, lo_k, hi_k, starts)
    else:  # the same starts, as bits of the hand's bit set: ranks `first` up, or 0
        at = _ABOVE[first] | _ZEROS if zero else _ABOVE[first]
        found = _lines_of_naturals(idx, kind, step, lo_k, hi_k, at)
    if len(found) > 1:
        found.sort()  # by the entries' keys, all different: melds are never compared
    return [entry[1] for entry in found]


def _lines_of_naturals(
    idx: HandIndex, kind: int, step: int, lo_k: int, hi_k: int, starts: int
) -> list[_Entry]:
    """`_lines` without wilds, every suit at once on the hand's bit set (`starts`: the
    bits of the cards a window may start at). A suit's card of rank r + step sits
    `NIBBLE * step` bits below its card of rank r, so the windows of size k held whole
    start at the bits set in the bit set shifted up by 0, 1, .. k - 1 such steps."""
    found: list[_Entry] = []
    table = _tables().nat_line_at[kind - RUN]
    bits = idx.bits
    unit = NIBBLE * step
    held = bits  # the cards starting a window of size k held whole
    for k in range(2, hi_k + 1):
        held &= bits << (unit * (k - 1))
        if not held:
            break
        if k < lo_k:
            continue
        lines = table[k]
        at = held & starts
        while at:
            low = (at & -at).bit_length() - 1
            at &= at - 1
            found.append(lines[low])
    return found


_line_melds: dict[int, _Entry] = {}


def _line_entry(kind: int, suit: int, size: int, low: int, nat: int, key: int) -> _Entry:
    """The run or gap of `size` from `low` in `suit`, the naturals of its ranks in `nat`
    held and wilds for the others; made once (under `key`) and kept."""
    step = 1 if kind == RUN else 2
    top = low + step * (size - 1)
    ids = cards().ids[suit]
    ranks = range(top, low - 1, -step)
    naturals = tuple([ids[r] for r in ranks if nat >> r & 1])
    wild = tuple([r for r in ranks if not nat >> r & 1])
    entry = _line_key(size, top, len(wild), naturals[0]), Meld(kind, size, top, low, naturals, wild)
    if len(_line_melds) >= _SUIT_LINES_LIMIT:
        _line_melds.clear()
    _line_melds[key] = entry
    return entry


def _lines_with_wilds(
    idx: HandIndex, wilds: int, kind: int, step: int, lo_k: int, hi_k: int, starts: int
) -> list[_Entry]:
    """`_lines` with wilds: the windows of wilds alone, then each suit's (`_suit_lines`).
    A lead asks for every window: a suit's are kept by its mask and the wilds, since the
    same suit masks come again and again in other hands."""
    t = _tables()
    line = kind - RUN
    found: list[_Entry] = []
    if min(hi_k, wilds) >= lo_k:  # wilds alone, where no rank of the window is held
        fit = t.fit[line]
        held, has = idx.held, 0
        rows = t.wild_lines[line]
        for k in range(1, min(hi_k, wilds) + 1):
            has |= held >> (step * (k - 1))
            if k < lo_k:
                continue
            bits = fit[k] & starts & ~has
            row = rows[k]
            while bits:
                low = (bits & -bits).bit_length() - 1
                bits &= bits - 1
                found.append(row[low])
    every = lo_k == 2 and hi_k == MAX_RANK // step + 1 and starts == _ALL_STARTS
    for suit, mask in enumerate(idx.suits):
        if not mask:
            continue
        if not every:
            found.extend(_suit_lines(kind, suit, mask, wilds, lo_k, hi_k, starts))
            continue
        key = ((wilds * 2 + line) * NIBBLE + suit) << _RANKS | mask
        lines = _suit_lines_kept.get(key)
        if lines is None:
            lines = tuple(_suit_lines(kind, suit, mask, wilds, lo_k, hi_k, starts))
            if len(_suit_lines_kept) >= _SUIT_LINES_LIMIT:
                _suit_lines_kept.clear()
            _suit_lines_kept[key] = lines
        found.extend(lines)
    return found


_ALL_STARTS = (1 << _RANKS) - 1
#: every run or gap of a suit mask with some wilds (`_lines_with_wilds`), at most this many
_suit_lines_kept: dict[int, tuple[_Entry, ...]] = {}
_SUIT_LINES_LIMIT = 1 << 16


def _suit_lines(
    kind: int, suit: int, mask: int, wilds: int, lo_k: int, hi_k: int, starts: int
) -> list[_Entry]:
    """The runs or gaps of `suit` with a natural of `mask` and no more ranks missing than
    `wilds` (wilds fill them). Every start is looked at at once, one size k after the
    other, with bit masks over the starts: `has`, a natural in the window of size k;
    `ok[j]`, at most j of its ranks missing."""
    t = _tables()
    line = kind - RUN
    step = 1 if kind == RUN else 2
    fit, windows = t.fit[line], t.windows[line]
    made = _line_melds
    base = (line * NIBBLE + suit) * 32
    found: list[_Entry] = []
    has = 0
    ok = [_ALL_STARTS] * (wilds + 1)
    ok0 = ok1 = _ALL_STARTS  # `ok[0]` and `ok[1]`, kept apart for one wild (the most usual)
    for k in range(1, hi_k + 1):
        x = mask >> (step * (k - 1))  # bit `low`: the window's k-th rank is held
        has |= x
        if wilds == 1:
            ok1 = (ok1 & x) | ok0
            ok0 &= x
            alive = fit[k] & ok1
        else:
            for j in range(wilds, 0, -1):
                ok[j] = (ok[j] & x) | ok[j - 1]
            ok[0] &= x
            alive = fit[k] & ok[wilds]
        if not alive:
            break  # no window this long or longer has wilds enough
        if k < lo_k:
            continue
        bits = alive & has & starts
        window = windows[k]
        while bits:
            low = (bits & -bits).bit_length() - 1
            bits &= bits - 1
            nat = mask & window[low]
            key = ((base + k) * 32 + low) << _RANKS | nat
            found.append(made.get(key) or _line_entry(kind, suit, k, low, nat, key))
    return found


def beating(hand: Iterable[int], wilds: int, old: Meld, zero_high: int | None) -> list[Meld]:
    """Every meld of the hand that beats `old` (`beats`), in legal-list order: only the
    melds of its type and size, above its rank (or, by the zeros rule, starting at 0)."""
    zero = zero_high is not None and old.top == zero_high
    kind = old.kind
    if kind == SINGLE:
        return _singles(index(hand), wilds, old.top, zero) if old.size == 1 else []
    if kind == SET:
        return _sets(index(hand), wilds, old.size, old.top, zero)
    return _lines(index(hand), wilds, kind, old.size, old.top, zero)


_all: dict[tuple[tuple[int, ...], int, tuple[int, ...]], tuple[Meld, ...]] = {}
#: the meld types of the rulesets, in legal-list order, by how the rules list them
_KIND_ORDER: dict[tuple[int, ...], list[int]] = {
    kinds: sorted(set(kinds)) for kinds in ((SINGLE, SET, RUN), (SINGLE, SET, RUN, GAP), (SET, RUN))
}


def all_melds(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> list[Meld]:
    """Every meld of the given kinds that `hand` and `wilds` wilds make using wilds only
    where no natural of the hand could stand, each once, in legal-list order. Every
    other meld of the hand is one of these with naturals swapped for wilds (`swapped`)."""
    hand = tuple(hand)
    key = (hand, wilds, tuple(kinds))
    found = _all.get(key)
    if found is None:
        idx = index(hand)
        melds: list[Meld] = []
        for kind in _KIND_ORDER.get(key[2]) or sorted(set(key[2])):
            if kind == SINGLE:
                melds += _singles(idx, wilds, -1, False)
            elif kind == SET:
                melds += _sets(idx, wilds, None, -1, False)
            else:
                melds += _lines(idx, wilds, kind, None, -1, False)
        if len(_all) >= CACHE_LIMIT:
            _all.clear()
        found = _all[key] = tuple(melds)  # a tuple of untracked melds: not the collector's
    return list(found)


_removals: dict[tuple[tuple[int, ...], int, tuple[int, ...]], dict[MeldKey, Meld]] = {}
_naturals_of = attrgetter("naturals")
_NO_MELD = Meld(SINGLE, 0, 0, 0, (), ())  # a place holder, replaced at once
_wilds_of = attrgetter("wilds")


def removals(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> Mapping[MeldKey, Meld]:
    """One meld per different set of cards taken out of the hand (`Meld.key`), the first
    `all_melds` lists, in its order: when only the cards leaving the hand matter, as for
    a discarded meld. Shared between the calls on the same hand: read only."""
    hand = tuple(hand)
    key = (hand, wilds, tuple(kinds))
    out = _removals.get(key)
    if out is None:
        melds = all_melds(hand, wilds, key[2])
        keys = list(zip(map(_naturals_of, melds), map(len, map(_wilds_of, melds)), strict=True))
        # Each key where it first comes, with its first meld (the last one in reversed).
        out = dict.fromkeys(keys, _NO_MELD)
        out.update(zip(reversed(keys), reversed(melds), strict=True))
        if len(_removals) >= CACHE_LIMIT:
            _removals.clear()
        _removals[key] = out
    return out


def removal_melds(hand: Iterable[int], wilds: int, kinds: Iterable[int]) -> list[Meld]:
    """`removals`' melds, in order. Without wilds that is every meld `all_melds` lists:
    melds of natural cards alone all take different cards out of the hand."""
    if not wilds:
        return all_melds(hand, wilds, kinds)
    return list(removals(hand, wilds, kinds).values())


# --------------------------------------------------------------------------
# Wilds where a natural could stand: refused in a play, reached by swaps


def needless_wild(meld: Meld, hand: Iterable[int]) -> int | None:
    """A natural card of `hand`, not in the meld, that could stand where the meld uses a
    wild (the first such), or None when the meld uses wilds only where it must.

    Such a meld is not offered as a play (arena's ruling): it is the meld with that
    natural in the wild's place, followed by a swap."""
    if not meld.wilds:
        return None
    # Most often there is none: looked for in the hand's bit sets first.
    hand = tuple(hand)
    idx = index(hand)
    if meld.kind in (SINGLE, SET):  # a card of the meld's rank that the meld leaves out
        others = idx.bits & ~sum(map(_BITS.__getitem__, set(meld.naturals)))
        if not others >> NIBBLE * (MAX_RANK - meld.top) & 15:
            return None
    else:  # a card of a wild's rank, in the naturals' suit (any, for wilds alone)
        held = idx.suits[meld.naturals[0] % NIBBLE] if meld.naturals else idx.held
        if not held & sum(1 << r for r in set(meld.wilds)):
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
