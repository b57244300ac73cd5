"""What `arena tournament` and `arena leaderboard` print: a line per finished game and the
tables at full width when the output is not a terminal, columns left out (never names cut)
in a narrow one, the tables beside the leaderboard, and options that cannot work together."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from typer.testing import CliRunner, Result

from arena.cli.app import app
from arena.cli.views import (
    CROSSTABLE_BOTS,
    LiveTournament,
    crosstable,
    fault_warnings,
    game_line,
    leaderboard_table,
    print_views,
    standings_views,
)
from arena.league.leaderboard import Standings, leaderboard
from arena.league.tournament import Progress
from arena.referee.records import GameRecord, read_records
from tests.helpers.boards import made_game, table_deal
from tests.helpers.paths import RANDOM
from tests.helpers.tournaments import command_bot, write_tournament

LONG = "odin-heuristic-with-a-name-longer-than-a-narrow-terminal-allows"
NARROW = {"COLUMNS": "80"}


def arena_80(*args: str | Path) -> Result:
    """`arena ARGS` in process, its output not a terminal, 80 columns wide by the env."""
    return CliRunner().invoke(app, [str(a) for a in args], env=NARROW)


@pytest.fixture(scope="module")
def swiss_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A 2-round Swiss of 3 random bots (one bye a round), one with a long name, run through
    `arena tournament` into a log (not a terminal): its results folder and its output."""
    here = tmp_path_factory.mktemp("swiss-log")
    bots = [command_bot(name, "{python}", RANDOM / "bot.py") for name in (LONG, "rnd-b", "rnd-c")]
    file = write_tournament(here, bots, name="swiss-log", format="swiss", rounds=2)
    result = arena_80("tournament", file, "--results", here / "results")
    assert result.exit_code == 0, result.output
    return here / "results" / "swiss-log", result.output


def test_a_log_gets_a_line_per_finished_game_in_seat_order(swiss_run: tuple[Path, str]) -> None:
    folder, output = swiss_run
    lines = [line for line in output.splitlines() if line.startswith("Finished game")]
    records = list(read_records(folder / "games.jsonl"))
    assert len(lines) == len(records) == 4
    for number, (line, record) in enumerate(zip(lines, records, strict=True), 1):
        first, second = (seat.bot for seat in record.seats)
        results = {(1, 2): "1-0", (2, 1): "0-1", (1, 1): "1/2-1/2"}
        result = results[record.ranks[0], record.ranks[1]]
        assert line == f"Finished game {number}/4 {record.game} ({first} vs {second}): {result}"


def test_a_log_gets_the_final_tables_at_full_width(swiss_run: tuple[Path, str]) -> None:
    _, output = swiss_run
    rows = [line for line in output.splitlines() if LONG in line and "│" in line]
    assert len(rows) == 4  # the leaderboard, Swiss standings, deal pairs, crosstable: never cut
    assert max(len(line) for line in output.splitlines()) > 80
    assert "…" not in output
    assert "Swiss standings" in output and "Crosstable" in output
    assert output.rstrip().splitlines()[-1].startswith("results: ")


def test_the_leaderboard_command_shows_swiss_standings_with_byes(
    swiss_run: tuple[Path, str],
) -> None:
    folder, _ = swiss_run
    shown = arena_80("leaderboard", folder)
    assert shown.exit_code == 0, shown.output
    assert "Swiss standings" in shown.output and "Buchholz" in shown.output
    assert any(LONG in line for line in shown.output.splitlines())
    data = json.loads(arena_80("leaderboard", folder, "--json").output)
    swiss = data["swiss"]
    assert sorted(row["bot"] for row in swiss) == sorted([LONG, "rnd-b", "rnd-c"])
    assert sum(row["byes"] for row in swiss) == 2  # one a round
    assert sum(row["games"] for row in swiss) == 8  # 4 games, 2 seats
    # every game's 1 point, and 2 points for each bye (a win in each game of the round)
    assert sum(row["points"] for row in swiss) == pytest.approx(4 + 2 * 2)
    assert [row["place"] for row in swiss] == sorted(row["place"] for row in swiss)
    assert all(row["wins"] + row["draws"] + row["losses"] == row["games"] for row in data["rows"])


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--json", "--csv"], "--json and --csv are two formats"),
        (["--json", "--pairs"], "--pairs is for the tables of the text view, which --json"),
        (["--csv", "--crosstable"], "--crosstable is for the tables of the text view"),
        (["--csv", "--pairs", "--no-crosstable"], "--pairs and --no-crosstable are for"),
    ],
)
def test_options_that_cannot_work_together_are_refused_in_words(
    swiss_run: tuple[Path, str], flags: list[str], says: str
) -> None:
    folder, _ = swiss_run
    result = arena_80("leaderboard", folder, *flags)
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and says in result.output
    assert "Traceback" not in result.output


# -- the views, on games made by hand ------------------------------------------------------


def board_of(names: list[str]) -> list[GameRecord]:
    """Every pair of `names` plays one deal in both seatings; the earlier name wins both."""
    games = []
    for i, a in enumerate(names):
        for j, b in enumerate(names[i + 1 :], i + 1):
            games += table_deal(0, (a, b), [(1, 2), (1, 2)], deal=100 * i + j)
    return games


