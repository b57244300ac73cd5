"""The Python API of a Dask cluster: `DaskExecutor(client)` for a `Client` of the caller's own,
shipping the bots and describing the cluster by its scheduler's address unless told
otherwise; examples/dask_cluster.py runs as written, every game of its tournament journaled."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import distributed
import pytest

from arena.league.config import tournament_from
from arena.league.executors import DaskExecutor  # (re-exported from the cluster module)
from arena.league.leaderboard import results_leaderboard
from arena.league.match import run_match
from arena.league.results import ResultsDir
from arena.league.sprt import Sprt
from arena.league.tournament import schedule_of
from arena.referee.folders import load_bot
from arena.referee.records import GameRecord, read_records
from tests.helpers.dask import local_cluster
from tests.helpers.paths import GREEDY, RANDOM, ROOT

pytestmark = pytest.mark.slow  # (Dask clusters)

EXAMPLE = ROOT / "examples" / "dask_cluster.py"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[distributed.Client]:
    """A client of the caller's own: one worker process of 2 threads, its bot cache apart."""
    with (
        local_cluster(1, 2, tmp_path_factory.mktemp("bots")) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_an_executor_of_a_client_ships_the_bots_and_names_the_scheduler(
    client: distributed.Client,
) -> None:
    executor = DaskExecutor(client)
    address = str(client.scheduler_info()["address"])
    assert address.startswith("tcp://127.0.0.1:")
    assert executor.ship is True
    assert executor.describe() == f"on the Dask cluster at {address}"
    assert executor.jobs == 2  # one game per thread of the cluster, as it is now
    # The keywords still say otherwise, as `DaskExecutor.local` does.
    mine = DaskExecutor(client, ship=False, where="in my workers", jobs=3)
    assert (mine.ship, mine.describe(), mine.jobs) == (False, "in my workers", 3)


async def test_an_sprt_match_plays_on_the_executor_of_a_client(
    client: distributed.Client,
) -> None:
    a, b = load_bot(str(GREEDY)), load_bot(str(RANDOM))
    journal: list[GameRecord] = []
    executor = DaskExecutor(client)
    state = await run_match(
        a, b, "odin-race", Sprt(elo0=0, elo1=10), max_pairs=2, on_game=journal.append,
        executor=executor,
    )  # fmt: skip
    # Both deals, each played twice with the seats swapped, by the cluster's worker.
    assert sorted(state.played) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert len(journal) == 4 and all(record.faults == [] for record in journal)
    assert {tuple(seat.bot for seat in r.seats) for r in journal} == {
        ("greedy-py", "random-py"),
        ("random-py", "greedy-py"),
    }
    # The records name the bots' commands as this machine knows them, not the shipped copies.
    commands = {seat.bot: seat.command for record in journal for seat in record.seats}
    assert commands == {"greedy-py": a.command, "random-py": b.command}
    # Both bots were shipped: unpacked into the worker's cache, not used in place.
    assert len(list(Path(os.environ["ARENA_BOT_CACHE"]).glob("*/bot.toml"))) == 2
    # The match took its bots off the workers at its end (their plugins and resources), and
    # closing the executor leaves the client the caller's, open.
    plugins = client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert not [name for names in plugins.values() for name in names if "arena" in name]
    resources = client.run(lambda dask_worker: dict(dask_worker.state.total_resources))
    assert all(value == 0 for table in resources.values() for value in table.values())
    executor.close()
    assert client.status == "running" and client.run(os.getpid)


def test_the_executors_package_imports_no_dask_until_a_dask_executor_is_asked_for() -> None:
    code = (
        "import sys\n"
        "import arena.league.executors as e, arena.league.tournament, arena.league.match\n"
        "print('distributed' in sys.modules)\n"
        "print(e.DaskExecutor.__module__, 'DaskExecutor' in dir(e))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.splitlines() == ["False", "arena.league.executors.cluster True"]


def test_the_dask_cluster_example_runs_as_written(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_BOT_CACHE": str(tmp_path / "bots")}  # the workers' bot cache
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("dask-demo: on the Dask cluster at tcp://127.0.0.1:"), lines[0]
    # Every game of the schedule is journaled, once, from the workers' records.
    from examples.dask_cluster import HERE, TOURNAMENT

    tournament = tournament_from(TOURNAMENT, HERE)
    planned = sorted(game.id for game in schedule_of(tournament).plan(0, [], {}))
    folder = ResultsDir.existing(tmp_path / "results" / "dask-demo")
    journaled = [record.game for record in read_records(folder.games_file)]
    assert sorted(journaled) == planned and len(planned) == 18
    assert sum(line.startswith("[") for line in lines) == 18  # a line per game
    records = folder.records()
    assert all(record.faults == [] for record in records)
    assert all(seat.sandboxed for record in records for seat in record.seats)  # as it asks
    # The standings shown are the results folder's.
    board = results_leaderboard(folder)
    assert board.games == 18 and {row.bot for row in board.rows} == {
        "odin-heuristic",
        "greedy-py",
        "random-py",
    }
    shown = lines[lines.index("standings after 18 games:") + 1 :]
    assert [line.split()[1] for line in shown] == [row.bot for row in board.rows]
    # The bots were shipped: unpacked into the workers' cache, not used in place.
    assert len(list((tmp_path / "bots").glob("*/bot.toml"))) == 3
