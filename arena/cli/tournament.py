"""`arena tournament` and `arena leaderboard`: run or resume a tournament, show standings."""

from __future__ import annotations

import contextlib
from functools import partial
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
    warn_damage,
)
from arena.cli.inputs import AllowMixed, Cluster, Workers, build, sandbox_summary, sandboxed
from arena.cli.views import (
    LiveTournament,
    game_line,
    leaderboard_csv,
    leaderboard_json,
    print_views,
    standings_views,
)
from arena.games.errors import ArenaError
from arena.league.config import ConfigError, Tournament, load_tournament
from arena.league.executors import Executor, executor_for
from arena.league.leaderboard import Standings, results_leaderboard
from arena.league.results import ResultsDir
from arena.league.tournament import Progress, run_tournament, schedule_of
from arena.referee.records import GameRecord
from arena.referee.sandbox import (
    Mode,
)


class OptionsError(ArenaError):
    """Options of a command that cannot work together (refused rather than one ignored)."""


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
    workers: Workers = None,
    cluster: Cluster = None,
) -> None:
    """Run a tournament; running it again resumes where it stopped."""
    t = load_tournament(file)
    workers = t.config.workers if workers is None and cluster is None else workers
    cluster = t.config.cluster if cluster is None and workers is None else cluster
    mixed = allow_mixed_sandbox or t.config.allow_mixed_sandbox
    t = msgspec.structs.replace(t, bots=sandboxed(t.bots, sandbox, allow_mixed=mixed))
    if cluster is None:  # built in its sandbox; on a cluster, each worker builds what it is sent
        t = msgspec.structs.replace(t, bots=build(t.bots))
    if jobs is not None:
        if jobs < 1:
            raise ConfigError("--jobs takes a number of games >= 1")
        t = msgspec.structs.replace(t, config=msgspec.structs.replace(t.config, jobs=jobs))
    folder = ResultsDir.open(results, t, fresh=fresh, on_damage=warn_damage)
    with executor_for(
        t.jobs,
        t.config.seats,
        workers=workers,
        cluster=cluster,
        on_note=note,
        cluster_jobs=t.config.jobs,  # asked in the file or with --jobs; else the cluster's threads
    ) as executor:
        _run(t, folder, file, results, executor)


def _run(t: Tournament, folder: ResultsDir, file: Path, results: Path, executor: Executor) -> None:
    """Run or resume the tournament on `executor`, live, then show its standings."""
    schedule = schedule_of(t)
    total = schedule.total()
    names = [b.name for b in t.bots]
    c = t.config
    say(
        (c.name, "bold"),
        f": {c.format} of {len(names)} bots on {c.ruleset}, "
        f"{c.seats} seats, {total} games, {executor.describe()}; results in {folder.path}",
    )
    say(sandbox_summary(t.bots))
    # One read of the journal, as summaries: which games are done, and the standings so far
    # (after the heading: damaged lines set aside are warned of here).
    standings = Standings(names)
    finished = folder.finished(standings.add)
    if finished:
        console.print(f"resuming: {len(finished)} games already played", highlight=False)
    # In a terminal: a live progress bar and the top of the table. Elsewhere (CI logs, a
    # pipe), where a live view shows nothing: a line per finished game, as it finishes.
    if console.is_terminal:
        live_view = LiveTournament(c.name, standings, total)
        shown_live: contextlib.AbstractContextManager[object] = Live(
            live_view, console=console, refresh_per_second=4, transient=True
        )
        on_game = live_view.add
    else:
        shown_live = contextlib.nullcontext()

        def on_game(record: GameRecord, progress: Progress) -> None:
            standings.add(record)
            say(game_line(record, progress))

    again = f"arena tournament {file}" + (
        f" --results {results}" if results != Path("results") else ""
    )
    try:
        with shown_live:
            run_trio(
                partial(
                    run_tournament,
                    t,
                    folder,
                    on_game,
                    note,
                    finished=finished,
                    schedule=schedule,
                    executor=executor,
                ),
                saved=lambda: (
                    f"{len(finished)} finished games are saved; once it can run, "
                    f"resume with: {again}"
                ),
            )
    except KeyboardInterrupt:
        console.print()
        say(
            ("interrupted", "yellow"),
            f": {len(finished)} finished games are saved in {folder.path}. Resume with: {again}",
        )
        raise typer.Exit(130) from None
    del schedule  # every game is played: let its games go before the standings are fitted
    board = results_leaderboard(folder, standings, finished)
    width = console.width if console.is_terminal else None
    print_views(console, standings_views(board, f"{c.name}: {board.games} games", width=width))
    say(f"results: {folder.path}  (arena leaderboard {folder.path})")


@command("leaderboard")
def leaderboard_cmd(
    folder: Annotated[Path, typer.Argument(help="a tournament's results folder (results/<name>)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    pairs: Annotated[bool, typer.Option("--pairs", help="also the head-to-head list")] = False,
    crosstable: Annotated[
        bool | None,
        typer.Option(
            "--crosstable/--no-crosstable",
            help="show or hide the bot-by-bot table of scores (default: shown up to 10 bots)",
        ),
    ] = None,
) -> None:
    """Show the standings of a results folder: Elo ± error, score, places, faults; beside
    them the Swiss standings, the deal pairs and the crosstable."""
    _refuse_mixed_outputs(as_json, as_csv, pairs, crosstable)
    rd = ResultsDir.existing(folder, on_damage=lambda d: warn_damage(d, err=as_json or as_csv))
    board = results_leaderboard(rd)
    if as_json:
        typer.echo(leaderboard_json(board))
    elif as_csv:
        typer.echo(leaderboard_csv(board), nl=False)
    else:
        stored = rd.stored()
        name = stored.config.name if stored else folder.name
        width = console.width if console.is_terminal else None
        views = standings_views(
            board,
            f"{name}: {board.games} games",
            crosstable_shown=crosstable,
            pairs=pairs,
            width=width,
        )
        print_views(console, views)


def _refuse_mixed_outputs(
    as_json: bool, as_csv: bool, pairs: bool, crosstable: bool | None
) -> None:
    """Refuse, in words, options that cannot work together: two formats at once, or a table
    of the text view asked of a machine format (rather than silently leaving it out)."""
    if as_json and as_csv:
        raise OptionsError("--json and --csv are two formats of the same standings: give one")
    machine = "--json" if as_json else "--csv" if as_csv else None
    if machine is None:
        return
    asked = [
        flag
        for flag, given in (
            ("--pairs", pairs),
            ("--crosstable", crosstable is True),
            ("--no-crosstable", crosstable is False),
        )
        if given
    ]
    if asked:
        verb = "is" if len(asked) == 1 else "are"
        holds = (
            'the JSON holds every head-to-head score as "pairs"'
            if as_json
            else "the CSV holds only the leaderboard's rows"
        )
        raise OptionsError(
            f"{' and '.join(asked)} {verb} for the tables of the text view, which {machine} "
            f"does not print ({holds}): leave out one or the other"
        )
