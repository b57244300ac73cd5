"""`arena report`: a tournament's results folder as one self-contained HTML file (leaderboard,
rating charts, crosstable, faults, every game with its replay; `arena.league.report`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import command, say, warn_damage
from arena.games.text import counted
from arena.league.report import build_report, size_text, write

REPORT_FILE = "report.html"  # where the report goes by default, inside the results folder


@command("report")
def report_cmd(
    folder: Annotated[Path, typer.Argument(help="a tournament's results folder (results/<name>)")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help=f"the HTML file to write (default: FOLDER/{REPORT_FILE})"
        ),
    ] = None,
    replays: Annotated[
        int | None,
        typer.Option(
            "--replays",
            min=0,
            help="embed the replays of at most this many games, the first finished, besides "
            "every game with a fault (default: every game)",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, help="processes replaying games (default: the number of cores)"
        ),
    ] = None,
) -> None:
    """Write a tournament's report: one HTML file that opens from disk with no network, with
    the leaderboard, rating charts, the crosstable, faults and every game's replay."""
    start = time.perf_counter()
    page = build_report(folder, replays=replays, jobs=jobs, on_damage=warn_damage)
    target = folder / REPORT_FILE if out is None else out
    size = write(page, target)
    embedded = sum(1 for ref in page.replays.refs if not isinstance(ref, str))
    broken = len(page.replays.refs) - embedded
    say(
        f"wrote {target} ({size_text(size)}, {time.perf_counter() - start:.1f} s): "
        f"{counted(len(page.games), 'game')}, {counted(embedded, 'replay')}"
        + (
            f", {counted(broken, 'game')} that {'does' if broken == 1 else 'do'} not reproduce "
            "(no replay)"
            if broken
            else ""
        )
    )
