"""The rules of odin, odin-race and override-beta on scripted positions (docs/rules.md §2-§4):
values, sets, the Cheat Code, leading, m or m+1 cards, take-backs, passing, trick and
round ends, scoring, game end and ranks, decks and deals."""

from __future__ import annotations

import msgspec
import pytest

from arena.games import GameFinished, IllegalAction, new_game
from arena.games.odin import Pass, Play, RoundOver, RoundStarted, Take, Took, TrickWon
from tests.helpers.odin import (
    PLAYER_COUNTS,
    canon,
    full_deck,
    hand,
    pass_,
    play,
    scripted,
    set_hands,
)

FAMILY = list(PLAYER_COUNTS)
#: options that make each ruleset a single round, so a scripted round end can be inspected
ONE_ROUND = {"odin": {"rounds": 1}, "odin-race": None, "override-beta": {"rounds": 1}}
#: a suit (colour) letter of each deck, used for filler cards in scripted hands
LOW = {"odin": "P", "odin-race": "P", "override-beta": "C"}


def P(*cards: str) -> tuple:
    return ("play", frozenset(cards))


def legal(state) -> set[tuple]:
    return {canon(a) for a in state.legal_actions()}


def view(state) -> list[bytes]:
    return [msgspec.json.encode(state.observation(s)) for s in range(state.players)]


def reject(state, action, *fragments: str) -> str:
    """The action is refused with a reason naming each fragment, and nothing changes."""
    before = (view(state), list(state.history), state.event_count, state.legal_actions())
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    reason = info.value.reason
    assert reason
    for fragment in fragments:
        assert fragment.lower() in reason.lower(), f"{fragment!r} not in {reason!r}"
    if not (isinstance(action, Play) and len(set(action.cards)) < len(action.cards)):
        assert canon(action) not in legal(state)
    assert (view(state), list(state.history), state.event_count, state.legal_actions()) == before
    return reason


def events(state, start: int) -> list:
    return state.events_for(0, start)


def of_type(evs: list, kind: type) -> list:
    return [e for e in evs if isinstance(e, kind)]


# --------------------------------------------------------------------------
# Values: digits largest first; a longer set always beats a shorter one


@pytest.mark.parametrize("middle", [["1O", "8O"], ["7O", "7Y"], ["5G"]])
def test_two_and_eight_make_82_which_beats_lower_values(middle):
    state = scripted("odin", [["9B"], ["2R", "8R", "4P"]], middle=middle, turn=1)
    assert P("2R", "8R") in legal(state)
    play(state, "2R", "8R")
    assert state.observation(0).middle == ["8R", "2R"]


def test_82_does_not_beat_seven_and_nine_which_make_97():
    state = scripted("odin", [["9B"], ["2R", "8R", "5G"]], middle=["7O", "9O"], turn=1)
    assert P("2R", "8R") not in legal(state)
    reject(state, Play(("2R", "8R")), "82", "97")


def test_five_three_seven_make_753():
    middle = ["5O", "3O", "7O"]
    hand1 = ["7R", "5R", "4R", "2R", "6G", "6B", "6P"]
    state = scripted("odin", [["9B"], hand1], middle=middle, turn=1)
    assert P("7R", "5R", "4R") in legal(state)  # 754 > 753
    assert P("7R", "5R", "2R") not in legal(state)  # 752 < 753
    assert P("6G", "6B", "6P") not in legal(state)  # 666 < 753
    reject(state, Play(("7R", "5R", "2R")), "752", "753")


@pytest.mark.parametrize(
    ("ruleset", "middle", "same"),
    [
        ("odin", ["5R"], ["5O"]),
        ("odin", ["8R", "2R"], ["8Y", "2Y"]),
        ("odin", ["4R", "4O", "4Y"], ["4G", "4B", "4P"]),
        ("override-beta", ["5S"], ["5H"]),
    ],
)
def test_equal_value_does_not_beat(ruleset, middle, same):
    state = scripted(ruleset, [["1" + LOW[ruleset]], same], middle=middle, turn=1)
    assert legal(state) == {("pass",)}
    reject(state, Play(tuple(same)), "does not beat")


