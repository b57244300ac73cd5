"""`arena faults`: every fault of a tournament or a records file, for telling authors what broke."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
import typer

from arena.cli.common import command, say
from arena.league.fault_report import STDERR_LINES, counts_by_bot, fault_entries
from arena.league.results import ResultsDir
from arena.referee.records import GameRecord, RecordError, read_records


def _records(source: Path) -> list[GameRecord]:
    """The games of a results folder (results/<name>) or of a JSON-lines records file."""
    if source.is_dir():
        return ResultsDir.existing(source).records()
    if not source.is_file():
        raise RecordError(f"{source} is neither a results folder nor a file of game records")
    return list(read_records(source))


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
    records = _records(source)
    names = {s.bot for r in records for s in r.seats}
    if bot is not None and bot not in names:
        known = ", ".join(sorted(names)) or "none"
        raise RecordError(f"no bot named {bot!r} played in {source}; bots: {known}")
    entries = list(fault_entries(records, bot=bot, lines=lines))
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
        f"{len(entries)} faults{who} in {len(faulted)} of {len(records)} games"
        + (f" ({summary})" if summary else "")
    )
