"""`arena tournament` and `arena leaderboard`: run or resume a tournament, show standings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.live import Live

from arena.cli.common import (
    command,
    console,
    note,
    run_trio,
    say,
)
from arena.cli.inputs import AllowMixed, build, sandbox_summary, sandboxed
from arena.cli.views import (
    LiveTournament,
    leaderboard_csv,
    leaderboard_json,
    leaderboard_table,
    pairs_table,
)
from arena.league.config import ConfigError, load_tournament
from arena.league.leaderboard import leaderboard
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament, schedule_of
from arena.referee.sandbox import (
    Mode,
)


@command()
def tournament(
    file: Annotated[Path, typer.Argument(help="the tournament file (TOML)")],
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="games at once (default: the file's, else the number of cores)"
        ),
    ] = None,
    results: Annotated[
        Path, typer.Option(help="the results root; the tournament's folder is RESULTS/<name>")
    ] = Path("results"),
    fresh: Annotated[
        bool,
        typer.Option("--fresh", help="discard earlier results of this tournament and start over"),
    ] = False,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="continue an interrupted run (also what happens without it)"),
    ] = False,
    sandbox: Annotated[
        Mode | None,
        typer.Option(
            "--sandbox",
            help="auto, on or off for every bot, over the file's sandbox settings "
            "(default: the file's, else auto: on where bubblewrap works)",
        ),
    ] = None,
    allow_mixed_sandbox: AllowMixed = False,
) -> None:
    """Run a tournament; running it again resumes where it stopped."""
    t = load_tournament(file)
    t = msgspec.structs.replace(t, bots=build(t.bots))
    mixed = allow_mixed_sandbox or t.config.allow_mixed_sandbox
    t = msgspec.structs.replace(t, bots=sandboxed(t.bots, sandbox, allow_mixed=mixed))
    if jobs is not None:
        if jobs < 1:
            raise ConfigError("--jobs takes a number of games >= 1")
        t = msgspec.structs.replace(t, config=msgspec.structs.replace(t.config, jobs=jobs))
    folder = ResultsDir.open(results, t, fresh=fresh)
    before = folder.records()
    total = schedule_of(t).total()
    names = [b.name for b in t.bots]
    c = t.config
    say(
        (c.name, "bold"),
        f": {c.format} of {len(names)} bots on {c.ruleset}, "
        f"{c.seats} seats, {total} games, {t.jobs} at once; results in {folder.path}",
    )
    say(sandbox_summary(t.bots))
    if before:
        console.print(f"resuming: {len(before)} games already played", highlight=False)
    live_view = LiveTournament(c.name, names, before, total)
    try:
        with Live(live_view, console=console, refresh_per_second=4, transient=True):
            records = run_trio(
                run_tournament,
                t,
                folder,
                live_view.add,
                note,
                saved=lambda: (
                    f"{len(folder.records())} finished games are saved; "
                    f"resume with: arena tournament {file}"
                ),
            )
    except KeyboardInterrupt:
        done = len(folder.records())
        console.print()
        say(
            ("interrupted", "yellow"),
            f": {done} finished games are saved in {folder.path}. "
            f"Resume with: arena tournament {file}"
            + (f" --results {results}" if results != Path("results") else ""),
        )
        raise typer.Exit(130) from None
    board = leaderboard(records, names)
    console.print(leaderboard_table(board, title=f"{c.name}: {board.games} games"))
    say(f"results: {folder.path}  (arena leaderboard {folder.path})")


@command("leaderboard")
def leaderboard_cmd(
    folder: Annotated[Path, typer.Argument(help="a tournament's results folder (results/<name>)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    pairs: Annotated[bool, typer.Option("--pairs", help="also the head-to-head table")] = False,
) -> None:
    """Show the standings of a results folder: Elo ± error, score, places, faults."""
    rd = ResultsDir.existing(folder)
    records = rd.records()
    stored = rd.stored()
    board = leaderboard(records, stored.bots if stored else None)
    if as_json:
        typer.echo(leaderboard_json(board))
    elif as_csv:
        typer.echo(leaderboard_csv(board), nl=False)
    else:
        name = stored.config.name if stored else folder.name
        console.print(leaderboard_table(board, title=f"{name}: {board.games} games"))
        if pairs:
            console.print(pairs_table(board))
