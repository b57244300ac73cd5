"""What a sandboxed bot holds in memory, all its processes together.

The kernel's limit per process (RLIMIT_AS) bounds what each process maps, not what the bot
holds: the pages of a memory file (a `memfd_create` file, a file in /dev/shm, /tmp or $HOME,
which are in memory in the sandbox) written with write() and never mapped are in no
process's address space and in no process's resident memory. So a bot's memory counts
- the resident memory of each of its processes (/proc/PID/statm, which counts the pages of
  memory files its processes map), and
- its memory files, each once (by device and inode), by the blocks allocated to them: the
  memfd files its processes hold open (/proc/PID/fd) and the used blocks of the sandbox's
  in-memory mounts (its /tmp, /dev/shm and $HOME, reached through the sandbox's init as
  /proc/INIT/root/...), which hold every file written there, open, closed or deleted;
- less the pages of those files that its processes map, counted twice above. These are
  found (in /proc/PID/smaps) only when the rest is over the limit: until then the cheaper
  sum, an upper bound, is under it.

A look at a bot of many processes holding many descriptors takes long (a readlink per
descriptor: 128 processes of 256 are 32,768); it lets the referee's other tasks run every
STEP seconds of its work (`BotMemory.look`), so that other games' bots are not kept waiting,
and says how long its work took (`BotMemory.spent`), so that the watch can look less often.

Not seen: a memory file sent through a socket and never received: only a memory cgroup
would count it. (System V shared memory, which no process need hold, and mounts of the bot's
own, in a user namespace of its own, are refused by the sandbox's system-call filter:
`arena.referee.seccomp`.)
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Generator
from typing import NamedTuple

import trio

from arena.referee import processes
from arena.referee.sandbox import MIB, SCRATCH

PAGE = os.sysconf("SC_PAGE_SIZE")
#: The sandbox's writable mounts, all tmpfs (`arena.referee.sandbox.wrap`).
MOUNTS = ("/tmp", "/dev/shm", SCRATCH)
_MEMFD = b"/memfd:"  # how /proc/PID/fd shows a memfd file ("/memfd:NAME (deleted)")
STEP = 0.002  # seconds of a look's work between two chances for trio to run other tasks


@functools.cache
def memfd_device() -> int:
    """The device of every memfd file (the kernel's internal tmpfs); -1 without memfd."""
    try:
        fd = os.memfd_create("arena-probe", os.MFD_CLOEXEC)
    except (OSError, AttributeError):
        return -1
    try:
        return os.fstat(fd).st_dev
    finally:
        os.close(fd)


class Memory(NamedTuple):
    """A bot's memory, in bytes: what its processes hold resident, what its memory files
    hold, and the part of the files that its processes map (so counted in both; 0 unless
    it was looked for)."""

    resident: int
    files: int
    mapped: int = 0

    @property
    def total(self) -> int:
        """Every page counted once."""
        return self.resident + self.files - self.mapped


class BotMemory:
    """The memory held by the sandboxed bot whose bwrap process is `pid`, measured at each
    call of `measure` (or `look`, in trio)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.spent = 0.0  # seconds the last look's work took (the other tasks' turns apart)
        # The sandbox's mounts seen from here (/proc/INIT/root/tmp, ...) and their devices,
        # once the sandbox is set up; None until then.
        self._mounts: list[tuple[str, int]] | None = None
        self._since = 0.0

    def measure(self, limit: int) -> Memory:
        """The bot's memory now (0 once it is gone). When the upper bound is over `limit`
        bytes, the mapped pages of its memory files are looked for to count each once."""
        steps = self._steps(limit)
        while (used := _step(steps)) is None:
            pass
        return used

    async def look(self, limit: int) -> Memory:
        """`measure`, letting trio run other tasks every STEP seconds of its work."""
        steps = self._steps(limit)
        while (used := _step(steps)) is None:
            await trio.lowlevel.checkpoint()
        return used

    def _steps(self, limit: int) -> Generator[None, None, Memory]:
        """`measure`, stopping (a yield) every STEP seconds of its work."""
        self.spent, self._since = 0.0, time.perf_counter()
        tree = yield from self._tree()
        resident = _resident(self.pid)
        files: dict[tuple[int, int], int] = {}
        for pid in tree[1:]:  # (bwrap's own descriptors, outside the sandbox, are the referee's)
            resident += _resident(pid)
            yield from self._memfds(pid, files)
        held = sum(files.values())
        devices: set[int] = set()
        for path, device in self._mounts or ():
            held += _used(path)
            devices.add(device)
        mapped = 0
        if resident + held > limit and held > 0:
            mapped = yield from self._mapped(tree, set(files), devices)
        self.spent += time.perf_counter() - self._since
        return Memory(resident, held, mapped)

    def _pause(self) -> Generator[None, None, None]:
        """Stop if this look has worked STEP seconds since it last stopped."""
        now = time.perf_counter()
        if now - self._since >= STEP:
            self.spent += now - self._since
            yield
            self._since = time.perf_counter()

    def _tree(self) -> Generator[None, None, list[int]]:
        """The bot's processes: bwrap, the sandbox's init (its child) and everything below.
        Once a process below the init exists, the sandbox is set up (bwrap's init starts the
        command once the sandbox's root is in place): its mounts are found then."""
        inits = processes.children(self.pid)
        below: list[int] = []
        todo = list(inits)
        while todo:
            kids = processes.children(todo.pop())
            below += kids
            todo += kids
            yield from self._pause()
        if self._mounts is None and below:
            self._mounts = _mounts(inits[0])
        return [self.pid, *inits, *below]

    def _memfds(self, pid: int, files: dict[tuple[int, int], int]) -> Generator[None, None, None]:
        """Add the memfd files that process `pid` holds open to `files` (by device and inode:
        their allocated bytes). The links are read first (a readlink asks no filesystem
        anything), and only a memfd's file is looked at."""
        folder = f"/proc/{pid}/fd/"
        try:
            fds = os.listdir(folder)
        except OSError:
            return
        device = memfd_device()
        for fd in fds:
            yield from self._pause()
            path = folder + fd
            try:
                if not os.readlink(path.encode()).startswith(_MEMFD):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            if st.st_dev == device:
                files[st.st_dev, st.st_ino] = st.st_blocks * 512

    def _mapped(
        self, tree: list[int], files: set[tuple[int, int]], devices: set[int]
    ) -> Generator[None, None, int]:
        """The resident pages, mapped by the processes of `tree`, of the memory files `files`
        (device, inode) and of the files on `devices` (the sandbox's mounts), in bytes: in
        their resident memory and in the files' blocks both. Only the processes holding
        shared memory resident (RssShmem) are looked at."""
        total = 0
        for pid in tree:
            yield from self._pause()
            if _shmem(pid) > 0:
                total += _mapped_by(pid, files, devices)
        return total


def over_limit(total: int, limit_mb: int) -> str:
    """Why a bot (or its build) holding `total` bytes, over its `limit_mb`, is stopped: the
    reason of its `memory` fault, after its name."""
    return (
        f"used {total / MIB:.0f} MiB in all its processes together, over its limit of "
        f"{limit_mb} MiB"
    )


def _mounts(init: int) -> list[tuple[str, int]] | None:
    """The sandbox's writable mounts as paths through its init's root, with their devices;
    None if one of them is this process's own (the sandbox's root not yet in place)."""
    out: list[tuple[str, int]] = []
    for mount in MOUNTS:
        path = f"/proc/{init}/root{mount}"
        try:
            device = os.stat(path).st_dev
        except OSError:
            continue
        with contextlib.suppress(OSError):
            if os.stat(mount).st_dev == device:
                return None
        out.append((path, device))
    return out


def _resident(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _used(path: str) -> int:
    """The bytes in use in the filesystem mounted at `path`."""
    try:
        st = os.statvfs(path)
    except OSError:
        return 0
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def _mapped_by(pid: int, files: set[tuple[int, int]], devices: set[int]) -> int:
    """The resident pages of the memory files `files` (device, inode) and of the files on
    `devices` that process `pid` maps, in bytes: of each such mapping, what is not private
    copies (Anonymous)."""
    try:
        with open(f"/proc/{pid}/smaps", "rb") as fh:
            text = fh.read()
    except OSError:
        return 0
    total = 0
    counted = False
    rss = 0
    for line in text.splitlines():
        head = line.split(None, 1)[0] if line else b""
        if not head.endswith(b":"):  # a mapping: ADDRESSES PERMS OFFSET MAJOR:MINOR INODE
            fields = line.split()
            counted = False
            with contextlib.suppress(IndexError, ValueError):
                major, minor = fields[3].split(b":")
                device = os.makedev(int(major, 16), int(minor, 16))
                counted = device in devices or (device, int(fields[4])) in files
        elif counted and head == b"Rss:":
            rss = int(line.split()[1])
        elif counted and head == b"Anonymous:":
            total += (rss - int(line.split()[1])) * 1024
    return total


def _step(steps: Generator[None, None, Memory]) -> Memory | None:
    """One step of a look (`BotMemory._steps`): its result once it is done, else None."""
    try:
        next(steps)
    except StopIteration as done:
        used: Memory = done.value
        return used
    return None


def _shmem(pid: int) -> int:
    """The shared memory process `pid` holds resident (RssShmem), in kB; 0 if it is gone."""
    return processes.status_value(pid, b"RssShmem:") or 0
