"""How bots reach a cluster's workers and how games are routed among them, with archives
shipped as to another machine: the only worker killed mid-run and started again by its nanny
gets the bots again and plays every game once; a worker lacking a bot's program, or running
another arena, is named once and the bot's games are played on a worker that can; a failed
build runs once per worker and its output is in the error; two runs on one cluster keep
their own games at once; a bot long unused in a worker's cache is deleted."""

from __future__ import annotations

import os
import signal
import statistics
import time
from pathlib import Path

import distributed
import msgspec
import pytest
import trio

import arena
from arena.league.config import load_tournament
from arena.league.executors.cluster import DaskExecutor, GamesNotPlayed
from arena.league.executors.shipping import pack, unpack
from arena.league.leaderboard import results_leaderboard
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament, schedule_of
from arena.referee.folders import build_bot, load_bot
from arena.referee.records import read_records
from tests.helpers.dask import local_cluster, rare_bot, scheduler, worker, worker_pids
from tests.helpers.paths import EXAMPLE_BOTS, GREEDY, RANDOM, TEST_BOTS
from tests.helpers.tournaments import path_bot, write_tournament

pytestmark = pytest.mark.slow  # (Dask clusters of worker processes)

RANDOM_C = EXAMPLE_BOTS / "random-c"


@pytest.fixture
def bot_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the workers (started after, inheriting it) unpack the bots shipped to them."""
    cache = tmp_path / "worker-bots"
    monkeypatch.setenv("ARENA_BOT_CACHE", str(cache))
    return cache


def tournament(folder: Path, *bots: Path, deals: int, name: str = "t") -> Path:
    entries = [path_bot(bot) for bot in bots]
    return write_tournament(
        folder, entries, file=f"{name}.toml", deals=deals, jobs=4, sandbox="off", name=name
    )


def journal_ids(folder: ResultsDir) -> list[str]:
    return [record.game for record in read_records(folder.games_file)]


async def play(file: Path, results: Path, executor: DaskExecutor, on_game: object = None) -> None:
    t = load_tournament(file)
    with ResultsDir.open(results, t) as folder:
        await run_tournament(t, folder, on_game, executor=executor)  # type: ignore[arg-type]


def notes_of(executor: DaskExecutor) -> list[str]:
    notes: list[str] = []
    executor.on_note = notes.append
    return notes


async def test_the_only_worker_killed_mid_run_gets_the_bots_again_and_plays_every_game_once(
    tmp_path: Path, bot_cache: Path
) -> None:
    file = tournament(tmp_path, RANDOM, GREEDY, RANDOM_C, deals=4)
    t = load_tournament(file)
    here = tmp_path / "here"
    built = msgspec.structs.replace(t, bots=[build_bot(b) for b in t.bots])
    with ResultsDir.open(here, built) as folder:
        await run_tournament(built, folder)
    killed: list[int] = []
    with local_cluster(1, 2, bot_cache) as cluster, distributed.Client(cluster) as client:
        executor = DaskExecutor(client)  # archives shipped, as to another machine
        assert executor.ship
        [pid] = worker_pids(client).values()

        def on_game(record: object, progress: object) -> None:
            if not killed and len(journal_ids(results)) >= 4:  # mid-run, games in flight
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        with ResultsDir.open(tmp_path / "there", t) as results:
            await run_tournament(t, results, on_game, executor=executor)
        assert killed and list(worker_pids(client).values()) != [pid]  # started again
    there = ResultsDir.existing(tmp_path / "there" / "t")
    ids = journal_ids(there)
    assert len(ids) == len(set(ids)) == schedule_of(t).total() == 24
    assert results_leaderboard(there) == results_leaderboard(ResultsDir.existing(here / "t"))


async def test_a_worker_lacking_a_program_is_named_once_and_the_bot_plays_on_the_others(
    tmp_path: Path, bot_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A runtime on the PATH of one worker (and of this coordinator), not of the other.
    tools, bot = rare_bot(tmp_path)
    plain = os.environ["PATH"]
    rich = f"{tools}{os.pathsep}{plain}"
    monkeypatch.setenv("PATH", rich)
    file = tournament(tmp_path, RANDOM, GREEDY, bot, deals=4)
    t = load_tournament(file)
    with (
        scheduler(tmp_path) as (address, _),
        worker(tmp_path, address, env={"PATH": plain}),
        worker(tmp_path, address, env={"PATH": rich}),
    ):
        executor = DaskExecutor.connect(address)
        notes = notes_of(executor)
        try:
            executor.wait_for_workers(2, timeout=60)
            await play(file, tmp_path / "results", executor)
        finally:
            executor.close()
    records = ResultsDir.existing(tmp_path / "results" / "t").records()
    assert len(records) == schedule_of(t).total() == 24  # rare's 16 games too
    assert all(r.faults == [] for r in records)
    lacking = [note for note in notes if "no program 'arena-test-runtime'" in note]
    assert len(lacking) == 1, notes
    assert lacking[0].startswith("worker tcp://127.0.0.1:") and "which bot rare runs" in lacking[0]


async def test_a_failed_build_runs_once_per_worker_and_its_output_is_in_the_error(
    tmp_path: Path, bot_cache: Path
) -> None:
    runs = tmp_path / "builds"
    bot = tmp_path / "broken"
    bot.mkdir()
    (bot / "bot.c").write_text("int main(void) { return 0 }\n")
    build = f"echo run >> {runs}; echo 'bot.c:1:27: error: expected ; before }}' >&2; exit 1"
    (bot / "bot.toml").write_text(
        f'name = "broken"\ncommand = ["./bot"]\nbuild = ["sh", "-c", "{build}"]\n'
    )
    file = tournament(tmp_path, RANDOM, GREEDY, bot, deals=5)
    with local_cluster(2, 2, bot_cache) as cluster, distributed.Client(cluster) as client:
        executor = DaskExecutor(client)
        notes = notes_of(executor)
        with pytest.raises(GamesNotPlayed) as caught:
            await play(file, tmp_path / "results", executor)
    message = str(caught.value)
    assert runs.read_text() == "run\n" * 2  # once on each worker, not once per game
    assert message.startswith("20 games were not played: no worker can play bot broken")
    assert "(and 1 other worker likewise)" in message
    assert "its output ends: bot.c:1:27: error: expected ; before }" in message
    assert message.count("its output ends") == 1  # one reason, not one per game or worker
    assert [note for note in notes if "played nowhere" in note] == [
        "bot broken is played nowhere: no worker can play it"
    ]
    records = ResultsDir.existing(tmp_path / "results" / "t").records()
    assert len(records) == 10 and all("broken" not in [s.bot for s in r.seats] for r in records)


def _arena_version(version: str | None = None) -> str:
    """This worker's arena version, set to `version` first when given."""
    if version is not None:
        arena.__version__ = version
    return arena.__version__


