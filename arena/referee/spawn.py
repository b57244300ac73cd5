"""Start a process from one long-lived thread and talk to it through trio streams.

trio's own `open_process` forks from a worker thread, and trio retires idle worker threads
after 10 seconds. The kernel's parent-death signal (PR_SET_PDEATHSIG, which bubblewrap's
`--die-with-parent` uses) fires when the *thread* that forked exits, so every bot started
that way was killed 10 seconds later. Here every process is forked by one spawner thread
that lives as long as the referee's process: its death (even by SIGKILL) still takes the
sandboxed bots down (and `arena.referee.processes` the others), and nothing else does. Forking from
a thread of its own, not from the game's, also keeps the event loop free while the kernel
copies the process, and leaves the scheduler free to run the bots on another core than the
referee (measured: the bots forked from the game's own thread cost about 10% more per
decision on two cores).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import queue
import resource
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import Any

import outcome
import trio

from arena.games.errors import ArenaError
from arena.referee import seccomp

# What running out of looks like when the referee starts a process: the machine's fault.
RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM})


class NoResources(ArenaError, RuntimeError):
    """The referee could not start a process for lack of file descriptors, processes or memory:
    the referee's error, never a bot's fault."""


#: Where the soft limit below is handed down to the referee's own processes (Dask's workers,
#: which inherit a raised limit)
FD_LIMIT_VARIABLE = "ARENA_FD_LIMIT"


def _fd_limit_at_start() -> int:
    """The soft limit on open descriptors this process started with, or, in a process started
    by a referee (a worker, which inherits the referee's raised limit), the one that referee
    started with if it is lower."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    with contextlib.suppress(KeyError, ValueError):
        inherited = int(os.environ[FD_LIMIT_VARIABLE])
        if soft == resource.RLIM_INFINITY or 0 <= inherited < soft:
            soft = inherited
    os.environ[FD_LIMIT_VARIABLE] = str(soft)
    return soft


#: The soft limit on open descriptors before the referee raised its own to the hard limit
#: (`arena.league.capacity`, once this module is imported): what the processes started here
#: are given back (a sandboxed bot gets its own, `SandboxConfig.open_files`)
FD_LIMIT = _fd_limit_at_start()

#: the pids of the processes started here and not yet reaped: the referee's own children,
#: which `arena.referee.processes` need not examine when it looks for orphans handed to it
started: set[int] = set()


class Child:
    """A started process: its pid, trio streams for its standard streams, and its exit."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        started.add(pid)
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self.stderr = trio.lowlevel.FdStream(stderr)
        self._code: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except OSError:  # an old kernel: poll instead
            self._pidfd = None

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs; reaps."""
        if self._code is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped by someone else: its status is lost
                pid, status = self.pid, 0
            if pid == 0:
                return None
            self._code = os.waitstatus_to_exitcode(status)
            started.discard(self.pid)
            self._close_pidfd()
        return self._code

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    async def wait(self) -> int:
        """Wait until the process exits (without a thread), and reap it."""
        while (code := self.returncode) is None:
            if self._pidfd is not None:
                with contextlib.suppress(trio.ClosedResourceError):
                    await trio.lowlevel.wait_readable(self._pidfd)
            else:
                await trio.sleep(0.01)
        return code

    def send_signal(self, sig: int) -> None:
        if self._code is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def close_pidfd(self) -> None:
        """Give up the pidfd (the streams are closed by their owner)."""
        self._close_pidfd()


def _pipes() -> list[int]:
    """Three pipes (stdin, stdout, stderr: read and write ends), close-on-exec, numbered 10 and
    up, so that a child's descriptors can be moved onto 0 to 5 without one overwriting
    another."""
    opened: list[int] = []
    try:
        for _ in range(3):
            for fd in os.pipe2(os.O_CLOEXEC):
                opened.append(fd)
                if fd < 10:
                    opened[-1] = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
                    os.close(fd)
    except OSError as exc:
        for fd in opened:
            os.close(fd)
        if exc.errno in RESOURCE_ERRORS:
            raise NoResources(f"the referee could not open a pipe: {exc.strerror}") from None
        raise
    return opened


def _started(pid: int, fds: list[int]) -> Child:
    """The Child of a started process, the child's ends of its pipes closed here (only the
    child may hold them, so that its exit is end of file)."""
    in_r, in_w, out_r, out_w, err_r, err_w = fds
    for fd in (in_r, out_w, err_w):
        os.close(fd)
    return Child(pid, in_w, out_r, err_r)


def _no_resources(exc: OSError) -> None:
    if exc.errno in RESOURCE_ERRORS:
        raise NoResources(f"the referee could not start a process: {exc.strerror}") from None


def spawn(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    pass_fds: Sequence[int] = (),
) -> Child:
    """Start `argv` in a new session (its own process group) with piped standard streams.

    Raises NoResources when the machine lacked what it takes (the caller may retry), and
    OSError for anything else (a missing program)."""
    fds = _pipes()
    in_r, _, _, out_w, _, err_w = fds
    try:
        popen = subprocess.Popen(
            list(argv),
            stdin=in_r,
            stdout=out_w,
            stderr=err_w,
            cwd=cwd,
            env=env,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
        )
    except OSError as exc:
        for fd in fds:
            os.close(fd)
        _no_resources(exc)
        raise
    popen.returncode = 0  # Child reaps it (os.waitpid): the Popen must not try
    _give_back_fd_limit(popen.pid)
    return _started(popen.pid, fds)


def _give_back_fd_limit(pid: int) -> None:
    """Lower the soft limit on open descriptors of the started process `pid` to FD_LIMIT
    when the referee's own is higher. Done once it has started, which costs the start
    nothing (a hook in the child before exec would have subprocess fork rather than vfork
    it): the process runs with the referee's limit for the microseconds in between, and
    may raise its soft limit to the hard one anyway, so this is the limit it is given, not
    a bound."""
    if FD_LIMIT == resource.RLIM_INFINITY:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft > FD_LIMIT:
        with contextlib.suppress(OSError):
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (FD_LIMIT, hard))


