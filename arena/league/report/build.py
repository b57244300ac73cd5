"""What a tournament report shows, gathered in one read of the results folder's journal.

The journal is read as a stream of summaries (`ResultsDir.games`): each game is tallied into
the standings (`Standings`, so the leaderboard is exactly `arena leaderboard`'s), into the
rating history (the fit over the games so far, at about `CHECKPOINTS` points of the
journal), into the fault index (every fault by bot and kind, with its game) and into the
games list. Only the games whose replays are embedded are decoded whole, and their frames
(`arena.referee.frames`) are made and compressed as the read goes on
(`arena.league.report.replays`), so a report holds the journal's summaries and the
compressed replays, never its records.

A records file (`arena replay FILE --html`) makes a page of the same kind without standings:
its games and their replays (`records_page`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from arena.league.leaderboard import Leaderboard, Standings, results_leaderboard
from arena.league.report.replays import LinePipe, Packed, Packer, frame_record
from arena.league.results import GAMES_FILE, OnDamage, ResultsDir
from arena.referee.records import GameRecord, GameSummary

CHECKPOINTS = 20  # points of the rating history: a fit over the games so far at each
PARALLEL_FROM = 64  # fewer embedded games than this are framed in this process


class Checkpoint(msgspec.Struct, frozen=True):
    """The ratings fitted to the first `games` rated games: each bot's Elo and 95% error,
    in the order of `History.bots`."""

    games: int
    elo: list[float]
    error: list[float]


class History(msgspec.Struct, frozen=True):
    """Ratings as the games accumulated."""

    bots: list[str]
    points: list[Checkpoint]


class FaultCell(msgspec.Struct, frozen=True):
    """The faults of one kind by one bot: how many, and the game (number in `Page.games`)
    of each."""

    bot: str
    kind: str
    count: int
    games: list[int]


class GameFault(msgspec.Struct, frozen=True, array_like=True):
    seat: int
    kind: str
    decision: int | None


class GameRow(msgspec.Struct, frozen=True):
    """One game of the list: its number (1 = first finished), id, the bots seat by seat,
    scores and ranks (after the fault policy), faults, a referee error, and its replay's
    number in `Page.replays` (None: not embedded)."""

    number: int
    game: str
    ruleset: str
    seed: int
    bots: list[str]
    scores: list[float]
    ranks: list[int]
    faults: list[GameFault]
    error: str | None = None
    replay: int | None = None


class Page(msgspec.Struct, frozen=True):
    """Everything a report (or a records file's replay page) shows. `kind` is "report" for a
    results folder, "replays" for a records file (no standings, history or fault index)."""

    kind: str
    title: str
    ruleset: str
    generated: str
    games: list[GameRow]
    replays: Packed
    leaderboard: Leaderboard | None = None
    history: History | None = None
    faults: list[FaultCell] = []
    format: str | None = None
    options: dict[str, Any] = {}
    games_total: int = 0  # games in the journal (rows: all of them)
    replays_skipped: int = 0  # games left without a replay by `replays`


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _journal_lines(file: Path) -> int:
    """About how many games the journal holds (its lines), to place the checkpoints."""
    try:
        with open(file, "rb") as fh:
            return sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return 0


def checkpoints_at(total: int, count: int = CHECKPOINTS) -> list[int]:
    """The game counts at which the history fits the ratings: `count` points spread evenly
    over `total` games (every game when there are fewer), the last at `total`."""
    if total <= 0:
        return []
    return sorted({max(1, -(-k * total // count)) for k in range(1, count + 1)})


def _row(number: int, game: GameSummary | GameRecord, replay: int | None) -> GameRow:
    return GameRow(
        number=number,
        game=game.game,
        ruleset=game.ruleset,
        seed=game.seed,
        bots=[seat.bot for seat in sorted(game.seats, key=lambda s: s.seat)],
        scores=game.scores,
        ranks=game.ranks,
        faults=[GameFault(f.seat, f.kind, f.decision) for f in game.faults],
        error=game.error,
        replay=replay,
    )


def build_report(
    folder: str | Path,
    *,
    replays: int | None = None,
    jobs: int | None = None,
    on_damage: OnDamage | None = None,
    checkpoints: int = CHECKPOINTS,
) -> Page:
    """The report of the results folder `folder` (see the module docstring). `replays`: embed
    the replays of at most this many games (the first finished), besides every game with a
    fault, so that each fault opens its game (None: every game). `jobs`: processes framing
    replays (None: the number of cores, or this process alone for a few games)."""
    results = ResultsDir.existing(folder, on_damage=on_damage)
    stored = results.stored()
    swiss = stored is not None and stored.config.format == "swiss"
    standings = Standings(stored.bots if stored else ())
    finished: dict[str, Sequence[int]] = {}
    expected = _journal_lines(results.path / GAMES_FILE)
    marks = checkpoints_at(expected, checkpoints)
    points: list[Checkpoint] = []
    faults: dict[tuple[str, str], list[int]] = {}
    rows: list[GameRow] = []
    packer = Packer()
    embedded = skipped = 0
    workers = jobs or os.cpu_count() or 1
    if jobs is None and (expected if replays is None else min(replays, expected)) < PARALLEL_FROM:
        workers = 1  # worker processes cost more to start than a few games take
    ruleset = stored.config.ruleset if stored else ""

    def checkpoint() -> None:
        if not standings.rated or (points and points[-1].games == standings.rated):
            return
        table = standings.ratings()
        by_name = {r.name: r for r in table.ratings}
        names = standings.names
        points.append(
            Checkpoint(
                standings.rated,
                [round(by_name[n].elo, 1) for n in names],
                [round(by_name[n].error, 1) for n in names],
            )
        )

    with LinePipe(packer.add, workers) as pipe:
        for number, line in enumerate(results.games(), 1):
            game = line.value
            standings.add(game)
            if swiss:
                finished[game.game] = game.ranks
            ruleset = ruleset or game.ruleset
            for fault in game.faults:
                faults.setdefault((fault.bot, fault.kind), []).append(number)
            replay = None
            if replays is None or embedded < replays or game.faults:
                replay = embedded
                embedded += 1
                pipe.put(line.data)
            else:
                skipped += 1
            rows.append(_row(number, game, replay))
            if marks and standings.played >= marks[0]:
                while marks and standings.played >= marks[0]:
                    marks.pop(0)
                checkpoint()
    checkpoint()  # the journal may hold more (or fewer) games than its lines promised
    board = results_leaderboard(results, standings, finished if swiss else None)
    cells = [
        FaultCell(bot, kind, len(games), sorted(set(games)))
        for (bot, kind), games in sorted(faults.items())
    ]
    config = stored.config if stored else None
    return Page(
        kind="report",
        title=config.name if config else results.path.name,
        ruleset=ruleset,
        generated=_now(),
        games=rows,
        replays=packer.packed(),
        leaderboard=board,
        history=History(list(standings.names), points),
        faults=cells,
        format=config.format if config else None,
        options=dict(config.options) if config else {},
        games_total=len(rows),
        replays_skipped=skipped,
    )


def records_page(records: Iterable[tuple[int, GameRecord]], title: str) -> Page:
    """The replay page of some game records, each given with its number in its file: the
    games list and every game's replay (framed in this process)."""
    packer = Packer()
    rows: list[GameRow] = []
    rulesets: list[str] = []
    for replay, (number, record) in enumerate(records):
        packer.add(frame_record(record))
        rows.append(_row(number, record, replay))
        rulesets.append(record.ruleset)
    shown = sorted(set(rulesets))
    return Page(
        kind="replays",
        title=title,
        ruleset=", ".join(shown),
        generated=_now(),
        games=rows,
        replays=packer.packed(),
        games_total=len(rows),
    )
