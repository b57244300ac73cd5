"""The Override board games: `override-classic` and `override-original` (docs/rules.md §7-8).

Red (seat 0, ♥ ♦) and black (seat 1, ♠ ♣) each draw from their own shuffled pile
and place the card on an empty square or over a top card it beats; a whole line
of one colour wins. Classic has a fixed 5×5 board; Original grows its board from
(0, 0), always inside a 5×5 box.
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from msgspec import Struct

from arena.games.base import GameState, IllegalAction, Outcome
from arena.games.cards import CardTable
from arena.games.registry import Ruleset
from arena.games.text import counted

SUITS = "SHDC"
COLOUR_SUITS = ("HD", "SC")  # seat 0 is red, seat 1 is black (docs/rules.md §7.1)
COLOUR_NAMES = ("red", "black")
COLOUR_LETTERS = "RB"
SIZE = 5  # the board, or the box the growing board must fit in
ACE, KING = 1, 13
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal
NEIGHBOURS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)

Square = tuple[int, int]

# --------------------------------------------------------------------------
# Actions, events and the observation: the JSON a bot reads and writes.


class Place(Struct, tag="place", frozen=True):
    """Put the drawn card on this square: an empty one, or one whose top card it beats."""

    row: int
    col: int


OverrideAction = Place


class Started(Struct, tag="started", frozen=True):
    """Each seat's cards are shuffled into its own face-down pile; `first` moves first."""

    piles: list[int]
    first: int

    def text(self) -> str:
        return (
            f"red (seat 0) and black (seat 1) each shuffle {counted(self.piles[0], 'card')} "
            "into a pile; "
            f"seat {self.first} moves first"
        )


class Drew(Struct, tag="drew", frozen=True):
    """Private: the card this seat just drew and must now place."""

    seat: int
    card: str

    def text(self) -> str:
        return f"draws {self.card}"


class Placed(Struct, tag="placed", frozen=True):
    """A card placed on a square; `covered` is the top card it overrode, if any."""

    seat: int
    card: str
    row: int
    col: int
    covered: str | None
    height: int

    def text(self) -> str:
        where = f"({self.row}, {self.col})"
        if self.covered is None:
            return f"seat {self.seat} places {self.card} at {where}"
        return (
            f"seat {self.seat} overrides {self.covered} with {self.card} at {where} "
            f"(a stack of {self.height})"
        )


class Discarded(Struct, tag="discarded", frozen=True):
    """The drawn card had no legal square: it is discarded face up and the turn passes."""

    seat: int
    card: str

    def text(self) -> str:
        return f"seat {self.seat} discards {self.card}: it fits no square"


class Won(Struct, tag="won", frozen=True):
    """This seat's colour owns a whole line: it wins at once."""

    seat: int
    line: list[tuple[int, int]]

    def text(self) -> str:
        cells = " ".join(f"({r}, {c})" for r, c in self.line)
        return f"seat {self.seat} ({COLOUR_NAMES[self.seat]}) owns the line {cells} and wins"


class GameDrawn(Struct, tag="game_drawn", frozen=True):
    """Both piles are empty and nobody owns a line: the game is a draw."""

    def text(self) -> str:
        return "both piles are empty and no line was made: the game is a draw"


OverrideEvent = Started | Drew | Placed | Discarded | Won | GameDrawn


class Cell(Struct, frozen=True):
    """One occupied square: its stack bottom to top, and the seat whose colour is on top."""

    row: int
    col: int
    stack: tuple[str, ...]
    owner: int


class Box(Struct, frozen=True):
    """The smallest rectangle holding every card (override-original): rows and columns."""

    top: int
    left: int
    bottom: int
    right: int


class OverrideObservation(Struct, tag="override", frozen=True):
    """What one seat sees: the whole public table and, on its own decision, its drawn card."""

    ruleset: str
    seat: int
    players: int
    to_act: int | None
    card: str | None
    board: list[Cell]
    piles: list[int]
    discards: list[str]
    box: Box | None


# --------------------------------------------------------------------------
# Options


class OverrideClassicOptions(Struct, frozen=True, forbid_unknown_fields=True):
    pass


class OverrideOriginalOptions(Struct, frozen=True, forbid_unknown_fields=True):
    pass


# --------------------------------------------------------------------------
# Cards


@cache
def card_table() -> CardTable:
    """The 52 cards: A=1 .. K=13 in ♠ ♥ ♦ ♣ ("1H" .. "13H")."""
    return CardTable.build(((n, s) for n in range(ACE, KING + 1) for s in SUITS), SUITS)


def beats(new: int, old: int) -> bool:
    """Whether a card of number `new` may override one of number `old` (docs/rules.md
    §7.2): higher beats lower, and an A also beats a K, so A and K beat each other."""
    if new == old:
        return False  # equal ranks never beat
    if new == ACE and old == KING:
        return True  # the one exception: A can override K (K still overrides A)
    return new > old