def spawn_moved(argv: Sequence[str], *, env: dict[str, str], options: int) -> Child:
    """Start `argv` (a sandbox: bwrap reading its options from descriptor 5 and its system-call
    filter, if any, from 6) in a new session, its standard input on descriptor 3 and its
    output on 4, with 0 reading nothing and 1 and 2 its stderr. bwrap's monitor keeps its
    own 0, 1 and 2 for the life of the sandbox and closes the rest, so a bot given its stdout
    on 4 (moved onto 1 inside) is seen closing it. (posix_spawn moves descriptors without a
    shell in between.)"""
    fds = _pipes()
    in_r, _, _, out_w, _, err_w = fds
    actions = [
        (os.POSIX_SPAWN_DUP2, in_r, 3),
        (os.POSIX_SPAWN_DUP2, out_w, 4),
        (os.POSIX_SPAWN_DUP2, options, 5),
        (os.POSIX_SPAWN_DUP2, err_w, 1),
        (os.POSIX_SPAWN_DUP2, err_w, 2),
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        *seccomp.spawn_actions(),
    ]
    try:
        pid = os.posix_spawnp(argv[0], list(argv), env, file_actions=actions, setsid=True)
    except OSError as exc:
        for fd in fds:
            os.close(fd)
        _no_resources(exc)
        raise
    return _started(pid, fds)


Job = tuple[Callable[[], Any], Callable[[outcome.Outcome[Any]], None]]


class _Spawner:
    """One daemon thread that runs spawn jobs, one at a time, for the life of the process."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="arena-spawner", daemon=True).start()

    def _serve(self) -> None:
        while True:
            job, deliver = self.jobs.get()
            deliver(outcome.capture(job))


_spawner: _Spawner | None = None
_lock = threading.Lock()


def _the_spawner() -> _Spawner:
    """The process's spawner thread (a forked child of the referee gets its own)."""
    global _spawner
    with _lock:
        if _spawner is None or _spawner.pid != os.getpid():
            _spawner = _Spawner()
        return _spawner


async def spawn_soon(start: Callable[[], Child]) -> Child:
    """`start()` (a `spawn` or `spawn_moved`), run by the spawner thread; the caller waits
    without blocking the event loop. A start in progress is not cancelled (it takes a
    millisecond): the process is returned, or killed if nobody is left to take it."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    box: list[outcome.Outcome[Child]] = []

    def deliver(result: outcome.Outcome[Child]) -> None:
        def hand_over() -> None:
            box.append(result)
            done.set()

        try:
            token.run_sync_soon(hand_over)
        except trio.RunFinishedError:
            if isinstance(result, outcome.Value):
                result.value.kill()

    _the_spawner().jobs.put((start, deliver))
    with trio.CancelScope(shield=True):
        await done.wait()
    return box[0].unwrap()
