"""Play a tournament on a Dask cluster from Python: `DaskExecutor(client)` plays the games
on the workers of any Dask `Client`, while this process plans, journals and rates.

    pip install 'arena-referee[cluster]'
    python examples/dask_cluster.py

The cluster here is a `LocalCluster` of two worker processes on this machine. Any other
cluster works the same way: `Client("tls://HOST:8786")` for a running scheduler, or
`Client(cluster)` for a `SLURMCluster` (dask-jobqueue) or a `KubeCluster` (dask-kubernetes).
The bots' folders are sent to the workers as archives and built there. The results go to
results/dask-demo in the current folder: running the example again resumes the tournament,
which plays nothing more once every game is journaled.
"""

import logging
from functools import partial
from pathlib import Path

import trio
from distributed import Client, LocalCluster

from arena.league.config import tournament_from
from arena.league.executors import DaskExecutor
from arena.league.leaderboard import results_leaderboard
from arena.league.results import ResultsDir
from arena.league.tournament import Progress, run_tournament
from arena.referee.records import GameRecord

HERE = Path(__file__).resolve()

# What a tournament file holds, as a dict (`load_tournament("t.toml")` reads a file): a round
# robin of three example bots on odin, each deal played twice with the seats swapped.
TOURNAMENT = {
    "name": "dask-demo",
    "ruleset": "odin",
    "seats": 2,
    "deals": 3,
    "seed": 1,
    "options": {"target": 10},
    "time": {"move": 1.0},
    # Every bot in bubblewrap's sandbox, on every worker: a worker that cannot sandbox says so
    # and plays none of these games ("auto" would let each worker decide for itself).
    "sandbox": "on",
    "bots": [
        {"path": "bots/odin-heuristic"},
        {"path": "bots/greedy-py"},
        {"path": "bots/random-py"},
    ],
}


def show(record: GameRecord, progress: Progress) -> None:
    """Each game as it is journaled."""
    seats = " vs ".join(seat.bot for seat in record.seats)
    print(f"[{progress.done}/{progress.total}] {record.game}: {seats}, ranks {record.ranks}")


def main() -> None:
    # The bots' paths are read from this file's folder, as a tournament file's are from its own.
    tournament = tournament_from(TOURNAMENT, HERE)
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=2,
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        executor = DaskExecutor(client)  # one game at a time per worker thread: 4 at once
        print(f"{tournament.config.name}: {executor.describe()}")
        with ResultsDir.open("results", tournament) as results:
            trio.run(partial(run_tournament, tournament, results, show, print, executor=executor))
            board = results_leaderboard(results)
    print(f"standings after {board.games} games:")
    for row in board.rows:
        print(
            f"{row.rank}. {row.bot:<14} Elo {row.elo:7.1f} ± {row.error:5.1f}, "
            f"score {row.score:.2f} in {row.games} games"
        )


if __name__ == "__main__":  # (the workers are processes that import this file)
    main()
