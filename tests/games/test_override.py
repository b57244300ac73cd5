"""override-classic and override-original (docs/rules.md §7-8): overriding, lines, discards,
draws, the growing board's adjacency and 5×5 box, what each seat sees, random play
with invariants, replay, the registry, JSON, and the board picture in the commands.

Reference code here works on card codes ("13H") and is written independently of the
engine, so that a mistake in the engine cannot hide behind the same one in the test.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from arena.cli.app import app
from arena.games import GameConfigError, IllegalAction, get_ruleset, new_game
from arena.games.override import (
    Discarded,
    Drew,
    GameDrawn,
    OverrideObservation,
    OverrideState,
    Place,
    Placed,
    Started,
    Won,
    card_table,
)
from arena.games.text import event_text, progress_lines
from arena.referee.records import read_records
from tests.helpers.paths import RANDOM

RULESETS = ["override-classic", "override-original"]
RED, BLACK = "HD", "SC"
Square = tuple[int, int]

# --------------------------------------------------------------------------
# Reference rules on card codes


def number(code: str) -> int:
    return int(code[:-1])


def colour(code: str) -> int:
    """0 for red (♥ ♦), 1 for black (♠ ♣)."""
    return 0 if code[-1] in RED else 1


def ref_beats(new: str, old: str) -> bool:
    """A < 2 < ... < K, and A also beats K (so A and K beat each other); equal never beats."""
    a, b = number(new), number(old)
    return a > b or (a, b) == (1, 13)


def all_codes(suits: str = "SHDC") -> list[str]:
    return [f"{n}{s}" for s in suits for n in range(1, 14)]


CLASSIC_LINES: list[list[Square]] = (
    [[(r, c) for c in range(5)] for r in range(5)]
    + [[(r, c) for r in range(5)] for c in range(5)]
    + [[(i, i) for i in range(5)], [(i, 4 - i) for i in range(5)]]
)


def segments(board: Iterable[Square]) -> list[list[Square]]:
    """Every five cells in a row, column or diagonal among the given squares' area."""
    squares = set(board)
    out = []
    for r, c in squares:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            cells = [(r + i * dr, c + i * dc) for i in range(5)]
            if all(x in squares for x in cells):
                out.append(cells)
    return out


def owners(state: OverrideState) -> dict[Square, int]:
    obs = state.observation(0)
    return {(cell.row, cell.col): colour(cell.stack[-1]) for cell in obs.board}


def lines_of(state: OverrideState, seat: int) -> list[list[Square]]:
    own = owners(state)
    candidates = segments(own) if state.growing else CLASSIC_LINES
    return [line for line in candidates if all(own.get(sq) == seat for sq in line)]


def reference_targets(state: OverrideState, card: str) -> list[Square]:
    """Every legal square for `card`, by brute force over a wide area."""
    tops = {(c.row, c.col): c.stack[-1] for c in state.observation(0).board}
    out = []
    span = range(-6, 7) if state.growing else range(5)
    for r in span:
        for c in span:
            if (r, c) in tops:
                if ref_beats(card, tops[(r, c)]):
                    out.append((r, c))
                continue
            if not state.growing:
                out.append((r, c))
            elif not tops:
                if (r, c) == (0, 0):
                    out.append((r, c))
            elif any(
                (r + dr, c + dc) in tops for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc
            ):
                rows = [x for x, _ in tops] + [r]
                cols = [y for _, y in tops] + [c]
                if max(rows) - min(rows) <= 4 and max(cols) - min(cols) <= 4:
                    out.append((r, c))
    return sorted(out)


# --------------------------------------------------------------------------
# Scripted positions


def scripted(
    ruleset: str,
    board: dict[Square, Sequence[str]],
    card: str,
    *,
    piles: Sequence[Sequence[str]] | None = None,
    discards: Sequence[str] = (),
) -> OverrideState:
    """A game whose table is overwritten: `card` is drawn by its colour's seat, which is to
    move. Without `piles` every other card goes back to its pile (top = last)."""
    state = new_game(ruleset, 2, None, 0)
    assert isinstance(state, OverrideState)
    table = card_table()
    used = [c for stack in board.values() for c in stack] + [card, *discards]
    if piles is not None:
        used += [c for p in piles for c in p]
    assert len(used) == len(set(used)), "a card is scripted twice"
    if piles is None:
        piles = [[c for c in all_codes(suits) if c not in used] for suits in (RED, BLACK)]
    else:
        assert len(used) == 52, "scripted piles must account for every card"
    state.piles = [[table.index[c] for c in p] for p in piles]
    state.board = {sq: [table.index[c] for c in stack] for sq, stack in board.items()}
    state.discards = [table.index[c] for c in discards]
    state.turn = colour(card)
    state.drawn = table.index[card]
    state.rebuild()
    return state


