"""What the `arena` command shows of bots that break the protocol, and the sandbox's mixing rule.

Whatever a bot writes (Rich markup such as `[/]`, terminal escape sequences, in its name,
its answers or its stderr), `play` and `check-bot` finish, keep the record, and print it as
plain text: no raw control character, no traceback. check-bot's summary counts the decisions
a bot faulted on and their time. Unsandboxed bots are not seated with sandboxed ones unless
the user says so.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import typing
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import Result

from arena.cli.views import (
    LiveTournament,
    leaderboard_csv,
    leaderboard_json,
    leaderboard_table,
    pairs_table,
    shown,
)
from arena.league.leaderboard import Standings, leaderboard
from arena.league.tournament import Progress
from arena.referee.faults import HINTS, FaultKind
from arena.referee.local import play_local, random_decider
from arena.referee.records import read_records
from arena.referee.sandbox import sandbox_problem
from arena.referee.text import plain
from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM
from tests.helpers.paths import TEST_BOTS as BOTS
from tests.helpers.tournaments import path_bot, write_tournament

EVIL_NAME = "evil[bold]\x1b[31m"  # a bot's name is its file's: markup and an escape sequence
SHOWN_NAME = "evil[bold]\\x1b[31m"


def evil_bot(tmp_path: Path, mode: str) -> str:
    """The command line of tests/bots/markup_bot.py (in `mode`), copied under EVIL_NAME."""
    script = tmp_path / f"{EVIL_NAME}.py"
    shutil.copy(BOTS / "markup_bot.py", script)
    return f"env MARKUP_BOT={mode} {sys.executable} '{script}'"


def assert_plain(result: Result) -> None:
    """The command ended by itself (no exception escaped it) and printed only plain text."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    bad = sorted({c for c in result.output if not (c.isprintable() or c == "\n")})
    assert not bad, f"control characters printed: {bad}"


