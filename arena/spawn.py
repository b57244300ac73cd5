"""Start a process from the calling thread and talk to it through trio streams.

trio's own `open_process` forks from a worker thread, and trio retires idle worker threads
after 10 seconds. The kernel's parent-death signal (PR_SET_PDEATHSIG, which bubblewrap's
`--die-with-parent` and the keeper use) fires when the *thread* that forked exits, so every
bot started that way was killed 10 seconds later. Here the fork happens in the thread that
runs the game (a few hundred microseconds with vfork), which outlives the game; the death of
the referee's process still takes its bots down.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import subprocess
from collections.abc import Sequence

import trio

# What running out of looks like when the referee starts a process: the machine's fault.
RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM})


class NoResources(RuntimeError):
    """The referee could not start a process for lack of file descriptors, processes or memory:
    the referee's error, never a bot's fault."""


class Child:
    """A started process: its pid, trio streams for its standard streams, and its exit."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: int, stdout: int, stderr: int):
        self._popen = popen
        self.pid = popen.pid
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self.stderr = trio.lowlevel.FdStream(stderr)
        try:
            self._pidfd: int | None = os.pidfd_open(popen.pid)
        except OSError:  # an old kernel: poll instead
            self._pidfd = None

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        code = self._popen.poll()
        if code is not None:
            self._close_pidfd()
        return code

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            trio.lowlevel.notify_closing(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None

    async def wait(self) -> int:
        """Wait until the process exits (without a thread), and reap it."""
        while self.returncode is None:
            if self._pidfd is not None:
                with contextlib.suppress(trio.ClosedResourceError):
                    await trio.lowlevel.wait_readable(self._pidfd)
            else:
                await trio.sleep(0.01)
        code = self._popen.returncode
        assert code is not None
        return code

    def send_signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            if self._popen.returncode is None:
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def close_pidfd(self) -> None:
        """Give up the pidfd (the streams are closed by their owner)."""
        self._close_pidfd()


def _pipe() -> tuple[int, int]:
    try:
        return os.pipe2(os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in RESOURCE_ERRORS:
            raise NoResources(f"the referee could not open a pipe: {exc.strerror}") from None
        raise


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
    opened: list[int] = []
    try:
        for _ in range(3):
            opened.extend(_pipe())
        in_r, in_w, out_r, out_w, err_r, err_w = opened
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
            if exc.errno in RESOURCE_ERRORS:
                raise NoResources(
                    f"the referee could not start a process: {exc.strerror}"
                ) from None
            raise
    except BaseException:
        for fd in opened:
            os.close(fd)
        raise
    for fd in (in_r, out_w, err_w):  # the child's ends: only the child may hold them
        os.close(fd)
    try:
        return Child(popen, in_w, out_r, err_r)
    except BaseException:
        popen.kill()
        raise
