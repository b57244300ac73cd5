"""`arena replay`: recorded games re-played through the rules, verified, shown; `arena export`:
recorded games as one readable text log (`arena.referee.export`), as PGN is for chess.

Both read a file of game records or a tournament's results folder (its journal, as the
leaderboard reads it: each game once, a damaged line left out with a warning), as a stream:
one whole record in memory at a time, however many games the journal holds."""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from arena.cli.common import (
    command,
    console,
    fail,
    say,
    show_record,
    warn_damage,
)
from arena.cli.inputs import print_line
from arena.cli.views import (
    shown,
)
from arena.games import GameConfigError
from arena.games.text import counted
from arena.league.report import records_page, size_text, write
from arena.league.results import GAMES_FILE, ResultsDir
from arena.referee.export import export_game
from arena.referee.records import (
    GameRecord,
    GameSummary,
    Line,
    RecordError,
    decode_record,
    read_summaries,
    storage_error,
)
from arena.referee.replay import ReplayError, replay
from arena.referee.text import plain

IDS_SHOWN = 5  # ids listed when the one asked for is not in the file
FAILED_SHOWN = 10  # games that do not reproduce named in the closing line of a replay

RecordsPath = Annotated[
    Path,
    typer.Argument(
        help="a JSON-lines file of game records, or a tournament's results folder "
        "(results/<name>: its games.jsonl)"
    ),
]
GameId = Annotated[
    str | None,
    typer.Option(
        "--game",
        help="the game with this id (its record's `game`, e.g. r0-t3-d1-s2 in a tournament's "
        "games.jsonl); a whole number that is no game's id is a position, as --line",
    ),
]
Position = Annotated[
    int | None, typer.Option("--line", help="the game at this position (1 = first)")
]


def journal(path: Path) -> Iterator[tuple[int, Line[GameSummary]]]:
    """Every game record at `path`, each with its position (1 = first), as a summary with its
    line's bytes (`whole` decodes the record), read as a stream: a file of game records (a
    torn last line skipped, any other bad line an error), or a results folder's journal.
    An error in words when there is no such file or folder, it cannot be read, or it holds
    no game record (nothing to replay is no success), the last once all is read."""
    if path.is_dir():
        folder = ResultsDir.existing(path, on_damage=lambda damage: warn_damage(damage, err=True))
        lines = folder.games()
        file = folder.games_file
    elif path.exists():
        lines, file = read_summaries(path), path
    else:
        raise RecordError(f"no such file or folder: {path}")
    number = 0
    try:
        for number, line in enumerate(lines, 1):
            yield number, line
    except OSError as exc:
        raise storage_error("read", file, exc) from None
    if number == 0:
        raise _no_games(path, file)


def _no_games(path: Path, file: Path) -> RecordError:
    """Why `path` (its records file: `file`) gave no game record, in words."""
    try:
        empty = not file.exists() or not file.read_bytes().strip()
    except OSError as exc:
        raise storage_error("read", file, exc) from None
    if path.is_dir():
        why = f"its {GAMES_FILE} is empty" if file.exists() else f"it has no {GAMES_FILE} yet"
        if not empty:
            why = f"none of the lines of its {GAMES_FILE} is a game record"
    else:
        why = "it is empty" if empty else "none of its lines is a game record"
    return RecordError(
        f"{path} holds no game records ({why}); arena play --record, tournaments and "
        "sprt write them, one JSON line per game"
    )


def whole(path: Path, line: Line[GameSummary]) -> GameRecord:
    """The whole record of a journal's line (its moves and stderr), or an error in words."""
    try:
        return decode_record(line.data)
    except msgspec.DecodeError as exc:  # its moves are no moves
        where = path / GAMES_FILE if path.is_dir() else path
        raise RecordError(f"{where}:{line.number}: not a game record: {exc}") from None


