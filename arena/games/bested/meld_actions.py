"""Melds as actions, shared with `bested-solo`: the memoized `play`/`discard` Structs,
an action's meld checked against the hand, and the swap step's offer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TypeVar

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import _DONE, Discard, Done, Play, Swap, card_actions
from arena.games.melds import KIND_NAMES, Meld, code_of
from arena.games.text import counted

A = TypeVar("A", Play, Discard)


@dataclass(eq=False)
class _Actions:
    """Memoized action Structs: the same plays recur in every game, and a legal list is
    built at every decision. Keyed by the meld (its type, naturals and wilds fix the
    rest). `built` maps each memoized action back to the Meld it was built from, by the
    action's identity: an action picked from a legal list (as the referee applies
    `legal[index]`) is applied without parsing it again. An equal action decoded from a
    bot's JSON is another object: it is parsed and checked in full.

    The melds of legal lists come from melds.py's tables, the same object each time, so
    their actions are also found by the meld's identity (`play_of`, `discard_of`), without
    hashing the meld: `kept` holds every meld whose id is a key there (an id names one
    object only while it lives). Everything is dropped together when it grows too big."""

    plays: dict[Meld, Play] = field(default_factory=dict)
    discards: dict[Meld, Discard] = field(default_factory=dict)
    built: dict[int, Meld] = field(default_factory=dict)  # id(memoized action) -> its Meld
    play_of: dict[int, Play] = field(default_factory=dict)  # id(meld in `kept`) -> its play
    discard_of: dict[int, Discard] = field(default_factory=dict)  # the same for discards
    kept: dict[int, Meld] = field(default_factory=dict)  # id -> meld, kept alive
    limit: int = 1 << 18

    def __deepcopy__(self, memo: dict[int, object]) -> _Actions:
        """The process's one memo (`actions_memo`) is shared by every game, copies of a
        game included: a copy of it would hold ids of objects it does not keep alive."""
        return self

    def __reduce__(self) -> tuple[Callable[[], _Actions], tuple[()]]:
        return actions_memo, ()

    def _room(self) -> None:
        """Drop everything once a memo outgrows `limit` (bounded memory in long runs)."""
        if max(len(self.plays), len(self.discards), len(self.kept)) > self.limit:
            for memo in (self.plays, self.discards, self.built, self.play_of, self.discard_of):
                memo.clear()
            self.kept.clear()

    def _action(self, m: Meld, kind: type[A], memo: dict[Meld, A]) -> A:
        """The memoized `kind` (Play or Discard) of `m`, built the first time."""
        action = memo.get(m)
        if action is None:
            self._room()
            action = kind(KIND_NAMES[m.kind], tuple(map(code_of, m.naturals)), m.wilds)
            memo[m] = action
            self.built[id(action)] = m
        return action

    def _listed(self, found: list[Meld], by_id: dict[int, A], make: Callable[[Meld], A]) -> list[A]:
        """The actions of these melds, in order (`make` for each): found by each meld's
        identity, all at once, in the common case where every one was met before (this
        runs at every decision)."""
        try:
            return list(map(by_id.__getitem__, map(id, found)))
        except KeyError:
            pass
        out = []
        for m in found:
            action = by_id.get(id(m))
            if action is None:
                action = make(m)
                by_id[id(m)] = action
                self.kept[id(m)] = m
            out.append(action)
        return out

    def play(self, m: Meld) -> Play:
        return self._action(m, Play, self.plays)

    def play_list(self, found: list[Meld]) -> list[Play]:
        """The plays of these melds, in order (`_listed`)."""
        return self._listed(found, self.play_of, self.play)

    def canonical_play(self, action: Play, m: Meld) -> Play:
        """The memoized play of `m`, the meld `action` names: `action` itself when the
        memo built it (`meld_of`), without looking `m` up again."""
        return action if self.built.get(id(action)) is m else self.play(m)

    def meld_of(self, action: Play | Discard) -> Meld | None:
        """The Meld this very action object was memoized for, or None (another object)."""
        return self.built.get(id(action))

    def discard(self, m: Meld) -> Discard:
        return self._action(m, Discard, self.discards)

    def discard_list(self, found: list[Meld]) -> list[Discard]:
        """The discards of these melds, in order (`_listed`)."""
        return self._listed(found, self.discard_of, self.discard)


@cache
def actions_memo() -> _Actions:
    return _Actions()


def parse_meld(action: Play | Discard, hand: list[int], wilds: int, kinds: tuple[int, ...]) -> Meld:
    """The meld an action names, checked against the hand; IllegalAction says why not."""
    kind = M.KIND_OF.get(action.meld)
    if kind is None or kind not in kinds:
        allowed = ", ".join(KIND_NAMES[k] for k in kinds)
        raise IllegalAction(action, f"{action.meld!r} is not a meld of this game ({allowed})")
    ids = M.card_table().from_hand(action, action.cards, hand, "a natural card of your hand")
    for r in action.wilds:
        if not isinstance(r, int) or isinstance(r, bool):
            raise IllegalAction(action, "wilds are declared as ranks (integers 0-17)")
    if len(action.wilds) > wilds:
        raise IllegalAction(action, f"you hold {counted(wilds, 'wild')}, not {len(action.wilds)}")
    meld = M.check(kind, ids, action.wilds)
    if isinstance(meld, str):
        raise IllegalAction(action, meld)
    return meld


def checked_meld(
    memo: _Actions, action: Play | Discard, hand: list[int], wilds: int, kinds: tuple[int, ...]
) -> Meld:
    """`parse_meld`, skipping the parse for an action the memo built (one taken from a
    legal list) whose meld this hand and these wilds can make: `parse_meld` would return
    that very meld. Any other action, or a meld the hand cannot make, is parsed and
    checked in full (so an illegal action is refused for the same reason)."""
    meld = memo.meld_of(action)
    if meld is None or meld.kind not in kinds or len(meld.wilds) > wilds:
        return parse_meld(action, hand, wilds, kinds)
    for c in meld.naturals:
        if c not in hand:
            return parse_meld(action, hand, wilds, kinds)
    return meld


def refuse_needless_wild(action: Play | Discard, meld: Meld, hand: list[int]) -> None:
    """arena's ruling: a meld is played with wilds only where no natural card of the hand
    could stand; a wild in a natural's place is a `swap` after the play."""
    natural = M.needless_wild(meld, hand)
    if natural is not None:
        code = code_of(natural)
        verb = "play" if isinstance(action, Play) else "discard"
        raise IllegalAction(
            action,
            f"{code} of your hand can stand where a wild is used: {verb} the meld with"
            f" {code}, then swap it for a wild",
        )


def swap_options(pending: Meld | None) -> list[Swap | Done]:
    """The swap step's offer: `done` first (a bot answering 0 keeps the meld it chose),
    then one swap per natural card of the pending meld."""
    assert pending is not None
    swaps = card_actions().swap
    return [_DONE, *(swaps[c] for c in pending.naturals)]
