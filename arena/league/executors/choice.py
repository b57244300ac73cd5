"""Which executor a run uses: in this process (the default), local worker processes
(`workers`) or a Dask cluster (`cluster`), chosen once for a tournament or a match."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from arena.games.errors import ArenaError
from arena.league.executors.inprocess import InProcess
from arena.league.executors.job import Executor, OnNote


def check_choice(
    workers: int | None,
    cluster: str | None,
    wait_workers: int = 1,
    wait_timeout: float | None = None,
) -> None:
    """Refuse, before anything is started or written, a choice that cannot work: workers and
    a cluster both, fewer than one worker (or worker waited for), a wait of no time, either
    without the `distributed` package."""
    if workers is not None and cluster is not None:
        raise ArenaError("give workers (processes on this machine) or a cluster, not both")
    if workers is not None and workers < 1:
        raise ArenaError(f"workers is a number of processes >= 1, not {workers}")
    if wait_workers < 1:
        raise ArenaError(f"the workers to wait for are a number >= 1, not {wait_workers}")
    if wait_timeout is not None and not wait_timeout > 0:
        raise ArenaError(f"the wait for workers is a number of seconds > 0, not {wait_timeout}")
    if (workers is not None or cluster is not None) and not _installed("distributed"):
        raise ArenaError(
            "--workers and --cluster need the distributed package: "
            "pip install 'arena-referee[cluster]'"
        )


def _installed(module: str) -> bool:
    """Whether `module` can be imported, without importing it (distributed takes a while)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # in sys.modules as None: known not to be importable
        return False


@contextmanager
def executor_for(
    jobs: int,
    seats: int,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    on_note: OnNote | None = None,
    cluster_jobs: int | None = None,
    wait_workers: int = 1,
    wait_timeout: float | None = None,
) -> Iterator[Executor]:
    """The executor for a run of `jobs` games at once of `seats` bots, closed at the end; on a
    cluster, `cluster_jobs` games at once (None: one for each of its workers' threads), once
    it has `wait_workers` workers: it waits for them (saying so through `on_note`) for
    `wait_timeout` seconds at most (None: as long as it takes), and for its scheduler to
    answer for as long, up to `CONNECT_TIMEOUT`. A cluster that cannot be used is
    `ClusterError`, in words."""
    check_choice(workers, cluster, wait_workers, wait_timeout)
    executor: Executor
    if cluster is not None or workers is not None:
        from arena.league.executors.cluster import DaskExecutor  # needs `distributed`
        from arena.league.executors.scheduler import CONNECT_TIMEOUT

        if cluster is not None:
            reach = CONNECT_TIMEOUT if wait_timeout is None else min(CONNECT_TIMEOUT, wait_timeout)
            dask = DaskExecutor.connect(cluster, on_note, timeout=reach, jobs=cluster_jobs)
            try:
                dask.wait_for_workers(wait_workers, wait_timeout)
            except BaseException:  # (Ctrl-C too)
                dask.close()
                raise
            executor = dask
        else:
            assert workers is not None
            executor = DaskExecutor.local(workers, jobs, on_note)
    else:
        executor = InProcess(jobs, seats, on_note)
    try:
        yield executor
    finally:
        executor.close()
