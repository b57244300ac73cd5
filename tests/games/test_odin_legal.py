"""Legal actions: counts worked out by hand, no duplicates, a deterministic order, and
`apply` accepting exactly what `legal_actions` lists (docs/rules.md §2-§4)."""

from __future__ import annotations

import random
from math import comb

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, new_game
from arena.games.odin import Pass, Play, Take
from tests.helpers.odin import (
    CONFIGS,
    PLAYER_COUNTS,
    canon,
    full_deck,
    is_set,
    number,
    play_random,
    reference_legal,
    scripted,
    suit,
    value,
)


def P(*cards: str) -> tuple:
    return ("play", frozenset(cards))


def forms(state) -> list[tuple]:
    return [canon(a) for a in state.legal_actions()]


RED = [f"{n}R" for n in range(1, 10)]


# --------------------------------------------------------------------------
# Counts worked out by hand


def test_one_colour_hand_facing_a_single_five_has_41_actions():
    state = scripted("odin", [["9O"], RED], middle=["5O"], turn=1)
    actions = forms(state)
    # Singles above 5: 6, 7, 8, 9. Pairs: any two of nine same-colour cards, C(9, 2) = 36.
    singles = {P(c) for c in ("6R", "7R", "8R", "9R")}
    pairs = {P(a, b) for i, a in enumerate(RED) for b in RED[i + 1 :]}
    assert len(pairs) == 36
    assert set(actions) == singles | pairs | {("pass",)}
    assert len(actions) == 41


def test_one_colour_hand_facing_a_pair_of_sevens_has_100_actions():
    state = scripted("odin", [["9O"], RED], middle=["7G", "7B"], turn=1)
    actions = forms(state)
    # Pairs worth more than 77: 9x (8) and 8x (7); 7x is at most 76. Triples: C(9, 3) = 84.
    pairs = [a for a in actions if a[0] == "play" and len(a[1]) == 2]
    triples = [a for a in actions if a[0] == "play" and len(a[1]) == 3]
    assert len(pairs) == 15
    assert all(max(number(c) for c in p[1]) >= 8 for p in pairs)
    assert len(triples) == 84
    assert len(actions) == 15 + 84 + 1


def test_four_of_a_number_facing_a_pair_has_11_actions():
    hand1 = ["4R", "4O", "4Y", "4G", "2B", "1B"]
    state = scripted("odin", [["9R"], hand1], middle=["3P", "3B"], turn=1)
    # Pairs of 4s (C(4, 2) = 6) beat 33; 21 (2B 1B) does not; triples of 4s: C(4, 3) = 4.
    fours = ["4R", "4O", "4Y", "4G"]
    expected = {P(a, b) for i, a in enumerate(fours) for b in fours[i + 1 :]}
    expected |= {P(*(c for c in fours if c != x)) for x in fours}
    assert set(forms(state)) == expected | {("pass",)}
    assert len(forms(state)) == 11


def test_six_of_a_number_facing_a_single_four_has_22_actions():
    fives = [f"5{c}" for c in "ROYGBP"]
    state = scripted("odin", [["9R"], fives], middle=["4R"], turn=1)
    assert len(forms(state)) == 6 + comb(6, 2) + 1


def test_cheat_code_hand_facing_a_single_eight_has_9_actions():
    hand1 = ["0*", "9S", "9H", "5S", "2D"]
    state = scripted("override-beta", [["1C"], hand1], middle=["8C"], turn=1)
    expected = {
        P("9S"),
        P("9H"),  # singles above 8; the Cheat Code alone (0) never
        P("9S", "9H"),  # same number
        P("9S", "5S"),
        P("9S", "0*"),
        P("5S", "0*"),  # spades, the Cheat Code joining
        P("9H", "0*"),
        P("2D", "0*"),  # the Cheat Code with any one card
        ("pass",),
    }
    assert set(forms(state)) == expected
    assert len(forms(state)) == 9


def test_cheat_code_hand_facing_a_pair_of_sixes_has_12_actions():
    hand1 = ["0*", "9S", "9H", "7S", "5S", "2D"]
    state = scripted("override-beta", [["1C"], hand1], middle=["6C", "6D"], turn=1)
    expected = {
        # pairs above 66: 99, 97, 95, 90 (9S 0*), 75, 70, 90 (9H 0*); not 50 or 20
        P("9S", "9H"),
        P("9S", "7S"),
        P("9S", "5S"),
        P("9S", "0*"),
        P("7S", "5S"),
        P("7S", "0*"),
        P("9H", "0*"),
        # triples: three of the four spades-with-Cheat-Code cards; never 9S 9H 0*
        P("9S", "7S", "5S"),
        P("9S", "7S", "0*"),
        P("9S", "5S", "0*"),
        P("7S", "5S", "0*"),
        ("pass",),
    }
    assert set(forms(state)) == expected
    assert len(forms(state)) == 12


