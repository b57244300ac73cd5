"""`arena tournament` without a file: the tournament as flags (--ruleset, --bot, --deals...),
written as tournament.toml into its results folder, resumed by the same command or by the
folder; mixing a file with those flags refused; refused options leave nothing on disk; and
SIGTERM stops a run as Ctrl-C does, with the games kept and the way to resume."""

from __future__ import annotations

import json
import signal
import sys
import time
import tomllib
from pathlib import Path

import msgspec
import pytest

from arena.cli.tournament import _flags_tournament, _with_limits
from arena.league.config import TOML_FILE, load_tournament, tournament_from, tournament_toml
from arena.league.results import ResultsDir
from arena.referee.records import GameRecord, read_records
from tests.helpers.cli import invoke, started_arena, wait_for_games
from tests.helpers.paths import GREEDY, RANDOM
from tests.helpers.tournaments import path_bot, write_tournament

# One short game per seating: odin for a single round to 10.
FLAGS = ["-r", "odin", "--bot", RANDOM, "--bot", GREEDY, "--deals", "2", "--seed", "5"]
FLAGS += ["-o", "rounds=1", "-o", "target=10", "--move-time", "2", "--jobs", "2"]


def played(records: list[GameRecord]) -> list[tuple[object, ...]]:
    """What a game was, whoever played it when: its id, deal, seating, moves and result."""
    return sorted(
        (
            r.game,
            r.seed,
            json.dumps(r.options, sort_keys=True),
            tuple(s.bot for s in r.seats),
            tuple((m.seat, json.dumps(m.action, sort_keys=True), m.by) for m in r.moves),
            tuple(r.scores),
            tuple(r.ranks),
        )
        for r in records
    )


def flags_run(root: Path, *more: str | Path) -> tuple[int, str]:
    result = invoke("tournament", *FLAGS, "--sandbox", "off", "--results", root, *more)
    return result.exit_code, result.output


def test_flags_play_the_same_games_as_the_equivalent_file(tmp_path: Path) -> None:
    code, out = flags_run(tmp_path / "flags")
    assert code == 0, out
    assert "odin: round-robin of 2 bots on odin, 2 seats, 4 games" in out

    file = write_tournament(
        tmp_path,
        [path_bot(RANDOM), path_bot(GREEDY)],
        name="odin",
        ruleset="odin",
        deals=2,
        seed=5,
        options={"rounds": 1, "target": 10},
        time={"move": 2},
        sandbox="off",
    )
    from_file = invoke("tournament", file, "--results", tmp_path / "file")
    assert from_file.exit_code == 0, from_file.output

    folders = [tmp_path / "flags" / "odin", tmp_path / "file" / "odin"]
    flags_games, file_games = (played(list(read_records(f / "games.jsonl"))) for f in folders)
    assert len(flags_games) == 4
    assert flags_games == file_games
    plans = [(f / "schedule.jsonl").read_text() for f in folders]
    assert plans[0] == plans[1]
    boards = [invoke("leaderboard", f, "--json").output for f in folders]
    assert boards[0] == boards[1]


def test_the_folder_holds_the_tournament_file_of_the_flags(tmp_path: Path) -> None:
    code, out = flags_run(tmp_path)
    assert code == 0, out
    folder = tmp_path / "odin"
    written = tomllib.loads((folder / TOML_FILE).read_text())
    assert written == {
        "name": "odin",
        "ruleset": "odin",
        "base": str(Path.cwd()),
        "deals": 2,
        "seed": 5,
        "options": {"rounds": 1, "target": 10},  # typed by the ruleset, as a file has them
        "time": {"move": 2.0},
        "bots": [{"path": str(RANDOM)}, {"path": str(GREEDY)}],
    }
    # the file, read back, is the tournament the folder holds
    stored = ResultsDir.existing(folder).stored()
    assert stored is not None
    pinned = msgspec.structs.replace(stored.config, jobs=None)  # --jobs: how, not which games
    assert load_tournament(folder).config == pinned
    assert load_tournament(folder / TOML_FILE).config == pinned


def test_the_same_flags_resume_and_other_flags_are_another_tournament(tmp_path: Path) -> None:
    journal = tmp_path / "odin" / "games.jsonl"
    assert flags_run(tmp_path)[0] == 0
    before = journal.read_bytes()

    code, out = flags_run(tmp_path, "--jobs", "1")  # how many at once is no other tournament
    assert code == 0, out
    assert "resuming: 4 games already played" in out
    assert journal.read_bytes() == before

    code, out = flags_run(tmp_path, "--rounds", "2", "--format", "swiss")
    assert code == 2
    assert f"{tmp_path / 'odin'} holds results of a different tournament" in out
    assert journal.read_bytes() == before

    code, out = flags_run(tmp_path, "--name", "other")  # a name of its own: a new folder
    assert code == 0, out
    assert len(list(read_records(tmp_path / "other" / "games.jsonl"))) == 4


