"""The worker's side of a cluster: a game job played in this worker process's one trio loop,
its bots unpacked, built and checked first.

A Dask task is a batch of games, written as a coroutine, so the worker runs it on its own
event loop rather than in a thread of its pool: the task hands its games to the worker's trio
loop (a thread of its own, started with the first game) and awaits their records. A worker
plays `per_slot` games at once for each of its task slots (`--nthreads`), in one referee loop
sharing the bots' start-ups (as `GamePool` does in one process), with no thread parked per
game (hundreds of parked threads only contended with the referee for the interpreter). A batch
may hold more games than its share, so that a game ending in one batch is followed at once by a
waiting game of another, rather than the slot waiting for its batch's longest game.

Each run (one coordinator's `DaskExecutor`) has its own limit of games at once on a worker: a
limiter kept by the run's id, made by its first batch there, its size set by its own batches
only (its share: the worker's slots times the run's games per slot) and dropped when its bots'
plugins leave the worker. Another run's batches never change it, nor take its places. One
limiter for the run, rather than one for each batch, is what lets a game ending in one batch be
followed at once by a waiting game of another batch of the same run (a batch's own limit would
leave its slot half idle while its last games end).

A batch task names its bots by the names of their plugins (`arena.league.executors.plugin`),
which unpacked, built and checked each bot on this worker before Dask sent it any of that
bot's games: the task takes each bot as prepared from this process's table (`_bots`). A bot
named None (a game played outside a run) is readied in place, as a local worker would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import msgspec
import trio

from arena.games.errors import ArenaError
from arena.league.executors.job import GameJob
from arena.league.executors.shipping import CacheError, Parcel, moved, unpack
from arena.league.pool import MAX_STARTING
from arena.referee.folders import BotSpec, BuildError, build_bot, show_command
from arena.referee.game import play_game
from arena.referee.records import GameRecord
from arena.referee.sandbox import sandbox_problem


class WorkerError(ArenaError):
    """A game a worker cannot play for want of something on that worker (a program, a
    sandbox, a build): the worker's problem, named with the worker, never a bot's fault."""


def _dask_worker() -> Any | None:
    """The Dask worker running this task (None outside one): known only where Dask runs the
    task, not in the referee loop's thread."""
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def worker_slots() -> int:
    """This worker's task slots (`--nthreads`); 1 outside a Dask worker."""
    worker = _dask_worker()
    return 1 if worker is None else int(worker.state.nthreads)


def worker_name() -> str:
    """This worker's address, as the cluster knows it (or this host and process)."""
    worker = _dask_worker()
    return f"{os.uname().nodename} (pid {os.getpid()})" if worker is None else str(worker.address)


@dataclass
class _Loop:
    """A trio loop running in a daemon thread, the nursery its games run in, the start-up
    limiter they share and each run's limit of games at once."""

    token: trio.lowlevel.TrioToken
    nursery: trio.Nursery
    starting: trio.CapacityLimiter
    playing: dict[str, trio.CapacityLimiter]  # games at once in this worker, by run
    thread: threading.Thread


@dataclass
class Prepared:
    """A bot of a run as this worker process has it, once its plugin's setup ended: ready to
    play (`spec`: unpacked, built, its program found) or not (`problem`, in words, naming
    this worker)."""

    run: str
    spec: BotSpec | None
    problem: str | None


# This process's bots, by the name of their plugin (which is the name of the Dask resource
# that routes their games here): written and read on the worker's event loop only.
_bots: dict[str, Prepared] = {}


def verdicts(run: str) -> dict[str, str | None]:
    """What this worker made of the run's bots whose setup has ended, by plugin name: None
    for a bot ready to play, else why not (for `Client.run`: the coordinator notes each
    problem and gives up a bot no worker can play)."""
    return {name: bot.problem for name, bot in _bots.items() if bot.run == run}


def forget_run(run: str) -> None:
    """Drop the run's limit of games at once (its last bot left this worker)."""
    loop = _loop
    if loop is not None and loop.thread.is_alive():
        with contextlib.suppress(trio.RunFinishedError):
            loop.token.run_sync_soon(loop.playing.pop, run, None)


_loop: _Loop | None = None
_loop_lock = threading.Lock()


def _referee_loop() -> _Loop:
    """This process's referee loop, started on first use (and again if it ever stopped)."""
    global _loop
    with _loop_lock:
        # (The worker is left as its owner set it: its profiler too. Arena's own workers,
        # `DaskExecutor.local`, are started without one.)
        if _loop is None or not _loop.thread.is_alive():
            ready = threading.Event()
            made: list[_Loop] = []

            async def serve() -> None:
                async with trio.open_nursery() as nursery:
                    made.append(
                        _Loop(
                            trio.lowlevel.current_trio_token(),
                            nursery,
                            trio.CapacityLimiter(MAX_STARTING),
                            {},
                            threading.current_thread(),
                        )
                    )
                    ready.set()
                    await trio.sleep_forever()

            thread = threading.Thread(
                target=trio.run, args=(serve,), name="arena-referee", daemon=True
            )
            thread.start()
            ready.wait()
            _loop = made[0]
        return _loop