def place(state: OverrideState, row: int, col: int) -> None:
    state.apply(Place(row, col))


def squares(state: OverrideState) -> list[Square]:
    return [(a.row, a.col) for a in state.legal_actions()]


def view(state: OverrideState) -> list[bytes]:
    return [msgspec.json.encode(state.observation(s)) for s in range(2)]


def reject(state: OverrideState, row: int, col: int, *fragments: str) -> None:
    """The placement is refused with a reason naming each fragment, and nothing changes."""
    before = (view(state), list(state.history), state.event_count, state.legal_actions())
    with pytest.raises(IllegalAction) as info:
        place(state, row, col)
    for fragment in fragments:
        assert fragment.lower() in info.value.reason.lower(), info.value.reason
    assert (row, col) not in squares(state)
    assert (view(state), list(state.history), state.event_count, state.legal_actions()) == before


def public(state: OverrideState, start: int = 0) -> list[msgspec.Struct]:
    return [e for aud, e in state.events_since(start) if aud is None]


# --------------------------------------------------------------------------
# Overriding (docs/rules.md §7.2)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize(
    ("new", "old", "allowed"),
    [
        ("1H", "13S", True),  # A beats K
        ("13H", "1S", True),  # and K still beats A
        ("1H", "1S", False),  # equal: an A overrides only a K
        ("8H", "8S", False),  # equal never beats
        ("7H", "10S", False),
        ("8H", "5S", True),
        ("10H", "8S", True),
        ("2H", "1S", True),  # A is otherwise the lowest
        ("1H", "12S", False),
        ("13H", "12S", True),
        ("12D", "12H", False),  # equal, own colour
    ],
)
def test_overriding_follows_the_ranks(ruleset, new, old, allowed):
    state = scripted(ruleset, {(0, 0): [old]}, new)
    assert ((0, 0) in squares(state)) == allowed
    assert squares(state) == reference_targets(state, new)
    if allowed:
        start = state.event_count
        place(state, 0, 0)
        placed = [e for e in public(state, start) if isinstance(e, Placed)]
        assert placed == [Placed(0, new, 0, 0, old, 2)]
        assert state.observation(1).board[0].stack == (old, new)
        assert state.observation(1).board[0].owner == 0
    else:
        reject(state, 0, 0, "does not override", old)


def test_the_reasons_say_which_rule_refuses():
    state = scripted("override-classic", {(0, 0): ["12S"], (0, 1): ["8S"]}, "1H")
    reject(state, 0, 0, "an A overrides only a K")
    state = scripted("override-classic", {(0, 1): ["8S"]}, "8H")
    reject(state, 0, 1, "equal ranks never beat")
    state = scripted("override-classic", {(0, 2): ["10S"]}, "7H")
    reject(state, 0, 2, "7 is lower than 10")


def test_own_cards_can_be_overridden_and_stacks_are_kept():
    state = scripted("override-classic", {(2, 2): ["4C", "7H"]}, "10D")
    assert (2, 2) in squares(state)
    place(state, 2, 2)
    cell = state.observation(0).board[0]
    assert cell.stack == ("4C", "7H", "10D") and cell.owner == 0


def test_a_square_changes_colour_with_its_top_card():
    # docs/rules.md §7.2 / the seed: black 4, red 7, black 10, red Q; the top card owns it.
    state = scripted("override-classic", {(1, 1): ["4S", "7H", "10C"]}, "12D")
    assert owners(state)[(1, 1)] == 1
    place(state, 1, 1)
    assert owners(state)[(1, 1)] == 0
    assert state.observation(1).board[0].stack == ("4S", "7H", "10C", "12D")


def test_classic_offers_every_empty_square_and_nothing_off_the_board():
    state = scripted("override-classic", {(0, 0): ["9S"]}, "5H")
    assert squares(state) == [(r, c) for r in range(5) for c in range(5) if (r, c) != (0, 0)]
    reject(state, 5, 0, "off the board")
    reject(state, -1, 2, "off the board")


