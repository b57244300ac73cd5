"""`arena check-bot`: a bot against random opponents in every seat, and in the sandbox."""

from __future__ import annotations

import os
import pwd
from typing import Annotated

import typer

from arena.cli.common import (
    command,
    console,
    fault_place,
    run_trio,
    say,
    show_stderr,
)
from arena.cli.inputs import (
    Limit,
    MoveTime,
    SandboxMode,
    StartupTime,
    load_bots,
    referee_config,
    with_sandbox,
)
from arena.cli.tracing import TraceFile, TraceOption, opened_trace
from arena.games import all_rulesets, get_ruleset
from arena.games.text import counted
from arena.referee.check import (
    CheckReport,
    Problem,
    ProblemGroup,
    check_bot,
    grouped,
    player_counts,
)
from arena.referee.folders import BotSpec
from arena.referee.records import GameRecord


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
    try_unsandboxed: Annotated[
        bool,
        typer.Option(
            "--try-unsandboxed",
            help="with problems inside the sandbox, play the first such game again without "
            "it, to tell whether the sandbox is the cause: the bot then runs as you, unconfined",
        ),
    ] = False,
    players: Annotated[
        list[str] | None,
        typer.Option(
            "--players",
            "-n",
            help="player counts to try, repeated or as a list (-n 2 -n 4, or -n 2,4); "
            "default: the fewest and the most each ruleset allows",
        ),
    ] = None,
    trace: TraceOption = False,
    trace_file: TraceFile = None,
) -> None:
    """Play a bot against random opponents, in every seat, and report every protocol problem,
    and whether it works inside the sandbox."""
    counts = _counts(players)
    asked = [get_ruleset(r) for r in ruleset or ()]
    for rs in asked:  # before the bot is built: a count a ruleset refuses
        player_counts(rs, counts)
    spec = with_sandbox(load_bots([bot]), sandbox, limit)[0]
    if asked:
        rulesets = asked
    elif spec.rulesets is not None:
        rulesets = [get_ruleset(r) for r in spec.rulesets]
    else:
        rulesets = all_rulesets()
    for rs in rulesets:  # before any game
        player_counts(rs, counts)
    unlisted = [r.id for r in rulesets if spec.refusal(r.id) is not None]
    if unlisted and spec.rulesets is not None:
        say(
            ("note:", "yellow"),
            f" {spec.name} lists rulesets = [{', '.join(spec.rulesets)}]; checking "
            f"{', '.join(unlisted)} as asked (tournaments, play and sprt refuse it there)",
        )
    config = referee_config(move_time, startup_time, 0.0, 0.0)

    def progress(rec: GameRecord, seat: int) -> None:
        fault = next((f for f in rec.faults if f.seat == seat), None)
        table = counted(rec.players, "player")
        where = f"  {rec.ruleset} with {table}, seat {seat}, seed {rec.seed}: "
        if fault is None:
            say(where, "done")
        else:
            say(where, (f"{fault.kind} {fault_place(fault)}", "red"))

    def unsandboxed(p: Problem) -> None:
        say(
            ("warning:", "yellow"),
            f" playing {p.ruleset} ({counted(p.players, 'player')}, seat {p.seat}, seed {p.seed}) "
            "again "
            f"WITHOUT the sandbox (--try-unsandboxed): {spec.name} runs as {_user()}, "
            "unconfined",
        )

    with opened_trace(trace, trace_file) as tracing:
        report = run_trio(
            lambda: check_bot(
                spec,
                rulesets,
                games=games,
                config=config,
                on_game=progress,
                try_unsandboxed=try_unsandboxed,
                on_unsandboxed=unsandboxed,
                players=counts,
                trace=tracing,
            )
        )
    say(
        f"{spec.name}: {counted(report.games, 'game')}, "
        f"{counted(report.decisions, 'decision')}, "
        f"slowest {report.slowest_ms:.1f} ms"
        + (" (one it faulted on)" if report.slowest_faulted else "")
    )
    show_sandbox_verdict(spec, report)
    if trace_file is not None:
        say(f"trace written to {trace_file}")
    if report.ok:
        console.print("[green]no problems found[/green]")
        return
    for group in grouped(report.problems):
        show_group(group, report.games)
    raise typer.Exit(1)


GAMES_LISTED = 10  # games named per cause, at most


def show_group(group: ProblemGroup, games: int) -> None:
    """The problems of one cause: how many games of all it came in, what the bot did (the
    first time, when they differ), in which games, the hint and the first one's stderr."""
    first = group.first
    n = len(group.problems)
    of = f" in {n} of {counted(games, 'game')}"
    say(
        (first.fault.kind, "red"),
        of + (": " if group.alike else ", the first: "),
        first.fault.sentence(),
    )
    where = [f"{p.game} {fault_place(p.fault)}" for p in group.problems[:GAMES_LISTED]]
    if n > GAMES_LISTED:
        where.append(f"and {n - GAMES_LISTED} more")
    say(f"  in {', '.join(where)}")
    say(f"  hint: {first.hint}")
    show_stderr(first.stderr)


def _counts(players: list[str] | None) -> list[int] | None:
    """The player counts of --players, each given alone or in a comma-separated list."""
    if not players:
        return None
    counts: list[int] = []
    for given in players:
        for word in given.split(","):
            try:
                n = int(word.strip())
            except ValueError:
                raise typer.BadParameter(
                    f"expected a number of players, got {word.strip()!r}", param_hint="--players"
                ) from None
            if n < 1:
                raise typer.BadParameter(
                    f"expected a number of players, 1 or more, got {n}", param_hint="--players"
                )
            counts.append(n)
    return counts


def _user() -> str:
    """The user arena runs as, by name (its id if it has none)."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return f"user {os.geteuid()}"


def show_sandbox_verdict(spec: BotSpec, report: CheckReport) -> None:
    """Whether the bot works inside the sandbox, and if not, what it tried to reach and, when
    it was played without the sandbox (--try-unsandboxed), whether it works there."""
    if not report.sandboxed:
        console.print("checked without the sandbox", highlight=False)
        return
    assert spec.sandbox is not None
    limits = spec.sandbox.describe()
    if report.ok:
        console.print(f"[green]works inside the sandbox[/green] ({limits})", highlight=False)
        return
    if report.outside_ok is None:
        console.print(
            f"[red]has problems inside the sandbox[/red] ({limits}); whether it works without "
            "it was not tried (--try-unsandboxed plays its first such game again without the "
            "sandbox, where the bot runs as you, unconfined)",
            highlight=False,
        )
    elif report.outside_ok:
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
    elif report.outside_ok is not False and not report.unreadable:
        console.print(
            "its error output names nothing the sandbox hides; see its stderr below. Inside, "
            "it sees only the system, its own folder and the files its command names "
            "(read-only), and may write only to $HOME and /tmp.",
            highlight=False,
        )
