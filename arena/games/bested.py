"""`bested`: Bested Another Time for 2-6 players (docs/rules.md §5).

A climbing and shedding game: tricks of melds that must be beaten by a meld of the
same type and size, hard passes that earn Pass Cards resolved at the trick's end,
points for shedding out early and for bets on who sheds. The meld rules live in
`melds.py` (shared with `bested-solo`); this module holds the table, turns and scoring.

arena's ruling, the swap step: plays (and discards) are offered with wilds only where no
natural card of the hand could stand; a wild in a natural's place is a follow-up decision
(`Swap`, `Done`) before the meld is final and public. Every legal meld stays reachable,
and the offered lists stay small however many wilds a hand holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, ClassVar, Literal

from msgspec import Meta, Struct

from arena.games import melds as M
from arena.games.base import GameState, IllegalAction, Outcome, ranks_from_scores
from arena.games.cards import deal
from arena.games.events import Dealt
from arena.games.melds import KIND_NAMES, Meld, MeldName

# --------------------------------------------------------------------------
# Actions: the JSON a bot writes (Play and Pass are shared with bested-solo).

PassCardName = Literal["lead_next", "wild", "discard_meld", "bet_wild", "give_bet"]
#: Pass Cards by the player count printed on them (docs/rules.md §5.1): 2 Lead Next .. 6
PASS_CARDS: dict[int, PassCardName] = {
    2: "lead_next",
    3: "wild",
    4: "discard_meld",
    5: "bet_wild",
    6: "give_bet",
}
PASS_NUMBER: dict[str, int] = {name: n for n, name in PASS_CARDS.items()}
LEAD_NEXT = 2


class ChooseWild(Struct, tag="choose_wild", frozen=True):
    """2 players, round start: secretly turn this card of your hand into a wild."""

    card: str


class Play(Struct, tag="play", frozen=True):
    """Lead or beat with a meld: natural cards plus wilds declared as these ranks."""

    meld: MeldName
    cards: tuple[str, ...] = ()
    wilds: tuple[int, ...] = ()


class Pass(Struct, tag="pass", frozen=True):
    """Hard pass: out of the trick; take this available Pass Card (null: none is due)."""

    pass_card: PassCardName | None = None


class Bet(Struct, tag="bet", frozen=True):
    """Pass Card 6 or 5: put one of your bet cards on a player still holding cards."""

    on: int


class Give(Struct, tag="give", frozen=True):
    """Pass Card 6: give this card of your hand to another player still holding cards."""

    card: str
    to: int


class TakeWild(Struct, tag="take_wild", frozen=True):
    """Pass Card 5 or 3: take this card played in the trick into your hand as a wild."""

    card: str


class Discard(Struct, tag="discard", frozen=True):
    """Pass Card 4: discard this meld from your hand, face up."""

    meld: MeldName
    cards: tuple[str, ...] = ()
    wilds: tuple[int, ...] = ()


class Decline(Struct, tag="decline", frozen=True):
    """Pass Card 5 or 3: do nothing with it."""


class Swap(Struct, tag="swap", frozen=True):
    """After a play or a discard (phase `swap`): put this natural card of your pending
    meld back in your hand and one of your wilds, declared as its rank, in its place.

    arena's ruling: the plays offered use wilds only where no natural of the hand could
    stand; a wild where a natural could stand is this follow-up, which keeps the offered
    lists small while every legal meld stays reachable."""

    card: str


class Done(Struct, tag="done", frozen=True):
    """After a play or a discard (phase `swap`): the pending meld is final as it stands."""


BestedAction = ChooseWild | Play | Pass | Bet | Give | TakeWild | Discard | Decline | Swap | Done
_DECLINE = Decline()
_DONE = Done()
_PASS_NONE = Pass(None)
_PASSES = {name: Pass(name) for name in PASS_CARDS.values()}


# --------------------------------------------------------------------------
# Events: what the seats are told, in order.


def _meld_text(meld: str, cards: tuple[str, ...], wilds: tuple[int, ...]) -> str:
    parts = list(cards) + [f"wild={r}" for r in wilds]
    return f"{meld} {' '.join(parts)}"


class RoundStarted(Struct, tag="round_started", frozen=True):
    round: int
    leader: int
    hand_sizes: list[int]
    undealt: int
    pass_cards: list[PassCardName]

    def text(self) -> str:
        cards = ", ".join(self.pass_cards)
        return (
            f"round {self.round}: seat {self.leader} leads; {self.undealt} cards undealt;"
            f" Pass Cards {cards}"
        )


class WildChosen(Struct, tag="wild_chosen", frozen=True):
    """2 players: `seat` turned a card into a wild; `card` is shown to that seat only."""

    seat: int
    card: str | None

    def text(self) -> str:
        return f"seat {self.seat} turns {self.card or 'a card'} into a wild"


class TrickStarted(Struct, tag="trick_started", frozen=True):
    leader: int

    def text(self) -> str:
        return f"seat {self.leader} leads a new trick"


class Played(Struct, tag="played", frozen=True):
    """A meld played: natural cards, wilds' declared ranks and their printed cards."""

    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]

    def text(self) -> str:
        return f"seat {self.seat} plays {_meld_text(self.meld, self.cards, self.wilds)}"


