"""rich views of tournaments: the leaderboard (also as CSV and JSON) and live progress."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Sequence

import msgspec
from rich.console import Group
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

from arena.league.leaderboard import Leaderboard, leaderboard
from arena.league.tournament import Progress as TournamentProgress
from arena.referee.faults import FAULT_KINDS
from arena.referee.records import GameRecord
from arena.referee.text import plain


def shown(text: str, style: str = "", *, lines: bool = False) -> Text:
    """`text` as Rich shows it literally (markup such as `[/]` is not parsed), made `plain`."""
    return Text(plain(text, lines=lines), style=style)


def _faults(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {counts[kind]}" for kind in FAULT_KINDS if counts.get(kind)) or "-"


def leaderboard_table(
    board: Leaderboard, title: str = "Leaderboard", top: int | None = None
) -> Table:
    """Rank, bot, Elo ± 95% error, games, score %, mean place, LOS over the next, faults.
    Bot names and the title are shown as plain text (`shown`)."""
    table = Table(title=shown(title))
    # Solo rulesets: win rate and margin against the dummy instead of places at a table.
    middle = ("win rate", "margin ± 95%") if board.solo else ("score", "place")
    for name in ("#", "bot", "Elo", "± 95%", "games", *middle, "LOS next", "faults"):
        table.add_column(name, justify="left" if name in ("bot", "faults") else "right")
    for row in board.rows[:top]:
        if board.solo:
            cells = (
                f"{100 * row.win_rate:.1f}%" if row.win_rate is not None else "-",
                f"{row.margin:+.1f} ± {row.margin_error:.1f}" if row.margin is not None else "-",
            )
        else:
            cells = (
                f"{100 * row.score:.1f}%" if row.games else "-",
                f"{row.mean_place:.2f}" if row.mean_place is not None else "-",
            )
        table.add_row(
            str(row.rank),
            shown(row.bot),
            f"{round(row.elo):+d}",
            f"{row.error:.0f}",
            str(row.games),
            *cells,
            f"{100 * row.los_next:.0f}%" if row.los_next is not None else "",
            _faults(row.faults),
        )
    if board.unrated:
        table.caption = (
            f"{board.unrated} more game(s) ended by a referee error, without a result: not rated"
        )
    return table


def pairs_table(board: Leaderboard) -> Table:
    """Head-to-head scores: each bot's score against each opponent it met (names as plain
    text)."""
    table = Table(title="Head to head")
    table.add_column("bot")
    table.add_column("opponent")
    table.add_column("score", justify="right")
    table.add_column("games", justify="right")
    for p in board.pairs:
        table.add_row(shown(p.bot), shown(p.opponent), f"{100 * p.score:.1f}%", str(p.games))
    return table


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
            ]
        )
    return out.getvalue()


def leaderboard_json(board: Leaderboard) -> str:
    """The leaderboard as JSON; what JSON leaves raw in a bot's name (DEL, C1 controls,
    bidi overrides) is written as a \\u escape, which reads back the same."""
    text = msgspec.json.format(msgspec.json.encode(board)).decode()
    return "".join(c if c.isprintable() or c == "\n" else _json_escape(c) for c in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters past U+FFFF
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class LiveTournament:
    """Progress bar (games done and to do, rate, ETA) and the current top of the table."""

    def __init__(
        self, name: str, bots: Sequence[str], records: Sequence[GameRecord], total: int
    ) -> None:
        self.bots = list(bots)
        self.records = list(records)  # including games finished before a resume
        done = len(self.records)
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
        self.top = Table()
        self._refreshed = 0.0

    def add(self, record: GameRecord, progress: TournamentProgress) -> None:
        self.records.append(record)
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
            board = leaderboard(self.records, self.bots)
            self.top = leaderboard_table(board, title="Top of the table", top=5)

    def __rich__(self) -> Group:
        return Group(self.progress, self.top)