def test_the_results_folder_made_from_flags_reopens(tmp_path: Path) -> None:
    assert flags_run(tmp_path / "results")[0] == 0
    folder = tmp_path / "results" / "odin"
    journal = folder / "games.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:2]))  # two games left to play

    again = invoke("tournament", folder, "--sandbox", "off")  # its results root: its parent
    assert again.exit_code == 0, again.output
    assert "resuming: 2 games already played" in again.output
    assert f"results in {folder}" in again.output
    assert sorted(r.game for r in list(read_records(journal))) == sorted(
        json.loads(line)["id"] for line in (folder / "schedule.jsonl").read_text().splitlines()
    )
    board = invoke("leaderboard", folder)
    assert board.exit_code == 0 and "odin: 4 games" in board.output


def test_a_file_with_flags_that_give_a_tournament_is_refused(tmp_path: Path) -> None:
    file = write_tournament(tmp_path, [path_bot(RANDOM), path_bot(GREEDY)], sandbox="off")
    results = tmp_path / "results"
    result = invoke("tournament", file, "--deals", "3", "--seed", "2", "--results", results)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert lines == [
        f"error: --deals and --seed give a tournament without a file, and {file} is one: set "
        "it in the file, or leave out the file (--jobs, --sandbox, --limit, --workers and "
        "--cluster go with either)"
    ]
    assert not results.exists()
    nothing = invoke("tournament", "--deals", "3")
    assert nothing.exit_code == 2
    assert "error: give a tournament file, or the tournament as flags: --ruleset and a --bot" in (
        nothing.output
    )


@pytest.mark.parametrize(
    ("more", "says"),
    [
        pytest.param(
            ["--rounds", "3"],
            "error: --rounds applies to the swiss format only; a round robin plays each of "
            "its tables once, on --deals deals (here 2): use --deals 6 to play 3 times as "
            "many games",
            id="rounds",
        ),
        pytest.param(
            ["--seats", "7"], "error: --seats must be a whole number from 1 to 6, not 7", id="seats"
        ),
        pytest.param(
            ["--format", "gauntlet", "--challenger", "greedy"],
            "error: unknown bot `greedy` in --challenger: did you mean `greedy-py`? bots: "
            "random-py, greedy-py",
            id="challenger",
        ),
        pytest.param(
            ["-o", "targt=15"],
            "error: odin has no option `targt`: did you mean `target`?",
            id="option",
        ),
        pytest.param(
            ["--name", "my league"],
            "error: --name must be a name of letters, digits, '.', '_' and '-' (it names the "
            'results folder), not "my league"',
            id="name",
        ),
        pytest.param(
            ["--bot", RANDOM],
            "error: bot names must differ; repeated: random-py (a bot is named by its bot.toml",
            id="twice",
        ),
    ],
)
def test_a_bad_flag_is_one_error_naming_the_flag(
    tmp_path: Path, more: list[str], says: str
) -> None:
    code, out = flags_run(tmp_path, *more)
    assert code == 2
    assert out.startswith(says), out
    assert len(out.strip().splitlines()) == 1, out
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_an_unknown_ruleset_as_a_flag_gets_did_you_mean(tmp_path: Path) -> None:
    result = invoke("tournament", "-r", "odn", "--bot", RANDOM, "--bot", GREEDY)
    assert result.exit_code == 2
    assert result.output.startswith("error: unknown ruleset `odn`: did you mean `odin`?")


@pytest.mark.parametrize(
    "refused",
    [
        pytest.param(["--workers", "2", "--cluster", "tcp://127.0.0.1:1"], id="both"),
        pytest.param(["--workers", "0"], id="no-workers"),
    ],
)
def test_a_refused_executor_option_creates_nothing(tmp_path: Path, refused: list[str]) -> None:
    results = tmp_path / "results"
    file = write_tournament(tmp_path, [path_bot(RANDOM), path_bot(GREEDY)], sandbox="off")
    for args in ([file], FLAGS):
        result = invoke("tournament", *args, "--results", results, *refused)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: ")
        assert not results.exists()
    # the corrected command runs: nothing was left to block it
    fixed = invoke("tournament", file, "--results", results)
    assert fixed.exit_code == 0, fixed.output