@pytest.mark.parametrize(
    ("ruleset", "middle", "longer"),
    [
        ("odin", ["9R"], ["1O", "1Y"]),  # 11 beats 9
        ("odin", ["9R", "9O"], ["1Y", "1G", "1B"]),  # 111 beats 99
        ("odin", ["9R", "8R", "7R"], ["4O", "3O", "2O", "1O"]),  # 4321 beats 987
        ("override-beta", ["9S"], ["1H", "0*"]),  # 10 beats 9
        ("override-beta", ["9S", "9H"], ["2D", "1D", "0*"]),  # 210 beats 99
    ],
)
def test_a_set_one_card_longer_always_beats_the_middle(ruleset, middle, longer):
    other = "5" + LOW[ruleset]
    state = scripted(ruleset, [[other], [*longer, "9" + LOW[ruleset]]], middle=middle, turn=1)
    assert P(*longer) in legal(state)
    play(state, *longer)
    assert sorted(state.observation(0).middle) == sorted(longer)


# --------------------------------------------------------------------------
# The Cheat Code (override-beta)


def test_cheat_code_and_nine_make_90():
    state = scripted("override-beta", [["1C"], ["9D", "0*", "3H"]], middle=["8S", "8H"], turn=1)
    assert P("9D", "0*") in legal(state)  # 90 > 88
    play(state, "0*", "9D")
    assert state.observation(0).middle == ["9D", "0*"]

    state = scripted("override-beta", [["1C"], ["9D", "0*", "3H"]], middle=["9S", "1S"], turn=1)
    assert P("9D", "0*") not in legal(state)  # 90 < 91
    reject(state, Play(("9D", "0*")), "90", "91")


def test_cheat_code_alone_can_be_led_and_any_card_beats_it():
    state = scripted("override-beta", [["0*", "5S", "7H"], ["1C", "2D"]])
    assert P("0*") in legal(state)
    play(state, "0*")
    assert state.observation(1).middle == ["0*"]
    assert {P("1C"), P("2D")} <= legal(state)
    play(state, "1C")
    assert "0*" in hand(state, 1)  # the single beaten card comes back automatically


@pytest.mark.parametrize("middle", [["1S"], ["1H"], ["5D"]])
def test_cheat_code_alone_is_never_played_over_anything(middle):
    state = scripted("override-beta", [["9C"], ["0*", "2C", "7H"]], middle=middle, turn=1)
    assert P("0*") not in legal(state)
    reject(state, Play(("0*",)), "beat")


def test_cheat_code_joins_any_same_suit_set():
    hand1 = ["5S", "2S", "0*", "7H", "1D"]
    state = scripted("override-beta", [["9C"], hand1], middle=["4H", "3H", "2H"], turn=1)
    assert P("5S", "2S", "0*") in legal(state)  # 520 > 432
    play(state, "5S", "0*", "2S")
    assert state.observation(0).middle == ["5S", "2S", "0*"]

    # Cheat Code + any one card is a two-card set.
    state = scripted("override-beta", [["9C"], hand1], middle=["6C"], turn=1)
    for other in ("5S", "2S", "7H", "1D"):
        assert P(other, "0*") in legal(state)


def test_cheat_code_never_joins_a_same_number_set():
    hand1 = ["5S", "5H", "0*", "1C"]
    state = scripted("override-beta", [["9C"], hand1], middle=["2C", "2D"], turn=1)
    assert P("5S", "5H") in legal(state)
    assert P("5S", "5H", "0*") not in legal(state)
    reject(state, Play(("5S", "5H", "0*")), "neither")


