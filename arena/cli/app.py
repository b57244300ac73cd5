"""The `arena` command: a thin layer over the library API."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec
import trio
import typer
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from arena.cli.views import (
    LiveTournament,
    leaderboard_csv,
    leaderboard_json,
    leaderboard_table,
    pairs_table,
    shown,
)
from arena.games import GameConfigError, GameState, all_rulesets, describe_options, get_ruleset
from arena.games.base import Audience
from arena.games.errors import ArenaError
from arena.games.random_play import random_game
from arena.games.registry import show_value
from arena.games.text import progress_lines
from arena.league.capacity import raise_fd_limit
from arena.league.config import ConfigError, load_tournament
from arena.league.leaderboard import leaderboard
from arena.league.match import MatchState, run_match
from arena.league.results import ResultsDir
from arena.league.sprt import Sprt, elo_estimate
from arena.league.tournament import run_tournament, schedule_of
from arena.referee import clock
from arena.referee.bot import (
    BotSpec,
    BuildError,
    build_bot,
    load_bot,
    show_command,
)
from arena.referee.check import CheckReport, check_bot
from arena.referee.faults import HINTS
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import Fault, GameRecord, append_record, read_records
from arena.referee.replay import ReplayError, replay
from arena.referee.sandbox import (
    Mode,
    SandboxConfig,
    settle,
    with_limits,
)
from arena.referee.spawn import NoResources
from arena.referee.text import plain
from protocol.messages import schema

app = typer.Typer(
    help="arena: fair games between bot programs, enforced rules and ratings.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
protocol_app = typer.Typer(help="The bot protocol.", no_args_is_help=True)
app.add_typer(protocol_app, name="protocol")


@app.callback()
def _start() -> None:
    """arena: fair games between bot programs, enforced rules and ratings."""
    raise_fd_limit()  # each bot costs the referee a few descriptors: use all allowed


def command(name: str | None = None, *, on: typer.Typer | None = None) -> Callable[[F], F]:
    """Register a command whose user errors (`ArenaError`: a bad ruleset, bot, file or
    config) are caught here, once for every command, and printed in words (exit 2)."""

    def register(fn: F) -> F:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except ArenaError as exc:
                raise fail(str(exc)) from None

        (on or app).command(name)(run)
        return fn

    return register


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error in words (as plain text: it may quote a bot) and return the Exit to raise."""
    say(("error:", "red"), " ", message)
    return typer.Exit(code)


def say(*parts: str | tuple[str, str], lines: bool = False) -> None:
    """Print parts, each a string or a (string, style) pair, as plain text (`plain`): no part
    is read as markup, none can move the terminal; newlines are kept only with `lines`."""
    text = Text.assemble(
        *((plain(p[0]), p[1]) if isinstance(p, tuple) else plain(p, lines=lines) for p in parts)
    )
    console.print(text, highlight=False, soft_wrap=True)


def note(text: str) -> None:
    """A remark on how the run goes (fewer games at once than asked, say), not an error."""
    say(("note:", "yellow"), f" {text}")


def show_stderr(stderr: str, lines: int = 10) -> None:
    """Print the last `lines` lines of a bot's stderr, indented, as plain text (if any)."""
    kept = stderr.strip().splitlines()[-lines:]
    if kept:
        say("  its stderr, last lines:\n    " + "\n    ".join(kept), lines=True)


def fault_place(fault: Fault) -> str:
    """When a fault happened: "during the handshake" or "at decision N"."""
    return "during the handshake" if fault.decision is None else f"at decision {fault.decision}"


def run_trio(
    fn: Callable[..., Awaitable[T]], *args: Any, saved: Callable[[], str] | None = None
) -> T:
    """trio.run, with Ctrl-C surfacing as a plain KeyboardInterrupt (not inside a group), and
    the referee's own lack of resources as an error in words (`saved` says what was kept)."""
    try:
        return trio.run(fn, *args)
    except BaseExceptionGroup as group:
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        if (lack := group.subgroup(NoResources)) is not None:
            raise _stopped(lack, saved) from None
        raise
    except NoResources as exc:
        raise _stopped(exc, saved) from None


