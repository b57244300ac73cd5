"""Fixed schedules: round robin and gauntlet, every table of the field or a balanced sample."""

from __future__ import annotations

import itertools
import math
import random
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence

from arena.games.text import counted
from arena.league.schedule.deals import Game, Table, check_field, table_games

#: nodes a table or pairing search may visit before it settles for the best found so far
SEARCH_LIMIT = 50_000
#: random swaps tried to mend a broken packing before the exact search decides
_SWAPS = 60

Members = tuple[int, ...]


def balanced_tables(bots: Sequence[str], size: int, count: int, seed: str) -> list[Table]:
    """`count` distinct tables of `size` bots, each bot at (nearly) as many tables as any other.

    Appearance counts differ by at most 1. Up to half of all subsets, the tables are drawn
    greedily in passes (`_greedy_tables`), so the balance holds at every prefix of the list
    too and pairs of bots meet about equally often. Beyond half, the tables left out are
    drawn that way instead and the rest are returned in seeded order (balanced in total).
    Members keep the order of `bots`.
    """
    n = len(bots)
    if not 1 <= size <= n:
        raise ValueError(f"a table of {size} cannot be drawn from {counted(n, 'bot')}")
    total = math.comb(n, size)
    if not 0 <= count <= total:
        raise ValueError(
            f"{counted(count, 'distinct table')} of {size} cannot be drawn from {counted(n, 'bot')}"
        )
    if 2 * count <= total:
        return _greedy_tables(bots, size, count, seed)
    left_out = set(_greedy_tables(bots, size, total - count, seed))
    tables = [t for t in itertools.combinations(bots, size) if t not in left_out]
    random.Random(seed).shuffle(tables)
    return tables


def _greedy_tables(bots: Sequence[str], size: int, count: int, seed: str) -> list[Table]:
    """Tables drawn greedily and seeded, in passes, balanced at every prefix.

    Each next table takes bots with the fewest tables so far (all of them if fewer than
    `size`, topped up from the bots with one more), so appearance counts never differ by
    more than 1. Among the eligible bots it adds, one at a time, the bot that has met the
    bots already chosen least often (ties broken by seeded noise). A table drawn before, or
    one that would leave the rest of the pass (or the next pass) only tables drawn before,
    is passed over for the next best (bounded search, `SEARCH_LIMIT` nodes); only if no
    eligible table is new is a table drawn twice (not seen below half of all subsets).
    `_Greedy` draws the same tables as that search does, mostly without running it.
    """
    greedy = _Greedy(len(bots), size, seed)
    return [tuple(bots[i] for i in greedy.draw()) for _ in range(count)]


class _Witness:
    """A packing of the floor into new tables (plus the few bots left over): the proof that
    the rest of the pass can still be drawn, kept up to date table by table."""

    def __init__(self, blocks: Iterable[Members], rest: Members) -> None:
        self.block_of = {i: block for block in blocks for i in block}
        self.rest = rest


