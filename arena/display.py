"""Plain-text lines for game events, so a person can follow a game move by move; and text
from bots made safe to show: never Rich markup, never a terminal control sequence."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from rich.text import Text

from arena.games.base import Audience, GameState, describe

_KEPT_IN_LINES = "\n\t"  # what multi-line text (a bot's stderr) keeps as it is


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def plain(text: str, *, lines: bool = False) -> str:
    """`text` with every unprintable character (ESC and the other C0/C1 controls, DEL,
    bidi and other format characters, a lone surrogate) shown escaped, as `\\x1b`; with
    `lines`, newlines and tabs are kept. For text a bot controls: names, reasons, stderr."""
    if text.isprintable():
        return text
    keep = _KEPT_IN_LINES if lines else ""
    return "".join(c if c.isprintable() or c in keep else _escape(c) for c in text)


def shown(text: str, style: str = "", *, lines: bool = False) -> Text:
    """`text` as Rich shows it literally (markup such as `[/]` is not parsed), made `plain`."""
    return Text(plain(text, lines=lines), style=style)


def event_text(event: msgspec.Struct, audience: Audience = None) -> str:
    """One line for an event; private events name the seat that alone sees them."""
    text_of = getattr(event, "text", None)
    text = text_of() if callable(text_of) else describe(event)
    if audience is not None:
        seats = ", ".join(map(str, audience))
        prefix = f"seat {seats}" if len(audience) == 1 else f"seats {seats}"
        return f"{prefix} {text}" if callable(text_of) else f"[{prefix}] {text}"
    return text


def progress_lines(
    state: GameState, events: Iterable[tuple[Audience, msgspec.Struct]]
) -> list[str]:
    """The lines for events just emitted and, once a move has been made, the game's
    picture of the table (if it has one): what `play`, `demo` and `replay` print."""
    lines = [event_text(event, audience) for audience, event in events]
    picture = state.render() if state.history else None
    if picture is not None:
        lines.extend(f"    {line}" for line in picture.splitlines())
    return lines