def test_a_narrow_terminal_drops_columns_and_never_cuts_a_name() -> None:
    name = "a-bot-with-a-rather-long-name"
    board = leaderboard(board_of([name, "b", "c"]), [name, "b", "c"])
    out = io.StringIO()
    Console(file=out, width=60).print(leaderboard_table(board, "t", width=60))
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 60
    assert name in text and "…" not in text
    assert "left out to fit the terminal: LOS next, place" in text
    header = next(line for line in text.splitlines() if "bot" in line)
    assert "Elo" in header and "faults" in header and "LOS" not in header
    wide = io.StringIO()
    Console(file=wide, width=200).print(leaderboard_table(board, "t", width=200))
    assert "LOS next" in wide.getvalue() and "left out" not in wide.getvalue()


def test_the_live_top_of_the_table_fits_the_terminal() -> None:
    name = "a-bot-with-a-rather-long-name"
    games = board_of([name, "b", "c"])
    standings = Standings([name, "b", "c"])
    for game in games[:-1]:
        standings.add(game)
    live = LiveTournament("t", standings, len(games))
    live.add(games[-1], Progress(done=len(games), total=len(games)))
    out = io.StringIO()
    Console(file=out, width=60).print(live)
    assert name in out.getvalue() and "…" not in out.getvalue()


def test_print_views_elsewhere_than_a_terminal_is_at_natural_width() -> None:
    names = [LONG, "b", "c"]
    board = leaderboard(board_of(names), names)
    out = io.StringIO()
    console = Console(file=out, width=80)  # a file: not a terminal
    print_views(console, standings_views(board, "t", width=None))
    text = out.getvalue()
    assert sum(1 for line in text.splitlines() if LONG in line) == 3  # board, pairs, crosstable
    assert max(len(line) for line in text.splitlines()) > 80 and "…" not in text


def test_the_crosstable_is_shown_by_default_for_a_small_field_only() -> None:
    few = [f"bot{i}" for i in range(3)]
    many = [f"bot{i}" for i in range(CROSSTABLE_BOTS + 1)]
    small = leaderboard(board_of(few), few)
    large = leaderboard(board_of(many), many)

    def titles(items: list[RenderableType]) -> list[str]:
        return [str(getattr(item, "title", "")) for item in items]

    assert "Crosstable" in titles(standings_views(small, "t"))
    assert "Crosstable" not in titles(standings_views(small, "t", crosstable_shown=False))
    assert "Crosstable" not in titles(standings_views(large, "t"))
    assert "Crosstable" in titles(standings_views(large, "t", crosstable_shown=True))


def test_the_crosstable_holds_each_rows_points_against_each_column() -> None:
    names = ["top", "mid", "low"]
    games = [*board_of(names), *table_deal(0, ("mid", "low"), [(1, 1), (2, 1)], deal=99)]
    board = leaderboard(games, names)
    out = io.StringIO()
    Console(file=out, width=200).print(crosstable(board))
    cells = {
        parts[2].strip(): [p.strip() for p in parts[3:6]]
        for line in out.getvalue().splitlines()
        if (parts := line.split("│")) and len(parts) > 6
    }
    assert cells == {
        "top": ["·", "2/2", "2/2"],
        "mid": ["0/2", "·", "2.5/4"],  # won deal 1 twice; drew then lost deal 99
        "low": ["0/2", "1.5/4", "·"],
    }


def test_a_bot_that_faulted_in_most_games_gets_a_warning_with_its_name_plain() -> None:
    evil = "evil[bold]\x1b[31m"
    games = [
        *table_deal(0, (evil, "b"), [(2, 1), (2, 1)], faulted=[evil]),
        *table_deal(0, (evil, "b"), [(1, 2), (1, 2)], deal=1),
        *table_deal(0, (evil, "b"), [(2, 1), (2, 1)], deal=2, faulted=[evil]),
    ]
    (warning,) = fault_warnings(leaderboard(games, [evil, "b"]))
    assert warning.plain == (
        "warning: evil[bold]\\x1b[31m faulted in 4 of its 6 games (crash 4): "
        "its rating measures its faults, not its play"
    )


@pytest.mark.parametrize(
    ("bots", "ranks", "faulted", "error", "expected"),
    [
        (["a", "b"], [1, 2], [], None, "(a vs b): 1-0"),
        (["a", "b"], [2, 1], ["a"], None, "(a vs b): 0-1 {a: crash}"),
        (["a", "b"], [1, 1], [], None, "(a vs b): 1/2-1/2"),
        (
            ["a", "b", "c"],
            [2, 3, 1],
            ["b"],
            None,
            "(a vs b vs c): ranks 2, 3, 1; scores 5, 0, 9 {b: crash}",
        ),
        (["a", "b"], [1, 1], [], "too long", "(a vs b): no result (referee error: too long)"),
        (["x\x1b[2J"], [1], [], None, "(x\\x1b[2J vs the dummy): won, margin +5"),
    ],
)
def test_game_lines(
    bots: list[str], ranks: list[int], faulted: list[str], error: str | None, expected: str
) -> None:
    scores = [5.0, 0.0, 9.0][: len(bots)]
    record = made_game(bots, ranks, faulted=faulted, game="r0-t1-d2-s0", scores=scores, error=error)
    line = game_line(record, Progress(done=3, total=12))
    assert line == f"Finished game 3/12 r0-t1-d2-s0 {expected}"
    assert re.fullmatch(r"[ -~]*", line)  # printable ASCII: nothing a terminal acts on