class Passed(Struct, tag="passed", frozen=True):
    seat: int
    pass_card: PassCardName | None

    def text(self) -> str:
        took = f" and takes {self.pass_card}" if self.pass_card else ""
        return f"seat {self.seat} passes{took}"


class Payout(Struct, frozen=True):
    """A bet paid: its owner and the points."""

    owner: int
    points: int


class ShedOut(Struct, tag="shed_out", frozen=True):
    """`seat` emptied its hand: its points, what bets on it paid, the Pass Card leaving
    the round (`at_once` false: it is held, and leaves once resolved)."""

    seat: int
    points: int
    payouts: list[Payout]
    removes: PassCardName | None
    at_once: bool

    def text(self) -> str:
        paid = "".join(f"; seat {p.owner} earns {p.points} for bets" for p in self.payouts)
        gone = ""
        if self.removes:
            gone = f"; {self.removes} leaves the round" + ("" if self.at_once else " once resolved")
        return f"seat {self.seat} sheds out and earns {self.points}{paid}{gone}"


class PassCardRemoved(Struct, tag="pass_card_removed", frozen=True):
    pass_card: PassCardName

    def text(self) -> str:
        return f"{self.pass_card} leaves the round"


class TrickEnded(Struct, tag="trick_ended", frozen=True):
    """Nobody is left in the trick; held Pass Cards resolve next (6, 5, 4, 3, Lead Next)."""

    last_passer: int | None

    def text(self) -> str:
        return "the trick ends; Pass Cards resolve"


class BetPlaced(Struct, tag="bet_placed", frozen=True):
    seat: int
    on: int

    def text(self) -> str:
        return f"seat {self.seat} bets on seat {self.on}"


class Gave(Struct, tag="gave", frozen=True):
    """`seat` gave a card to `to`; the card is shown to those two only (`wild`: it stays a
    wild in the receiver's hand)."""

    seat: int
    to: int
    card: str | None
    wild: bool | None

    def text(self) -> str:
        what = self.card or "a card"
        if self.wild:
            what += " (a wild)"
        return f"seat {self.seat} gives {what} to seat {self.to}"


class TookWild(Struct, tag="took_wild", frozen=True):
    seat: int
    card: str

    def text(self) -> str:
        return f"seat {self.seat} takes {self.card} as a wild"


class Discarded(Struct, tag="discarded", frozen=True):
    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]

    def text(self) -> str:
        return f"seat {self.seat} discards {_meld_text(self.meld, self.cards, self.wilds)}"


class Declined(Struct, tag="declined", frozen=True):
    seat: int
    pass_card: PassCardName

    def text(self) -> str:
        return f"seat {self.seat} does nothing with {self.pass_card}"


class RoundOver(Struct, tag="round_over", frozen=True):
    """The round's points, the totals, the finishing order (the last holder last)."""

    round: int
    points: list[int]
    totals: list[int]
    order: list[int]
    game_over: bool

    def text(self) -> str:
        pts = " ".join(map(str, self.points))
        tots = " ".join(map(str, self.totals))
        return f"round {self.round} over: points {pts}; totals {tots}"


BestedEvent = (
    Dealt
    | RoundStarted
    | WildChosen
    | TrickStarted
    | Played
    | Passed
    | ShedOut
    | PassCardRemoved
    | TrickEnded
    | BetPlaced
    | Gave
    | TookWild
    | Discarded
    | Declined
    | RoundOver
)


# --------------------------------------------------------------------------
# The observation


class TablePlay(Struct, frozen=True):
    """One play of the current trick."""

    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]


class PassCardView(Struct, frozen=True):
    """A Pass Card of this round: in the centre, held (unresolved) or removed."""

    card: PassCardName
    number: int
    state: Literal["available", "held", "removed"]
    holder: int | None
    leaving: bool  # held, and removed from the round once resolved


class BetView(Struct, frozen=True):
    owner: int
    on: int