def test_whole_hand_lead_with_the_cheat_code_needs_a_same_suit_hand():
    state = scripted("override-beta", [["0*", "4S", "2S"], ["9C"]], options={"rounds": 1})
    assert P("0*", "4S", "2S") in legal(state)
    play(state, "4S", "2S", "0*")
    assert state.is_terminal
    assert state.outcome().scores == (0, 1)

    state = scripted("override-beta", [["0*", "4S", "4H"], ["9C"]])
    assert legal(state) == {P("0*"), P("4S"), P("4H")}
    reject(state, Play(("0*", "4S", "4H")), "neither")


def test_the_cheat_code_can_be_taken_back():
    state = scripted(
        "override-beta", [["3C", "4C"], ["9D", "9C", "2H"], ["1S"]], middle=["7H", "0*"], turn=1
    )
    play(state, "9D", "9C")
    assert legal(state) == {("take", "7H"), ("take", "0*")}
    state.apply(Take("0*"))
    assert hand(state, 1) == ["2H", "0*"]


# --------------------------------------------------------------------------
# Leading: one card, or the whole hand when it forms one set; never a pass


@pytest.mark.parametrize("ruleset", FAMILY)
def test_leader_cannot_pass(ruleset):
    state = new_game(ruleset, 3, None, 5)
    assert state.observation(0).phase == "lead"
    assert ("pass",) not in legal(state)
    reject(state, Pass(), "lead")


@pytest.mark.parametrize("ruleset", FAMILY)
def test_leader_cannot_lead_two_cards_of_a_hand_that_is_not_one_set(ruleset):
    suit = LOW[ruleset]
    other = "O" if ruleset != "override-beta" else "H"
    hand0 = [f"3{suit}", f"3{other}", f"5{suit}"]  # 3-3 and 3-5 are sets; the hand is not
    state = scripted(ruleset, [hand0, ["9" + suit]])
    assert legal(state) == {P(c) for c in hand0}
    reject(state, Play((f"3{suit}", f"3{other}")), "one card")
    reject(state, Play((f"3{suit}", f"5{suit}")), "one card")
    reject(state, Play(tuple(hand0)), "neither")


@pytest.mark.parametrize("ruleset", FAMILY)
@pytest.mark.parametrize("kind", ["same suit", "same number"])
def test_leader_may_lead_the_whole_hand_when_it_is_one_set_and_the_round_ends(ruleset, kind):
    suit = LOW[ruleset]
    if kind == "same suit":
        hand0 = [f"3{suit}", f"5{suit}", f"7{suit}"]
    else:
        hand0 = ["4S", "4H", "4D"] if ruleset == "override-beta" else ["4R", "4O", "4Y", "4G"]
    state = scripted(ruleset, [hand0, ["9" + suit, "8" + suit]], options=ONE_ROUND[ruleset])
    assert legal(state) == {P(c) for c in hand0} | {P(*hand0)}
    start = state.event_count
    play(state, *hand0)
    assert state.is_terminal
    [over] = of_type(events(state, start), RoundOver)
    assert over.scores == [0, 2]
    assert state.outcome().ranks == (1, 2)


def test_whole_hand_lead_wins_odin_race_at_once():
    state = scripted("odin-race", [["2G", "5G", "7G"], ["1R"], ["9R", "9O"], ["3B"]])
    play(state, "7G", "5G", "2G")
    assert state.is_terminal
    out = state.outcome()
    assert out.ranks == (1, 2, 2, 2)
    assert out.scores == (0, 1, 2, 1)


@pytest.mark.parametrize("ruleset", FAMILY)
def test_single_card_lead_is_enforced_after_a_trick_ends(ruleset):
    s = LOW[ruleset]
    state = scripted(
        ruleset, [[f"5{s}", f"6{s}", f"7{s}", "1" + ("S" if s == "C" else "R")], [f"2{s}"]]
    )
    play(state, f"5{s}")
    pass_(state)  # seat 1 -> trick won by seat 0
    assert state.observation(0).phase == "lead"
    assert all(len(a.cards) == 1 for a in state.legal_actions())
    reject(state, Play((f"6{s}", f"7{s}")), "one card")


