"""The rules of bested-solo (docs/rules.md §6): the seed's solo examples replayed, singles,
taking dummy cards, drawing, the final trick, scoring, rounds, random play with
invariants, apply against legal_actions, the unseen dummy and exact replay."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, get_ruleset, new_game
from arena.games.bested import Dealt, Done, Pass, Play, Swap
from arena.games.bested_solo import (
    Drew,
    Passed,
    Played,
    RoundOver,
    RoundStarted,
    SoloPlay,
    TakeDummy,
    TookDummy,
)
from arena.games.melds import card_table
from tests.helpers.bested import (
    SOLO_DECK,
    canon,
    check_apply_matches_legal,
    check_legal_against_reference,
    codes,
    done,
    hand,
    pass_,
    play,
    play_random,
    rank,
    solo_scripted,
    swap,
)

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def legal(state) -> set[tuple]:
    return {canon(a) for a in state.legal_actions()}


def reject(state, action, *fragments: str) -> None:
    before = (msgspec.json.encode(state.observation(0)), list(state.history), state.event_count)
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    for fragment in fragments:
        assert fragment.lower() in info.value.reason.lower(), info.value.reason
    assert canon(action) not in legal(state)
    after = (msgspec.json.encode(state.observation(0)), list(state.history), state.event_count)
    assert after == before


def over_events(state) -> list[RoundOver]:
    return [e for e in state.events_for(0) if isinstance(e, RoundOver)]


# The seed's solo examples use clubs; the solo deck's three suits are S H D in arena
# (suits are symmetric), so the examples' clubs are written as diamonds here.


def test_seed_example_shed_out():
    """Chocula leads a suited 9,10, plays 11,12 over it with the last two cards and sheds
    out. The dummy (3C 4C 2H 9S) drops the 9S on normal: 9. Chocula 0: a win."""
    state = solo_scripted(["9D", "10D", "11D", "12D"], ["3D", "4D", "2H", "9S"], ["5S", "6S"])
    play(state, "run", "9D", "10D")
    play(state, "run", "11D", "12D")
    assert state.is_terminal
    (over,) = over_events(state)
    assert over.shed_out and over.bot_score == 0
    assert over.dummy == ["9S", "4D", "3D", "2H"] and over.dummy_discarded == ["S"]
    assert over.dummy_score == 9 and over.game_over
    assert (over.bot_total, over.dummy_total) == (0, 9)
    out = state.outcome()
    assert out.scores == (9,) and out.ranks == (1,)


def test_seed_example_deck_runs_out():
    """Chocula leads (a pair of 10s: the seed's single 10 is not legal in solo), passes
    and must draw 3 but the deck holds 1: the next trick is the final one. He leads
    4,4,4 and passes. The dummy (6C 7C 2H 5H 11S) drops clubs and the 11S on hard: 7.
    Chocula holds 3H 5S: 8. He loses."""
    dummy = ["6D", "7D", "2H", "5H", "11S"]
    state = solo_scripted(
        ["10S", "10H", "4S", "4H", "4D", "3H"], dummy, ["5S"], options={"difficulty": "hard"}
    )
    reject(state, Play("single", ("10S",)), "singles")
    play(state, "set", "10S", "10H")
    assert state.observation(0).draw_on_pass == 3
    start = state.event_count
    pass_(state)
    assert Passed(1, 0, True) in state.events_for(0, start)
    assert Drew(["5S"]) in state.events_for(0, start)
    obs = state.observation(0)
    assert obs.final_trick and obs.deck == 0 and obs.phase == "lead"
    play(state, "set", "4S", "4H", "4D")
    pass_(state)
    assert state.is_terminal
    (over,) = over_events(state)
    assert not over.shed_out and over.hand == ["5S", "3H"] and over.bot_score == 8
    assert over.dummy_discarded == ["S", "D"] and over.dummy_score == 7
    out = state.outcome()
    assert out.scores == (-1,) and out.ranks == (2,)


def test_seed_example_draws_three_after_one_play_and_two_after_more():
    """Chocula leads a pair of 9s, passes, draws 3; then leads, plays over himself and
    passes: draws 2."""
    deck = ["2S", "2H", "2D", "3S", "3H", "13D"]
    state = solo_scripted(["9S", "9H", "5S", "5H", "6D", "6H", "12S"], ["7D"], deck)
    play(state, "set", "9S", "9H")
    pass_(state)
    assert state.observation(0).deck == 3
    assert sorted(hand(state)) == sorted(["5S", "5H", "6D", "6H", "12S", "2S", "2H", "2D"])
    play(state, "set", "5S", "5H")
    play(state, "set", "6D", "6H")
    assert state.observation(0).draw_on_pass == 2
    pass_(state)
    obs = state.observation(0)
    assert obs.deck == 1 and not obs.final_trick
    assert "3S" in obs.hand and "3H" in obs.hand


def test_seed_example_a_dummy_card_as_a_wild():
    """Chocula leads a pair of 9s, takes a dummy card as a wild and plays a pair of 11s
    with an 11 and the wild, then passes and draws 2."""
    state = solo_scripted(["9S", "9H", "11S", "4D"], ["13H", "2D"], ["5S", "6S", "7S"])
    play(state, "set", "9S", "9H")
    assert ("play", "set", frozenset({"11S"}), (11,)) not in legal(state)  # no wild yet
    assert ("TakeDummy",) in legal(state)
    start = state.event_count
    state.apply(TakeDummy())
    assert state.events_for(0, start) == [TookDummy(1)]
    obs = state.observation(0)
    assert obs.wilds == 1 and obs.dummy == 1 and obs.phase == "play"
    assert "13H" not in msgspec.json.encode(obs).decode()  # the wild is unseen
    play(state, "set", "11S", wilds=[11])
    pass_(state)
    assert state.observation(0).deck == 1
    assert sorted(hand(state)) == ["4D", "5S", "6S"]


def test_a_wild_in_a_naturals_place_is_a_play_then_a_swap():
    """arena's ruling: a pair of 9s with a wild for the 9H is the pair 9S 9H, then a swap
    of 9H; the swap consumes a wild like the play would, and the meld is played (public,
    in `plays`) once the bot is done."""
    state = solo_scripted(["9S", "9H", "9D", "4D"], ["13H", "2D", "7S"], ["5S", "6S", "7H"])
    state.apply(TakeDummy())
    state.apply(TakeDummy())
    assert ("play", "set", frozenset({"9S"}), (9,)) not in legal(state)
    reject(state, Play("set", ("9S",), (9,)), "9H", "swap")
    start = state.event_count
    play(state, "set", "9S", "9H")
    obs = state.observation(0)
    assert obs.phase == "swap" and obs.pending == SoloPlay("set", ("9S", "9H"), ())
    assert obs.plays == [] and obs.wilds == 2 and obs.hand == ["9D", "4D"]
    assert legal(state) == {("Done",), ("Swap", "9S"), ("Swap", "9H")}
    assert state.events_for(0, start) == []
    reject(state, TakeDummy(), "not played yet")  # dummy cards are taken before the play
    reject(state, Pass(None), "not played yet")
    swap(state, "9H")
    obs = state.observation(0)
    assert obs.phase == "swap" and obs.pending == SoloPlay("set", ("9S",), (9,))
    assert obs.wilds == 1 and obs.hand == ["9H", "9D", "4D"]
    done(state)
    assert state.events_for(0, start) == [Played("set", ("9S",), (9,))]
    obs = state.observation(0)
    assert obs.phase == "play" and obs.pending is None and obs.wilds == 1
    assert obs.plays == [SoloPlay("set", ("9S",), (9,))]
    assert state.wilds == [card_table().index["2D"]]  # the first taken (13H) was used
    reject(state, Done(), "no meld")


def test_the_swap_step_is_skipped_when_no_wild_is_left():
    state = solo_scripted(["9S", "9H", "4D"], ["13H"], ["5S", "6S", "7H"])
    state.apply(TakeDummy())
    play(state, "set", "9S", "9H", wilds=[9])  # the only wild is in the meld
    assert state.observation(0).phase == "play" and state.wilds == []
    state = solo_scripted(["4D", "9S"], ["13H"], ["5S", "6S", "7H"])
    state.apply(TakeDummy())
    play(state, "run", "4D", wilds=[5])  # no natural 5D: the wild is needed
    assert state.observation(0).phase == "play" and state.wilds == []
    state = solo_scripted(["9S", "9H", "4D"], ["13H"], ["5S", "6S", "7H"])
    play(state, "set", "9S", "9H")  # no wild held
    assert state.observation(0).phase == "play"


def test_singles_are_never_legal():
    state = solo_scripted(["9S", "10S", "4D"], ["2D"], ["5S", "6S", "7S"])
    assert all(a.meld != "single" for a in state.legal_actions() if isinstance(a, Play))
    reject(state, Play("single", ("4D",)), "singles")


def test_must_take_a_dummy_card_when_no_meld_can_be_led():
    state = solo_scripted(["9S", "4D"], ["2D", "3D"], ["5S", "6S", "7S"])
    assert state.legal_actions() == [TakeDummy()]
    reject(state, Pass(None), "lead")
    state.apply(TakeDummy())
    assert ("play", "set", frozenset({"9S"}), (9,)) in legal(state)
    assert ("play", "run", frozenset({"4D"}), (5,)) in legal(state)
    reject(state, Pass(None), "lead")


def test_cannot_lead_and_the_dummy_is_empty_passes_as_if_played_once():
    state = solo_scripted(["9S"], [], ["5S", "6S", "7S", "8S"])
    assert state.legal_actions() == [Pass(None)]
    pass_(state)
    obs = state.observation(0)
    assert obs.deck == 1 and len(obs.hand) == 4 and not obs.final_trick


def test_beating_your_own_meld_and_passing():
    state = solo_scripted(["5S", "6S", "7H", "8H", "9D", "9H"], ["2D"], ["2S", "3S"])
    play(state, "run", "5S", "6S")
    got = legal(state)
    assert ("play", "run", frozenset({"7H", "8H"}), ()) in got
    assert ("play", "set", frozenset({"9D", "9H"}), ()) not in got  # another type
    reject(state, Play("set", ("9D", "9H")), "beat your run")
    assert ("TakeDummy",) in got and ("Pass", None) in got
    play(state, "run", "7H", "8H")
    reject(state, Play("run", ("5S", "6S")), "not a natural card")


def test_taking_the_last_dummy_card_and_the_final_trick_draw():
    state = solo_scripted(["9S", "9H", "4D", "5D"], ["2D"], ["5S", "6S"])
    state.apply(TakeDummy())
    reject(state, TakeDummy(), "no cards")
    play(state, "set", "9S", "9H")
    done(state)  # keep the wild (no swap)
    pass_(state)  # draws 3, gets 2: the deck is empty, the next trick is final
    obs = state.observation(0)
    assert obs.final_trick and obs.draw_on_pass == 0
    play(state, "run", "4D", "5D")
    done(state)
    pass_(state)
    (over,) = over_events(state)
    # The wild (2D) still in hand counts its printed rank.
    assert over.wilds == ["2D"] and over.bot_score == 5 + 6 + 2
    assert over.dummy == [] and over.dummy_score == 0


@pytest.mark.parametrize("rounds", [3, 5])
def test_rounds_keep_running_totals_and_deal_the_dummy_one_fewer(rounds):
    state = new_game("bested-solo", 1, {"rounds": rounds, "difficulty": "hard"}, 4)
    play_random(state, random.Random(2))
    starts = [e for e in state.events_for(0) if isinstance(e, RoundStarted)]
    assert [e.dummy for e in starts] == [7 - r for r in range(rounds)]
    assert all(e.hand_size == 14 and e.deck == 36 - 14 - e.dummy for e in starts)
    overs = over_events(state)
    assert len(overs) == rounds and [o.game_over for o in overs] == [False] * (rounds - 1) + [True]
    assert overs[-1].bot_total == sum(o.bot_score for o in overs)
    assert overs[-1].dummy_total == sum(o.dummy_score for o in overs)
    margin = overs[-1].dummy_total - overs[-1].bot_total
    assert state.outcome().scores == (margin,)
    assert state.outcome().ranks == ((1,) if margin >= 0 else (2,))


def test_a_draw_is_rank_one():
    state = solo_scripted(["9D", "10D"], ["3D"], ["5S", "6S"])
    play(state, "run", "9D", "10D")
    assert state.outcome().scores == (0,) and state.outcome().ranks == (1,)
    assert over_events(state)[0].dummy_score == 0  # normal: the only suit is discarded


# --------------------------------------------------------------------------
# Random play, invariants and hidden information


def check_solo(state) -> None:
    """Cards are conserved (hand, wilds, dummy, deck, played, a meld awaiting swaps) and
    the view agrees."""
    if state.is_terminal:
        assert state.legal_actions() == []
        return
    every = state.hand + state.wilds + state.dummy + state.deck + state.played
    pending = state.pending
    if pending is not None:
        every += [*pending.naturals, *state._pending_used]
        assert len(pending.wilds) == len(state._pending_used)
        assert pending.naturals and state.wilds  # else the swap step is skipped
    assert len(every) == len(set(every)) == 36
    assert set(codes(every)) == SOLO_DECK
    obs = state.observation(0)
    assert obs.hand == codes(state.hand) and obs.wilds == len(state.wilds)
    assert (obs.phase == "swap") == (pending is not None) == (obs.pending is not None)
    assert obs.deck == len(state.deck) and obs.dummy == len(state.dummy)
    legal_ = state.legal_actions()
    forms = [canon(a) for a in legal_]
    assert legal_ and len(forms) == len(set(forms))


@pytest.mark.parametrize("options", [{}, {"difficulty": "hard"}, {"rounds": 3}], ids=str)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, play_seed=SEEDS, style=st.sampled_from(["uniform", "eager", "timid"]))
def test_random_games_keep_every_invariant(options, seed, play_seed, style):
    state = new_game("bested-solo", 1, options, seed)
    rng = random.Random(play_seed)

    def step(state) -> None:
        check_solo(state)
        if not state.is_terminal:
            check_legal_against_reference(state)
            if rng.random() < 0.05:
                check_apply_matches_legal(state, rng)

    check_solo(state)
    play_random(state, rng, style=style, on_step=step)
    overs = over_events(state)
    assert len(overs) == options.get("rounds", 1)
    for over in overs:
        assert over.shed_out == (over.hand == [] and over.wilds == [])
        assert over.bot_score == sum(rank(c) for c in over.hand + over.wilds)
        sums = sorted((sum(rank(c) for c in over.dummy if c[-1] == s) for s in "SHD"), reverse=True)
        drop = 1 if options.get("difficulty", "normal") == "normal" else 2
        assert over.dummy_score == sum(sums[drop:])


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, play_seed=SEEDS, steps=st.integers(0, 60), data=st.data())
def test_the_dummy_the_deck_and_the_wilds_stay_unseen(seed, play_seed, steps, data):
    state = new_game("bested-solo", 1, {"rounds": 3}, seed)
    rng = random.Random(play_seed)
    for _ in range(steps):
        if state.is_terminal:
            return
        actions = state.legal_actions()
        take = [a for a in actions if isinstance(a, TakeDummy)]
        state.apply(take[0] if take and rng.random() < 0.3 else rng.choice(actions))
    if state.is_terminal:
        return
    hidden = codes(state.dummy + state.deck + state.wilds)
    raw = msgspec.json.encode(state.observation(0)).decode()
    this_round = max(i for i, e in enumerate(state.events_for(0)) if isinstance(e, Dealt))
    told = msgspec.json.encode(state.events_for(0)[this_round:]).decode()
    for c in hidden:
        assert f'"{c}"' not in raw and f'"{c}"' not in told
    before, legal_before = raw, state.legal_actions()
    # Shuffle the unseen cards among the dummy, the deck and the wilds' printed cards.
    pool = state.dummy + state.deck + state.wilds
    order = data.draw(st.permutations(pool))
    a, b = len(state.dummy), len(state.dummy) + len(state.deck)
    state.dummy, state.deck, state.wilds = list(order[:a]), list(order[a:b]), list(order[b:])
    assert msgspec.json.encode(state.observation(0)).decode() == before
    assert state.legal_actions() == legal_before


@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, play_seed=SEEDS)
def test_replay_from_seed_and_history_is_exact(seed, play_seed):
    options = {"rounds": 3, "difficulty": "hard"}
    original = new_game("bested-solo", 1, options, seed)
    play_random(original, random.Random(play_seed))
    action_type = get_ruleset("bested-solo").action_type
    replay = new_game("bested-solo", 1, options, seed)
    for _, action in original.history:
        replay.apply(msgspec.json.decode(msgspec.json.encode(action), type=action_type))
    assert replay.history == original.history
    assert replay.outcome() == original.outcome()
    assert msgspec.json.encode(replay.events_for(0)) == msgspec.json.encode(original.events_for(0))
    assert all(isinstance(e.text(), str) for e in original.events_for(0))


@pytest.mark.parametrize(
    ("wire", "action"),
    [
        (b'{"type":"take_dummy"}', TakeDummy()),
        (b'{"type":"swap","card":"9H"}', Swap("9H")),
        (b'{"type":"done"}', Done()),
        (b'{"type":"pass","pass_card":null}', Pass(None)),
        (
            b'{"type":"play","meld":"set","cards":["11S"],"wilds":[11]}',
            Play("set", ("11S",), (11,)),
        ),
    ],
)
def test_actions_decode_from_json(wire, action):
    assert msgspec.json.decode(wire, type=get_ruleset("bested-solo").action_type) == action