def test_legal_actions_are_sorted_and_unique():
    state = scripted("override-classic", {(4, 4): ["2S"], (0, 3): ["3C"]}, "9H")
    actions = state.legal_actions()
    keys = [(a.row, a.col) for a in actions]
    assert keys == sorted(set(keys))
    assert len(actions) == 25


# --------------------------------------------------------------------------
# Lines and the end of the game


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("index", range(len(CLASSIC_LINES)))
def test_each_of_the_twelve_classic_lines_wins(seat, index):
    line = CLASSIC_LINES[index]
    suits = RED if seat == 0 else BLACK
    cards = iter(f"{n}{s}" for s in suits for n in range(2, 14))
    board = {sq: [next(cards)] for sq in line[1:]}
    state = scripted("override-classic", board, f"1{suits[0]}")
    start = state.event_count
    place(state, *line[0])
    assert state.is_terminal
    assert public(state, start)[-1] == Won(seat, sorted(line))
    assert lines_of(state, seat) == [line]
    out = state.outcome()
    assert out.ranks == ((1, 2) if seat == 0 else (2, 1))
    assert out.scores == ((1, 0) if seat == 0 else (0, 1))
    assert state.legal_actions() == []


def test_a_line_completed_by_an_override_wins():
    board = {(2, c): [f"{c + 2}H"] for c in range(4)} | {(2, 4): ["6S"]}
    state = scripted("override-classic", board, "9D")
    place(state, 2, 4)
    assert state.winner == 0 and isinstance(public(state)[-1], Won)


def test_four_in_a_line_and_a_short_diagonal_do_not_win():
    board = {(r, r + 1): [f"{r + 2}H"] for r in range(4)}  # a diagonal of four cells only
    board |= {(0, c): [f"{c + 7}D"] for c in range(3)}
    state = scripted("override-classic", board, "1H")
    place(state, 4, 4)
    assert not state.is_terminal and state.winner is None
    assert state.current_player == 1


def test_an_opponent_colour_in_the_line_blocks_it():
    board = {(0, c): [f"{c + 2}H"] for c in range(3)} | {(0, 3): ["5S"]}
    state = scripted("override-classic", board, "9H")
    place(state, 0, 4)
    assert not state.is_terminal


def full_board() -> dict[Square, list[str]]:
    """25 squares whose top cards are all 2-11 (no A or K on top, so an A fits nowhere),
    with both colours in every one of the 12 lines."""
    red = iter([f"{n}{s}" for s in "HD" for n in range(2, 12)])
    black = iter([f"{n}S" for n in range(2, 12)])
    board = {}
    for r in range(5):
        for c in range(5):
            board[(r, c)] = [next(black) if (2 * r + c) % 5 < 2 else next(red)]
    return board


def test_a_card_with_no_square_is_discarded_and_the_turn_passes():
    board = full_board()
    used = {c for stack in board.values() for c in stack} | {"12H", "1D", "1S", "13C"}
    rest = [c for c in all_codes() if c not in used]
    red = [c for c in rest if colour(c) == 0]
    black = [c for c in rest if colour(c) == 1]
    # Tops are last: red's next card is 1D, black's 1S and then 13C.
    state = scripted("override-classic", board, "12H", piles=[[*red, "1D"], [*black, "13C", "1S"]])
    assert squares(state) == [(r, c) for r in range(5) for c in range(5)]
    start = state.event_count
    place(state, 0, 0)
    # Black's A fits nowhere (no K on top, no empty square): discarded, no decision;
    # then red's A likewise; then black's K fits everywhere but nowhere equal.
    evs = public(state, start)
    assert [e for e in evs if isinstance(e, Discarded)] == [Discarded(1, "1S"), Discarded(0, "1D")]
    assert state.history == [(0, Place(0, 0))]
    assert state.current_player == 1
    assert state.observation(1).card == "13C"
    assert state.observation(0).card is None
    assert state.observation(0).discards == ["1S", "1D"]
    assert squares(state) == [(r, c) for r in range(5) for c in range(5)]
    # Each draw was private to its seat; each discard is public.
    assert Drew(1, "1S") in state.events_for(1, start)
    assert Drew(1, "1S") not in state.events_for(0, start)
    assert Drew(0, "1D") in state.events_for(0, start)
    assert Discarded(1, "1S") in state.events_for(0, start)