@pytest.mark.parametrize("ruleset", ["odin", "override-beta"])
def test_single_card_lead_is_enforced_in_a_new_round(ruleset):
    s = LOW[ruleset]
    state = scripted(ruleset, [[f"5{s}"], [f"2{s}", f"3{s}"]], options={"target": 20})
    play(state, f"5{s}")  # seat 0 goes out: round 2, led by seat 1
    assert state.round == 2
    assert state.current_player == 1
    hand1 = state.observation(1).hand
    assert len(hand1) == 9
    for a in state.legal_actions():
        assert len(a.cards) == 1 or sorted(a.cards) == sorted(hand1)
    # Nine cards in at most six suits always hold two of one suit: a set, but not a lead.
    by_suit: dict[str, list[str]] = {}
    for c in hand1:
        by_suit.setdefault(c[-1], []).append(c)
    pair = next(cards[:2] for cards in by_suit.values() if len(cards) >= 2)
    reject(state, Play(tuple(pair)), "one card")


# --------------------------------------------------------------------------
# Beating: exactly m or m+1 cards


@pytest.mark.parametrize("ruleset", FAMILY)
def test_play_exactly_m_or_m_plus_one_cards(ruleset):
    if ruleset == "override-beta":
        nines, low, middle = ["9S", "9H", "9D", "9C"], "1S", ["3S", "3H"]
    else:
        nines, low, middle = ["9Y", "9G", "9B", "9P"], "1Y", ["3R", "3O"]
    state = scripted(ruleset, [["5" + LOW[ruleset]], [*nines, low]], middle=middle, turn=1)
    reject(state, Play(tuple(nines)), "play 2 or 3")  # m + 2
    reject(state, Play((nines[0],)), "play 2 or 3")  # m - 1
    assert P(*nines[:2]) in legal(state)
    assert P(*nines[:3]) in legal(state)
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    assert {len(a.cards) for a in plays} == {2, 3}


# --------------------------------------------------------------------------
# Taking back one card of the beaten set


@pytest.mark.parametrize("ruleset", FAMILY)
def test_take_back_is_a_choice_when_two_or_more_cards_were_beaten(ruleset):
    if ruleset == "override-beta":
        middle, beat, rest, other = ["3S", "3H", "3D"], ["4S", "4H", "4D"], ["1C"], ["2C"]
    else:
        middle, beat, rest, other = ["3R", "3O", "3Y"], ["4R", "4O", "4Y"], ["1P"], ["2P"]
    state = scripted(ruleset, [other, [*beat, *rest], ["9" + LOW[ruleset]]], middle=middle, turn=1)
    play(state, *beat)
    obs = state.observation(2)
    assert obs.phase == "take"
    assert obs.to_act == 1 and state.current_player == 1
    assert sorted(obs.beaten) == sorted(middle)
    assert legal(state) == {("take", c) for c in middle}
    reject(state, Pass(), "take")
    reject(state, Play(tuple(rest)), "take")
    reject(state, Take("9" + LOW[ruleset]), "take one of", *middle)

    start = state.event_count
    state.apply(Take(middle[1]))
    assert of_type(events(state, start), Took) == [Took(1, middle[1])]
    assert sorted(hand(state, 1)) == sorted([*rest, middle[1]])
    # The other beaten cards are discarded: in nobody's hand and not on the table.
    for c in (middle[0], middle[2]):
        assert all(c not in hand(state, s) for s in range(3))
    obs = state.observation(2)
    assert obs.phase == "play" and obs.to_act == 2 and obs.beaten == []
    assert sorted(obs.middle) == sorted(beat)


@pytest.mark.parametrize("ruleset", FAMILY)
def test_a_single_beaten_card_is_taken_back_automatically(ruleset):
    s = LOW[ruleset]
    middle = "5S" if ruleset == "override-beta" else "5R"
    state = scripted(ruleset, [[f"1{s}"], [f"6{s}", f"2{s}"], [f"3{s}"]], middle=[middle], turn=1)
    start = state.event_count
    play(state, f"6{s}")
    assert of_type(events(state, start), Took) == [Took(1, middle)]
    assert sorted(hand(state, 1)) == sorted([f"2{s}", middle])
    assert state.observation(1).phase == "play"
    assert state.current_player == 2
    assert not any(isinstance(a, Take) for a in state.legal_actions())