class _Greedy:
    """The running state of `_greedy_tables`, drawing one table at a time.

    Each table is first drawn the fast way (`_fast`): the cheapest bot of each step comes
    from bit-sliced meeting counts (one bit-set per binary digit of every bot's counts) and
    the seeded noise, and the finishability check from a count far from the end of a pass,
    else from mending a packing of the floor (`_Witness`) where the table broke it. That is
    the search's first leaf and a proof that the search accepts it. When the leaf was drawn
    before or no proof turns up, the search itself (`_Draw`) draws the table. Either way the
    tables are those of the search alone, for the same seed.
    """

    def __init__(self, n: int, size: int, seed: str) -> None:
        self.n, self.size = n, size
        self.rng = random.Random(seed)
        self.mend = random.Random(0)  # shuffles for the witness only: never the tables
        self.everyone = (1 << n) - 1
        # the bots with the fewest tables: a bit-set, their count, and a byte i for bot i
        self.floor, self.floor_count, self.on_floor = self.everyone, n, bytearray(b"\1" * n)
        self.planes: list[list[int]] = [[] for _ in range(n)]  # meetings of a bot, bit-sliced
        self.met = [0] * n  # the bots each bot has met, a bit-set (its planes OR-ed)
        self.drawn: set[Members] = set()
        self.holding: list[list[Members]] = [[] for _ in range(n)]  # drawn tables of a bot
        self.witness: _Witness | None = None  # a packing of the floor, when one is kept
        self.most_held = 0  # the most drawn tables holding one bot
        #: how many tables hold a given set of r bots, by r
        self.around = [math.comb(n - r, size - r) for r in range(size)]

    def draw(self) -> Members:
        """The next table: the greedy search's choice, found fast when it can be."""
        noise = _Noise(self.rng, self.n)
        members = self._fast(noise)
        if members is None:
            draw = _Draw(self, noise.floats())
            members = draw.table(_indices(self.floor))
            self.witness = None if draw.proof is None else _Witness(*draw.proof)
        self._record(members)
        return members

    def _record(self, members: Members) -> None:
        """Count the table's meetings and the bots' tables, and move the floor on."""
        if members not in self.drawn:
            self.drawn.add(members)
            for i in members:
                self.holding[i].append(members)
            self.most_held = max(self.most_held, *(len(self.holding[i]) for i in members))
        bits = _bits(members)
        for i in members:
            _count(self.planes[i], bits ^ 1 << i)
            self.met[i] |= bits ^ 1 << i
        if self.floor_count >= self.size:
            self.floor &= ~bits
            self.floor_count -= self.size
            for i in members:
                self.on_floor[i] = 0
            if not self.floor_count:  # a new pass
                self.floor, self.floor_count = self.everyone, self.n
                self.on_floor[:] = b"\1" * self.n
        else:  # a new pass too, without the bots that topped this table up
            up = [i for i in members if not self.floor >> i & 1]
            self.floor, self.floor_count = self.everyone & ~_bits(up), self.n - len(up)
            self.on_floor[:] = b"\1" * self.n
            for i in up:
                self.on_floor[i] = 0

    def _fast(self, noise: _Noise) -> Members | None:
        """The search's first leaf if it is new and provably finishable (then `witness` is
        brought up to date), else None: the search must decide."""
        size = self.size
        if self.floor_count >= size:
            chosen: list[int] = []
            pool = self.floor
            bytes_ = int.from_bytes(self.on_floor, "little")
            cheapest = _ByNoise(noise, bytes_, self.floor_count)
        else:
            chosen = _indices(self.floor)
            pool = self.everyone & ~self.floor
            bytes_ = int.from_bytes(self.on_floor.translate(_FLIP), "little")
            cheapest = _ByNoise(noise, bytes_, pool.bit_count())
        met = 0
        for c in chosen:
            met |= self.met[c]
        cost: list[int] | None = None  # meetings with the bots chosen, once some met them all
        while True:
            best = pool & ~met  # the bots that met none of those chosen, if any
            if not best:
                if cost is None:
                    cost = _total(self.planes[c] for c in chosen)
                best = pool
                for plane in reversed(cost):  # keep the lowest sums, digit by digit
                    lower = best & ~plane
                    if lower:
                        best = lower
            i = cheapest.lowest(best)
            chosen.append(i)
            if len(chosen) == size:
                break
            pool ^= 1 << i
            met |= self.met[i]
            if cost is not None:
                cost = _add(cost, self.planes[i])
        members = tuple(sorted(chosen))
        if members in self.drawn or not self._finishable(members):
            return None
        return members

    def _finishable(self, members: Members) -> bool:
        """Whether the floor after `members` can provably still be drawn (what `_Draw`'s
        check answers). Far from the end of a pass a count proves it: then no witness is
        kept. Else the witness is mended where `members` broke it, or packed anew."""
        size, bits = self.size, _bits(members)
        extra: tuple[Members, ...] = (members,)  # the next pass may not repeat the table
        if self.floor_count < size:  # the next pass, without the bots that topped this up
            left = self.everyone & ~(bits & ~self.floor)
        elif self.floor_count == size:  # the pass is done: the whole next pass
            left = self.everyone
        else:
            left, extra = self.floor & ~bits, ()
        count = left.bit_count()
        held = self.most_held + len(extra)  # at most this many banned tables hold a bot
        # Any split of `left` into tables has a banned table B mended by swapping a bot x of
        # B with a bot y of another table C: at most `held` y make B - x + y banned (it holds
        # the bots of B - x, when size > 1), and at most `held` pairs (C, y) make C - y + x
        # banned. So beyond 2 * held such pairs, all banned tables can be mended one by one;
        # the rest must fit a new table too.
        rest = count % size
        roomy = not rest or held < self.around[rest]
        if size > 1 and count - rest - size > 2 * held and roomy:
            self.witness = None
            return True
        witness = self.witness
        if extra or witness is None:
            witness = self._pack(_indices(left), extra)
            self.witness = witness
            return witness is not None
        taken = set(members)
        block_of = witness.block_of
        broken = {block_of[i] for i in members if i in block_of}
        loose = [i for block in broken for i in block if i not in taken]
        loose += [i for i in witness.rest if i not in taken]
        packed = self._packing(loose, ())
        for more in (2, 4):  # no luck: loosen a few more blocks of the packing
            if packed is not None:
                break
            whole = list({*block_of.values()} - broken)
            loosened = self.mend.sample(whole, min(more, len(whole)))
            broken.update(loosened)
            loose += [i for block in loosened for i in block]
            packed = self._packing(list(loose), ())
        if packed is None:
            return False
        blocks, witness.rest = packed
        for block in broken:
            for i in block:
                del block_of[i]
        for block in blocks:
            for i in block:
                block_of[i] = block
        return True

    def _pack(self, bots: list[int], extra: tuple[Members, ...]) -> _Witness | None:
        """A witness packing all of `bots` (shuffled first), or None."""
        self.mend.shuffle(bots)
        packed = self._packing(bots, extra)
        return None if packed is None else _Witness(*packed)

    def _packing(
        self, bots: list[int], extra: tuple[Members, ...]
    ) -> tuple[list[Members], Members] | None:
        """`bots` in new tables (none drawn, none in `extra`) and the rest, which must still
        fit a new table; mended by random swaps, or None when that does not find one."""
        size = self.size
        whole = len(bots) // size
        parts = [bots[k * size : (k + 1) * size] for k in range(whole)]
        if len(bots) % size:
            parts.append(bots[whole * size :])

        def fits(k: int) -> bool:
            part = tuple(sorted(parts[k]))
            if k == whole:
                return self.room(part, extra)
            return part not in self.drawn and part not in extra

        bad = [k for k in range(len(parts)) if not fits(k)]
        swaps = _SWAPS * len(bad)
        while bad:
            if len(parts) < 2 or swaps <= 0:
                return None
            swaps -= 1
            k, m = bad[-1], self.mend.randrange(len(parts))
            if m == k:
                continue
            p, q = self.mend.randrange(len(parts[k])), self.mend.randrange(len(parts[m]))
            parts[k][p], parts[m][q] = parts[m][q], parts[k][p]
            if fits(k) and fits(m):
                bad.pop()
                if m in bad:
                    bad.remove(m)
            else:
                parts[k][p], parts[m][q] = parts[m][q], parts[k][p]
        blocks = [tuple(sorted(part)) for part in parts[:whole]]
        return blocks, tuple(sorted(parts[whole])) if whole < len(parts) else ()

    def room(self, rest: Members, extra: Sequence[Members]) -> bool:
        """Whether some table of `size` holding all of `rest` is neither drawn nor in
        `extra` (`rest` is smaller than a table; an empty rest needs no table)."""
        if not rest:
            return True
        tables = self.around[len(rest)]
        fewest = min((self.holding[i] for i in rest), key=len)
        if len(fewest) + len(extra) < tables:
            return True
        held = set(rest)
        supersets = sum(1 for t in fewest if held.issubset(t))
        return tables > supersets + sum(1 for t in extra if held.issubset(t))