def test_workers_without_distributed_create_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    results = tmp_path / "results"
    file = write_tournament(tmp_path, [path_bot(RANDOM), path_bot(GREEDY)], sandbox="off")
    for option in (["--workers", "2"], ["--cluster", "tcp://127.0.0.1:1"]):
        result = invoke("tournament", file, "--results", results, *option)
        assert result.exit_code == 2
        assert "need the distributed package: pip install 'arena-referee[cluster]'" in (
            result.output
        )
        assert not results.exists()


# -- SIGTERM: as Ctrl-C ------------------------------------------------------------------------


@pytest.mark.slow
def test_sigterm_stops_a_tournament_as_ctrl_c_does(tmp_path: Path) -> None:
    root = tmp_path / "results"
    journal = root / "odin" / "games.jsonl"
    # 80 games, one at a time: far from done when the signal comes
    args = ["tournament", "-r", "odin", "--bot", RANDOM, "--bot", GREEDY, "--deals", "40"]
    with started_arena(*args, "-j", "1", "--sandbox", "off", "--results", root) as proc:
        wait_for_games(journal, 2, proc)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143, out  # 128 + SIGTERM, as a shell reports it
    saved = list(read_records(journal))  # every line a whole record
    assert 2 <= len(saved) < 80
    assert len({r.game for r in saved}) == len(saved)
    assert f"interrupted: {len(saved)} finished games are saved in {root / 'odin'}" in out
    assert f"Resume with: arena tournament {root / 'odin'}" in out
    assert f"odin so far: {len(saved)} games" in out  # the standings of the games played
    assert "Traceback" not in out


@pytest.mark.slow
def test_sigterm_stops_an_sprt_as_ctrl_c_does(tmp_path: Path) -> None:
    # random-py against greedy-py, H1 +10 Elo: many pairs before H0 is accepted
    args = ["sprt", RANDOM, GREEDY, "-r", "odin", "--jobs", "1", "--sandbox", "off"]
    with started_arena(*args, "--results", tmp_path) as proc:
        deadline = time.monotonic() + 60
        while not list(tmp_path.rglob("games.jsonl")):
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        wait_for_games(next(tmp_path.rglob("games.jsonl")), 2, proc)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143, out
    saved = list(read_records(next(tmp_path.rglob("games.jsonl"))))
    assert f"interrupted: {len(saved)} finished games are saved in" in out
    assert "run the same command again to resume" in out
    assert "Traceback" not in out


def test_options_clock_and_deal_file_flags_are_the_files_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deals.txt").write_text("7\n8\n")
    bots = [str(RANDOM), f"{sys.executable} {RANDOM / 'bot.py'}"]
    flags: dict[str, object] = dict.fromkeys(["--name", "--format", "--seats", "--deals"])
    flags |= dict.fromkeys(["--rounds", "--challenger", "--max-tables", "--seed"])
    flags |= {"--deal-file": Path("deals.txt"), "--option": ["rounds=none", "target=10"]}
    raw = _flags_tournament("odin", bots, flags, {"move": 0.5, "margin": 0.05, "bank": None})
    assert raw["options"] == {"rounds": "none", "target": 10}  # TOML has no none: as typed
    assert raw["time"] == {"move": 0.5, "margin": 0.05}
    assert raw["bots"] == [{"path": str(RANDOM)}, {"command": bots[1]}]
    source = tmp_path / "results" / "odin" / TOML_FILE
    t = tournament_from(tomllib.loads(tournament_toml(raw)), source, prefix="")
    assert t.config.deal_seeds == [7, 8]  # read from the folder the command ran in
    assert t.config.referee_config().margin_ms == 50
    assert [b.name for b in t.bots] == ["random-py", "bot"]
    assert t.bots[1].cwd == str(tmp_path) and t.bots[1].folder is None  # as `arena play`


def test_a_limit_flag_is_set_over_every_bots_sandbox_and_a_bad_one_refused(
    tmp_path: Path,
) -> None:
    t = load_tournament(write_tournament(tmp_path, [path_bot(RANDOM), path_bot(GREEDY)]))
    limited = _with_limits(t.bots, ["memory_mb=512", "processes=16"])
    assert all(b.sandbox is not None and b.sandbox.memory_mb == 512 for b in limited)
    assert all(b.sandbox is not None and b.sandbox.processes == 16 for b in limited)
    results = tmp_path / "results"
    code, out = flags_run(results, "--limit", "memory_mb=8")
    assert code == 2
    assert out.strip() == (
        'error: --limit: sandbox limit: `memory_mb` must be a whole number >= 16, not "8"'
    )
    assert not results.exists()
