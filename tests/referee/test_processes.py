"""Finding every process of an unsandboxed bot: its tree, its marked orphans, and the guardian
that ends them all when the referee dies."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.referee import guardian, processes


def _tree(tmp_path: Path, **env: str) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A child that starts a grandchild; both sleep. The child and the grandchild's pids."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    pidfile = tmp_path / "pid"
    script = (
        "import subprocess, sys, time\n"
        "g = subprocess.Popen(['sleep', '30'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(g.pid))\n"
        "time.sleep(30)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, **env})
    deadline = time.monotonic() + 10
    while not pidfile.exists() or not pidfile.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return child, [child.pid, int(pidfile.read_text())]


def test_descendants_without_the_children_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some kernels have no /proc/PID/task/TID/children: the parents in /proc/PID/stat give
    the same tree."""
    child, pids = _tree(tmp_path)
    try:
        assert processes.descendants(child.pid) == pids[1:]
        real_open = open

        def no_children(path: Any, *args: Any, **kwargs: Any) -> Any:
            if str(path).endswith("/children"):
                raise FileNotFoundError(path)
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr("builtins.open", no_children)
        assert processes.descendants(child.pid) == pids[1:]
    finally:
        monkeypatch.undo()
        for pid in reversed(pids):
            os.kill(pid, signal.SIGKILL)
        child.wait()


def test_a_mark_matches_one_bot_only(tmp_path: Path) -> None:
    """Bot 1's mark is not bot 10's: marks are compared as whole environment entries."""
    child, pids = _tree(tmp_path, ARENA_BOT="run/10")
    try:
        assert processes.marked(child.pid, "run/10")
        assert not processes.marked(child.pid, "run/1")
        assert guardian.carries(pids[1], b"ARENA_BOT=run/", prefix=True)  # inherited
    finally:
        for pid in reversed(pids):
            os.kill(pid, signal.SIGKILL)
        child.wait()


def test_the_guardian_ends_every_marked_process_when_its_referee_dies(tmp_path: Path) -> None:
    """The guardian's pipe closes however the referee ends: it kills everything carrying the
    referee's mark, and nothing else."""
    mine, mine_pids = _tree(tmp_path / "a", ARENA_BOT="r1/1")
    other, other_pids = _tree(tmp_path / "b", ARENA_BOT="r2/1")
    read, write = os.pipe()
    watcher = subprocess.Popen([sys.executable, "-I", "-S", guardian.__file__, "r1"], stdin=read)
    os.close(read)
    try:
        time.sleep(0.2)
        assert all(guardian.carries(p, b"ARENA_BOT=r1/1") for p in mine_pids)
        os.close(write)  # the referee is gone
        assert watcher.wait(timeout=10) == 0
        mine.wait(timeout=5)
        assert mine.returncode == -signal.SIGKILL
        assert other.poll() is None
    finally:
        for pid in [*mine_pids, *other_pids]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        mine.wait()
        other.wait()
