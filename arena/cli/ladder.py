"""`arena ladder`: make a ladder's folder (`init`) and its authors (`author`).

A ladder is a folder (arena.ladder.store): `ladder.toml`, the store of authors, bots and
versions (`ladder.db`), and the journal of finished games (`games.jsonl`), which `arena
leaderboard DIR` and the other commands of results folders read. Tokens are shown once, each
alone on the last line of the command's output, so a script can capture it (`| tail -n 1`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli.app import Group
from arena.cli.common import command, registry, say
from arena.cli.inputs import (
    Cluster,
    MatchWaitTimeout,
    MatchWaitWorkers,
    Options,
    Workers,
    parse_options,
    ready_executor,
    refuse_waiting,
)
from arena.games.errors import ArenaError

HELP = (
    "Run a ladder: bots submitted at any time by their authors, validated, played "
    "continuously and rated live."
)

ladder_app = typer.Typer(cls=Group, help=HELP, no_args_is_help=True)
registry.add_typer(ladder_app, name="ladder")


class LadderOptionsError(ArenaError, ValueError):
    """A flag of `arena ladder init` that cannot be used; the message names it."""


def parse_seats(texts: list[str], ruleset: str) -> int | dict[str, float]:
    """The `seats` of ladder.toml from `--seats` flags: one count (`--seats 2`), or several
    with weights (`--seats 2=3 --seats 4`: a count without a weight weighs 1); none given,
    the ruleset's smallest table of at least 2 seats. Each count is checked against the
    ruleset."""
    from arena.games import GameConfigError, get_ruleset

    rs = get_ruleset(ruleset)
    if not texts:
        return max(rs.min_players, min(2, rs.max_players))
    weights: dict[str, float] = {}
    for text in texts:
        count_text, sep, weight_text = text.partition("=")
        try:
            count = int(count_text.strip())
        except ValueError:
            raise LadderOptionsError(
                f"--seats: {text!r} is not a seat count (N, or N=WEIGHT: --seats 2=3)"
            ) from None
        try:
            weight = float(weight_text) if sep else 1.0
        except ValueError:
            weight = float("nan")
        if not weight > 0 or weight == float("inf"):
            raise LadderOptionsError(
                f"--seats: the weight of {count} seats must be a number more than 0, not "
                f"{weight_text!r}"
            )
        try:
            rs.check_players(count)
        except GameConfigError as exc:
            raise LadderOptionsError(f"--seats: {exc}") from None
        if str(count) in weights:
            raise LadderOptionsError(f"--seats: {count} seats are given twice")
        weights[str(count)] = int(weight) if weight.is_integer() else weight
    if len(weights) == 1:
        return int(next(iter(weights)))
    return weights


def _typed_options(ruleset: str, pairs: list[str] | None) -> dict[str, Any]:
    """`-o key=value` pairs typed by the ruleset (the string kept where TOML has no value:
    none), as ladder.toml's [options] holds them."""
    import msgspec

    from arena.games import get_ruleset

    options = parse_options(pairs)
    if not options:
        return {}
    typed = msgspec.to_builtins(get_ruleset(ruleset).options(options))
    return {k: options[k] if typed[k] is None else typed[k] for k in options}


@command("init", on=ladder_app)
def init(
    folder: Annotated[Path, typer.Argument(help="the ladder's folder (made if need be)")],
    ruleset: Annotated[
        str, typer.Option("--ruleset", "-r", help="the game every table plays (arena games)")
    ],
    seats: Annotated[
        list[str] | None,
        typer.Option(
            "--seats",
            metavar="N[=WEIGHT]",
            help="seats per table; repeat it for several counts, each with its weight "
            "(--seats 2=3 --seats 4=1; default: 2, or the ruleset's count)",
        ),
    ] = None,
    option: Options = None,
) -> None:
    """Make a ladder in a folder; print its admin token once, alone on the last line."""
    from arena.games import get_ruleset
    from arena.ladder.config import LADDER_FILE, ladder_from
    from arena.ladder.store import DB_FILE, GAMES_FILE, init_ladder, refuse_existing

    refuse_existing(folder)
    get_ruleset(ruleset)  # an unknown ruleset, in words, before anything else
    raw: dict[str, Any] = {"ruleset": ruleset, "seats": parse_seats(seats or [], ruleset)}
    if options := _typed_options(ruleset, option):
        raw["options"] = options
    config = ladder_from(raw, folder / LADDER_FILE)
    heading = f"A ladder of {ruleset}, made by arena ladder init."
    token = init_ladder(folder, config, heading=heading)
    tables = config.seat_weights()
    shown = " or ".join(str(n) for n in tables)
    say(f"made the ladder {folder} ({ruleset}, tables of {shown} seats):")
    say(f"  {folder / LADDER_FILE}  its settings, every key explained (edit, then restart)")
    say(f"  {folder / DB_FILE}  authors, bots, versions and the index of games (SQLite)")
    say(f"  {folder / GAMES_FILE}  the journal of finished games (arena leaderboard {folder})")
    say(f"next: arena ladder author {folder} NAME makes an author and prints their token")
    say("the admin token (shown only now: keep it safe, it can retire any bot):")
    typer.echo(token)


