"""Text from bots made safe to show: never a terminal control sequence (names, fault reasons,
stderr). The CLI adds: never Rich markup (`arena.cli.views.shown`)."""

from __future__ import annotations

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
