"""Every mistake on the command line is one `error:` line in the project's words, naming the
option or argument, with exit status 2: no usage panel, no library wording, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import invoke

RANDOM = str(Path(__file__).resolve().parents[2] / "examples" / "bots" / "random-py")


def one_error(*args: str | Path) -> str:
    """The one line `arena ARGS` prints, checked to be an error with exit status 2."""
    result = invoke(*args)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, (args, result.output)
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), args
    return lines[0]


def test_a_malformed_number_names_its_option() -> None:
    assert one_error("sprt", "a", "b", "-r", "odin", "--jobs", "abc") == (
        "error: --jobs: 'abc' is not a whole number"
    )
    assert one_error("sprt", "a", "b", "-r", "odin", "--elo0", "x") == (
        "error: --elo0: 'x' is not a number"
    )


def test_a_value_out_of_range_names_its_option_and_the_bound() -> None:
    assert one_error("sprt", "a", "b", "-r", "odin", "--jobs", "0") == (
        "error: --jobs: 0 is too small: it must be at least 1"
    )
    assert one_error("report", "x", "--replays", "-1") == (
        "error: --replays: -1 is too small: it must be at least 0"
    )


def test_a_value_outside_the_choices_lists_them() -> None:
    line = one_error("check-bot", RANDOM, "--sandbox", "maybe")
    assert line.startswith("error: --sandbox: 'maybe' is not one of ")
    assert "'auto'" in line and "'on'" in line and "'off'" in line


def test_a_missing_argument_or_option_is_named_with_the_usage() -> None:
    assert one_error("sprt", "a") == (
        "error: arena sprt: missing argument BOT_B (usage: arena sprt [OPTIONS] BOT_A BOT_B)"
    )
    assert one_error("sprt", "a", "b") == (
        "error: arena sprt: missing option --ruleset (usage: arena sprt [OPTIONS] BOT_A BOT_B)"
    )
    assert one_error("play", "odin", "--seed") == "error: --seed: needs a value"


def test_an_unknown_option_gets_its_near_misses() -> None:
    assert one_error("play", "odin", RANDOM, RANDOM, "--sed", "3") == (
        "error: unknown option `--sed` of arena play: did you mean `--seed` or `--record`?"
    )
    assert one_error("play", "--frobnicate") == (
        "error: unknown option `--frobnicate` of arena play (see arena play --help)"
    )
    assert one_error("--frob") == "error: unknown option `--frob` of arena (see arena --help)"


def test_an_unknown_command_gets_did_you_mean_and_the_commands() -> None:
    commands = "games, demo, play, replay, export, check-bot, tournament, leaderboard, report, "
    commands += "faults, sprt, ladder, submit, protocol"
    assert one_error("plya") == (
        f"error: unknown command `plya`: did you mean `play` or `replay`? commands: {commands}"
    )
    assert one_error("xyzzy") == f"error: unknown command `xyzzy`; commands: {commands}"
    assert one_error("protocol", "schemx") == (
        "error: unknown command `schemx` in arena protocol: did you mean `schema`? commands: schema"
    )


def test_extra_arguments_are_named() -> None:
    assert one_error("games", "extra") == "error: arena games takes no arguments, not 'extra'"
    assert one_error("sprt", "a", "b", "c", "-r", "odin") == (
        "error: arena sprt: unexpected argument 'c' (usage: arena sprt [OPTIONS] BOT_A BOT_B)"
    )


def test_a_command_s_own_bad_parameter_is_one_line_too() -> None:
    assert one_error("demo", "odin", "-o", "x") == "error: --option: expected key=value, got 'x'"


@pytest.mark.parametrize(
    ("flags", "line"),
    [
        (["--alpha", "0"], "error: --alpha: 0 is not a rate between 0 and 1 (both excluded)"),
        (["--beta", "1.5"], "error: --beta: 1.5 is not a rate between 0 and 1 (both excluded)"),
        (
            ["--alpha", "0.5", "--beta", "0.5"],
            "error: --alpha plus --beta must be below 1, not 0.5 + 0.5",
        ),
        (["--elo0", "20"], "error: --elo0 must be below --elo1, not 20 and 10"),
        (["--max-pairs", "0"], "error: --max-pairs: 0 is too small: it must be at least 1"),
        (["--workers", "0"], "error: --workers: 0 is too small: it must be at least 1"),
        (
            ["--workers", "2", "--cluster", "tcp://127.0.0.1:1"],
            "error: give --workers (processes on this machine) or --cluster, not both",
        ),
        (
            ["-r", "bested-solo"],
            "error: --ruleset bested-solo: an SPRT seats two bots, and bested-solo seats 1",
        ),
    ],
)
def test_sprt_names_the_option_it_refuses_before_anything_is_made(
    tmp_path: Path, flags: list[str], line: str
) -> None:
    """Refused before a bot is loaded or a results folder made: the bots here do not exist."""
    args = ["sprt", "no-such-bot", "nor-this", "-r", "odin", "--results", tmp_path, *flags]
    assert one_error(*args) == line
    assert list(tmp_path.iterdir()) == []


def test_the_installed_command_prints_one_line_on_stdout_and_nothing_else() -> None:
    """As a user runs it: the console script, its real exit status and streams."""
    script = Path(sys.executable).parent / "arena"
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "arena"]
    done = subprocess.run(
        [*argv, "sprt", "a", "b", "-r", "odin", "--jobs", "abc"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == "error: --jobs: 'abc' is not a whole number\n"
    assert done.stderr == ""