def test_lead_counts():
    mixed = ["9R", "8O", "6Y", "5G", "4B", "3P", "2R", "1O", "7Y"]  # not one set
    state = scripted("odin", [mixed, ["1R"]])
    assert set(forms(state)) == {P(c) for c in mixed}
    assert len(forms(state)) == 9
    state = scripted("odin", [["3R", "3O", "3Y"], ["1R"]])
    assert len(forms(state)) == 4  # three singles and the whole hand
    state = scripted("odin", [["3R"], ["1R"]])
    assert forms(state) == [P("3R")]


def test_a_hand_too_small_to_beat_can_only_pass():
    state = scripted("odin", [["1R"], ["9R", "9O"], ["2R"]], middle=["1Y", "1G", "1B"], turn=1)
    assert forms(state) == [("pass",)]


def test_take_counts_one_per_beaten_card():
    state = scripted(
        "odin", [["1R"], ["4R", "4O", "4Y", "2P"], ["2R"]], middle=["3R", "3O", "3Y"], turn=1
    )
    state.apply(Play(("4R", "4O", "4Y")))
    assert sorted(forms(state)) == sorted(("take", c) for c in ("3R", "3O", "3Y"))


# --------------------------------------------------------------------------
# No duplicates, deterministic order


@pytest.mark.parametrize(("ruleset", "players"), CONFIGS, ids=str)
def test_legal_lists_are_duplicate_free_and_deterministic(ruleset, players):
    a = new_game(ruleset, players, None, 42)
    b = new_game(ruleset, players, None, 42)
    rng_a, rng_b = random.Random(5), random.Random(5)
    for _ in range(150):
        if a.is_terminal:
            break
        la, lb = a.legal_actions(), b.legal_actions()
        assert la == lb  # same position, same list, same order
        assert la == a.legal_actions()
        fa = [canon(x) for x in la]
        assert len(fa) == len(set(fa))
        a.apply(rng_a.choice(la))
        b.apply(rng_b.choice(lb))


def test_the_order_does_not_depend_on_how_the_position_was_reached():
    hand1 = ["0*", "9S", "9H", "7S", "5S", "2D", "2H"]
    lists = []
    for seed in (0, 1, 99):
        state = scripted("override-beta", [["1C"], hand1], middle=["6C", "6D"], turn=1, seed=seed)
        lists.append(msgspec.json.encode(state.legal_actions()))
    reordered = scripted("override-beta", [["1C"], hand1[::-1]], middle=["6D", "6C"], turn=1)
    lists.append(msgspec.json.encode(reordered.legal_actions()))
    assert len(set(lists)) == 1


# --------------------------------------------------------------------------
# apply agrees with legal_actions


def violations(obs, action, deck: set[str]) -> list[tuple[str, ...]]:
    """Each rule the action breaks, as words its refusal should contain (any one will do)."""
    phase, hand = obs.phase, obs.hand
    out: list[tuple[str, ...]] = []
    if phase == "take":
        if isinstance(action, Take):
            if action.card not in obs.beaten:
                out.append(("take one of", *obs.beaten))
        else:
            out.append(("take",))
        return out
    if isinstance(action, Take):
        return [("beaten",)]
    if isinstance(action, Pass):
        return [("lead",)] if phase == "lead" else []
    cards = list(action.cards)
    if not cards:
        return [("at least one card",)]
    for c in cards:
        if c not in deck:
            out.append(("not a card", c))
        elif c not in hand:
            out.append(("not in your hand", c))
    if len(set(cards)) != len(cards):
        out.append(("twice",))
    if out:
        return out
    if not is_set(cards):
        out.append(("neither",))
    if phase == "lead":
        if len(cards) > 1 and len(cards) != len(hand):
            out.append(("one card",))
    else:
        m = len(obs.middle)
        if len(cards) not in (m, m + 1):
            out.append((f"play {m} or {m + 1}",))
        elif value(cards) <= value(obs.middle):
            out.append(("does not beat",))
    return out


@st.composite
def scripted_positions(draw):
    """A random position: random hands, and either a lead or a random set to beat."""
    ruleset = draw(st.sampled_from(list(PLAYER_COUNTS)))
    players = draw(st.sampled_from(PLAYER_COUNTS[ruleset]))
    deck = draw(st.permutations(sorted(full_deck(ruleset))))
    sizes = [draw(st.integers(1, 9)) for _ in range(players)]
    hands, rest = [], list(deck)
    for size in sizes:
        hands.append(rest[:size])
        rest = rest[size:]
    turn = draw(st.integers(0, players - 1))
    if ruleset == "override-beta" and "0*" not in hands[turn] and draw(st.booleans()):
        # Often give the seat to act the Cheat Code: it is where most rule subtleties are.
        swap = hands[turn][0]
        for pile in [*hands, rest]:
            if "0*" in pile:
                pile[pile.index("0*")] = swap
        hands[turn][0] = "0*"
    middle: list[str] = []
    if draw(st.booleans()):
        size = draw(st.integers(1, 5))
        groups: dict[str, list[str]] = {}
        for c in rest:
            if c != "0*":
                groups.setdefault(f"n{number(c)}", []).append(c)
                groups.setdefault(f"s{suit(c)}", []).append(c)
        for key in groups:
            if key.startswith("s") and "0*" in rest:
                groups[key].append("0*")
        eligible = sorted(k for k, g in groups.items() if len(g) >= size)
        if size == 1 or not eligible:
            middle = [rest[0]]
        else:
            middle = groups[draw(st.sampled_from(eligible))][:size]
        assert is_set(middle)
    options = {"rounds": 1} if ruleset != "odin-race" else None
    return scripted(ruleset, hands, middle=middle, turn=turn, options=options)


