"""`arena demo` and `arena play`: one game shown move by move (`arena games` is in `rulesets`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from rich.table import Table

from arena.cli.common import (
    command,
    console,
    fault_place,
    run_trio,
    say,
    show_record,
)
from arena.cli.inputs import (
    AllowMixed,
    Bank,
    Increment,
    Limit,
    MoveTime,
    Options,
    SandboxMode,
    StartupTime,
    load_bots,
    parse_options,
    print_line,
    referee_config,
    with_sandbox,
)
from arena.cli.tracing import TraceFile, TraceOption, check_writable, opened_trace
from arena.games import GameState, get_ruleset
from arena.games.base import Audience
from arena.games.random_play import random_game
from arena.games.text import progress_lines
from arena.referee.faults import hint
from arena.referee.game import play_game
from arena.referee.records import Fault, GameRecord, append_record


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
    outcome = random_game(ruleset, players, options, seed, print_line)
    table = Table(title=f"{ruleset}, seed {seed}")
    table.add_column("seat")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True)):
        table.add_row(str(seat), str(score), str(rank))
    console.print(table)


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
    trace: TraceOption = False,
    trace_file: TraceFile = None,
) -> None:
    """Play one game between bots and show it move by move."""
    if record is not None:  # before any bot is built or started: the game is not lost
        check_writable(record, "--record", append=True)
    specs = load_bots(bots, ruleset)
    specs = with_sandbox(specs, sandbox, limit, allow_mixed=allow_mixed_sandbox)
    config = referee_config(move_time, startup_time, bank, increment)
    if record is not None:  # no bot may read earlier records
        config = msgspec.structs.replace(config, private=(str(record.resolve()),))

    out: dict[int, str] = {}  # faulted seats, and their bots' names

    def charged(fault: Fault) -> None:
        out[fault.seat] = fault.bot
        if not quiet:
            say(
                (f"{fault.kind} {fault_place(fault)}:", "red"),
                f" {fault.sentence()}; a random fallback plays seat {fault.seat} from here",
            )

    def observe(state: GameState[Any, Any], events: list[tuple[Audience, msgspec.Struct]]) -> None:
        if quiet:
            return
        lines = progress_lines(state, events)
        seat = state.history[-1][0] if state.history else None
        if lines and seat in out:  # this move was the fallback's, not the bot's
            lines[0] = f"{lines[0]}   [fallback for {out[seat]}]"
        for line in lines:
            print_line(line)

    rs = get_ruleset(ruleset)
    options = rs.options(parse_options(option))
    rs.check_players(len(specs))
    with opened_trace(trace, trace_file) as tracing:
        result = run_trio(
            lambda: play_game(
                ruleset,
                specs,
                options=options,
                seed=seed,
                config=config,
                observer=observe,
                on_fault=charged,
                trace=tracing,
            )
        )
    if record is not None:  # first: nothing shown may cost the record
        append_record(record, result)
    show_record(result, stderr=True)
    if not quiet:
        show_hints(result)
    if record is not None:
        say(f"record appended to {record}")
    if trace_file is not None:
        say(f"trace written to {trace_file}")


def show_hints(record: GameRecord) -> None:
    """A hint for each faulted bot's author, fitted to the fault's cause."""
    for f in record.faults:
        say(
            f"hint for {f.bot} (seat {f.seat}, {f.kind}): ",
            hint(f.kind, f.reason, record.stderr[f.seat]),
        )
