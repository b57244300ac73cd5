"""The table of a `bested` game: its state, the set-up of its rounds and tricks, the
queries on it, and what each seat observes of it."""

from __future__ import annotations

from arena.games import melds as M
from arena.games.base import GameState
from arena.games.bested.actions import PASS_CARDS, BestedAction
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
    table_play,
)
from arena.games.bested.options import BET_CARDS, Rules
from arena.games.cards import deal
from arena.games.events import Dealt
from arena.games.melds import Meld

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
        self._start_round()

    # -- hands ----------------------------------------------------------------
    def size(self, seat: int) -> int:
        """The cards `seat` holds, wilds included; a pending meld still counts as held
        until it is final (the others learn nothing of it before)."""
        n = len(self.hands[seat]) + len(self.wilds[seat])
        if self.pending is not None and seat == self.turn:
            n += self.pending.size
        return n

    def holders(self) -> list[int]:
        """Players still holding cards (wilds included), by seat."""
        return [s for s in range(self.players) if self.size(s)]

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
        self.plays: list[tuple[int, Meld, tuple[int, ...]]] = []  # (seat, meld, wild cards)
        self.trick_cards: list[int] = []  # every card played this trick, in order
        self.taken: set[int] = set()  # cards taken as wilds from this trick
        self.beat: Meld | None = None
        self.last_passer: int | None = None

    def _new_trick(self, leader: int) -> None:
        self._clear_trick()
        self.phase = LEAD
        self.turn = leader
        self.trick_leader = leader
        for s in self.holders():
            self.in_trick[s] = True
        self._emit(TrickStarted(leader))

    # -- queries ------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def _others_in_trick(self, seat: int) -> bool:
        return any(self.in_trick[s] for s in range(self.players) if s != seat)

    def _bets_left(self, seat: int) -> int:
        return BET_CARDS - sum(1 for owner, _ in self.bets if owner == seat)

    def _takeable(self) -> list[int]:
        """The cards played this trick that may be taken as wilds: not taken before in this
        round (a wild played again is not taken again)."""
        return [c for c in self.trick_cards if c not in self.taken_in_round]

    # -- views ------------------------------------------------------------------------
    def observation(self, seat: int) -> BestedObservation:
        table = M.card_table()
        over = self.phase == OVER
        plays = [table_play(s, m, used) for s, m, used in self.plays]
        # The pending meld and the swap step are shown to the seat deciding only: the
        # others see the phase it was played in until it is final.
        mine = self.phase == SWAP and seat == self.turn
        pending = None
        phase = self.phase
        if self.phase == SWAP:
            phase = SWAP if mine else self._pending_from
            if mine:
                assert self.pending is not None
                pending = table_play(seat, self.pending, tuple(self._pending_used))
        views = [
            PassCardView(
                PASS_CARDS[k],
                k,
                self.pass_state[k],
                self.pass_holder.get(k),
                k in self.leaving,
            )
            for k in sorted(self.pass_state)
        ]
        return BestedObservation(
            ruleset=self.ruleset,
            seat=seat,
            players=self.players,
            round=self.round,
            phase=_PHASES[phase],
            to_act=None if over else self.turn,
            resolving=PASS_CARDS[self.resolving] if self.resolving else None,
            hand=table.encode(self.hands[seat]),
            wilds=table.encode(self.wilds[seat]),
            hand_sizes=[self.size(s) for s in range(self.players)],
            trick_leader=self.trick_leader,
            beat=plays[-1] if plays else None,
            plays=plays,
            pending=pending,
            takeable=table.encode(self._takeable()),
            in_trick=[s for s in range(self.players) if self.in_trick[s]],
            passed=list(self.passed),
            shed=list(self.shed),
            pass_cards=views,
            bets=[BetView(o, on) for o, on in self.bets],
            bets_left=[self._bets_left(s) for s in range(self.players)],
            round_points=list(self.round_points),
            totals=list(self.totals),
            threshold=self.rules.threshold,
            round_leader=self.round_leader,
            undealt=self.undealt,
            gaps=self.rules.gaps,
            zeros=self.rules.zeros,
            high=self.rules.high,
        )