def test_on_a_full_board_a_drawn_k_fits_on_the_aces_but_not_on_the_kings() -> None:
    """A and K beat each other (docs/rules.md §7.2): a K overrides an A, never a K."""
    board = full_board()
    board[(0, 0)] = [*board[(0, 0)], "13S"]
    board[(0, 1)] = [*board[(0, 1)], "1C"]
    state = scripted("override-classic", board, "13H")
    assert (0, 0) not in squares(state) and (0, 1) in squares(state)
    assert len(squares(state)) == 24
    reject(state, 0, 0, "equal ranks never beat")
    place(state, 0, 1)
    assert state.observation(1).board[1].stack[-2:] == ("1C", "13H")


def test_a_and_k_override_each_other_again_and_again() -> None:
    """A K, an A on it, a K on that A, and so on: every override is legal, and the square
    takes the colour of each new top card."""
    stack = ["13S"]
    for card in ("1H", "13C", "1D", "13H"):
        state = scripted("override-classic", {(2, 2): stack}, card)
        assert (2, 2) in squares(state), card
        place(state, 2, 2)
        stack = [*stack, card]
        assert list(state.observation(0).board[0].stack) == stack
        assert owners(state)[(2, 2)] == colour(card)


def test_both_piles_empty_without_a_line_is_a_draw():
    red = all_codes(RED)
    black = all_codes(BLACK)
    # Everything else is discarded; black holds its last card, red's pile is empty.
    state = scripted(
        "override-classic",
        {(0, 0): ["5H"], (1, 1): ["6S"]},
        "7S",
        piles=[[], []],
        discards=[c for c in red + black if c not in {"5H", "6S", "7S"}],
    )
    start = state.event_count
    place(state, 2, 2)
    assert state.is_terminal
    assert public(state, start)[-1] == GameDrawn()
    out = state.outcome()
    assert out.ranks == (1, 1) and out.scores == (0.5, 0.5)


def test_the_last_card_can_still_win():
    board = {(4, c): [f"{c + 2}C"] for c in range(4)}
    rest = [c for c in all_codes() if c not in {"2C", "3C", "4C", "5C", "9S"}]
    state = scripted("override-classic", board, "9S", piles=[[], []], discards=rest)
    place(state, 4, 4)
    assert state.winner == 1 and state.outcome().ranks == (2, 1)


def test_seat_0_red_moves_first_from_26_card_piles():
    for ruleset in RULESETS:
        state = new_game(ruleset, 2, None, 5)
        assert state.current_player == 0
        obs = state.observation(0)
        assert obs.card is not None and colour(obs.card) == 0
        assert obs.piles == [25, 26]
        assert obs.board == [] and obs.discards == []
        assert state.events_for(0)[0] == Started([26, 26], 0)


# --------------------------------------------------------------------------
# override-original: the growing board (docs/rules.md §8)


def test_the_first_card_goes_at_0_0():
    state = new_game("override-original", 2, None, 3)
    assert state.legal_actions() == [Place(0, 0)]
    assert state.observation(0).box is None
    reject(state, 2, 2, "first card goes at (0, 0)")
    reject(state, 0, 1, "(0, 0)")
    place(state, 0, 0)
    box = state.observation(1).box
    assert box is not None and (box.top, box.left, box.bottom, box.right) == (0, 0, 0, 0)


def test_later_cards_go_next_to_a_card_in_eight_directions():
    state = scripted("override-original", {(0, 0): ["9S"]}, "5H")
    neighbours = [(r, c) for r in (-1, 0, 1) for c in (-1, 0, 1) if (r, c) != (0, 0)]
    assert squares(state) == neighbours
    reject(state, 0, 2, "not next to a card")
    reject(state, 2, 2, "not next to a card")
    place(state, -1, -1)  # coordinates may be negative
    cell = state.observation(1).board[0]
    assert (cell.row, cell.col, cell.stack) == (-1, -1, ("5H",))


def test_overriding_a_card_is_allowed_anywhere_on_the_table():
    state = scripted("override-original", {(0, 0): ["9S"], (0, 1): ["2C"]}, "10H")
    assert (0, 0) in squares(state) and (0, 1) in squares(state)
    assert squares(state) == reference_targets(state, "10H")


