"""The JSON a bot reads and writes: actions decode through the ruleset's `action_type`
union and round-trip; observations and events encode to JSON."""

from __future__ import annotations

import random

import msgspec
import pytest

from arena.games import get_ruleset, new_game
from arena.games.odin import Pass, Play, Take
from tests.helpers.odin import CONFIGS, PLAYER_COUNTS, play_random

WIRE = [
    (b'{"type":"play","cards":["5R"]}', Play(("5R",))),
    (b'{"type":"play","cards":["9S","0*"]}', Play(("9S", "0*"))),
    (b'{"type":"play","cards":["7R","7O","7Y"]}', Play(("7R", "7O", "7Y"))),
    (b'{"type":"pass"}', Pass()),
    (b'{"type":"take","card":"3H"}', Take("3H")),
]


@pytest.mark.parametrize("ruleset", list(PLAYER_COUNTS))
@pytest.mark.parametrize(("wire", "action"), WIRE)
def test_actions_round_trip_through_json(ruleset, wire, action):
    action_type = get_ruleset(ruleset).action_type
    assert msgspec.json.decode(wire, type=action_type) == action
    assert msgspec.json.encode(action) == wire


@pytest.mark.parametrize(
    "wire",
    [
        b'{"type":"fold"}',
        b'{"cards":["5R"]}',
        b'{"type":"play"}',
        b'{"type":"play","cards":"5R"}',
        b'{"type":"take"}',
        b'{"type":"take","card":5}',
        b"[]",
    ],
)
def test_malformed_actions_fail_to_decode(wire):
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(wire, type=get_ruleset("odin").action_type)


@pytest.mark.parametrize(("ruleset", "players"), CONFIGS, ids=str)
def test_every_action_observation_and_event_of_a_game_is_json(ruleset, players):
    state = new_game(ruleset, players, None, 3)
    action_type = get_ruleset(ruleset).action_type
    obs_type = type(state).observation_type
    event_type = type(state).event_type

    def check(state) -> None:
        for action in state.legal_actions():
            assert msgspec.json.decode(msgspec.json.encode(action), type=action_type) == action
        for seat in range(players):
            obs = state.observation(seat)
            raw = msgspec.json.encode(obs)
            assert msgspec.json.decode(raw, type=obs_type) == obs
            assert msgspec.json.decode(raw)["hand"] == obs.hand

    check(state)
    play_random(state, random.Random(3), on_step=check)
    for seat in range(players):
        evs = state.events_for(seat)
        decoded = msgspec.json.decode(msgspec.json.encode(evs), type=list[event_type])
        assert decoded == evs
    out = state.outcome()
    assert msgspec.json.decode(msgspec.json.encode(out)) == {
        "scores": list(out.scores),
        "ranks": list(out.ranks),
    }


def test_observation_json_fields():
    state = new_game("override-beta", 3, None, 0)
    data = msgspec.json.decode(msgspec.json.encode(state.observation(1)))
    assert data["type"] == "odin"
    assert data["ruleset"] == "override-beta"
    assert data["seat"] == 1 and data["players"] == 3
    assert data["phase"] == "lead" and data["to_act"] == 0
    assert data["hand_sizes"] == [9, 9, 9] and data["aside"] == 10
    assert data["middle"] == [] and data["middle_by"] is None
    assert len(data["hand"]) == 9
