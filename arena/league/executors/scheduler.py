"""A Dask scheduler as the coordinator sees it, in words: reaching it (an address that cannot
work, a host unknown, nothing listening, something that is not a scheduler: each said as
such), waiting for its workers (a scheduler may have none yet, or an adaptive cluster none
before work is asked of it), and knowing it lost (the client's connection to it closed: Dask
cancels every future with the reason "scheduler-connection-lost" and tries to reconnect in
the background, which this side does not wait for). Needs the `distributed` package, imported
by the caller (`arena.league.executors.cluster`)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from arena.games.errors import ArenaError
from arena.games.text import counted
from arena.league.executors.job import OnNote

CONNECT_TIMEOUT = 20.0  # seconds for a scheduler to answer, unless the run waits less
WAIT_STEP = 1.0  # seconds of one `Client.wait_for_workers`, between looks at the connection
WAIT_TOLD = 15.0  # seconds between two lines saying the run still waits
PROBE_SCHEMES = ("tcp", "tls", "ws", "wss")  # addresses that are a host and a port over TCP
LOST = "scheduler-connection-lost"  # Dask's reason for the futures of a lost scheduler


class ClusterError(ArenaError):
    """The cluster cannot be used: `distributed` missing, a scheduler out of reach."""


class SchedulerLost(ClusterError):
    """The client's connection to the scheduler closed mid-run (the scheduler stopped, its
    machine or the network went): the games in flight are gone with it, those finished are
    journaled, and the run stops so that it can be resumed against a scheduler again."""


def reach(distributed: Any, address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A `distributed.Client` of the scheduler at `address`, or ClusterError saying in words
    why there is none: an address Dask cannot read, a host unknown, nothing listening on the
    port, no answer within `timeout` seconds, or an answer that is not a scheduler's. The
    `distributed` loggers of this process show warnings and errors only, from now on."""
    head = f"cannot reach the Dask scheduler at {address}"
    where = _host_port(distributed, address, head)
    if where is not None:
        _probe(*where, timeout=timeout, head=head)
    # What distributed's client notes as it goes (comms opened and closed, a batch of messages
    # that could not be sent as the scheduler went) is not for this command's terminal; its
    # warnings and errors still are, until the scheduler is lost (`scheduler_lost`).
    logging.getLogger("distributed").setLevel(logging.WARNING)
    made: list[Any] = []
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            made.append(distributed.Client(address, timeout=timeout))
        except BaseException as exc:  # handed to the waiting thread
            failed.append(exc)

    # In a thread of its own, as Dask keeps to its timeout to connect but not to hear the
    # scheduler's answer (a listener that never answers would hold the command).
    thread = threading.Thread(target=connect, name="arena-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    if made:
        return made[0]
    from distributed.comm.core import CommClosedError

    if any(isinstance(exc, CommClosedError | ConnectionError) for exc in failed):
        # What listens there hung up on Dask's greeting: a scheduler that wants TLS does so.
        raise ClusterError(
            f"{head}: what listens there closed the connection without answering as a Dask "
            "scheduler; a scheduler that wants TLS does that to a plain tcp:// connection: "
            "give its tls:// address, with Dask's TLS configuration (distributed.comm.tls)"
        )
    if thread.is_alive() or any(isinstance(exc, OSError | TimeoutError) for exc in failed):
        raise ClusterError(
            f"{head}: something listens there but did not answer as a Dask scheduler within "
            f"{timeout:g} s"
        )
    # What answered spoke another protocol (HTTP, say), which Dask misread.
    raise ClusterError(
        f"{head}: something else answers there (not a Dask scheduler); a scheduler's "
        "address is the one `dask scheduler` prints, tcp://HOST:8786 by default"
    )


def _host_port(distributed: Any, address: str, head: str) -> tuple[str, int] | None:
    """The host and port to look for a listener at, for an address over TCP (None for another
    transport); ClusterError for an address Dask cannot read."""
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        registry.get_backend(scheme)
    except ValueError:
        raise ClusterError(
            f"{head}: {address.partition('://')[0]!r} is not a scheme Dask knows; a "
            "scheduler's address is tcp://HOST:PORT (tls://, ws:// and wss:// are the others)"
        ) from None
    if scheme not in PROBE_SCHEMES:
        return None
    try:
        host, port = parse_host_port(location)
    except ValueError:
        raise ClusterError(
            f"{head}: it names no port; a scheduler's address is tcp://HOST:PORT (8786 unless "
            "`dask scheduler --port` said otherwise)"
        ) from None
    return str(host), int(port)


def _probe(host: str, port: int, *, timeout: float, head: str) -> None:
    """One TCP connection to `host`:`port`, closed at once, so that a host unknown or a port
    nothing listens on is said at once (Dask itself retries those until its timeout)."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except socket.gaierror:
        raise ClusterError(f"{head}: no host is known by the name {host!r}") from None
    except ConnectionRefusedError:
        raise ClusterError(
            f"{head}: nothing listens on port {port} of {host} (the connection was refused): "
            "start the scheduler there (`dask scheduler`), or check the address"
        ) from None
    except TimeoutError:
        raise ClusterError(
            f"{head}: {host} did not answer on port {port} within {timeout:g} s (a machine "
            "that is off, or a firewall)"
        ) from None
    except OSError as exc:
        why = (exc.strerror or str(exc)).lower()
        raise ClusterError(f"{head}: {why}") from None


def address_of(client: Any) -> str:
    """The address of the client's scheduler (as the client knows it, lost or not)."""
    scheduler = getattr(client, "scheduler", None)
    return str(getattr(scheduler, "address", None) or "its address")


def lost(client: Any, result: object = None) -> bool:
    """Whether `client` lost its scheduler: a future cancelled for that reason (`result`, as
    `as_completed` hands a cancelled future over), or the client no longer running (it is
    reconnecting, or was closed)."""
    return getattr(result, "reason", None) == LOST or client.status != "running"


def scheduler_lost(client: Any) -> SchedulerLost:
    """The error of a lost scheduler, with distributed's own log lines about it (reconnect
    attempts, a client closing) kept off the terminal: the run says it in one line."""
    quiet_logs()
    return SchedulerLost(f"the Dask scheduler at {address_of(client)} was lost")


def quiet_logs() -> None:
    """No more lines from distributed's loggers on the terminal (in this process)."""
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name.split(".")[0] in ("distributed", "tornado"):
            logger.disabled = True
    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)  # loggers made later


