"""Applying an action in `bested`: checked against the phase, then a wild chosen, a
meld played or a pass (Pass Card uses and the swap step have their own files)."""

from __future__ import annotations

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import (
    _DONE,
    _PASS_NONE,
    _PASSES,
    PASS_CARDS,
    PASS_NUMBER,
    BestedAction,
    Bet,
    ChooseWild,
    Decline,
    Discard,
    Done,
    Give,
    Pass,
    Play,
    Swap,
    TakeWild,
)
from arena.games.bested.events import Passed, WildChosen
from arena.games.bested.meld_actions import checked_meld, refuse_needless_wild
from arena.games.bested.observation import CHOOSE, LEAD, PLAY, RESOLVE, SWAP
from arena.games.bested.pass_cards import PassCardUses
from arena.games.bested.state import AVAILABLE, HELD
from arena.games.melds import KIND_NAMES


class Applying(PassCardUses):
    """`_apply`: the dispatch by phase, and choosing a wild, playing, passing."""

    def _apply(self, seat: int, action: BestedAction) -> BestedAction:
        phase = self.phase
        # The common cases first, by exact type: the chain below checks them the same way.
        if phase in (LEAD, PLAY):
            if type(action) is Play:
                return self._play(seat, action)
            if type(action) is Pass:
                return self._pass(seat, action)
        if phase == SWAP:
            if isinstance(action, Swap):
                return self._swap(seat, action)
            if isinstance(action, Done):
                self._finish(seat)
                return _DONE
            raise IllegalAction(
                action, "your meld is not final yet: swap a natural card of it, or done"
            )
        if isinstance(action, (Swap, Done)):
            raise IllegalAction(action, "no meld of yours awaits a swap")
        if isinstance(action, ChooseWild):
            if phase != CHOOSE:
                raise IllegalAction(
                    action, "wilds are chosen only at the start of a 2-player round"
                )
            return self._choose(seat, action)
        if phase == CHOOSE:
            raise IllegalAction(action, "first choose a card of your hand to turn into a wild")
        if isinstance(action, Play):
            if phase not in (LEAD, PLAY):
                raise IllegalAction(action, "Pass Cards are being resolved: no play now")
            return self._play(seat, action)
        if isinstance(action, Pass):
            if phase not in (LEAD, PLAY):
                raise IllegalAction(action, "Pass Cards are being resolved: no pass now")
            return self._pass(seat, action)
        if phase != RESOLVE:
            raise IllegalAction(action, "play a meld or pass: no Pass Card is being resolved")
        if isinstance(action, (Bet, Give, TakeWild, Discard, Decline)):
            return self._resolve(seat, action)
        raise IllegalAction(action, "not an action of this game")

    def _choose(self, seat: int, action: ChooseWild) -> ChooseWild:
        c = M.card_table().parse(action.card)
        if c is None or c not in self.hands[seat]:
            raise IllegalAction(action, f"{action.card!r} is not a card of your hand")
        self.hands[seat].remove(c)
        self.wilds[seat].append(c)
        self.wilds[seat].sort()
        # The choice is secret: the others learn only that it was made.
        others = tuple(s for s in range(self.players) if s != seat)
        self._emit(WildChosen(seat, action.card), (seat,))
        self._emit(WildChosen(seat, None), others)
        self._choosers.remove(seat)
        if self._choosers:
            self.turn = self._choosers[0]
        else:
            self._new_trick(self.round_leader)
        return action

    def _play(self, seat: int, action: Play) -> Play:
        hand = self.hands[seat]
        meld = checked_meld(self._memo, action, hand, len(self.wilds[seat]), self.rules.kinds)
        if self.phase == PLAY:
            old = self.beat
            assert old is not None
            if meld.kind != old.kind or meld.size != old.size:
                raise IllegalAction(
                    action,
                    f"beat the {KIND_NAMES[old.kind]} of {old.size} with a "
                    f"{KIND_NAMES[old.kind]} of {old.size}",
                )
            if not M.beats(meld, old, self.rules.zero_high):
                raise IllegalAction(
                    action, f"rank {meld.top} does not beat {old.top} (strictly higher needed)"
                )
        if meld.wilds:
            refuse_needless_wild(action, meld, hand)
        canonical = self._memo.canonical_play(action, meld)
        self._hold(seat, meld)
        return canonical

    def _pass(self, seat: int, action: Pass) -> Pass:
        if self.phase == LEAD:
            raise IllegalAction(action, "the leader must play a meld: passing is not allowed")
        if self._others_in_trick(seat):
            name = action.pass_card
            k = PASS_NUMBER.get(name) if name is not None else None
            if k is None or self.pass_state.get(k) != AVAILABLE:
                avail = ", ".join(
                    PASS_CARDS[k]
                    for k in sorted(self.pass_state)
                    if self.pass_state[k] == AVAILABLE
                )
                raise IllegalAction(action, f"take one of the available Pass Cards: {avail}")
            self.pass_state[k] = HELD
            self.pass_holder[k] = seat
        elif action.pass_card is not None:
            # docs/rules.md §5.5: the last player in the trick takes no Pass Card.
            raise IllegalAction(action, "nobody else is in the trick: pass with no Pass Card")
        self.in_trick[seat] = False
        self.passed.append(seat)
        self.last_passer = seat
        self._emit(Passed(seat, action.pass_card))
        self._advance(seat)
        return _PASSES[action.pass_card] if action.pass_card else _PASS_NONE
