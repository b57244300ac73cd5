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
"""

from __future__ import annotations

import asyncio
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
    """A trio loop running in a daemon thread, the nursery its games run in and the start-up
    limiter they share."""

    token: trio.lowlevel.TrioToken
    nursery: trio.Nursery
    starting: trio.CapacityLimiter
    playing: trio.CapacityLimiter  # games at once in this worker
    thread: threading.Thread


_loop: _Loop | None = None
_loop_lock = threading.Lock()


def _quiet_profiler() -> None:
    """Stop this Dask worker's statistical profiler: every 10 ms it walks the stack of every
    thread and builds its statistics under the interpreter lock, time the referee loop of an
    arena worker (busy with hundreds of games) would rather have."""
    worker = _dask_worker()
    if worker is None:
        return
    for name in ("profile", "profile-cycle"):
        callback = worker.periodic_callbacks.get(name)
        if callback is not None:  # stopped from the worker's own event loop (thread-safe)
            worker.loop.add_callback(callback.stop)


def _referee_loop() -> _Loop:
    """This process's referee loop, started on first use (and again if it ever stopped)."""
    global _loop
    with _loop_lock:
        if _loop is None or not _loop.thread.is_alive():
            _quiet_profiler()
            ready = threading.Event()
            made: list[_Loop] = []

            async def serve() -> None:
                async with trio.open_nursery() as nursery:
                    made.append(
                        _Loop(
                            trio.lowlevel.current_trio_token(),
                            nursery,
                            trio.CapacityLimiter(MAX_STARTING),
                            trio.CapacityLimiter(1),
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


async def _play(
    game: GameJob,
    parcels: list[tuple[Parcel, bytes] | None],
    worker: str,
    loop: _Loop,
) -> bytes:
    """Play `game` in the referee loop, when the worker has room for it; its record (msgpack)."""
    async with loop.playing:
        # Unpacking, building and looking for programs touch the disk: off the loop.
        bots = await trio.to_thread.run_sync(
            lambda: [
                _ready(spec, shipped, worker)
                for spec, shipped in zip(game.bots, parcels, strict=True)
            ]
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
    parcels: list[list[tuple[Parcel, bytes] | None]],
    worker: str,
    loop: _Loop,
    scope: trio.CancelScope,
    answer: Future[list[bytes | Exception]],
) -> None:
    """Play the batch's games at once in the referee loop and settle `answer` with each one's
    record or the error that stopped it; `scope` is how the task's cancellation reaches them."""
    if not answer.set_running_or_notify_cancel():  # the task was cancelled before it began
        return
    outcomes: list[bytes | Exception] = [WorkerError("not played")] * len(games)

    async def one(i: int) -> None:
        try:
            outcomes[i] = await _play(games[i], parcels[i], worker, loop)
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
    jobs: bytes, parcels: list[list[tuple[Parcel, bytes] | None]], per_slot: float
) -> list[bytes | Exception]:
    """Play a batch of game jobs (a msgpack-encoded list of `GameJob`; for each game, each
    bot's parcel and archive or None) in this process's referee loop, which plays `per_slot`
    games at once for each of the worker's task slots; for each game its record
    (msgpack-encoded) or the error that stopped it. A coroutine, so Dask runs it on the
    worker's event loop. Cancelled (Dask cancels the running tasks of a worker that closes,
    and plays them elsewhere), the games stop and their bots are killed."""
    games = msgspec.msgpack.decode(jobs, type=list[GameJob])
    worker, slots = worker_name(), worker_slots()  # here, where Dask says which worker this is
    loop = _referee_loop()
    answer: Future[list[bytes | Exception]] = Future()
    scope = trio.CancelScope()
    at_once = max(1, round(slots * per_slot))

    def begin() -> None:
        loop.playing.total_tokens = at_once  # (the run's own figure, set by each batch)
        loop.nursery.start_soon(_play_batch, games, parcels, worker, loop, scope, answer)

    loop.token.run_sync_soon(begin)
    try:
        return await asyncio.wrap_future(answer)
    except asyncio.CancelledError:
        loop.token.run_sync_soon(scope.cancel)
        raise
