"""Which executor a run uses: in this process (the default), local worker processes
(`workers`) or a Dask cluster (`cluster`), chosen once for a tournament or a match."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from arena.games.errors import ArenaError
from arena.league.executors.inprocess import InProcess
from arena.league.executors.job import Executor, OnNote


@contextmanager
def executor_for(
    jobs: int,
    seats: int,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    on_note: OnNote | None = None,
    cluster_jobs: int | None = None,
) -> Iterator[Executor]:
    """The executor for a run of `jobs` games at once of `seats` bots, closed at the end; on a
    cluster, `cluster_jobs` games at once (None: one for each of its workers' threads)."""
    if workers is not None and cluster is not None:
        raise ArenaError("give workers (processes on this machine) or a cluster, not both")
    if workers is not None and workers < 1:
        raise ArenaError(f"workers is a number of processes >= 1, not {workers}")
    executor: Executor
    if cluster is not None or workers is not None:
        from arena.league.executors.cluster import DaskExecutor  # needs `distributed`

        if cluster is not None:
            executor = DaskExecutor.connect(cluster, on_note, jobs=cluster_jobs)
        else:
            assert workers is not None
            executor = DaskExecutor.local(workers, jobs, on_note)
    else:
        executor = InProcess(jobs, seats, on_note)
    try:
        yield executor
    finally:
        executor.close()
