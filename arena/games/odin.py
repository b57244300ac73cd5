"""The Odin family: `odin`, `odin-race` and `override-beta` (docs/rules.md §2-§4).

One engine serves all three: they share sets, values, the m or m+1 rule, the
take-back and passing; they differ in deck, deal, scoring and game end.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import combinations
from typing import Annotated, ClassVar, Literal

from msgspec import Meta, Struct

from arena.games.base import GameState, IllegalAction, Outcome, ranks_from_scores
from arena.games.cards import WILD_SUIT, CardTable, deal
from arena.games.events import Dealt
from arena.games.registry import Ruleset
from arena.games.text import counted

COLOURS = "ROYGBP"  # red, orange, yellow, green, blue, purple (Odin's six colours)
SUITS = "SHDC"  # spades, hearts, diamonds, clubs (override-beta)
CHEAT_CODE = "0*"  # the Joker: number 0, wild suit

# --------------------------------------------------------------------------
# Actions, events and the observation: the JSON a bot reads and writes.


class Play(Struct, tag="play", frozen=True):
    """Lead or beat the middle with these cards (any order; listed largest first)."""

    cards: tuple[str, ...]


class Pass(Struct, tag="pass", frozen=True):
    """Let this turn go by; the same player may play again later in the trick."""


class Take(Struct, tag="take", frozen=True):
    """Take this card of the set just beaten back into hand."""

    card: str


OdinAction = Play | Pass | Take
_PASS = Pass()


class RoundStarted(Struct, tag="round_started", frozen=True):
    round: int
    leader: int
    hand_sizes: list[int]
    aside: int

    def text(self) -> str:
        aside = counted(self.aside, "card")
        return f"round {self.round}: seat {self.leader} leads; {aside} set aside unseen"


class Played(Struct, tag="played", frozen=True):
    seat: int
    cards: tuple[str, ...]

    def text(self) -> str:
        return f"seat {self.seat} plays {' '.join(self.cards)}"


class Passed(Struct, tag="passed", frozen=True):
    seat: int

    def text(self) -> str:
        return f"seat {self.seat} passes"


class Took(Struct, tag="took", frozen=True):
    seat: int
    card: str

    def text(self) -> str:
        return f"seat {self.seat} takes back {self.card}"


class TrickWon(Struct, tag="trick_won", frozen=True):
    """Everyone else passed: the middle is discarded and `seat` leads next."""

    seat: int

    def text(self) -> str:
        return f"seat {self.seat} wins the trick and leads next"


class RoundOver(Struct, tag="round_over", frozen=True):
    round: int
    scores: list[int]
    totals: list[int]
    game_over: bool

    def text(self) -> str:
        nums = " ".join(map(str, self.scores))
        tots = " ".join(map(str, self.totals))
        return f"round {self.round} over: points {nums}; totals {tots}"


OdinEvent = Dealt | RoundStarted | Played | Passed | Took | TrickWon | RoundOver

Phase = Literal["lead", "play", "take", "over"]
_PHASES: tuple[Phase, ...] = ("lead", "play", "take", "over")
LEAD, PLAY, TAKE, OVER = range(4)


class OdinObservation(Struct, tag="odin", frozen=True):
    """What one seat sees: its own hand, everyone's hand size and the public table."""

    ruleset: str
    seat: int
    players: int
    round: int
    phase: Phase
    to_act: int | None
    hand: list[str]
    hand_sizes: list[int]
    middle: list[str]
    middle_by: int | None
    passes: int
    beaten: list[str]
    round_leader: int
    totals: list[int]
    aside: int


# --------------------------------------------------------------------------
# Options


Target = Annotated[
    Literal[10, 15, 20],
    Meta(description="the game ends after the round in which a total reaches this"),
]
Rounds = Annotated[
    Annotated[int, Meta(ge=1)] | None,
    Meta(description="play exactly this many rounds instead of playing to the target"),
]


class OdinOptions(Struct, frozen=True, forbid_unknown_fields=True):
    full_deck: Annotated[
        bool, Meta(description="2 players: keep all six colours (54 cards), not four")
    ] = False
    target: Target = 15
    rounds: Rounds = None


class OdinRaceOptions(Struct, frozen=True, forbid_unknown_fields=True):
    pass


class OverrideBetaOptions(Struct, frozen=True, forbid_unknown_fields=True):
    cheat_code: Annotated[
        bool, Meta(description="include the Joker (Cheat Code); false plays with 36 cards")
    ] = True
    target: Target = 15
    rounds: Rounds = None