@pytest.mark.parametrize("ruleset", FAMILY)
@pytest.mark.parametrize(
    ("middle", "last"),
    [(["5"], ["6"]), (["5"], ["6", "7"]), (["3", "2"], ["4", "3"]), (["3", "2"], ["9", "8", "7"])],
    ids=["1-over-1", "2-over-1", "2-over-2", "3-over-2"],
)
def test_playing_the_last_cards_ends_the_round_without_a_take(ruleset, middle, last):
    """The picked-up card must not block going out (docs/rules.md §2.3, §4.3)."""
    s = LOW[ruleset]
    top = "S" if ruleset == "override-beta" else "R"
    mid = [f"{n}{top}" for n in middle]
    last = [f"{n}{s}" for n in last]
    state = scripted(
        ruleset,
        [["1" + top], last, [f"1{s}", f"2{s}"] if "2" not in middle else [f"1{s}", f"4{top}"]],
        middle=mid,
        turn=1,
        options=ONE_ROUND[ruleset],
    )
    start = state.event_count
    play(state, *last)
    evs = events(state, start)
    assert of_type(evs, Took) == []
    assert state.is_terminal
    [over] = of_type(evs, RoundOver)
    assert over.scores[1] == 0
    assert hand(state, 1) == []
    assert state.legal_actions() == []
    with pytest.raises(GameFinished):
        state.apply(Take(mid[0]))


# --------------------------------------------------------------------------
# Passing and the end of a trick


def test_a_pass_is_for_that_moment_only():
    state = scripted("odin", [["3R", "1R"], ["7O", "2O"], ["5R", "1Y"]])
    play(state, "3R")  # seat 0 leads
    pass_(state)  # seat 1 passes ...
    play(state, "5R")  # seat 2 beats (takes 3R back)
    pass_(state)  # seat 0
    assert state.current_player == 1
    assert P("7O") in legal(state)  # ... and may play later in the same trick
    play(state, "7O")
    assert state.observation(0).middle == ["7O"]


@pytest.mark.parametrize("ruleset", FAMILY)
def test_trick_ends_when_all_others_pass_and_the_last_player_leads(ruleset):
    s = LOW[ruleset]
    odd = "8H" if ruleset == "override-beta" else "8O"
    state = scripted(ruleset, [[f"3{s}", f"1{s}"], [f"2{s}"], [f"4{s}", odd]])
    play(state, f"3{s}")
    pass_(state)
    play(state, f"4{s}")  # seat 2 takes 3 back
    pass_(state)  # seat 0: one pass
    assert state.current_player == 1 and state.observation(1).phase == "play"
    start = state.event_count
    pass_(state)  # seat 1: all others have passed in a row since seat 2's play
    assert of_type(events(state, start), TrickWon) == [TrickWon(2)]
    obs = state.observation(2)
    # The last player does not play over their own set: a new trick, led by them.
    assert (obs.phase, obs.to_act, obs.middle, obs.middle_by) == ("lead", 2, [], None)
    assert ("pass",) not in legal(state)
    assert legal(state) == {P(c) for c in obs.hand}


@pytest.mark.parametrize("ruleset", FAMILY)
def test_passes_must_be_in_a_row_to_end_a_trick(ruleset):
    s = LOW[ruleset]
    state = scripted(ruleset, [[f"3{s}", f"1{s}"], [f"2{s}", f"9{s}"], [f"4{s}", f"5{s}"]])
    play(state, f"3{s}")
    pass_(state)  # seat 1
    play(state, f"4{s}")  # seat 2: the earlier pass no longer counts
    pass_(state)  # seat 0: two passes so far in the trick, but only one since the last play
    assert state.observation(0).phase == "play"
    assert state.current_player == 1
    assert P(f"9{s}") in legal(state)