#: BEATS[new][old] = beats(new, old), looked up on every legal-action list
BEATS = tuple(tuple(beats(n, o) for o in range(KING + 1)) for n in range(KING + 1))


def rank_name(number: int) -> str:
    return RANK_NAMES.get(number, str(number))


CLASSIC_SQUARES = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
_PLACES: dict[Square, Place] = {}


def _place(square: Square) -> Place:
    """The one Place action for `square` (actions are immutable, so they are shared)."""
    action = _PLACES.get(square)
    if action is None:
        action = _PLACES[square] = Place(*square)
    return action


# --------------------------------------------------------------------------
# The state


class OverrideState(GameState[Place, OverrideObservation]):
    """A game of Override in progress, on the fixed board or the growing one."""

    action_type: ClassVar[object] = OverrideAction
    event_type: ClassVar[object] = OverrideEvent
    observation_type: ClassVar[object] = OverrideObservation

    def __init__(self, ruleset: str, growing: bool, seed: int) -> None:
        super().__init__(ruleset, 2, seed)
        self.growing = growing
        table = card_table()
        self._table = table
        self._numbers = table.numbers
        self._colours = tuple(0 if s in COLOUR_SUITS[0] else 1 for s in table.suits)
        # docs/rules.md §7.1: each colour's 26 cards shuffled into its seat's pile (top = last).
        self.piles: list[list[int]] = []
        for suits in COLOUR_SUITS:
            pile = [i for i, s in enumerate(table.suits) if s in suits]
            self.rng.shuffle(pile)
            self.piles.append(pile)
        #: every occupied square's stack, bottom to top
        self.board: dict[Square, list[int]] = {}
        self.discards: list[int] = []
        self.turn = 0
        self.drawn: int | None = None
        self.over = False
        self.winner: int | None = None
        self.rebuild()
        self._emit(Started([len(p) for p in self.piles], 0))
        self._start_turn(0)  # docs/rules.md §7.1: seat 0 (red) moves first

    def rebuild(self) -> None:
        """Recompute what is derived from the board and the drawn card: the box, the empty
        squares a card may go on, the observed cells, the legal squares. (Only needed
        after setting the board by hand, as tests do to script a position.)"""
        self._frontier: set[Square] = set()
        #: each occupied square's top card number, and the squares each seat owns
        self._tops = {sq: self._numbers[stack[-1]] for sq, stack in self.board.items()}
        self._owned: tuple[set[Square], set[Square]] = (set(), set())
        for sq, stack in self.board.items():
            self._owned[self._colours[stack[-1]]].add(sq)
        self._box: tuple[int, int, int, int] | None = None  # top, left, bottom, right
        self._window = (0, 0, 0, 0)  # where the next card may go: top, left, bottom, right
        self._cells: dict[Square, Cell] = {}
        if self.growing:
            for square in self.board:
                self._occupy(square)
        else:
            every = {(r, c) for r in range(SIZE) for c in range(SIZE)}
            self._frontier = every - set(self.board)
        for square in self.board:
            self._cells[square] = self._cell(square)
        self._set_legal()

    def _occupy(self, square: Square) -> None:
        """A card lands on the empty `square`: update the box and the empty squares a
        card may go on (on the growing board: next to a card, inside the 5×5 window)."""
        frontier = self._frontier
        frontier.discard(square)
        if not self.growing:
            return
        row, col = square
        box = self._box
        if box is None:
            box = (row, col, row, col)
        else:
            top, left, bottom, right = box
            box = (min(top, row), min(left, col), max(bottom, row), max(right, col))
        if box != self._box:
            # The box only grows, so a square outside the window never comes back.
            self._box = box
            top, left, bottom, right = box
            self._window = (bottom - SIZE + 1, right - SIZE + 1, top + SIZE - 1, left + SIZE - 1)
            self._frontier = frontier = {sq for sq in frontier if self._in_window(sq)}
        board = self.board
        for dr, dc in NEIGHBOURS:
            near = (row + dr, col + dc)
            if near not in board and self._in_window(near):
                frontier.add(near)

    def _in_window(self, square: Square) -> bool:
        """Whether a card on `square` keeps every card inside a 5×5 box (docs/rules.md §8.1)."""
        top, left, bottom, right = self._window
        return top <= square[0] <= bottom and left <= square[1] <= right

    def _cell(self, square: Square) -> Cell:
        stack = self.board[square]
        codes = self._table.codes
        return Cell(square[0], square[1], tuple(codes[c] for c in stack), self.colour(stack[-1]))

    # -- turn flow --------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        """Draw for `seat`; discard cards that fit nowhere, passing the turn, until a
        card fits or both piles are empty."""
        while True:
            pile = self.piles[seat]
            if not pile:
                # The seats alternate with equal piles, so the player to move runs out
                # only once both piles are empty: a draw (docs/rules.md §7.4).
                assert not any(self.piles), "one pile ran out before the other"
                self.over = True
                self.drawn = None
                self._set_legal()
                self._emit(GameDrawn())
                return
            card = pile.pop()
            self.turn, self.drawn = seat, card
            self._emit(Drew(seat, self._table.codes[card]), (seat,))
            self._set_legal()
            if self._legal:
                return
            # docs/rules.md §7.3: a card with no legal square is discarded; the turn passes.
            self.drawn = None
            self.discards.append(card)
            self._emit(Discarded(seat, self._table.codes[card]))
            seat = 1 - seat

    @property
    def current_player(self) -> int | None:
        return None if self.over else self.turn

    def colour(self, card: int) -> int:
        """The seat whose colour `card` is: 0 red, 1 black."""
        return self._colours[card]

    def owner(self, square: Square) -> int | None:
        """The seat whose colour is on top of `square`, or None when it is empty."""
        stack = self.board.get(square)
        return self._colours[stack[-1]] if stack else None

    # -- where a card may go ------------------------------------------------------
    def box(self) -> Box | None:
        """The bounding box of the cards on the growing board (None when empty or classic)."""
        return None if self._box is None else Box(*self._box)

    def _targets(self, card: int) -> list[Square]:
        """Every legal square for `card`, by row then column (docs/rules.md §7.2, §8.1): a
        square whose top card it beats, or an empty one where a card may go."""
        beaten = BEATS[self._numbers[card]]
        tops = self._tops
        if not self.growing:
            # docs/rules.md §7.2: any empty square of the board.
            out = []
            for sq in CLASSIC_SQUARES:
                top = tops.get(sq)
                if top is None or beaten[top]:
                    out.append(sq)
            return out
        if not tops:
            return [(0, 0)]  # docs/rules.md §8.1: the first card goes at (0, 0)
        # docs/rules.md §8.1: an empty square next to a card, keeping a 5×5 box.
        out = [sq for sq, top in tops.items() if beaten[top]]
        out.extend(self._frontier)
        out.sort()
        return out

    def _set_legal(self) -> None:
        squares = [] if self.drawn is None or self.over else self._targets(self.drawn)
        places = _PLACES
        self._legal = {sq: places.get(sq) or _place(sq) for sq in squares}

    def _why_not(self, card: int, square: Square) -> str:
        """Why `card` may not go on `square`, in words."""
        row, col = square
        stack = self.board.get(square)
        if stack:
            mine, top = self._numbers[card], self._numbers[stack[-1]]
            codes = self._table.codes
            what = f"{codes[card]} does not override the {codes[stack[-1]]} on ({row}, {col})"
            if mine == top:
                return f"{what}: equal ranks never beat"
            if mine == ACE and top != KING:
                return f"{what}: an A overrides only a K"
            return f"{what}: {rank_name(mine)} is lower than {rank_name(top)}"
        if not self.growing:
            return f"({row}, {col}) is off the board: rows and columns are 0-{SIZE - 1}"
        if not self.board:
            return "the first card goes at (0, 0)"
        if not any((row + dr, col + dc) in self.board for dr, dc in NEIGHBOURS):
            return f"({row}, {col}) is not next to a card on the table (8 directions)"
        rows = [r for r, _ in self.board] + [row]
        cols = [c for _, c in self.board] + [col]
        return (
            f"the cards would no longer fit in a {SIZE}×{SIZE} box: rows "
            f"{min(rows)}..{max(rows)}, columns {min(cols)}..{max(cols)}"
        )

    def legal_actions(self) -> list[Place]:
        return list(self._legal.values())

    # -- applying ------------------------------------------------------------------
    def _apply(self, seat: int, action: Place) -> Place:
        if not isinstance(action, Place):
            raise IllegalAction(action, "not an action of this game (place)")
        card = self.drawn
        assert card is not None
        square = (action.row, action.col)
        canonical = self._legal.get(square)
        if canonical is None:
            raise IllegalAction(action, self._why_not(card, square))
        stack = self.board.get(square)
        covered = None
        if stack is None:
            stack = self.board[square] = [card]
            self._occupy(square)
        else:
            covered = self._table.codes[stack[-1]]
            self._owned[self._colours[stack[-1]]].discard(square)
            stack.append(card)  # docs/rules.md §7.2: covered cards stay in the stack
        self._tops[square] = self._numbers[card]
        self._owned[seat].add(square)
        self._cells[square] = self._cell(square)
        self.drawn = None
        self._emit(Placed(seat, self._table.codes[card], *square, covered, len(stack)))
        line = self._line_through(square, seat)
        if line is not None:
            # docs/rules.md §7.4: a whole line of your colour wins at once.
            self.over = True
            self.winner = seat
            self._set_legal()
            self._emit(Won(seat, line))
        else:
            self._start_turn(1 - seat)
        return canonical

    def _line_through(self, square: Square, seat: int) -> list[tuple[int, int]] | None:
        """Five cells of `seat`'s colour in a row through `square`, if any. Only the
        square just played changed owner, so any new line passes through it. On the
        fixed board this finds exactly its 12 lines (docs/rules.md §7.4); on the growing one
        any row, column or diagonal (§8.2; the 5×5 box allows no more than five)."""
        owned = self._owned[seat]
        for dr, dc in DIRECTIONS:
            cells = [square]
            for sign in (1, -1):
                r, c = square[0] + sign * dr, square[1] + sign * dc
                while (r, c) in owned:
                    cells.append((r, c))
                    r, c = r + sign * dr, c + sign * dc
            if len(cells) >= SIZE:
                return sorted(cells)
        return None

    # -- views and result -------------------------------------------------------------
    def observation(self, seat: int) -> OverrideObservation:
        cells = self._cells
        # Only the seat to move sees its drawn card, and only while it decides.
        card = None
        if self.drawn is not None and seat == self.turn and not self.over:
            card = self._table.codes[self.drawn]
        return OverrideObservation(
            ruleset=self.ruleset,
            seat=seat,
            players=self.players,
            to_act=self.current_player,
            card=card,
            board=[cells[sq] for sq in sorted(cells)],
            piles=[len(p) for p in self.piles],
            discards=self._table.encode(self.discards),
            box=self.box(),
        )

    def outcome(self) -> Outcome:
        self._require_terminal()
        # arena's ruling (docs/rules.md §7.5): a win scores 1, a loss 0, a draw 0.5 each.
        if self.winner is None:
            return Outcome((0.5, 0.5), (1, 1))
        scores = tuple(1 if s == self.winner else 0 for s in range(2))
        return Outcome(scores, tuple(1 if s == self.winner else 2 for s in range(2)))

    def render(self) -> str | None:
        """The table as a grid: owner R/B, top card's rank, stack height when over 1."""
        if self.growing:
            box = self.box()
            if box is None:
                return "(no card on the table yet)"
            rows = range(box.top, box.bottom + 1)
            cols = range(box.left, box.right + 1)
        else:
            rows = cols = range(SIZE)
        texts: dict[Square, str] = {}
        for square, stack in self.board.items():
            top = stack[-1]
            height = f"({len(stack)})" if len(stack) > 1 else ""
            texts[square] = (
                f"{COLOUR_LETTERS[self.colour(top)]}:{rank_name(self._numbers[top])}{height}"
            )
        width = max([len(t) for t in texts.values()] + [len(str(c)) for c in cols] + [1])
        label = max(len(str(r)) for r in rows)
        lines = [" " * label + "  " + " ".join(f"{c:>{width}}" for c in cols)]
        for r in rows:
            cells = " ".join(f"{texts.get((r, c), '.'):>{width}}" for c in cols)
            lines.append(f"{r:>{label}}  {cells}")
        piles = ", ".join(
            f"{n} {len(p)} left" for n, p in zip(COLOUR_NAMES, self.piles, strict=True)
        )
        discards = " ".join(self._table.encode(self.discards)) or "none"
        lines.append(f"piles: {piles}; discarded: {discards}")
        return "\n".join(lines)


