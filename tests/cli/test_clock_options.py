"""Clock values that cannot work (a move time of 0: every decision a timeout) stop a command
before anything runs, with a message naming the option or the field and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM
from tests.helpers.tournaments import path_bot, write_tournament


@pytest.mark.parametrize(
    ("args", "option", "value"),
    [
        (["play", "odin-race", RANDOM, RANDOM, "--move-time", "0"], "--move-time", "0"),
        (["play", "odin-race", RANDOM, RANDOM, "--move-time", "-1"], "--move-time", "-1"),
        (["play", "odin-race", RANDOM, RANDOM, "--startup-time", "0"], "--startup-time", "0"),
        (["play", "odin-race", RANDOM, RANDOM, "--bank", "-2"], "--bank", "-2"),
        (["play", "odin-race", RANDOM, RANDOM, "--increment", "-0.1"], "--increment", "-0.1"),
        (["check-bot", RANDOM, "-r", "odin-race", "--move-time", "0"], "--move-time", "0"),
        (["sprt", RANDOM, RANDOM, "-r", "odin-race", "--move-time", "0"], "--move-time", "0"),
    ],
)
def test_a_clock_option_that_cannot_work_stops_the_command(
    args: list[str | Path], option: str, value: str
) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert f"error: {option} must be at least" in result.output
    assert f"got {value}" in result.output
    assert "players" not in result.output and "SPRT" not in result.output  # nothing played


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("move = 0", "`[time] move`"),
        ("move = -1", "`[time] move`"),
        ("startup = 0", "`[time] startup`"),
        ("bank = -1", "`[time] bank`"),
        ("increment = nan", "`[time] increment`"),
    ],
)
def test_a_tournament_clock_that_cannot_work_is_refused(
    tmp_path: Path, line: str, field: str
) -> None:
    file = write_tournament(tmp_path, [path_bot(RANDOM), path_bot(RANDOM, name="r2")])
    file.write_text(file.read_text() + f"\n[time]\n{line}\n")
    result = invoke("tournament", file, "--results", tmp_path / "results")
    assert result.exit_code == 2, result.output
    assert f"{field} must be at least" in result.output
    assert not (tmp_path / "results" / "t").exists()
