"""Scoring in `bested`: shedding out (points, bets paid, a Pass Card leaving), the end of
a round and of the game, and the outcome."""

from __future__ import annotations

from arena.games.base import Outcome, ranks_from_scores
from arena.games.bested.actions import PASS_CARDS, PassCardName
from arena.games.bested.events import Payout, RoundOver, ShedOut
from arena.games.bested.observation import OVER
from arena.games.bested.state import HELD, REMOVED, BestedTable


class Scoring(BestedTable):
    """Shedding out, the end of a round and of the game."""

    def _shed_out(self, seat: int) -> bool:
        """Shedding out (docs/rules.md §5.8): score, pay the bets on `seat`, remove the
        highest Pass Card still in the round. Returns True when that ended the round."""
        holders = self.holders()
        points = 2 * len(holders) + max((self.size(s) for s in holders), default=0)
        self._score(seat, points)
        payouts = []
        kept = []
        per_bet = len(holders)
        paid: dict[int, int] = {}
        for owner, on in self.bets:
            if on == seat:
                paid[owner] = paid.get(owner, 0) + per_bet
            else:
                kept.append((owner, on))
        self.bets = kept  # paid bets return to their owners
        for owner in sorted(paid):
            self._score(owner, paid[owner])
            payouts.append(Payout(owner, paid[owner]))
        self.in_trick[seat] = False
        self.shed.append(seat)
        still = [
            k for k in self.pass_state if self.pass_state[k] != REMOVED and k not in self.leaving
        ]
        removes: PassCardName | None = None
        at_once = True
        if still:
            k = max(still)
            removes = PASS_CARDS[k]
            if self.pass_state[k] == HELD:
                self.leaving.add(k)  # removed right after it resolves
                at_once = False
            else:
                self.pass_state[k] = REMOVED
        self._emit(ShedOut(seat, points, payouts, removes, at_once))
        if len(holders) <= 1:
            self._end_round()
            return True
        return False

    def _score(self, seat: int, points: int) -> None:
        self.round_points[seat] += points
        self.totals[seat] += points

    def _end_round(self) -> None:
        """docs/rules.md §5.9: the round ends at once when one player still holds cards;
        unresolved Pass Cards and bets lapse."""
        last = self.holders()
        order = self.shed + last
        over = max(self.totals) >= self.rules.threshold
        self._emit(RoundOver(self.round, list(self.round_points), list(self.totals), order, over))
        self.resolving = None
        self._queue = []
        if over:
            self.phase = OVER
            return
        # docs/rules.md §5.9: the fewest points leads; ties go to whoever finished worst.
        fewest = min(self.totals)
        tied = [s for s in order if self.totals[s] == fewest]
        self.round_leader = tied[-1]
        self._start_round()

    def outcome(self) -> Outcome:
        self._require_terminal()
        # docs/rules.md §5.9: most points wins, ties share.
        return Outcome(tuple(self.totals), ranks_from_scores(self.totals, higher_is_better=True))
