"""The worker's side of a cluster: a game job played in this worker process's one trio loop,
its bots unpacked, built and checked first.

Dask runs each game as a task in one of the worker's threads; the task hands the game to
the worker's trio loop (a thread of its own, started with the first game) and waits, so a
worker plays as many games at once as it has threads, with one referee loop sharing the
bots' start-ups (as `GamePool` does in one process).
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass
from functools import partial

import msgspec
import trio

from arena.games.errors import ArenaError
from arena.league.executors.job import GameJob
from arena.league.executors.shipping import Parcel, moved, unpack
from arena.league.pool import MAX_STARTING
from arena.referee.bot import BotSpec, BuildError, build_bot, show_command
from arena.referee.game import play_game
from arena.referee.records import GameRecord
from arena.referee.sandbox import sandbox_problem


class WorkerError(ArenaError):
    """A game a worker cannot play for want of something on that worker (a program, a
    sandbox, a build): the worker's problem, named with the worker, never a bot's fault."""


def worker_name() -> str:
    """This worker's address, as the cluster knows it (or this host and process)."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"{os.uname().nodename} (pid {os.getpid()})"


@dataclass
class _Loop:
    """A trio loop running in a daemon thread, and the start-up limiter its games share."""

    token: trio.lowlevel.TrioToken
    starting: trio.CapacityLimiter
    thread: threading.Thread


_loop: _Loop | None = None
_loop_lock = threading.Lock()


def _quiet_profiler() -> None:
    """Stop this Dask worker's statistical profiler: every 10 ms it walks the stack of every
    thread, and an arena worker holds one thread per game at once (waiting on the referee
    loop), so at hundreds of games it took more of the worker's time than the games."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
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
            made: list[tuple[trio.lowlevel.TrioToken, trio.CapacityLimiter]] = []

            async def serve() -> None:
                made.append(
                    (trio.lowlevel.current_trio_token(), trio.CapacityLimiter(MAX_STARTING))
                )
                ready.set()
                await trio.sleep_forever()

            thread = threading.Thread(
                target=trio.run, args=(serve,), name="arena-referee", daemon=True
            )
            thread.start()
            ready.wait()
            token, starting = made[0]
            _loop = _Loop(token, starting, thread)
        return _loop


def _ready(spec: BotSpec, parcel: Parcel | None, data: bytes | None) -> BotSpec:
    """The bot as this worker runs it: unpacked, built, and its program found."""
    if parcel is not None and data is not None:
        spec = moved(spec, parcel, unpack(parcel, data))
    if spec.build is not None:
        try:
            spec = build_bot(spec)
        except BuildError as exc:
            tail = f"\n{exc.output}" if exc.output else ""
            raise WorkerError(f"worker {worker_name()}: {exc}{tail}") from None
    argv = spec.argv()
    program = argv[0]
    if "/" in program:
        path = os.path.join(spec.cwd or "", program)
        found = os.access(path, os.X_OK)
    else:
        found = shutil.which(program, path=spec.env.get("PATH", os.environ.get("PATH"))) is not None
    if not found:
        raise WorkerError(
            f"worker {worker_name()} has no program {program!r}, which bot {spec.name} runs "
            f"({show_command(spec.command)}): install it on that worker"
        )
    if spec.sandbox is not None and spec.sandbox.mode == "on":
        problem = sandbox_problem()
        if problem is not None:
            raise WorkerError(f"worker {worker_name()} cannot sandbox bot {spec.name}: {problem}")
    return spec


def play_remote(job: bytes, parcels: list[tuple[Parcel, bytes] | None]) -> bytes:
    """Play one game job (msgpack-encoded `GameJob`, each bot's parcel and archive or None)
    in this process's referee loop; the record, msgpack-encoded."""
    game = msgspec.msgpack.decode(job, type=GameJob)
    bots = [
        _ready(spec, *(shipped if shipped is not None else (None, None)))
        for spec, shipped in zip(game.bots, parcels, strict=True)
    ]
    loop = _referee_loop()
    record: GameRecord = trio.from_thread.run(
        partial(
            play_game,
            game.ruleset,
            bots,
            options=game.options,
            seed=game.seed,
            config=game.config,
            start_limiter=loop.starting,
            game_id=game.game_id,
        ),
        trio_token=loop.token,
    )
    return msgspec.msgpack.encode(record)