def test_two_players_trick_ends_after_one_pass():
    state = scripted("odin", [["5R", "6R"], ["2O", "3O"]])
    play(state, "5R")
    pass_(state)
    obs = state.observation(0)
    assert (obs.phase, obs.to_act, obs.middle) == ("lead", 0, [])


@pytest.mark.parametrize("ruleset", FAMILY)
def test_a_trick_end_is_not_a_round_end(ruleset):
    s = LOW[ruleset]
    state = scripted(ruleset, [[f"3{s}", f"1{s}"], [f"2{s}"], [f"4{s}", f"5{s}"]])
    hands_before = [hand(state, 1), hand(state, 2)]
    start = state.event_count
    play(state, f"3{s}")
    pass_(state)
    pass_(state)
    evs = events(state, start)
    assert of_type(evs, TrickWon) == [TrickWon(0)]
    assert of_type(evs, RoundOver) == [] and of_type(evs, RoundStarted) == []
    assert state.round == 1 and not state.is_terminal
    assert state.totals == [0, 0, 0]
    assert [hand(state, 1), hand(state, 2)] == hands_before
    assert hand(state, 0) == [f"1{s}"]  # the led card is discarded with the middle


# --------------------------------------------------------------------------
# Scoring, next round, game end, ranks


def test_odin_scores_one_point_per_card_whatever_its_number():
    state = scripted("odin", [["5R"], ["9R", "9O", "1Y"], ["1B"]], options={"rounds": 1})
    play(state, "5R")
    assert state.outcome().scores == (0, 3, 1)


def test_override_beta_scores_the_cheat_code_five_in_all():
    hands = [["5S"], ["0*", "3H"], ["1C", "2C", "3C"]]
    state = scripted("override-beta", hands, options={"rounds": 1})
    start = state.event_count
    play(state, "5S")
    [over] = of_type(events(state, start), RoundOver)
    assert over.scores == [0, 6, 3]
    assert state.outcome().scores == (0, 6, 3)


@pytest.mark.parametrize("ruleset", ["odin", "override-beta"])
def test_next_round_is_led_by_the_left_of_the_previous_first_player(ruleset):
    """Whoever goes out, round r is led by seat (r - 1) mod n."""
    s = LOW[ruleset]
    top = "S" if ruleset == "override-beta" else "R"
    state = new_game(ruleset, 3, {"target": 20}, 3)
    for r in range(1, 6):
        leader = (r - 1) % 3
        assert state.round == r
        assert state.round_leader == leader
        assert state.current_player == leader
        assert state.observation(2).round_leader == leader
        # Script the round: the leader leads a low card and the seat after next goes out.
        out = (leader + 2) % 3
        hands = [[f"5{s}", f"6{s}"] for _ in range(3)]
        hands[leader] = [f"1{top}", f"2{top}"]
        hands[out] = [f"9{top}"]
        set_hands(state, hands)
        play(state, f"1{top}")
        pass_(state)
        play(state, f"9{top}")
    assert state.round == 6
    assert state.current_player == 2


@pytest.mark.parametrize("ruleset", ["odin", "override-beta"])
@pytest.mark.parametrize("target", [10, 15, 20])
@pytest.mark.parametrize(("before", "over"), [(-1, True), (-2, False), (-5, False), (2, True)])
def test_game_ends_after_the_round_in_which_a_total_reaches_the_target(
    ruleset, target, before, over
):
    s = LOW[ruleset]
    options = None if target == 15 else {"target": target}
    totals = [0, target + before, 3]
    hands = [[f"1{s}"], [f"5{s}"], [f"6{s}", f"7{s}"]]
    state = scripted(ruleset, hands, totals=totals, options=options)
    play(state, f"1{s}")  # seat 0 leads its last card: seat 1 scores 1, seat 2 scores 2
    final = [0, target + before + 1, 5]
    assert state.totals == final
    assert state.is_terminal is over
    if over:
        assert state.outcome().scores == tuple(final)
        assert state.outcome().ranks == (1, 3, 2)
    else:
        assert state.round == 2
        assert state.current_player == 1
        with pytest.raises(RuntimeError):
            state.outcome()