def test_the_cards_must_fit_in_a_5x5_box():
    board = {(0, c): [f"{c + 2}S"] for c in range(5)}  # five wide already
    state = scripted("override-original", board, "9H")
    reject(state, 0, 5, "5×5 box")
    reject(state, 0, -1, "5×5 box")
    reject(state, 1, 5, "5×5 box")
    assert (1, 4) in squares(state) and (-1, 0) in squares(state)
    assert (0, 4) in squares(state)  # an override inside the box
    assert squares(state) == reference_targets(state, "9H")
    place(state, 0, 4)
    assert not state.is_terminal


def test_the_box_limits_rows_too_and_moves_with_the_cards():
    board = {(r, 0): [f"{r + 4}S"] for r in range(-2, 3)}  # rows -2..2
    state = scripted("override-original", board, "9H")
    reject(state, 3, 0, "5×5 box")
    reject(state, -3, 1, "5×5 box")
    place(state, 2, 1)
    box = state.observation(0).box
    assert box is not None and (box.top, box.left, box.bottom, box.right) == (-2, 0, 2, 1)


@pytest.mark.parametrize(
    "line",
    [
        [(-1, c) for c in range(-2, 3)],
        [(r, 3) for r in range(-4, 1)],
        [(i, i) for i in range(-2, 3)],
        [(i, 1 - i) for i in range(-1, 4)],
    ],
)
def test_an_original_line_is_five_in_a_row_column_or_diagonal_anywhere(line):
    board = {sq: [f"{n}D"] for sq, n in zip(line[1:], range(2, 6), strict=True)}
    state = scripted("override-original", board, "9H")
    place(state, *line[0])
    assert state.winner == 0
    assert public(state)[-1] == Won(0, sorted(line))


def test_original_box_and_observation_shape():
    state = scripted("override-original", {(0, 0): ["9S"], (1, 1): ["4H"]}, "5C")
    obs = state.observation(1)
    assert isinstance(obs, OverrideObservation)
    data = msgspec.json.decode(msgspec.json.encode(obs))
    assert data["type"] == "override"
    assert data["box"] == {"top": 0, "left": 0, "bottom": 1, "right": 1}
    assert data["board"][0] == {"row": 0, "col": 0, "stack": ["9S"], "owner": 1}
    assert data["card"] == "5C" and data["to_act"] == 1
    assert msgspec.json.decode(msgspec.json.encode(state.observation(0)))["card"] is None
    assert scripted("override-classic", {}, "5C").observation(1).box is None


# --------------------------------------------------------------------------
# Random play with invariants


def check_invariants(state: OverrideState, before: dict[Square, list[str]]) -> None:
    obs = [state.observation(s) for s in range(2)]
    board = {(c.row, c.col): list(c.stack) for c in obs[0].board}
    # Stacks only grow: every earlier stack is a prefix of the stack now.
    for sq, stack in before.items():
        assert board[sq][: len(stack)] == stack
    grown = [sq for sq in board if len(board[sq]) != len(before.get(sq, []))]
    assert len(grown) <= 1 and all(len(board[sq]) == len(before.get(sq, [])) + 1 for sq in grown)
    # 52 cards, each in exactly one place: piles, stacks, discards, the drawn card.
    table = card_table()
    places = [table.codes[c] for p in state.piles for c in p]
    places += [c for stack in board.values() for c in stack] + obs[0].discards
    if state.drawn is not None:
        places.append(table.codes[state.drawn])
    assert sorted(places) == sorted(all_codes())
    # Each colour's cards stay with its pile, and every stack obeys the ranks.
    for seat, pile in enumerate(state.piles):
        assert all(colour(table.codes[c]) == seat for c in pile)
    for stack in board.values():
        assert all(ref_beats(b, a) for a, b in pairwise(stack))
    if state.growing and board:
        rows = [r for r, _ in board]
        cols = [c for _, c in board]
        assert max(rows) - min(rows) <= 4 and max(cols) - min(cols) <= 4
    # Nobody owns a line unless the game just ended with that seat's win.
    for seat in range(2):
        assert bool(lines_of(state, seat)) == (state.winner == seat)
    # What each seat sees: only public cards and its own drawn card on its decision.
    public_codes = {c for stack in board.values() for c in stack} | set(obs[0].discards)
    for seat in range(2):
        o = obs[seat]
        assert o.to_act == state.current_player
        assert o.piles == [len(p) for p in state.piles]
        mine = state.current_player == seat
        assert (o.card is not None) == mine
        shown = set(re.findall(r"\b\d{1,2}[SHDC]\b", msgspec.json.encode(o).decode()))
        allowed = public_codes | ({o.card} if o.card else set())
        assert shown <= allowed, f"seat {seat} sees {shown - allowed}"
        for ev in state.events_for(seat):
            if isinstance(ev, Drew):
                assert ev.seat == seat
    if not state.is_terminal:
        assert state.drawn is not None and colour(table.codes[state.drawn]) == state.turn
        legal = squares(state)
        assert legal and legal == reference_targets(state, table.codes[state.drawn])


