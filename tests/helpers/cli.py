"""The `arena` command run in process, as a user runs it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from typer.testing import CliRunner, Result

from arena.cli.app import app

runner = CliRunner()
WIDE = {"COLUMNS": "400"}  # no line wrapping of the messages and tables tests check


def invoke(*args: str | Path) -> Result:
    """`arena ARGS` in process, with wide lines (no wrapping of what is checked)."""
    return runner.invoke(app, [str(a) for a in args], env=WIDE)


def commands_seating(bot: str | Path, opponent: str | Path, record: Path) -> list[list[str | Path]]:
    """Every command that loads `bot` before its first game (play, check-bot, sprt), on
    odin-race; `play` would append its game to `record`."""
    return [
        ["play", "odin-race", bot, opponent, "--record", record],
        ["check-bot", bot, "-r", "odin-race"],
        ["sprt", bot, opponent, "-r", "odin-race", "--max-pairs", "1"],
    ]


def arena(*args: str | Path) -> list[str]:
    """The command line of `arena ...` run by this Python."""
    return [sys.executable, "-m", "arena", *map(str, args)]


@contextlib.contextmanager
def started_arena(*args: str | Path) -> Iterator[subprocess.Popen[str]]:
    """`arena ...` in its own session (process group), its output wide and read as one
    stream; killed with its group if left running."""
    proc = subprocess.Popen(
        arena(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **WIDE},
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def wait_for_games(games: Path, count: int, proc: subprocess.Popen[str]) -> None:
    """Until `games` holds `count` finished games; the run must still be going then."""
    deadline = time.monotonic() + 60
    while not (games.exists() and games.read_bytes().count(b"\n") >= count):
        assert proc.poll() is None, f"the run ended early: {proc.communicate()[0]}"
        assert time.monotonic() < deadline, "no games were finished"
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