def choose(path: Path, game: str | None, line: int | None) -> Iterator[tuple[int, GameRecord]]:
    """The games asked for, each with its position (1 = first), one record at a time: the
    one of id `game` (or, for a whole number no game has as id, the one at that position),
    the one at position `line`, or all of them."""
    if game is not None and line is not None:
        raise fail("give --game or --line, not both")
    if game is None and line is None:
        for number, found in journal(path):
            yield number, whole(path, found)
        return
    yield pick(path, game, line)


def pick(path: Path, game: str | None, line: int | None) -> tuple[int, GameRecord]:
    """The one game of id `game` (a whole number no game has as id: a position), or at
    position `line`, read up to it; an error in words naming the ids or positions there are."""
    position = int(game) if game is not None and game.isdigit() else line
    at_position: tuple[int, Line[GameSummary]] | None = None
    ids: dict[str, None] = {}  # the ids seen, for the error (an id, not a record, a game)
    total = 0
    for total, found in journal(path):
        if game is not None:
            if found.value.game == game:
                return total, whole(path, found)
            if found.value.game:
                ids[found.value.game] = None
            if total == position and at_position is None:
                at_position = total, found  # used once no game has `game` as its id
        elif total == position:
            return total, whole(path, found)
    if game is not None and not game.isdigit():
        raise RecordError(missing_id(path, list(ids), total, game))
    if at_position is not None:
        return at_position[0], whole(path, at_position[1])
    raise RecordError(f"{path} holds {counted(total, 'game')}; --line takes 1..{total}")


def missing_id(path: Path, ids: list[str], total: int, game: str) -> str:
    """No game of id `game` in `path`, whose games have `ids` (`total` games): say so, with a
    few ids that exist (the closest first)."""
    if not ids:
        return (
            f"no game with id {plain(game)!r} in {path}: its games have no ids (tournaments "
            f"and sprt give their games one, arena play does not); choose by position: "
            f"--line 1..{total}"
        )
    close = difflib.get_close_matches(game, ids, n=IDS_SHOWN, cutoff=0.5)
    some = list(dict.fromkeys([*close, *ids]))[:IDS_SHOWN]
    more = f", ... ({len(ids)} in all)" if len(ids) > len(some) else ""
    return f"no game with id {plain(game)!r} in {path}; its ids include: {', '.join(some)}{more}"


def _named(number: int, record: GameRecord) -> str:
    """A game as people find it again: "game 12 (r0-t3-d1-s0)", its position and its id."""
    return f"game {number}" + (f" ({record.game})" if record.game else "")


@command("replay")
def replay_cmd(
    path: RecordsPath,
    game: GameId = None,
    line: Position = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="only verify: nothing per game unless it does not reproduce, then one line",
        ),
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
    if html:
        replay_page(path, list(choose(path, game, line)), out)
        return
    if out is not None:
        raise fail("--output is where --html writes the viewer: give --html too")
    total = 0
    failed: list[str] = []  # the first games that do not reproduce, to name at the end
    bad = 0
    last = ""
    for number, rec in choose(path, game, line):
        total += 1
        last = _named(number, rec)
        if not quiet:
            console.rule(shown(f"{last}: {rec.ruleset}, seed {rec.seed}"))
        try:
            replay(rec, None if quiet else print_line)
        except (ReplayError, GameConfigError) as exc:
            bad += 1
            if len(failed) < FAILED_SHOWN:
                failed.append(last)
            say(("does not reproduce:", "red"), f" {last}: {exc}")
            continue
        if not quiet:
            show_record(rec)
            console.print("[green]reproduced exactly[/green]")
    if total > 1:
        say(reproduced(total, bad, failed))
    elif quiet and not bad:
        say(f"{last}: reproduced exactly")
    if bad:
        raise typer.Exit(1)


def reproduced(total: int, bad: int, failed: list[str]) -> str:
    """The closing line of a replay: "60 of 60 games reproduce exactly", or how many do not
    and the first of them ("...; 2 do not: game 3 (r0-t1-d0-s0), game 7")."""
    good = total - bad
    said = f"{good} of {counted(total, 'game')} reproduce{'s' if good == 1 else ''} exactly"
    if not bad:
        return said
    more = f", ... ({bad} in all)" if bad > len(failed) else ""
    return f"{said}; {bad} do{'es' if bad == 1 else ''} not: {', '.join(failed)}{more}"