@pytest.mark.parametrize("ruleset", ["odin", "override-beta"])
def test_rounds_option_plays_exactly_that_many_rounds(ruleset):
    s = LOW[ruleset]
    state = scripted(ruleset, [[f"1{s}"], [f"5{s}"]], totals=[0, 40], options={"rounds": 2})
    play(state, f"1{s}")
    assert not state.is_terminal and state.round == 2  # past the target, but rounds=2
    set_hands(state, [[f"5{s}", f"6{s}"], [f"2{s}"]])
    play(state, f"2{s}")  # seat 1 leads round 2 and goes out
    assert state.is_terminal
    assert state.outcome().scores == (2, 41)


@pytest.mark.parametrize(
    ("totals", "final", "ranks"),
    [
        ([2, 0, 1], (2, 2, 3), (1, 1, 3)),
        ([1, 0, 0], (1, 2, 2), (1, 2, 2)),
        ([2, 0, 0], (2, 2, 2), (1, 1, 1)),
        ([3, 1, 1, 6], (3, 3, 3, 8), (1, 1, 1, 4)),
        ([5, 0, 3, 0], (5, 2, 5, 2), (3, 1, 3, 1)),
    ],
)
def test_lowest_total_wins_and_ties_share_a_rank(totals, final, ranks):
    # Seat 0 goes out by leading its last card; everyone else holds two cards.
    hands = [["1R"]] + [[f"{2 * k}P", f"{2 * k + 1}P"] for k in range(1, len(totals))]
    state = scripted("odin", hands, totals=totals, options={"rounds": 1})
    play(state, "1R")
    assert state.outcome().scores == final
    assert state.outcome().ranks == ranks


def test_override_beta_ranks_like_odin():
    hands = [["1S"], ["0*"], ["2C", "3C"]]
    state = scripted("override-beta", hands, totals=[4, 0, 7], options={"rounds": 1})
    play(state, "1S")
    assert state.outcome().scores == (4, 5, 9)
    assert state.outcome().ranks == (1, 2, 3)


# --------------------------------------------------------------------------
# odin-race: one round, the first to go out wins


def test_odin_race_first_player_out_wins_and_all_others_share_second():
    hands = [["3R", "1O"], ["6G"], ["9R", "9O", "2B"], ["1B", "2Y", "3Y"]]
    state = scripted("odin-race", hands)
    start = state.event_count
    play(state, "3R")
    play(state, "6G")  # seat 1 plays its last card: it wins at once, taking nothing
    assert state.is_terminal
    evs = events(state, start)
    assert of_type(evs, Took) == []
    assert [e.game_over for e in of_type(evs, RoundOver)] == [True]
    out = state.outcome()
    assert out.ranks == (2, 1, 2, 2)
    assert out.scores == (1, 0, 3, 3)  # cards left, for information


def test_odin_race_is_one_round_even_with_low_scores():
    state = scripted("odin-race", [["5R"], ["1O"]])
    play(state, "5R")
    assert state.is_terminal
    assert state.round == 1
    assert state.outcome().ranks == (1, 2)


@pytest.mark.parametrize(
    ("players", "each", "aside", "colours"),
    [(2, 18, 0, 4), (3, 18, 0, 6), (4, 13, 2, 6), (5, 10, 4, 6), (6, 9, 0, 6)],
)
def test_odin_race_deals_every_card_evenly(players, each, aside, colours):
    seen: set[str] = set()
    for seed in range(5):
        state = new_game("odin-race", players, None, seed)
        obs = state.observation(0)
        assert obs.hand_sizes == [each] * players
        assert obs.aside == aside
        dealt = [c for s in range(players) for c in state.observation(s).hand]
        assert len(dealt) == len(set(dealt)) == each * players
        seen |= set(dealt)
    assert len(seen) == 9 * colours if aside == 0 else len(seen) <= 9 * colours
    assert len({c[-1] for c in seen}) == colours
    assert seen <= full_deck("odin")