Phase = Literal["choose_wild", "lead", "play", "resolve", "over", "swap"]
_PHASES: tuple[Phase, ...] = ("choose_wild", "lead", "play", "resolve", "over", "swap")
CHOOSE, LEAD, PLAY, RESOLVE, OVER, SWAP = range(6)


class BestedObservation(Struct, tag="bested", frozen=True):
    """What one seat sees: its own hand and wilds, and the public table."""

    ruleset: str
    seat: int
    players: int
    round: int
    phase: Phase
    to_act: int | None
    resolving: PassCardName | None
    hand: list[str]
    wilds: list[str]
    hand_sizes: list[int]
    trick_leader: int | None
    beat: TablePlay | None
    plays: list[TablePlay]
    #: phase `swap`, to the seat deciding only: its meld awaiting swaps (not yet public)
    pending: TablePlay | None
    takeable: list[str]
    in_trick: list[int]
    passed: list[int]
    shed: list[int]
    pass_cards: list[PassCardView]
    bets: list[BetView]
    bets_left: list[int]
    round_points: list[int]
    totals: list[int]
    threshold: int
    round_leader: int
    undealt: int
    gaps: bool
    zeros: bool
    high: int


# --------------------------------------------------------------------------
# Options and decks


class BestedOptions(Struct, frozen=True, forbid_unknown_fields=True):
    gaps: Annotated[
        bool, Meta(description="suited gaps (ranks two apart) are a fourth meld type")
    ] = False
    zeros: Annotated[
        bool,
        Meta(description="add the 0s and deal one more card; a 0 also beats the highest rank"),
    ] = False
    threshold: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(
            description="end after the round a total reaches this (default 2p 10, 3p 20, "
            "4p 30, 5-6p 40)"
        ),
    ] = None


#: docs/rules.md §5.1 decks per player count: (ranks, suits, cards each); 6p has the 0s
DECKS: dict[int, tuple[range, str, int]] = {
    2: (range(1, 13), "SHD", 15),
    3: (range(1, 16), "SHD", 15),
    4: (range(1, 16), "SHDC", 15),
    5: (range(1, 18), "SHDC", 13),
    6: (range(0, 18), "SHDC", 12),
}
THRESHOLDS = {2: 10, 3: 20, 4: 30, 5: 40, 6: 40}
BET_CARDS = 5  # docs/rules.md §5.7: bet cards per player per round


@dataclass(frozen=True)
class Rules:
    """One game's fixed rules: deck, deal, meld types, zeros rule, threshold."""

    players: int
    deck: tuple[int, ...]
    hand_size: int
    kinds: tuple[int, ...]
    high: int  # the deck's highest rank
    zero_high: int | None  # the zeros rule: a 0 beats exactly this rank
    threshold: int
    gaps: bool
    zeros: bool


def bested_rules(players: int, opts: BestedOptions) -> Rules:
    ranks, suits, each = DECKS[players]
    if opts.zeros and players < 6:
        # docs/rules.md §5.10: add rank 0 in each suit in use and deal one more card each.
        ranks, each = range(0, ranks.stop), each + 1
    kinds = (M.SINGLE, M.SET, M.RUN) + ((M.GAP,) if opts.gaps else ())
    return Rules(
        players=players,
        deck=M.deck_ids(ranks, suits),
        hand_size=each,
        kinds=kinds,
        high=ranks[-1],
        zero_high=ranks[-1] if opts.zeros else None,
        threshold=opts.threshold or THRESHOLDS[players],
        gaps=opts.gaps,
        zeros=opts.zeros,
    )


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
    table = M.card_table()
    ids = []
    for code in action.cards:
        c = table.parse(code)
        if c is None:
            raise IllegalAction(action, f"{code!r} is not a card")
        if c not in hand:
            raise IllegalAction(action, f"{code} is not a natural card of your hand")
        ids.append(c)
    if len(set(ids)) != len(ids):
        raise IllegalAction(action, "the same card is listed twice")
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


# --------------------------------------------------------------------------
# The state

AVAILABLE, HELD, REMOVED = "available", "held", "removed"


