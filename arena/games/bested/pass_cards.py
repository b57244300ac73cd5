"""Using a held Pass Card in `bested`: a bet, a gift, a card taken as a wild, a meld
discarded, or nothing."""

from __future__ import annotations

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import (
    _DECLINE,
    PASS_CARDS,
    BestedAction,
    Bet,
    Discard,
    Give,
    TakeWild,
)
from arena.games.bested.events import BetPlaced, Declined, Gave, TookWild
from arena.games.bested.meld_actions import checked_meld, refuse_needless_wild
from arena.games.bested.options import BET_CARDS
from arena.games.bested.swap import SwapStep


class PassCardUses(SwapStep):
    """The Pass Card being resolved, used by its holder."""

    def _resolve(self, seat: int, action: BestedAction) -> BestedAction:
        k = self.resolving
        assert k is not None
        name = PASS_CARDS[k]
        shed = False
        if isinstance(action, Bet):
            if k not in (5, 6):
                raise IllegalAction(action, f"{name} offers no bet")
            if self._bets_left(seat) <= 0:
                raise IllegalAction(action, f"all your {BET_CARDS} bet cards are out")
            if action.on not in self.holders():
                raise IllegalAction(action, "bet on a player still holding cards")
            self.bets.append((seat, action.on))
            self._emit(BetPlaced(seat, action.on))
            canonical: BestedAction = action
        elif isinstance(action, Give):
            if k != 6:
                raise IllegalAction(action, f"{name} gives no card")
            canonical = self._give(seat, action)
            shed = self.size(seat) == 0
        elif isinstance(action, TakeWild):
            if k not in (5, 3):
                raise IllegalAction(action, f"{name} takes no wild")
            c = M.card_table().parse(action.card)
            if c is None or c not in self._takeable():
                listed = " ".join(M.card_table().encode(self._takeable())) or "none"
                again = c in self.taken_in_round and c in self.trick_cards
                why = "it was taken as a wild earlier in this round; " if again else ""
                raise IllegalAction(
                    action,
                    f"{why}take a card played in this trick and not yet taken as a wild this "
                    f"round: {listed}",
                )
            self.taken.add(c)
            self.taken_in_round.add(c)
            self.wilds[seat].append(c)
            self.wilds[seat].sort()
            self._emit(TookWild(seat, action.card))
            canonical = action
        elif isinstance(action, Discard):
            if k != 4:
                raise IllegalAction(action, f"{name} discards nothing")
            return self._discard(seat, action)  # resolved once the meld is final
        else:
            if k not in (5, 3):
                raise IllegalAction(action, f"{name} must be used: it cannot be declined")
            self._emit(Declined(seat, name))
            canonical = _DECLINE
        self._resolved(seat, shed)
        return canonical

    def _give(self, seat: int, action: Give) -> Give:
        c = M.card_table().parse(action.card)
        hand, wilds = self.hands[seat], self.wilds[seat]
        if c is None or (c not in hand and c not in wilds):
            raise IllegalAction(action, f"{action.card!r} is not a card of your hand")
        if c in wilds and c != wilds[0]:
            first = M.code_of(wilds[0])
            raise IllegalAction(
                action, f"every wild is the same gift: give your first wild, {first}"
            )
        if action.to == seat or action.to not in self.holders():
            raise IllegalAction(action, "give to another player still holding cards")
        is_wild = c in wilds
        # arena's ruling: a wild given stays a wild (it passes as it lies in the hand).
        if is_wild:
            wilds.remove(c)
            self.wilds[action.to].append(c)
            self.wilds[action.to].sort()
        else:
            hand.remove(c)
            self.hands[action.to].append(c)
            self.hands[action.to].sort()
        pair = (seat, action.to)
        others = tuple(s for s in range(self.players) if s not in pair)
        self._emit(Gave(seat, action.to, action.card, is_wild), pair)
        if others:
            self._emit(Gave(seat, action.to, None, None), others)
        return action

    def _discard(self, seat: int, action: Discard) -> Discard:
        hand, wilds = self.hands[seat], len(self.wilds[seat])
        meld = checked_meld(self._memo, action, hand, wilds, self.rules.kinds)
        # Only the cards leaving the hand matter: the canonical form is the first listed
        # meld taking out the same cards. Cards that only a meld with a wild where a
        # natural could stand takes out are reached by a swap (arena's ruling). Without
        # wilds every meld of the hand is listed, and is the only one taking its cards.
        rep = meld if not wilds else M.removals(hand, wilds, self.rules.kinds).get(meld.key)
        if rep is None:
            refuse_needless_wild(action, meld, hand)
            raise AssertionError("a meld with wilds only where needed is always listed")
        self._hold(seat, rep)
        return self._memo.discard(rep)