# --------------------------------------------------------------------------
# Decks and deals


@pytest.mark.parametrize(
    ("players", "options", "cards"),
    [
        (2, None, 36),
        (2, {"full_deck": False}, 36),
        (2, {"full_deck": True}, 54),
        (3, None, 54),
        (4, None, 54),
        (5, None, 54),
        (6, None, 54),
    ],
)
def test_odin_deck_and_deal(players, options, cards):
    colours = 4 if cards == 36 else 6
    seen: set[str] = set()
    for seed in range(40):
        state = new_game("odin", players, options, seed)
        obs = state.observation(0)
        assert obs.hand_sizes == [9] * players
        assert obs.aside == cards - 9 * players
        dealt = [c for s in range(players) for c in state.observation(s).hand]
        assert len(set(dealt)) == 9 * players
        seen |= set(dealt)
    # Two players: two whole colours are out of the game (36 cards, as the aside count
    # shows, in four colours); otherwise all six colours are used.
    assert len({c[-1] for c in seen}) == colours
    assert seen <= full_deck("odin")


def test_odin_six_players_deals_all_54_cards():
    state = new_game("odin", 6, None, 1)
    dealt = {c for s in range(6) for c in state.observation(s).hand}
    assert dealt == full_deck("odin")
    assert state.observation(0).aside == 0


@pytest.mark.parametrize(
    ("players", "cheat", "aside"),
    [(2, True, 19), (3, True, 10), (4, True, 1), (2, False, 18), (4, False, 0)],
)
def test_override_beta_deck_and_deal(players, cheat, aside):
    options = None if cheat else {"cheat_code": False}
    seen: set[str] = set()
    for seed in range(30):
        state = new_game("override-beta", players, options, seed)
        obs = state.observation(0)
        assert obs.hand_sizes == [9] * players
        assert obs.aside == aside
        seen |= {c for s in range(players) for c in state.observation(s).hand}
    assert ("0*" in seen) is cheat
    assert seen == full_deck("override-beta", cheat=cheat)


def test_override_beta_without_the_cheat_code_deals_the_36_card_deck_to_four():
    state = new_game("override-beta", 4, {"cheat_code": False}, 9)
    dealt = {c for s in range(4) for c in state.observation(s).hand}
    assert dealt == full_deck("override-beta", cheat=False)


# --------------------------------------------------------------------------
# Refusals name what is wrong; a finished game refuses everything


@pytest.mark.parametrize(
    ("ruleset", "code"),
    [("odin", "10R"), ("odin", "5S"), ("odin", "0*"), ("override-beta", "5R"), ("odin", "")],
)
def test_an_unknown_card_code_is_rejected_by_name(ruleset, code):
    state = new_game(ruleset, 2, None, 0)
    reason = reject(state, Play((code,)), "not a card")
    assert repr(code) in reason or code in reason


@pytest.mark.parametrize("ruleset", FAMILY)
def test_a_card_not_in_hand_is_rejected_by_name(ruleset):
    state = new_game(ruleset, 2, None, 0)
    theirs = state.observation(1).hand[0]
    reject(state, Play((theirs,)), theirs, "not in your hand")
    mine = state.observation(0).hand[0]
    reject(state, Play((mine, theirs)), theirs, "not in your hand")


def test_empty_and_repeated_plays_are_refused():
    state = scripted("odin", [["5R", "5O"], ["1Y"]])
    reject(state, Play(()), "at least one card")
    reject(state, Play(("5R", "5R")), "twice")


def test_a_finished_game_takes_no_action():
    state = scripted("odin", [["5R"], ["1Y"]], options={"rounds": 1})
    with pytest.raises(RuntimeError):
        state.outcome()
    play(state, "5R")
    assert state.is_terminal and state.current_player is None
    assert state.legal_actions() == []
    assert state.observation(1).phase == "over"
    assert state.observation(1).to_act is None
    with pytest.raises(GameFinished):
        state.apply(Pass())
