"""Hidden information stays hidden: a seat's observation and events never depend on, or
show, other hands or the cards set aside (docs/rules.md §1.3)."""

from __future__ import annotations

import random

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import new_game
from arena.games.odin import Dealt, RoundStarted
from tests.helpers.odin import CONFIGS, Checker, codes, hand, ids, play_random

SEEDS = st.integers(0, 2**32)


def hidden_from_others(state, checker: Checker) -> list[str]:
    """The cards set aside this round: in play, but in no hand, not on the table, not discarded."""
    seen = {c for s in range(state.players) for c in hand(state, s)}
    seen |= set(codes(state, state.middle)) | checker.discard
    return sorted(checker.in_play - seen)


def obs_bytes(state, seat: int) -> bytes:
    return msgspec.json.encode(state.observation(seat))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(CONFIGS),
    seed=SEEDS,
    play_seed=SEEDS,
    steps=st.integers(0, 150),
    data=st.data(),
)
def test_changing_hidden_cards_does_not_change_a_seat_view(config, seed, play_seed, steps, data):
    ruleset, players = config
    state = new_game(ruleset, players, None, seed)
    checker = Checker(state)
    play_random(
        state, random.Random(play_seed), stop_after=steps, on_step=lambda s: checker.check()
    )
    if state.is_terminal:
        return
    seat = data.draw(st.integers(0, players - 1), label="viewer")
    before = obs_bytes(state, seat)
    legal = state.legal_actions() if state.current_player == seat else None
    aside = hidden_from_others(state, checker)
    assert len(aside) == state.aside
    others = [s for s in range(players) if s != seat and state.hands[s]]
    changed = False
    for _ in range(data.draw(st.integers(1, 4), label="swaps")):
        moves = []
        if len(others) >= 2:
            moves.append("between hands")
        if others and aside:
            moves.append("with the aside cards")
        if not moves:
            break
        move = data.draw(st.sampled_from(moves))
        if move == "between hands":
            a, b = data.draw(st.permutations(others))[:2]
            ha, hb = hand(state, a), hand(state, b)
            ca, cb = data.draw(st.sampled_from(ha)), data.draw(st.sampled_from(hb))
            ha[ha.index(ca)], hb[hb.index(cb)] = cb, ca
            state.hands[a], state.hands[b] = ids(state, ha), ids(state, hb)
        else:
            a = data.draw(st.sampled_from(others))
            ha = hand(state, a)
            ca, cb = data.draw(st.sampled_from(ha)), data.draw(st.sampled_from(aside))
            ha[ha.index(ca)] = cb
            aside[aside.index(cb)] = ca
            state.hands[a] = ids(state, ha)
        changed = True
    if changed:
        assert obs_bytes(state, seat) == before
        if legal is not None:
            assert state.legal_actions() == legal


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=SEEDS, play_seed=SEEDS)
def test_no_seat_sees_another_seats_cards(config, seed, play_seed):
    ruleset, players = config
    state = new_game(ruleset, players, None, seed)
    dealt: list[list[list[str]]] = [[] for _ in range(players)]
    pos = 0

    def look(state) -> None:
        nonlocal pos
        public = state.events_for(0, pos)
        if any(isinstance(e, RoundStarted) for e in public):
            for s in range(players):
                dealt[s].append(hand(state, s))
        pos = state.event_count
        hands = [hand(state, s) for s in range(players)]
        for s in range(players):
            obs = state.observation(s)
            assert obs.hand == hands[s]
            raw = msgspec.json.encode(obs).decode()
            for other in range(players):
                if other != s:
                    for c in hands[other]:
                        assert f'"{c}"' not in raw, f"seat {s} sees {c} of seat {other}"

    look(state)
    play_random(state, random.Random(play_seed), on_step=look)
    for s in range(players):
        mine = [e.hand for e in state.events_for(s) if isinstance(e, Dealt)]
        # One private Dealt event per round for this seat, and it is this seat's own hand.
        assert mine == dealt[s]
        assert len(mine) == state.round