# --------------------------------------------------------------------------
# Decks


@dataclass(eq=False)
class _Deck:
    """A card table plus per-card scoring weight and a memo of Play actions."""

    table: CardTable
    weights: tuple[int, ...]
    plays: dict[tuple[int, ...], Play] = field(default_factory=dict)
    singles: tuple[Play, ...] = ()
    #: sort key of a single card in the legal list: by value, then by card id
    single_key: Callable[[int], int] = field(default=int)

    def __post_init__(self) -> None:
        self.singles = tuple(self.play((c,)) for c in range(len(self.table)))
        self.single_key = [n * 1000 + c for c, n in enumerate(self.table.numbers)].__getitem__

    def play(self, ids: tuple[int, ...]) -> Play:
        action = self.plays.get(ids)
        if action is None:
            action = self.plays[ids] = Play(tuple(self.table.codes[i] for i in ids))
        return action


_Entry = tuple[int, tuple[int, ...], Play]  # (value, card ids, the action)


def _value_of(entry: _Entry) -> int:
    return entry[0]


@lru_cache(maxsize=1 << 16)
def _group_sets(deck: _Deck, group: tuple[int, ...], size: int) -> list[_Entry]:
    """Every set of `size` cards from one group, by value (memoized: groups recur a lot)."""
    numbers = deck.table.numbers
    out = []
    for ids in combinations(group, size):
        v = 0
        for c in ids:
            v = v * 10 + numbers[c]
        out.append((v, ids, deck.play(ids)))
    out.sort()
    return out


@cache
def _odin_deck() -> _Deck:
    table = CardTable.build(((n, c) for n in range(1, 10) for c in COLOURS), COLOURS)
    return _Deck(table, (1,) * len(table))


@cache
def _beta_deck() -> _Deck:
    cards = [(n, s) for n in range(1, 10) for s in SUITS] + [(0, WILD_SUIT)]
    table = CardTable.build(cards, SUITS)
    # override-beta scoring: 1 point per card, the Cheat Code 5 (docs/rules.md §4.4).
    return _Deck(table, tuple(5 if s == WILD_SUIT else 1 for s in table.suits))


@dataclass(frozen=True)
class _Rules:
    """What distinguishes one ruleset of the family from another."""

    deck: _Deck
    cards: tuple[int, ...]  # ids in play
    hand_size: int
    race: bool
    target: int
    rounds: int | None


def _ids(deck: _Deck, suits: str, joker: bool) -> tuple[int, ...]:
    t = deck.table
    return tuple(i for i, s in enumerate(t.suits) if s in suits or (joker and s == WILD_SUIT))


def _odin_rules(players: int, opts: OdinOptions) -> _Rules:
    # docs/rules.md §2.1: with 2 players remove two whole colours unless full_deck=true.
    colours = COLOURS[:4] if players == 2 and not opts.full_deck else COLOURS
    deck = _odin_deck()
    return _Rules(deck, _ids(deck, colours, False), 9, False, opts.target, opts.rounds)


