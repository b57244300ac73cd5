"""Random play over many seeds for every ruleset and player count, checking the rules'
invariants after every action (docs/rules.md §2-§4), plus exact replay from seed and history."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import get_ruleset, new_game
from arena.games.odin import Dealt
from tests.helpers.odin import (
    CONFIGS,
    Checker,
    canon,
    check_outcome,
    play_random,
    reference_legal,
)

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
STYLES = st.sampled_from(["uniform", "eager", "timid"])

OPTION_VARIANTS = [
    ("odin", 2, {"full_deck": True}),
    ("odin", 3, {"target": 10}),
    ("odin", 4, {"target": 20}),
    ("odin", 3, {"rounds": 3}),
    ("override-beta", 2, {"cheat_code": False}),
    ("override-beta", 4, {"cheat_code": False, "target": 10}),
    ("override-beta", 3, {"rounds": 2}),
]
ALL_GAMES = [(r, n, None) for r, n in CONFIGS] + OPTION_VARIANTS


def game_id(case: tuple) -> str:
    ruleset, players, options = case
    extra = ",".join(f"{k}={v}" for k, v in (options or {}).items())
    return f"{ruleset}-{players}p" + (f"-{extra}" if extra else "")


def checked_step(checker: Checker):
    def step(state):
        checker.check()
        legal = state.legal_actions()
        if state.is_terminal:
            assert legal == []
            return
        forms = [canon(a) for a in legal]
        assert len(forms) == len(set(forms)), "duplicate legal actions"
        assert legal == state.legal_actions(), "legal_actions is not deterministic"
        obs = state.observation(state.current_player)
        expected = reference_legal(obs, limit=2000)
        if expected is not None:
            assert set(forms) == expected

    return step


@pytest.mark.parametrize("case", ALL_GAMES, ids=game_id)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, play_seed=SEEDS, style=STYLES)
def test_random_games_keep_every_invariant(case, seed, play_seed, style):
    ruleset, players, options = case
    state = new_game(ruleset, players, options, seed)
    checker = Checker(state)
    play_random(state, random.Random(play_seed), style=style, on_step=checked_step(checker))
    assert state.is_terminal
    assert state.current_player is None
    out = check_outcome(state, checker)
    assert len(out.ranks) == players
    # Round and leader sequence: round r was led by seat (r - 1) mod n.
    assert checker.rounds == [(r, (r - 1) % players) for r in range(1, len(checker.rounds) + 1)]
    assert len(checker.round_overs) == len(checker.rounds) == state.round
    if ruleset == "odin-race":
        assert state.round == 1
    elif options and "rounds" in options:
        assert state.round == options["rounds"]
    else:
        target = (options or {}).get("target", 15)
        totals = [ro.totals for ro in checker.round_overs]
        assert max(totals[-1]) >= target
        assert all(max(t) < target for t in totals[:-1]), "the game ran past its target"


def snapshot(state):
    """Everything observable about a game at one moment, for every seat."""
    n = state.players
    return (
        [msgspec.json.encode(state.observation(s)) for s in range(n)],
        [msgspec.json.encode(state.events_for(s)) for s in range(n)],
        msgspec.json.encode(state.legal_actions()),
        state.current_player,
    )


@pytest.mark.parametrize(("ruleset", "players"), CONFIGS, ids=lambda v: str(v))
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, play_seed=SEEDS)
def test_replay_from_seed_and_history_is_exact(ruleset, players, seed, play_seed):
    original = new_game(ruleset, players, None, seed)
    snaps = [snapshot(original)]
    play_random(original, random.Random(play_seed), on_step=lambda s: snaps.append(snapshot(s)))
    history = list(original.history)

    # Replay the recorded actions, sent as a bot would send them: JSON on the wire.
    action_type = get_ruleset(ruleset).action_type
    replay = new_game(ruleset, players, None, seed)
    assert snapshot(replay) == snaps[0]
    for i, (seat, action) in enumerate(history):
        assert replay.current_player == seat
        wire = msgspec.json.decode(msgspec.json.encode(action), type=action_type)
        replay.apply(wire)
        assert snapshot(replay) == snaps[i + 1], f"replay diverged at action {i}"
    assert replay.history == history
    assert replay.outcome() == original.outcome()


@pytest.mark.parametrize(("ruleset", "players"), CONFIGS, ids=lambda v: str(v))
def test_different_seeds_deal_differently(ruleset, players):
    deals = set()
    for seed in range(20):
        state = new_game(ruleset, players, None, seed)
        deals.add(tuple(tuple(state.observation(s).hand) for s in range(players)))
    assert len(deals) == 20


@pytest.mark.parametrize(("ruleset", "players"), CONFIGS, ids=lambda v: str(v))
def test_same_seed_deals_the_same(ruleset, players):
    a, b = new_game(ruleset, players, None, 7), new_game(ruleset, players, None, 7)
    assert [a.observation(s) for s in range(players)] == [b.observation(s) for s in range(players)]


@pytest.mark.parametrize("ruleset", ["odin", "override-beta"])
def test_later_rounds_are_reshuffled(ruleset):
    """Every round reshuffles all the cards: the deals of successive rounds differ."""
    state = new_game(ruleset, 3, {"rounds": 4}, 11)
    play_random(state, random.Random(1))
    dealt = [ev.hand for ev in state.events_for(0) if isinstance(ev, Dealt)]
    assert len(dealt) == 4
    assert len({tuple(h) for h in dealt}) == 4
