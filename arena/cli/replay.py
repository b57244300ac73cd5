"""`arena replay`: recorded games re-played through the rules, verified, shown."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    command,
    console,
    fail,
    say,
    show_record,
)
from arena.cli.inputs import print_line
from arena.cli.views import (
    shown,
)
from arena.games import GameConfigError
from arena.referee.records import read_records
from arena.referee.replay import ReplayError, replay


@command("replay")
def replay_cmd(
    file: Annotated[Path, typer.Argument(help="a JSON-lines file of game records")],
    game: Annotated[int | None, typer.Option("--game", help="only this game (1 = first)")] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="only verify, do not show moves")
    ] = False,
) -> None:
    """Re-play recorded games through the rules engine, verify them, show them step by step."""
    if not file.is_file():
        raise fail(f"no such file: {file}")
    records = list(read_records(file))
    if game is not None and not 1 <= game <= len(records):
        raise fail(f"{file} holds {len(records)} games; --game takes 1..{len(records)}")
    chosen = [(game, records[game - 1])] if game is not None else list(enumerate(records, 1))
    bad = 0
    for number, rec in chosen:
        console.rule(shown(f"game {number}: {rec.ruleset}, seed {rec.seed}"))
        try:
            replay(rec, None if quiet else print_line)
        except (ReplayError, GameConfigError) as exc:
            bad += 1
            say(("does not reproduce:", "red"), f" {exc}")
            continue
        show_record(rec)
        console.print("[green]reproduced exactly[/green]")
    if bad:
        raise typer.Exit(1)
