"""`arena games`: the rulesets, with their player counts and options. A module of its own,
importing only the rules and the views' printing, so that it starts quickly."""

from __future__ import annotations

from rich.table import Table

from arena.cli.common import command, console
from arena.games import all_rulesets, describe_options
from arena.games.registry import show_value


@command()
def games() -> None:
    """List the rulesets with their player counts and options."""
    from arena.cli.views import print_views  # light: `games` starts quickly

    # In a terminal the table fits its width, an option folding rather than being cut short;
    # elsewhere (a file, a pipe) it is printed whole, each line as long as it needs.
    table = Table(title="Rulesets")
    table.add_column("id", style="bold", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("options", overflow="fold")
    table.add_column("summary", overflow="fold")
    for rs in all_rulesets():
        opts = "\n".join(
            f"{o.name}={o.allowed} (default {show_value(o.default)})"
            for o in describe_options(rs.options_type)
        )
        table.add_row(rs.id, rs.player_counts, opts or "-", rs.summary)
    print_views(console, [table])
