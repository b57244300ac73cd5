"""`arena tournament` and `arena leaderboard`: run or resume a tournament, show standings."""

from __future__ import annotations

import contextlib
import typing
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from rich.live import Live

from arena.cli.common import (
    Terminated,
    command,
    console,
    note,
    run_trio,
    say,
    warn_damage,
)
from arena.cli.inputs import (
    CLOCK_OPTIONS,
    AllowMixed,
    Cluster,
    Limit,
    Margin,
    Options,
    TournamentBank,
    TournamentIncrement,
    TournamentMoveTime,
    TournamentStartupTime,
    WaitTimeout,
    WaitWorkers,
    Workers,
    build,
    load_bots,
    parse_options,
    ready_executor,
    refuse_waiting,
    sandbox_summary,
    sandboxed,
)
from arena.cli.views import (
    LiveTournament,
    game_line,
    leaderboard_csv,
    leaderboard_json,
    print_views,
    standings_views,
)
from arena.games import get_ruleset
from arena.games.convert import KeyPath
from arena.games.errors import ArenaError
from arena.games.text import counted
from arena.league.config import (
    TOML_FILE,
    ConfigError,
    FileNames,
    Format,
    Tournament,
    load_tournament,
    tournament_from,
    tournament_toml,
    write_toml,
)
from arena.league.executors import Executor
from arena.league.executors.choice import check_choice
from arena.league.leaderboard import Standings, parse_anchors, results_leaderboard
from arena.league.results import CONFIG_FILE, ResultsDir
from arena.league.tournament import Progress, run_tournament, schedule_of
from arena.referee.folders import BotSpec
from arena.referee.records import GameRecord
from arena.referee.sandbox import Mode, SandboxConfig, with_limits


class OptionsError(ArenaError):
    """Options of a command that cannot work together (refused rather than one ignored)."""


#: The flags that give a tournament without a file, by the key of the file each one sets.
FLAG_KEYS: dict[KeyPath, str] = {
    ("name",): "--name",
    ("ruleset",): "--ruleset",
    ("format",): "--format",
    ("seats",): "--seats",
    ("deals",): "--deals",
    ("rounds",): "--rounds",
    ("challenger",): "--challenger",
    ("max_tables",): "--max-tables",
    ("seed",): "--seed",
    ("deal_file",): "--deal-file",
    ("options",): "--option",
    **{("time", field): flag for field, flag in CLOCK_OPTIONS.items()},
}
RESULTS = Path("results")  # the default results root


class FlagNames(FileNames):
    """Keys named as the flags that set them (`--deals`, `--move-time`, `--bot 'x'`), for a
    tournament given as flags."""

    rename = (
        "a bot is named by its bot.toml or its program; to name bots otherwise, write a "
        "tournament file with a name = in each [[bots]] table"
    )

    def __init__(self, bots: list[str]) -> None:
        self.bots = bots

    def key(self, path: KeyPath) -> str:
        if path in FLAG_KEYS:
            return FLAG_KEYS[path]
        if len(path) == 2 and path[0] == "options":
            return f"--option {path[1]}"
        if len(path) >= 2 and path[0] == "bots":
            return self.table(path[:2])
        return super().key(path)

    def table(self, path: KeyPath) -> str:
        if len(path) == 2 and path[0] == "bots" and isinstance(path[1], int):
            return f"--bot {self.bots[path[1]]!r}"
        return super().table(path)

    def setting(self, path: KeyPath, value: object) -> str:
        return f"{self.key(path)} {value}"


