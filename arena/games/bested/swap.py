"""The swap step (arena's ruling): a played or discarded meld waits for swaps of its
natural cards for wilds, then is final and public."""

from __future__ import annotations

from arena.games import melds as M
from arena.games.base import IllegalAction
from arena.games.bested.actions import Swap, card_actions
from arena.games.bested.events import Discarded, Played
from arena.games.bested.observation import PLAY, RESOLVE, SWAP, table_play
from arena.games.bested.tricks import Tricks
from arena.games.melds import Meld


class SwapStep(Tricks):
    """Holding a meld for swaps, the swaps, and the meld made final."""

    def _take_wilds(self, seat: int, count: int) -> tuple[int, ...]:
        """Which physical wilds are used is no choice: the first in canonical order."""
        used, self.wilds[seat] = self.wilds[seat][:count], self.wilds[seat][count:]
        return tuple(used)

    def _hold(self, seat: int, meld: Meld) -> None:
        """Take a played or discarded meld out of the hand. If it holds a natural card and
        the player a wild, it waits for swaps (phase SWAP); else it is final at once."""
        for c in meld.naturals:
            self.hands[seat].remove(c)
        self.pending = meld
        self._pending_used = list(self._take_wilds(seat, len(meld.wilds))) if meld.wilds else []
        self._pending_from = self.phase
        if meld.naturals and self.wilds[seat]:
            self.phase = SWAP
        else:
            self._finish(seat)

    def _swap(self, seat: int, action: Swap) -> Swap:
        meld = self.pending
        assert meld is not None
        table = M.card_table()
        c = table.parse(action.card)
        if c is None or c not in meld.naturals:
            listed = " ".join(table.encode(meld.naturals))
            raise IllegalAction(action, f"swap a natural card of your pending meld: {listed}")
        self.pending = M.swapped(meld, c)
        self.hands[seat].append(c)
        self.hands[seat].sort()
        # Which wild takes its place is no choice: the first in canonical order.
        self._pending_used.extend(self._take_wilds(seat, 1))
        if not self.pending.naturals or not self.wilds[seat]:
            self._finish(seat)  # nothing left to swap
        return card_actions().swap[c]

    def _finish(self, seat: int) -> None:
        """The pending meld is final: now it is public, and the play (or the discard) goes
        on as it would have without the swap step."""
        meld, used = self.pending, tuple(self._pending_used)
        assert meld is not None
        self.pending = None
        self._pending_used = []
        view = table_play(seat, meld, used)
        args = (seat, view.meld, view.cards, view.wilds, view.wild_cards)
        if self._pending_from == RESOLVE:  # Discard Any Meld
            self.phase = RESOLVE
            self.discard_pile.extend(meld.naturals)
            self.discard_pile.extend(used)
            self._emit(Discarded(*args))
            self._resolved(seat, shed=self.size(seat) == 0)
            return
        self.plays.append(view)
        self.trick_cards.extend(meld.naturals)
        self.trick_cards.extend(used)
        self.beat = meld
        self.phase = PLAY
        self._emit(Played(*args))
        # `size(seat) == 0`, the meld being final
        if not self.hands[seat] and not self.wilds[seat] and self._shed_out(seat):
            return
        self._advance(seat)
