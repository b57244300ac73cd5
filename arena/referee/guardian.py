"""The guardian: ends a referee's unsandboxed bots when the referee dies, even by SIGKILL.

Run by the referee (`arena.referee.processes`) as `python -I -S guardian.py RUN` (standard library
only) with its standard input a pipe whose other end only the referee holds. It waits for end
of file, which comes when the referee exits however it does, then kills every process whose
environment carries the mark `ARENA_BOT=RUN/...` (each bot, and whatever it started, unless
that cleared its environment), until none is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable

MARK = "ARENA_BOT"


def carries(pid: int, entry: bytes, prefix: bool = False) -> bool:
    """Whether process `pid`'s environment holds `entry` (or, with `prefix`, an entry that
    starts with it). Environments of other users' processes cannot be read: False."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            data = b"\0" + fh.read()
    except OSError:
        return False
    return (b"\0" + entry) in data if prefix else (b"\0" + entry + b"\0") in data + b"\0"


def end_all(run: str) -> None:
    """SIGKILL every process carrying this referee's mark, until none is left."""
    entry = f"{MARK}={run}/".encode()
    me = os.getpid()
    kill_until_none(lambda pid: pid != me and carries(pid, entry, prefix=True), 200)


def kill_until_none(which: Callable[[int], bool], tries: int) -> None:
    """SIGKILL every process `which` says (of its pid) is to end, looking again until none is
    left (one that was dying may be there still, or have started another), `tries` times."""
    for _ in range(tries):
        found = [int(p) for p in os.listdir("/proc") if p.isdigit() and which(int(p))]
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def main(run: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the referee
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    end_all(run)


if __name__ == "__main__":
    main(sys.argv[1])