async def test_a_worker_running_another_arena_is_refused_and_named_once(
    tmp_path: Path, bot_cache: Path
) -> None:
    file = tournament(tmp_path, RANDOM, GREEDY, deals=6)
    with local_cluster(2, 2, bot_cache) as cluster, distributed.Client(cluster) as client:
        other = sorted(worker_pids(client))[0]
        client.run(_arena_version, "0.0.1", workers=[other])
        executor = DaskExecutor(client)
        notes = notes_of(executor)
        await play(file, tmp_path / "results", executor)
        assert client.run(_arena_version, workers=[other]) == {other: "0.0.1"}
    records = ResultsDir.existing(tmp_path / "results" / "t").records()
    assert len(records) == 12 and all(r.faults == [] for r in records)
    refused = [note for note in notes if "runs arena 0.0.1" in note]
    assert refused == [
        f"worker {other} runs arena 0.0.1, not {arena.__version__} as the coordinator does: "
        f"install arena-referee {arena.__version__} on that worker"
    ]  # once, though each bot's plugin was refused there


def paced_bot(folder: Path, name: str, log: Path, pace: int) -> Path:
    """A bot answering after `pace` ms a decision, give or take half, and marking its process
    and the time in `log` (tests/bots/paced_bot.c, built by each worker)."""
    bot = folder / name
    bot.mkdir()
    (bot / "paced_bot.c").write_text((TEST_BOTS / "paced_bot.c").read_text())
    (bot / "bot.toml").write_text(
        f'name = "{name}"\ncommand = ["./paced_bot", "{pace}", "{log}"]\n'
        'build = ["cc", "-O2", "-o", "paced_bot", "paced_bot.c"]\n'
    )
    return bot


