"""Every process of an unsandboxed bot, found and ended, even those that left its group.

A sandboxed bot lives in its own PID namespace, which the kernel ends with it. An unsandboxed
one is a plain child of the referee, and a child of its that calls setsid() or double-forks
leaves the bot's process group, so killing the group misses it. Three things catch those:

- the referee is a child subreaper (PR_SET_CHILD_SUBREAPER): a bot's process whose parent
  dies is handed to the referee, not to init, so it stays in reach;
- each bot carries a mark in its environment (ARENA_BOT=<this referee>/<n>), inherited by
  what it starts: ending a bot ends its process tree and every orphan handed to the referee
  that carries its mark;
- a guardian process (`arena/guardian.py`), started once, waits on a pipe whose other end
  only the referee holds: when the referee dies, even by SIGKILL, the guardian reads end of
  file and kills every process that carries this referee's mark.

The bot stays the referee's own child (no process in between), so nothing changes where the
scheduler runs it or what a decision costs.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import subprocess
import sys
import time

from arena.referee import guardian
from arena.referee.spawn import started

MARK = guardian.MARK
PR_SET_CHILD_SUBREAPER = 36
RUN = secrets.token_hex(8)  # this referee process's part of every mark
_count = 0
_guardian: subprocess.Popen[bytes] | None = None
_pid = 0  # the process that set all this up (a forked child must set it up anew)


def new_mark() -> str:
    """A mark for one more bot, and everything set up that uses it."""
    global _count
    _ready()
    _count += 1
    return f"{RUN}/{_count}"


def _ready() -> None:
    """Make this process a subreaper and start its guardian, once per process."""
    global _guardian, _pid
    if _pid == os.getpid():
        return
    _pid = os.getpid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    read, write = os.pipe2(os.O_CLOEXEC)
    try:
        _guardian = subprocess.Popen(
            [sys.executable, "-I", "-S", guardian.__file__, RUN],
            stdin=read,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C at the terminal is for the referee
        )
    except OSError:
        os.close(write)  # no guardian: bots are still ended with their games
    finally:
        os.close(read)
    # `write` stays open, unused, for the life of this process; no child inherits it.


def children(pid: int) -> list[int]:
    """The children of `pid`, from /proc (all of its threads' children); on a kernel without
    /proc/PID/task/TID/children, from every process's parent."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out.extend(int(p) for p in fh.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # the thread ended meanwhile
            return [p for p, parent in parents().items() if parent == pid]
        except OSError:
            continue
    return out


def handed_over(me: int) -> list[int]:
    """The children of this process `me` that orphans may be among: the kernel hands an
    orphan to a subreaper's first live thread, its main thread, whose list of children is
    read alone (the bots, forked by the spawner thread, are on that thread's list: reading
    every thread's would read one file a thread for nothing)."""
    try:
        with open(f"/proc/{me}/task/{me}/children", "rb") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:  # no such file, or the main thread gone: every thread's children
        return children(me)


def parents() -> dict[int, int]:
    """Every process's parent, read from /proc/PID/stat."""
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    out[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
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


def marked(pid: int, mark: str) -> bool:
    """Whether process `pid` was started with `mark` in its environment."""
    return guardian.carries(pid, f"{MARK}={mark}".encode())


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def end_tree(pid: int, mark: str) -> list[int]:
    """Kill `pid`'s group, every process below it, and every orphan of it handed to this
    process (as subreaper) that carries `mark`, until none is left; the orphans killed, for
    the caller to reap (they are this process's children now)."""
    me = os.getpid()
    orphans: list[int] = []
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    for _ in range(200):
        found = descendants(pid)
        for child in handed_over(me):
            # Not the referee's own children (other bots): only what was handed to it.
            if child == pid or child in started or child in orphans:
                continue
            if marked(child, mark):
                orphans.append(child)
                found += [child, *descendants(child)]
        if not found:
            break
        for p in found:
            _kill(p)
        time.sleep(0.001)  # let the killed die, and their children come to us
    return orphans


def reap(pids: list[int]) -> list[int]:
    """Collect those of `pids` that have exited; the ones still to collect."""
    left = []
    for pid in pids:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            left.append(pid)
    return left