class BestedState(GameState[BestedAction, BestedObservation]):
    """A game of bested in progress."""

    action_type: ClassVar[object] = BestedAction
    event_type: ClassVar[object] = BestedEvent
    observation_type: ClassVar[object] = BestedObservation

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
        self.pass_state: dict[int, str] = {k: AVAILABLE for k in range(2, n + 1)}
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

    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    # -- legal actions ---------------------------------------------------------------
    def legal_actions(self) -> list[BestedAction]:
        phase = self.phase
        if phase == OVER:
            return []
        seat = self.turn
        hand = self.hands[seat]
        codes = M.card_table().codes
        if phase == CHOOSE:
            return [ChooseWild(codes[c]) for c in reversed(hand)]
        if phase == LEAD:
            found = M.all_melds(hand, len(self.wilds[seat]), self.rules.kinds)
            return [self._memo.play(m) for m in found]
        if phase == PLAY:
            assert self.beat is not None
            found = M.beating(hand, len(self.wilds[seat]), self.beat, self.rules.zero_high)
            out: list[BestedAction] = [self._memo.play(m) for m in found]
            out.extend(self._pass_options(seat))
            return out
        if phase == SWAP:
            return swap_options(self.pending)
        return self._resolve_options(seat)

    def _pass_options(self, seat: int) -> list[Pass]:
        # docs/rules.md §5.5: a passing player takes one available Pass Card of their choice,
        # unless nobody else remains in the trick (then none, and the trick ends).
        if not self._others_in_trick(seat):
            return [_PASS_NONE]
        return [
            _PASSES[PASS_CARDS[k]]
            for k in sorted(self.pass_state)
            if self.pass_state[k] == AVAILABLE
        ]

    def _others_in_trick(self, seat: int) -> bool:
        return any(self.in_trick[s] for s in range(self.players) if s != seat)

    def _resolve_options(self, seat: int) -> list[BestedAction]:
        card = self.resolving
        out: list[BestedAction] = []
        holders = self.holders()
        if card in (6, 5) and self._bets_left(seat) > 0:
            out.extend(Bet(s) for s in holders)
        if card == 6:
            codes = M.card_table().codes
            give = [*reversed(self.hands[seat])]
            if self.wilds[seat]:
                give.append(self.wilds[seat][0])  # any wild is the same gift: the first
            for c in give:
                out.extend(Give(codes[c], s) for s in holders if s != seat)
        if card in (5, 3):
            codes = M.card_table().codes
            out.extend(TakeWild(codes[c]) for c in self._takeable())
            out.append(_DECLINE)
        if card == 4:
            found = M.all_melds(self.hands[seat], len(self.wilds[seat]), self.rules.kinds)
            out.extend(self._memo.discard(m) for m in M.distinct_removals(found))
        return out

    def _bets_left(self, seat: int) -> int:
        return BET_CARDS - sum(1 for owner, _ in self.bets if owner == seat)

    def _takeable(self) -> list[int]:
        """The cards played this trick that may be taken as wilds: not taken before in this
        round (a wild played again is not taken again)."""
        return [c for c in self.trick_cards if c not in self.taken_in_round]

    # -- applying -----------------------------------------------------------------------
    def _apply(self, seat: int, action: BestedAction) -> BestedAction:
        phase = self.phase
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

    def _take_wilds(self, seat: int, count: int) -> tuple[int, ...]:
        """Which physical wilds are used is no choice: the first in canonical order."""
        used, self.wilds[seat] = self.wilds[seat][:count], self.wilds[seat][count:]
        return tuple(used)

    def _play(self, seat: int, action: Play) -> Play:
        hand = self.hands[seat]
        meld = parse_meld(action, hand, len(self.wilds[seat]), self.rules.kinds)
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
        refuse_needless_wild(action, meld, hand)
        canonical = self._memo.play(meld)
        self._hold(seat, meld)
        return canonical

    # -- the swap step (arena's ruling) --------------------------------------------------
    def _hold(self, seat: int, meld: Meld) -> None:
        """Take a played or discarded meld out of the hand. If it holds a natural card and
        the player a wild, it waits for swaps (phase SWAP); else it is final at once."""
        for c in meld.naturals:
            self.hands[seat].remove(c)
        self.pending = meld
        self._pending_used = list(self._take_wilds(seat, len(meld.wilds)))
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
        return Swap(table.codes[c])

    def _finish(self, seat: int) -> None:
        """The pending meld is final: now it is public, and the play (or the discard) goes
        on as it would have without the swap step."""
        meld, used = self.pending, tuple(self._pending_used)
        assert meld is not None
        self.pending = None
        self._pending_used = []
        codes = M.card_table().codes
        args = (
            seat,
            KIND_NAMES[meld.kind],
            tuple(codes[c] for c in meld.naturals),
            meld.wilds,
            tuple(codes[c] for c in used),
        )
        if self._pending_from == RESOLVE:  # Discard Any Meld
            self.phase = RESOLVE
            self.discard_pile.extend(meld.naturals)
            self.discard_pile.extend(used)
            self._emit(Discarded(*args))
            self._resolved(seat, shed=self.size(seat) == 0)
            return
        self.plays.append((seat, meld, used))
        self.trick_cards.extend(meld.naturals)
        self.trick_cards.extend(used)
        self.beat = meld
        self.phase = PLAY
        self._emit(Played(*args))
        if self.size(seat) == 0 and self._shed_out(seat):
            return
        self._advance(seat)

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

    # -- shedding out -------------------------------------------------------------------
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
        removes: str | None = None
        at_once = True
        if still:
            k = max(still)
            removes = PASS_CARDS[k]
            if self.pass_state[k] == HELD:
                self.leaving.add(k)  # removed right after it resolves
                at_once = False
            else:
                self.pass_state[k] = REMOVED
        self._emit(ShedOut(seat, points, payouts, removes, at_once))  # type: ignore[arg-type]
        if len(holders) <= 1:
            self._end_round()
            return True
        return False

    def _score(self, seat: int, points: int) -> None:
        self.round_points[seat] += points
        self.totals[seat] += points

    # -- the end of a trick: Pass Cards ----------------------------------------------------
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
        self.discard_pile.extend(c for c in self.trick_cards if c not in self.taken)
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

    def _give(self, seat: int, action: Give) -> Give:
        c = M.card_table().parse(action.card)
        hand, wilds = self.hands[seat], self.wilds[seat]
        if c is None or (c not in hand and c not in wilds):
            raise IllegalAction(action, f"{action.card!r} is not a card of your hand")
        if c in wilds and c != wilds[0]:
            first = M.card_table().codes[wilds[0]]
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
        meld = parse_meld(action, hand, wilds, self.rules.kinds)
        # Only the cards leaving the hand matter: the canonical form is the first listed
        # meld taking out the same cards. Cards that only a meld with a wild where a
        # natural could stand takes out are reached by a swap (arena's ruling).
        found = M.all_melds(hand, wilds, self.rules.kinds)
        rep = next((m for m in found if m.key == meld.key), None)
        if rep is None:
            refuse_needless_wild(action, meld, hand)
            raise AssertionError("a meld with wilds only where needed is always listed")
        self._hold(seat, rep)
        return self._memo.discard(rep)

    # -- views and result ------------------------------------------------------------------
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
                self.pass_state[k],  # type: ignore[arg-type]
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

    def outcome(self) -> Outcome:
        self._require_terminal()
        # docs/rules.md §5.9: most points wins, ties share.
        return Outcome(tuple(self.totals), ranks_from_scores(self.totals, higher_is_better=True))


