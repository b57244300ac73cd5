"""Plain-text lines for game events and tables, so a person can follow a game move by move
(what `arena play`, `demo` and `replay` print), and counted nouns for every message
(`counted`: "1 card", "2 cards")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from arena.games.base import Audience, GameState, describe


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and `noun`, the noun plural unless the number is 1: "1 card", "0 cards",
    "3 processes" (`plural` for a noun whose plural is not the noun and an s)."""
    if number == 1:
        return f"1 {noun}"
    return f"{number} {plural if plural is not None else noun + 's'}"


def event_text(event: msgspec.Struct, audience: Audience = None) -> str:
    """One line for an event; private events name the seat that alone sees them."""
    text_of = getattr(event, "text", None)
    text = text_of() if callable(text_of) else describe(event)
    if audience is not None:
        seats = ", ".join(map(str, audience))
        prefix = f"seat {seats}" if len(audience) == 1 else f"seats {seats}"
        if not callable(text_of):
            return f"[{prefix}] {text}"
        if text.startswith("seat "):  # a whole sentence, naming the seat it is about
            return text if text.startswith(f"{prefix} ") else f"{prefix} sees: {text}"
        return f"{prefix} {text}"
    return text


def progress_lines(
    state: GameState[Any, Any], events: Iterable[tuple[Audience, msgspec.Struct]]
) -> list[str]:
    """The lines for events just emitted and, once a move has been made, the game's
    picture of the table (if it has one): what `play`, `demo` and `replay` print."""
    lines = [event_text(event, audience) for audience, event in events]
    picture = state.render() if state.history else None
    if picture is not None:
        lines.extend(f"    {line}" for line in picture.splitlines())
    return lines