class _Noise:
    """One table's seeded noise: the `n` values `[rng.random() for _ in range(n)]` would
    give (leaving `rng` in the same state), read as integers from the generator's words.

    `random()` builds each value from two 32-bit words a, b as ((a >> 5) * 2**26 + (b >> 6))
    / 2**53, and `getrandbits(64 * n)` returns the same words, lowest first; so a bot's noise
    compares as that 53-bit integer, and the top byte of a sorts bots under a threshold in
    one pass over bytes (pinned against `random()` by the tests).
    """

    def __init__(self, rng: random.Random, n: int) -> None:
        raw = rng.getrandbits(64 * n).to_bytes(8 * n, "little")
        self.n, self.tops = n, raw[3::8]  # byte 3 of each 8: a's top byte, a >> 24
        self.words = array(_WORD, raw)
        if sys.byteorder == "big":
            self.words.byteswap()
        self.high = self.words[0::2]  # each bot's word a

    def key(self, i: int) -> int:
        """Bot `i`'s noise times 2**53: what `random()` returned for it, as an integer."""
        words = self.words
        return (words[2 * i] >> 5) << 26 | words[2 * i + 1] >> 6

    def floats(self) -> list[float]:
        """Every bot's noise, as `random()` returned it."""
        return [self.key(i) / 2**53 for i in range(self.n)]

    def order(self, bots: list[int]) -> list[int]:
        """`bots` (ascending) in noise order, ties to the lower index: by word a, which
        orders them unless two share a >> 5 (then they are ordered by `key`)."""
        high = self.high
        out = sorted(bots, key=high.__getitem__)
        if len(set(map((5).__rrshift__, map(high.__getitem__, out)))) < len(out):  # a >> 5
            return sorted(bots, key=self.key)
        return out

    def band(self, low: int, high: int, among: int) -> list[int]:
        """The bots of byte-set `among` whose noise is in [low / 256, high / 256), in noise
        order (ties to the lower index)."""
        picked = int.from_bytes(self.tops.translate(_UNDER[high]), "little") & among
        if low:
            picked &= ~int.from_bytes(self.tops.translate(_UNDER[low]), "little")
        digits = picked.to_bytes(self.n, "little")
        found = []
        i = digits.find(1)
        while i >= 0:
            found.append(i)
            i = digits.find(1, i + 1)
        return self.order(found)


