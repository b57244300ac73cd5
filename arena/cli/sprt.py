"""`arena sprt`: paired deals between two bots until a sequential test decides."""

from __future__ import annotations

from typing import Annotated

import msgspec
import typer

from arena.cli.common import (
    command,
    fail,
    note,
    run_trio,
    say,
)
from arena.cli.inputs import (
    AllowMixed,
    Limit,
    MoveTime,
    Options,
    SandboxMode,
    load_bots,
    parse_options,
    referee_config,
    with_sandbox,
)
from arena.games import get_ruleset
from arena.league.match import MatchState, run_match
from arena.league.sprt import Sprt, elo_estimate


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
