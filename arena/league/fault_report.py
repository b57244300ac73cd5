"""Every fault of a set of games, with what an organiser needs to tell a bot's author what broke:
the game, the decision, the reason and the end of what the bot wrote to stderr."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

import msgspec

from arena.referee.faults import FaultKind
from arena.referee.records import GameRecord, GameSummary

STDERR_LINES = 10  # the end of a faulted bot's stderr kept per fault


class FaultEntry(msgspec.Struct, frozen=True):
    """One fault: where it happened and the bot's own last words."""

    game: str  # the record's game id (a tournament's schedule key), or "#N" by position
    bot: str
    seat: int
    kind: FaultKind
    decision: int | None  # None: during the handshake, or found after the bot's last decision
    reason: str
    stderr_tail: list[str]


def fault_entries(
    records: Iterable[GameRecord | GameSummary],
    *,
    bot: str | None = None,
    lines: int = STDERR_LINES,
) -> Iterator[FaultEntry]:
    """The faults of `records` in the order the games finished (of `bot` only, if given),
    each with the last `lines` lines of the faulted bot's stderr in that game. A game
    without faults may come as its summary; one given as its summary has no stderr to show,
    so a reader of a long journal decodes the whole record of the games with faults only."""
    for number, record in enumerate(records, 1):
        for fault in record.faults:
            if bot is not None and fault.bot != bot:
                continue
            stderr = ""
            if isinstance(record, GameRecord) and fault.seat < len(record.stderr):
                stderr = record.stderr[fault.seat]
            tail = stderr.strip().splitlines()[-lines:] if lines > 0 else []
            yield FaultEntry(
                game=record.game or f"#{number}",
                bot=fault.bot,
                seat=fault.seat,
                kind=fault.kind,
                decision=fault.decision,
                reason=fault.reason,
                stderr_tail=tail,
            )


def counts_by_bot(entries: Iterable[FaultEntry]) -> dict[str, Counter[str]]:
    """How many faults of each kind each bot had."""
    out: dict[str, Counter[str]] = {}
    for e in entries:
        out.setdefault(e.bot, Counter())[e.kind] += 1
    return out
