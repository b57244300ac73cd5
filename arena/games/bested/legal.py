"""The legal-action generation of `bested`: every action the seat to act may take."""

from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import cast

from arena.games import melds as M
from arena.games.bested.actions import (
    _DECLINE,
    _PASS_NONE,
    _PASSES,
    PASS_CARDS,
    BestedAction,
    Pass,
    card_actions,
)
from arena.games.bested.meld_actions import swap_options
from arena.games.bested.observation import CHOOSE, LEAD, OVER, PLAY, SWAP
from arena.games.bested.state import AVAILABLE, BestedTable

#: the passes offered, by every Pass Card's number and state (`_pass_options`), read only
_PASS_OPTIONS: dict[tuple[object, ...], list[Pass]] = {}
_NO_PASS_CARD = [_PASS_NONE]


class LegalActions(BestedTable):
    """The legal actions: plays from the memo, passes, the swap step, Pass Card uses.
    Actions are shared Structs (the memo, `card_actions`), not built per decision."""

    def legal_actions(self) -> list[BestedAction]:
        phase = self.phase
        if phase == OVER:
            return []
        seat = self.turn
        hand = self.hands[seat]
        if phase == CHOOSE:
            choose = card_actions().choose_wild
            return [choose[c] for c in reversed(hand)]
        if phase == LEAD:
            found = M.all_melds(hand, len(self.wilds[seat]), self.rules.kinds)
            return cast(list[BestedAction], self._memo.play_list(found))
        if phase == PLAY:
            assert self.beat is not None
            found = M.beating(hand, len(self.wilds[seat]), self.beat, self.rules.zero_high)
            out = cast(list[BestedAction], self._memo.play_list(found))  # a new list
            out += self._pass_options(seat)
            return out
        if phase == SWAP:
            return list(swap_options(self.pending))
        return self._resolve_options(seat)

    def _pass_options(self, seat: int) -> list[Pass]:
        """The passes `seat` may make (read only: the lists are shared)."""
        # docs/rules.md §5.5: a passing player takes one available Pass Card of their choice,
        # unless nobody else remains in the trick (then none, and the trick ends).
        if not self._others_in_trick(seat):
            return _NO_PASS_CARD
        state = self.pass_state
        key = (*state, *state.values())
        passes = _PASS_OPTIONS.get(key)
        if passes is None:  # a few hundred at most: each built once, and kept
            passes = [_PASSES[PASS_CARDS[k]] for k, st in sorted(state.items()) if st == AVAILABLE]
            _PASS_OPTIONS[key] = passes
        return passes

    def _resolve_options(self, seat: int) -> list[BestedAction]:
        card = self.resolving
        out: list[BestedAction] = []
        holders = self.holders()
        actions = card_actions()
        if card in (6, 5) and self._bets_left(seat) > 0:
            out += map(actions.bet.__getitem__, holders)
        if card == 6:
            give = [*reversed(self.hands[seat])]
            if self.wilds[seat]:
                give.append(self.wilds[seat][0])  # any wild is the same gift: the first
            to = [s for s in holders if s != seat]
            if len(to) > 1:  # each card's gifts to every other holder, in seat order
                out += chain.from_iterable(
                    map(itemgetter(*to), map(actions.give.__getitem__, give))
                )
            elif to:
                out += map(itemgetter(to[0]), map(actions.give.__getitem__, give))
        if card in (5, 3):
            out += map(actions.take_wild.__getitem__, self._takeable())
            out.append(_DECLINE)
        if card == 4:
            reps = M.removal_melds(self.hands[seat], len(self.wilds[seat]), self.rules.kinds)
            out.extend(self._memo.discard_list(reps))
        return out
