"""What commands read from their arguments: bots (loaded, checked against the ruleset,
built), clock and ruleset options, the sandbox mode."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import rich.markup
import typer

from arena.cli.common import (
    console,
    fail,
    note,
    say,
)
from arena.games import get_ruleset
from arena.referee import clock
from arena.referee.folders import BotSpec, BuildError, build_bot, load_bot, show_command
from arena.referee.game import RefereeConfig
from arena.referee.sandbox import (
    Mode,
    SandboxConfig,
    settle,
    with_limits,
)
from arena.referee.text import plain

if TYPE_CHECKING:
    from arena.league.executors import Executor


def load_bots(texts: list[str], ruleset: str | None = None) -> list[BotSpec]:
    """Bots named on the command line, refused (exit 2) when one cannot be loaded or, given
    `ruleset`, does not play it; built by `with_sandbox`, once their sandbox is settled."""
    specs = [load_bot(t) for t in texts]
    if ruleset is not None:
        refuse_rulesets(specs, ruleset)
    return specs


def refuse_rulesets(specs: list[BotSpec], ruleset: str) -> None:
    """Stop (exit 2) before any game when a bot's bot.toml lists rulesets without `ruleset`
    (or when there is no such ruleset)."""
    get_ruleset(ruleset)
    for spec in specs:
        if (why := spec.refusal(ruleset)) is not None:
            raise fail(why)


def build(specs: list[BotSpec]) -> list[BotSpec]:
    """Each bot with its build step run if its folder changed since its last build (see
    `arena.referee.folders.build_bot`), in the bot's sandbox when it has one (its mode
    settled, as `sandboxed` leaves it); a failed build stops the command (exit 2) with its
    output."""

    def building(spec: BotSpec) -> None:
        assert spec.build is not None
        on = spec.sandbox is not None and spec.sandbox.mode == "on"
        inside = ", in the sandbox" if on else ""
        say(f"building {spec.name}: {show_command(spec.build)} (in {spec.folder}{inside})")

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
    """The referee's clock from the clock options (checked by `arena.referee.clock`)."""
    limits = clock.limits(
        move=move_time, startup=startup_time, bank=bank, increment=increment, names=CLOCK_OPTIONS
    )
    return RefereeConfig(limits=limits)


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
        "file_size_mb, scratch_mb, open_files",
    ),
]


# The extra that installs `distributed`, escaped for the help (rendered as Rich markup,
# where "[cluster]" would be read as a style and vanish).
EXTRA = rich.markup.escape("arena-referee[cluster]")
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="play the games in N worker processes on this machine, each a referee running "
        f"its share of the games at once (needs {EXTRA}; default: the file's, "
        "else in this process)",
    ),
]
Cluster = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        help="play the games on the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://HOST:8786); bot folders are sent to its workers, which build them "
        f"(needs {EXTRA})",
    ),
]


def _wait_timeout(value: float | None) -> float | None:
    """--wait-timeout checked as it is parsed: a number of seconds > 0 (inf: no end)."""
    if value is not None and not value > 0:
        raise fail(f"--wait-timeout takes a number of seconds > 0, not {value:g}")
    return value


def _wait_flags(default: str) -> tuple[Any, Any]:
    """The options --wait-workers and --wait-timeout (also spelled --timeout), their defaults
    said as `default` ("the file's, else ", or nothing: a command without a file)."""
    workers = typer.Option(
        "--wait-workers",
        metavar="N",
        min=1,
        help="with --cluster: wait until the cluster has N workers before the first game, "
        f"saying so while it waits (default: {default}1)",
    )
    timeout = typer.Option(
        "--wait-timeout",
        "--timeout",
        metavar="SECONDS",
        callback=_wait_timeout,
        help="with --cluster: give up (exit 2, nothing written) when the workers have not "
        f"joined within SECONDS (default: {default}wait as long as it takes; Ctrl-C stops "
        "the wait)",
    )
    return workers, timeout


_TOURNAMENT_WAIT = _wait_flags("the file's, else ")
_MATCH_WAIT = _wait_flags("")
# The wait for a cluster's workers: of a tournament (its file may set it), of a match.
WaitWorkers = Annotated[int | None, _TOURNAMENT_WAIT[0]]
WaitTimeout = Annotated[float | None, _TOURNAMENT_WAIT[1]]
MatchWaitWorkers = Annotated[int | None, _MATCH_WAIT[0]]
MatchWaitTimeout = Annotated[float | None, _MATCH_WAIT[1]]