def play_random(state: OverrideState, rng: random.Random, check: bool = True) -> int:
    turns = 0
    while not state.is_terminal:
        before = {(c.row, c.col): list(c.stack) for c in state.observation(0).board}
        state.apply(rng.choice(state.legal_actions()))
        turns += 1
        assert turns <= 52, "the game did not end within 52 turns"
        if check:
            check_invariants(state, before)
    return turns


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(RULESETS),
    seed=st.integers(0, 2**32 - 1),
    chooser=st.integers(0, 2**32 - 1),
)
def test_random_games_keep_every_invariant(ruleset, seed, chooser):
    state = new_game(ruleset, 2, None, seed)
    assert isinstance(state, OverrideState)
    turns = play_random(state, random.Random(chooser))
    discarded = len(state.observation(0).discards)
    assert turns + discarded <= 52
    out = state.outcome()
    if state.winner is None:
        assert state.piles == [[], []] and state.drawn is None
        assert out.ranks == (1, 1)
        assert isinstance(public(state)[-1], GameDrawn)
    else:
        won = public(state)[-1]
        assert isinstance(won, Won) and won.seat == state.winner
        assert sorted(won.line) in [sorted(ln) for ln in lines_of(state, won.seat)]
        assert out.ranks[state.winner] == 1 and out.ranks[1 - state.winner] == 2


@settings(max_examples=100, deadline=None)
@given(
    ruleset=st.sampled_from(RULESETS),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 40),
    shuffle=st.integers(0, 2**32 - 1),
)
def test_pile_order_never_leaks(ruleset, seed, steps, shuffle):
    state = new_game(ruleset, 2, None, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    seen = [(msgspec.json.encode(state.observation(s)), state.events_for(s)) for s in range(2)]
    legal = state.legal_actions()
    # Reorder what is left of both piles: no seat's view may change.
    mix = random.Random(shuffle)
    for pile in state.piles:
        mix.shuffle(pile)
    assert [(msgspec.json.encode(state.observation(s)), state.events_for(s)) for s in range(2)] == (
        seen
    )
    assert state.legal_actions() == legal


def test_another_opponent_pile_order_leaves_a_seat_s_view_unchanged():
    # Two games from one seed whose black piles differ only below the top card.
    a = new_game("override-classic", 2, None, 11)
    b = new_game("override-classic", 2, None, 11)
    assert isinstance(a, OverrideState) and isinstance(b, OverrideState)
    b.piles[1][:-1] = list(reversed(b.piles[1][:-1]))
    assert a.piles[1] != b.piles[1]
    place(a, 2, 2)
    place(b, 2, 2)
    for seat in range(2):
        assert msgspec.json.encode(a.observation(seat)) == msgspec.json.encode(b.observation(seat))
        assert a.events_for(seat) == b.events_for(seat)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_same_seed_and_actions_replay_exactly(ruleset, seed):
    state = new_game(ruleset, 2, None, seed)
    play_random(state, random.Random(seed + 1), check=False)
    again = new_game(ruleset, 2, None, seed)
    for seat, action in state.history:
        assert again.current_player == seat
        again.apply(msgspec.json.decode(msgspec.json.encode(action), type=Place))
    assert again.is_terminal
    assert again.events_since() == state.events_since()
    assert again.outcome() == state.outcome()
    assert view(again) == view(state)


def test_different_seeds_shuffle_differently():
    firsts = {new_game("override-classic", 2, None, s).observation(0).card for s in range(20)}
    assert len(firsts) > 5


# --------------------------------------------------------------------------
# Registry, options, JSON


@pytest.mark.parametrize("ruleset", RULESETS)
def test_registered_for_exactly_two_players_with_no_options(ruleset):
    rs = get_ruleset(ruleset)
    assert (rs.min_players, rs.max_players) == (2, 2)
    assert rs.title and rs.summary
    for players in (1, 3):
        with pytest.raises(GameConfigError) as info:
            new_game(ruleset, players, None, 0)
        assert f"{ruleset} takes 2 players, not {players}" in str(info.value)
    with pytest.raises(GameConfigError) as info:
        new_game(ruleset, 2, {"size": 6}, 0)
    assert "no option `size`" in str(info.value) and "no options" in str(info.value)
    assert rs.options(None) == rs.options_type()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_actions_round_trip_through_json(ruleset):
    action_type = get_ruleset(ruleset).action_type
    for action in (Place(0, 0), Place(-3, 4)):
        raw = msgspec.json.encode(action)
        assert msgspec.json.decode(raw) == {"type": "place", "row": action.row, "col": action.col}
        assert msgspec.json.decode(raw, type=action_type) == action
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type":"play","row":1,"col":2}', type=action_type)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type":"place","row":"1","col":2}', type=action_type)


