"""The crosstable in a narrow terminal (60 and 40 columns): no name and no number cut or
wrapped; cells of points alone, rows without names and the columns in parts, each said, until
it fits; whole in one table elsewhere (a log)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console, RenderableType

from arena.cli.views import crosstable, standings_views
from arena.league.leaderboard import Leaderboard, leaderboard
from arena.referee.records import GameRecord
from tests.helpers.boards import table_deal

LONG = "a-bot-with-a-rather-long-name"


def field(names: list[str], deals: int = 6, uneven: bool = False) -> Leaderboard:
    """Every pair of `names` plays `deals` deals in both seatings (12 games by default): the
    earlier name wins both games of one deal in two, and wins one and draws one of the other
    (10.5 points of 12); with `uneven`, the first pair plays a deal more."""
    games: list[GameRecord] = []
    for i, a in enumerate(names):
        for j, b in enumerate(names[i + 1 :], i + 1):
            more = 1 if uneven and (i, j) == (0, 1) else 0
            for d in range(deals + more):
                places = [(1, 2), (1, 1) if d % 2 else (1, 2)]
                games += table_deal(0, (a, b), places, deal=1000 * i + 10 * j + d)
    return leaderboard(games, names)


def printed(item: RenderableType, width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width).print(item)
    return out.getvalue()


def cells(text: str) -> tuple[dict[tuple[str, str], str], list[str]]:
    """The cells of one printed crosstable by (row #, column number), and its rows' names
    (empty without a name column); fails on a row that took two lines (a cell wrapped)."""
    lines = text.splitlines()
    header = next(line for line in lines if "┃" in line)
    columns = [c.strip() for c in header.split("┃")[1:-1]]
    found: dict[tuple[str, str], str] = {}
    names: list[str] = []
    for line in lines:
        if "│" not in line:
            continue
        row = dict(zip(columns, (c.strip() for c in line.split("│")[1:-1]), strict=True))
        assert row["#"], f"a row took two lines: {line!r}"
        names += [row["bot"]] if "bot" in row else []
        found.update({(row["#"], c): v for c, v in row.items() if c.isdigit()})
    return found, names


def words(text: str) -> str:
    """`text` with its lines joined: what a caption says, however it wrapped."""
    return " ".join(text.split())


def crosstables(board: Leaderboard, width: int) -> list[str]:
    """The crosstable's tables of the text view at `width`, each as printed there."""
    items = standings_views(board, "t", crosstable_shown=True, width=width)
    return [
        printed(item, width)
        for item in items
        if str(getattr(item, "title", "")).startswith("Crosstable")
    ]


@pytest.mark.parametrize("width", [60, 40])
def test_a_narrow_terminal_gets_every_cell_of_the_crosstable_whole(width: int) -> None:
    names = [f"bot-{i}" for i in range(10)]
    names[3] = LONG
    board = field(names)
    whole, _ = cells(printed(crosstable(board), 400))
    assert whole[("1", "2")] == "10.5/12" and whole[("2", "1")] == "1.5/12"

    parts = crosstables(board, width)
    text = "".join(parts)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    shown: dict[tuple[str, str], str] = {}
    for part in parts:
        shown.update(cells(part)[0])
    if "points of the 12 games each pair played" in words(text):  # the cells lost their "/12"
        whole = {key: cell.split("/")[0] for key, cell in whole.items()}
    assert shown == whole  # every cell, none cut
    assert len(parts) > 1 and "Crosstable, columns 1-" in text and " of 10" in text
    # LONG does not fit beside a column at 40, nor beside enough of them at 60
    left_out = "rows by their # on the leaderboard (names left out to fit the terminal)"
    assert left_out in words(parts[0])


def test_at_40_columns_cells_lose_their_number_of_games_and_say_so() -> None:
    parts = crosstables(field([f"bot-{i}" for i in range(10)]), 40)
    text = "".join(parts)
    assert "points of the 12 games each pair played, row vs column" in words(parts[0])
    assert "/12" not in text and "10.5" in text


def test_short_names_stay_when_they_cost_no_part() -> None:
    names = [f"bot-{i}" for i in range(10)]
    parts = crosstables(field(names), 60)
    assert [cells(part)[1] for part in parts] == [names, names]  # each part names its rows
    assert "Crosstable, columns 1-6 of 10" in parts[0] and "columns 7-10 of 10" in parts[1]
    assert "points of the 12 games each pair played" in words(parts[0])
    assert "left out" not in "".join(parts)


def test_cells_keep_their_games_when_pairs_played_different_numbers() -> None:
    board = field([f"bot-{i}" for i in range(10)], uneven=True)
    text = "".join(crosstables(board, 40))
    assert "12.5/14" in text and "10.5/12" in text and "points of the" not in text
    assert max(len(line) for line in text.splitlines()) <= 40


def test_a_crosstable_that_fits_is_one_table_as_before() -> None:
    names = ["a", "b", "c"]
    (part,) = crosstables(field(names), 60)
    found, shown_names = cells(part)
    assert shown_names == names and found[("1", "2")] == "10.5/12"
    assert part.splitlines()[0].strip() == "Crosstable" and "points/games, row vs column" in part


def test_elsewhere_than_a_terminal_the_crosstable_is_whole() -> None:
    names = [f"bot-{i}" for i in range(10)]
    names[3] = LONG
    items = standings_views(field(names), "t", crosstable_shown=True, width=None)
    tables = [i for i in items if str(getattr(i, "title", "")).startswith("Crosstable")]
    assert [str(getattr(t, "title", "")) for t in tables] == ["Crosstable"]
    found, shown_names = cells(printed(tables[0], 400))
    assert shown_names == names and len(found) == 100
