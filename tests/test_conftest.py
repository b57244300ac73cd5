"""How the suite runs (tests/conftest.py): each test in an empty working folder of its own,
bots shipped to workers unpacked into the run's own cache, and a run with `-n` (pytest-xdist)
leaving out the tests marked `alone`, saying so and how to run them."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import alone_command
from tests.helpers.paths import ROOT


def test_a_test_starts_in_an_empty_folder_of_its_own_outside_the_checkout() -> None:
    here = Path.cwd()
    assert list(here.iterdir()) == []
    assert not here.is_relative_to(ROOT)
    (here / "results").mkdir()  # (what the next test's folder must not hold)


def test_the_next_test_starts_in_another_empty_folder() -> None:
    assert list(Path.cwd().iterdir()) == []


def test_bots_shipped_to_workers_go_to_the_runs_own_private_cache() -> None:
    from arena.league.executors.shipping import cache_folder

    cache = cache_folder()
    assert os.environ["ARENA_BOT_CACHE"] == str(cache)
    assert cache.name.startswith("bot-cache") and not cache.is_relative_to(ROOT)
    mode = cache.stat().st_mode
    assert stat.S_IMODE(mode) == 0o700 and cache.stat().st_uid == os.geteuid()


def test_the_command_for_the_left_out_tests_keeps_the_runs_selection() -> None:
    assert alone_command("") == 'pytest -m "alone"'
    assert alone_command("not slow") == 'pytest -m "alone and (not slow)"'


WIDTH_AFTER_A_NARROW_COMMAND = """
import os
import tests.conftest
from typer.testing import CliRunner
from arena.cli.app import app

CliRunner().invoke(app, ["games"], env={"COLUMNS": "40"})
from arena.cli.common import console
os.environ["COLUMNS"] = "400"
print(console.width)
"""


def test_a_commands_width_is_its_own_columns_whichever_command_ran_first() -> None:
    """In a fresh process, as a pytest worker starts: after a command run at 40 columns, the
    console is as wide as the next command's COLUMNS say (not 40 for the rest of the run)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(
        [sys.executable, "-c", WIDTH_AFTER_A_NARROW_COMMAND],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["400"]


def test_a_folder_named_in_the_environment_is_taken_from_where_pytest_started() -> None:
    """ARENA_SCREENSHOTS=docs/images names the checkout's docs/images when pytest is started
    there, though the browser tests that write it run in folders of their own."""
    script = "import os, tests.conftest; print(os.environ['ARENA_SCREENSHOTS'])"
    env = {**os.environ, "ARENA_SCREENSHOTS": "docs/images"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(ROOT / "docs" / "images")]


SAMPLE = """
import pytest

@pytest.mark.alone
def test_timed_under_a_known_load():
    pass

@pytest.mark.alone
@pytest.mark.slow
def test_timed_and_slow():
    pass

def test_other():
    pass
"""


def run_pytest(folder: Path, *args: str) -> str:
    """pytest on `folder`'s tests with this suite's settings (pyproject.toml) and
    tests/conftest.py: its output."""
    command = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml")]
    command += ["--rootdir", str(folder), "-p", "tests.conftest", "-p", "no:cacheprovider"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "300"}
    done = subprocess.run(
        [*command, *args, str(folder)], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_run_with_n_leaves_out_the_alone_tests_and_says_how_to_run_them(
    tmp_path: Path,
) -> None:
    """Of the tests `-m "not slow"` selects, `-n 1` runs all but the one marked alone, and
    says how to run it; without `-n`, the alone tests run, and nothing is said."""
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE))
    quick = run_pytest(tmp_path, "-q", "-n", "1", "-m", "not slow")
    assert "1 passed" in quick
    assert (
        "note: 1 test marked alone did not run: with -n they would share the machine's cores "
        'with other tests; run them on their own: pytest -m "alone and (not slow)"'
    ) in quick

    after = run_pytest(tmp_path, "-q", "-m", "alone")
    assert "2 passed" in after and "did not run" not in after
