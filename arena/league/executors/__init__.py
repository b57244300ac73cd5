"""Where games are played: an executor takes the games a tournament or match wants played and
hands back each finished record. The coordinator (`arena.league.tournament`,
`arena.league.match`) alone plans, journals, resumes and rates; executors only play, each
taking its games through a `Lineup` (`arena.league.lineup`), so that no two games of one deal
are ever in flight at once.

- `InProcess` (`inprocess`): every game in this process's trio loop, as many at once as the
  jobs and the file descriptors allow. The default.
- `DaskExecutor` (`cluster`): games as tasks of a Dask cluster (the optional `distributed`
  package), either local worker processes (`--workers N`, a `LocalCluster`) or a cluster
  already running (`--cluster tcp://HOST:8786`). Dask schedules, retries a game lost with its
  worker and keeps the membership; each worker process plays its games in one trio loop
  (`remote`), from bot folders shipped as content-addressed archives (`shipping`). From
  Python, `DaskExecutor(client)` plays on the cluster of a Dask `Client` of the caller's own
  (`run_tournament(..., executor=...)`, `run_match(..., executor=...)`); it is imported from
  here when first asked for, so that nothing imports `distributed` before a cluster is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.league.executors.choice import executor_for
from arena.league.executors.inprocess import InProcess
from arena.league.executors.job import Executor, GameJob, OnNote

if TYPE_CHECKING:
    from arena.league.executors.cluster import DaskExecutor

__all__ = ["DaskExecutor", "Executor", "GameJob", "InProcess", "OnNote", "executor_for"]


def __getattr__(name: str) -> Any:
    """`DaskExecutor`, from its module when first asked for (it is for the optional
    `distributed` package, which nothing here imports before a cluster is used)."""
    if name == "DaskExecutor":
        from arena.league.executors.cluster import DaskExecutor

        globals()[name] = DaskExecutor  # (looked up here once)
        return DaskExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "DaskExecutor"})
