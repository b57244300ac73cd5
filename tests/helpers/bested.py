"""Helpers for the bested and bested-solo tests: scripted positions, an independent
reference for melds and beating, random play, and an invariant checker.

The reference code works on card codes ("7H", "0S") and brute-forces what
docs/rules.md §5-§6 allow, without the engine's enumeration, so that a mistake in one
cannot hide behind the same mistake in the other.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from typing import Any

import msgspec

from arena.games import IllegalAction, new_game
from arena.games.bested import (
    BestedState,
    Bet,
    Decline,
    Discard,
    Done,
    Give,
    Pass,
    Play,
    Played,
    RoundOver,
    RoundStarted,
    ShedOut,
    Swap,
    TakeWild,
    TookWild,
    TrickStarted,
)
from arena.games.bested_solo import SoloState, TakeDummy
from arena.games.melds import card_table
from tests.helpers import play as shared

KINDS = ("single", "set", "run", "gap")
#: every bested game configuration the random tests cover
VARIANTS: list[dict[str, bool]] = [
    {},
    {"gaps": True},
    {"zeros": True},
    {"gaps": True, "zeros": True},
]
HIGH = {2: 12, 3: 15, 4: 15, 5: 17, 6: 17}


def deck_codes(players: int, zeros: bool = False) -> set[str]:
    """The cards of a bested deck, written out from docs/rules.md §5.1 (not the engine)."""
    low, high, suits = {
        2: (1, 12, "SHD"),
        3: (1, 15, "SHD"),
        4: (1, 15, "SHDC"),
        5: (1, 17, "SHDC"),
        6: (0, 17, "SHDC"),
    }[players]
    if zeros:
        low = 0
    return {f"{r}{s}" for r in range(low, high + 1) for s in suits}


SOLO_DECK = {f"{r}{s}" for r in range(2, 14) for s in "SHD"}


# --------------------------------------------------------------------------
# Reference rules on card codes


def rank(code: str) -> int:
    return int(code[:-1])


def suit(code: str) -> str:
    return code[-1]


def ref_meld(kind: str, cards: Sequence[str], wilds: Sequence[int]) -> tuple[int, int] | None:
    """(top, low) of the meld, or None when the cards make no such meld (docs/rules.md §5.3)."""
    ranks = [rank(c) for c in cards] + list(wilds)
    if not ranks or len(set(cards)) != len(cards) or any(not 0 <= r <= 17 for r in wilds):
        return None
    if kind == "single":
        return (ranks[0], ranks[0]) if len(ranks) == 1 else None
    if len(ranks) < 2:
        return None
    if kind == "set":
        return (ranks[0], ranks[0]) if len(set(ranks)) == 1 else None
    step = {"run": 1, "gap": 2}[kind]
    if len({suit(c) for c in cards}) > 1:
        return None
    ordered = sorted(ranks)
    if ordered != list(range(ordered[0], ordered[0] + step * len(ordered), step)):
        return None
    return ordered[-1], ordered[0]


def ref_beats(kind: str, size: int, top: int, low: int, old: tuple, zero_high: int | None) -> bool:
    """old = (kind, size, top): same type and size, strictly higher, or the zeros rule."""
    okind, osize, otop = old
    if kind != okind or size != osize:
        return False
    return top > otop or (zero_high is not None and low == 0 and otop == zero_high)


def ref_melds(hand: Sequence[str], wilds: int, kinds: Iterable[str]) -> set[tuple]:
    """Every meld of the hand as (kind, naturals, sorted wild ranks), by brute force over
    subsets of the naturals and the ranks a wild could take."""
    out = set()
    for kind in kinds:
        for k in range(0, len(hand) + 1):
            for cards in combinations(hand, k):
                for w in range(0, wilds + 1):
                    if k + w == 0:
                        continue
                    for declared in _declarations(kind, cards, w):
                        if ref_meld(kind, cards, declared) is not None:
                            out.add((kind, frozenset(cards), tuple(sorted(declared))))
    return out


def ref_sparing(hand: Sequence[str], meld: tuple) -> bool:
    """arena's ruling: a meld (kind, naturals, wild ranks) is offered as a play only when
    no natural card of the hand, left out of it, could stand in place of one of its wilds
    (the same kind of meld with that card for that wild)."""
    kind, cards, declared = meld
    for c in hand:
        if c in cards or rank(c) not in declared:
            continue
        rest = list(declared)
        rest.remove(rank(c))
        if ref_meld(kind, [*cards, c], rest) is not None:
            return False
    return True


def ref_swaps(meld: tuple, wilds: int) -> set[tuple]:
    """Every meld reached from `meld` by swapping naturals for wilds (itself included),
    with `wilds` wilds held in all."""
    kind, cards, declared = meld
    out = set()
    for k in range(0, min(len(cards), wilds - len(declared)) + 1):
        for out_cards in combinations(sorted(cards), k):
            ranks = tuple(sorted([*declared, *(rank(c) for c in out_cards)]))
            out.add((kind, frozenset(cards) - set(out_cards), ranks))
    return out


def _declarations(kind: str, cards: Sequence[str], w: int) -> Iterable[tuple[int, ...]]:
    """Candidate wild ranks: all of them for a single or set, every window for lines."""
    if w == 0:
        yield ()
        return
    if kind in ("single", "set"):
        for r in range(18):
            yield (r,) * w
        return
    step = 1 if kind == "run" else 2
    size = len(cards) + w
    for low in range(18):
        window = list(range(low, low + step * size, step))
        if window[-1] > 17:
            break
        have = [rank(c) for c in cards]
        rest = list(window)
        ok = True
        for r in have:
            if r in rest:
                rest.remove(r)
            else:
                ok = False
        if ok and len(rest) == w:
            yield tuple(rest)


def canon(action: Any) -> tuple:
    """An order-insensitive form of an action, for comparing lists of actions. A discard
    is known by the cards it takes out of the hand (the meld it names is a stand-in)."""
    if isinstance(action, Play):
        return ("play", action.meld, frozenset(action.cards), tuple(sorted(action.wilds)))
    if isinstance(action, Discard):
        return ("discard", frozenset(action.cards), len(action.wilds))
    return (type(action).__name__, *msgspec.structs.astuple(action))


# --------------------------------------------------------------------------
# Scripted positions


def ids(codes: Iterable[str]) -> list[int]:
    index = card_table().index
    return sorted(index[c] for c in codes)


def codes(card_ids: Iterable[int]) -> list[str]:
    return card_table().encode(card_ids)


def scripted(
    hands: Sequence[Sequence[str]],
    *,
    wilds: Sequence[Sequence[str]] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    leader: int = 0,
    shed: Sequence[int] = (),
    totals: Sequence[int] | None = None,
    bets: Sequence[tuple[int, int]] = (),
) -> BestedState:
    """A fresh bested game whose hands are overwritten, with `leader` to lead a new trick.

    `wilds` gives each seat's wilds by printed card; `shed` lists seats already shed out
    this round (their hands must be empty; each took the highest Pass Card out)."""
    n = len(hands)
    state = new_game("bested", n, options, seed)
    wilds = wilds or [[] for _ in range(n)]
    every = [c for h in hands for c in h] + [c for w in wilds for c in w]
    assert len(every) == len(set(every)), "a card is scripted twice"
    state.hands = [ids(h) for h in hands]
    state.wilds = [ids(w) for w in wilds]
    for s in shed:
        assert not hands[s], "a seat that shed out holds no cards"
        state.shed.append(s)
        k = max(k for k, v in state.pass_state.items() if v == "available")
        state.pass_state[k] = "removed"
    state.bets = list(bets)
    if totals is not None:
        state.totals = list(totals)
    state.round_leader = leader
    state._new_trick(leader)
    return state


def play(state: Any, meld: str, *cards: str, wilds: Sequence[int] = ()) -> None:
    state.apply(Play(meld, tuple(cards), tuple(wilds)))


def swap(state: Any, card: str) -> None:
    state.apply(Swap(card))


def done(state: Any) -> None:
    state.apply(Done())


def pass_(state: Any, card: str | None = None) -> None:
    state.apply(Pass(card))


def hand(state: Any, seat: int = 0) -> list[str]:
    h = state.hands[seat] if isinstance(state, BestedState) else state.hand
    return codes(h)


def solo_scripted(
    hand_: Sequence[str],
    dummy: Sequence[str],
    deck: Sequence[str],
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> SoloState:
    """A fresh bested-solo game with the bot's hand, the dummy (taken first to last) and
    the draw deck (drawn first to last) overwritten."""
    state = new_game("bested-solo", 1, options, seed)
    every = [*hand_, *dummy, *deck]
    assert len(every) == len(set(every)), "a card is scripted twice"
    index = card_table().index
    state.hand = ids(hand_)
    state.dummy = [index[c] for c in dummy]
    state.deck = [index[c] for c in deck]
    state.wilds = []
    state._new_trick()
    return state


# --------------------------------------------------------------------------
# Random play


def clone(state: Any) -> Any:
    """A deep copy of a game (the shared memo of action Structs is shared, not copied)."""
    return copy.deepcopy(state, {id(state._memo): state._memo})


def choose(rng: random.Random, actions: list[Any], style: str) -> Any:
    """Uniformly, or leaning towards playing, or towards passing."""
    if style == "eager":
        plays = [a for a in actions if not isinstance(a, Pass)]
        if plays and rng.random() < 0.9:
            return rng.choice(plays)
    elif style == "timid":
        passes = [a for a in actions if isinstance(a, (Pass, Decline))]
        if passes and rng.random() < 0.6:
            return rng.choice(passes)
    return rng.choice(actions)


MAX_ACTIONS = 200_000  # far above any random game: a game this long is stuck


def play_random(
    state: Any,
    rng: random.Random,
    *,
    style: str = "uniform",
    on_step: Callable[[Any], None] | None = None,
    stop_after: int | None = None,
) -> int:
    """Play `choose`n legal actions until the game ends (or `stop_after` actions)."""
    return shared.play_random(
        state, rng, choose, MAX_ACTIONS, style=style, on_step=on_step, stop_after=stop_after
    )


def candidates(state: Any, rng: random.Random, count: int) -> list[Any]:
    """Actions to try on `state`, legal or not: plausible melds of the hand (with and
    without wilds), discards, passes with every Pass Card, bets, gifts and takes of every
    card to every seat."""
    seat = state.current_player
    if isinstance(state, BestedState):
        nat = codes(state.hands[seat])
        w = len(state.wilds[seat])
        seats = list(range(state.players))
        every = sorted(deck_codes(state.players, state.rules.zeros))
        mine = nat + codes(state.wilds[seat])
    else:
        nat, w, seats, every, mine = hand(state), len(state.wilds), [0], sorted(SOLO_DECK), []
    out: list[Any] = []
    for _ in range(count):
        pick = rng.random()
        kind = rng.choice(KINDS)
        k = rng.randint(0, min(4, len(nat)))
        cards = tuple(rng.sample(nat, k))
        ws = tuple(rng.randint(0, 17) for _ in range(rng.randint(0, w + 1)))
        if cards and rng.random() < 0.5:  # wilds next to the naturals: likely valid
            base = rank(cards[0])
            ws = tuple(min(17, max(0, base + rng.choice((-2, -1, 0, 1, 2)))) for _ in ws)
        if pick < 0.45:
            out.append(Play(kind, cards, ws))
        elif pick < 0.55:
            out.append(Discard(kind, cards, ws))
        elif pick < 0.65:
            out.append(
                Pass(
                    rng.choice([None, "lead_next", "wild", "discard_meld", "bet_wild", "give_bet"])
                )
            )
        elif pick < 0.72:
            out.append(Bet(rng.choice([*seats, -1, 7])))
        elif pick < 0.82 and (mine or every):
            out.append(Give(rng.choice(mine or every), rng.choice(seats)))
        elif pick < 0.9:
            out.append(TakeWild(rng.choice(every)))
        elif pick < 0.93:
            out.append(Decline())
        elif pick < 0.95:
            out.append(TakeDummy())
        elif pick < 0.98:
            pending = getattr(state, "pending", None)
            mine = codes(pending.naturals) if pending is not None else []
            out.append(Swap(rng.choice(mine or nat or every)))
        else:
            out.append(Done())
    return out


def check_apply_matches_legal(state: Any, rng: random.Random, count: int = 12) -> None:
    """`apply` accepts exactly the listed actions: each listed one (a sample) is accepted
    and each sampled candidate is accepted if and only if it is listed; a refused action
    changes nothing."""
    legal = state.legal_actions()
    forms = {canon(a) for a in legal}

    def listed(action: Any) -> bool:
        # A discard is listed by the cards it takes out; the meld it names must be valid.
        if (
            isinstance(action, Discard)
            and ref_meld(action.meld, action.cards, action.wilds) is None
        ):
            return False
        return canon(action) in forms

    tries = rng.sample(legal, min(4, len(legal))) + candidates(state, rng, count)
    for action in tries:
        trial = clone(state)
        before = msgspec.json.encode(trial.observation(trial.current_player))
        events = trial.event_count
        try:
            trial.apply(action)
        except IllegalAction as exc:
            assert exc.reason
            assert not listed(action), f"{action} is listed but refused: {exc.reason}"
            assert msgspec.json.encode(trial.observation(trial.current_player)) == before
            assert trial.event_count == events
        else:
            assert listed(action), f"{action} is accepted but not listed"
            assert canon(trial.history[-1][1]) == canon(action)


# --------------------------------------------------------------------------
# Invariants


def pass_cards_in_round(state: BestedState) -> int:
    return sum(1 for k, v in state.pass_state.items() if v != "removed" and k not in state.leaving)


class Checker:
    """Checks bested's invariants after every action (call `check()` after each `apply`):
    card conservation, k-1 Pass Cards for k players holding cards, scores that add up
    from the public events, and what each seat is shown."""

    def __init__(self, state: BestedState) -> None:
        self.state = state
        self.n = state.players
        self.deck = deck_codes(state.players, state.rules.zeros)
        self.pos = 0
        self.totals = [0] * self.n
        self.rounds: list[RoundOver] = []
        self.took: set[str] = set()  # cards taken as wilds this round, from the events
        self.trick: list[str] = []  # the cards played this trick, wilds by printed card
        self.check()

    def check(self) -> None:
        st = self.state
        for ev in st.events_for(0, self.pos):
            if isinstance(ev, RoundStarted):
                self.took, self.trick = set(), []
            elif isinstance(ev, TrickStarted):
                self.trick = []
            elif isinstance(ev, Played):
                self.trick += [*ev.cards, *ev.wild_cards]
            elif isinstance(ev, TookWild):
                assert ev.card in self.trick and ev.card not in self.took
                self.took.add(ev.card)
            elif isinstance(ev, ShedOut):
                self.totals[ev.seat] += ev.points
                for p in ev.payouts:
                    self.totals[p.owner] += p.points
            elif isinstance(ev, RoundOver):
                assert ev.totals == self.totals
                assert ev.game_over == (max(ev.totals) >= st.rules.threshold)
                assert sorted(ev.order) == list(range(self.n))
                self.rounds.append(ev)
        self.pos = st.event_count
        assert st.totals == self.totals
        if st.is_terminal:
            assert self.rounds and self.rounds[-1].game_over
            assert st.legal_actions() == []
            return
        # Card conservation: every card of the deck is in exactly one place.
        places = [c for s in range(self.n) for c in st.hands[s] + st.wilds[s]]
        if st.pending is not None:  # the swap step: a meld out of the hand, not yet public
            places += [*st.pending.naturals, *st._pending_used]
            assert st.phase == 5 and len(st.pending.wilds) == len(st._pending_used)
            assert st.pending.naturals and st.wilds[st.current_player]
        else:
            assert st.phase != 5
        places += [c for c in st.trick_cards if c not in st.taken]
        places += st.discard_pile
        seen = codes(places)
        assert len(seen) == len(set(seen)), "a card is in two places"
        assert set(seen) <= self.deck
        assert len(seen) + st.undealt == len(self.deck)
        # docs/rules.md §5.1: with k players holding cards there are k - 1 Pass Cards.
        holders = st.holders()
        assert len(holders) >= 2
        assert pass_cards_in_round(st) == len(holders) - 1
        held = [k for k, v in st.pass_state.items() if v == "held"]
        assert len({st.pass_holder[k] for k in held}) == len(held), "one Pass Card each"
        assert all(0 <= st._bets_left(s) <= 5 for s in range(self.n))
        # The seat to act holds cards and is in the trick (or resolves its Pass Card).
        seat = st.current_player
        assert st.size(seat) > 0 or st.phase == 0
        if st.phase in (1, 2):
            assert st.in_trick[seat]
        legal = st.legal_actions()
        assert legal, "no legal action"
        forms = [canon(a) for a in legal]
        assert len(forms) == len(set(forms)), "duplicate legal actions"
        for s in range(self.n):
            obs = st.observation(s)
            assert obs.to_act == seat and obs.totals == self.totals
            assert obs.hand_sizes == [st.size(x) for x in range(self.n)]
            assert obs.hand == codes(st.hands[s]) and obs.wilds == codes(st.wilds[s])
            # docs/rules.md §5.6: a card played this trick, not taken as a wild this round.
            assert obs.takeable == [c for c in self.trick if c not in self.took]
            # The pending meld and the swap step are the deciding seat's alone.
            mine = st.pending is not None and s == seat
            assert (obs.pending is not None) == mine
            assert (obs.phase == "swap") == mine


def check_legal_against_reference(state: Any, limit: int = 7) -> bool:
    """When the hand is small, the listed plays (or discards) equal the brute force less
    the melds with a wild where a natural could stand; and those plays followed by swaps
    reach every meld of the brute force, no more. In the swap step, the offer is `done`
    and one swap per natural of the pending meld."""
    seat = state.current_player
    if isinstance(state, BestedState):
        nat, w = codes(state.hands[seat]), len(state.wilds[seat])
        kinds = [k for k in KINDS if k != "gap" or state.rules.gaps]
        zero_high = state.rules.zero_high
        phase = ("choose", "lead", "play", "resolve", "over", "swap")[state.phase]
        resolving = state.resolving
    else:
        nat, w = hand(state), len(state.wilds)
        kinds, zero_high = ["set", "run"], None
        phase, resolving = ("lead", "play", "over", "swap")[state.phase], None
    legal = state.legal_actions()
    if phase == "swap":
        pending = codes(state.pending.naturals)
        assert w >= 1 and pending
        assert {canon(a) for a in legal} == {("Done",)} | {("Swap", c) for c in pending}
        assert len(legal) == len(pending) + 1
        return True
    if len(nat) > limit or w > 2:
        return False
    if phase == "lead" or (phase == "play"):
        every = ref_melds(nat, w, kinds)
        if phase == "play":
            old = state.beat
            old_key = (KINDS[old.kind], old.size, old.top)
            every = {
                m
                for m in every
                if ref_beats(m[0], len(m[1]) + len(m[2]), *_top_low(m), old_key, zero_high)
            }
        expected = {m for m in every if ref_sparing(nat, m)}
        got = {
            (a.meld, frozenset(a.cards), tuple(sorted(a.wilds)))
            for a in legal
            if isinstance(a, Play)
        }
        assert got == expected
        reached = {r for m in got for r in ref_swaps(m, w)}
        assert reached == every
        return True
    if phase == "resolve" and resolving == 4:
        every = ref_melds(nat, w, kinds)
        every_keys = {(m[1], len(m[2])) for m in every}
        got_keys = {(frozenset(a.cards), len(a.wilds)) for a in legal}
        assert got_keys == {(m[1], len(m[2])) for m in every if ref_sparing(nat, m)}
        reached = {
            (r[1], len(r[2]))
            for a in legal
            for r in ref_swaps((a.meld, frozenset(a.cards), tuple(a.wilds)), w)
        }
        assert reached == every_keys
        return True
    return False


def _top_low(m: tuple) -> tuple[int, int]:
    top_low = ref_meld(m[0], sorted(m[1]), m[2])
    assert top_low is not None
    return top_low
