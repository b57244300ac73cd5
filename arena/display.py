"""Plain-text lines for game events, so a person can follow a game move by move."""

from __future__ import annotations

import msgspec

from arena.games.base import Audience, describe


def event_text(event: msgspec.Struct, audience: Audience = None) -> str:
    """One line for an event; private events name the seat that alone sees them."""
    text_of = getattr(event, "text", None)
    text = text_of() if callable(text_of) else describe(event)
    if audience is not None:
        seats = ", ".join(map(str, audience))
        prefix = f"seat {seats}" if len(audience) == 1 else f"seats {seats}"
        return f"{prefix} {text}" if callable(text_of) else f"[{prefix}] {text}"
    return text
