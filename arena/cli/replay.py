"""`arena replay`: recorded games re-played through the rules, verified, shown; `arena export`:
one recorded game as a readable text log (`arena.referee.export`)."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import (
    command,
    console,
    fail,
    say,
    show_record,
)
from arena.cli.inputs import print_line
from arena.cli.views import (
    shown,
)
from arena.games import GameConfigError
from arena.league.report import records_page, size_text, write
from arena.referee.export import export_game
from arena.referee.records import GameRecord, RecordError, read_records
from arena.referee.replay import ReplayError, replay
from arena.referee.text import plain

IDS_SHOWN = 5  # ids listed when the one asked for is not in the file

RecordsFile = Annotated[Path, typer.Argument(help="a JSON-lines file of game records")]
GameId = Annotated[
    str | None,
    typer.Option(
        "--game",
        help="the game with this id (its record's `game`, e.g. r0-t3-d1-s2 in a tournament's "
        "games.jsonl); a whole number that is no game's id is a position, as --line",
    ),
]
Line = Annotated[
    int | None, typer.Option("--line", help="the game at this position in the file (1 = first)")
]


def load_games(file: Path) -> list[GameRecord]:
    """Every game record in `file`; an error in words when there is no such file, it is a
    folder, it cannot be read or it holds no game record (nothing to replay is no success)."""
    if file.is_dir():
        journal = file / "games.jsonl"
        where = f": its games are in {journal}" if journal.is_file() else ""
        raise RecordError(f"{file} is a folder, not a file of game records{where}")
    if not file.exists():
        raise RecordError(f"no such file: {file}")
    try:
        records = list(read_records(file))
        empty = not records and not file.read_bytes().strip()
    except OSError as exc:
        raise RecordError(f"cannot read {file}: {exc.strerror or exc}") from None
    if not records:
        why = "it is empty" if empty else "none of its lines is a game record"
        raise RecordError(
            f"{file} holds no game records ({why}); arena play --record, tournaments and "
            "sprt write them, one JSON line per game"
        )
    return records


def choose(
    file: Path, records: list[GameRecord], game: str | None, line: int | None
) -> list[tuple[int, GameRecord]]:
    """The games asked for, each with its position (1 = first): the one of id `game` (or, for
    a whole number no game has as id, at that position), the one at position `line`, or all."""
    if game is not None and line is not None:
        raise fail("give --game or --line, not both")
    if game is not None:
        found = [(n, r) for n, r in enumerate(records, 1) if r.game == game]
        if found:
            return found[:1]
        if not game.isdigit():
            raise RecordError(missing_id(file, records, game))
        line = int(game)
    if line is not None:
        if not 1 <= line <= len(records):
            raise RecordError(
                f"{file} holds {len(records)} game{'s' if len(records) != 1 else ''}; "
                f"--line takes 1..{len(records)}"
            )
        return [(line, records[line - 1])]
    return list(enumerate(records, 1))


def missing_id(file: Path, records: list[GameRecord], game: str) -> str:
    """No game of id `game` in `file`: say so, with a few ids that exist (the closest first)."""
    ids = list(dict.fromkeys(r.game for r in records if r.game))
    if not ids:
        return (
            f"no game with id {plain(game)!r} in {file}: its games have no ids (tournaments "
            f"and sprt give their games one, arena play does not); choose by position: "
            f"--line 1..{len(records)}"
        )
    close = difflib.get_close_matches(game, ids, n=IDS_SHOWN, cutoff=0.5)
    some = list(dict.fromkeys([*close, *ids]))[:IDS_SHOWN]
    more = f", ... ({len(ids)} in all)" if len(ids) > len(some) else ""
    return f"no game with id {plain(game)!r} in {file}; its ids include: {', '.join(some)}{more}"


@command("replay")
def replay_cmd(
    file: RecordsFile,
    game: GameId = None,
    line: Line = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="only verify, do not show moves")
    ] = False,
    html: Annotated[
        bool,
        typer.Option(
            "--html",
            help="write the replay viewer for these games, one HTML file that opens from disk, "
            "instead of showing them",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="with --html: the file to write (default: FILE.html)"),
    ] = None,
) -> None:
    """Re-play recorded games through the rules engine, verify them, show them step by step."""
    chosen = choose(file, load_games(file), game, line)
    if html:
        replay_page(file, chosen, out)
        return
    if out is not None:
        raise fail("--output is where --html writes the viewer: give --html too")
    bad = 0
    for number, rec in chosen:
        named = f" ({rec.game})" if rec.game else ""
        console.rule(shown(f"game {number}{named}: {rec.ruleset}, seed {rec.seed}"))
        try:
            replay(rec, None if quiet else print_line)
        except (ReplayError, GameConfigError) as exc:
            bad += 1
            say(("does not reproduce:", "red"), f" {exc}")
            continue
        show_record(rec)
        console.print("[green]reproduced exactly[/green]")
    if bad:
        raise typer.Exit(1)


def replay_page(file: Path, chosen: list[tuple[int, GameRecord]], out: Path | None) -> None:
    """`replay --html`: the viewer page of the chosen games, each verified as it is replayed
    (exit 1 if one does not reproduce: it is listed without a replay)."""
    page = records_page(chosen, file.name)
    target = file.with_suffix(".html") if out is None else out
    size = write(page, target)
    broken = [
        (row.number, ref)
        for row in page.games
        if row.replay is not None and isinstance(ref := page.replays.refs[row.replay], str)
    ]
    for number, why in broken:
        say(("does not reproduce:", "red"), f" game {number} of {file}: {why}")
    say(f"wrote {target} ({size_text(size)}): the replay viewer of {len(chosen)} games")
    if broken:
        raise typer.Exit(1)


@command("export")
def export_cmd(
    file: RecordsFile,
    game: GameId = None,
    line: Line = None,
    out: Annotated[
        Path | None, typer.Option("--output", "-o", help="write the log to this file")
    ] = None,
) -> None:
    """Write one recorded game as a readable text log: tags, every move in words, the result."""
    records = load_games(file)
    if game is None and line is None and len(records) > 1:
        ids = [r.game for r in records if r.game][:IDS_SHOWN]
        which = f" (ids such as {', '.join(ids)})" if ids else ""
        raise fail(
            f"{file} holds {len(records)} games: choose one with --game ID{which} or "
            f"--line 1..{len(records)}"
        )
    ((number, record),) = choose(file, records, game, line)
    try:
        text = export_game(record)
    except (ReplayError, GameConfigError) as exc:
        raise fail(
            f"game {number} of {file} does not reproduce, so it cannot be exported: {exc}"
        ) from None
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
    say(f"wrote game {number} of {file} to {out}")