def _stopped(exc: BaseException, saved: Callable[[], str] | None) -> typer.Exit:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return fail(
        f"stopped: {exc}. This is the referee's machine, not a bot: no bot was charged. "
        "Raise the limit (ulimit -n, ulimit -u) or run fewer games at once (--jobs)"
        + (f"; {saved()}" if saved is not None else ""),
        code=3,
    )


def load_bots(texts: list[str], ruleset: str | None = None) -> list[BotSpec]:
    """Bots named on the command line, refused (exit 2) when one cannot be loaded or, given
    `ruleset`, does not play it; then built (`build`)."""
    specs = [load_bot(t) for t in texts]
    if ruleset is not None:
        refuse_rulesets(specs, ruleset)
    return build(specs)


def refuse_rulesets(specs: list[BotSpec], ruleset: str) -> None:
    """Stop (exit 2) before any game when a bot's bot.toml lists rulesets without `ruleset`
    (or when there is no such ruleset)."""
    get_ruleset(ruleset)
    for spec in specs:
        if (why := spec.refusal(ruleset)) is not None:
            raise fail(why)


def build(specs: list[BotSpec]) -> list[BotSpec]:
    """Each bot with its build step run if its folder changed since its last build (see
    `arena.referee.bot.build_bot`); a failed build stops the command (exit 2) with its output."""

    def building(spec: BotSpec) -> None:
        assert spec.build is not None
        say(f"building {spec.name}: {show_command(spec.build)} (in {spec.folder})")

    out: list[BotSpec] = []
    for spec in specs:
        try:
            out.append(build_bot(spec, building))
        except BuildError as exc:
            say(("error:", "red"), " ", str(exc))
            if exc.output:
                tail = exc.output.replace("\n", "\n    ")
                say(f"  its output, last lines:\n    {tail}", lines=True)
            raise typer.Exit(2) from None
    return out


def referee_config(
    move_time: float, startup_time: float, bank: float, increment: float
) -> RefereeConfig:
    return RefereeConfig(
        limits=clock.limits(move=move_time, startup=startup_time, bank=bank, increment=increment)
    )


SandboxMode = Annotated[
    Mode | None,
    typer.Option(
        "--sandbox",
        help="run each bot in a bubblewrap sandbox: auto (when bubblewrap works here, the "
        "default), on (required) or off",
    ),
]
Limit = Annotated[
    list[str] | None,
    typer.Option(
        "--limit",
        "-L",
        help="a sandbox limit per bot, key=value: memory_mb, processes, cpu_seconds, "
        "file_size_mb, scratch_mb",
    ),
]


AllowMixed = Annotated[
    bool,
    typer.Option(
        "--allow-mixed-sandbox",
        help="seat bots without the sandbox with sandboxed ones (refused otherwise: an "
        "unsandboxed bot can read a sandboxed one's input, its hidden hand)",
    ),
]


def sandboxed(
    specs: list[BotSpec], mode: Mode | None = None, *, allow_mixed: bool = False
) -> list[BotSpec]:
    """`specs` with their sandbox modes settled for this machine (`arena.referee.sandbox.settle`),
    its warnings printed."""
    configs, warnings = settle([(s.name, s.sandbox) for s in specs], mode, allow_mixed=allow_mixed)
    for warning in warnings:
        say(("warning:", "yellow"), f" {warning}")
    return [msgspec.structs.replace(s, sandbox=c) for s, c in zip(specs, configs, strict=True)]


def sandbox_config(mode: Mode | None, limits: list[str] | None) -> SandboxConfig:
    try:
        return with_limits(SandboxConfig(mode=mode or "auto"), limits or [])
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--limit") from None


def with_sandbox(
    specs: list[BotSpec],
    mode: Mode | None,
    limits: list[str] | None,
    *,
    allow_mixed: bool = False,
) -> list[BotSpec]:
    """Command-line bots with the sandbox of `--sandbox` and `--limit`, settled."""
    config = sandbox_config(mode, limits)
    specs = [msgspec.structs.replace(s, sandbox=config) for s in specs]
    return sandboxed(specs, allow_mixed=allow_mixed)


def sandbox_summary(specs: list[BotSpec]) -> str:
    """One line: which bots run sandboxed, with which limits."""
    inside = [s for s in specs if s.sandbox is not None and s.sandbox.mode == "on"]
    if not inside:
        return "bots run without a sandbox"
    limits = {s.sandbox.describe() for s in inside if s.sandbox is not None}
    text = (
        "bots run sandboxed"
        if len(inside) == len(specs)
        else ("sandboxed: " + ", ".join(s.name for s in inside) + "; the others are not")
    )
    return text + (f" (each: {limits.pop()})" if len(limits) == 1 else "")


