"""Dask clusters for tests: a `LocalCluster` of worker processes, and real `dask scheduler`
and `dask worker` commands (each a process of its own, in its own session, killed at the
end)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed

from tests.helpers.paths import RANDOM


@contextlib.contextmanager
def local_cluster(
    workers: int, threads: int, bot_cache: Path | None = None
) -> Iterator[distributed.LocalCluster]:
    """`workers` worker processes of `threads` threads each (with their nannies, which start a
    worker again when it dies), unpacking shipped bots into `bot_cache` when given."""
    with (
        environment(ARENA_BOT_CACHE=None if bot_cache is None else str(bot_cache)),
        distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=threads,
            processes=True,
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
        ) as cluster,
    ):
        yield cluster


@contextlib.contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """This process's environment with `values` set (None: left as it is) while inside, as the
    processes started meanwhile inherit it."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value is not None:
            os.environ[name] = value
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def dask(
    folder: Path, command: str, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """`dask COMMAND ARGS` (with `env` added to this environment) in its own session, and
    the file of its log (in `folder`); killed with its session at the end."""
    log = folder / f"{command}-{time.monotonic_ns()}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", f"distributed.cli.dask_{command}", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )
    try:
        yield proc, log
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def scheduler(folder: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A `dask scheduler` on a free port of this machine, and its address once it listens."""
    with dask(folder, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard") as (
        proc,
        log,
    ):
        deadline = time.monotonic() + 20
        while not (found := re.search(rb"Scheduler at:\s+(tcp://\S+)", log.read_bytes())):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.05)
        yield found.group(1).decode(), proc


def worker(
    folder: Path, address: str, threads: int = 2, env: dict[str, str] | None = None
) -> contextlib.AbstractContextManager[tuple[subprocess.Popen[bytes], Path]]:
    """A `dask worker` of `threads` threads joining `address` (no nanny: one process), with
    `env` added to this environment."""
    args = ["--nthreads", str(threads), "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"]
    return dask(folder, "worker", address, *args, env=env)


def worker_pids(client: Any) -> dict[str, int]:
    """The process id of each worker of the client's cluster, by its address."""
    return {str(address): int(pid) for address, pid in client.run(os.getpid).items()}


def rare_bot(folder: Path) -> tuple[Path, Path]:
    """A bot whose command runs a program that no machine has: `arena-test-runtime` (a
    Python, in the folder returned first, for the PATH of the processes that should have
    it), and the bot's folder, "rare" (random-py's bot run by that program)."""
    tools = folder / "tools"
    tools.mkdir()
    runtime = tools / "arena-test-runtime"
    runtime.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    runtime.chmod(0o755)
    bot = folder / "rare"
    bot.mkdir()
    (bot / "bot.py").write_text((RANDOM / "bot.py").read_text())
    (bot / "bot.toml").write_text('name = "rare"\ncommand = ["arena-test-runtime", "bot.py"]\n')
    return tools, bot
