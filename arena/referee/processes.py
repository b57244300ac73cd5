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

Orphans handed to the referee that end by themselves are its to reap, or they stay zombies,
each holding a process id (a machine has a few tens of thousands), for as long as the
referee runs: `reap_orphans`, at every bot's end and every REAP_EVERY seconds while a trio
run plays (`keep_reaping`). But the referee's children also include the processes other code
of the same process starts and waits for (builds, a version manager asked which program a
shim runs, Dask's and multiprocessing's workers, the guardian): reaping one would take its
exit status from the code waiting for it. So a child that has ended is reaped only when it is
not a bot (`spawn.started`: its `Child` reaps it) nor the guardian, and
- it is in a session that is neither the referee's nor its own: every process the referee's
  code starts is in the referee's session or leads one of its own (setsid() makes its caller
  the leader of a new session), so only an orphan can be in another (a bot leads its own
  session, and what it starts stays in it unless it calls setsid() too);
- or it is in a PID namespace below the referee's: a sandbox's (the sandbox's init, started
  by bwrap in a session of its own, is handed to the referee when bwrap ends, killed or not:
  bwrap exits as soon as its init reports the bot's exit status, before the init has ended);
- or it was seen alive as a bot's process: in the bot's tree when the bot was ended
  (`end_tree`), or handed to the referee with a bot's mark (`reap_orphans` reads the
  environment of a live child leading its own session once), known by its pid and start
  time, so that a pid used again is not taken for it.
An orphan that calls setsid() and ends before the referee sees it alive, without a mark, stays
a zombie until the referee exits (unsandboxed bots only: a sandboxed bot's processes are all
in its PID namespace).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

import trio

from arena.referee import guardian
from arena.referee.spawn import started

MARK = guardian.MARK
PR_SET_CHILD_SUBREAPER = 36
RUN = secrets.token_hex(8)  # this referee process's part of every mark
REAP_EVERY = 0.1  # seconds between two reapings of the orphans handed to the referee
_count = 0
_guardian: subprocess.Popen[bytes] | None = None
_pid = 0  # the process that set all this up (a forked child must set it up anew)
_session = 0  # its session
# Processes seen alive as a bot's, and children leading a session of their own seen alive
# without a mark, by pid: their start times (`reap_orphans`).
_seen: dict[int, int] = {}
_unmarked: dict[int, int] = {}
_abandoned: set[int] = set()  # bots whose `Child` stopped waiting for them (`abandon`)
_lock = threading.Lock()
_REAPING: trio.lowlevel.RunVar[bool] = trio.lowlevel.RunVar("arena_reaping")


def new_mark() -> str:
    """A mark for one more bot, and everything set up that uses it."""
    global _count
    _ready()
    _count += 1
    return f"{RUN}/{_count}"


def _ready() -> None:
    """Make this process a subreaper and start its guardian, once per process."""
    global _guardian, _pid, _session
    if _pid == os.getpid():
        return
    _pid, _session = os.getpid(), os.getsid(0)
    _seen.clear()
    _unmarked.clear()
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


def status_value(pid: int, field: bytes) -> int | None:
    """The first number of the line `field` (such as b"Uid:" or b"RssShmem:") of
    /proc/PID/status; None if the process is gone or has no such line."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    return None


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
        _saw(found)  # (one that ends as the referee's child, a zombie, is reaped)
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


def abandon(pid: int) -> None:
    """Leave the bot `pid`, which its `Child` no longer waits for, to `reap_orphans`."""
    with _lock:
        started.discard(pid)
        _abandoned.add(pid)


def _saw(pids: list[int]) -> None:
    """Remember `pids`, alive as a bot's processes, for `reap_orphans`."""
    with _lock:
        for pid in pids:
            if pid not in _seen and (info := _state(pid)) is not None:
                _seen[pid] = info[2]


def _state(pid: int) -> tuple[bytes, int, int] | None:
    """Process `pid`'s state (b"Z": a zombie), session and start time, from /proc/PID/stat;
    None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[3]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _below(pid: int) -> bool:
    """Whether process `pid` is in a PID namespace below this process's (its NSpid line in
    /proc/PID/status names more than one pid)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"NSpid:"):
                    return len(line.split()) > 2
    except OSError:
        pass
    return False


def reap_orphans() -> None:
    """Reap the orphans handed to this process that have ended (the rule is in this module's
    docstring), the bots abandoned that have, and the guardian if it has."""
    with _lock:
        for pid in list(_abandoned):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            except ChildProcessError:
                pass
            _abandoned.discard(pid)
        if _pid != os.getpid():
            return  # not a subreaper: orphans go to init
        if _guardian is not None:
            _guardian.poll()
        ours = handed_over(_pid)
        for child in ours:
            if child in started or (_guardian is not None and child == _guardian.pid):
                continue
            info = _state(child)
            if info is None or info[1] == _session:
                continue
            state, session, start = info
            if state != b"Z":
                if session == child and start not in (_seen.get(child), _unmarked.get(child)):
                    bots = f"{MARK}={RUN}/".encode()
                    known = _seen if guardian.carries(child, bots, prefix=True) else _unmarked
                    known[child] = start
                continue
            if session != child or _seen.get(child) == start or _below(child):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(child, os.WNOHANG)
        _forget(set(ours))


def _forget(ours: set[int]) -> None:
    """Drop what is remembered of processes gone (or whose pid is another's now)."""
    for pid in [p for p in _unmarked if p not in ours]:
        del _unmarked[pid]
    for pid, start in list(_seen.items()):
        if pid not in ours and ((info := _state(pid)) is None or info[2] != start):
            del _seen[pid]


def keep_reaping() -> None:
    """Reap orphans (`reap_orphans`) every REAP_EVERY seconds for the rest of this trio run,
    and once more at its end, once this process is a subreaper: a system task, started once
    per run."""
    if _pid != os.getpid():
        return
    try:
        _REAPING.get()
    except LookupError:
        _REAPING.set(True)
        trio.lowlevel.spawn_system_task(_reaping, name="arena-reaper")


async def _reaping() -> None:
    try:
        while True:
            await trio.sleep(REAP_EVERY)
            with contextlib.suppress(OSError):  # (a system task's error would end the run)
                reap_orphans()
    finally:
        with contextlib.suppress(OSError):
            reap_orphans()