def refuse_waiting(
    cluster: str | None,
    wait_workers: int | None,
    wait_timeout: float | None,
    where: str = "--cluster",
) -> None:
    """Stop (exit 2) on --wait-workers or --wait-timeout for a run that is not on a cluster
    (refused rather than ignored); `where` says what puts a run on a cluster."""
    given = [
        flag
        for flag, value in (("--wait-workers", wait_workers), ("--wait-timeout", wait_timeout))
        if value is not None
    ]
    if given and cluster is None:
        verb = "is" if len(given) == 1 else "are"
        raise fail(
            f"{' and '.join(given)} {verb} for a run on a Dask cluster ({where}), and this one "
            "is not"
        )


@contextlib.contextmanager
def ready_executor(jobs: int, seats: int, **choice: Any) -> Iterator[Executor]:
    """`executor_for(jobs, seats, **choice)`: on a cluster, once it is reached and has its
    workers. Ctrl-C or SIGTERM while it waits stops the command in words (exit 130 or 143):
    nothing was played, and nothing written, as this comes before the results folder."""
    import signal

    from arena.cli.common import Terminated
    from arena.league.executors import executor_for

    def terminated(signum: int, frame: object) -> None:
        raise Terminated

    with contextlib.ExitStack() as stack:
        before = signal.signal(signal.SIGTERM, terminated)
        try:
            executor = stack.enter_context(executor_for(jobs, seats, on_note=note, **choice))
        except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (`Terminated`)
            console.print()
            say(("interrupted", "yellow"), " before the first game: nothing was played or written")
            raise typer.Exit(143 if isinstance(stop, Terminated) else 130) from None
        finally:
            signal.signal(signal.SIGTERM, before)
        yield executor


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
    """Command-line bots with the sandbox of `--sandbox` and `--limit`, settled, then built
    in it (`build`)."""
    config = sandbox_config(mode, limits)
    specs = [msgspec.structs.replace(s, sandbox=config) for s in specs]
    return build(sandboxed(specs, allow_mixed=allow_mixed))


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


CLOCK_OPTIONS = {
    "move": "--move-time",
    "startup": "--startup-time",
    "bank": "--bank",
    "increment": "--increment",
    "margin": "--margin",
}


def _clock_option(field: str) -> Callable[[float | None], float | None]:
    """A callback checking a clock option as it is parsed (`arena.referee.clock.check`), so a
    value that cannot work stops the command before any bot is loaded or built (None: the
    option was not given, where it has no default)."""

    def checked(value: float | None) -> float | None:
        if value is None:
            return None
        try:
            return clock.check(field, value, CLOCK_OPTIONS[field])
        except clock.ClockError as exc:
            raise fail(str(exc)) from None

    return checked


#: what each clock option means, and its range (`arena.referee.clock.BOUNDS`)
CLOCK_HELP = {
    "move": ("seconds per decision", "0.001 to 86400"),
    "startup": ("seconds to answer hello", "0.001 to 86400"),
    "bank": ("time bank in seconds, drawn on past --move-time", "0 to 86400"),
    "increment": ("seconds added to the bank per decision", "0 to 86400"),
    "margin": (
        "seconds past a decision's allowance within which an answer read is still taken",
        "0 to 1",
    ),
}

#: the defaults a tournament file has, shown where a flag leaves the file's value
CLOCK_DEFAULTS = {"move": "1", "startup": "10", "bank": "0", "increment": "0", "margin": "0.02"}


def _clock_flag(field: str, *, default_shown: bool = False) -> Any:
    """The typer option of the clock setting `field`, checked as it is parsed; with
    `default_shown`, its help names the tournament file's default (the flag is optional)."""
    meaning, bounds = CLOCK_HELP[field]
    default = f"; default {CLOCK_DEFAULTS[field]}" if default_shown else ""
    return typer.Option(
        CLOCK_OPTIONS[field], help=f"{meaning} ({bounds}{default})", callback=_clock_option(field)
    )


MoveTime = Annotated[float, _clock_flag("move")]
StartupTime = Annotated[float, _clock_flag("startup")]
Bank = Annotated[float, _clock_flag("bank")]
Increment = Annotated[float, _clock_flag("increment")]
Options = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="ruleset option key=value")
]

# The clock of a tournament given as flags (unset: the tournament file's defaults, as
# `arena play` has them).
TournamentMoveTime = Annotated[float | None, _clock_flag("move", default_shown=True)]
TournamentStartupTime = Annotated[float | None, _clock_flag("startup", default_shown=True)]
TournamentBank = Annotated[float | None, _clock_flag("bank", default_shown=True)]
TournamentIncrement = Annotated[float | None, _clock_flag("increment", default_shown=True)]
Margin = Annotated[float | None, _clock_flag("margin", default_shown=True)]


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """`--option k=v` pairs into a mapping; values are typed by the ruleset."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected key=value, got {pair!r}", param_hint="--option")
        out[key.strip()] = value.strip()
    return out


def print_line(line: str) -> None:
    """Print a line of a game as it is (an action by value may hold anything)."""
    console.print(plain(line), markup=False, highlight=False, emoji=False)