def _race_rules(players: int, opts: OdinRaceOptions) -> _Rules:
    # docs/rules.md §3.1: four colours for 2 players; all dealt evenly, remainder aside.
    colours = COLOURS[:4] if players == 2 else COLOURS
    deck = _odin_deck()
    cards = _ids(deck, colours, False)
    return _Rules(deck, cards, len(cards) // players, True, 0, 1)


def _beta_rules(players: int, opts: OverrideBetaOptions) -> _Rules:
    deck = _beta_deck()
    cards = _ids(deck, SUITS, opts.cheat_code)
    return _Rules(deck, cards, 9, False, opts.target, opts.rounds)


# --------------------------------------------------------------------------
# The state


class OdinState(GameState[OdinAction, OdinObservation]):
    """A game of the Odin family in progress."""

    action_type: ClassVar[object] = OdinAction
    event_type: ClassVar[object] = OdinEvent
    observation_type: ClassVar[object] = OdinObservation

    def __init__(self, ruleset: str, players: int, rules: _Rules, seed: int) -> None:
        super().__init__(ruleset, players, seed)
        self.rules = rules
        self._deck = rules.deck
        self._numbers = rules.deck.table.numbers
        self._suits = rules.deck.table.suits
        self.totals = [0] * players
        self.round = 0
        self.round_leader = players - 1  # so that round 1 is led by seat 0
        self.hands: list[list[int]] = []
        self.aside = 0
        self.winner: int | None = None
        self._last_scores = [0] * players
        self._start_round()

    # -- round and trick flow -----------------------------------------------
    def _start_round(self) -> None:
        # docs/rules.md §2.4: reshuffle every card and deal again; the player to the left
        # of the previous round's first player leads.
        self.round += 1
        self.round_leader = (self.round_leader + 1) % self.players
        self.hands, rest = deal(self.rng, self.rules.cards, self.players, self.rules.hand_size)
        self.aside = len(rest)
        self.turn = self.round_leader
        self._new_trick(self.round_leader)
        encode = self._deck.table.encode
        for seat, hand in enumerate(self.hands):
            self._emit(Dealt(self.round, encode(hand)), (seat,))
        sizes = [len(h) for h in self.hands]
        self._emit(RoundStarted(self.round, self.round_leader, sizes, self.aside))

    def _new_trick(self, leader: int) -> None:
        self.phase = LEAD
        self.turn = leader
        self.middle: tuple[int, ...] = ()
        self.middle_value = 0
        self.middle_by: int | None = None
        self.beaten: tuple[int, ...] = ()
        self.passes = 0

    def _end_round(self) -> None:
        weights = self._deck.weights
        scores = [sum(weights[c] for c in h) for h in self.hands]
        self._last_scores = scores
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        r = self.rules
        if r.race:
            over = True
        elif r.rounds is not None:
            over = self.round >= r.rounds
        else:
            over = max(self.totals) >= r.target
        self._emit(RoundOver(self.round, scores, list(self.totals), over))
        if over:
            self.phase = OVER
        else:
            self._start_round()

    @property
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    # -- sets and values ------------------------------------------------------
    def _value(self, ids: tuple[int, ...]) -> int:
        """Digits largest first: {2, 8} = 82 (ids are sorted, so digits descend)."""
        numbers = self._numbers
        v = 0
        for c in ids:
            v = v * 10 + numbers[c]
        return v

    def _is_set(self, ids: tuple[int, ...]) -> bool:
        """One card, or cards sharing a number, or sharing a suit (the Cheat Code's suit is
        wild, and its number 0 joins no same-number set: docs/rules.md §4.2)."""
        if len(ids) == 1:
            return True
        numbers, suits = self._numbers, self._suits
        if len({numbers[c] for c in ids}) == 1:
            return True
        return len({suits[c] for c in ids if suits[c] != WILD_SUIT}) == 1

    def _groups(self, hand: list[int]) -> list[tuple[int, ...]]:
        """The hand's same-number groups and same-suit groups (each with the wild cards),
        of two or more cards: every set of 2+ cards lies in exactly one of them."""
        numbers, suits = self._numbers, self._suits
        by_number: dict[int, list[int]] = {}
        by_suit: dict[str, list[int]] = {}
        wild: list[int] = []
        for c in hand:
            by_number.setdefault(numbers[c], []).append(c)
            if suits[c] == WILD_SUIT:
                wild.append(c)
            else:
                by_suit.setdefault(suits[c], []).append(c)
        # Cards are unique, so a same-number set and a same-suit set of two or more
        # cards never coincide, and the Cheat Code (number 0) joins no number group.
        groups = [tuple(g) for n, g in by_number.items() if len(g) > 1 and n != 0]
        for g in by_suit.values():
            if len(g) + len(wild) > 1:
                groups.append(tuple(g + wild))  # wild sorts last: its number 0 is lowest
        return groups

    # -- legal actions ----------------------------------------------------------
    def legal_actions(self) -> list[OdinAction]:
        phase = self.phase
        if phase == OVER:
            return []
        deck = self._deck
        hand = self.hands[self.turn]
        if phase == TAKE:
            return [Take(deck.table.codes[c]) for c in self.beaten]
        singles = deck.singles
        if phase == LEAD:
            # docs/rules.md §2.3: lead exactly one card, or the whole hand if it is one set.
            actions: list[OdinAction] = [singles[c] for c in sorted(hand, key=deck.single_key)]
            whole = tuple(hand)
            if len(whole) > 1 and self._is_set(whole):
                actions.append(deck.play(whole))
            return actions
        # docs/rules.md §2.3: exactly m or m+1 cards, strictly greater value.
        m, mv = len(self.middle), self.middle_value
        groups = self._groups(hand)
        if m == 1:
            numbers = self._numbers
            ok = [c for c in hand if numbers[c] > mv]
            ok.sort(key=deck.single_key)
            actions = [singles[c] for c in ok]
        else:
            same: list[_Entry] = []
            for g in groups:
                if len(g) >= m:
                    entries = _group_sets(deck, g, m)
                    same.extend(entries[bisect_right(entries, mv, key=_value_of) :])
            same.sort()
            actions = [e[2] for e in same]
        more: list[_Entry] = []
        for g in groups:
            if len(g) > m:
                more.extend(_group_sets(deck, g, m + 1))
        more.sort()
        actions.extend(e[2] for e in more)
        actions.append(_PASS)
        return actions

    # -- applying ------------------------------------------------------------------
    def _apply(self, seat: int, action: OdinAction) -> OdinAction:
        if isinstance(action, Play):
            return self._play(seat, action)
        if isinstance(action, Pass):
            self._pass(seat, action)
            return action
        if isinstance(action, Take):
            return self._take(seat, action)
        raise IllegalAction(action, "not an action of this game (play, pass or take)")

    def _parse_cards(self, action: Play, hand: list[int]) -> tuple[int, ...]:
        if not action.cards:
            raise IllegalAction(action, "a play needs at least one card")
        ids = self._deck.table.from_hand(action, action.cards, hand, "in your hand")
        return tuple(sorted(ids))

    def _play(self, seat: int, action: Play) -> Play:
        if self.phase == TAKE:
            raise IllegalAction(action, "you must first take a card of the set you beat")
        hand = self.hands[seat]
        ids = self._parse_cards(action, hand)
        if not self._is_set(ids):
            raise IllegalAction(action, "the cards share neither a number nor a suit")
        if self.phase == LEAD:
            if len(ids) > 1 and len(ids) != len(hand):
                raise IllegalAction(
                    action, "a lead is one card, or the whole hand when it forms one set"
                )
        else:
            m = len(self.middle)
            if len(ids) not in (m, m + 1):
                raise IllegalAction(action, f"the middle holds {m}: play {m} or {m + 1} cards")
            if self._value(ids) <= self.middle_value:
                raise IllegalAction(
                    action,
                    f"value {self._value(ids)} does not beat the middle's {self.middle_value}",
                )
        canonical = self._deck.play(ids)
        for c in ids:
            hand.remove(c)
        beaten = self.middle
        self.middle, self.middle_value, self.middle_by = ids, self._value(ids), seat
        self.passes = 0
        self._emit(Played(seat, canonical.cards))
        if not hand:
            # docs/rules.md §2.4: the round ends as soon as a hand is empty; no take-back.
            self.winner = seat
            self._end_round()
        elif len(beaten) > 1:
            self.beaten = beaten
            self.phase = TAKE
        else:
            if beaten:  # a single beaten card: the take-back has no choice, so it is automatic
                self._take_back(seat, beaten[0])
            self.phase = PLAY
            self.turn = (seat + 1) % self.players
        return canonical

    def _take_back(self, seat: int, card: int) -> None:
        hand = self.hands[seat]
        hand.append(card)
        hand.sort()
        self._emit(Took(seat, self._deck.table.codes[card]))

    def _take(self, seat: int, action: Take) -> Take:
        if self.phase != TAKE:
            raise IllegalAction(action, "there is no beaten set to take a card from")
        c = self._deck.table.parse(action.card)
        if c is None or c not in self.beaten:
            choices = ", ".join(self._deck.table.encode(self.beaten))
            raise IllegalAction(action, f"take one of the beaten set: {choices}")
        self._take_back(seat, c)
        self.beaten = ()
        self.phase = PLAY
        self.turn = (seat + 1) % self.players
        return action

    def _pass(self, seat: int, action: Pass) -> None:
        if self.phase == LEAD:
            raise IllegalAction(action, "the leader must lead: passing is not allowed")
        if self.phase == TAKE:
            raise IllegalAction(action, "you must first take a card of the set you beat")
        self._emit(Passed(seat))
        self.passes += 1
        if self.passes == self.players - 1:
            # docs/rules.md §2.3: everyone else passed in a row; the last player to play leads.
            leader = self.middle_by
            assert leader is not None
            self._emit(TrickWon(leader))
            self._new_trick(leader)
        else:
            self.turn = (seat + 1) % self.players

    # -- views and result -------------------------------------------------------------
    def observation(self, seat: int) -> OdinObservation:
        encode = self._deck.table.encode
        over = self.phase == OVER
        return OdinObservation(
            ruleset=self.ruleset,
            seat=seat,
            players=self.players,
            round=self.round,
            phase=_PHASES[self.phase],
            to_act=None if over else self.turn,
            hand=encode(self.hands[seat]),
            hand_sizes=[len(h) for h in self.hands],
            middle=encode(self.middle),
            middle_by=self.middle_by,
            passes=self.passes,
            beaten=encode(self.beaten),
            round_leader=self.round_leader,
            totals=list(self.totals),
            aside=self.aside,
        )

    def outcome(self) -> Outcome:
        self._require_terminal()
        if self.rules.race:
            # docs/rules.md §3.3: the winner ranks 1, everyone else shares 2; cards left as
            # scores.
            scores = tuple(self._last_scores)
            return Outcome(scores, tuple(1 if s == self.winner else 2 for s in range(self.players)))
        # docs/rules.md §2.5: lowest total wins, ties share.
        return Outcome(tuple(self.totals), ranks_from_scores(self.totals, higher_is_better=False))


def new_odin(players: int, options: OdinOptions, seed: int) -> OdinState:
    return OdinState("odin", players, _odin_rules(players, options), seed)


def new_odin_race(players: int, options: OdinRaceOptions, seed: int) -> OdinState:
    return OdinState("odin-race", players, _race_rules(players, options), seed)


def new_override_beta(players: int, options: OverrideBetaOptions, seed: int) -> OdinState:
    return OdinState("override-beta", players, _beta_rules(players, options), seed)


# --------------------------------------------------------------------------
# The decision bound (docs/rules.md §9.2)


def _max_rounds(players: int, rules: _Rules) -> int:
    """The most rounds a game can last: every player but the one who went out keeps a card
    worth a point or more, so the totals grow by `players - 1` a round at least."""
    if rules.race:
        return 1
    if rules.rounds is not None:
        return rules.rounds
    return players * (rules.target - 1) // (players - 1) + 1


def _max_decisions(players: int, rules: _Rules) -> int:
    """The most decisions in a game: a round has at most B = n(h-1)+1 leads and plays of two
    or more cards, each trick at most `chain` single-on-single plays, and passes and takes
    between them, so at most B(n + (n-1)·chain) decisions (docs/rules.md §9.2)."""
    n = players
    numbers = [rules.deck.table.numbers[c] for c in rules.cards]
    chain = max(numbers) - min(numbers)  # a middle single climbs one number a play at least
    shrinking = n * (rules.hand_size - 1) + 1
    return _max_rounds(n, rules) * shrinking * (n + (n - 1) * chain)


def odin_max_decisions(players: int, options: OdinOptions) -> int:
    """The most decisions an `odin` game can take (docs/rules.md §9.2)."""
    return _max_decisions(players, _odin_rules(players, options))


def odin_race_max_decisions(players: int, options: OdinRaceOptions) -> int:
    """The most decisions an `odin-race` game can take (docs/rules.md §9.2)."""
    return _max_decisions(players, _race_rules(players, options))


def override_beta_max_decisions(players: int, options: OverrideBetaOptions) -> int:
    """The most decisions an `override-beta` game can take (docs/rules.md §9.2)."""
    return _max_decisions(players, _beta_rules(players, options))


#: the rulesets this module plays (collected by `arena.games`)
RULESETS = (
    Ruleset(
        id="odin",
        title="Odin",
        summary="Shed your cards in sets that beat the middle; lowest total wins.",
        min_players=2,
        max_players=6,
        options_type=OdinOptions,
        state_type=OdinState,
        factory=new_odin,
        max_decisions=odin_max_decisions,
    ),
    Ruleset(
        id="odin-race",
        title="Odin, race",
        summary="Odin's play in one round: the first to empty their hand wins.",
        min_players=2,
        max_players=6,
        options_type=OdinRaceOptions,
        state_type=OdinState,
        factory=new_odin_race,
        max_decisions=odin_race_max_decisions,
    ),
    Ruleset(
        id="override-beta",
        title="Override (beta)",
        summary="Odin with a standard deck and the Cheat Code (Joker); lowest total wins.",
        min_players=2,
        max_players=4,
        options_type=OverrideBetaOptions,
        state_type=OdinState,
        factory=new_override_beta,
        max_decisions=override_beta_max_decisions,
    ),
)