def replay_page(path: Path, chosen: list[tuple[int, GameRecord]], out: Path | None) -> None:
    """`replay --html`: the viewer page of the chosen games, each verified as it is replayed
    (exit 1 if one does not reproduce: it is listed without a replay)."""
    page = records_page(chosen, path.name)
    default = (path / GAMES_FILE if path.is_dir() else path).with_suffix(".html")
    target = default if out is None else out
    size = write(page, target)
    broken = [
        (row.number, ref)
        for row in page.games
        if row.replay is not None and isinstance(ref := page.replays.refs[row.replay], str)
    ]
    for number, why in broken:
        say(("does not reproduce:", "red"), f" game {number} of {path}: {why}")
    viewed = counted(len(chosen), "game")
    say(f"wrote {target} ({size_text(size)}): the replay viewer of {viewed}")
    if broken:
        raise typer.Exit(1)


@command("export")
def export_cmd(
    path: RecordsPath,
    game: GameId = None,
    line: Position = None,
    out: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="write the log to this file (default: print it)"),
    ] = None,
) -> None:
    """Write recorded games as one readable text log, as PGN is for chess: for each game its
    tags, every move in words, the result; every game of the file or folder, or the one
    chosen with --game or --line."""
    if game is None and line is None:
        export_all(path, out)
        return
    ((number, record),) = choose(path, game, line)
    try:
        text = export_game(record)
    except (ReplayError, GameConfigError) as exc:
        raise fail(
            f"game {number} of {path} does not reproduce, so it cannot be exported: {exc}"
        ) from None
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
    say(f"wrote game {number} of {path} to {out}")


def export_all(path: Path, out: Path | None) -> None:
    """`export` of every game at `path`, in the order of the file (a folder's: the order its
    games finished), each log after a blank line, read, replayed and written one game at a
    time. A game that does not reproduce is left out with a warning (exit 1). To OUT (whole
    or not at all), saying how many games it got; else to standard output, what is said then
    on standard error, so that the log alone goes down a pipe."""
    games = choose(path, None, None)
    if out is None:
        written, left_out = write_logs(path, games, lambda text: typer.echo(text, nl=False))
        _aside(f"exported {counted(written, 'game')} of {path}")
    else:
        new = out.with_name(f".{out.name}.new")
        try:
            with open(new, "w", encoding="utf-8") as fh:
                written, left_out = write_logs(path, games, fh.write)
            new.replace(out)
        except OSError as exc:
            raise fail(f"cannot write {out}: {exc.strerror or exc}") from None
        finally:
            with contextlib.suppress(OSError):
                new.unlink()  # left by an error: the export is whole or not at all
        say(f"wrote {counted(written, 'game')} of {path} to {out}")
    if left_out:
        they = "it does" if left_out == 1 else "they do"
        _aside(f"warning: {counted(left_out, 'game')} left out: {they} not reproduce")
        raise typer.Exit(1)


def _aside(text: str) -> None:
    """A line for people on standard error (as plain text), beside output for programs."""
    typer.echo(plain(text), err=True)


def write_logs(
    path: Path, games: Iterable[tuple[int, GameRecord]], emit: Callable[[str], object]
) -> tuple[int, int]:
    """Write the log of each of `games` with `emit` as it comes, a blank line between two;
    warn of each game that does not reproduce, and leave it out. The games written and left
    out."""
    written = left_out = 0
    for number, record in games:
        try:
            text = export_game(record)
        except (ReplayError, GameConfigError) as exc:
            left_out += 1
            _aside(
                f"warning: {_named(number, record)} of {path} does not reproduce, left out: {exc}"
            )
            continue
        emit(("\n" if written else "") + text)
        written += 1
    return written, left_out