MoveTime = Annotated[float, typer.Option("--move-time", help="seconds per decision")]
StartupTime = Annotated[float, typer.Option("--startup-time", help="seconds to answer hello")]
Bank = Annotated[
    float, typer.Option("--bank", help="time bank in seconds, drawn on past --move-time")
]
Increment = Annotated[
    float, typer.Option("--increment", help="seconds added to the bank per decision")
]
Options = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="ruleset option key=value")
]


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """`--option k=v` pairs into a mapping; values are typed by the ruleset."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected key=value, got {pair!r}", param_hint="--option")
        out[key.strip()] = value.strip()
    return out


def _plain(line: str) -> None:
    """Print a line of a game as it is (an action by value may hold anything)."""
    console.print(plain(line), markup=False, highlight=False, emoji=False)


@command()
def games() -> None:
    """List the rulesets with their player counts and options."""
    table = Table(title="Rulesets")
    table.add_column("id", style="bold")
    table.add_column("players")
    table.add_column("options")
    table.add_column("summary")
    for rs in all_rulesets():
        opts = "\n".join(
            f"{o.name}={o.allowed} (default {show_value(o.default)})"
            for o in describe_options(rs.options_type)
        )
        table.add_row(rs.id, rs.player_counts, opts or "-", rs.summary)
    console.print(table)


@command()
def demo(
    ruleset: Annotated[str, typer.Argument(help="ruleset id, see `arena games`")] = "odin",
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-n", help="number of seats (default 3, or as the ruleset allows)"
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="seed for the deal and the players")] = 1,
    option: Options = None,
) -> None:
    """Play one game between random players in process, printed move by move."""
    rs = get_ruleset(ruleset)
    if players is None:
        players = min(max(3, rs.min_players), rs.max_players)
    rs.check_players(players)
    options = parse_options(option)
    outcome = random_game(ruleset, players, options, seed, _plain)
    table = Table(title=f"{ruleset}, seed {seed}")
    table.add_column("seat")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True)):
        table.add_row(str(seat), str(score), str(rank))
    console.print(table)


def show_record(record: GameRecord, *, stderr: bool = False) -> None:
    """The result table, then every fault in words (with `stderr`, and the end of the
    faulted bot's stderr); all a bot wrote is shown as plain text."""
    table = Table(title=shown(f"{record.ruleset}, seed {record.seed}"))
    for col in ("seat", "bot", "score", "rank", "faults"):
        table.add_column(col, justify="right" if col in ("score", "rank") else "left")
    for seat in record.seats:
        kinds = [f.kind for f in record.faults if f.seat == seat.seat]
        table.add_row(
            str(seat.seat),
            shown(seat.bot),
            f"{record.scores[seat.seat]:g}",
            str(record.ranks[seat.seat]),
            shown(", ".join(kinds) or "-"),
        )
    console.print(table)
    if record.error is not None:
        say(("referee error", "red"), f": {record.error}; the game has no result")
    for f in record.faults:
        say((f.kind, "red"), f" {fault_place(f)}: ", f.sentence())
        if stderr:
            show_stderr(record.stderr[f.seat])


@command()
def play(
    ruleset: Annotated[str, typer.Argument(help="ruleset id, see `arena games`")],
    bots: Annotated[
        list[str],
        typer.Argument(help="a bot folder (with bot.toml) or a command line, one per seat"),
    ],
    seed: Annotated[int, typer.Option(help="seed of the deal")] = 0,
    option: Options = None,
    move_time: MoveTime = 1.0,
    startup_time: StartupTime = 10.0,
    bank: Bank = 0.0,
    increment: Increment = 0.0,
    record: Annotated[
        Path | None, typer.Option(help="append the game record to this JSON-lines file")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="show only the result")] = False,
    sandbox: SandboxMode = None,
    limit: Limit = None,
    allow_mixed_sandbox: AllowMixed = False,
) -> None:
    """Play one game between bots and show it move by move."""
    specs = load_bots(bots, ruleset)
    specs = with_sandbox(specs, sandbox, limit, allow_mixed=allow_mixed_sandbox)
    config = referee_config(move_time, startup_time, bank, increment)
    if record is not None:  # no bot may read earlier records
        config = msgspec.structs.replace(config, private=(str(record.resolve()),))

    def observe(state: GameState[Any, Any], events: list[tuple[Audience, msgspec.Struct]]) -> None:
        if not quiet:
            for line in progress_lines(state, events):
                _plain(line)

    rs = get_ruleset(ruleset)
    options = rs.options(parse_options(option))
    rs.check_players(len(specs))
    result = run_trio(
        lambda: play_game(
            ruleset, specs, options=options, seed=seed, config=config, observer=observe
        )
    )
    if record is not None:  # first: nothing shown may cost the record
        append_record(record, result)
    show_record(result, stderr=True)
    if record is not None:
        say(f"record appended to {record}")


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
            replay(rec, None if quiet else _plain)
        except (ReplayError, GameConfigError) as exc:
            bad += 1
            say(("does not reproduce:", "red"), f" {exc}")
            continue
        show_record(rec)
        console.print("[green]reproduced exactly[/green]")
    if bad:
        raise typer.Exit(1)


