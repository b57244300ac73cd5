"""The results folder survives what organisers do to it: `--fresh` while another run holds
it, a folder that cannot be written, damaged lines in the journal or the schedule, a game
journaled twice. Each ends in words (a warning or one error line), never a traceback, and no
good record is lost.

One short tournament (6 games) is played once; each test works on its own copy.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest

import arena.league.results as results_module
from arena.league.config import ConfigError, load_tournament
from arena.league.results import ResultsDir
from arena.league.schedule import Game
from arena.league.tournament import schedule_of
from arena.referee.records import DamagedLine, GameSummary, Line, SetAside, read_records
from tests.helpers.cli import WIDE, invoke
from tests.helpers.paths import GREEDY, RANDOM
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

T = TypeVar("T")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the tournament file (t.toml) and its finished results (results/t)."""
    here = tmp_path_factory.mktemp("played")
    bots = [path_bot(GREEDY), path_bot(RANDOM), command_bot("b", "{python}", RANDOM / "bot.py")]
    file = write_tournament(here, bots, file="t.toml", sandbox="off")
    done = invoke("tournament", file, "--results", here / "results")
    assert done.exit_code == 0, done.output
    return here


@pytest.fixture
def copy(played: Path, tmp_path: Path) -> Path:
    """This test's own copy of the played folder (the lock file, owned by no run, included)."""
    shutil.copytree(played, tmp_path / "copy")
    return tmp_path / "copy"


def ids(games: Path) -> list[str]:
    return [r.game for r in read_records(games)]


def planned(file: Path) -> list[str]:
    return sorted(g.id for g in schedule_of(load_tournament(file)).plan(0, [], {}))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def one_error_line(output: str) -> str:
    """The whole output, which must be one `error:` line (no traceback, nothing else)."""
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    return lines[0]


# -- 1. --fresh while another run holds the folder -------------------------------------------


def test_fresh_while_another_run_holds_the_folder_is_refused_and_discards_nothing(
    copy: Path,
) -> None:
    file, folder = copy / "t.toml", copy / "results" / "t"
    t = load_tournament(file)
    before = snapshot(folder)
    with ResultsDir.open(copy / "results", t):  # another run, holding the folder
        with pytest.raises(ConfigError, match="in use by another run"):
            ResultsDir.open(copy / "results", t, fresh=True)
        refused = invoke("tournament", file, "--results", copy / "results", "--fresh")
        assert refused.exit_code == 2
        line = one_error_line(refused.output)
        assert (
            f"{folder} is in use by another run of this tournament (process {os.getpid()})" in line
        )
        assert "--fresh discarded nothing" in line
        assert {k: v for k, v in snapshot(folder).items() if k != ".lock"} == {
            k: v for k, v in before.items() if k != ".lock"
        }
    # Once that run is over, --fresh empties the folder while holding it, then plays it all.
    with ResultsDir.open(copy / "results", t, fresh=True) as again:
        assert sorted(p.name for p in folder.iterdir()) == [".lock", "tournament.json"]
        with pytest.raises(ConfigError, match="in use by another run"):
            ResultsDir.open(copy / "results", t)  # the lock held across the emptying
        again.release()
    fresh = invoke("tournament", file, "--results", copy / "results", "--fresh")
    assert fresh.exit_code == 0, fresh.output
    assert sorted(ids(folder / "games.jsonl")) == planned(file)


# -- 2. a folder that cannot be written ------------------------------------------------------


def test_a_results_root_under_a_regular_file_is_one_error_in_words(copy: Path) -> None:
    blocker = copy / "notes.txt"
    blocker.write_text("not a folder")
    for root in (blocker, blocker / "results"):
        result = invoke("tournament", copy / "t.toml", "--results", root)
        assert result.exit_code == 2, result.output
        assert one_error_line(result.output) == (
            f"error: cannot create the results folder {root}/t: {blocker} is a file, not a folder"
        )


def test_a_tournament_folder_that_is_a_file_is_one_error_in_words(copy: Path) -> None:
    root = copy / "elsewhere"
    root.mkdir()
    (root / "t").write_text("not a folder")
    result = invoke("tournament", copy / "t.toml", "--results", root)
    assert result.exit_code == 2
    assert one_error_line(result.output) == (
        f"error: cannot create the results folder {root}/t: {root}/t is a file, not a folder"
    )


