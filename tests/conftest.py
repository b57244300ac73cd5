"""What the whole suite shares.

The tests mirror arena's layers: tests/games/, tests/referee/, tests/league/ and tests/cli/
(the top level keeps the tests that pin no single layer). Shared helpers live in
tests/helpers/ and are imported from there, never from another test module:

- `paths`: the repository, the example bots, tests/bots/ and tests/golden/
- `tournaments`: tournament files and their [[bots]] entries
- `records`: `check_record` (a record replays, ranks follow the fault policy) and `seating`
- `cli`: `invoke`, the `arena` command in process with wide lines
- `sandbox`: the hostile bot as a sandboxed bot spec
- `odin`, `bested`, `bounds`, `play`, `messages`: the game families' rules helpers
- `reports`: results folders of random games made in process, and the hidden cards of a
  replay's seats (the HTML report's tests and `bash bench/run report`)

How the suite runs (the markers are registered in pyproject.toml):

- `pytest -m "not slow"` is the quick subset; `slow` marks the tests of a second or more
  (long games, soaks, thousands of games, clusters, the browser).
- `pytest -n 2` (pytest-xdist; `--dist loadscope` is the default, so a module's expensive
  module-scoped fixtures are set up once) runs the tests two at a time. The tests marked
  `alone` time real processes against real clocks under a known load (deadlines read to the
  millisecond, busy loops on every core): a test running beside them would change that load
  and they would change its, so a run with `-n` leaves them out and says so at its end; run
  them after it, on their own: `pytest -m alone`.
- Every test runs in an empty folder of its own (its working directory), so a command that
  writes to its default places (`results/`) never writes into the checkout, and two tests
  run at once never share one; bots shipped to worker processes are unpacked into the
  run's own cache ($ARENA_BOT_CACHE), not the user's.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The helpers assert as the tests do (check_record, the rules checkers): let pytest explain
# their failures as it does the tests' own.
pytest.register_assert_rewrite("tests.helpers")

# The commands' console (arena.cli.common.console) is made once per process, and keeps the
# COLUMNS and the terminal it was made under. The tests run many commands in one process, each
# with its own COLUMNS (CliRunner's env): made first inside one of them, it would keep that
# command's width for every later one, and which command ran first depends on the order the
# tests run in (`-n` changes it). Made here, under no COLUMNS and off a terminal, it follows
# each command's own. (A module that cannot be imported is left to the tests of the commands
# to show, rather than stopping every test here.)
with pytest.MonkeyPatch.context() as _patch, contextlib.suppress(Exception):
    _patch.delenv("COLUMNS", raising=False)
    _patch.delenv("LINES", raising=False)
    _patch.setattr(sys, "stdout", io.StringIO())
    import arena.cli.common  # noqa: F401

# Folders named in the environment for the tests (ARENA_SCREENSHOTS=docs/images, where the
# browser tests write their screenshots) are taken from the folder pytest was started in, as
# the one who typed them meant, though every test runs in a folder of its own (below).
PATH_VARIABLES = ("ARENA_SCREENSHOTS",)
for _name in PATH_VARIABLES:
    if os.environ.get(_name):
        os.environ[_name] = os.path.abspath(os.environ[_name])

ALONE = "alone"
_LEFT_OUT = "arena_alone_left_out"  # how many `alone` tests a worker left out (workeroutput)
_left_out_key = pytest.StashKey[int]()  # (on the controller) the most any worker left out


def _parallel(config: pytest.Config) -> bool:
    """Whether this run spreads its tests over pytest-xdist workers (`-n N`, N > 0)."""
    return hasattr(config, "workerinput") or bool(config.getoption("numprocesses", None))


@pytest.hookimpl(trylast=True)  # (after -m and -k: only the tests the run would have run)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a run with `-n`, the `alone` tests are left out (deselected and counted, so the run
    says so at its end): they must not share the machine's cores with other tests."""
    if not _parallel(config):
        return
    alone = [item for item in items if item.get_closest_marker(ALONE) is not None]
    if not alone:
        return
    config.hook.pytest_deselected(items=alone)
    items[:] = [item for item in items if item.get_closest_marker(ALONE) is None]
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_LEFT_OUT] = len(alone)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """(pytest-xdist, on the controller) Keeps a finished worker's count of `alone` tests."""
    left_out = getattr(node, "workeroutput", {}).get(_LEFT_OUT, 0)
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    config.stash[_left_out_key] = max(config.stash.get(_left_out_key, 0), left_out)


def alone_command(markexpr: str) -> str:
    """The command that runs the `alone` tests a run with `-m markexpr` and `-n` left out."""
    expression = f"{ALONE} and ({markexpr})" if markexpr else ALONE
    return f'pytest -m "{expression}"'


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    left_out = config.stash.get(_left_out_key, 0)
    if left_out and not hasattr(config, "workerinput"):
        tests = "1 test" if left_out == 1 else f"{left_out} tests"
        terminalreporter.write_line(
            f"note: {tests} marked {ALONE} did not run: with -n they would share the machine's "
            f"cores with other tests; run them on their own: "
            f"{alone_command(config.getoption('markexpr', ''))}",
            yellow=True,
            bold=True,
        )


@pytest.fixture(scope="session")
def _cwd_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cwd")


@pytest.fixture(autouse=True)
def _cwd_of_its_own(_cwd_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts in an empty folder of its own, outside the checkout."""
    monkeypatch.chdir(tempfile.mkdtemp(dir=_cwd_root))


@pytest.fixture(scope="session", autouse=True)
def _bot_cache_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Bots shipped to worker processes are unpacked into this run's own private folder (the
    workers inherit $ARENA_BOT_CACHE), never the user's nor another run's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_BOT_CACHE", str(tmp_path_factory.mktemp("bot-cache")))
        yield