#: translation tables for `_Noise.band`: byte values below the index to 1, the rest to 0
_UNDER = [bytes(v < top for v in range(256)) for top in range(257)]
#: a translation table swapping bytes 0 and 1
_FLIP = bytes([1, 0, *range(2, 256)])
#: an array type code of 32-bit words
_WORD = next(code for code in "IL" if array(code).itemsize == 4)


class _ByNoise:
    """The lowest-noise bot of a set of a table's pool (ties to the lower index)."""

    def __init__(self, noise: _Noise, pool: int, pooled: int) -> None:
        self.noise, self.pool, self.pooled = noise, pool, pooled  # pool: a byte-set
        self.top = 0  # `prefix`: the pool's bots with noise under top / 256, in noise order
        self.prefix: list[int] = []

    def lowest(self, among: int) -> int:
        """The bot of bit-set `among` (part of the pool) with the lowest noise."""
        for i in self.prefix:
            if among >> i & 1:
                return i
        count = among.bit_count()
        while True:
            if count * count <= 8 * self.pooled:  # cheaper than sorting ~8 * pooled / count
                return self.noise.order(list(_iter_bits(among)))[0]
            top = min(256, max(2 * self.top, -(-2048 // count)))  # about 8 of `among` below
            band = self.noise.band(self.top, top, self.pool)
            self.top = top
            self.prefix += band
            for i in band:
                if among >> i & 1:
                    return i


class _Draw:
    """One table for `balanced_tables` by the bounded search: greedy order, then past dead
    ends. `_Greedy` falls back on it; it keeps its own node count and `SEARCH_LIMIT`."""

    def __init__(self, state: _Greedy, noise: list[float]) -> None:
        self.state, self.n, self.size, self.noise = state, state.n, state.size, noise
        self.nodes = 0
        #: the packing that proved the chosen table finishable (None: assumed, or none)
        self.proof: tuple[list[Members], Members] | None = None

    def spend(self) -> bool:
        """Count a search node; False once the budget is spent."""
        self.nodes += 1
        return self.nodes <= SEARCH_LIMIT

    def table(self, floor: list[int]) -> Members:
        """The best new table from the bots on the floor (topped up if they are too few)."""
        within = len(floor) >= self.size
        chosen = [] if within else floor
        on_floor = set(floor)
        pool = floor if within else [i for i in range(self.n) if i not in on_floor]
        drawn, planes = self.state.drawn, self.state.planes
        first: list[Members] = []  # the greedy choice, new or not
        new: list[Members] = []  # the first new table, finishable or not

        def search(chosen: list[int], pool: list[int]) -> Members | None:
            if len(chosen) == self.size:
                members = tuple(sorted(chosen))
                first[:] = first or [members]
                if members in drawn:
                    return None
                new[:] = new or [members]
                # the next floor: the rest of this pass, or else the whole next pass
                left = on_floor - set(members) if within else set()
                left = left or set(range(self.n)) - (set(members) - on_floor)
                return members if self.finishable(sorted(left), (members,)) else None
            cost = _total(planes[c] for c in chosen)  # meetings with the bots chosen
            order = sorted(pool, key=lambda i: (_entry(cost, i), self.noise[i]))
            rest = list(pool)
            for i in order:
                rest.remove(i)  # siblings and their subtrees skip i: each set is visited once
                found = search([*chosen, i], rest)
                if found is not None:
                    return found
                if not self.spend() or len(rest) < self.size - len(chosen):
                    break
            return None

        found = search(chosen, pool)
        if found is None:
            self.proof = None
        return found or (new or first)[0]

    def finishable(self, left: list[int], extra: tuple[Members, ...]) -> bool:
        """Whether the bots `left` (sorted) on the floor can still sit at new tables this
        pass, tables in `extra` counting as drawn. A depth-first search over the tables of
        the lowest bot (over all tables when they cannot all be seated), in lexicographic
        order; out of budget it assumes they can. Records the packing found in `proof`."""
        self.proof = None
        settled = self.settled(left, extra)
        if settled is not None:
            self.proof = ([], tuple(left)) if settled else None
            return settled
        drawn = self.state.drawn
        stack = [(left, self.options(len(left)))]
        path: list[Members] = []
        while stack:
            here, options = stack[-1]
            for at in options:
                if not self.spend():
                    return True  # out of budget: assume it can
                t = tuple(here[k] for k in at)
                if t in drawn or t in extra:
                    continue
                rest = _without(here, at)
                settled = self.settled(rest, extra)
                if settled is None:
                    stack.append((rest, self.options(len(rest))))
                    path.append(t)
                    break
                if settled:
                    self.proof = ([*path, t], tuple(rest))
                    return True
            else:
                stack.pop()
                if path:
                    path.pop()
        return False

    def settled(self, left: list[int], extra: tuple[Members, ...]) -> bool | None:
        """True or False when `left` is too small to search (none left, or fewer than a
        table, which must still fit a new table with others), else None."""
        if not left:
            return True
        if len(left) < self.size:
            return self.state.room(tuple(left), extra)
        return None

    def options(self, count: int) -> Iterator[tuple[int, ...]]:
        """Positions of the tables to try among `count` sorted bots, in lexicographic order:
        those holding the first bot when the bots can all be seated (a partition), else all."""
        if count % self.size:
            return itertools.combinations(range(count), self.size)
        return ((0, *c) for c in itertools.combinations(range(1, count), self.size - 1))


def _without(bots: list[int], at: tuple[int, ...]) -> list[int]:
    """`bots` without the ones at positions `at` (ascending)."""
    out = bots[: at[0]]
    for a, b in itertools.pairwise((*at, len(bots))):
        out += bots[a + 1 : b]
    return out


def _bits(bots: Iterable[int]) -> int:
    """The bit-set of `bots`."""
    bits = 0
    for i in bots:
        bits |= 1 << i
    return bits


def _iter_bits(bits: int) -> Iterator[int]:
    """The members of a bit-set, ascending."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _indices(bits: int) -> list[int]:
    """The members of a bit-set, ascending, read in one pass over its binary digits."""
    digits = bin(bits)[:1:-1]
    return list(itertools.compress(range(len(digits)), map("1".__eq__, digits)))


def _count(planes: list[int], bits: int) -> None:
    """Add 1 to the entries of bit-set `bits` in a bit-sliced vector of counts, in place
    (plane k holds binary digit k of every entry)."""
    for k, plane in enumerate(planes):
        planes[k] = plane ^ bits
        bits &= plane
        if not bits:
            return
    planes.append(bits)


def _entry(planes: list[int], i: int) -> int:
    """Entry `i` of a bit-sliced vector of counts."""
    return sum((plane >> i & 1) << k for k, plane in enumerate(planes))


def _total(vectors: Iterable[list[int]]) -> list[int]:
    """The sum of bit-sliced vectors of counts."""
    total: list[int] = []
    for vector in vectors:
        total = _add(total, vector)
    return total


def _add(a: list[int], b: list[int]) -> list[int]:
    """The sum of two bit-sliced vectors of counts, entry by entry (ripple-carry)."""
    if len(a) < len(b):
        a, b = b, a
    out: list[int] = []
    carry = 0
    for k, y in enumerate(b):
        x = a[k]
        half = x ^ y
        out.append(half ^ carry)
        carry = (x & y) | (half & carry)
    for k in range(len(b), len(a)):
        if not carry:
            return out + a[k:]
        out.append(a[k] ^ carry)
        carry &= a[k]
    if carry:
        out.append(carry)
    return out


def _tables(bots: Sequence[str], size: int, max_tables: int | None, seed: str) -> list[Table]:
    """Every `size`-subset of `bots` in seeded order, or a balanced sample of `max_tables`."""
    if max_tables is not None and max_tables < 1:
        raise ValueError(f"max_tables must be at least 1, not {max_tables}")
    if max_tables is not None and math.comb(len(bots), size) > max_tables:
        return balanced_tables(bots, size, max_tables, seed)
    tables = list(itertools.combinations(bots, size))
    random.Random(seed).shuffle(tables)
    return tables


def round_robin(
    bots: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    max_tables: int | None = None,
    book: Sequence[int] = (),
) -> list[Game]:
    """Every `seats`-subset of `bots` plays `deals` deals, each deal in all `seats` rotations.

    When there are more subsets than `max_tables`, `max_tables` tables are drawn by
    `balanced_tables` instead: every bot sits at (nearly) as many tables as every other
    (counts differ by at most 1) and pairs meet about equally often. Tables are numbered in
    seeded order (shuffled, or in the order drawn) and played interleaved (`table_games`).
    """
    check_field(bots, seats, deals)
    tables = _tables(bots, seats, max_tables, f"{seed}:round-robin")
    return table_games(tables, deals, seed, "round-robin", book=book)


def gauntlet(
    challenger: str,
    field: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    max_tables: int | None = None,
    book: Sequence[int] = (),
) -> list[Game]:
    """The challenger at a table with every (seats-1)-subset of `field`, all rotations per deal.

    Beyond `max_tables` subsets, a balanced sample of the field is drawn as in `round_robin`
    (every field bot faces the challenger at nearly as many tables as every other).
    """
    if challenger in field:
        raise ValueError(f"the challenger {challenger!r} is also in the field")
    check_field([challenger, *field], seats, deals)
    others = _tables(field, seats - 1, max_tables, f"{seed}:gauntlet")
    return table_games([(challenger, *t) for t in others], deals, seed, "gauntlet", book=book)