@command("check-bot")
def check_bot_cmd(
    bot: Annotated[str, typer.Argument(help="a bot folder (with bot.toml) or a command line")],
    ruleset: Annotated[
        list[str] | None,
        typer.Option(
            "--ruleset",
            "-r",
            help="ruleset(s) to check (default: those its bot.toml lists, else all)",
        ),
    ] = None,
    games: Annotated[
        int,
        typer.Option(
            help="games per ruleset and player count, at least one per seat (seats rotate)"
        ),
    ] = 2,
    move_time: MoveTime = 1.0,
    startup_time: StartupTime = 10.0,
    sandbox: SandboxMode = None,
    limit: Limit = None,
) -> None:
    """Play a bot against random opponents, in every seat, and report every protocol problem,
    and whether it works inside the sandbox."""
    spec = with_sandbox(load_bots([bot]), sandbox, limit)[0]
    if ruleset:
        rulesets = [get_ruleset(r) for r in ruleset]
    elif spec.rulesets is not None:
        rulesets = [get_ruleset(r) for r in spec.rulesets]
    else:
        rulesets = all_rulesets()
    unlisted = [r.id for r in rulesets if spec.refusal(r.id) is not None]
    if unlisted and spec.rulesets is not None:
        say(
            ("note:", "yellow"),
            f" {spec.name} lists rulesets = [{', '.join(spec.rulesets)}]; checking "
            f"{', '.join(unlisted)} as asked (tournaments, play and sprt refuse it there)",
        )
    config = referee_config(move_time, startup_time, 0.0, 0.0)

    def progress(rec: GameRecord, seat: int) -> None:
        say(f"  {rec.ruleset} with {rec.players} players, seat {seat}, seed {rec.seed}: done")

    report = run_trio(
        lambda: check_bot(spec, rulesets, games=games, config=config, on_game=progress)
    )
    say(
        f"{spec.name}: {report.games} games, {report.decisions} decisions, "
        f"slowest {report.slowest_ms:.1f} ms"
        + (" (one it faulted on)" if report.slowest_faulted else "")
    )
    show_sandbox_verdict(spec, report)
    if report.ok:
        console.print("[green]no problems found[/green]")
        return
    for p in report.problems:
        f = p.fault
        say(
            (f.kind, "red"),
            f" in {p.ruleset} ({p.players} players, seat {p.seat}, seed {p.seed}) "
            f"{fault_place(f)}: ",
            f.sentence(),
        )
        say(f"  hint: {HINTS[f.kind]}")
        show_stderr(p.stderr)
    raise typer.Exit(1)