Spans = list[tuple[float, float]]  # each bot process's first and last mark


def spans(log: Path) -> Spans:
    seen: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        pid, at = line.split()
        seen.setdefault(pid, []).append(float(at))
    return [(min(marks), max(marks)) for marks in seen.values()]


def steady(processes: Spans) -> tuple[float, float]:
    """From a second after the first bot started to when the last one started: every game
    slot is kept busy meanwhile (before, they fill; after, the games run out)."""
    return min(first for first, _ in processes) + 1, max(first for first, _ in processes)


def at_once(processes: Spans, between: tuple[float, float]) -> float:
    """The mean number of games (two bot processes each) playing `between` two moments."""
    begin, end = between
    assert end - begin > 2, between
    moments = [begin + (end - begin) * i / 200 for i in range(201)]
    return statistics.mean(sum(a <= t <= b for a, b in processes) / 2 for t in moments)


async def test_two_runs_on_one_cluster_each_keep_their_own_games_at_once(
    tmp_path: Path, bot_cache: Path
) -> None:
    """A run of 24 slow games at once (two a task slot of the worker, 50 ms a move) and a
    run of 2 quick ones (one a slot, 5 ms a move), each through its own client as two
    coordinators, on a worker with slots enough for both: each alone, then side by side,
    the quick one first. Side by side, each keeps the games at once it had alone."""
    runs = {"wide": (24, 50, 36), "narrow": (2, 5, 30)}  # games at once, ms a move, deals
    logs: dict[str, Path] = {}
    files: dict[str, Path] = {}
    for name, (_, pace, deals) in runs.items():
        for phase in ("alone", "beside"):
            run = f"{name}-{phase}"
            logs[run] = tmp_path / f"{run}.log"
            bots = [paced_bot(tmp_path, f"{run}-{i}", logs[run], pace) for i in (1, 2)]
            files[run] = tournament(
                tmp_path, *bots, deals=deals * (2 if run == "narrow-beside" else 1), name=run
            )
    with local_cluster(1, 12, bot_cache) as cluster:
        address = str(cluster.scheduler_address)

        async def play_run(run: str) -> None:
            executor = DaskExecutor.connect(address, jobs=runs[run.split("-")[0]][0])
            try:
                await play(files[run], tmp_path / f"results-{run}", executor)
            finally:
                executor.close()

        for name in runs:
            await play_run(f"{name}-alone")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_run, "narrow-beside")
            while not logs["narrow-beside"].exists():  # (the quick run takes its slots first)
                await trio.sleep(0.05)
            nursery.start_soon(play_run, "wide-beside")
    got = {run: spans(log) for run, log in logs.items()}
    wide, narrow = steady(got["wide-beside"]), steady(got["narrow-beside"])
    assert narrow[0] < wide[0] and wide[1] < narrow[1]  # (the quick run busy all along)
    both = wide  # (while both kept every slot of theirs busy)
    for name in runs:
        alone = at_once(got[f"{name}-alone"], steady(got[f"{name}-alone"]))
        beside = at_once(got[f"{name}-beside"], both)
        assert beside >= 0.9 * alone, (name, beside, alone)


async def test_a_bot_long_unused_in_a_workers_cache_is_deleted_as_bots_arrive(
    tmp_path: Path, bot_cache: Path
) -> None:
    bot_cache.mkdir(mode=0o700)
    packed = pack(load_bot(str(RANDOM_C)))
    assert packed is not None
    stale = unpack(*packed, bot_cache)
    then = time.time() - 8 * 86400  # unused for 8 days: more than the 7 a bot stays
    for path in bot_cache.iterdir():
        os.utime(path, (then, then))
    file = tournament(tmp_path, RANDOM, GREEDY, deals=1)
    with local_cluster(1, 2, bot_cache) as cluster, distributed.Client(cluster) as client:
        await play(file, tmp_path / "results", DaskExecutor(client))
    assert not stale.exists()
    assert [p.name for p in bot_cache.iterdir() if packed[0].digest in p.name] == []
    assert len([p for p in bot_cache.iterdir() if p.is_dir()]) == 2  # the run's own bots
