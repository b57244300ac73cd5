"""The flow of a `bested` trick: whose turn is next, the trick's end, and its held Pass
Cards resolving in order before the next trick's lead."""

from __future__ import annotations

from itertools import filterfalse

from arena.games.bested.actions import LEAD_NEXT, PASS_CARDS
from arena.games.bested.events import PassCardRemoved, TrickEnded
from arena.games.bested.observation import RESOLVE
from arena.games.bested.scoring import Scoring
from arena.games.bested.state import AVAILABLE, HELD, REMOVED


class Tricks(Scoring):
    """The turn order in a trick, its end, and the Pass Card resolutions in order."""

    def _advance(self, seat: int) -> None:
        """Clockwise to the next player still in the trick (the same one when it is alone);
        nobody left ends the trick (docs/rules.md §5.5)."""
        n = self.players
        for i in range(1, n + 1):
            s = (seat + i) % n
            if self.in_trick[s]:
                self.turn = s
                return
        self._end_trick()

    def _end_trick(self) -> None:
        self._emit(TrickEnded(self.last_passer))
        # docs/rules.md §5.6: held Pass Cards resolve in descending number, Lead Next last.
        self._queue = sorted(
            (k for k in self.pass_state if self.pass_state[k] == HELD and k != LEAD_NEXT),
            reverse=True,
        )
        self._next_resolution()

    def _next_resolution(self) -> None:
        if self._queue:
            k = self._queue[0]
            self.phase = RESOLVE
            self.resolving = k
            self.turn = self.pass_holder[k]
            return
        self.resolving = None
        # Lead Next: its holder leads; if nobody holds it, the last player to pass.
        leader = self.pass_holder.get(LEAD_NEXT) if self.pass_state[LEAD_NEXT] == HELD else None
        if leader is not None:
            self._return_card(LEAD_NEXT)
        else:
            leader = self.last_passer
        assert leader is not None
        if not (self.hands[leader] or self.wilds[leader]):
            # arena's ruling: the last passer shed out while resolving (4 or 6): the next
            # player clockwise still holding cards leads.
            n = self.players
            leader = next((leader + i) % n for i in range(1, n) if self.size((leader + i) % n))
        # Played cards not taken are discarded.
        self.discard_pile.extend(filterfalse(self.taken.__contains__, self.trick_cards))
        self._new_trick(leader)

    def _return_card(self, k: int) -> None:
        """A resolved Pass Card goes back to the centre, or leaves the round if a player
        shed out while it was held (docs/rules.md §5.8)."""
        del self.pass_holder[k]
        if k in self.leaving:
            self.leaving.discard(k)
            self.pass_state[k] = REMOVED
            self._emit(PassCardRemoved(PASS_CARDS[k]))
        else:
            self.pass_state[k] = AVAILABLE

    def _resolved(self, seat: int, shed: bool) -> None:
        """The Pass Card being resolved is used: it goes back (or leaves the round), a
        holder left without cards sheds out, and the next one resolves."""
        k = self.resolving
        assert k is not None
        self._queue.pop(0)
        self._return_card(k)
        if shed and self._shed_out(seat):
            return
        self._next_resolution()
