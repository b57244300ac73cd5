"""rich views of tournaments: the leaderboard (also as CSV and JSON) and the tables beside it
(fault warnings, Swiss standings, deal pairs, crosstable, head to head), a line per finished
game for logs, and live progress."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import msgspec
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from arena.games.text import counted
from arena.referee.faults import FAULT_KINDS
from arena.referee.text import plain

if TYPE_CHECKING:  # the views need none of them to run: `arena games` stays light
    from arena.league.leaderboard import Leaderboard, Row, Standings
    from arena.league.tournament import Progress as TournamentProgress
    from arena.referee.records import GameRecord

CROSSTABLE_BOTS = 10
"""The crosstable is shown by default for a field of at most this many bots."""

PENTANOMIAL = ("LL", "LD", "DD/WL", "WD", "WW")
"""A bot's deal pairs by its points over the two games: 0, 1/2, 1, 3/2, 2 (as fastchess)."""

_UNLIMITED = 100_000  # a width no table reaches: measuring at it gives the natural width


def shown(text: str, style: str = "", *, lines: bool = False) -> Text:
    """`text` as Rich shows it literally (markup such as `[/]` is not parsed), made `plain`."""
    return Text(plain(text, lines=lines), style=style)


def natural_width(renderable: RenderableType) -> int:
    """The width `renderable` takes when nothing narrows it (no column wrapped or dropped)."""
    return Console(file=io.StringIO(), width=_UNLIMITED).measure(renderable).maximum


def print_views(console: Console, items: Iterable[RenderableType]) -> None:
    """Print `items`: in a terminal at its width (build them to fit: `standings_views`);
    elsewhere (a log, a pipe) each at its natural width, however narrow the console says it
    is, so that no name and no column is cut or wrapped in a file."""
    items = list(items)
    if console.is_terminal:
        for item in items:
            console.print(item)
        return
    # At a width no item reaches, each takes its natural width (tables do not expand, texts
    # do not wrap), without measuring every cell once more first: a thousand bots' tables.
    wide = Console(file=console.file, width=_UNLIMITED, color_system=None, highlight=False)
    for item in items:
        wide.print(item)


