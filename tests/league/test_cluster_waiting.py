"""A Dask cluster as it really comes and goes, with a real `dask scheduler` and `dask worker`
(each a process of its own): a tournament started before any worker waits for one, saying
so, and plays once it joins; a wait that times out is one error line that leaves nothing
written; a scheduler lost mid-run stops the run at once in one line, and the run resumes on
another scheduler, every game once; arena's own worker processes have no stack sampler,
and a cluster's workers keep theirs."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import distributed
import pytest

from arena.league.config import load_tournament
from arena.league.executors.cluster import DaskExecutor
from arena.league.tournament import schedule_of
from arena.referee.records import read_records
from tests.helpers.cli import arena, started_arena, wait_for_games
from tests.helpers.dask import local_cluster, scheduler, worker
from tests.helpers.paths import GREEDY, RANDOM
from tests.helpers.tournaments import path_bot, write_tournament

pytestmark = pytest.mark.slow  # (schedulers and workers, each a process)


def first_line(proc: subprocess.Popen[str], seconds: float = 30) -> str:
    """The first line `proc` prints, within `seconds`."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    assert ready, "nothing was printed"
    return proc.stdout.readline()


@pytest.fixture(autouse=True)
def bot_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots shipped to the workers are unpacked into the test's own folder."""
    monkeypatch.setenv("ARENA_BOT_CACHE", str(tmp_path / "worker-bots"))


def tournament(folder: Path, deals: int) -> Path:
    return write_tournament(
        folder, [path_bot(RANDOM), path_bot(GREEDY)], deals=deals, jobs=4, sandbox="off"
    )


def journal_ids(journal: Path) -> list[str]:
    return [record.game for record in read_records(journal)] if journal.exists() else []


def test_a_tournament_before_any_worker_waits_and_plays_once_one_joins(tmp_path: Path) -> None:
    file = tournament(tmp_path, deals=2)
    results = tmp_path / "results"
    with scheduler(tmp_path) as (address, _):
        args: list[str | Path] = ["tournament", file, "--results", results, "--cluster", address]
        with started_arena(*args) as proc:
            said = first_line(proc)  # (before the worker: the run waits for it)
            assert said == f"note: waiting for 1 worker at {address}: 0 now (Ctrl-C stops)\n"
            assert not results.exists()  # nothing written while it waits
            time.sleep(2)
            assert proc.poll() is None
            with worker(tmp_path, address):
                out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, said + out
    assert f"note: 1 worker at {address} after" in out
    ids = journal_ids(results / "t" / "games.jsonl")
    assert len(ids) == len(set(ids)) == schedule_of(load_tournament(file)).total() == 4


def test_an_adaptive_cluster_of_no_workers_starts_one_for_the_waiting_run(tmp_path: Path) -> None:
    """An adaptive cluster at minimum=0 (dask-jobqueue's and dask-kubernetes' usual way)
    starts workers only for work waiting: the run's wait must show it some."""
    file = tournament(tmp_path, deals=2)
    results = tmp_path / "results"
    with local_cluster(0, 2) as cluster:
        cluster.adapt(minimum=0, maximum=1, interval="200ms")
        address = str(cluster.scheduler_address)
        args: list[str | Path] = ["tournament", file, "--results", results, "--cluster", address]
        done = subprocess.run(
            arena(*args, "--wait-timeout", "60"), capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"note: waiting for 1 worker at {address}: 0 now")
    ids = journal_ids(results / "t" / "games.jsonl")
    assert len(ids) == len(set(ids)) == 4


def test_a_wait_for_workers_that_times_out_is_one_error_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    file = tournament(tmp_path, deals=1)
    results = tmp_path / "results"
    with scheduler(tmp_path) as (address, _):
        args: list[str | Path] = ["tournament", file, "--results", results, "--cluster", address]
        started = time.monotonic()
        done = subprocess.run(
            arena(*args, "--wait-timeout", "1"), capture_output=True, text=True, timeout=60
        )
        took = time.monotonic() - started
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"note: waiting for 1 worker at {address}: 0 now (Ctrl-C stops)"
    assert lines[1:] == [
        f"error: no worker joined the Dask cluster at {address} within 1 s: start one there "
        f"(`dask worker {address}`), or wait longer"
    ]
    assert done.stderr == "" and took < 15
    assert not results.exists()  # no results folder to block the corrected command


