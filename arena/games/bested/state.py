"""The table of a `bested` game: its state, the set-up of its rounds and tricks, the
queries on it, and what each seat observes of it."""

from __future__ import annotations

from itertools import compress, filterfalse
from operator import add, itemgetter

from arena.games import melds as M
from arena.games.base import GameState
from arena.games.bested.actions import MAX_SEATS, PASS_CARDS, BestedAction
from arena.games.bested.events import RoundStarted, TrickStarted
from arena.games.bested.meld_actions import actions_memo
from arena.games.bested.observation import (
    _PHASES,
    CHOOSE,
    LEAD,
    OVER,
    SWAP,
    BestedObservation,
    BetView,
    PassCardView,
    PassState,
    TablePlay,
    bet_view,
    pass_card_view,
    table_play,
)
from arena.games.bested.options import BET_CARDS, Rules
from arena.games.cards import deal
from arena.games.events import Dealt
from arena.games.melds import Meld, code_of

#: every bet's view, by (owner, the seat bet on) (shared: observations are built often)
_BET_VIEWS = {
    (owner, on): bet_view(owner, on) for owner in range(MAX_SEATS) for on in range(MAX_SEATS)
}
#: every Pass Card's view, by number, then state, then holder + 1 (0: none), then whether
#: it is leaving (shared: the views are few, observations are built at every decision)
_PASS_CARD_VIEWS = {
    k: {
        state: tuple(
            (pass_card_view(k, state, holder, False), pass_card_view(k, state, holder, True))
            for holder in (None, *range(MAX_SEATS))
        )
        for state in ("available", "held", "removed")
    }
    for k in PASS_CARDS
}
#: `BestedTable._pass_views`' lists, by what they are built from (a few hundred with up to
#: 5 players; with 6, some ten thousand: whose held cards vary more); at most this many
_PASS_VIEWS: dict[tuple[object, ...], tuple[PassCardView, ...]] = {}
_PASS_VIEWS_LIMIT = 1 << 15

AVAILABLE: PassState = "available"
HELD: PassState = "held"
REMOVED: PassState = "removed"