def test_play_shows_a_bot_writing_markup_and_escapes_as_plain_text(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    bot = evil_bot(tmp_path, "answer")
    result = invoke("play", "odin-race", bot, RANDOM, "--record", record, "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert_plain(result)
    (rec,) = read_records(record)
    (fault,) = rec.faults
    assert (fault.seat, fault.kind, fault.bot) == (0, "schema", EVIL_NAME)
    assert "\x1b" not in fault.reason and "[/]\\x1b[2J\\x9b[31m" in fault.reason
    assert f"schema at decision 0: {SHOWN_NAME} sent '" in result.output
    assert "Invalid value '[/]\\x1b[2J\\x9b[31m' - at `$.action.type`" in result.output
    assert f"│ {SHOWN_NAME} │" in result.output  # the table's bot cell
    # the end of its stderr, as plain text
    assert "its stderr, last lines:\n    [/] stderr \\x1b[31mred\\x1b[0m [bold]not bold" in (
        result.output
    )
    assert f"record appended to {record}" in result.output

    replayed = invoke("replay", record)
    assert replayed.exit_code == 0, replayed.output
    assert_plain(replayed)
    assert f"{SHOWN_NAME} sent '" in replayed.output


def test_play_shows_the_end_of_the_stderr_of_a_bot_that_failed_to_start(tmp_path: Path) -> None:
    result = invoke(
        "play", "odin-race", RANDOM, evil_bot(tmp_path, "exit"), "-q", "--sandbox", "off"
    )
    assert result.exit_code == 0, result.output
    assert_plain(result)
    assert f"startup during the handshake: {SHOWN_NAME} exited with status 1 before answering" in (
        result.output
    )
    shown = [line for line in result.output.splitlines() if line.startswith("    line ")]
    assert shown == [f"    line {n} [/]\\x1b[2K" for n in range(6, 16)]  # the last 10 lines


def test_check_bot_explains_a_bot_writing_markup_and_escapes(tmp_path: Path) -> None:
    result = invoke("check-bot", evil_bot(tmp_path, "answer"), "-r", "odin-race", "--games", "1")
    assert result.exit_code == 1, result.output
    assert_plain(result)
    assert f"{SHOWN_NAME}: 8 games, 8 decisions, slowest " in result.output  # every seat
    assert f"schema in 8 of 8 games: {SHOWN_NAME} sent '" in result.output  # one per cause
    assert "  in odin-race (2 players, seat 0, seed 2000) at decision 0, " in result.output
    assert "its stderr, last lines:\n    [/] stderr \\x1b[31mred" in result.output


def summary(output: str) -> tuple[int, int, float, bool]:
    """check-bot's summary line: games, decisions, the slowest decision in ms, and whether
    the bot faulted on that one."""
    found = re.search(
        r": (\d+) games, (\d+) decisions, slowest ([\d.]+) ms( \(one it faulted on\))?", output
    )
    assert found, output
    return int(found[1]), int(found[2]), float(found[3]), bool(found[4])


@pytest.mark.slow
def test_check_bot_counts_a_timed_out_decision_and_its_time() -> None:
    """The bot sleeps far past its 500 ms: the decision counts, as the 500 ms it had and the
    500 ms waited for a late answer."""
    bot = f"{sys.executable} {BOTS / 'slow_bot.py'} 2.0"
    args = ["-r", "override-classic", "--games", "1", "--move-time", "0.5", "--sandbox", "off"]
    result = invoke("check-bot", bot, *args)
    assert result.exit_code == 1, result.output
    games, decisions, slowest, faulted = summary(result.output)
    assert (games, decisions, faulted) == (2, 2, True)
    assert 1000 <= slowest < 2500
    assert "did not answer within 500 ms (waited 500 ms more)" in result.output


def test_check_bot_counts_the_decisions_of_a_bot_that_always_faults() -> None:
    bot = f"{sys.executable} {BOTS / 'garbage_bot.py'}"
    result = invoke("check-bot", bot, "-r", "odin", "--games", "2", "--sandbox", "off")
    assert result.exit_code == 1, result.output
    games, decisions, slowest, faulted = summary(result.output)
    assert (games, decisions, faulted) == (8, 8, True)  # 2 and 6 players, a game per seat
    assert 0 < slowest < 1000
    assert result.output.count(": malformed at decision ") == 8  # each game's line
    # and once, for them all
    assert result.output.count("garbage_bot sent 'this is {not JSON', which is not JSON") == 1
    assert "malformed in 8 of 8 games: garbage_bot sent 'this is {not JSON'" in result.output


def test_check_bot_counts_a_good_bots_decisions() -> None:
    result = invoke("check-bot", RANDOM, "-r", "odin-race", "--games", "1", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    games, decisions, _, faulted = summary(result.output)
    assert games == 8 and decisions > 8 and not faulted


# -- mixing sandboxed and unsandboxed bots ------------------------------------------------------


def test_unsandboxed_bots_are_not_seated_with_sandboxed_ones_unless_allowed(
    tmp_path: Path,
) -> None:
    assert sandbox_problem() is None, f"{sandbox_problem()}: this test needs bubblewrap"
    bots = [path_bot(RANDOM), path_bot(RANDOM, name="loose", sandbox="off")]
    file = write_tournament(tmp_path, bots)
    results = tmp_path / "results"

    refused = invoke("tournament", file, "--results", results)
    assert refused.exit_code == 2, refused.output
    assert_plain(refused)
    for words in (
        "error: loose would run without the sandbox, at tables with sandboxed bots",
        "can read a sandboxed opponent's input (its hidden hand) through /proc/<pid>/fd/0",
        "ptrace or kill it",
        "--allow-mixed-sandbox",
        "allow_mixed_sandbox = true",
    ):
        assert words in refused.output
    assert not (results / "t").exists()  # nothing was played

    allowed = invoke("tournament", file, "--results", results, "--allow-mixed-sandbox")
    assert allowed.exit_code == 0, allowed.output
    assert allowed.output.count("warning") == 1
    assert "warning: loose run without the sandbox beside sandboxed bots (allowed)" in (
        allowed.output
    )
    records = list(read_records(results / "t" / "games.jsonl"))
    assert len(records) == 2
    for rec in records:
        assert {s.bot: s.sandboxed for s in rec.seats} == {"random-py": True, "loose": False}
        assert rec.faults == []

    # the same in the file: the same tournament (it resumes, all played), with one warning
    in_file = write_tournament(tmp_path, bots, file="allowed.toml", allow_mixed_sandbox=True)
    again = invoke("tournament", in_file, "--results", results)
    assert again.exit_code == 0, again.output
    assert again.output.count("warning") == 1 and "resuming: 2 games" in again.output

    # every bot out of the sandbox is no mix
    off = invoke("tournament", file, "--results", results, "--sandbox", "off")
    assert off.exit_code == 0 and "warning" not in off.output, off.output

    bad = write_tournament(tmp_path, bots, file="bad.toml", allow_mixed_sandbox="yes")
    result = invoke("tournament", bad, "--results", results)
    assert result.exit_code == 2
    assert '`allow_mixed_sandbox` must be true or false, not "yes"' in result.output


def test_play_and_sprt_take_the_opt_in(tmp_path: Path) -> None:
    """One --sandbox mode applies to all their bots, so they never mix: the flag changes
    nothing, and no warning is printed."""
    result = invoke("play", "odin-race", RANDOM, RANDOM, "-q", "--allow-mixed-sandbox")
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    args = ["-r", "odin-race", "--max-pairs", "1", "--allow-mixed-sandbox"]
    result = invoke("sprt", RANDOM, RANDOM, *args, "--results", tmp_path)
    assert result.exit_code == 4 and "warning" not in result.output, result.output  # undecided


# -- the helpers, and the tables of tournaments -------------------------------------------------


def test_plain_escapes_control_characters_and_keeps_the_rest() -> None:
    assert plain("random-py [/] ünïcödé ♠") == "random-py [/] ünïcödé ♠"
    assert plain("a\x1b[2Jb\x00\x7f\x9b\u202e\r\U000e0001") == (
        "a\\x1b[2Jb\\x00\\x7f\\x9b\\u202e\\x0d\\U000e0001"
    )
    assert plain("one\n\ttwo") == "one\\x0a\\x09two"
    assert plain("one\n\ttwo\x1b", lines=True) == "one\n\ttwo\\x1b"
    assert shown("[/]\x1b").plain == "[/]\\x1b"  # a Text: markup is not parsed


def test_every_fault_kind_has_a_hint() -> None:
    assert set(HINTS) == set(typing.get_args(FaultKind))


async def test_leaderboards_show_bot_names_as_plain_text() -> None:
    names = [EVIL_NAME, "[/]\u202e"]
    deciders = [random_decider("a"), random_decider("b")]
    records = [(await play_local("odin-race", deciders, seed=s, names=names))[0] for s in (1, 2)]
    board = leaderboard(records, names)
    out = io.StringIO()
    console = Console(file=out, width=200)
    console.print(leaderboard_table(board, title="[/]\x1b[31m"))
    console.print(pairs_table(board))
    standings = Standings(names)
    standings.add(records[0])
    live = LiveTournament("t", standings, 4)
    live.add(records[1], Progress(done=2, total=4))  # the live top of the table
    console.print(live)
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text
    assert text.count(SHOWN_NAME) == 4 and "[/]\\u202e" in text and "[/]\\x1b[31m" in text
    csv_text = leaderboard_csv(board)
    assert SHOWN_NAME in csv_text and "\x1b" not in csv_text
    as_json = leaderboard_json(board)
    assert "\u202e" not in as_json and "\x1b" not in as_json
    assert {row["bot"] for row in json.loads(as_json)["rows"]} == set(names)
