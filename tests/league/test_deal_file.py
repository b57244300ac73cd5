"""A deal file: two tournaments played on exactly the same deals, as an opening book does for
chess engines."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from arena.league.config import ConfigError, load_tournament
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament, schedule_of
from tests.helpers.paths import ROOT
from tests.helpers.tournaments import command_bot, write_tournament

SEEDS = [11, 2**63 - 1, 0]
RANDOM_BOT = ROOT / "tests" / "bots" / "random_bot.py"


def bots(*names: str) -> list[str]:
    return [command_bot(n, sys.executable, RANDOM_BOT) for n in names]


def deal_file(
    folder: Path, text: str = "# three deals\n11\n9223372036854775807  # the largest\n\n0\n"
) -> Path:
    path = folder / "deals.txt"
    path.write_text(text)
    return path


def test_every_table_plays_deal_d_on_the_files_seed_d(tmp_path: Path) -> None:
    deal_file(tmp_path)
    file = write_tournament(
        tmp_path, bots("a", "b", "c", "d"), seats=3, deals=3, deal_file="deals.txt", seed=5
    )
    games = schedule_of(load_tournament(file)).plan(0, [], {})
    assert len({g.table for g in games}) == 4
    assert all(g.seed == SEEDS[g.deal] for g in games)


def test_a_short_file_is_cycled_and_swiss_rounds_take_the_next_deals(tmp_path: Path) -> None:
    deal_file(tmp_path, "5\n6\n")
    file = write_tournament(
        tmp_path, bots("a", "b", "c", "d"), format="swiss", rounds=2, deals=3, deal_file="deals.txt"
    )
    schedule = schedule_of(load_tournament(file))
    first = schedule.plan(1, [], {})
    assert [g.seed for g in first if g.table == 0 and g.rotation == 0] == [5, 6, 5]
    ranks = {g.id: [1, 2] for g in first}
    second = schedule.plan(2, first, ranks)
    assert [g.seed for g in second if g.table == 0 and g.rotation == 0] == [6, 5, 6]


@pytest.mark.slow
async def test_two_tournaments_on_one_deal_file_play_the_same_deals(tmp_path: Path) -> None:
    deal_file(tmp_path)
    seeds_seen = []
    for name, field, seed in (("one", ("a", "b"), 1), ("two", ("x", "y", "z"), 77)):
        file = write_tournament(
            tmp_path, bots(*field), name=name, deals=3, deal_file="deals.txt", seed=seed,
            file=f"{name}.toml", sandbox="off",
        )  # fmt: skip
        t = load_tournament(file)
        with ResultsDir.open(tmp_path / "results", t) as folder:
            await run_tournament(t, folder)
            records = folder.records()
        by_deal = {(r.game.split("-")[2], r.seed) for r in records}
        seeds_seen.append(sorted(by_deal))
    assert seeds_seen[0] == seeds_seen[1] == sorted({(f"d{d}", s) for d, s in enumerate(SEEDS)})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("12\nseven\n", "deals.txt:2: 'seven' is not a deal seed (an integer)"),
        ("-1\n", "deals.txt:1: a deal seed is from 0 to 2**63-1, not -1"),
        ("# nothing\n\n", "holds no seeds"),
    ],
)
def test_a_bad_deal_file_is_refused_naming_the_line(tmp_path: Path, text: str, says: str) -> None:
    deal_file(tmp_path, text)
    file = write_tournament(tmp_path, bots("a", "b"), deal_file="deals.txt")
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_tournament(file)


def test_a_missing_deal_file_is_refused(tmp_path: Path) -> None:
    file = write_tournament(tmp_path, bots("a", "b"), deal_file="nowhere.txt")
    with pytest.raises(ConfigError, match=r"cannot read the deal file .*nowhere\.txt"):
        load_tournament(file)


def test_resuming_after_the_deal_file_changed_is_refused(tmp_path: Path) -> None:
    deal_file(tmp_path)
    file = write_tournament(tmp_path, bots("a", "b"), deal_file="deals.txt")
    ResultsDir.open(tmp_path / "results", load_tournament(file)).release()
    deal_file(tmp_path, "1\n2\n3\n")
    with pytest.raises(ConfigError, match="holds results of a different tournament"):
        ResultsDir.open(tmp_path / "results", load_tournament(file))