@command()
def tournament(
    file: Annotated[
        Path | None,
        typer.Argument(
            help="the tournament file (TOML), or the results folder of a tournament given as "
            "flags; none: the tournament is --ruleset and the --bot flags",
            show_default=False,
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", "-r", help="without a file: the ruleset (see `arena games`)"),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            help="without a file: a bot folder (with bot.toml) or a command line; once per bot",
        ),
    ] = None,
    format_: Annotated[
        Format | None,
        typer.Option("--format", help="without a file: round-robin (the default), swiss, gauntlet"),
    ] = None,
    seats: Annotated[
        int | None, typer.Option("--seats", help="without a file: seats per table (default 2)")
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            help="without a file: deals per table, each played in every seating (default 1)",
        ),
    ] = None,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="without a file: swiss rounds (default 5)")
    ] = None,
    challenger: Annotated[
        str | None,
        typer.Option("--challenger", help="without a file: the bot a gauntlet sets against all"),
    ] = None,
    max_tables: Annotated[
        int | None,
        typer.Option(
            "--max-tables", help="without a file: play a balanced sample of this many tables"
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="without a file: seed of the deals (default 1)")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            help="without a file: the tournament's name, its results folder (default: the "
            "ruleset's id)",
        ),
    ] = None,
    deal_file: Annotated[
        Path | None,
        typer.Option("--deal-file", help="without a file: play the deals of this file's seeds"),
    ] = None,
    option: Options = None,
    move_time: TournamentMoveTime = None,
    startup_time: TournamentStartupTime = None,
    bank: TournamentBank = None,
    increment: TournamentIncrement = None,
    margin: Margin = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="games at once (default: the file's, else the number of cores)"
        ),
    ] = None,
    results: Annotated[
        Path | None,
        typer.Option(
            help="the results root; the tournament's folder is RESULTS/<name> (default: "
            "results, or the parent of the results folder given as FILE)",
            show_default=False,
        ),
    ] = None,
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
    limit: Limit = None,
    allow_mixed_sandbox: AllowMixed = False,
    workers: Workers = None,
    cluster: Cluster = None,
    wait_workers: WaitWorkers = None,
    wait_timeout: WaitTimeout = None,
) -> None:
    """Run a tournament, from a file or from flags; running it again resumes where it stopped."""
    # Given as flags (--ruleset, a --bot per bot, --deals, --format and the others standing
    # for a file's keys), the tournament is written as tournament.toml into its results
    # folder; the same command, or `arena tournament RESULTS/<name>`, resumes it.
    if jobs is not None and jobs < 1:
        raise ConfigError("--jobs takes a number of games >= 1")
    flags: dict[str, object] = {
        "--ruleset": ruleset, "--bot": bot, "--format": format_, "--seats": seats,
        "--deals": deals, "--rounds": rounds, "--challenger": challenger,
        "--max-tables": max_tables, "--seed": seed, "--name": name, "--deal-file": deal_file,
        "--option": option, "--move-time": move_time, "--startup-time": startup_time,
        "--bank": bank, "--increment": increment, "--margin": margin,
    }  # fmt: skip
    given = [flag for flag, value in flags.items() if value is not None]
    written: str | None = None  # the tournament file to write into the folder (flags)
    if file is not None:
        if given:
            raise OptionsError(
                f"{' and '.join(given)} {'gives' if len(given) == 1 else 'give'} a tournament "
                f"without a file, and {file} is one: set it in the file, or leave out the "
                "file (--jobs, --sandbox, --limit, --workers and --cluster go with either)"
            )
        t = load_tournament(file)
        results_folder = file.is_dir() and (file / CONFIG_FILE).is_file()
        root = results if results is not None else file.parent if results_folder else RESULTS
        again = f"arena tournament {file}" + (f" --results {results}" if results else "")
    else:
        if ruleset is None or not bot:
            raise OptionsError(
                "give a tournament file, or the tournament as flags: --ruleset and a --bot "
                "for each bot (see arena tournament --help)"
            )
        clock = {"move": move_time, "startup": startup_time, "bank": bank}
        clock |= {"increment": increment, "margin": margin}
        raw = _flags_tournament(ruleset, bot, flags, clock)
        root = RESULTS if results is None else results
        source = root / str(raw["name"]) / TOML_FILE
        t = tournament_from(raw, source, names=FlagNames(bot), prefix="")
        written = tournament_toml(
            raw,
            "The tournament given as flags to `arena tournament`, which wrote it here:\n"
            f"`arena tournament {source.parent}` runs it again (resumes it).",
        )
        again = f"arena tournament {source.parent}"
    # The flags say where the run plays (over the file's workers or cluster), and the command
    # that resumes it plays there too.
    again += f" --workers {workers}" if workers is not None else ""
    again += f" --cluster {cluster}" if cluster is not None else ""
    workers = t.config.workers if workers is None and cluster is None else workers
    cluster = t.config.cluster if cluster is None and workers is None else cluster
    refuse_waiting(cluster, wait_workers, wait_timeout, "--cluster, or cluster in the file")
    wait_workers = wait_workers or t.config.wait_workers or 1
    wait_timeout = wait_timeout if wait_timeout is not None else t.config.wait_timeout
    check_choice(workers, cluster, wait_workers, wait_timeout)  # before anything is written
    bots = t.bots if not limit else _with_limits(t.bots, limit)
    mixed = allow_mixed_sandbox or t.config.allow_mixed_sandbox
    t = msgspec.structs.replace(t, bots=sandboxed(bots, sandbox, allow_mixed=mixed))
    if cluster is None:  # built in its sandbox; on a cluster, each worker builds what it is sent
        t = msgspec.structs.replace(t, bots=build(t.bots))
    if jobs is not None:
        t = msgspec.structs.replace(t, config=msgspec.structs.replace(t.config, jobs=jobs))
    # The executor first: a cluster out of reach, or without workers in time, leaves nothing
    # written (no results folder to block the corrected command).
    with (
        ready_executor(
            t.jobs,
            t.config.seats,
            workers=workers,
            cluster=cluster,
            cluster_jobs=t.config.jobs,  # asked in the file or with --jobs; else the threads
            wait_workers=wait_workers,
            wait_timeout=wait_timeout,
        ) as executor,
        ResultsDir.open(root, t, fresh=fresh, on_damage=warn_damage) as folder,
    ):
        if written is not None:
            write_toml(folder.path / TOML_FILE, written)
        _run(t, folder, again, executor)