def unprivileged() -> list[str]:
    """A command prefix under which file permissions apply: none for a user; for root (as in
    CI), setpriv dropping the capabilities that let root write anywhere."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    drop = [
        setpriv or "setpriv",
        "--inh-caps=-all",
        "--bounding-set=-dac_override,-dac_read_search",
    ]
    works = setpriv is not None and subprocess.run([*drop, "true"], check=False).returncode == 0
    if not works:
        pytest.skip("as root, only setpriv (util-linux) dropping CAP_DAC_OVERRIDE makes chmod bind")
    return [*drop, "--"]


def run_unprivileged(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [*unprivileged(), sys.executable, "-m", "arena", *map(str, args)]
    env = {**os.environ, **WIDE}
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def read_only(copy: Path) -> Iterator[Path]:
    """A results root of mode 0o500 (made writable again for the clean-up)."""
    root = copy / "read-only"
    root.mkdir()
    root.chmod(0o500)
    yield root
    root.chmod(0o700)


def test_a_results_root_without_write_permission_is_one_error_in_words(
    copy: Path, read_only: Path
) -> None:
    result = run_unprivileged("tournament", copy / "t.toml", "--results", read_only)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == ""
    assert one_error_line(result.stdout) == (
        f"error: cannot create the results folder {read_only}/t: permission denied"
    )
    assert list(read_only.iterdir()) == []


def test_a_journal_that_cannot_be_appended_to_stops_the_run_in_words(copy: Path) -> None:
    """The first finished game cannot be journaled: the run stops with one error line."""
    games = copy / "results" / "t" / "games.jsonl"
    kept = b"".join(games.read_bytes().splitlines(keepends=True)[:4])
    games.write_bytes(kept)  # an interrupted run: 4 of 6 games finished
    games.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    result = run_unprivileged("tournament", copy / "t.toml", "--results", copy / "results")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == ""
    assert f"error: cannot append to {games}: permission denied; " in result.stdout
    assert "finished games are saved; once it can run, resume with" in result.stdout
    assert f"resume with: arena tournament {copy / 't.toml'} --results" in result.stdout
    assert "Traceback" not in result.stdout
    assert games.read_bytes() == kept


# -- 3. damaged lines ------------------------------------------------------------------------


def test_damaged_journal_lines_are_left_out_by_the_leaderboard_and_set_aside_by_a_run(
    copy: Path,
) -> None:
    file, folder = copy / "t.toml", copy / "results" / "t"
    games = folder / "games.jsonl"
    lines = games.read_bytes().splitlines(keepends=True)
    assert len(lines) == 6
    garbage = b'{"ruleset": "odin-race", "seed": \n'  # a damaged line in the middle
    cut = lines[5][:80] + b"\n"  # a cut last line that kept its newline
    games.write_bytes(lines[0] + garbage + b"".join(lines[2:5]) + cut)
    good = [lines[0], *lines[2:5]]
    before = snapshot(folder)

    # Reading: the good records' standings, a warning per damaged line, the folder untouched.
    board = invoke("leaderboard", folder)
    assert board.exit_code == 0, board.output
    assert "t: 4 games" in board.output
    for number in (2, 6):
        assert f"warning: {games}:{number}: not a game record (" in board.output
    assert "left out of these standings" in board.output
    as_json = invoke("leaderboard", folder, "--json")
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout)["games"] == 4  # the warnings went to stderr
    assert f"warning: {games}:2: not a game record" in as_json.stderr
    assert snapshot(folder) == before

    # The next run sets them aside, keeps every good record as it was, plays those 2 again.
    run = invoke("tournament", file, "--results", copy / "results")
    assert run.exit_code == 0, run.output
    aside = folder / "games.damaged.jsonl"
    for number in (2, 6):
        assert f"warning: {games}:{number}: not a game record (" in run.output
    assert f"set aside in {aside}, its game will be played again" in run.output
    assert "resuming: 4 games already played" in run.output
    assert games.read_bytes().startswith(b"".join(good))
    assert sorted(ids(games)) == planned(file)
    entries = [msgspec.json.decode(x, type=SetAside) for x in aside.read_bytes().splitlines()]
    assert [(e.file, e.line, e.text) for e in entries] == [
        ("games.jsonl", 2, garbage.decode().removesuffix("\n")),
        ("games.jsonl", 6, cut.decode().removesuffix("\n")),
    ]
    clean = invoke("leaderboard", folder)
    assert clean.exit_code == 0 and "warning" not in clean.output
    assert "t: 6 games" in clean.output


def test_a_game_journaled_twice_counts_once_and_the_second_is_set_aside(copy: Path) -> None:
    """What two runs writing one journal at once left behind (before runs were locked)."""
    file, folder = copy / "t.toml", copy / "results" / "t"
    games = folder / "games.jsonl"
    lines = games.read_bytes().splitlines(keepends=True)
    games.write_bytes(b"".join(lines) + lines[1])
    first = json.loads(lines[1])["game"]
    board = invoke("leaderboard", folder, "--json")
    assert json.loads(board.stdout)["games"] == 6
    assert f"{games}:7: a second record of game {first} (the first is line 2)" in board.stderr
    run = invoke("tournament", file, "--results", copy / "results")
    assert run.exit_code == 0, run.output
    assert games.read_bytes() == b"".join(lines)  # nothing left to play
    assert "t: 6 games" in run.output


def test_a_damaged_schedule_line_is_set_aside_and_planned_again(copy: Path) -> None:
    file, folder = copy / "t.toml", copy / "results" / "t"
    schedule = folder / "schedule.jsonl"
    lines = schedule.read_bytes().splitlines(keepends=True)
    schedule.write_bytes(b"".join(lines[:2]) + b"\x00\x01 damaged\n" + b"".join(lines[3:]))
    run = invoke("tournament", file, "--results", copy / "results")
    assert run.exit_code == 0, run.output
    assert f"warning: {schedule}:3: not a planned game (" in run.output
    assert f"set aside in {folder / 'schedule.damaged.jsonl'}" in run.output
    assert sorted(schedule.read_bytes().splitlines(keepends=True)) == sorted(lines)
    assert sorted(ids(folder / "games.jsonl")) == planned(file)  # nothing played twice
    (entry,) = (folder / "schedule.damaged.jsonl").read_bytes().splitlines()
    assert msgspec.json.decode(entry, type=SetAside).line == 3


def test_a_damaged_config_file_is_one_error_in_words(copy: Path) -> None:
    folder = copy / "results" / "t"
    (folder / "tournament.json").write_text('{"config": ')
    for args in (
        ("leaderboard", folder),
        ("tournament", copy / "t.toml", "--results", folder.parent),
    ):
        result = invoke(*args)
        assert result.exit_code == 2
        assert "tournament.json is damaged" in one_error_line(result.output)


def test_many_damaged_lines_are_named_five_at_a_time(copy: Path) -> None:
    folder = copy / "results" / "t"
    games = folder / "games.jsonl"
    games.write_bytes(games.read_bytes() + b"".join(b"junk %d\n" % i for i in range(7)))
    board = invoke("leaderboard", folder)
    assert board.exit_code == 0, board.output
    named = [line for line in board.output.splitlines() if line.startswith("warning: ")]
    assert [line.split(": ")[1] for line in named[:5]] == [f"{games}:{n}" for n in range(7, 12)]
    assert named[5:] == [f"warning: {games}: 2 more damaged lines, left out"]
    assert "t: 6 games" in board.output


# -- 4. a long journal is read once, as summaries ---------------------------------------------


def test_a_resume_and_the_leaderboard_read_the_journal_once_and_never_whole(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume reads the journal once, as summaries (no moves, no stderr), for the games done
    and the standings alike; the schedule once, for the games to plan. A leaderboard reads the
    journal once."""
    folder = copy / "results" / "t"
    reads: list[tuple[str, str]] = []
    summaries, lines = results_module.read_summary_lines, results_module.read_lines

    def counted_summaries(path: Path, damaged: list[DamagedLine]) -> Iterator[Line[GameSummary]]:
        reads.append((Path(path).name, "summaries"))
        return summaries(path, damaged)

    def counted_lines(path: Path, type: type[T], damaged: list[DamagedLine]) -> Iterator[Line[T]]:
        reads.append((Path(path).name, type.__name__))
        return lines(path, type, damaged)

    monkeypatch.setattr(results_module, "read_summary_lines", counted_summaries)
    monkeypatch.setattr(results_module, "read_lines", counted_lines)
    run = invoke("tournament", copy / "t.toml", "--results", copy / "results")
    assert run.exit_code == 0, run.output
    assert "resuming: 6 games already played" in run.output and "t: 6 games" in run.output
    assert reads == [("games.jsonl", "summaries"), ("schedule.jsonl", "Game")]
    reads.clear()
    board = invoke("leaderboard", folder, "--json")
    assert json.loads(board.stdout)["games"] == 6
    assert reads == [("games.jsonl", "summaries")]


def test_finished_gives_each_game_s_ranks_in_journal_order_and_each_summary(copy: Path) -> None:
    folder = ResultsDir.existing(copy / "results" / "t")
    heard: list[GameSummary] = []
    finished = folder.finished(heard.append)
    records = folder.records()
    assert list(finished) == [r.game for r in records] == [s.game for s in heard]
    assert all(finished[r.game] == tuple(r.ranks) for r in records)
    assert heard == [GameSummary.of(r) for r in records]


def test_planning_again_appends_only_the_games_the_schedule_file_lacks(tmp_path: Path) -> None:
    """A resume plans the same games again: the file lists them in order and nothing is added;
    games it lists in another order, or lacks, are found all the same."""
    folder = ResultsDir.hold(tmp_path / "t")
    games = [Game(f"r0-t{i}-d0-s0", 0, i, 0, 0, ("a", "b"), i) for i in range(5)]
    folder.plan([games[3], games[0], games[1]])
    folder.plan(games)
    assert [g.id for g in folder.planned()] == [games[i].id for i in (3, 0, 1, 2, 4)]
    before = folder.schedule_file.read_bytes()
    folder.plan(games)
    folder.plan(games[:2])
    assert folder.schedule_file.read_bytes() == before
    folder.release()
