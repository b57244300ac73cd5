"""The report's data (`arena.league.report`): the leaderboard is the one `arena leaderboard`
shows, the rating history ends at the final fit, faults index their games, `--replays` keeps
every faulted game's replay, and a report of a 1,000-game tournament stays under 10 MB."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest

from arena.league.leaderboard import results_leaderboard
from arena.league.report import build_report, render, write
from arena.league.report.build import checkpoints_at
from arena.league.results import ResultsDir
from arena.referee.records import read_records
from tests.helpers.reports import write_random_results

SIZE_BOUND = 10_000_000  # bytes: the report of a 1,000-game tournament


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 odin games among 4 bots, 3 seats, a fifth of them with a timeout."""
    here = tmp_path_factory.mktemp("report-data") / "t"
    return write_random_results(
        here, 60, players=3, bots=4, options={"rounds": 1}, fault_share=0.2, seed=7
    )


def test_the_leaderboard_is_arena_leaderboards(folder: Path) -> None:
    page = build_report(folder, jobs=1)
    assert page.leaderboard == results_leaderboard(ResultsDir.existing(folder))
    assert page.games_total == len(page.games) == 60
    assert [row.number for row in page.games] == list(range(1, 61))


def test_the_rating_history_grows_to_the_final_fit(folder: Path) -> None:
    page = build_report(folder, jobs=1)
    assert page.history is not None and page.leaderboard is not None
    points = page.history.points
    assert 2 <= len(points) <= 20
    assert [p.games for p in points] == sorted({p.games for p in points})
    assert points[-1].games == page.leaderboard.games
    last = points[-1]
    for row in page.leaderboard.rows:
        at = page.history.bots.index(row.bot)
        assert last.elo[at] == pytest.approx(row.elo, abs=0.051)
        assert last.error[at] == pytest.approx(row.error, abs=0.051)


def test_checkpoints_spread_over_the_games() -> None:
    assert checkpoints_at(0) == []
    assert checkpoints_at(5) == [1, 2, 3, 4, 5]
    marks = checkpoints_at(1000)
    assert len(marks) == 20 and marks[0] == 50 and marks[-1] == 1000


def test_faults_are_counted_by_bot_and_kind_with_their_games(folder: Path) -> None:
    page = build_report(folder, jobs=1)
    records = list(read_records(folder / "games.jsonl"))
    expected: dict[tuple[str, str], list[int]] = {}
    for number, record in enumerate(records, 1):
        for fault in record.faults:
            expected.setdefault((fault.bot, fault.kind), []).append(number)
    assert expected
    assert {(c.bot, c.kind): (c.count, c.games) for c in page.faults} == {
        key: (len(games), sorted(set(games))) for key, games in expected.items()
    }
    assert page.leaderboard is not None
    for row in page.leaderboard.rows:  # the same counts as the leaderboard's
        assert row.faults == {c.kind: c.count for c in page.faults if c.bot == row.bot}


def test_replays_decode_to_each_games_frames_and_a_cap_keeps_the_faulted_games(
    folder: Path,
) -> None:
    records = list(read_records(folder / "games.jsonl"))
    page = build_report(folder, replays=5, jobs=1)
    faulted = {n for n, r in enumerate(records, 1) if r.faults}
    embedded = {row.number for row in page.games if row.replay is not None}
    assert embedded == set(range(1, 6)) | faulted
    assert page.replays_skipped == 60 - len(embedded)
    chunks = [json.loads(zlib.decompress(base64.b64decode(c))) for c in page.replays.chunks]
    for row in page.games:
        if row.replay is None:
            continue
        ref = page.replays.refs[row.replay]
        assert isinstance(ref, list)
        game = chunks[ref[0]][ref[1]]
        record = records[row.number - 1]
        assert game["game"] == record.game and len(game["ends"]) == len(record.moves) + 1


def test_worker_processes_make_the_same_report(folder: Path) -> None:
    alone = build_report(folder, jobs=1)
    shared = build_report(folder, jobs=2)
    assert shared.replays == alone.replays and shared.games == alone.games


def test_the_page_holds_its_data_and_no_markup_from_it(tmp_path: Path) -> None:
    here = write_random_results(tmp_path / "t", 4, options={"rounds": 1})
    lines = (here / "games.jsonl").read_bytes().replace(b"bot-1", b"</script><b>x")
    (here / "games.jsonl").write_bytes(lines)
    html = render(build_report(here, jobs=1))
    assert "</script><b>x" not in html and "<\\/script><b>x" in html
    assert "https://" not in html.replace("https://github.com/leeoniya/uPlot", "")
    assert "<script src" not in html and "<link" not in html  # nothing to fetch


@pytest.mark.slow
def test_a_report_of_a_thousand_games_is_under_10_mb(tmp_path: Path) -> None:
    """Odin between random players (long games: about 270 decisions each), 2% faulted."""
    here = write_random_results(tmp_path / "big", 1000, players=2, bots=6, seed=11)
    page = build_report(here)
    assert len(page.games) == 1000
    assert sum(1 for ref in page.replays.refs if not isinstance(ref, str)) == 1000
    size = write(page, tmp_path / "report.html")
    assert size < SIZE_BOUND, f"{size:,} bytes"
