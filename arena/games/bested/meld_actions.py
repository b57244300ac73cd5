"""Melds as actions, shared with `bested-solo`: the memoized `play`/`discard` Structs,
an action's meld checked against the hand, and the swap step's offer."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import _DONE, Discard, Done, Play, Swap
from arena.games.melds import KIND_NAMES, Meld


@dataclass(eq=False)
class _Actions:
    """Memoized action Structs: the same plays recur in every game."""

    plays: dict[tuple[int, tuple[int, ...], tuple[int, ...]], Play] = field(default_factory=dict)
    discards: dict[tuple[int, tuple[int, ...], tuple[int, ...]], Discard] = field(
        default_factory=dict
    )
    limit: int = 1 << 18

    def play(self, m: Meld) -> Play:
        key = (m.kind, m.naturals, m.wilds)
        action = self.plays.get(key)
        if action is None:
            if len(self.plays) > self.limit:
                self.plays.clear()
            codes = M.card_table().codes
            action = Play(KIND_NAMES[m.kind], tuple(codes[i] for i in m.naturals), m.wilds)
            self.plays[key] = action
        return action

    def discard(self, m: Meld) -> Discard:
        key = (m.kind, m.naturals, m.wilds)
        action = self.discards.get(key)
        if action is None:
            if len(self.discards) > self.limit:
                self.discards.clear()
            codes = M.card_table().codes
            action = Discard(KIND_NAMES[m.kind], tuple(codes[i] for i in m.naturals), m.wilds)
            self.discards[key] = action
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
    codes = M.card_table().codes
    return [_DONE, *(Swap(codes[c]) for c in pending.naturals)]