@st.composite
def played_positions(draw):
    """A position reached by random play from a random deal."""
    ruleset, players = draw(st.sampled_from(CONFIGS))
    state = new_game(ruleset, players, None, draw(st.integers(0, 2**32)))
    rng = random.Random(draw(st.integers(0, 2**32)))
    play_random(state, rng, stop_after=draw(st.integers(0, 120)))
    return state


def candidate(draw, state, deck: list[str]):
    obs = state.observation(state.current_player)
    hand = obs.hand
    kind = draw(
        st.sampled_from(
            [
                "subset",
                "subset",
                "group",
                "group",
                "legal",
                "foreign",
                "pass",
                "take",
                "odd",
                "twice",
            ]
        )
    )
    if kind == "group":
        # Cards sharing a number or a suit (or a number plus the Cheat Code, which is no set),
        # in any size: near-misses and sets of every length, which random subsets rarely are.
        groups: dict[str, list[str]] = {}
        for c in hand:
            groups.setdefault(f"number {number(c)}", []).append(c)
            groups.setdefault(f"suit {suit(c)}", []).append(c)
        if "0*" in hand:
            for key, cards in groups.items():
                if key.startswith("number") and "0*" not in cards:
                    cards.append("0*")
                elif key.startswith("suit"):
                    groups[key] = sorted(set(cards) | {"0*"})
        m = len(obs.middle)
        wanted = max(1, draw(st.sampled_from([m - 1, m, m + 1, m + 2]) if m else st.integers(1, 3)))
        fitting = sorted(k for k, g in groups.items() if len(g) >= wanted) or sorted(groups)
        group = groups[draw(st.sampled_from(fitting))]
        return Play(tuple(draw(st.permutations(group))[:wanted]))
    if kind == "subset":
        cards = draw(st.lists(st.sampled_from(hand), unique=True, max_size=min(6, len(hand))))
        return Play(tuple(cards))
    if kind == "legal":
        action = draw(st.sampled_from(state.legal_actions()))
        if isinstance(action, Play):  # the order of the cards must not matter
            return Play(tuple(draw(st.permutations(action.cards))))
        return action
    if kind == "foreign":
        cards = draw(st.lists(st.sampled_from(hand), unique=True, max_size=3))
        others = [c for c in deck if c not in hand]
        return Play((*cards, draw(st.sampled_from(others))))
    if kind == "pass":
        return Pass()
    if kind == "take":
        return Take(draw(st.sampled_from(deck + obs.beaten + obs.beaten)))
    if kind == "odd":
        return Play((draw(st.sampled_from(["10R", "0R", "5X", "", "R5", "9*", "5S", "5R"])),))
    return Play((hand[0], hand[0]))


def check_apply_agrees(state, data, steps: int) -> None:
    deck = sorted(full_deck(state.ruleset))
    for _ in range(steps):
        if state.is_terminal:
            return
        seat = state.current_player
        obs = state.observation(seat)
        legal = state.legal_actions()
        legal_forms = {canon(a) for a in legal}
        expected = reference_legal(obs, limit=5000)
        if expected is not None:
            assert legal_forms == expected
        action = candidate(data.draw, state, deck)
        broken = violations(obs, action, set(deck))
        dup = isinstance(action, Play) and len(set(action.cards)) != len(action.cards)
        if canon(action) in legal_forms and not dup:
            assert broken == [], f"{action} is listed but breaks {broken}"
            before = len(state.history)
            state.apply(action)
            assert len(state.history) == before + 1
            recorded_seat, recorded = state.history[-1]
            assert recorded_seat == seat
            assert recorded in legal  # recorded in its canonical form, as listed
        else:
            assert broken, f"{action} is refused but breaks no rule"
            before = [msgspec.json.encode(state.observation(s)) for s in range(state.players)]
            history, count = list(state.history), state.event_count
            with pytest.raises(IllegalAction) as info:
                state.apply(action)
            reason = info.value.reason.lower()
            assert reason
            assert any(all(w.lower() in reason for w in words) for words in broken), (
                f"{reason!r} names none of {broken}"
            )
            after = [msgspec.json.encode(state.observation(s)) for s in range(state.players)]
            assert (after, state.history, state.event_count) == (before, history, count)
            assert state.legal_actions() == legal


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=scripted_positions(), data=st.data())
def test_apply_accepts_exactly_the_legal_actions_in_scripted_positions(state, data):
    check_apply_agrees(state, data, steps=25)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=played_positions(), data=st.data())
def test_apply_accepts_exactly_the_legal_actions_in_played_positions(state, data):
    check_apply_agrees(state, data, steps=25)