def show_sandbox_verdict(spec: BotSpec, report: CheckReport) -> None:
    """Whether the bot works inside the sandbox, and if not, what it tried to reach."""
    if not report.sandboxed:
        console.print("checked without the sandbox", highlight=False)
        return
    assert spec.sandbox is not None
    limits = spec.sandbox.describe()
    if report.ok:
        console.print(f"[green]works inside the sandbox[/green] ({limits})", highlight=False)
        return
    if report.outside_ok:
        console.print(
            f"[red]does not work inside the sandbox[/red] ({limits}), but works without it",
            highlight=False,
        )
    else:
        console.print(
            "its problems below are not the sandbox's: it fails without it as well",
            highlight=False,
        )
    if report.unreadable:
        folder = spec.folder or "its folder"
        say(
            "inside the sandbox it runs as a throwaway unprivileged user (arena runs as root), "
            "who cannot use:"
        )
        for item in report.unreadable:
            say(f"  {item}")
        say(f"  make them readable by all: chmod -R a+rX {folder}")
    named = {item.split(" (")[0].rstrip("/") for item in report.unreadable}
    reached = [item for item in report.reached if item.split(" (")[0] not in named]
    if reached:
        console.print("it tried to reach (from its error output):", highlight=False)
        for item in reached:
            say(f"  {item}")
    elif report.outside_ok and not report.unreadable:
        console.print(
            "its error output names nothing the sandbox hides; see its stderr below. Inside, "
            "it sees only the system, its own folder and the files its command names "
            "(read-only), and may write only to $HOME and /tmp.",
            highlight=False,
        )


@command("schema", on=protocol_app)
def protocol_schema(
    ruleset: Annotated[
        str, typer.Option("--ruleset", "-r", help="the ruleset whose game types to use")
    ] = "odin",
) -> None:
    """Print the JSON Schema of every protocol message, for one ruleset."""
    st = get_ruleset(ruleset).state_type
    doc = schema(st.observation_type, st.action_type, st.event_type)
    typer.echo(msgspec.json.format(msgspec.json.encode(doc), indent=2).decode())


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


@command()
def sprt(
    bot_a: Annotated[str, typer.Argument(help="the bot under test (folder or command)")],
    bot_b: Annotated[str, typer.Argument(help="the baseline (folder or command)")],
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="a 2-player ruleset")],
    elo0: Annotated[float, typer.Option(help="H0: A is this many Elo stronger")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: A is this many Elo stronger")] = 10.0,
    alpha: Annotated[float, typer.Option(help="false positive rate")] = 0.05,
    beta: Annotated[float, typer.Option(help="false negative rate")] = 0.05,
    max_pairs: Annotated[int, typer.Option(help="stop after this many deal pairs")] = 5000,
    seed: Annotated[int, typer.Option(help="seed of the deals")] = 1,
    option: Options = None,
    move_time: MoveTime = 1.0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="games at once")] = 2,
    sandbox: SandboxMode = None,
    limit: Limit = None,
    allow_mixed_sandbox: AllowMixed = False,
) -> None:
    """Play paired deals between two bots until an SPRT accepts H0 or H1 (as fishtest)."""
    pair = load_bots([bot_a, bot_b], ruleset)
    a, b = with_sandbox(pair, sandbox, limit, allow_mixed=allow_mixed_sandbox)
    try:
        rs = get_ruleset(ruleset)
        rs.check_players(2)
        options = rs.options(parse_options(option))
        test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    except (ValueError, msgspec.ValidationError) as exc:  # the test's parameters
        raise fail(str(exc)) from None
    lower, upper = test.bounds()
    say(
        f"SPRT {a.name} vs {b.name} on {ruleset}: H0 elo {elo0:g}, H1 elo {elo1:g}, "
        f"alpha {alpha:g}, beta {beta:g}; bounds [{lower:.3f}, {upper:.3f}]"
    )

    def report(state: MatchState) -> None:
        elo, err = elo_estimate(state.counts)
        say(
            f"pairs {state.pairs:5d}  LLR {state.llr:+.3f} [{lower:.2f}, {upper:.2f}]  "
            f"elo {elo:+.1f} ± {err:.1f}  pentanomial {state.counts}"
        )

    config = referee_config(move_time, 10.0, 0.0, 0.0)
    state = run_trio(
        lambda: run_match(
            a,
            b,
            ruleset,
            test,
            options=options,
            seed=seed,
            config=config,
            max_pairs=max_pairs,
            jobs=jobs,
            on_pair=report,
            on_note=note,
        )
    )
    verdict = {
        "H1": f"H1 accepted: {a.name} is stronger by about {elo1:g} Elo or more",
        "H0": f"H0 accepted: {a.name} is not stronger by {elo1:g} Elo",
        "continue": f"no decision after {state.pairs} pairs",
    }[state.status]
    say((verdict, "bold"))


def main() -> None:
    app()
