"""Games as tasks of a Dask cluster (the optional `distributed` package): local worker
processes (`DaskExecutor.local`, `--workers N`) or a running cluster
(`DaskExecutor.connect`, `--cluster tcp://HOST:8786`).

Dask does the scheduling, the retries and the membership: a task whose worker dies is
played again by another worker (a task that kills three workers is given up), workers may
join or leave mid-run. A task is a batch of games: one game when each of the cluster's
threads plays one game at a time (the default of a cluster), several when more games at once
are asked of it than it has threads (`--workers` with many jobs: games whose bots mostly wait),
since a Dask task costs the coordinator and the worker about as much processor time as a
short game's referee. This side keeps a window of tasks in flight a little larger than the
cluster's threads, its games taken from a `Lineup` (no two games of one deal in flight,
queued or playing), streams the records back as their tasks finish and hands them to the
coordinator, which journals them (a game finished twice is journaled once). Bot folders go to
a remote cluster as content-addressed archives (`shipping`), sent once per worker; local
workers share this machine's files and use the folders where they are.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec
import trio

from arena.games.errors import ArenaError
from arena.games.text import counted
from arena.league.executors.job import Executor, GameJob, OnNote
from arena.league.executors.remote import play_remote
from arena.league.executors.shipping import Parcel, pack
from arena.league.lineup import Lineup
from arena.referee.folders import BotSpec
from arena.referee.records import GameRecord
from arena.referee.spawn import NoResources

T = TypeVar("T")

INSTALL = "pip install 'arena-referee[cluster]'"
SLOTS_PER_WORKER = 16  # local workers' task slots: a batch each, of jobs / slots games
OVERFILL = 1.25  # a batch's games over its share: a game ending is followed by a waiting one
NO_RESOURCES_RETRIES = 3  # a game a worker could not start for lack of descriptors: again


class ClusterError(ArenaError):
    """The cluster cannot be used: `distributed` missing, a scheduler out of reach."""


class GamesNotPlayed(ArenaError):
    """Games the workers could not play (a missing program, a failed build, a game that
    killed its workers): not journaled, so the next run plays them again."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            f"--workers and --cluster need the distributed package: {INSTALL}"
        ) from None
    return distributed