def new_override_classic(players: int, options: OverrideClassicOptions, seed: int) -> OverrideState:
    return OverrideState("override-classic", False, seed)


def new_override_original(
    players: int, options: OverrideOriginalOptions, seed: int
) -> OverrideState:
    return OverrideState("override-original", True, seed)


def max_decisions(players: int, options: OverrideClassicOptions | OverrideOriginalOptions) -> int:
    """The most decisions a game can take (docs/rules.md §9.3): each places a drawn card,
    and each of the 52 cards is drawn at most once."""
    return len(card_table())


#: the rulesets this module plays (collected by `arena.games`)
RULESETS = (
    Ruleset(
        id="override-classic",
        title="Override Classic",
        summary="Draw and place cards on a 5×5 board, overriding weaker ones; own a line to win.",
        min_players=2,
        max_players=2,
        options_type=OverrideClassicOptions,
        state_type=OverrideState,
        factory=new_override_classic,
        max_decisions=max_decisions,
    ),
    Ruleset(
        id="override-original",
        title="Override Original",
        summary="Override on a board that grows from one card and must fit in a 5×5 box.",
        min_players=2,
        max_players=2,
        options_type=OverrideOriginalOptions,
        state_type=OverrideState,
        factory=new_override_original,
        max_decisions=max_decisions,
    ),
)