@command("author", on=ladder_app)
def author(
    folder: Annotated[Path, typer.Argument(help="the ladder's folder")],
    name: Annotated[str, typer.Argument(help="the author's name")],
    revoke: Annotated[
        bool, typer.Option("--revoke", help="refuse this author's token from now on")
    ] = False,
) -> None:
    """Make an author; print their token once, alone on the last line (--revoke: refuse it)."""
    from arena.ladder.store import LadderStore

    with LadderStore.open(folder, writer=False) as store:
        if revoke:
            store.revoke_author(name)
            say(
                f"revoked the author {name} of {folder}: their token no longer works; their "
                "bots and games stay"
            )
            return
        made, token = store.create_author(name)
    say(
        f"made the author {made.name} of {folder}; their token (shown only now: give it to "
        "them, for arena submit --token or $ARENA_TOKEN):"
    )
    typer.echo(token)


#: The variables that size numpy's BLAS thread pool (OpenBLAS, MKL, OpenMP builds).
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


@command("serve", on=ladder_app)
def serve_cmd(
    folder: Annotated[Path, typer.Argument(help="the ladder's folder")],
    host: Annotated[str, typer.Option("--host", help="the address to listen at")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="the port to listen at (0: any free)")] = 8790,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="games at once (default: ladder.toml's jobs)"),
    ] = None,
    unsandboxed: Annotated[
        bool,
        typer.Option(
            "--unsandboxed",
            help="run submitted bots without the sandbox: for a trusted local ladder only",
        ),
    ] = False,
    workers: Workers = None,
    cluster: Cluster = None,
    wait_workers: MatchWaitWorkers = None,
    wait_timeout: MatchWaitTimeout = None,
) -> None:
    """Serve the ladder: its HTTP API, the validation of submitted versions and games without
    end, until Ctrl-C or SIGTERM. Games play in this process, in --workers processes, or on
    the Dask cluster at --cluster; validation plays here."""
    import os
    import sys

    # The live table's refit is small linear algebra, slowed rather than sped by a pool of
    # BLAS threads, which take cores from the games: one thread, unless the organiser says.
    if "numpy" not in sys.modules:
        for name in BLAS_THREADS:
            os.environ.setdefault(name, "1")
    import trio

    from arena.cli.common import fail, note
    from arena.ladder.server import LadderServer
    from arena.ladder.store import LadderStore
    from arena.ladder.validation import SANDBOX
    from arena.league.config import jobs_or_cores
    from arena.referee.sandbox import sandbox_problem

    if workers is not None and cluster is not None:
        raise fail("give --workers (processes on this machine) or --cluster, not both")
    refuse_waiting(cluster, wait_workers, wait_timeout)
    problem = sandbox_problem()
    if problem is not None and not unsandboxed:
        raise fail(
            f"a ladder runs submitted bots in the sandbox, and it cannot run here: {problem}; "
            "for a trusted local ladder only, --unsandboxed runs them without it"
        )
    if unsandboxed:
        note("submitted bots run without the sandbox, as you, unconfined: trust every author")
    with LadderStore.open(folder) as store:
        config = store.config
        at_once = jobs or jobs_or_cores(config.jobs)
        seats = max(config.seat_weights())
        with ready_executor(
            at_once,
            seats,
            workers=workers,
            cluster=cluster,
            wait_workers=wait_workers or 1,
            wait_timeout=wait_timeout,
        ) as executor:
            server = LadderServer(
                store, executor, sandbox=None if unsandboxed else SANDBOX, on_note=note
            )

            async def main() -> None:
                async with trio.open_nursery() as nursery:
                    address = await nursery.start(server.run, host, port)
                    say(
                        f"serving the ladder {folder} at {address} (games: "
                        f"{executor.describe()}; Ctrl-C stops)"
                    )

            trio.run(main)
    say("stopped; the games in flight are played again at the next start")
