"""The ruleset registry: ids, player counts and options as users type them (RULINGS
ruleset ids; options of sections 1-3), with errors that say what is allowed."""

from __future__ import annotations

import pytest

from arena.games import GameConfigError, all_rulesets, describe_options, get_ruleset, new_game
from arena.games.odin import OdinOptions, OdinState, OverrideBetaOptions

FAMILY = {"odin": (2, 6), "odin-race": (2, 6), "override-beta": (2, 4)}


def test_the_odin_family_is_registered():
    ids = [r.id for r in all_rulesets()]
    assert set(FAMILY) <= set(ids)
    assert len(ids) == len(set(ids))
    for ruleset_id, (low, high) in FAMILY.items():
        ruleset = get_ruleset(ruleset_id)
        assert ruleset.id == ruleset_id
        assert (ruleset.min_players, ruleset.max_players) == (low, high)
        assert ruleset.title and ruleset.summary


@pytest.mark.parametrize("ruleset_id", ["", "Odin", "odin_race", "override", "bested-classic"])
def test_unknown_ruleset_lists_the_known_ones(ruleset_id):
    with pytest.raises(GameConfigError) as info:
        new_game(ruleset_id, 2, None, 0)
    message = str(info.value)
    assert repr(ruleset_id) in message or ruleset_id in message
    for known in FAMILY:
        assert known in message
    with pytest.raises(GameConfigError):
        get_ruleset(ruleset_id)


@pytest.mark.parametrize(
    ("ruleset_id", "players", "allowed"),
    [
        ("odin", 1, "2-6"),
        ("odin", 7, "2-6"),
        ("odin-race", 0, "2-6"),
        ("odin-race", 7, "2-6"),
        ("override-beta", 1, "2-4"),
        ("override-beta", 5, "2-4"),
        ("override-beta", -1, "2-4"),
    ],
)
def test_bad_player_count_says_how_many_may_play(ruleset_id, players, allowed):
    with pytest.raises(GameConfigError) as info:
        new_game(ruleset_id, players, None, 0)
    assert allowed in str(info.value)
    assert str(players) in str(info.value)


@pytest.mark.parametrize(
    ("ruleset_id", "players"), [(r, n) for r, (lo, hi) in FAMILY.items() for n in (lo, hi)]
)
def test_every_allowed_player_count_starts_a_game(ruleset_id, players):
    state = new_game(ruleset_id, players, None, 0)
    assert isinstance(state, OdinState)
    assert state.players == players
    assert state.current_player == 0


@pytest.mark.parametrize(
    ("ruleset_id", "option", "listed"),
    [
        ("odin", "cheat_code", ["full_deck", "target", "rounds"]),
        ("odin", "Target", ["full_deck", "target", "rounds"]),
        ("override-beta", "full_deck", ["cheat_code", "target", "rounds"]),
        ("odin-race", "target", ["no options"]),
        ("odin-race", "rounds", ["no options"]),
    ],
)
def test_unknown_option_lists_the_options(ruleset_id, option, listed):
    with pytest.raises(GameConfigError) as info:
        new_game(ruleset_id, 2, {option: 1}, 0)
    message = str(info.value)
    assert option in message
    for name in listed:
        assert name in message


@pytest.mark.parametrize(
    ("ruleset_id", "options", "allowed"),
    [
        ("odin", {"target": 12}, "10|15|20"),
        ("odin", {"target": "12"}, "10|15|20"),
        ("odin", {"target": 0}, "10|15|20"),
        ("override-beta", {"target": 25}, "10|15|20"),
        ("odin", {"rounds": 0}, ">= 1"),
        ("odin", {"rounds": -3}, ">= 1"),
        ("odin", {"rounds": "x"}, ">= 1"),
        ("override-beta", {"rounds": 0}, ">= 1"),
        ("odin", {"full_deck": "maybe"}, "true|false"),
        ("odin", {"full_deck": 2}, "true|false"),
        ("override-beta", {"cheat_code": "maybe"}, "true|false"),
    ],
)
def test_bad_option_value_says_what_is_allowed(ruleset_id, options, allowed):
    with pytest.raises(GameConfigError) as info:
        new_game(ruleset_id, 2, options, 0)
    message = str(info.value)
    (name,) = options
    assert name in message
    assert allowed in message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"full_deck": "true"}, OdinOptions(full_deck=True)),
        ({"full_deck": "false"}, OdinOptions(full_deck=False)),
        ({"target": "20"}, OdinOptions(target=20)),
        ({"target": "10", "rounds": "3"}, OdinOptions(target=10, rounds=3)),
        ({"target": 20}, OdinOptions(target=20)),
        ({}, OdinOptions()),
        (None, OdinOptions()),
    ],
)
def test_option_strings_from_the_command_line_are_accepted(raw, expected):
    assert get_ruleset("odin").options(raw) == expected


def test_command_line_strings_change_the_game():
    state = new_game("odin", 2, {"full_deck": "true"}, 0)
    assert state.observation(0).aside == 54 - 18
    state = new_game("override-beta", 4, {"cheat_code": "false"}, 0)
    assert state.observation(0).aside == 0
    state = new_game("odin", 3, {"rounds": "1"}, 0)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    assert state.round == 1


def test_typed_options_are_accepted_as_they_are():
    opts = OverrideBetaOptions(cheat_code=False, target=10)
    assert get_ruleset("override-beta").options(opts) is opts
    state = new_game("override-beta", 4, opts, 0)
    assert state.observation(0).aside == 0


@pytest.mark.parametrize(
    ("ruleset_id", "expected"),
    [
        ("odin", {"full_deck": False, "target": 15, "rounds": None}),
        ("override-beta", {"cheat_code": True, "target": 15, "rounds": None}),
        ("odin-race", {}),
    ],
)
def test_describe_options_lists_options_with_defaults(ruleset_id, expected):
    infos = describe_options(get_ruleset(ruleset_id).options_type)
    assert {i.name: i.default for i in infos} == expected
    by_name = {i.name: i for i in infos}
    if "target" in by_name:
        assert by_name["target"].allowed == "10|15|20"
        assert by_name["rounds"].allowed.startswith("integer >= 1")
        assert all(i.help for i in infos)
    for flag in ("full_deck", "cheat_code"):
        if flag in by_name:
            assert by_name[flag].allowed == "true|false"