def table_play(seat: int, meld: Meld, used: tuple[int, ...]) -> TablePlay:
    codes = M.card_table().codes
    return TablePlay(
        seat,
        KIND_NAMES[meld.kind],
        tuple(codes[c] for c in meld.naturals),
        meld.wilds,
        tuple(codes[c] for c in used),
    )


def swap_options(pending: Meld | None) -> list[Swap | Done]:
    """The swap step's offer: `done` first (a bot answering 0 keeps the meld it chose),
    then one swap per natural card of the pending meld."""
    assert pending is not None
    codes = M.card_table().codes
    return [_DONE, *(Swap(codes[c]) for c in pending.naturals)]


def new_bested(players: int, options: BestedOptions, seed: int) -> BestedState:
    return BestedState(players, bested_rules(players, options), seed)


# --------------------------------------------------------------------------
# The decision bound (docs/rules.md §9.4)


def max_rounds(players: int, rules: Rules) -> int:
    """The most rounds a game can last: a round sheds out n-1 players, the k-th scoring at
    least 2(n-k)+1, so the totals grow by n²-1 a round at least (docs/rules.md §9.4)."""
    return players * (rules.threshold - 1) // (players * players - 1) + 1


def max_decisions(players: int, options: BestedOptions) -> int:
    """The most decisions a `bested` game can take (docs/rules.md §9.4): a round has at most
    M = dealt + taken - 1 plays and discards, each trick a lead among them, at most n passes
    and n-2 Pass Card resolutions; swaps are bounded by the wilds, `done`s by the melds."""
    rules = bested_rules(players, options)
    dealt = players * rules.hand_size
    taken = 0 if players == 2 else dealt  # each dealt card is taken as a wild once at most
    wilds = 2 if players == 2 else taken  # every wild a round can hold
    choices = 2 if players == 2 else 0  # choose_wild
    melds = dealt + taken - 1
    per_round = choices + wilds + 2 * players * melds
    return max_rounds(players, rules) * per_round
