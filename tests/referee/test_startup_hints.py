"""A bot that fails to start gets the hint for its cause (`arena.referee.faults.hint`): a
debug print on stdout, a first line that is not the ready line, a file the system refuses
to run, a missing interpreter, a bot that exited (its status in the reason, its stderr
kept), one too slow to answer. Each cause is played with a real bot."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.referee.faults import (
    HINTS,
    NOT_STARTED,
    SILENT_EXIT,
    STARTUP_HINTS,
    StartupCause,
    cause,
    hint,
    startup_cause,
)
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import GameRecord
from protocol.messages import Limits
from tests.helpers.paths import TEST_BOTS

PY = sys.executable
READY_THEN_FIRST = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    if json.loads(line)['type'] == 'act':\n"
    "        print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
)


def python_bot(tmp_path: Path, source: str) -> list[str]:
    script = tmp_path / "bot.py"
    script.write_text(source)
    return [PY, str(script)]


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


def debug_print(tmp_path: Path) -> list[str]:
    return python_bot(tmp_path, "print('loading weights...', flush=True)\n" + READY_THEN_FIRST)


def wrong_message(tmp_path: Path) -> list[str]:
    return python_bot(tmp_path, 'import sys\nsys.stdin.readline()\nprint(\'{"type": "hi"}\')\n')


def action_first(tmp_path: Path) -> list[str]:
    source = 'import sys\nsys.stdin.readline()\nprint(\'{"type": "action", "index": 0}\')\n'
    return python_bot(tmp_path, source)


def refused_interpreter(tmp_path: Path) -> list[str]:
    """A script whose #! names a file that may not be run: the kernel refuses the program."""
    not_runnable = tmp_path / "interpreter"
    not_runnable.write_text("")
    not_runnable.chmod(0o644)
    return [str(executable(tmp_path / "bot", f"#!{not_runnable}\n"))]


def refused_by_its_shell(tmp_path: Path) -> list[str]:
    """A shell script that runs a file that may not be run: the shell exits with 126."""
    not_runnable = tmp_path / "real-bot"
    not_runnable.write_text("")
    not_runnable.chmod(0o644)
    return ["sh", str(executable(tmp_path / "run.sh", f"exec {not_runnable}\n"))]


def env_interpreter_missing(tmp_path: Path) -> list[str]:
    return [str(executable(tmp_path / "bot", "#!/usr/bin/env arena-no-such-python\n"))]


def interpreter_missing(tmp_path: Path) -> list[str]:
    return [str(executable(tmp_path / "bot", "#!/nonexistent/arena-python\n"))]


def exits_with_a_traceback(tmp_path: Path) -> list[str]:
    source = (
        "import sys\nsys.stderr.write('ValueError: bad value in config.toml\\n')\nsys.exit(4)\n"
    )
    return python_bot(tmp_path, source)


def exits_silently(tmp_path: Path) -> list[str]:
    return python_bot(tmp_path, "import sys\nsys.exit(2)\n")


def killed(tmp_path: Path) -> list[str]:
    source = (
        "import os, signal, sys\nsys.stderr.write('bye\\n')\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    return python_bot(tmp_path, source)


def reads_to_the_end(tmp_path: Path) -> list[str]:
    return python_bot(tmp_path, "import sys\nsys.stdin.read()\n" + READY_THEN_FIRST)


def floods_stdout(tmp_path: Path) -> list[str]:
    flood = tmp_path / "flood"
    flood.write_bytes(b"debug " * 1000)
    return [PY, str(TEST_BOTS / "line_bot.py"), "ready", str(flood)]


CASES: list[tuple[Callable[[Path], list[str]], StartupCause, str]] = [
    (debug_print, "stdout", "answered hello with 'loading weights...', which is not JSON"),
    (wrong_message, "answer", 'answered hello with \'{"type": "hi"}\', which is not a valid'),
    (action_first, "answer", "answered hello with an action instead of ready"),
    (refused_interpreter, "permission", "could not be started ('"),
    (refused_by_its_shell, "permission", "exited with status 126"),
    (env_interpreter_missing, "missing", "exited with status 127"),
    (interpreter_missing, "missing", "No such file or directory"),
    (exits_with_a_traceback, "exited", "exited with status 4"),
    (killed, "exited", "was killed by SIGSEGV"),
    (reads_to_the_end, "slow", "did not answer hello within 3000 ms"),
    (floods_stdout, "stdout", "wrote a line longer than 1000 bytes"),
]


async def started(command: list[str]) -> GameRecord:
    """A game of the bot `command` in seat 0, beside a good bot (time to start when loaded)."""
    config = RefereeConfig(limits=Limits(startup_ms=3000, move_ms=1000), max_line=1000)
    bots = [
        BotSpec("mine", command),
        BotSpec("log", [PY, str(TEST_BOTS / "log_bot.py"), os.devnull]),
    ]
    return await play_game("odin-race", bots, seed=1, config=config)


@pytest.mark.parametrize(("make", "expected", "says"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_each_startup_cause_gets_its_own_hint(
    tmp_path: Path, make: Callable[[Path], list[str]], expected: StartupCause, says: str
) -> None:
    record = await started(make(tmp_path))
    (fault,) = record.faults
    assert (fault.seat, fault.kind, fault.decision) == (0, "startup", None)
    assert says in fault.reason
    assert startup_cause(fault.reason) == expected
    given = hint("startup", fault.reason, record.stderr[0])
    assert given == STARTUP_HINTS[expected] != HINTS["startup"]
    assert cause("startup", fault.reason) == f"startup: {expected}"


async def test_an_exited_bot_keeps_its_stderr_and_a_silent_one_is_told_to_run_by_hand(
    tmp_path: Path,
) -> None:
    loud = await started(exits_with_a_traceback(tmp_path))
    assert loud.stderr[0] == "ValueError: bad value in config.toml\n"
    assert "its stderr, below, says why" in hint("startup", loud.faults[0].reason, loud.stderr[0])
    silent = await started(exits_silently(tmp_path))
    assert "exited with status 2" in silent.faults[0].reason and not silent.stderr[0]
    assert hint("startup", silent.faults[0].reason, silent.stderr[0]) == SILENT_EXIT


def test_other_causes_and_kinds() -> None:
    assert startup_cause(f"{NOT_STARTED}: bubblewrap (bwrap) is not installed") == "sandbox"
    assert startup_cause("something new") == "other"
    assert hint("startup", "something new") == HINTS["startup"]
    for kind in ("timeout", "crash", "malformed", "schema", "illegal", "memory"):
        assert hint(kind, "exited with status 127 before answering") == HINTS[kind]
        assert cause(kind, "anything") == kind