def test_events_round_trip_through_json():
    state = new_game("override-original", 2, None, 4)
    play_random(state, random.Random(4), check=False)
    event_type = get_ruleset("override-original").state_type.event_type
    for _, event in state.events_since():
        assert msgspec.json.decode(msgspec.json.encode(event), type=event_type) == event
        assert event.text()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------
# The board picture and the commands


def test_render_draws_owner_rank_and_height():
    board = {(0, 0): ["3S", "7H", "12D"], (4, 4): ["10C"], (2, 1): ["1S"]}
    state = scripted("override-classic", board, "5H")
    picture = state.render()
    assert picture is not None
    lines = picture.splitlines()
    assert lines[0].split() == ["0", "1", "2", "3", "4"]
    assert lines[1].split() == ["0", "R:Q(3)", ".", ".", ".", "."]
    assert lines[3].split() == ["2", ".", "B:A", ".", ".", "."]
    assert lines[5].split() == ["4", ".", ".", ".", ".", "B:10"]
    assert "discarded: none" in lines[-1]


def test_render_of_the_growing_board_shows_its_box():
    state = scripted("override-original", {(-1, 2): ["13H"], (0, 3): ["4C"]}, "5H")
    picture = state.render()
    assert picture is not None
    lines = picture.splitlines()
    assert lines[0].split() == ["2", "3"]
    assert lines[1].split() == ["-1", "R:K", "."]
    assert lines[2].split() == ["0", ".", "B:4"]


def test_progress_lines_add_the_picture_after_a_move_only():
    state = new_game("override-classic", 2, None, 2)
    events = state.events_since()
    assert progress_lines(state, events) == [event_text(e, a) for a, e in events]
    start = state.event_count
    state.apply(Place(0, 0))
    lines = progress_lines(state, state.events_since(start))
    assert lines[0].startswith("seat 0 places") and lines[0].endswith("at (0, 0)")
    picture = state.render()
    assert picture is not None
    assert lines[-len(picture.splitlines()) :] == [f"    {x}" for x in picture.splitlines()]
    odin = new_game("odin", 2, None, 0)
    odin.apply(odin.legal_actions()[0])
    assert odin.render() is None
    assert len(progress_lines(odin, odin.events_since())) == len(odin.events_since())


runner = CliRunner()
RANDOM_PY = str(RANDOM)


def test_demo_prints_the_board_after_each_move():
    result = runner.invoke(app, ["demo", "override-classic", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "places" in result.output and "piles:" in result.output
    assert "rank" in result.output


def test_play_and_replay_show_the_board(tmp_path: Path):
    record = tmp_path / "games.jsonl"
    args = ["play", "override-original", RANDOM_PY, RANDOM_PY, "--seed", "4", "--record"]
    result = runner.invoke(app, [*args, str(record)])
    assert result.exit_code == 0, result.output
    assert "piles:" in result.output
    (rec,) = list(read_records(record))
    assert rec.ruleset == "override-original" and not rec.faults
    result = runner.invoke(app, ["replay", str(record)])
    assert result.exit_code == 0, result.output
    assert "reproduced exactly" in result.output and "piles:" in result.output


def test_protocol_schema_names_the_override_types():
    result = runner.invoke(app, ["protocol", "schema", "--ruleset", "override-classic"])
    assert result.exit_code == 0, result.output
    doc = msgspec.json.decode(result.output)
    assert "OverrideObservation" in doc["$defs"] and "Place" in doc["$defs"]