def _ready(spec: BotSpec, shipped: tuple[Parcel, bytes] | None, worker: str) -> BotSpec:
    """The bot as this worker runs it: unpacked (into this user's private cache), built (in
    its sandbox when it has one: `build_bot`), and its program found."""
    if spec.sandbox is not None and spec.sandbox.mode == "on":
        problem = sandbox_problem()
        if problem is not None:
            raise WorkerError(f"worker {worker} cannot sandbox bot {spec.name}: {problem}")
    if shipped is not None:
        parcel, data = shipped
        try:
            spec = moved(spec, parcel, unpack(parcel, data))
        except CacheError as exc:
            raise WorkerError(f"worker {worker}: {exc}") from None
    if spec.build is not None:
        try:
            spec = build_bot(spec)
        except BuildError as exc:
            tail = f"\n{exc.output}" if exc.output else ""
            raise WorkerError(f"worker {worker}: {exc}{tail}") from None
    argv = spec.argv()
    program = argv[0]
    if "/" in program:
        path = os.path.join(spec.cwd or "", program)
        found = os.access(path, os.X_OK)
    else:
        found = shutil.which(program, path=spec.env.get("PATH", os.environ.get("PATH"))) is not None
    if not found:
        raise WorkerError(
            f"worker {worker} has no program {program!r}, which bot {spec.name} runs "
            f"({show_command(spec.command)}): install it on that worker"
        )
    return spec


Seat = tuple[BotSpec, bool]  # a bot as its game job has it, and whether it is prepared here


def _seat(name: str | None, spec: BotSpec, worker: str) -> Seat:
    """The bot `spec` of a game as this worker plays it: as its plugin prepared it here
    (`name`), or as the job has it, to be readied in place (None)."""
    if name is None:
        return spec, False
    bot = _bots.get(name)
    if bot is None:  # (its games come here only once it is ready: Dask routes them)
        raise WorkerError(f"worker {worker} has not prepared bot {spec.name}")
    if bot.spec is None:
        raise WorkerError(bot.problem or f"worker {worker} cannot play bot {spec.name}")
    return bot.spec, True


async def _play(game: GameJob, seats: list[Seat], worker: str, loop: _Loop, limit: Any) -> bytes:
    """Play `game` in the referee loop, when its run has room for it on this worker (`limit`,
    a trio.CapacityLimiter); its record (msgpack)."""
    async with limit:
        # Building and looking for programs touch the disk: off the loop.
        bots = await trio.to_thread.run_sync(
            lambda: [spec if ready else _ready(spec, None, worker) for spec, ready in seats]
        )
        record: GameRecord = await play_game(
            game.ruleset,
            bots,
            options=game.options,
            seed=game.seed,
            config=game.config,
            start_limiter=loop.starting,
            game_id=game.game_id,
        )
    return msgspec.msgpack.encode(record)


async def _play_batch(
    games: list[GameJob],
    seats: list[list[Seat] | Exception],
    worker: str,
    loop: _Loop,
    limit: Any,
    scope: trio.CancelScope,
    answer: Future[list[bytes | Exception]],
) -> None:
    """Play the batch's games at once in the referee loop and settle `answer` with each one's
    record or the error that stopped it (a game whose bots this worker lacks: that error);
    `scope` is how the task's cancellation reaches them."""
    if not answer.set_running_or_notify_cancel():  # the task was cancelled before it began
        return
    outcomes: list[bytes | Exception] = [WorkerError("not played")] * len(games)

    async def one(i: int) -> None:
        got = seats[i]
        if isinstance(got, Exception):
            outcomes[i] = got
            return
        try:
            outcomes[i] = await _play(games[i], got, worker, loop, limit)
        except Exception as exc:
            outcomes[i] = exc

    with scope:
        async with trio.open_nursery() as nursery:
            for i in range(len(games)):
                nursery.start_soon(one, i)
    if scope.cancelled_caught:  # (nobody waits for this any more)
        answer.set_exception(WorkerError(f"worker {worker} stopped its games"))
    else:
        answer.set_result(outcomes)


async def play_remote(
    jobs: bytes, bots: list[list[str | None]], per_slot: float, run: str = ""
) -> list[bytes | Exception]:
    """Play a batch of game jobs of the run `run` (a msgpack-encoded list of `GameJob`; for
    each game, each bot's plugin name, or None for a bot readied in place) in this process's
    referee loop, which plays `per_slot` games of the run at once for each of the worker's
    task slots; for each game its record (msgpack-encoded) or the error that stopped it. A
    coroutine, so Dask runs it on the worker's event loop. Cancelled (Dask cancels the
    running tasks of a worker that closes, and plays them elsewhere), the games stop and
    their bots are killed."""
    games = msgspec.msgpack.decode(jobs, type=list[GameJob])
    worker, slots = worker_name(), worker_slots()  # here, where Dask says which worker this is
    seats: list[list[Seat] | Exception] = []
    for game, names in zip(games, bots, strict=True):
        try:  # (the prepared bots read here, on the worker's event loop, which writes them)
            seats.append(
                [_seat(name, spec, worker) for name, spec in zip(names, game.bots, strict=True)]
            )
        except WorkerError as exc:
            seats.append(exc)
    loop = _referee_loop()
    answer: Future[list[bytes | Exception]] = Future()
    scope = trio.CancelScope()
    at_once = max(1, round(slots * per_slot))

    def begin() -> None:
        limit = loop.playing.get(run)
        if limit is None:  # the run's first batch here
            limit = loop.playing[run] = trio.CapacityLimiter(at_once)
        elif limit.total_tokens != at_once:  # (its share changes as workers join or leave)
            limit.total_tokens = at_once
        loop.nursery.start_soon(_play_batch, games, seats, worker, loop, limit, scope, answer)

    loop.token.run_sync_soon(begin)
    try:
        return await asyncio.wrap_future(answer)
    except asyncio.CancelledError:
        loop.token.run_sync_soon(scope.cancel)
        raise
