"""What the cluster options show: the help names the extra to install (`[cluster]` is not
taken for markup), and a remark of several lines (a worker's failed build with its output)
prints as lines, indented, its other control characters escaped."""

from __future__ import annotations

import pytest

from arena.cli.common import note
from tests.helpers.cli import invoke


@pytest.mark.parametrize("command", ["tournament", "sprt"])
def test_the_help_names_the_extra_to_install(command: str) -> None:
    shown = invoke(command, "--help").output
    assert "arena-referee[cluster]" in shown
    assert "needs arena-referee)" not in shown and "needs arena-referee;" not in shown
    for flag in ("--workers", "--cluster", "--wait-workers", "--wait-timeout"):
        assert flag in shown


def test_a_remark_of_several_lines_prints_as_lines(capsys: pytest.CaptureFixture[str]) -> None:
    note("worker tcp://10.0.0.7:40917: the build of b failed\nbot.c:1: error\x1b[31m red\n")
    assert capsys.readouterr().out == (
        "note: worker tcp://10.0.0.7:40917: the build of b failed\n"
        "    bot.c:1: error\\x1b[31m red\n"
    )
