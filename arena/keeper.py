"""The keeper: a small parent for an unsandboxed bot, so that no process of the bot outlives it.

Run by the referee as `python -I -S keeper.py REFEREE_PID -- COMMAND...` (standard library
only, so it starts in a few milliseconds). It makes itself a child subreaper
(PR_SET_CHILD_SUBREAPER), so that every descendant of the bot, even one that calls setsid()
or double-forks, stays in its process tree; it asks the kernel for SIGTERM when the referee
dies (PR_SET_PDEATHSIG). It then starts the bot, which shares its standard streams, and
gives its own copies up, so that the referee reads end-of-file as soon as the bot exits.

When the bot exits, or on SIGTERM (the referee ending the bot, or dying), the keeper kills
every process in its tree with SIGKILL, reaps them, and exits as the bot did (same status,
or the same signal), so the referee can say how the bot ended. A bot the keeper cannot start
makes it write one line starting "arena-keeper: " on stderr and exit with status 127 (or
125 when the machine, not the bot, lacked the resources: file descriptors, processes,
memory).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import resource
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
NO_RESOURCES = 125  # the referee's fault, not the bot's: it may retry
NOT_STARTED = 127
RESOURCE_ERRORS = (errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM)


class Stop(Exception):
    """SIGTERM arrived: end the bot and everything it started."""


def _stop(signum: int, frame: object) -> None:
    raise Stop


def children(pid: int) -> list[int]:
    """The live children of `pid`, from /proc (all of its threads' children)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out.extend(int(p) for p in fh.read().split())
        except OSError:
            continue
    return out


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, parents before their children."""
    out: list[int] = []
    todo = children(pid)
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children(p))
    return out


def reap() -> None:
    """Collect every exited child (the bot's orphans are ours to reap, as a subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_tree() -> None:
    """SIGKILL every descendant until none is left: a process that forks while we kill has its
    child handed to us (we are the subreaper), so the next pass finds it."""
    me = os.getpid()
    for _ in range(10_000):
        reap()
        alive = descendants(me)
        if not alive:
            return
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def exit_like(status: int) -> None:
    """Exit with the bot's wait status: the same exit code, or death by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if sig != signal.SIGKILL:
            with contextlib.suppress(OSError, ValueError):
                signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(args: list[str]) -> None:
    referee, argv = int(args[0]), args[2:]
    signal.signal(signal.SIGTERM, _stop)
    try:
        status = run(referee, argv)
    except Stop:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        kill_tree()
        exit_like(signal.SIGKILL)  # ended by the referee: as if killed outright
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    kill_tree()
    exit_like(status)


def run(referee: int, argv: list[str]) -> int:
    """Start the bot and wait for it; its wait status."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != referee:  # the referee died before the line above
        raise Stop
    try:
        bot = os.posix_spawnp(argv[0], argv, os.environ)
    except OSError as exc:
        why = exc.strerror or str(exc)
        os.write(2, f"arena-keeper: {argv[0]!r}: {why}\n".encode())
        os._exit(NO_RESOURCES if exc.errno in RESOURCE_ERRORS else NOT_STARTED)
    # The bot holds the streams now: give ours up, so its exit is end-of-file for the referee.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == bot:
            return status


if __name__ == "__main__":
    main(sys.argv[1:])