def wait_for_workers(
    client: Any,
    count: int = 1,
    timeout: float | None = None,
    on_note: OnNote | None = None,
) -> None:
    """Until the scheduler of `client` has `count` running workers (`Client.wait_for_workers`),
    saying through `on_note` that it waits, and how many there are, at once and every
    WAIT_TOLD seconds; ClusterError when `timeout` seconds (None: no end) pass first,
    SchedulerLost when the scheduler goes meanwhile. Ctrl-C stops it (KeyboardInterrupt)."""
    address = address_of(client)
    started = time.monotonic()
    deadline = None if timeout is None else started + timeout
    with _work_waiting(client):
        _wait(client, count, started, deadline, timeout, on_note, address)


@contextlib.contextmanager
def _work_waiting(client: Any) -> Iterator[None]:
    """A task waiting on the scheduler meanwhile, which no worker ever runs (it asks for a
    resource nobody has), and cancelled at the end: an adaptive cluster starts workers only
    for work waiting (none at `minimum=0`, the usual pattern of dask-jobqueue and
    dask-kubernetes), and this run's work comes only once a worker is there."""
    name = f"arena-waiting-{uuid.uuid4().hex[:12]}"
    future = client.submit(_never_run, key=name, pure=False, resources={name: 1})
    try:
        yield
    finally:
        with contextlib.suppress(Exception):  # (a scheduler lost meanwhile)
            client.cancel([future], force=True)


def _never_run() -> None:
    """The task of `_work_waiting` (no worker has its resource)."""


def _wait(
    client: Any,
    count: int,
    started: float,
    deadline: float | None,
    timeout: float | None,
    on_note: OnNote | None,
    address: str,
) -> None:
    told = None  # when it last said it waits
    step = 0.01  # the first look only counts the workers
    while (there := _workers_after(client, count, step)) is not None:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            raise ClusterError(_too_few(address, count, there, timeout or 0.0))
        if on_note is not None and (told is None or now - told >= WAIT_TOLD):
            so_far = f", {now - started:.0f} s so far" if told is not None else ""
            on_note(
                f"waiting for {counted(count, 'worker')} at {address}: {there} now{so_far} "
                "(Ctrl-C stops)"
            )
            told = now
        step = WAIT_STEP if deadline is None else max(0.01, min(WAIT_STEP, deadline - now))
    if told is not None and on_note is not None:
        on_note(f"{counted(count, 'worker')} at {address} after {time.monotonic() - started:.0f} s")


def _too_few(address: str, count: int, there: int, timeout: float) -> str:
    """The run waited `timeout` seconds for `count` workers and has `there`: what to do."""
    start = f"start {'one' if count - there == 1 else 'more'} there (`dask worker {address}`)"
    if there == 0:
        return (
            f"no worker joined the Dask cluster at {address} within {timeout:g} s: {start}, "
            "or wait longer"
        )
    return (
        f"{there} of the {counted(count, 'worker')} waited for joined the Dask cluster at "
        f"{address} within {timeout:g} s: {start}, wait for fewer, or wait longer"
    )


def _workers_after(client: Any, count: int, seconds: float) -> int | None:
    """`Client.wait_for_workers(count)` for at most `seconds`: None once there are `count`,
    else how many there are. It runs in a thread of its own, and this one looks at the
    connection meanwhile: a lost scheduler is known at once, though Dask would retry its
    calls until its own timeout."""
    from distributed.exceptions import WorkerStartTimeoutError

    outcome: list[BaseException | None] = []

    def wait() -> None:
        try:
            client.wait_for_workers(count, timeout=seconds)
            outcome.append(None)
        except BaseException as exc:  # handed to the waiting thread
            outcome.append(exc)

    thread = threading.Thread(target=wait, name="arena-wait-for-workers", daemon=True)
    thread.start()
    while thread.is_alive():
        if lost(client):
            raise scheduler_lost(client)
        thread.join(0.05)
    [got] = outcome
    if got is None:
        return None
    if isinstance(got, WorkerStartTimeoutError):
        return int(got.available_workers)
    if lost(client) or isinstance(got, OSError):
        raise scheduler_lost(client)
    raise got