class BestedTable(GameState[BestedAction, BestedObservation]):
    """The table of a game of bested: every attribute, the round and trick set-up, the
    queries and the observation. `BestedState` (ruleset.py) adds the rules in layers, each
    a subclass using those below it: Scoring, Tricks, SwapStep, PassCardUses, Applying;
    and LegalActions."""

    def __init__(self, players: int, rules: Rules, seed: int) -> None:
        super().__init__("bested", players, seed)
        self.rules = rules
        self._memo = actions_memo()
        self.totals = [0] * players
        self.round = 0
        self.round_leader = 0  # docs/rules.md §5.9: seat 0 leads the first round
        self.phase = LEAD
        # A meld played or discarded that awaits swaps (phase SWAP): its cards have left
        # the hand (`_pending_used`: the printed cards of its wilds) but it is not public
        # yet; `_pending_from` is the phase it was played in, which the others still see.
        self.pending: Meld | None = None
        self._pending_used: list[int] = []
        self._pending_from = LEAD
        # the bets the observations' bet views and counts were last built from: with six
        # players there can be thirty, and they change a few times a round
        self._bets_seen: list[tuple[int, int]] = []
        self._bets_counts: list[int] = [BET_CARDS] * players  # (no bets: every card left)
        self._bet_views: list[BetView] = []
        self._start_round()

    # -- hands ----------------------------------------------------------------
    def size(self, seat: int) -> int:
        """The cards `seat` holds, wilds included; a pending meld still counts as held
        until it is final (the others learn nothing of it before)."""
        n = len(self.hands[seat]) + len(self.wilds[seat])
        if self.pending is not None and seat == self.turn:
            n += self.pending.size
        return n

    def sizes(self) -> list[int]:
        """`size` of every seat, in one pass (observations need it at every decision)."""
        out = list(map(add, map(len, self.hands), map(len, self.wilds)))
        if self.pending is not None:
            out[self.turn] += self.pending.size
        return out

    def holders(self) -> list[int]:
        """Players still holding cards (wilds included), by seat."""
        return list(compress(range(self.players), self.sizes()))

    # -- round flow ----------------------------------------------------------------
    def _start_round(self) -> None:
        r = self.rules
        n = self.players
        self.round += 1
        self.hands, rest = deal(self.rng, r.deck, n, r.hand_size)
        self.undealt = len(rest)
        self.wilds: list[list[int]] = [[] for _ in range(n)]  # printed card ids, sorted
        self.discard_pile: list[int] = []
        # Pass Cards 2..n (docs/rules.md §5.1): state, holder, whether it leaves once resolved.
        self.pass_state: dict[int, PassState] = {k: AVAILABLE for k in range(2, n + 1)}
        self.pass_holder: dict[int, int] = {}
        self.leaving: set[int] = set()
        self.bets: list[tuple[int, int]] = []  # (owner, on), in the order placed
        self.shed: list[int] = []
        #: every card taken as a wild this round: a card is taken only once a round
        #: (docs/rules.md §5.6), which is also what keeps a round finite (§9.4)
        self.taken_in_round: set[int] = set()
        self.round_points = [0] * n
        self.resolving: int | None = None
        self._queue: list[int] = []
        table = M.card_table()
        for seat, hand in enumerate(self.hands):
            self._emit(Dealt(self.round, table.encode(hand)), (seat,))
        cards = [PASS_CARDS[k] for k in sorted(self.pass_state)]
        self._emit(
            RoundStarted(
                self.round, self.round_leader, [len(h) for h in self.hands], self.undealt, cards
            )
        )
        self._clear_trick()
        if n == 2:
            # docs/rules.md §5.2: with 2 players each chooses a wild at the start of a round,
            # the round's leader first.
            self.phase = CHOOSE
            self.turn = self.round_leader
            self._choosers = [self.round_leader, 1 - self.round_leader]
        else:
            self._new_trick(self.round_leader)

    def _clear_trick(self) -> None:
        self.trick_leader: int | None = None
        self.in_trick: list[bool] = [False] * self.players
        self.passed: list[int] = []
        #: this trick's plays as every seat sees them, each built once, when it is final
        self.plays: list[TablePlay] = []
        self.trick_cards: list[int] = []  # every card played this trick, in order
        self.taken: set[int] = set()  # cards taken as wilds from this trick
        self.beat: Meld | None = None
        self.last_passer: int | None = None

    def _new_trick(self, leader: int) -> None:
        self._clear_trick()
        self.phase = LEAD
        self.turn = leader
        self.trick_leader = leader
        self.in_trick = list(map(bool, self.sizes()))  # the players still holding cards
        self._emit(TrickStarted(leader))

    # -- queries ------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def _others_in_trick(self, seat: int) -> bool:
        others = self.in_trick.count(True) - self.in_trick[seat]  # a bool counts 0 or 1
        return others > 0

    def _bets_left(self, seat: int) -> int:
        return BET_CARDS - [owner for owner, _ in self.bets].count(seat)

    def _takeable(self) -> list[int]:
        """The cards played this trick that may be taken as wilds: not taken before in this
        round (a wild played again is not taken again)."""
        return [c for c in self.trick_cards if c not in self.taken_in_round]

    # -- views ------------------------------------------------------------------------
    def _pass_views(self) -> list[PassCardView]:
        """The Pass Cards' views, by number. The same lists come again and again (in this
        game and others): each is built once (`_PASS_VIEWS`), under what it is built
        from, every card's state, holder and whether it is leaving."""
        state, holder, leaving = self.pass_state, self.pass_holder, self.leaving
        key = (*state, *state.values(), None, *holder, *holder.values(), None, *leaving)
        views = _PASS_VIEWS.get(key)
        if views is None:  # kept as a tuple: out of the cycle collector's sight
            table = _PASS_CARD_VIEWS
            views = tuple(
                [
                    table[k][st][holder.get(k, -1) + 1][k in leaving]
                    for k, st in sorted(state.items())
                ]
            )
            if len(_PASS_VIEWS) >= _PASS_VIEWS_LIMIT:
                _PASS_VIEWS.clear()
            _PASS_VIEWS[key] = views
        return list(views)

    def observation(self, seat: int) -> BestedObservation:
        """What `seat` sees. Built at every decision, so from parts kept ready (the plays,
        built when final; the Pass Card and bet views, shared Structs) and passed to the
        Struct by position, in its field order (named in the comments)."""
        n = self.players
        phase = self.phase
        # The pending meld and the swap step are shown to the seat deciding only: the
        # others see the phase it was played in until it is final.
        pending = None
        if phase == SWAP:
            if seat == self.turn:
                assert self.pending is not None
                pending = table_play(seat, self.pending, tuple(self._pending_used))
            else:
                phase = self._pending_from
        bets = self.bets
        if bets != self._bets_seen:  # the bets' views and counts, built again as they change
            owners = list(map(itemgetter(0), bets))
            self._bets_seen = list(bets)
            self._bets_counts = [BET_CARDS - owners.count(s) for s in range(n)]
            self._bet_views = list(map(_BET_VIEWS.__getitem__, bets))
        bets_left, bet_views = list(self._bets_counts), list(self._bet_views)
        plays = self.plays
        rules = self.rules
        taken = self.taken_in_round
        return BestedObservation(
            self.ruleset,  # ruleset
            seat,  # seat
            n,  # players
            self.round,  # round
            _PHASES[phase],  # phase
            None if self.phase == OVER else self.turn,  # to_act
            PASS_CARDS[self.resolving] if self.resolving else None,  # resolving
            list(map(code_of, self.hands[seat])),  # hand
            list(map(code_of, self.wilds[seat])),  # wilds
            self.sizes(),  # hand_sizes
            self.trick_leader,  # trick_leader
            plays[-1] if plays else None,  # beat
            list(plays),  # plays
            pending,  # pending
            # takeable: `_takeable()`, encoded in the same pass
            list(map(code_of, filterfalse(taken.__contains__, self.trick_cards))),
            list(compress(range(n), self.in_trick)),  # in_trick
            list(self.passed),  # passed
            list(self.shed),  # shed
            self._pass_views(),  # pass_cards
            bet_views,  # bets
            bets_left,  # bets_left
            list(self.round_points),  # round_points
            list(self.totals),  # totals
            rules.threshold,  # threshold
            self.round_leader,  # round_leader
            self.undealt,  # undealt
            rules.gaps,  # gaps
            rules.zeros,  # zeros
            rules.high,  # high
        )
