"""A heuristic bot for `override-classic` and `override-original`.

It scores every offered placement by the board it leaves: win now; otherwise keep
the opponent's chance of completing a line with its next card (over the cards it
has left, which the public table and discards reveal) as small as possible; then
prefer the chance to win with its own next card, and lines it owns with cards the
opponent is unlikely to beat over lines the opponent could still take.

It reads only the observation and the actions, so it is deterministic; a decision
takes a few milliseconds.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from protocol.bot import run

SIZE = 5
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
SUITS = ("HD", "SC")  # seat 0 red, seat 1 black
ACE, KING = 1, 13

# Weights, tuned against random play and in self-play.
THREAT = 1000.0  # the opponent's chance to win with its next card
CHANCE = 60.0  # our chance to win with our next card
OPPONENT_LINES = 1.2  # how much the opponent's line potential counts against ours
MINE_BASE, MINE_SAFE = 0.55, 0.45  # a cell we own: more if hard to beat
EMPTY = 0.3  # an empty cell in a line
THEIRS_BASE, THEIRS_TAKE = 0.05, 0.25  # a cell the other side owns: more if we can beat it
SPEND = 0.002  # per rank of the card placed on an empty square: keep high cards for overrides

Square = tuple[int, int]
Top = tuple[int, int]  # (number, owner)


def number(code: str) -> int:
    return int(code[:-1])


def beats(new: int, old: int) -> bool:
    """A < 2 < ... < K, and an A also beats a K (so A and K beat each other); equal never
    beats (docs/rules.md §7.2)."""
    if new == old:
        return False
    if (new, old) == (ACE, KING):
        return True
    return new > old


def unseen(seat: int, obs: dict[str, Any]) -> list[int]:
    """The numbers still in `seat`'s pile: its 26 cards minus every card shown."""
    shown = {c for cell in obs["board"] for c in cell["stack"]} | set(obs["discards"])
    if obs["card"] is not None:
        shown.add(obs["card"])
    return [n for s in SUITS[seat] for n in range(ACE, KING + 1) if f"{n}{s}" not in shown]


def feasible_lines(tops: dict[Square, Top], growing: bool) -> list[list[Square]]:
    """Every line that can still be made: the 12 of the fixed board, or on the growing
    board every five cells in a row that fit in a 5×5 box together with all cards."""
    if not growing:
        lines = [[(r, c) for c in range(SIZE)] for r in range(SIZE)]
        lines += [[(r, c) for r in range(SIZE)] for c in range(SIZE)]
        lines.append([(i, i) for i in range(SIZE)])
        lines.append([(i, SIZE - 1 - i) for i in range(SIZE)])
        return lines
    rows = [r for r, _ in tops]
    cols = [c for _, c in tops]
    return _box_lines(min(rows), max(rows), min(cols), max(cols))


@cache
def _box_lines(r0: int, r1: int, c0: int, c1: int) -> list[list[Square]]:
    """The lines that fit in a 5×5 box together with the box rows r0..r1, cols c0..c1."""
    out = []
    for r in range(r1 - SIZE + 1, r0 + SIZE):
        for c in range(c1 - SIZE + 1, c0 + SIZE):
            for dr, dc in DIRECTIONS:
                cells = [(r + i * dr, c + i * dc) for i in range(SIZE)]
                lr = [x for x, _ in cells]
                lc = [y for _, y in cells]
                if max(r1, *lr) - min(r0, *lr) < SIZE and max(c1, *lc) - min(c0, *lc) < SIZE:
                    out.append(cells)
    return out


def completes(
    lines: list[list[Square]], tops: dict[Square, Top], seat: int, cards: list[int]
) -> float:
    """The chance that a card drawn at random from `cards` completes a line for `seat`."""
    if not cards:
        return 0.0
    holes: set[Square] = set()
    for line in lines:
        missing = [sq for sq in line if tops.get(sq, (0, -1))[1] != seat]
        if len(missing) == 1:
            holes.add(missing[0])
    if not holes:
        return 0.0
    if any(sq not in tops for sq in holes):
        return 1.0
    hits = sum(1 for n in cards if any(beats(n, tops[sq][0]) for sq in holes))
    return hits / len(cards)


def beat_chances(cards: list[int]) -> list[float]:
    """For each number 0..13, the chance that a card drawn from `cards` beats it."""
    if not cards:
        return [0.0] * (KING + 1)
    return [sum(1 for n in cards if beats(n, top)) / len(cards) for top in range(KING + 1)]


def cell_values(
    tops: dict[Square, Top], seat: int, own: list[float], other: list[float]
) -> dict[Square, float]:
    """How well `seat` holds each occupied square: its own, more if the other side is
    unlikely to beat it; the other side's, more if `seat` can beat it (`own` and `other`
    are each side's beat chances)."""
    return {
        sq: MINE_BASE + MINE_SAFE * (1 - other[n])
        if owner == seat
        else THEIRS_BASE + THEIRS_TAKE * own[n]
        for sq, (n, owner) in tops.items()
    }


def potential(lines: list[list[Square]], values: dict[Square, float]) -> float:
    """How close a side is to its lines: per line the product of how well it holds each
    cell (EMPTY for an empty one), summed over the lines."""
    total = 0.0
    for line in lines:
        value = 1.0
        for sq in line:
            value *= values.get(sq, EMPTY)
        total += value
    return total


def has_line(lines: list[list[Square]], tops: dict[Square, Top], seat: int) -> bool:
    return any(all(tops.get(sq, (0, -1))[1] == seat for sq in line) for line in lines)


def decide(request: dict[str, Any]) -> int:
    """The bot: an index into the request's actions."""
    actions = request["actions"]
    if len(actions) == 1:
        return 0
    obs = request["observation"]
    me = obs["seat"]
    them = 1 - me
    card = number(obs["card"])
    growing = obs["ruleset"] == "override-original"
    tops: dict[Square, Top] = {}
    for cell in obs["board"]:
        tops[(cell["row"], cell["col"])] = (number(cell["stack"][-1]), cell["owner"])
    mine, theirs = unseen(me, obs), unseen(them, obs)
    my_odds, their_odds = beat_chances(mine), beat_chances(theirs)
    best, best_score = 0, float("-inf")
    for i, action in enumerate(actions):
        square = (action["row"], action["col"])
        after = dict(tops)
        after[square] = (card, me)
        lines = feasible_lines(after, growing)
        if has_line(lines, after, me):
            return i
        score = -THREAT * completes(lines, after, them, theirs)
        score += CHANCE * completes(lines, after, me, mine)
        score += potential(lines, cell_values(after, me, my_odds, their_odds))
        score -= OPPONENT_LINES * potential(lines, cell_values(after, them, their_odds, my_odds))
        if square not in tops:
            score -= SPEND * card
        if score > best_score:
            best, best_score = i, score
    return best


if __name__ == "__main__":
    run(decide, name="override-heuristic")
