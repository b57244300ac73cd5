"""Games on many processes through Dask: a `LocalCluster` of 2 worker processes plays real
tournaments end to end (bot folders shipped as archives and built on the workers); a worker
killed mid-run costs no game and journals none twice; a stopped coordinator resumes against
the same cluster; a worker without a bot's program fails those games in words, charging no
bot; `--workers` and `arena sprt` use the same executors."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import distributed
import msgspec
import pytest

from arena.league.config import load_tournament
from arena.league.executors import GameJob, remote
from arena.league.executors.cluster import ClusterError, DaskExecutor, GamesNotPlayed
from arena.league.executors.remote import play_remote
from arena.league.executors.shipping import Parcel, moved, pack, unpack
from arena.league.leaderboard import results_leaderboard
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament, schedule_of
from arena.referee.folders import BotSpec, build_bot, load_bot
from arena.referee.records import GameRecord, read_records
from tests.helpers.cli import invoke
from tests.helpers.dask import local_cluster, rare_bot
from tests.helpers.paths import EXAMPLE_BOTS, GREEDY, RANDOM, TEST_BOTS
from tests.helpers.tournaments import path_bot, write_tournament

pytestmark = pytest.mark.slow  # (a Dask cluster of worker processes, for every test)

RANDOM_C = EXAMPLE_BOTS / "random-c"


@pytest.fixture(scope="module")
def bot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("worker-bots")


@pytest.fixture(scope="module")
def cluster(bot_cache: Path) -> Iterator[object]:
    """Two worker processes (3 games at once each), unpacking bots into `bot_cache`."""
    with local_cluster(2, 3, bot_cache) as c:
        yield c


def address(cluster: object) -> str:
    return str(cluster.scheduler_address)  # type: ignore[attr-defined]


def demo(folder: Path, *bots: Path, deals: int = 3, **fields: object) -> Path:
    """A round robin of `bots` (folders) on odin-race, sandbox off (tested alone below)."""
    entries = [path_bot(bot) for bot in bots]
    return write_tournament(folder, entries, deals=deals, jobs=4, sandbox="off", **fields)


async def played(file: Path, results: Path, executor: object | None = None) -> ResultsDir:
    t = load_tournament(file)
    if executor is None:  # built here, as `arena tournament` does (a cluster's workers build)
        t = msgspec.structs.replace(t, bots=[build_bot(b) for b in t.bots])
    with ResultsDir.open(results, t) as folder:
        await run_tournament(t, folder, executor=executor)  # type: ignore[arg-type]
    return ResultsDir.existing(results / t.config.name)


def journal_ids(folder: ResultsDir) -> list[str]:
    return [record.game for record in read_records(folder.games_file)]


async def test_a_tournament_on_the_cluster_is_the_tournament_played_here(
    tmp_path: Path, cluster: object, bot_cache: Path
) -> None:
    file = demo(tmp_path, RANDOM, GREEDY, RANDOM_C)
    here = await played(file, tmp_path / "here")
    executor = DaskExecutor.connect(address(cluster))
    try:
        assert executor.jobs == 6
        there = await played(file, tmp_path / "there", executor)
        # The cluster's workers are left as their owner set them: Dask's stack sampler runs
        # on after their games (arena's own workers, `DaskExecutor.local`, have none).
        sampling = executor.client.run(
            lambda dask_worker: dask_worker.periodic_callbacks["profile"].is_running()
        )
        assert sampling and all(sampling.values())
    finally:
        executor.close()
    records = there.records()
    assert sorted(journal_ids(there)) == sorted(journal_ids(here))
    assert len(records) == schedule_of(load_tournament(file)).total() == 18
    assert all(r.faults == [] for r in records)
    # The same games, the same results: the standings of the tournament played here.
    assert results_leaderboard(there) == results_leaderboard(here)
    # The records name the bots' commands as this machine knows them, not the workers' copies.
    c_bot = load_bot(str(RANDOM_C))
    seats = [seat for r in records for seat in r.seats if seat.bot == "random-c"]
    assert {tuple(seat.command) for seat in seats} == {tuple(c_bot.command)}
    # random-c was sent as an archive and built on the workers (its build stamp is there).
    unpacked = [d for d in bot_cache.iterdir() if (d / "bot.c").is_file()]
    assert unpacked and all(
        (d / ".arena-build").is_file() and (d / "bot").is_file() for d in unpacked
    )


@pytest.mark.parametrize("jobs", [None, 12], ids=["a-game-a-task", "batches"])
async def test_a_worker_killed_mid_tournament_loses_no_game_and_journals_none_twice(
    tmp_path: Path, cluster: object, jobs: int | None
) -> None:
    """One game a task (the cluster's 6 threads, one game each), and batches (12 games at
    once: 2 a thread, in batches of 4)."""
    file = demo(tmp_path, RANDOM, GREEDY, deals=8)
    here = await played(file, tmp_path / "here")
    client = distributed.Client(address(cluster))
    pids: dict[str, int] = client.run(os.getpid)
    victim = sorted(pids)[0]
    executor = DaskExecutor(client, ship=False, where="the test's cluster", jobs=jobs)
    assert executor._shares() == ((8, 1.0, 1) if jobs is None else (5, 2.0, 4))
    t = load_tournament(file)
    killed: list[int] = []

    def on_game(record: object, progress: object) -> None:
        if not killed and len(journal_ids(folder)) >= 4:  # mid-run, games in flight
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(pids[victim])

    try:
        with ResultsDir.open(tmp_path / "there", t) as folder:
            await run_tournament(t, folder, on_game, executor=executor)
        client.wait_for_workers(2, timeout=60)  # the nanny brings it back for other tests
        assert killed and client.run(os.getpid).get(victim) != killed[0]
    finally:
        executor.close()  # (the run's bots off the workers; the client stays the test's)
        client.close()
    there = ResultsDir.existing(tmp_path / "there" / "t")
    ids = journal_ids(there)
    assert len(ids) == len(set(ids)) == schedule_of(t).total() == 16
    assert results_leaderboard(there) == results_leaderboard(here)


def test_a_stopped_coordinator_resumes_against_the_same_cluster(
    tmp_path: Path, cluster: object
) -> None:
    file = demo(tmp_path, RANDOM, GREEDY, deals=30)
    results = tmp_path / "results"
    journal = results / "t" / "games.jsonl"
    args = [sys.executable, "-m", "arena", "tournament", str(file), "--results", str(results)]
    args += ["--cluster", address(cluster)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while not (journal.exists() and len(journal.read_bytes().splitlines()) >= 6):
        assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out.decode()
    assert "Resume with" in out.decode()
    stopped = len(journal.read_bytes().splitlines())
    assert stopped < 60
    again = subprocess.run(args, capture_output=True, timeout=300, check=False)
    assert again.returncode == 0, again.stdout.decode() + again.stderr.decode()
    assert f"resuming: {stopped} games already played" in again.stdout.decode()
    ids = [r.game for r in read_records(journal)]
    assert len(ids) == len(set(ids)) == 60


async def test_a_worker_without_a_bots_program_fails_its_games_in_words(
    tmp_path: Path, cluster: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A runtime installed here (on PATH from now on) but not on the workers, started before.
    tools, bot = rare_bot(tmp_path)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    file = demo(tmp_path, RANDOM, GREEDY, bot, deals=1)
    executor = DaskExecutor.connect(address(cluster))
    t = load_tournament(file)
    try:
        with (
            ResultsDir.open(tmp_path / "results", t) as folder,
            pytest.raises(GamesNotPlayed) as caught,
        ):
            await run_tournament(t, folder, executor=executor)
    finally:
        executor.close()
    message = str(caught.value)
    assert "4 games were not played" in message
    assert "worker tcp://127.0.0.1:" in message and "no program 'arena-test-runtime'" in message
    assert "which bot rare runs" in message
    records = ResultsDir.existing(tmp_path / "results" / "t").records()
    # The other bots' games are played; nobody is charged a fault for the worker's lack.
    assert len(records) == 2 and all(r.faults == [] for r in records)
    assert all("rare" not in [s.bot for s in r.seats] for r in records)


def test_bot_archives_are_content_addressed_and_unpack_once(tmp_path: Path) -> None:
    spec = load_bot(str(RANDOM))
    first, again = pack(spec), pack(spec)
    assert first is not None and again is not None
    assert first == again  # the same files, the same bytes and digest
    parcel, data = first
    target = unpack(parcel, data, tmp_path)
    assert (
        target.name == parcel.digest
        and (target / "bot.py").read_text() == (RANDOM / "bot.py").read_text()
    )
    assert unpack(parcel, data, tmp_path) == target
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == [parcel.digest]
    there = moved(spec, parcel, target)
    assert there.folder == there.cwd == str(target)
    with pytest.raises(ValueError, match="damaged"):
        unpack(Parcel("0" * 64, parcel.root), data, tmp_path)


def test_a_job_crosses_the_wire_unchanged() -> None:
    spec = load_bot(str(RANDOM))
    job = GameJob("odin", [spec, BotSpec("x", ["x"])], {"target": 5}, 7, _config(), "r0-t0")
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(job), type=GameJob) == job


def running(script: str) -> list[int]:
    """The bots running `script` below this process (the referee keeps a guardian there too)."""
    from arena.referee.processes import descendants

    found = []
    for pid in descendants(os.getpid()):
        with contextlib.suppress(OSError):
            if script.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def test_a_game_task_cancelled_on_its_worker_kills_its_bots_and_the_loop_plays_on() -> None:
    """A worker closing cancels its running tasks (Dask then plays them elsewhere): the game
    stops and its bots are killed at once, and the worker's referee loop plays the next."""
    from arena.referee.game import RefereeConfig
    from protocol.messages import Limits

    slow = BotSpec("slow", [sys.executable, str(TEST_BOTS / "slow_bot.py"), "0"])
    config = RefereeConfig(limits=Limits(startup_ms=10_000, move_ms=60_000))
    stuck = GameJob("odin-race", [slow, slow], {}, 3, config, "r0-t0")
    plain = GameJob("odin-race", [load_bot(str(RANDOM))] * 2, {}, 3, _config(), "r0-t1")

    async def main() -> bytes:
        task = asyncio.ensure_future(
            play_remote(msgspec.msgpack.encode([stuck]), [[None, None]], 1.0)
        )
        deadline = time.monotonic() + 20
        while len(running("slow_bot.py")) < 2:  # both bots started, the game under way
            assert time.monotonic() < deadline and not task.done()
            await asyncio.sleep(0.05)
        loop = remote._loop
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        while running("slow_bot.py"):
            assert time.monotonic() < deadline, "the cancelled game's bots still run"
            await asyncio.sleep(0.05)
        played = await play_remote(msgspec.msgpack.encode([plain]), [[None, None]], 1.0)
        assert remote._loop is loop and loop is not None and loop.thread.is_alive()
        [got] = played
        assert isinstance(got, bytes)
        return got

    record = msgspec.msgpack.decode(asyncio.run(main()), type=GameRecord)
    assert record.game == "r0-t1" and record.faults == [] and record.moves


