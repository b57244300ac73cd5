"""`arena sprt`: paired deals between two bots until a sequential test decides, journaled in a
results folder so a stopped test resumes; the exit status tells the verdict."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from arena.cli.common import (
    Terminated,
    command,
    fail,
    note,
    run_trio,
    say,
    warn_damage,
)
from arena.cli.inputs import (
    AllowMixed,
    Cluster,
    Limit,
    MatchWaitTimeout,
    MatchWaitWorkers,
    MoveTime,
    Options,
    SandboxMode,
    Workers,
    load_bots,
    parse_options,
    ready_executor,
    referee_config,
    refuse_waiting,
    with_sandbox,
)
from arena.games import get_ruleset
from arena.games.text import counted
from arena.league.match import MatchState, run_match
from arena.league.match_results import (
    MatchBot,
    MatchResults,
    MatchSpec,
    check_name,
    default_name,
)
from arena.league.sprt import Sprt, Status, elo_estimate

EXIT_CODES: dict[Status, int] = {"H1": 0, "H0": 1, "continue": 4}
"""The exit status of a finished test: 0 H1 accepted, 1 H0 accepted, 4 no decision within
--max-pairs. (2 is a usage or configuration error, 3 the referee out of resources, 130 an
interrupt.)"""


@command()
def sprt(
    bot_a: Annotated[str, typer.Argument(help="the bot under test (folder or command)")],
    bot_b: Annotated[str, typer.Argument(help="the baseline (folder or command)")],
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="a 2-player ruleset")],
    elo0: Annotated[float, typer.Option(help="H0: A is this many Elo stronger")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: A is this many Elo stronger")] = 10.0,
    alpha: Annotated[float, typer.Option(help="false positive rate")] = 0.05,
    beta: Annotated[float, typer.Option(help="false negative rate")] = 0.05,
    max_pairs: Annotated[
        int, typer.Option(min=1, help="stop after this many deal pairs (raise it to play on)")
    ] = 5000,
    seed: Annotated[int, typer.Option(help="seed of the deals")] = 1,
    option: Options = None,
    move_time: MoveTime = 1.0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="games at once")] = 2,
    results: Annotated[
        Path, typer.Option(help="the results root; the test's folder is RESULTS/<name>")
    ] = Path("results"),
    name: Annotated[
        str | None,
        typer.Option(help="the test's folder (default: sprt-<A>-vs-<B>-<ruleset>-s<seed>)"),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="discard what the folder holds and start over")
    ] = False,
    sandbox: SandboxMode = None,
    limit: Limit = None,
    allow_mixed_sandbox: AllowMixed = False,
    workers: Workers = None,
    cluster: Cluster = None,
    wait_workers: MatchWaitWorkers = None,
    wait_timeout: MatchWaitTimeout = None,
) -> None:
    """Play paired deals between two bots until an SPRT accepts H0 or H1 (as fishtest); running
    it again resumes it. Exit status: 0 H1 accepted, 1 H0 accepted, 4 no decision."""
    test = _test(elo0, elo1, alpha, beta)
    if workers is not None and cluster is not None:
        raise fail("give --workers (processes on this machine) or --cluster, not both")
    refuse_waiting(cluster, wait_workers, wait_timeout)
    rs = get_ruleset(ruleset)
    if not rs.min_players <= 2 <= rs.max_players:
        seats = rs.player_counts
        raise fail(f"--ruleset {ruleset}: an SPRT seats two bots, and {ruleset} seats {seats}")
    try:
        options = rs.options(parse_options(option))
    except (ValueError, msgspec.ValidationError) as exc:
        raise fail(str(exc)) from None
    pair = load_bots([bot_a, bot_b], ruleset)
    a, b = with_sandbox(pair, sandbox, limit, allow_mixed=allow_mixed_sandbox)
    spec = MatchSpec(
        MatchBot.of(a), MatchBot.of(b), ruleset, msgspec.to_builtins(options), seed,
        elo0, elo1, alpha, beta, move_time,
    )  # fmt: skip
    path = results / (check_name(name) if name else default_name(a.name, b.name, ruleset, seed))
    lower, upper = test.bounds()
    # The executor first: a cluster out of reach, or without workers in time, leaves nothing
    # written.
    with (
        ready_executor(
            jobs,
            2,
            workers=workers,
            cluster=cluster,
            wait_workers=wait_workers or 1,
            wait_timeout=wait_timeout,
        ) as executor,
        MatchResults.open(path, spec, fresh=fresh, on_damage=warn_damage) as folder,
    ):
        played = folder.games()
        before = MatchState.recount(test, seed, (a.name, b.name), played)
        say(
            f"SPRT {a.name} vs {b.name} on {ruleset}, seed {seed}: H0 elo {elo0:g}, "
            f"H1 elo {elo1:g}, alpha {alpha:g}, beta {beta:g}; bounds [{lower:.3f}, {upper:.3f}]"
        )
        say(f"results in {path}")
        if played:
            say(
                f"resuming: {counted(len(played), 'game')} already played, "
                f"{counted(before.pairs, 'pair')} counted"
                + ("; the test has ended" if before.status != "continue" else "")
            )

        def report(state: MatchState) -> None:
            estimate = elo_estimate(state.counts)
            say(
                f"pairs {state.pairs:5d}  LLR {state.llr:+.3f} [{lower:.2f}, {upper:.2f}]  "
                f"elo {estimate.describe() if estimate else 'n/a'}  pentanomial {state.counts}"
            )

        config = referee_config(move_time, 10.0, 0.0, 0.0)
        # No bot may see the results (they hold the deals' seeds).
        config = msgspec.structs.replace(config, private=(str(results.resolve()),))
        resume = "run the same command again to resume"

        async def play() -> MatchState:
            return await run_match(
                a, b, ruleset, test, options=options, seed=seed, config=config,
                max_pairs=max_pairs, jobs=jobs, played=played, on_game=folder.append,
                on_pair=report, on_note=note, executor=executor,
            )  # fmt: skip

        try:
            state = run_trio(
                play, saved=lambda: f"{_saved(len(folder.games()))}; {resume}", sigterm=True
            )
        except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (`Terminated`)
            state = MatchState.recount(test, seed, (a.name, b.name), folder.games())
            summary(state, a.name, b.name, test)
            say(
                ("interrupted", "yellow"),
                f": {_saved(len(state.played))} in {path}; {resume}",
            )
            raise typer.Exit(143 if isinstance(stop, Terminated) else 130) from None
    summary(state, a.name, b.name, test)
    say((verdict(state, a.name, b.name, test, max_pairs), "bold"))
    if EXIT_CODES[state.status]:
        raise typer.Exit(EXIT_CODES[state.status])


def _test(elo0: float, elo1: float, alpha: float, beta: float) -> Sprt:
    """The test of --elo0, --elo1, --alpha and --beta, each refused by its name when it
    cannot work."""
    if not elo0 < elo1:
        raise fail(f"--elo0 must be below --elo1, not {elo0:g} and {elo1:g}")
    for flag, rate in (("--alpha", alpha), ("--beta", beta)):
        if not 0.0 < rate < 1.0:
            raise fail(f"{flag}: {rate:g} is not a rate between 0 and 1 (both excluded)")
    if alpha + beta >= 1.0:
        raise fail(f"--alpha plus --beta must be below 1, not {alpha:g} + {beta:g}")
    return Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)


def summary(state: MatchState, a: str, b: str, test: Sprt) -> None:
    """The test so far: A's wins, draws and losses, the pentanomial, Elo, LLR and bounds."""
    wins, draws, losses = state.wdl
    games = wins + draws + losses
    score = f", score {(wins + draws / 2) / games:.1%}" if games else ""
    estimate = elo_estimate(state.counts)
    if estimate is None:
        elo = "n/a (no pair yet)"
    elif math.isinf(estimate.elo):  # the data bound it on one side only
        elo = f"{estimate.describe()} (95%; every pair scored {2 if estimate.elo > 0 else 0})"
    else:
        elo = f"{estimate.describe()} (95%: {estimate.low:+.1f} to {estimate.high:+.1f})"
    lower, upper = test.bounds()
    say(f"{a} vs {b}: {counted(state.pairs, 'pair')}")
    say(f"  games   {a}: W {wins}  D {draws}  L {losses}  ({counted(games, 'game')}{score})")
    say(f"  pairs   pentanomial {state.counts}  ({a}'s points per pair: 0, 0.5, 1, 1.5, 2)")
    say(f"  Elo     {elo}")
    say(f"  LLR     {state.llr:+.3f}  (bounds {lower:+.3f}, {upper:+.3f})")
    if state.uncounted:
        say(
            f"  not counted: {_games(state.uncounted)} (half a pair, a pair after the "
            "verdict, or a pair with a referee error)"
        )


def verdict(state: MatchState, a: str, b: str, test: Sprt, max_pairs: int) -> str:
    """The test's outcome in words."""
    if state.status == "H1":
        return f"H1 accepted: {a} is stronger than {b} by about {test.elo1:g} Elo or more"
    if state.status == "H0":
        return f"H0 accepted: {a} is not stronger than {b} by {test.elo1:g} Elo"
    return (
        f"no decision after {counted(state.pairs, 'pair')} (--max-pairs {max_pairs}); "
        "a larger --max-pairs plays on"
    )


def _games(n: int) -> str:
    """ "1 finished game", "3 finished games"."""
    return counted(n, "finished game")


def _saved(n: int) -> str:
    """ "1 finished game is saved", "3 finished games are saved"."""
    return f"{_games(n)} {'is' if n == 1 else 'are'} saved"
