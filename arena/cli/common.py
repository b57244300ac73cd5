"""What every command shares: the registry commands join, the console, errors caught once,
plain output, running trio, and a game's result with its faults. It stays light (no trio,
league or referee at import: `arena games` imports it), importing them where they are used."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.cli.app import ArenaCommand
from arena.games.errors import ArenaError, first_leaf
from arena.referee.text import plain

if TYPE_CHECKING:
    from arena.league.results import Damage
    from arena.referee.records import Fault, GameRecord

# The commands, as each command's module registers them (`command`); `arena.cli.app` imports
# a module only when one of its commands runs or shows its help, and takes it from here.
registry = typer.Typer(add_completion=False)
console = Console()
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


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

        (on or registry).command(name, cls=ArenaCommand)(run)
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
    """A remark on how the run goes (fewer games at once than asked, say), not an error. A
    remark of several lines (a worker's failed build and its output) is shown as lines, each
    after the first indented; every other control character is still shown escaped."""
    lines = text.rstrip("\n").split("\n")
    say(("note:", "yellow"), " ", "\n    ".join(lines), lines=True)  # (tabs kept too)


def show_stderr(stderr: str, lines: int = 10) -> None:
    """Print the last `lines` lines of a bot's stderr, indented, as plain text (if any)."""
    kept = stderr.strip().splitlines()[-lines:]
    if kept:
        say("  its stderr, last lines:\n    " + "\n    ".join(kept), lines=True)


def fault_place(fault: Fault) -> str:
    """When a fault happened: "during the handshake" or "at decision N"."""
    return "during the handshake" if fault.decision is None else f"at decision {fault.decision}"


class Terminated(KeyboardInterrupt):
    """SIGTERM, stopping a run as Ctrl-C does (`run_trio(..., sigterm=True)`)."""


def run_trio(
    fn: Callable[..., Awaitable[T]],
    *args: Any,
    saved: Callable[[], str] | None = None,
    sigterm: bool = False,
) -> T:
    """trio.run, with Ctrl-C surfacing as a plain KeyboardInterrupt (not inside a group), the
    referee's own lack of resources as an error in words, and any other error in words
    (a results folder that can no longer be written) as itself; `saved` says what was kept.
    With `sigterm`, SIGTERM stops the run as Ctrl-C does, surfacing as `Terminated`."""
    import trio

    from arena.referee.spawn import NoResources

    try:
        return trio.run(_terminable(fn) if sigterm else fn, *args)
    except BaseExceptionGroup as group:
        if (stop := group.subgroup(KeyboardInterrupt)) is not None:
            raise first_leaf(stop) from None
        if (lack := group.subgroup(NoResources)) is not None:
            raise _stopped(first_leaf(lack), saved) from None
        if (error := group.subgroup(ArenaError)) is not None:
            raise _failed(first_leaf(error), saved) from None
        raise
    except NoResources as exc:
        raise _stopped(exc, saved) from None
    except ArenaError as exc:
        raise _failed(exc, saved) from None


def _terminable(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """`fn`, run beside a watch for SIGTERM that raises `Terminated`: the run is cancelled as
    by Ctrl-C (games in flight stopped, their bots ended, nothing more journaled)."""
    import signal

    import trio

    async def run(*args: Any) -> T:
        with trio.open_signal_receiver(signal.SIGTERM) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    async for _ in signals:
                        raise Terminated

                nursery.start_soon(watch)
                try:
                    return await fn(*args)
                finally:
                    nursery.cancel_scope.cancel()

    return run


def _failed(exc: ArenaError, saved: Callable[[], str] | None) -> typer.Exit:
    return fail(str(exc) + (f"; {saved()}" if saved is not None else ""))


def _stopped(exc: BaseException, saved: Callable[[], str] | None) -> typer.Exit:
    return fail(
        f"stopped: {exc}. This is the referee's machine, not a bot: no bot was charged. "
        "Raise the limit (ulimit -n, ulimit -u) or run fewer games at once (--jobs)"
        + (f"; {saved()}" if saved is not None else ""),
        code=3,
    )


def show_record(record: GameRecord, *, stderr: bool = False) -> None:
    """The result table, then every fault in words (with `stderr`, and the end of the
    faulted bot's stderr); all a bot wrote is shown as plain text."""
    from arena.cli.views import shown

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


def warn_damage(damage: Damage, *, err: bool = False) -> None:
    """Damaged lines of a results folder, one warning each (on stderr under machine output)."""
    for sentence in damage.sentences():
        if err:
            typer.echo(f"warning: {plain(sentence)}", err=True)
        else:
            say(("warning:", "yellow"), " ", sentence)