def test_a_batch_plays_its_games_at_most_its_share_at_once(tmp_path: Path) -> None:
    """A task of 4 games on a worker whose share is 2 games at once: 2 play, the others wait
    for their places, and every game's record comes back."""
    late = tmp_path / "late_bot.py"
    late.write_text(
        "import time\nfrom protocol.bot import run\n"
        "time.sleep(0.4)\nrun(lambda request: 0, name='late')\n"
    )
    spec = BotSpec("late", [sys.executable, str(late)])
    games = [GameJob("odin-race", [spec, spec], {}, i, _config(), f"r0-t{i}") for i in range(4)]
    most = [0]

    async def main() -> list[bytes | Exception]:
        task = asyncio.ensure_future(
            play_remote(msgspec.msgpack.encode(games), [[None, None]] * 4, 2.0)
        )
        while not task.done():
            most[0] = max(most[0], len(running("late_bot.py")))
            await asyncio.sleep(0.02)
        return await task

    outcomes = asyncio.run(main())
    records = [msgspec.msgpack.decode(got, type=GameRecord) for got in outcomes]  # type: ignore[arg-type]
    assert [r.game for r in records] == [g.game_id for g in games]
    assert all(r.faults == [] and r.moves for r in records)
    assert most[0] == 4  # two games' bots, never more


