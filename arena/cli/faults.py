"""`arena faults`: every fault of a tournament or a records file, for telling authors what broke."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from arena.cli.common import command, say
from arena.games.text import counted as counted_noun  # (`counted` below counts games)
from arena.league.fault_report import STDERR_LINES, counts_by_bot, fault_entries
from arena.league.results import ResultsDir
from arena.referee.records import (
    GameRecord,
    GameSummary,
    RecordError,
    decode_record,
    read_summaries,
)


def _games(source: Path) -> Iterator[GameRecord | GameSummary]:
    """The games of a results folder (results/<name>) or of a JSON-lines records file, read
    as a stream of summaries; the whole record (its stderr) only of a game with faults."""
    if source.is_dir():
        lines = ResultsDir.existing(source).games()
    elif source.is_file():
        lines = read_summaries(source)
    else:
        raise RecordError(f"{source} is neither a results folder nor a file of game records")
    for line in lines:
        if not line.value.faults:
            yield line.value
            continue
        try:
            yield decode_record(line.data)
        except msgspec.DecodeError as exc:  # its moves are no moves
            raise RecordError(f"{source}:{line.number}: not a game record: {exc}") from None


@command()
def faults(
    source: Annotated[
        Path, typer.Argument(help="a results folder (results/<name>) or a records file")
    ],
    bot: Annotated[str | None, typer.Option("--bot", help="only this bot's faults")] = None,
    lines: Annotated[
        int, typer.Option("--lines", "-n", min=0, help="lines of the bot's stderr to show")
    ] = STDERR_LINES,
    as_json: Annotated[
        bool, typer.Option("--json", help="print JSON lines, one per fault")
    ] = False,
) -> None:
    """List every fault: game, bot, decision, reason and the end of the bot's stderr."""
    names: set[str] = set()
    games = 0

    def counted(source: Path) -> Iterator[GameRecord | GameSummary]:
        nonlocal games
        for game in _games(source):
            games += 1
            names.update(s.bot for s in game.seats)
            yield game

    entries = list(fault_entries(counted(source), bot=bot, lines=lines))
    if bot is not None and bot not in names:
        known = ", ".join(sorted(names)) or "none"
        raise RecordError(f"no bot named {bot!r} played in {source}; bots: {known}")
    if as_json:
        for entry in entries:
            typer.echo(msgspec.json.encode(entry).decode())
        return
    for e in entries:
        place = "during the handshake" if e.decision is None else f"at decision {e.decision}"
        say(
            (e.game, "bold"), f"  seat {e.seat}  ", (e.kind, "red"), f" {place}: {e.bot} {e.reason}"
        )
        if e.stderr_tail:
            say("    stderr: " + "\n            ".join(e.stderr_tail), lines=True)
    faulted = {e.game for e in entries}
    summary = "; ".join(
        f"{name}: " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        for name, kinds in sorted(counts_by_bot(entries).items())
    )
    who = f" of {bot}" if bot is not None else ""
    say(
        f"{counted_noun(len(entries), 'fault')}{who} in {len(faulted)} of "
        f"{counted_noun(games, 'game')}" + (f" ({summary})" if summary else "")
    )
