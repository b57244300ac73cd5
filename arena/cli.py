"""The `arena` command: a thin layer over the library API."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from arena.demo import random_game
from arena.games import GameConfigError, all_rulesets, describe_options, get_ruleset
from arena.games.registry import show_value

app = typer.Typer(
    help="arena: fair games between bot programs, enforced rules and ratings.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()


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
    console.print(line, markup=False, highlight=False)


@app.command()
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


@app.command()
def demo(
    ruleset: Annotated[str, typer.Argument(help="ruleset id, see `arena games`")] = "odin",
    players: Annotated[int, typer.Option("--players", "-n", help="number of seats")] = 3,
    seed: Annotated[int, typer.Option(help="seed for the deal and the players")] = 1,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="ruleset option key=value")
    ] = None,
) -> None:
    """Play one game between random players in process, printed move by move."""
    try:
        get_ruleset(ruleset).check_players(players)
        options = parse_options(option)
        outcome = random_game(ruleset, players, options, seed, _plain)
    except GameConfigError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    table = Table(title=f"{ruleset}, seed {seed}")
    table.add_column("seat")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, (score, rank) in enumerate(zip(outcome.scores, outcome.ranks, strict=True)):
        table.add_row(str(seat), str(score), str(rank))
    console.print(table)


def main() -> None:
    app()