class DaskExecutor(Executor):
    """Games played by the workers of a Dask `client`; `ship`: send bot folders as archives
    (a remote cluster) rather than use them in place (workers on this machine); `jobs`:
    games at once in all (by default one for each of the cluster's threads)."""

    def __init__(
        self,
        client: Any,
        *,
        ship: bool,
        where: str,
        on_note: OnNote | None = None,
        cluster: Any = None,
        jobs: int | None = None,
    ) -> None:
        self.client = client
        self.ship = ship
        self.where = where
        self._jobs = jobs
        self.on_note = on_note
        self._cluster = cluster
        self._parcels: dict[str, tuple[Parcel, Any] | None] = {}  # by bot name
        self._run = uuid.uuid4().hex[:12]  # task keys of this run differ from any other's
        self._batches = 0

    @classmethod
    def local(cls, workers: int, jobs: int, on_note: OnNote | None = None) -> DaskExecutor:
        """`workers` worker processes on this machine (a `LocalCluster`), `jobs` games at once
        in all (each worker plays its share in one referee loop), each worker taking at most
        SLOTS_PER_WORKER batches at once."""
        distributed = _distributed()
        threads = max(1, min(SLOTS_PER_WORKER, math.ceil(jobs / workers)))
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=threads,
            processes=True,
            dashboard_address=":0",  # a free port: none is wanted, and 8787 may be taken
            silence_logs=logging.ERROR,
        )
        # Records fetched from the workers directly, not through the scheduler (which runs in
        # this process and would copy each one twice).
        client = distributed.Client(cluster, direct_to_workers=True)
        where = (
            f"in {counted(workers, 'worker process', 'worker processes')}, "
            f"{counted(jobs, 'game')} at once"
        )
        return cls(client, ship=False, where=where, on_note=on_note, cluster=cluster, jobs=jobs)

    @classmethod
    def connect(
        cls,
        address: str,
        on_note: OnNote | None = None,
        timeout: float = 20.0,
        jobs: int | None = None,
    ) -> DaskExecutor:
        """The Dask cluster whose scheduler is at `address` (tcp://HOST:8786), playing `jobs`
        games at once (by default one for each of its workers' threads)."""
        distributed = _distributed()
        try:
            client = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        where = f"on the Dask cluster at {address}"
        return cls(client, ship=True, where=where, on_note=on_note, jobs=jobs)

    @property
    def threads(self) -> int:
        """The cluster's threads (task slots), as it is now."""
        return max(1, int(sum(self.client.nthreads().values())))

    @property
    def jobs(self) -> int:
        """How many games it plays at once: as asked, else one per thread of the cluster."""
        return self._jobs or self.threads

    def _shares(self) -> tuple[int, float, int]:
        """For the cluster as it is now: tasks in flight (its threads and a quarter more, so
        that no thread waits between a result and its next task; only `jobs` when fewer
        games than threads are asked), games at once per thread, and games per task (one
        while a thread plays one game at a time, else a thread's share and a quarter more:
        `OVERFILL`)."""
        threads = self.threads
        if self._jobs is not None and self._jobs < threads:
            return self._jobs, 1.0, 1
        per_slot = max(1.0, (self._jobs or threads) / threads)
        batch = 1 if per_slot == 1.0 else math.ceil(per_slot * OVERFILL)
        return threads + max(2, threads // 4), per_slot, batch

    def describe(self) -> str:
        return self.where

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()

    def _note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(text)

    def _parcel(self, spec: BotSpec) -> tuple[Parcel, Any] | None:
        """The bot's parcel and the cluster's copy of its archive (sent once, to every
        worker), or None when it has nothing to ship."""
        if spec.name not in self._parcels:
            packed = pack(spec) if self.ship else None
            if packed is None:
                self._parcels[spec.name] = None
            else:
                parcel, data = packed
                key = f"arena-bot-{parcel.digest}"
                future = self.client.scatter({key: data}, broadcast=True, hash=False)[key]
                self._parcels[spec.name] = (parcel, future)
        return self._parcels[spec.name]

    def _submit(self, games: list[GameJob], per_slot: float) -> Any:
        self._batches += 1
        return self.client.submit(
            play_remote,
            msgspec.msgpack.encode(games),
            [[self._parcel(spec) for spec in game.bots] for game in games],
            per_slot,
            key=f"arena-{self._run}-{self._batches}",
            pure=False,
        )

    async def run(
        self,
        tasks: Iterable[T],
        job: Callable[[T], GameJob],
        done: Callable[[T, GameRecord], None],
        wanted: Callable[[T], bool] | None = None,
    ) -> None:
        distributed = _distributed()
        lineup = Lineup(tasks, lambda task: job(task).deal, wanted)
        # The games of each batch in flight, by its key: each game's task, its job and how
        # often it was tried before.
        pending: dict[str, list[tuple[T, GameJob, int]]] = {}
        live: dict[str, Any] = {}  # the futures in flight, by key
        # Results fetched in the client's own loop as the batches finish (an error as its
        # exception's (type, value, traceback)).
        futures = distributed.as_completed(with_results=True, raise_errors=False)
        failed: dict[str, list[str]] = {}  # why, and the games
        sized_at, shares = -math.inf, (1, 1.0, 1)  # `_shares`, and when they were taken

        def window() -> tuple[int, float, int]:
            """`_shares`, taken again every few seconds, as workers join or leave."""
            nonlocal sized_at, shares
            now = time.monotonic()
            if now - sized_at > 2.0:
                sized_at, shares = now, self._shares()
            return shares

        def submit(games: list[tuple[T, GameJob, int]], per_slot: float) -> None:
            future = self._submit([game for _, game, _ in games], per_slot)
            pending[future.key] = games
            live[future.key] = future
            futures.add(future)

        def fill() -> None:
            while True:
                size, per_slot, batch = window()
                if len(pending) >= size:
                    return
                games: list[tuple[T, GameJob, int]] = []
                while len(games) < batch and (task := lineup.take()) is not None:
                    games.append((task, job(task), 0))
                if not games:
                    return
                submit(games, per_slot)

        def outcome(game: tuple[T, GameJob, int], result: bytes | BaseException) -> None:
            """One game's end: its record handed on, or its failure kept (played again first
            when the worker lacked the means to start it, its deal held meanwhile)."""
            task, job_, attempt = game
            if isinstance(result, NoResources) and attempt + 1 < NO_RESOURCES_RETRIES:
                self._note(f"{result}: game {job_.game_id} is played again")
                submit([(task, job_, attempt + 1)], window()[1])
                return
            lineup.ended(task)
            if isinstance(result, NoResources):
                failed.setdefault(str(result), []).append(job_.game_id)
                return
            if isinstance(result, BaseException):  # the worker's error, Dask's KilledWorker...
                why = _reason(result)
                if why not in failed:
                    self._note(f"game {job_.game_id} not played: {why}")
                failed.setdefault(why, []).append(job_.game_id)
                return
            record = msgspec.msgpack.decode(result, type=GameRecord)
            if self.ship:  # the bots' commands as the coordinator knows them
                seats = [
                    msgspec.structs.replace(seat, command=spec.command)
                    for seat, spec in zip(record.seats, job_.bots, strict=True)
                ]
                record = msgspec.structs.replace(record, seats=seats)
            done(task, record)

        fill()
        try:
            while pending:
                future, result = await trio.to_thread.run_sync(
                    next, futures, abandon_on_cancel=True
                )
                games = pending.pop(future.key)
                del live[future.key]
                try:
                    results: list[bytes | BaseException] = _unwrapped(future, result)
                except Exception as exc:  # the whole batch: Dask's KilledWorker, ...
                    results = [exc] * len(games)
                for game, got in zip(games, results, strict=True):
                    outcome(game, got)
                fill()
        finally:
            if live:  # stopped early: the cluster drops what is still queued or running
                self.client.cancel(list(live.values()), force=True)
        if failed:
            count = sum(len(games) for games in failed.values())
            reasons = "; ".join(
                f"{why} ({counted(len(games), 'game')}, e.g. {games[0]})"
                for why, games in failed.items()
            )
            raise GamesNotPlayed(
                f"{count} game{'s were' if count > 1 else ' was'} not played: {reasons}"
            )


def _unwrapped(future: Any, result: Any) -> list[bytes | BaseException]:
    """A finished batch's outcomes as `as_completed(with_results=True)` gives them; its error
    raised. A cancelled future's "result" is the cancellation."""
    if isinstance(result, BaseException):
        raise result
    if future.status == "error":
        raise result[1].with_traceback(result[2])
    return [got if isinstance(got, BaseException) else bytes(got) for got in result]


def _reason(exc: BaseException) -> str:
    """An error from a worker in words: an arena error's own message, else its type and
    message (Dask's KilledWorker says which game killed which workers)."""
    if isinstance(exc, ArenaError):
        return str(exc)
    name = type(exc).__name__
    if name == "KilledWorker":
        return "its workers died while playing it, three times (a bot may exhaust the worker)"
    return f"{name}: {exc}"