def test_a_lost_scheduler_stops_the_run_in_one_line_and_it_resumes_on_another(
    tmp_path: Path,
) -> None:
    file = tournament(tmp_path, deals=30)
    results = tmp_path / "results"
    journal = results / "t" / "games.jsonl"
    with scheduler(tmp_path) as (address, first), worker(tmp_path, address):
        args: list[str | Path] = ["tournament", file, "--results", results, "--cluster", address]
        with started_arena(*args) as proc:
            wait_for_games(journal, 4, proc)
            first.kill()  # SIGKILL: its clients and workers learn it from the closed sockets
            lost_at = time.monotonic()
            out, _ = proc.communicate(timeout=30)
            took = time.monotonic() - lost_at
    saved = journal_ids(journal)
    assert proc.returncode == 2, out
    assert took < 5, f"{took:.1f} s to notice"
    lines = out.splitlines()
    assert [line for line in lines if not line.startswith("Finished game")][2:] == [lines[-1]], out
    assert lines[-1] == (
        f"error: the Dask scheduler at {address} was lost; {len(saved)} finished games are "
        f"saved; once it can run, resume with: arena tournament {file} --results {results} "
        f"--cluster {address}"
    )
    assert 4 <= len(saved) < 60
    with scheduler(tmp_path) as (again, _), worker(tmp_path, again):
        resumed = subprocess.run(
            arena(*args[:-1], again), capture_output=True, text=True, timeout=120
        )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming: {len(saved)} games already played" in resumed.stdout
    ids = journal_ids(journal)
    assert len(ids) == len(set(ids)) == 60


def test_the_bots_of_a_coordinator_killed_are_taken_off_the_workers_by_the_next_run(
    tmp_path: Path,
) -> None:
    # (Nested, so that they are sent by value: the scheduler and worker cannot import tests.)
    def _bot_plugins(dask_scheduler: object) -> list[str]:
        """The bot plugins this scheduler sets up on its workers."""
        plugins = dask_scheduler.worker_plugins  # type: ignore[attr-defined]
        return sorted(name for name in plugins if name.startswith("arena-bot-"))

    def _prepared_bots() -> list[str]:
        """The bots this worker process holds prepared."""
        from arena.league.executors import remote

        return sorted(remote._bots)

    file = tournament(tmp_path, deals=30)
    results = tmp_path / "results"
    journal = results / "t" / "games.jsonl"
    with scheduler(tmp_path) as (address, _), worker(tmp_path, address):
        args: list[str | Path] = ["tournament", file, "--results", results, "--cluster", address]
        with started_arena(*args) as proc:
            wait_for_games(journal, 4, proc)
            os.killpg(proc.pid, signal.SIGKILL)  # no time to take its bots off the workers
            proc.wait()
        client = distributed.Client(address)
        try:
            assert len(client.run_on_scheduler(_bot_plugins)) == 2  # (left by the run killed)
            assert [len(bots) for bots in client.run(_prepared_bots).values()] == [2]
            resumed = subprocess.run(arena(*args), capture_output=True, text=True, timeout=120)
            assert resumed.returncode == 0, resumed.stdout + resumed.stderr
            assert "note: 2 bots of runs whose coordinator went are taken off the workers" in (
                resumed.stdout
            )
            assert client.run_on_scheduler(_bot_plugins) == []
            assert list(client.run(_prepared_bots).values()) == [[]]
        finally:
            client.close()
    ids = journal_ids(journal)
    assert len(ids) == len(set(ids)) == 60


def _sampling(dask_worker: object) -> bool:
    """Whether this Dask worker's statistical profiler runs."""
    callback = dask_worker.periodic_callbacks.get("profile")  # type: ignore[attr-defined]
    return callback is not None and bool(callback.is_running())


def test_arenas_own_worker_processes_have_no_stack_sampler(tmp_path: Path) -> None:
    executor = DaskExecutor.local(2, 4)
    try:
        sampling = executor.client.run(_sampling)
        assert len(sampling) == 2 and not any(sampling.values())
        # A worker the nanny starts again (one died) is made the same way.
        victim = min(executor.client.run(os.getpid).values())
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, "the nanny did not start the worker again"
            time.sleep(0.2)
            with contextlib.suppress(OSError):  # (a worker still closing)
                pids = executor.client.run(os.getpid)
                if len(pids) == 2 and victim not in pids.values():
                    break
        assert not any(executor.client.run(_sampling).values())
    finally:
        executor.close()