def _flags_tournament(
    ruleset: str, bots: list[str], flags: dict[str, object], clock: dict[str, float | None]
) -> dict[str, Any]:
    """The tables of the tournament file that the flags stand for: the keys given, each bot
    as its path or its command, all read from the folder the command runs in (`base`).
    Options are typed by the ruleset (the string is kept where TOML has no value: none)."""
    specs = load_bots(bots)  # each bot refused in the words of `arena play`, before any key
    raw: dict[str, Any] = {
        "name": flags["--name"] if flags["--name"] is not None else ruleset,
        "ruleset": ruleset,
        "base": str(Path.cwd()),
    }
    for key in ("format", "seats", "deals", "rounds", "challenger", "max_tables", "seed"):
        value = flags[f"--{key.replace('_', '-')}"]
        if value is not None:
            raw[key] = value
    if flags["--deal-file"] is not None:
        raw["deal_file"] = str(flags["--deal-file"])
    options = parse_options(typing.cast("list[str] | None", flags["--option"]))
    if options:
        typed = msgspec.to_builtins(get_ruleset(ruleset).options(options))
        raw["options"] = {k: options[k] if typed[k] is None else typed[k] for k in options}
    time = {field: value for field, value in clock.items() if value is not None}
    if time:
        raw["time"] = time
    raw["bots"] = [
        {"path": text} if spec.folder is not None and Path(text).is_dir() else {"command": text}
        for text, spec in zip(bots, specs, strict=True)
    ]
    return raw


def _with_limits(specs: list[BotSpec], limits: list[str]) -> list[BotSpec]:
    """Each bot's sandbox with the --limit settings over its own (the file's)."""
    out = []
    for spec in specs:
        try:
            config = with_limits(spec.sandbox or SandboxConfig(), limits)
        except ValueError as exc:
            raise OptionsError(f"--limit: {exc}") from None
        out.append(msgspec.structs.replace(spec, sandbox=config))
    return out


def _run(t: Tournament, folder: ResultsDir, again: str, executor: Executor) -> None:
    """Run or resume the tournament on `executor`, live, then show its standings (those so
    far when it is interrupted: Ctrl-C or SIGTERM)."""
    schedule = schedule_of(t)
    total = schedule.total()
    names = [b.name for b in t.bots]
    c = t.config
    say(
        (c.name, "bold"),
        f": {c.format} of {counted(len(names), 'bot')} on {c.ruleset}, "
        f"{counted(c.seats, 'seat')}, {counted(total, 'game')}, {executor.describe()}; "
        f"results in {folder.path}",
    )
    say(sandbox_summary(t.bots))
    # One read of the journal, as summaries: which games are done, and the standings so far
    # (after the heading: damaged lines set aside are warned of here).
    standings = Standings(names)
    finished = folder.finished(standings.add)
    if finished:
        console.print(f"resuming: {counted(len(finished), 'game')} already played", highlight=False)
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
                saved=lambda: f"{_saved(len(finished))}; once it can run, resume with: {again}",
                sigterm=True,
            )
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (`Terminated`)
        console.print()
        del schedule
        if finished:
            _standings(folder, standings, finished, f"{c.name} so far")
        say(
            ("interrupted", "yellow"),
            f": {_saved(len(finished))} in {folder.path}. Resume with: {again}",
        )
        raise typer.Exit(143 if isinstance(stop, Terminated) else 130) from None
    del schedule  # every game is played: let its games go before the standings are fitted
    _standings(folder, standings, finished, c.name)
    say(f"results: {folder.path}  (arena leaderboard {folder.path})")


def _standings(
    folder: ResultsDir, standings: Standings, finished: dict[str, tuple[int, ...]], title: str
) -> None:
    """The standings of the games played, headed `title` and their count."""
    board = results_leaderboard(folder, standings, finished)
    width = console.width if console.is_terminal else None
    print_views(
        console, standings_views(board, f"{title}: {counted(board.games, 'game')}", width=width)
    )


def _saved(games: int) -> str:
    """ "1 finished game is saved", "3 finished games are saved"."""
    return f"{counted(games, 'finished game')} {'is' if games == 1 else 'are'} saved"


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
    anchor: Annotated[
        list[str] | None,
        typer.Option(
            "--anchor",
            metavar="BOT=ELO",
            help="fix BOT's rating at ELO; the others and their error bars are relative to "
            "it (repeatable: anchors keep their differences; default: the mean Elo is 0)",
        ),
    ] = None,
) -> None:
    """Show the standings of a results folder: Elo ± error, score, places, faults; beside
    them the Swiss standings, the deal pairs and the crosstable."""
    _refuse_mixed_outputs(as_json, as_csv, pairs, crosstable)
    anchors = parse_anchors(anchor or [])
    rd = ResultsDir.existing(folder, on_damage=lambda d: warn_damage(d, err=as_json or as_csv))
    board = results_leaderboard(rd, anchors=anchors)
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
            f"{name}: {counted(board.games, 'game')}",
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
