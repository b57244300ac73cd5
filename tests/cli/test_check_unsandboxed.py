"""`arena check-bot` never runs a sandboxed bot outside the sandbox unless asked to
(`--try-unsandboxed`), and then says so: a bot that fails only inside the sandbox (it knows
the sandbox by its hostname) would otherwise get a run as the user running arena, unconfined.
bubblewrap must be installed (`bash .ci/run` installs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.referee.sandbox import sandbox_problem
from tests.helpers.cli import invoke
from tests.helpers.paths import TEST_BOTS

HOSTNAME_BOT = TEST_BOTS / "hostname_bot.py"


def sandboxed_check(marker: Path, *options: str) -> list[str | Path]:
    """check-bot's arguments for the hostname bot, which writes `marker` when it runs
    outside the sandbox: override-classic, 2 games (one per seat)."""
    assert sandbox_problem() is None, f"{sandbox_problem()}: this test needs bubblewrap"
    bot = f"{sys.executable} {HOSTNAME_BOT} {marker}"
    return ["check-bot", bot, "-r", "override-classic", "--games", "1", *options]


@pytest.mark.parametrize("mode", ["on", "auto"])
def test_a_bot_failing_in_the_sandbox_is_not_run_outside_it(tmp_path: Path, mode: str) -> None:
    marker = tmp_path / "outside"
    result = invoke(*sandboxed_check(marker, "--sandbox", mode))
    assert result.exit_code == 1, result.output
    assert not marker.exists(), marker.read_text()
    assert "WITHOUT the sandbox" not in result.output
    assert "has problems inside the sandbox" in result.output
    assert "whether it works without it was not tried (--try-unsandboxed" in result.output
    assert "it tried to reach (from its error output):" in result.output
    assert f"  {tmp_path} (outside the sandbox)" in result.output


def test_try_unsandboxed_runs_it_outside_once_with_a_warning(tmp_path: Path) -> None:
    marker = tmp_path / "outside"
    result = invoke(*sandboxed_check(marker, "--sandbox", "on", "--try-unsandboxed"))
    assert result.exit_code == 1, result.output
    assert marker.read_text().count("ran outside the sandbox") == 1
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.output
    assert warnings[0].startswith(
        "warning: playing override-classic (2 players, seat 0, seed 2000) again WITHOUT the "
        "sandbox (--try-unsandboxed): hostname_bot runs as "
    )
    assert warnings[0].endswith(", unconfined")
    assert "does not work inside the sandbox" in result.output
    assert "but works without it" in result.output
    assert f"  {tmp_path} (outside the sandbox)" in result.output
