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
coordinator, which journals them (a game finished twice is journaled once).

Each bot of a run reaches the workers as a Dask worker plugin (`plugin.BotPlugin`), registered
when the bot is first needed: the scheduler keeps it and sets it up on every worker, those
that join or come back included; a worker that could prepare the bot (its folder unpacked from
a content-addressed archive (`shipping`) on a remote cluster, or used in place by local
workers, which share this machine's files; built; its program found) is granted a Dask
resource named as the plugin, and every task asks for the resources of its games' bots, so
Dask sends a game only where all its bots can play. The tasks carry no archive. A watcher
asks the workers for their verdicts every WATCH_EVERY seconds: each worker's problem with a
bot is noted once, and a bot that no worker can play (with a worker there) is given up, its
games reported as not played. The plugins are unregistered at the end of the run.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import msgspec
import trio

from arena.games.errors import ArenaError
from arena.games.text import counted
from arena.league.executors.job import Executor, GameJob, OnNote
from arena.league.executors.plugin import BotPlugin, plugin_name, sweep
from arena.league.executors.remote import play_remote, verdicts
from arena.league.executors.scheduler import (
    CONNECT_TIMEOUT,
    ClusterError,
    SchedulerLost,
    lost,
    reach,
    scheduler_lost,
    wait_for_workers,
)
from arena.league.executors.shipping import pack
from arena.league.lineup import Feed, Lineup
from arena.referee.folders import BotSpec
from arena.referee.records import GameRecord
from arena.referee.spawn import NoResources

T = TypeVar("T")

INSTALL = "pip install 'arena-referee[cluster]'"
SLOTS_PER_WORKER = 16  # local workers' task slots: a batch each, of jobs / slots games
OVERFILL = 1.25  # a batch's games over its share: a game ending is followed by a waiting one
IN_FLIGHT = 1.6  # games in the tasks of a run of `jobs` asked, for each game at once
NO_RESOURCES_RETRIES = 3  # a game a worker could not start for lack of descriptors: again
WATCH_EVERY = 1.0  # seconds between two looks at the workers' verdicts on the run's bots
OUTPUT_LINES = 3  # lines of a failed build's output in the error of its games not played
GIVEN_UP = "arena-bot-given-up"  # the reason the tasks of a bot given up are cancelled with


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
        ship: bool = True,
        where: str | None = None,
        on_note: OnNote | None = None,
        jobs: int | None = None,
    ) -> None:
        """The executor of a Dask `client` of the caller's own (`DaskExecutor(client)`): bot
        folders are shipped, as a cluster's workers may be other machines; `where` (what
        `describe` says) is by default the cluster's scheduler address; `on_note` hears what
        the run says on the way (a game given up, a worker lacking a program). `close` (which
        `run_tournament` and `run_match` never call) takes the run's bots off the workers
        and leaves the client open (it stays the caller's) unless this executor made it
        (`local`, `connect`)."""
        self.client = client
        self.ship = ship
        self.where = (
            where if where is not None else f"on the Dask cluster at {client.scheduler.address}"
        )
        self._jobs = jobs
        self.on_note = on_note
        self._cluster: Any = None  # the local cluster this executor made (`local`)
        self._run = uuid.uuid4().hex[:12]  # task keys of this run differ from any other's
        self._batches = 0
        self._plugins: dict[str, str] = {}  # the plugin (and resource) of each bot, by name
        self._unplayable: dict[str, str] = {}  # the bots given up, by name: why
        self._noted: set[str] = set()  # the workers' problems with bots, said once each
        self._owned = False  # whether the client (and cluster) are this executor's to close

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
            # A free port of this machine only: none is wanted, and 8787 may be taken.
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
            # These workers are arena's own: without Dask's statistical profiler, which every
            # 10 ms walks the stack of every thread under the interpreter lock, time the
            # referee loop (busy with hundreds of games) would rather have. The configuration
            # is each nanny's own, set on its worker as it starts (and starts again).
            config={"distributed.worker.profile.enabled": False},
        )
        # Records fetched from the workers directly, not through the scheduler (which runs in
        # this process and would copy each one twice).
        client = distributed.Client(cluster, direct_to_workers=True)
        where = (
            f"in {counted(workers, 'worker process', 'worker processes')}, "
            f"{counted(jobs, 'game')} at once"
        )
        made = cls(client, ship=False, where=where, on_note=on_note, jobs=jobs)
        made._owned, made._cluster = True, cluster
        return made

    @classmethod
    def connect(
        cls,
        address: str,
        on_note: OnNote | None = None,
        timeout: float = CONNECT_TIMEOUT,
        jobs: int | None = None,
    ) -> DaskExecutor:
        """The Dask cluster whose scheduler is at `address` (tcp://HOST:8786), playing `jobs`
        games at once (by default one for each of its workers' threads); ClusterError in
        words when it cannot be reached within `timeout` seconds (`scheduler.reach`). Its
        workers are left as they are (their profiler on, if it was)."""
        client = reach(_distributed(), address, timeout)
        where = f"on the Dask cluster at {address}"
        made = cls(client, ship=True, where=where, on_note=on_note, jobs=jobs)
        made._owned = True
        return made

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
        `OVERFILL`).

        With `jobs` asked, no more tasks are in flight than hold its games and a quarter
        more (a task takes one of the cluster's slots while it runs, and the slots of a
        cluster are shared with the other runs there), and those tasks carry IN_FLIGHT games
        in all for each game at once: a batch ends with its longest game, and its games that
        ended meanwhile are made up by the other batches' waiting games."""
        threads = self.threads
        if self._jobs is not None and self._jobs < threads:
            return self._jobs, 1.0, 1
        per_slot = max(1.0, (self._jobs or threads) / threads)
        batch = 1 if per_slot == 1.0 else math.ceil(per_slot * OVERFILL)
        window = threads + max(2, threads // 4)
        if self._jobs is not None and batch > 1:
            window = min(window, math.ceil(self._jobs * OVERFILL / batch))
            batch = max(batch, math.ceil(self._jobs * IN_FLIGHT / window))
        return window, per_slot, batch

    def describe(self) -> str:
        return self.where

    def wait_for_workers(self, count: int = 1, timeout: float | None = None) -> None:
        """Until the cluster has `count` workers, saying through `on_note` that it waits;
        ClusterError after `timeout` seconds (None: as long as it takes), SchedulerLost if
        the scheduler goes meanwhile (`scheduler.wait_for_workers`)."""
        wait_for_workers(self.client, count, timeout, self.on_note)

    def close(self) -> None:
        self._unregister()
        if self._owned:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()

    def _note(self, text: str) -> None:
        if self.on_note is not None:
            self.on_note(text)

    def _plugin(self, spec: BotSpec) -> str:
        """The name of the bot's plugin and resource, the plugin registered on first use: the
        scheduler sets it up on every worker, now and to come (`plugin.BotPlugin`), with the
        bot's archive when it ships one."""
        name = self._plugins.get(spec.name)
        if name is None:
            name = plugin_name(self._run, len(self._plugins), str(self.client.id))
            self._plugins[spec.name] = name
            packed = pack(spec) if self.ship else None
            plugin = BotPlugin(name, self._run, spec, packed)
            try:
                self.client.register_plugin(plugin, name=name)
            except Exception as exc:  # a worker that could not even take it (the others did)
                if lost(self.client):
                    raise
                self._note(f"a worker could not take bot {spec.name}: {_reason(exc)}")
        return name

    def _sweep(self) -> None:
        """Take off the workers the bots of runs whose coordinator went without doing so
        (`plugin.sweep`), saying how many; a scheduler that cannot is left as it is."""
        try:
            gone = self.client.run_on_scheduler(sweep)
        except Exception as exc:
            if lost(self.client):
                raise scheduler_lost(self.client) from exc
            self._note(f"the bots of runs gone stay on the workers: {_reason(exc)}")
            return
        if gone:
            self._note(
                f"{counted(len(gone), 'bot')} of runs whose coordinator went are taken off "
                "the workers"
            )

    def _unregister(self) -> None:
        """Unregister this run's plugins (each worker tears them down: grants taken back,
        archives let go), leaving other runs' plugins alone; nothing when the scheduler is
        gone (a scheduler started anew has none)."""
        plugins, self._plugins = list(self._plugins.values()), {}
        if not plugins or self.client.status != "running":
            return
        for name in plugins:
            with contextlib.suppress(Exception):  # (a scheduler lost meanwhile)
                self.client.unregister_worker_plugin(name)

    def _submit(self, games: list[GameJob], per_slot: float) -> Any:
        """A task of `games`, asking for the resource of each of their bots: Dask sends it
        only to a worker that prepared them all."""
        self._batches += 1
        names = [[self._plugin(spec) for spec in game.bots] for game in games]
        return self.client.submit(
            play_remote,
            msgspec.msgpack.encode(games),
            names,
            per_slot,
            self._run,
            key=f"arena-{self._run}-{self._batches}",
            pure=False,
            resources={name: 1 for bots in names for name in bots},
        )

    def _verdicts(self) -> dict[str, dict[str, str | None] | None]:
        """Each worker's verdicts on this run's bots (`remote.verdicts`: a plugin's name to
        None when its bot is ready there, else why not; a bot whose setup has not ended is
        missing), None for a worker that could not say."""
        answers = self.client.run(verdicts, self._run, on_error="return")
        return {str(w): got if isinstance(got, dict) else None for w, got in answers.items()}

    def _learn(self, answers: dict[str, dict[str, str | None] | None]) -> list[str]:
        """Note each worker's problem with a bot once, and give up the bots no worker can
        play (every worker there set it up and failed: none ready, none still at it, and at
        least one worker); the names of the bots given up now."""
        for table in answers.values():
            for problem in (table or {}).values():
                if problem is not None and problem not in self._noted:
                    self._noted.add(problem)
                    self._note(problem)
        given_up = []
        for bot, plugin in self._plugins.items():
            if bot in self._unplayable or not answers:
                continue
            problems = [(table or {}).get(plugin) for table in answers.values()]
            if any(table is None or plugin not in table for table in answers.values()):
                continue  # a worker still at it, or that could not say
            if any(problem is None for problem in problems):
                continue
            why = _unplayable(bot, [problem for problem in problems if problem is not None])
            self._unplayable[bot] = why
            self._note(f"bot {bot} is played nowhere: no worker can play it")
            given_up.append(bot)
        return given_up

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
        dropped: set[str] = set()  # batches cancelled for a bot given up, by key
        self._unplayable, self._noted = {}, set()

        def window() -> tuple[int, float, int]:
            """`_shares`, taken again every few seconds, as workers join or leave."""
            nonlocal sized_at, shares
            now = time.monotonic()
            if now - sized_at > 2.0:
                sized_at, shares = now, self._shares()
            return shares

        def unplayable(game: GameJob) -> str | None:
            """Why the game's bots cannot all be played (one was given up), or None."""
            return next(
                (self._unplayable[b.name] for b in game.bots if b.name in self._unplayable), None
            )

        def submit(games: list[tuple[T, GameJob, int]], per_slot: float) -> None:
            """A batch of the games, but for those of a bot given up (not played: reported)."""
            kept = []
            for game in games:
                if (why := unplayable(game[1])) is None:
                    kept.append(game)
                else:
                    lineup.ended(game[0])
                    failed.setdefault(why, []).append(game[1].game_id)
            if not kept:
                return
            future = self._submit([game for _, game, _ in kept], per_slot)
            pending[future.key] = kept
            live[future.key] = future
            futures.add(future)

        def drop(bots: list[str]) -> None:
            """Cancel the batches in flight that hold a game of `bots` (given up): they would
            wait for a worker forever. Their other games are submitted again when they come
            back cancelled."""
            gone = set(bots)
            stuck = [
                key
                for key, games in pending.items()
                if key not in dropped and any(b.name in gone for _, g, _ in games for b in g.bots)
            ]
            if stuck:
                dropped.update(stuck)
                self.client.cancel([live[key] for key in stuck], reason=GIVEN_UP, force=True)

        async def watch() -> None:
            """Every WATCH_EVERY seconds, the workers' verdicts on the run's bots: problems
            noted, bots no worker can play given up (`_learn`)."""
            while True:
                await trio.sleep(WATCH_EVERY)
                if not self._plugins:
                    continue
                try:
                    answers = await trio.to_thread.run_sync(self._verdicts, abandon_on_cancel=True)
                except Exception:  # (a scheduler lost: the games' futures say so)
                    continue
                if given_up := self._learn(answers):
                    drop(given_up)

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

        feed = tasks if isinstance(tasks, Feed) else None
        arrived = trio.Event()  # a feed poked while nothing was in flight

        def wake() -> None:
            arrived.set()
            fill()  # (in the run's trio loop, as the feed is poked there)

        unwake = feed.waking(wake) if feed is not None else None
        try:
            self._sweep()
            fill()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(watch)
                try:
                    while pending or (feed is not None and not feed.closed):
                        if not pending:  # a feed with nothing now: until it is poked
                            await arrived.wait()
                            arrived = trio.Event()
                            fill()
                            continue
                        future, result = await trio.to_thread.run_sync(
                            next, futures, abandon_on_cancel=True
                        )
                        if lost(self.client, result):  # the games in flight went with it
                            raise scheduler_lost(self.client)
                        games = pending.pop(future.key)
                        del live[future.key]
                        if future.key in dropped and future.status == "cancelled":
                            dropped.discard(future.key)
                            submit(games, window()[1])  # (but for the bots given up)
                            fill()
                            continue
                        try:
                            results: list[bytes | BaseException] = _unwrapped(future, result)
                        except Exception as exc:  # the whole batch: Dask's KilledWorker, ...
                            results = [exc] * len(games)
                        for game, got in zip(games, results, strict=True):
                            outcome(game, got)
                        fill()
                except Exception as exc:  # a call to the lost scheduler failed
                    if not (isinstance(exc, SchedulerLost) or lost(self.client)):
                        raise
                    live.clear()  # nothing to cancel on a scheduler that is gone
                    raise scheduler_lost(self.client) from exc
                finally:
                    nursery.cancel_scope.cancel()  # (the watcher)
                    if live:  # stopped early: the cluster drops what is still queued or running
                        self.client.cancel(list(live.values()), force=True)
        except BaseExceptionGroup as group:  # the games' error, as it was raised (not a group)
            if len(group.exceptions) != 1:
                raise
            raise group.exceptions[0] from group.exceptions[0].__cause__
        finally:
            if unwake is not None:
                unwake()
            self._unregister()
        if failed:
            raise GamesNotPlayed(_not_played(failed))


def _unplayable(bot: str, problems: list[str]) -> str:
    """Why a bot's games are not played, as one line: no worker can play it, the first
    worker's problem (a failed build with the last OUTPUT_LINES lines of its output) and how
    many other workers failed too."""
    first, *output = problems[0].split("\n")
    shown = [line.strip() for line in output if line.strip()][-OUTPUT_LINES:]
    ends = f"; its output ends: {' / '.join(shown)}" if shown else ""
    others = len(problems) - 1
    also = f" (and {counted(others, 'other worker')} likewise)" if others else ""
    return f"no worker can play bot {bot}{also}: {first}{ends}"


def _unwrapped(future: Any, result: Any) -> list[bytes | BaseException]:
    """A finished batch's outcomes as `as_completed(with_results=True)` gives them; its error
    raised. A cancelled future's "result" is the cancellation."""
    if isinstance(result, BaseException):
        raise result
    if future.status == "error":
        raise result[1].with_traceback(result[2])
    return [got if isinstance(got, BaseException) else bytes(got) for got in result]


REASON_LINES = 30  # lines of one reason at most (a failed build's output: its last lines)
LINE_CHARS = 300  # characters of one line of a reason at most
REASONS_LISTED = 5  # reasons named in the error of games not played; the others counted
# A Dask task key of this executor ("arena-<run>-<batch>") and a worker's address in a reason.
_TASK_KEY = re.compile(r"'?arena-[0-9a-f]{12}-\d+'?")
_WORKER = re.compile(r"\b(?:tcp|tls|ws|wss|ucx)://(?:\[[^\]\s]*\]|[^\s:/\[]+):\d+")


def _reason(exc: BaseException) -> str:
    """An error from a worker in words: an arena error's own message, else its type and
    message (Dask's KilledWorker says which game killed which workers), with no task key in
    it (so that one cause is one reason, whichever batch it struck) and cut to REASON_LINES
    lines of LINE_CHARS characters."""
    name, cancelled = type(exc).__name__, getattr(exc, "reason", None)
    if isinstance(exc, ArenaError):
        text = str(exc)
    elif name == "KilledWorker":
        text = "its workers died while playing it, three times (a bot may exhaust the worker)"
    elif "Cancelled" in name and isinstance(cancelled, str):  # Dask's, with its reason
        text = f"the cluster cancelled it ({cancelled})"
    else:
        text = f"{name}: {exc}"
    lines = [_cut(line) for line in _TASK_KEY.sub("its task", text).split("\n")]
    if len(lines) > REASON_LINES:
        lines = [*lines[: REASON_LINES - 1], f"... ({len(lines) - REASON_LINES + 1} more lines)"]
    return "\n".join(lines)


def _cut(line: str, limit: int = LINE_CHARS) -> str:
    """`line`, or its first `limit` characters and how many more there were."""
    return line if len(line) <= limit else f"{line[:limit]}... ({len(line) - limit} more)"


def _not_played(failed: dict[str, list[str]]) -> str:
    """The games not played, by reason, as one line: each reason (its first line, a worker's
    address standing for every worker it struck) with its games' count and one of them, the
    commonest first, REASONS_LISTED at most and the others counted."""
    groups: dict[str, tuple[str, set[str], list[str]]] = {}  # by the reason, workers aside
    for why, games in failed.items():
        first = why.split("\n", 1)[0]
        shown, workers, ids = groups.setdefault(_WORKER.sub("WORKER", first), (first, set(), []))
        workers.update(_WORKER.findall(first))
        ids.extend(games)
    ranked = sorted(groups.values(), key=lambda group: -len(group[2]))
    parts = []
    for shown, workers, ids in ranked[:REASONS_LISTED]:
        others = len(workers) - 1
        also = f", and the same on {counted(others, 'other worker')}" if others > 0 else ""
        parts.append(f"{shown} ({counted(len(ids), 'game')}, e.g. {ids[0]}{also})")
    rest = ranked[REASONS_LISTED:]
    if rest:
        left = sum(len(ids) for _, _, ids in rest)
        parts.append(f"and {counted(len(rest), 'other reason')} ({counted(left, 'game')})")
    count = sum(len(games) for games in failed.values())
    return f"{count} game{'s were' if count > 1 else ' was'} not played: " + "; ".join(parts)