def _faults(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {counts[kind]}" for kind in FAULT_KINDS if counts.get(kind)) or "-"


def _number(value: float) -> str:
    """A point total: "3", "2.5", "2.33" (thirds and sixths of k-seat games), no trailing 0s."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class _Column:
    """A table column: its cells, and how soon it goes when the table is too wide (0: never;
    the highest goes first)."""

    header: str
    cells: list[str | Text]
    justify: Literal["left", "right"] = "right"
    drop: int = 0


def _table(
    title: str | Text,
    columns: list[_Column],
    caption: str | None = None,
    width: int | None = None,
) -> Table:
    """A table of `columns`, less the droppable ones (highest `drop` first) it takes to fit
    `width` (None: every column), which its caption then names. Cells fold rather than being
    cut short: if what is left is still too wide, a long name takes two lines; numbers (the
    right-aligned columns) never wrap."""

    def build(kept: list[_Column], notes: list[str]) -> Table:
        table = Table(title=title, caption="\n".join(notes) or None)
        for c in kept:
            table.add_column(
                c.header, justify=c.justify, overflow="fold", no_wrap=c.justify == "right"
            )
        for cells in zip(*(c.cells for c in kept), strict=True):
            table.add_row(*cells)
        return table

    notes = [caption] if caption else []
    kept = list(columns)
    table = build(kept, notes)
    left_out: list[str] = []
    while width is not None and natural_width(table) > width:
        droppable = [c for c in kept if c.drop]
        if not droppable:
            break
        worst = max(droppable, key=lambda c: c.drop)
        kept.remove(worst)
        left_out.append(worst.header)
        table = build(kept, [*notes, f"left out to fit the terminal: {', '.join(left_out)}"])
    return table


def leaderboard_table(
    board: Leaderboard,
    title: str = "Leaderboard",
    top: int | None = None,
    width: int | None = None,
) -> Table:
    """Rank, bot, Elo ± 95% error, games, wins-draws-losses (2 seats), score %, mean place,
    LOS over the next, faults. Given a `width` (a terminal's), the least useful columns are
    left out until the table fits (LOS, place, games, W-D-L, error, score, in that order),
    and the caption says which; names are never cut. Bot names and the title are shown as
    plain text (`shown`)."""
    rows = board.rows[:top]
    columns = [
        _Column("#", [str(r.rank) for r in rows]),
        _Column("bot", [shown(r.bot) for r in rows], "left"),
        _Column("Elo", [f"{round(r.elo):{'' if board.anchors else '+'}d}" for r in rows]),
        _Column("± 95%", [f"{r.error:.0f}" for r in rows], drop=2),
        _Column("games", [str(r.games) for r in rows], drop=4),
    ]
    if board.solo:  # win rate and margin against the dummy instead of places at a table
        columns += [
            _Column("win rate", [_percent(r.win_rate) for r in rows], drop=1),
            _Column("margin ± 95%", [_margin(r) for r in rows], drop=5),
        ]
    else:
        if any(r.wins is not None for r in rows):
            columns.append(_Column("W-D-L", [_wdl(r) for r in rows], drop=3))
        columns += [
            _Column("score", [_percent(r.score if r.games else None) for r in rows], drop=1),
            _Column("place", [_place(r.mean_place) for r in rows], drop=5),
        ]
    columns += [
        _Column("LOS next", [_percent(r.los_next, 0, "") for r in rows], drop=6),
        _Column("faults", [_faults(r.faults) for r in rows], "left"),
    ]
    caption = None
    if board.unrated:
        caption = (
            f"{counted(board.unrated, 'more game')} ended by a referee error, without a result: "
            "not rated"
        )
    return _table(shown(title), columns, caption, width)


def _percent(value: float | None, digits: int = 1, missing: str = "-") -> str:
    return missing if value is None else f"{100 * value:.{digits}f}%"


def _place(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _margin(row: Row) -> str:
    if row.margin is None or row.margin_error is None:
        return "-"
    return f"{row.margin:+.1f} ± {row.margin_error:.1f}"


def _wdl(row: Row) -> str:
    return f"{row.wins}-{row.draws}-{row.losses}" if row.wins is not None else "-"


def fault_warnings(board: Leaderboard) -> list[Text]:
    """A warning line for each bot that faulted in most of its games (names as plain text)."""
    return [
        Text.assemble(
            ("warning:", "yellow"),
            " ",
            plain(
                f"{row.bot} faulted in {row.faulted_games} of its {counted(row.games, 'game')} "
                f"({_faults(row.faults)}): its rating measures its faults, not its play"
            ),
        )
        for row in board.mostly_faulted()
    ]


def swiss_table(board: Leaderboard, width: int | None = None) -> Table | None:
    """The Swiss standings, in their own order: points, then Buchholz, then Sonneborn-Berger
    (None for other formats); games, then byes, left out if `width` needs it."""
    if board.swiss is None:
        return None
    rows = board.swiss
    columns = [
        _Column("place", [str(r.place) for r in rows]),
        _Column("bot", [shown(r.bot) for r in rows], "left"),
        _Column("points", [_number(r.points) for r in rows]),
        _Column("games", [str(r.games) for r in rows], drop=2),
        _Column("byes", [str(r.byes) for r in rows], drop=1),
        _Column("Buchholz", [_number(r.buchholz) for r in rows]),
        _Column("S-B", [_number(r.sonneborn_berger) for r in rows]),
    ]
    return _table(
        "Swiss standings",
        columns,
        "byes count as wins; equal points: Buchholz, then S-B",
        width,
    )


def deal_pairs_table(board: Leaderboard, width: int | None = None) -> Table | None:
    """2 seats: each bot's deal pairs (a deal played in both seatings) by its points over the
    two games, LL to WW (None when no deal was played in both seatings); their number left
    out if `width` needs it."""
    rows = [r for r in board.rows if r.pentanomial is not None]
    if not any(sum(r.pentanomial or ()) for r in rows):
        return None
    columns = [
        _Column("bot", [shown(r.bot) for r in rows], "left"),
        _Column("pairs", [str(sum(r.pentanomial or ())) for r in rows], drop=1),
        *(
            _Column(name, [str((r.pentanomial or [0] * 5)[i]) for r in rows])
            for i, name in enumerate(PENTANOMIAL)
        ),
    ]
    return _table("Deal pairs (each deal in both seatings)", columns, width=width)


def crosstable(board: Leaderboard) -> Table:
    """Each bot's points against each other bot, row against column, out of the games they
    shared ("4.5/6"), in the leaderboard's order; the columns are numbered by rank so that
    the table stays narrow; bots without games (last on the board) are left out. Names as
    plain text. The whole table, however wide: `crosstable_views` fits it to a terminal."""
    return crosstable_views(board)[0]


@dataclass(frozen=True)
class _Shape:
    """How the crosstable is laid out: with its rows' names or not, each cell with its
    number of games or not (when every pair played as many)."""

    names: bool
    games: bool


def crosstable_views(board: Leaderboard, width: int | None = None) -> list[Table]:
    """The crosstable (`crosstable`), fitted to `width` (None: whole, one table). Too wide,
    it narrows in steps that its caption names: cells of points alone when every pair played
    as many games ("points of the 12 games each pair played"), rows without names (the
    leaderboard's # names them), and the columns in parts, a table each ("Crosstable,
    columns 1-5 of 10") with every row: the layout that takes the fewest parts, names kept
    and games shown when that costs no part. No name and no number is cut or wrapped; only
    a name wider than the terminal by itself folds."""
    rows = [r for r in board.rows if r.games]
    names = [r.bot for r in rows]
    found = {(p.bot, p.opponent): p for p in board.pairs}
    grid = [[found.get((name, opponent)) for opponent in names] for name in names]
    played = {p.games for line in grid for p in line if p is not None}
    each = played.pop() if len(played) == 1 else None  # the games of every pair, if the same

    def column(j: int, games: bool) -> _Column:
        cells: list[str | Text] = []
        for i, line in enumerate(grid):
            p = line[j]
            if i == j:
                cells.append("·")
            elif p is None:
                cells.append("")
            else:
                points = _number(round(2 * p.score * p.games) / 2)
                cells.append(f"{points}/{p.games}" if games else points)
        return _Column(str(j + 1), cells)

    def fixed(shape: _Shape) -> list[_Column]:
        ranks = _Column("#", [str(r.rank) for r in rows])
        if not shape.names:
            return [ranks]
        return [ranks, _Column("bot", [shown(name) for name in names], "left")]

    def notes(shape: _Shape) -> str:
        said = ["points/games, row vs column"]
        if not shape.games:
            said = [f"points of the {counted(each or 0, 'game')} each pair played, row vs column"]
        if not shape.names:
            said.append("rows by their # on the leaderboard (names left out to fit the terminal)")
        return "\n".join(said)

    def tables(shape: _Shape, parts: list[range]) -> list[Table]:
        out = []
        for at, part in enumerate(parts):
            title = "Crosstable"
            if len(parts) > 1:
                span = f"{part[0] + 1}-{part[-1] + 1}" if len(part) > 1 else f"{part[0] + 1}"
                title += f", column{'s' if len(part) > 1 else ''} {span} of {len(names)}"
            columns = [*fixed(shape), *(column(j, shape.games) for j in part)]
            caption = notes(shape) if at == 0 else None  # under the widest part
            out.append(_table(title, columns, caption))
        return out

    full = _Shape(names=True, games=True)
    if width is None or not names:
        return tables(full, [range(len(names))])
    shapes = [full, _Shape(names=False, games=True)]
    if each is not None:
        shapes[1:1] = [_Shape(names=True, games=False)]
        shapes.append(_Shape(names=False, games=False))
    best: tuple[_Shape, list[range]] | None = None
    for shape in shapes:
        parts = _parts(
            _own_width(fixed(shape)),
            [_own_width([column(j, shape.games)]) for j in range(len(names))],
            width,
        )
        if best is None or len(parts) < len(best[1]):
            best = shape, parts
        if len(parts) == 1:
            break
    assert best is not None
    return tables(*best)


def _own_width(columns: list[_Column]) -> int:
    """What `columns` add to the width of a table with a border: their natural width in a
    table of their own, less that table's right edge."""
    return natural_width(_table("", columns)) - 1


def _parts(fixed: int, widths: list[int], width: int) -> list[range]:
    """The columns (of `widths`) in runs, each run as wide as fits in `width` beside the
    `fixed` columns, which every part repeats (one column a part when even that is wider)."""
    parts: list[range] = []
    start, used = 0, fixed + 1  # the table's right edge
    for j, own in enumerate(widths):
        if j > start and used + own > width:
            parts.append(range(start, j))
            start, used = j, fixed + 1
        used += own
    parts.append(range(start, len(widths)))
    return parts


def pairs_table(board: Leaderboard) -> Table:
    """Head-to-head scores: each bot's score against each opponent it met (names as plain
    text)."""
    columns = [
        _Column("bot", [shown(p.bot) for p in board.pairs], "left"),
        _Column("opponent", [shown(p.opponent) for p in board.pairs], "left"),
        _Column("score", [_percent(p.score) for p in board.pairs]),
        _Column("games", [str(p.games) for p in board.pairs]),
    ]
    return _table("Head to head", columns)


def standings_views(
    board: Leaderboard,
    title: str,
    *,
    crosstable_shown: bool | None = None,
    pairs: bool = False,
    width: int | None = None,
) -> list[RenderableType]:
    """Everything the text view of a leaderboard shows, in order: the leaderboard (fitted to
    `width`), a warning for each bot that faulted in most of its games, the Swiss standings,
    the deal pairs (2 seats), the crosstable (by default for at most `CROSSTABLE_BOTS` bots;
    True or False forces it) and with `pairs` the head-to-head list."""
    items: list[RenderableType] = [leaderboard_table(board, title, width=width)]
    items += fault_warnings(board)
    beside = (swiss_table(board, width), deal_pairs_table(board, width))
    items += [table for table in beside if table is not None]
    if crosstable_shown is None:
        crosstable_shown = 2 <= len(board.rows) <= CROSSTABLE_BOTS and bool(board.pairs)
    if crosstable_shown:
        items += crosstable_views(board, width)
    if pairs:
        items.append(pairs_table(board))
    return items


def game_line(record: GameRecord, progress: TournamentProgress) -> str:
    """A finished game as one line for logs, like cutechess-cli's: its number, its id, the
    bots in seat order, the result and each fault, with names made `plain`:
    "Finished game 12/120 r0-t3-d1-s0 (alpha vs beta): 1-0 {beta: crash}". With 2 seats the
    result is seat 0's "1-0", "0-1" or "1/2-1/2"; with more, the ranks and scores by seat;
    alone (a solo ruleset), won or lost against the dummy and the margin."""
    bots = " vs ".join(plain(seat.bot) for seat in record.seats)
    if record.error is not None:
        result = f"no result (referee error: {plain(record.error)})"
    elif record.players == 1:
        result = f"{'won' if record.ranks[0] == 1 else 'lost'}, margin {record.scores[0]:+g}"
        bots += " vs the dummy"
    elif record.players == 2:
        first, second = record.ranks
        result = "1/2-1/2" if first == second else "1-0" if first < second else "0-1"
    else:
        ranks = ", ".join(str(r) for r in record.ranks)
        scores = ", ".join(f"{s:g}" for s in record.scores)
        result = f"ranks {ranks}; scores {scores}"
    faults = "; ".join(f"{plain(f.bot)}: {f.kind}" for f in record.faults)
    where = f" {plain(record.game)}" if record.game else ""
    return f"Finished game {progress.done}/{progress.total}{where} ({bots}): {result}" + (
        f" {{{faults}}}" if faults else ""
    )


def leaderboard_csv(board: Leaderboard) -> str:
    """The leaderboard as CSV; bot names with control characters are shown escaped (`plain`),
    since the CSV is printed to a terminal."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "rank",
            "bot",
            "elo",
            "error",
            "games",
            "score",
            "mean_place",
            "los_next",
            "win_rate",
            "margin",
            "margin_error",
            *(f"faults_{k}" for k in FAULT_KINDS),
            "faulted_games",
            "wins",
            "draws",
            "losses",
            *(f"pairs_{name.replace('/', '_').lower()}" for name in PENTANOMIAL),
        ]
    )
    for r in board.rows:
        writer.writerow(
            [
                r.rank,
                plain(r.bot),
                r.elo,
                r.error,
                r.games,
                r.score,
                "" if r.mean_place is None else r.mean_place,
                "" if r.los_next is None else r.los_next,
                *("" if v is None else v for v in (r.win_rate, r.margin, r.margin_error)),
                *(r.faults.get(k, 0) for k in FAULT_KINDS),
                r.faulted_games,
                *("" if v is None else v for v in (r.wins, r.draws, r.losses)),
                *(r.pentanomial if r.pentanomial is not None else [""] * len(PENTANOMIAL)),
            ]
        )
    return out.getvalue()


def leaderboard_json(board: Leaderboard) -> str:
    """The leaderboard as JSON; what JSON leaves raw in a bot's name (DEL, C1 controls,
    bidi overrides) is written as a \\u escape, which reads back the same."""
    text = msgspec.json.format(msgspec.json.encode(board)).decode()
    if text.isascii():  # the usual case, and quick for a million pairs: DEL is all to escape
        return text.replace("\x7f", _json_escape("\x7f"))  # (JSON escaped the other controls)
    return "".join(c if c.isprintable() or c == "\n" else _json_escape(c) for c in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters past U+FFFF
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class LiveTournament:
    """Progress bar (games done and to do, rate, ETA) and the current top of the table,
    fitted to the terminal's width."""

    def __init__(self, name: str, standings: Standings, total: int) -> None:
        self.standings = standings  # every game so far, those before a resume included
        done = standings.played
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self.task = self.progress.add_task(name, total=total, completed=done, rate="")
        self.started = time.monotonic()
        self.new = 0
        self.board: Leaderboard | None = None
        self._refreshed = 0.0

    def add(self, record: GameRecord, progress: TournamentProgress) -> None:
        """Count a finished game in the standings, and show the progress."""
        self.standings.add(record)
        self.new += 1
        rate = self.new / max(1e-9, time.monotonic() - self.started)
        label = f"{rate:.1f} games/s"
        if progress.rounds and progress.round:
            label += f", round {progress.round}/{progress.rounds}"
        self.progress.update(
            self.task, completed=progress.done, total=max(progress.total, progress.done), rate=label
        )
        now = time.monotonic()
        if now - self._refreshed > 1.0:  # refitting every game would be wasted work
            self._refreshed = now
            self.board = self.standings.leaderboard()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.progress
        if self.board is not None:
            yield leaderboard_table(
                self.board, title="Top of the table", top=5, width=options.max_width
            )
