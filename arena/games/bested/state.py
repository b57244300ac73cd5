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
    PassState,
    TablePlay,
    bet_view,
    pass_card_view,
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

    def sizes(self) -> list[int]:
        """`size` of every seat, in one pass (observations need it at every decision)."""
        out = list(map(len, self.hands))
        if any(self.wilds):
            for seat, wilds in enumerate(self.wilds):
                out[seat] += len(wilds)
        if self.pending is not None:
            out[self.turn] += self.pending.size
        return out

    def holders(self) -> list[int]:
        """Players still holding cards (wilds included), by seat."""
        return [s for s, n in enumerate(self.sizes()) if n]

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
        for s in self.holders():
            self.in_trick[s] = True
        self._emit(TrickStarted(leader))

    # -- queries ------------------------------------------------------------------
    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def _others_in_trick(self, seat: int) -> bool:
        others = self.in_trick.count(True) - self.in_trick[seat]  # a bool counts 0 or 1
        return others > 0

    def _bets_left(self, seat: int) -> int:
        return BET_CARDS - sum(1 for owner, _ in self.bets if owner == seat)

    def _takeable(self) -> list[int]:
        """The cards played this trick that may be taken as wilds: not taken before in this
        round (a wild played again is not taken again)."""
        return [c for c in self.trick_cards if c not in self.taken_in_round]

    # -- views ------------------------------------------------------------------------
    def observation(self, seat: int) -> BestedObservation:
        """What `seat` sees. Built at every decision, so from parts kept ready (the plays,
        built when final; the Pass Card and bet views, shared Structs) and passed to the
        Struct by position, in its field order (named in the comments)."""
        codes = M.card_table().codes
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
        bets_left = [BET_CARDS] * n
        for owner, _ in self.bets:
            bets_left[owner] -= 1
        in_trick, holder, leaving = self.in_trick, self.pass_holder, self.leaving
        plays = self.plays
        rules = self.rules
        return BestedObservation(
            self.ruleset,  # ruleset
            seat,  # seat
            n,  # players
            self.round,  # round
            _PHASES[phase],  # phase
            None if self.phase == OVER else self.turn,  # to_act
            PASS_CARDS[self.resolving] if self.resolving else None,  # resolving
            [codes[c] for c in self.hands[seat]],  # hand
            [codes[c] for c in self.wilds[seat]],  # wilds
            self.sizes(),  # hand_sizes
            self.trick_leader,  # trick_leader
            plays[-1] if plays else None,  # beat
            list(plays),  # plays
            pending,  # pending
            # takeable: `_takeable()`, encoded in the same pass
            [codes[c] for c in self.trick_cards if c not in self.taken_in_round],
            [s for s in range(n) if in_trick[s]],  # in_trick
            list(self.passed),  # passed
            list(self.shed),  # shed
            [  # pass_cards
                pass_card_view(k, state, holder.get(k), k in leaving)
                for k, state in sorted(self.pass_state.items())
            ],
            [bet_view(owner, on) for owner, on in self.bets],  # bets
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
