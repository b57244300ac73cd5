"""Helpers for the Odin family tests: scripted positions, an independent reference
for sets, values and legal plays, random play, and an event-driven invariant checker.

The reference code here deliberately does not reuse the engine's helpers: it works on
card codes ("7R", "0*") and brute-forces what the rules (docs/rules.md §2-§4) allow, so that a
mistake in the engine cannot hide behind the same mistake in the test.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from math import comb
from typing import Any

import msgspec

from arena.games import Outcome, new_game
from arena.games.odin import (
    Dealt,
    OdinState,
    Pass,
    Passed,
    Play,
    Played,
    RoundOver,
    RoundStarted,
    Take,
    Took,
    TrickWon,
)
from tests.helpers import play as shared

CHEAT = "0*"

#: every ruleset of the family with the player counts it seats
PLAYER_COUNTS: dict[str, tuple[int, ...]] = {
    "odin": (2, 3, 4, 5, 6),
    "odin-race": (2, 3, 4, 5, 6),
    "override-beta": (2, 3, 4),
}
CONFIGS: list[tuple[str, int]] = [(r, n) for r, ns in PLAYER_COUNTS.items() for n in ns]


def full_deck(ruleset: str, colours: str | None = None, cheat: bool = True) -> set[str]:
    """The card codes a ruleset deals from, written out by hand (not from the engine)."""
    if ruleset == "override-beta":
        cards = {f"{n}{s}" for n in range(1, 10) for s in "SHDC"}
        return cards | {CHEAT} if cheat else cards
    return {f"{n}{c}" for n in range(1, 10) for c in (colours or "ROYGBP")}


# --------------------------------------------------------------------------
# Reference rules on card codes


def number(code: str) -> int:
    return int(code[:-1])


def suit(code: str) -> str:
    return code[-1]


def weight(code: str) -> int:
    """Points for a card left in hand: 1, the Cheat Code 5 (docs/rules.md §4.4)."""
    return 5 if code == CHEAT else 1


def score(hand: Iterable[str]) -> int:
    return sum(weight(c) for c in hand)


def is_set(cards: Sequence[str]) -> bool:
    """One card, or cards sharing a number (never the Cheat Code), or sharing a suit
    (the Cheat Code's suit is wild)."""
    if len(cards) == 1:
        return True
    if len(set(cards)) != len(cards):
        return False
    if CHEAT not in cards and len({number(c) for c in cards}) == 1:
        return True
    return len({suit(c) for c in cards if c != CHEAT}) == 1


def value(cards: Iterable[str]) -> int:
    """Digits largest first: {2, 8} = 82, Cheat Code + 9 = 90."""
    return int("".join(str(d) for d in sorted((number(c) for c in cards), reverse=True)))


def canon(action: Any) -> tuple:
    """An order-insensitive form of an action, for comparing lists of actions."""
    if isinstance(action, Play):
        return ("play", frozenset(action.cards))
    if isinstance(action, Pass):
        return ("pass",)
    if isinstance(action, Take):
        return ("take", action.card)
    return ("other", repr(action))


def reference_legal(obs: Any, limit: int | None = None) -> set[tuple] | None:
    """Every legal action for the seat to act, by brute force over subsets of its hand.

    Returns None when the brute force would try more than `limit` subsets."""
    hand, middle = obs.hand, obs.middle
    if obs.phase == "take":
        return {("take", c) for c in obs.beaten}
    if obs.phase == "lead":
        out = {("play", frozenset([c])) for c in hand}
        if len(hand) > 1 and is_set(hand):
            out.add(("play", frozenset(hand)))
        return out
    if obs.phase != "play":
        return set()
    m = len(middle)
    sizes = [k for k in (m, m + 1) if k <= len(hand)]
    if limit is not None and sum(comb(len(hand), k) for k in sizes) > limit:
        return None
    out = {("pass",)}
    mv = value(middle)
    for k in sizes:
        for cards in combinations(hand, k):
            if is_set(cards) and value(cards) > mv:
                out.add(("play", frozenset(cards)))
    return out


# --------------------------------------------------------------------------
# Scripted positions


def ids(state: OdinState, codes: Iterable[str]) -> list[int]:
    index = state._deck.table.index
    return sorted(index[c] for c in codes)


def codes(state: OdinState, card_ids: Iterable[int]) -> list[str]:
    return [state._deck.table.codes[i] for i in card_ids]


def hand(state: OdinState, seat: int) -> list[str]:
    return codes(state, state.hands[seat])


def set_hands(state: OdinState, hands: Sequence[Sequence[str]]) -> None:
    """Overwrite every seat's hand (for scripting the rest of a round)."""
    state.hands = [ids(state, h) for h in hands]


def scripted(
    ruleset: str,
    hands: Sequence[Sequence[str]],
    *,
    middle: Sequence[str] = (),
    by: int | None = None,
    turn: int = 0,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    totals: Sequence[int] | None = None,
) -> OdinState:
    """A fresh game of `ruleset` whose hands (and middle) are overwritten to script a position.

    With no middle the seat `turn` is to lead; with a middle (played by `by`, by default the
    seat before `turn`) the seat `turn` is to beat it or pass."""
    players = len(hands)
    state = new_game(ruleset, players, options, seed)
    all_cards = [c for h in hands for c in h] + list(middle)
    assert len(all_cards) == len(set(all_cards)), "a card is scripted twice"
    set_hands(state, hands)
    state.middle = tuple(ids(state, middle))
    state.middle_value = value(middle) if middle else 0
    state.middle_by = ((turn - 1) % players if by is None else by) if middle else None
    state.beaten = ()
    state.passes = 0
    state.turn = turn
    state.phase = 1 if middle else 0
    if totals is not None:
        state.totals = list(totals)
    return state


def play(state: OdinState, *cards: str) -> None:
    state.apply(Play(tuple(cards)))


def pass_(state: OdinState) -> None:
    state.apply(Pass())


# --------------------------------------------------------------------------
# Random play and the invariant checker


def choose(rng: random.Random, actions: list[Any], style: str) -> Any:
    """Pick an action: uniformly, or leaning towards playing, or towards passing."""
    if style == "eager":
        plays = [a for a in actions if not isinstance(a, Pass)]
        if plays and rng.random() < 0.9:
            return rng.choice(plays)
    elif style == "timid":
        passes = [a for a in actions if isinstance(a, Pass)]
        if passes and rng.random() < 0.7:
            return passes[0]
    return rng.choice(actions)


def max_rounds(state: OdinState) -> int:
    """Each round every player but the one who went out scores at least 1 point, so the
    highest total grows by at least 1 every 2 rounds (2 players) or every round (3+)."""
    rules = state.rules
    if rules.race:
        return 1
    if rules.rounds is not None:
        return rules.rounds
    return 2 * rules.target


#: far above what random play needs (a few hundred actions at most): a round that runs
#: this long is stuck
MAX_ACTIONS_PER_ROUND = 3000


def play_random(
    state: OdinState,
    rng: random.Random,
    *,
    style: str = "uniform",
    on_step: Callable[[OdinState], None] | None = None,
    stop_after: int | None = None,
) -> int:
    """Play random legal actions until the game ends (or `stop_after` actions); return the
    number of actions applied. Fails if the game runs past its bound."""
    bound = max_rounds(state) * MAX_ACTIONS_PER_ROUND
    return shared.play_random(
        state, rng, choose, bound, style=style, on_step=on_step, stop_after=stop_after
    )


class Checker:
    """Follows a game through its public event log and checks the rules' invariants after
    every action (call `check()` once after each `apply`).

    It keeps its own copy of the hands (from the start of each round plus the Played and
    Took events), its own middle and its own discard pile, so the engine's state is
    compared against a second, event-driven account of the game."""

    def __init__(self, state: OdinState) -> None:
        self.state = state
        self.n = state.players
        self.in_play = set(codes(state, state.rules.cards))
        self.pos = 0
        self.rounds: list[tuple[int, int]] = []  # (round, leader) from RoundStarted
        self.round_overs: list[RoundOver] = []
        self.totals = [0] * self.n
        self.hands: list[list[str]] = []
        self.middle: list[str] = []
        self.middle_by: int | None = None
        self.beaten: list[str] = []
        self.discard: set[str] = set()
        self.leader: int | None = None
        self.passes = 0  # passes in a row since the last play
        self.aside = 0
        self.round_actions = 0
        self.dealt: dict[int, list[list[str]]] = {}  # round -> each seat's Dealt hand
        self.winner: int | None = None
        self.check()

    # -- event handling ------------------------------------------------------
    def _events(self) -> list[msgspec.Struct]:
        st = self.state
        new = st.events_for(0, self.pos)
        # Private Dealt events: collect every seat's own, and only its own.
        for seat in range(self.n):
            for ev in st.events_for(seat, self.pos):
                if isinstance(ev, Dealt):
                    self.dealt.setdefault(ev.round, [[] for _ in range(self.n)])
                    assert self.dealt[ev.round][seat] == [], "two Dealt events for one seat"
                    self.dealt[ev.round][seat] = list(ev.hand)
        self.pos = st.event_count
        return new

    def check(self) -> None:
        self.round_actions += 1
        assert self.round_actions <= MAX_ACTIONS_PER_ROUND, "round did not end"
        for ev in self._events():
            self._event(ev)
        self._state_invariants()

    def _event(self, ev: msgspec.Struct) -> None:
        n = self.n
        if isinstance(ev, Dealt):
            return
        if isinstance(ev, RoundStarted):
            assert ev.round == len(self.rounds) + 1
            if self.rounds:
                assert self.round_overs and self.round_overs[-1].round == ev.round - 1
                assert not self.round_overs[-1].game_over
            # docs/rules.md §2.4: round r is led by seat (r - 1) mod n (seat 0 first, then left).
            assert ev.leader == (ev.round - 1) % n
            size = self.state.rules.hand_size
            assert ev.hand_sizes == [size] * n
            assert ev.aside == len(self.in_play) - size * n
            self.rounds.append((ev.round, ev.leader))
            dealt = self.dealt[ev.round]
            assert all(len(h) == size for h in dealt)
            self.hands = [list(h) for h in dealt]
            self.middle, self.middle_by, self.beaten = [], None, []
            self.discard = set()
            self.aside = ev.aside
            self.passes = 0
            self.leader = ev.leader
            self.round_actions = 0
            return
        if isinstance(ev, Played):
            cards = list(ev.cards)
            assert is_set(cards), f"{cards} is not a set"
            for c in cards:
                assert c in self.hands[ev.seat], f"seat {ev.seat} played {c} it did not hold"
                self.hands[ev.seat].remove(c)
            if not self.middle:
                # A lead: exactly one card, unless it is the whole hand (which ends the round).
                assert ev.seat == self.leader, "the wrong seat led"
                if len(cards) > 1:
                    assert self.hands[ev.seat] == [], "a multi-card lead must be the whole hand"
            else:
                m = len(self.middle)
                assert ev.seat != self.middle_by, "a player played over their own set"
                assert len(cards) in (m, m + 1), f"{len(cards)} cards played over {m}"
                assert value(cards) > value(self.middle), "value did not increase"
            self.discard |= set(self.middle)
            self.beaten = list(self.middle)
            self.middle, self.middle_by = cards, ev.seat
            self.passes = 0
            return
        if isinstance(ev, Took):
            assert ev.seat == self.middle_by, "only the player who beat the set takes"
            assert ev.card in self.beaten, f"{ev.card} was not in the beaten set"
            assert self.hands[ev.seat], "a player who went out took a card back"
            self.discard.remove(ev.card)
            self.hands[ev.seat].append(ev.card)
            self.beaten = []
            return
        if isinstance(ev, Passed):
            assert ev.seat != self.middle_by
            assert self.middle, "passed on an empty table"
            assert self.passes < n - 1, "a trick went on after all others passed"
            self.passes += 1
            return
        if isinstance(ev, TrickWon):
            assert ev.seat == self.middle_by
            assert self.passes == n - 1, "a trick ended before all others passed in a row"
            assert all(self.hands), "a trick ended although a hand is empty"
            self.discard |= set(self.middle)
            self.middle, self.middle_by, self.beaten = [], None, []
            self.passes = 0
            self.leader = ev.seat
            return
        if isinstance(ev, RoundOver):
            assert ev.round == len(self.rounds)
            empty = [s for s, h in enumerate(self.hands) if not h]
            assert len(empty) == 1, "a round ends exactly when one hand is empty"
            assert ev.scores == [score(h) for h in self.hands]
            new_totals = [t + s for t, s in zip(self.totals, ev.scores, strict=True)]
            assert ev.totals == new_totals
            assert all(a <= b for a, b in zip(self.totals, ev.totals, strict=True))
            self.totals = new_totals
            rules = self.state.rules
            if rules.race:
                expect_over = True
            elif rules.rounds is not None:
                expect_over = ev.round >= rules.rounds
            else:
                expect_over = max(new_totals) >= rules.target
            assert ev.game_over == expect_over
            self.round_overs.append(ev)
            self.winner = empty[0]
            return
        raise AssertionError(f"unexpected event {ev!r}")

    def _state_invariants(self) -> None:
        st = self.state
        n = self.n
        hands = [hand(st, s) for s in range(n)]
        middle = codes(st, st.middle)
        beaten = codes(st, st.beaten)
        if st.is_terminal:
            assert self.round_overs and self.round_overs[-1].game_over
            return
        # The engine agrees with the event-driven account.
        assert [sorted(h) for h in hands] == [sorted(h) for h in self.hands]
        assert sorted(middle) == sorted(self.middle)
        assert sorted(beaten) == sorted(self.beaten)
        assert (st.phase == 2) == bool(beaten)
        assert set(beaten) <= self.discard
        # Card conservation: hands + middle + discarded + aside = the cards in play.
        seen = [c for h in hands for c in h] + middle + sorted(self.discard)
        assert len(seen) == len(set(seen)), "a card is in two places"
        assert set(seen) <= self.in_play
        assert len(seen) + st.aside == len(self.in_play)
        assert st.round == len(self.rounds)
        assert st.totals == self.totals
        assert self.passes < n - 1, "all others passed but the trick did not end"
        # What every seat is shown agrees with the public account of the game.
        for seat in range(n):
            obs = st.observation(seat)
            assert obs.seat == seat and obs.players == n
            assert obs.to_act == st.current_player
            assert obs.hand == hands[seat]
            assert obs.hand_sizes == [len(h) for h in self.hands]
            assert sorted(obs.middle) == sorted(self.middle)
            assert obs.middle_by == self.middle_by
            assert sorted(obs.beaten) == sorted(self.beaten)
            assert obs.passes == self.passes
            assert obs.round == len(self.rounds)
            assert obs.round_leader == self.rounds[-1][1]
            assert obs.totals == self.totals
            assert obs.aside == self.aside
            expected_phase = "take" if self.beaten else ("lead" if not self.middle else "play")
            assert obs.phase == expected_phase


def check_outcome(state: OdinState, checker: Checker) -> Outcome:
    """The outcome agrees with the scores (docs/rules.md §2.5, §3.3, §4.4)."""
    out = state.outcome()
    n = state.players
    if state.rules.race:
        last = checker.round_overs[-1]
        assert list(out.scores) == last.scores
        winners = [s for s in range(n) if out.ranks[s] == 1]
        assert winners == [checker.winner]
        assert out.scores[checker.winner] == 0
        assert all(out.ranks[s] == 2 for s in range(n) if s != checker.winner)
    else:
        assert list(out.scores) == checker.totals
        for s in range(n):
            assert out.ranks[s] == 1 + sum(1 for t in out.scores if t < out.scores[s])
        best = min(out.scores)
        assert all((out.ranks[s] == 1) == (out.scores[s] == best) for s in range(n))
    return out
