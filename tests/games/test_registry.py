"""The ruleset registry: ids, player counts and options as users type them (docs/rules.md
§1-§4), with errors that say what is allowed; and each ruleset's decision bound (§9), checked
against long random games."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import GameConfigError, all_rulesets, describe_options, get_ruleset, new_game
from arena.games.odin import OdinOptions, OdinState, OverrideBetaOptions
from tests.helpers.bounds import STYLES, play_counting

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


# --------------------------------------------------------------------------
# The decision bound (docs/rules.md §9)

#: every ruleset at several player counts and option settings
BOUND_CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("odin", 2, {}),
    ("odin", 2, {"full_deck": True, "target": 20}),
    ("odin", 3, {"rounds": 3}),
    ("odin", 4, {"target": 10}),
    ("odin", 6, {}),
    ("odin-race", 2, {}),
    ("odin-race", 3, {}),
    ("odin-race", 5, {}),
    ("odin-race", 6, {}),
    ("override-beta", 2, {}),
    ("override-beta", 3, {"cheat_code": False}),
    ("override-beta", 4, {"rounds": 1}),
    ("override-beta", 4, {"target": 20}),
    ("override-classic", 2, {}),
    ("override-original", 2, {}),
    ("bested", 2, {}),
    ("bested", 2, {"threshold": 20, "zeros": True}),
    ("bested", 3, {}),
    ("bested", 4, {"gaps": True}),
    ("bested", 5, {"zeros": True}),
    ("bested", 6, {"threshold": 20}),
    ("bested-solo", 1, {}),
    ("bested-solo", 1, {"rounds": 5, "difficulty": "hard"}),
]
GAMES_PER_STYLE = 25


def bound_of(ruleset: str, players: int, options: dict[str, Any]) -> int:
    rs = get_ruleset(ruleset)
    return rs.max_decisions(players, rs.options(options))


def case_name(case: tuple[str, int, dict[str, Any]]) -> str:
    ruleset, players, options = case
    extra = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{ruleset} {players}p" + (f" {extra}" if extra else "")


@pytest.mark.parametrize(
    ("ruleset_id", "bounds"),
    [
        ("odin", [4930, 10450, 17556, 27306, 38318]),
        ("odin-race", [350, 988, 1372, 1702, 2254]),
        ("override-beta", [5423, 11550, 19437]),
        ("override-classic", [52]),
        ("override-original", [52]),
        ("bested", [840, 4632, 8096, 12195, 12516]),
        ("bested-solo", [59]),
    ],
)
def test_the_bounds_at_default_options_are_the_documented_ones(
    ruleset_id: str, bounds: list[int]
) -> None:
    """The table of docs/rules.md §9.6, from the formulas of §9.2-§9.5."""
    rs = get_ruleset(ruleset_id)
    players = range(rs.min_players, rs.max_players + 1)
    assert [rs.max_decisions(n, rs.options(None)) for n in players] == bounds


def test_the_bounds_follow_the_options() -> None:
    # odin: R rounds of B(n + (n-1)·chain); rounds=N plays N rounds, a target T at most
    # n(T-1)/(n-1) + 1 (docs/rules.md §9.2).
    per_round = 17 * (2 + 8)
    assert bound_of("odin", 2, {"rounds": 1}) == per_round
    assert bound_of("odin", 2, {"rounds": 7, "target": 10}) == 7 * per_round
    assert bound_of("odin", 2, {"target": 10}) == 19 * per_round
    assert bound_of("odin", 2, {"full_deck": True, "rounds": 1}) == per_round
    # the Cheat Code, number 0, makes a chain of single cards one longer
    assert bound_of("override-beta", 2, {"rounds": 1}) == 17 * (2 + 9)
    assert bound_of("override-beta", 2, {"rounds": 1, "cheat_code": False}) == per_round
    # odin-race: one round of floor(cards / n) each
    assert bound_of("odin-race", 2, {}) == (2 * 17 + 1) * (2 + 8)
    # bested: R = n(T-1)/(n²-1) + 1 rounds; zeros deal one more card each (§9.4)
    assert bound_of("bested", 3, {"threshold": 1}) == 6 * (2 * 45 - 1) + 45
    assert bound_of("bested", 3, {"threshold": 9}) == 4 * bound_of("bested", 3, {"threshold": 1})
    assert bound_of("bested", 2, {"threshold": 1, "zeros": True}) == 2 + 2 + 4 * (32 - 1)
    assert bound_of("bested", 6, {"threshold": 10**6}) > bound_of("bested", 6, {})
    # bested-solo: rounds 3 and 5 deal the dummy one card fewer each round (§9.5)
    assert bound_of("bested-solo", 1, {"rounds": 3}) == 59 + 57 + 56
    assert bound_of("bested-solo", 1, {"rounds": 5, "difficulty": "hard"}) == 59 + 57 + 56 + 54 + 53
    for rs in all_rulesets():
        for players in range(rs.min_players, rs.max_players + 1):
            bound = rs.max_decisions(players, rs.options(None))
            assert isinstance(bound, int) and bound > 0


@pytest.mark.slow
def test_long_random_games_stay_within_the_bound() -> None:
    """Seeded games of every ruleset, played uniformly at random and by a policy that drags
    games out; the longest must not pass the bound. Run with `pytest -s` for the table."""
    rows = []
    for case in BOUND_CASES:
        ruleset, players, options = case
        bound = bound_of(ruleset, players, options)
        longest = {}
        for style in STYLES:
            longest[style] = max(
                play_counting(
                    new_game(ruleset, players, options, seed),
                    random.Random(f"{seed}:{style}"),
                    style,
                    bound,
                )
                for seed in range(GAMES_PER_STYLE)
            )
        rows.append((case_name(case), longest, bound))
    lines = [f"{'ruleset':<46}{'uniform':>9}{'stall':>9}{'bound':>9}  longest/bound"]
    for name, longest, bound in rows:
        most = max(longest.values())
        lines.append(
            f"{name:<46}{longest['uniform']:>9}{longest['stall']:>9}{bound:>9}  {most / bound:.2f}"
        )
    table = "\n".join(lines)
    print(f"\nlongest of {GAMES_PER_STYLE} games per style against the bound:\n{table}")
    assert all(max(longest.values()) <= bound for _, longest, bound in rows), table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(BOUND_CASES),
    seed=st.integers(0, 2**63 - 1),
    play_seed=st.integers(0, 2**63 - 1),
    style=st.sampled_from(STYLES),
)
def test_random_legal_play_never_passes_the_bound(
    case: tuple[str, int, dict[str, Any]], seed: int, play_seed: int, style: str
) -> None:
    ruleset, players, options = case
    bound = bound_of(ruleset, players, options)
    state = new_game(ruleset, players, options, seed)
    decisions = play_counting(state, random.Random(play_seed), style, bound)
    assert state.is_terminal and decisions == len(state.history) <= bound