def _config() -> object:
    from arena.referee.game import RefereeConfig

    return RefereeConfig(private=("/results",))


def test_workers_in_the_tournament_file_play_the_tournament_played_here(tmp_path: Path) -> None:
    file = demo(tmp_path, RANDOM, GREEDY, deals=2)
    here = invoke("tournament", file, "--results", tmp_path / "here")
    assert here.exit_code == 0, here.output
    (tmp_path / "w").mkdir()
    on_workers = demo(tmp_path / "w", RANDOM, GREEDY, deals=2, workers=2)
    there = invoke("tournament", on_workers, "--results", tmp_path / "there")
    assert there.exit_code == 0, there.output
    assert "in 2 worker processes" in there.output
    boards = [invoke("leaderboard", tmp_path / w / "t", "--json").output for w in ("here", "there")]
    assert boards[0] == boards[1]


def test_sprt_plays_on_worker_processes(tmp_path: Path) -> None:
    result = invoke(
        "sprt", RANDOM, GREEDY, "-r", "odin-race", "--results", tmp_path, "--sandbox", "off",
        "--max-pairs", "3", "--workers", "2",
    )  # fmt: skip
    assert result.exit_code in (0, 1, 4), result.output
    journals = list(tmp_path.rglob("games.jsonl"))
    assert len(journals) == 1
    ids = [r.game for r in read_records(journals[0])]
    assert len(ids) == len(set(ids)) >= 2


def test_workers_and_a_cluster_together_are_refused_before_any_results(tmp_path: Path) -> None:
    file = demo(tmp_path, RANDOM, GREEDY, deals=1)
    results = tmp_path / "results"
    args = ("--results", results, "--workers", "2", "--cluster", "tcp://127.0.0.1:1")
    result = invoke("tournament", file, *args)
    assert result.exit_code == 2
    assert "not both" in result.output
    assert not results.exists()  # nothing that would block the corrected tournament


def test_an_unreachable_scheduler_is_an_error_in_words() -> None:
    with pytest.raises(
        ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
    ):
        DaskExecutor.connect("tcp://127.0.0.1:9", timeout=2)
