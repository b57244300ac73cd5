"""How a bot reaches the workers of a cluster: a Dask worker plugin for each bot of a run
(`BotPlugin`), registered by the coordinator when the bot is first needed.

The scheduler keeps a registered plugin and runs its `setup` on every worker there is and on
every worker that joins later or is started again by its nanny, so a bot's archive lives as
long as the run needs it, whatever workers come and go (an archive scattered to the workers
would be lost with the last worker holding it). `setup` returns at once and prepares the bot
in a thread: the arena version compared with the coordinator's, the bot cache cleaned of
entries long unused, the archive unpacked and held in use (`shipping`), the bot built (in its
sandbox) and its program and sandbox checked (`remote._ready`). Its verdict goes into this
process's table (`remote.Prepared`): the bot ready, or the reason in words (a failed build
with its output). Only a bot ready here is granted a Dask resource named as its plugin, of a
quantity that never limits anything: the coordinator asks each task for the resources of its
games' bots, so Dask sends a game only to a worker that can play all of its bots, never to
one whose setup failed or has not ended, and plays a lost worker's games again on another
(or on the same worker, started again, once its plugins have granted its resources anew).

Dask's scheduler looks for a worker for tasks that found none only when a worker joins or
comes back to running, not when a worker's resources change: so a worker granting a resource
asks the scheduler to look again for it, as it does for a worker that joins (`_reschedule`).

`teardown` (the coordinator unregisters its plugins at its end; a worker closing tears its
plugins down) takes the grant back, lets the cache entry go and forgets the verdict, and the
run's limit of games at once on the worker with the run's last bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any, BinaryIO

import msgspec
from distributed.diagnostics.plugin import WorkerPlugin

import arena
from arena.league.executors import remote
from arena.league.executors.remote import Prepared, WorkerError, _ready
from arena.league.executors.shipping import CacheError, Parcel, cache_folder, clean_cache, lease
from arena.referee.folders import BotSpec

# Under distributed's logger, so that a worker logs it as it logs its own lines (a `dask
# worker` shows them; arena's own local workers keep to their errors, as the coordinator
# says each problem once).
logger = logging.getLogger("distributed.arena.plugin")

GRANT = 1_000_000.0  # a ready bot's resource on a worker: more than any task ever asks for
GRANT_TIMEOUT = 10.0  # seconds for the scheduler to take a grant back at teardown


class BotPlugin(WorkerPlugin):
    """One bot of one run on every worker: `name` (the plugin's and the resource's, unique to
    the run and the bot), the run's id, the bot as the coordinator has it, its parcel and
    archive (None for workers on the coordinator's machine, which use its folder in place)
    and the coordinator's arena version."""

    idempotent = False

    def __init__(
        self,
        name: str,
        run: str,
        spec: BotSpec,
        packed: tuple[Parcel, bytes] | None,
        version: str = arena.__version__,
    ) -> None:
        self.name = name
        self.run = run
        self.spec = msgspec.msgpack.encode(spec)
        self.parcel = None if packed is None else msgspec.msgpack.encode(packed[0])
        self.data = None if packed is None else packed[1]
        self.version = version
        # The worker's side, made by `setup` (the coordinator's copy is sent without it).
        self._guard: threading.Lock | None = None
        self._closed = False
        self._lease: BinaryIO | None = None
        self._task: asyncio.Future[None] | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.update(_guard=None, _closed=False, _lease=None, _task=None)
        return state

    async def setup(self, worker: Any) -> None:
        """Start preparing the bot on `worker`, and return: the worker may already run
        (plugins reach a worker after it joined), and its games come once it is ready."""
        self._guard = threading.Lock()
        self._task = asyncio.ensure_future(self._prepare(worker))

    async def teardown(self, worker: Any) -> None:
        guard = self._guard or threading.Lock()
        with guard:
            self._closed = True
            held, self._lease = self._lease, None
        bot = remote._bots.pop(self.name, None)
        running = getattr(worker.status, "name", "") in ("running", "paused")
        if bot is not None and bot.spec is not None and running:
            try:  # no more of its games here (none is sent once the coordinator is done)
                await asyncio.wait_for(worker.set_resources(**{self.name: 0}), GRANT_TIMEOUT)
            except Exception as exc:  # (a scheduler gone: nothing to take back)
                logger.info("bot plugin %s: the grant stays: %s", self.name, exc)
        if held is not None:
            held.close()
        if not any(other.run == self.run for other in remote._bots.values()):
            remote.forget_run(self.run)

    async def _prepare(self, worker: Any) -> None:
        """The bot prepared in a thread, its verdict noted, and the grant made when ready."""
        address = str(worker.address)
        spec: BotSpec | None = None
        problem: str | None = None
        try:
            spec = await asyncio.to_thread(self._ready_here, address)
        except WorkerError as exc:
            problem = str(exc)
        except Exception as exc:  # anything else is this worker's problem too, in its words
            problem = f"worker {address} could not prepare a bot: {type(exc).__name__}: {exc}"
        if self._closed:
            return
        remote._bots[self.name] = Prepared(self.run, spec, problem)
        if spec is None:
            logger.warning("%s", problem)
            return
        try:
            await worker.set_resources(**{self.name: GRANT})
            await _reschedule(worker)
        except Exception as exc:  # (the scheduler went: the worker registers anew later)
            logger.warning("bot plugin %s: no grant made: %s", self.name, exc)

    def _ready_here(self, address: str) -> BotSpec:
        """The bot ready on this worker (in a thread); WorkerError, in words, when it is not."""
        spec = msgspec.msgpack.decode(self.spec, type=BotSpec)
        here = arena.__version__
        if self.version != here:
            raise WorkerError(
                f"worker {address} runs arena {here}, not {self.version} as the coordinator "
                f"does: install arena-referee {self.version} on that worker"
            )
        if self.parcel is None or self.data is None:  # the coordinator's folders, in place
            return _ready(spec, None, address)
        parcel = msgspec.msgpack.decode(self.parcel, type=Parcel)
        try:
            base = cache_folder()
            held = lease(parcel, base)  # (before the clean-up, which then leaves it alone)
            assert self._guard is not None
            with self._guard:
                if self._closed:
                    held.close()
                    raise WorkerError(f"worker {address}: bot {spec.name} left the worker")
                self._lease = held
            clean_cache(base)
        except CacheError as exc:
            raise WorkerError(f"worker {address}: {exc}") from None
        return _ready(spec, (parcel, self.data), address)


PREFIX = "arena-bot-"  # the names of the bot plugins (and of their resources)


def plugin_name(run: str, index: int, client: str) -> str:
    """The name of the run's `index`-th bot's plugin and resource: the run's id, and the id of
    its coordinator's Dask client, by which `sweep` tells the plugins of runs gone."""
    return f"{PREFIX}{run}-{index}@{client}"


async def sweep(dask_scheduler: Any) -> list[str]:
    """On the scheduler (`Client.run_on_scheduler`): unregister the bot plugins of runs whose
    coordinator is no longer connected (killed, or its machine gone, before it could
    unregister them), so that they are torn down on every worker (grants taken back, their
    cache entries let go) and set up on no worker that joins later; their names."""
    live = set(dask_scheduler.clients)
    gone = [
        name
        for name in list(dask_scheduler.worker_plugins)
        if name.startswith(PREFIX) and "@" in name and name.rpartition("@")[2] not in live
    ]
    for name in gone:
        with contextlib.suppress(ValueError):  # (unregistered meanwhile)
            await dask_scheduler.unregister_worker_plugin(comm=None, name=name)
    return gone


def reschedule(worker: str, stimulus: str, dask_scheduler: Any) -> None:
    """On the scheduler (through `_reschedule`): what it does for a worker that joins, for a
    worker whose resources grew: the tasks that found no worker and that this one can run
    now are sent to it."""
    ws = dask_scheduler.workers.get(worker)
    if ws is None or ws.status.name != "running":
        return
    recommendations = dask_scheduler.bulk_schedule_unrunnable_after_adding_worker(ws)
    if recommendations:
        dask_scheduler.transitions(recommendations, stimulus)


async def _reschedule(worker: Any) -> None:
    """Have the scheduler look again for work this worker can take, now that its resources
    grew (through the scheduler's `run_function`, as `Client.run_on_scheduler` does)."""
    from distributed.protocol.pickle import dumps

    address = str(worker.contact_address)
    response = await worker.scheduler.run_function(
        function=dumps(reschedule),
        args=dumps((address, f"arena-grant-{time.time()}")),
        kwargs=dumps({}),
        wait=True,
    )
    if response.get("status") != "OK":
        logger.warning("the scheduler did not look for work for %s: %s", address, response)
