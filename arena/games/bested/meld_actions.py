"""Melds as actions, shared with `bested-solo`: the memoized `play`/`discard` Structs,
an action's meld checked against the hand, and the swap step's offer."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import _DONE, Discard, Done, Play, Swap, card_actions
from arena.games.melds import KIND_NAMES, Meld


@dataclass(eq=False)
class _Actions:
    """Memoized action Structs: the same plays recur in every game, and a legal list is
    built at every decision. Keyed by the meld (its type, naturals and wilds fix the
    rest). `built` maps each memoized action back to the Meld it was built from, by the
    action's identity: an action picked from a legal list (as the referee applies
    `legal[index]`) is applied without parsing it again. An equal action decoded from a
    bot's JSON is another object: it is parsed and checked in full."""

    plays: dict[Meld, Play] = field(default_factory=dict)
    discards: dict[Meld, Discard] = field(default_factory=dict)
    built: dict[int, Meld] = field(default_factory=dict)  # id(memoized action) -> its Meld
    limit: int = 1 << 18

    def play(self, m: Meld) -> Play:
        action = self.plays.get(m)
        if action is None:
            if len(self.plays) > self.limit:
                self.plays.clear()
                self.built.clear()
                self.discards.clear()
            codes = M.card_table().codes
            action = Play(KIND_NAMES[m.kind], tuple(codes[i] for i in m.naturals), m.wilds)
            self.plays[m] = action
            self.built[id(action)] = m
        return action

    def play_list(self, found: list[Meld]) -> list[Play]:
        """The plays of these melds, in order (`play` for each, with the common case,
        a play met before, inlined: this runs at every decision)."""
        get = self.plays.get
        out = []
        for m in found:
            action = get(m)
            out.append(self.play(m) if action is None else action)
        return out

    def meld_of(self, action: Play | Discard) -> Meld | None:
        """The Meld this very action object was memoized for, or None (another object)."""
        return self.built.get(id(action))

    def discard(self, m: Meld) -> Discard:
        action = self.discards.get(m)
        if action is None:
            if len(self.discards) > self.limit:
                self.discards.clear()
                self.built.clear()
                self.plays.clear()
            codes = M.card_table().codes
            action = Discard(KIND_NAMES[m.kind], tuple(codes[i] for i in m.naturals), m.wilds)
            self.discards[m] = action
            self.built[id(action)] = m
        return action


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
        raise IllegalAction(action, f"you hold {wilds} wild(s), not {len(action.wilds)}")
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
        code = M.card_table().codes[natural]
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
