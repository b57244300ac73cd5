"""The sandbox's system-call filter (`arena.referee.seccomp`): inside the sandbox file locks,
leases, file notifications and keyrings fail while the rest of a program's file work goes
on; the program does what its listing says on every architecture it knows (run here through
a small classic-BPF interpreter, so the aarch64 and 32-bit programs are checked too); where
there is no filter the sandbox runs without one; and a bot that publishes its hand as locks
on /usr's files for its copy at the other seating learns nothing in a tournament.

bubblewrap must be installed, as for tests/referee/test_sandbox.py.
"""

from __future__ import annotations

import errno
import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.league.config import load_tournament
from arena.league.results import ResultsDir
from arena.league.tournament import run_tournament
from arena.referee import seccomp
from arena.referee.sandbox import SandboxConfig, launch, wrap
from arena.referee.spawn import spawn_moved
from tests.helpers.paths import TEST_BOTS
from tests.helpers.tournaments import command_bot, write_tournament

ON = SandboxConfig(mode="on")
REFUSED = {  # what the filter answers
    "flock": "ENOLCK",
    "F_SETLK": "ENOLCK",
    "F_SETLKW": "ENOLCK",
    "F_GETLK": "ENOLCK",
    "F_OFD_SETLK": "ENOLCK",
    "F_OFD_SETLKW": "ENOLCK",
    "F_OFD_GETLK": "ENOLCK",
    "F_SETLEASE": "ENOLCK",
    "F_GETLEASE": "ENOLCK",
    "F_NOTIFY": "EPERM",
    "inotify_init1": "EPERM",
    "add_key": "EPERM",
    "keyctl": "EPERM",
    "unshare": "EPERM",
    "shmget": "EPERM",
}
ALLOWED = (
    "write", "read", "pipe", "F_GETFL", "F_SETFL", "F_SETFD", "F_DUPFD", "mmap", "listdir",
    "fork", "thread",
)  # fmt: skip

# Each call once, on a file under /usr (shared by every sandbox) or the process's own /tmp;
# prints {call: "ok" or the error's name}.
PROBE = """
import ctypes, errno, fcntl, json, mmap, os, signal, struct, sys
numbers, scratch = json.loads(sys.argv[1]), sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
out = {}
def attempt(name, call):
    try:
        call()
        out[name] = "ok"
    except OSError as exc:
        out[name] = errno.errorcode.get(exc.errno, str(exc.errno))
def checked(result):
    if result < 0:
        raise OSError(ctypes.get_errno(), "")
shared = os.open("/usr/bin/env", os.O_RDONLY)
def lock(command, kind=fcntl.F_RDLCK, start=0):
    return lambda: fcntl.fcntl(shared, command, struct.pack("hhqqi4x", kind, 0, start, 1, 0))
attempt("flock", lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))
attempt("F_SETLK", lock(fcntl.F_SETLK, start=10))
attempt("F_SETLKW", lock(fcntl.F_SETLKW, start=20))
attempt("F_GETLK", lock(fcntl.F_GETLK, fcntl.F_WRLCK))
attempt("F_OFD_SETLK", lock(fcntl.F_OFD_SETLK, start=30))
attempt("F_OFD_SETLKW", lock(fcntl.F_OFD_SETLKW, start=40))
attempt("F_OFD_GETLK", lock(fcntl.F_OFD_GETLK, fcntl.F_WRLCK))
own = os.open(os.path.join(scratch, "own"), os.O_RDWR | os.O_CREAT, 0o600)
attempt("write", lambda: os.write(own, b"hand"))
attempt("read", lambda: os.pread(own, 4, 0) == b"hand" or sys.exit("read back wrong"))
os.close(os.open(os.path.join(scratch, "leased"), os.O_WRONLY | os.O_CREAT, 0o600))
leased = os.open(os.path.join(scratch, "leased"), os.O_RDONLY)  # open for reading only
attempt("F_SETLEASE", lambda: fcntl.fcntl(leased, fcntl.F_SETLEASE, fcntl.F_RDLCK))
attempt("F_GETLEASE", lambda: fcntl.fcntl(leased, fcntl.F_GETLEASE))
signal.signal(signal.SIGIO, signal.SIG_IGN)
folder = os.open(scratch, os.O_RDONLY)
attempt("F_NOTIFY", lambda: fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS))
attempt("inotify_init1", lambda: checked(libc.inotify_init1(0)))
# A session keyring of its own first (KEYCTL_JOIN_SESSION_KEYRING, no name), so that the key
# added next (to the session keyring, -3) leaves with the process.
attempt("keyctl", lambda: checked(libc.syscall(numbers["keyctl"], 1, None)))
attempt("add_key", lambda: checked(libc.syscall(
    numbers["add_key"], b"user", b"arena-probe", b"x", 1, ctypes.c_int(-3))))
attempt("unshare", lambda: checked(libc.unshare(0x10000000)))  # CLONE_NEWUSER
attempt("shmget", lambda: checked(libc.shmget(0, 1 << 20, 0o1600)))  # IPC_PRIVATE, IPC_CREAT
def forked():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    if os.waitpid(pid, 0)[1] >> 8 != 7:
        sys.exit("the child did not run")
attempt("fork", forked)
def threaded():
    import threading
    ran = []
    t = threading.Thread(target=ran.append, args=(1,))
    t.start()
    t.join()
    if ran != [1]:
        sys.exit("the thread did not run")
attempt("thread", threaded)
attempt("pipe", lambda: [os.close(fd) for fd in os.pipe()])
attempt("F_GETFL", lambda: fcntl.fcntl(own, fcntl.F_GETFL))
attempt("F_SETFL", lambda: fcntl.fcntl(own, fcntl.F_SETFL, os.O_NONBLOCK))
attempt("F_SETFD", lambda: fcntl.fcntl(own, fcntl.F_SETFD, fcntl.FD_CLOEXEC))
attempt("F_DUPFD", lambda: os.close(fcntl.fcntl(own, fcntl.F_DUPFD_CLOEXEC, 20)))
attempt("mmap", lambda: mmap.mmap(shared, 4096, prot=mmap.PROT_READ).close())
attempt("listdir", lambda: os.listdir("/usr"))
print(json.dumps(out))
"""


def probe_argv(scratch: str = "/tmp") -> list[str]:
    """The probe, making its files in `scratch` (the sandbox's own /tmp by default)."""
    numbers = seccomp.MACHINES[os.uname().machine][0].numbers
    return [sys.executable, "-c", PROBE, json.dumps(numbers), scratch]


async def sandboxed(argv: list[str]) -> tuple[str, str]:
    """Run `argv` in the sandbox as a bot is started (`wrap`, `launch`, `spawn_moved`): its
    output and its error output."""
    wrapped, env = wrap(argv, cwd="/", config=ON)
    command, options = launch(wrapped)
    try:
        child = spawn_moved(command, env=env, options=options)
    finally:
        os.close(options)
    out, err = bytearray(), bytearray()

    async def drain(stream: Any, into: bytearray) -> None:
        while chunk := await stream.receive_some(1 << 16):
            into += chunk

    async with child.stdin, child.stdout, child.stderr, trio.open_nursery() as nursery:
        nursery.start_soon(drain, child.stdout, out)
        nursery.start_soon(drain, child.stderr, err)
    await child.wait()
    return out.decode(), err.decode()


async def test_in_the_sandbox_locks_notifications_and_keys_fail_and_other_file_work_goes_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out, err = await sandboxed(probe_argv())
    inside = json.loads(out or "{}")
    assert inside, err
    assert {name: inside[name] for name in REFUSED} == REFUSED
    assert {name: inside[name] for name in ALLOWED} == dict.fromkeys(ALLOWED, "ok")
    # The calls themselves work on this machine, outside the sandbox and in a sandbox without
    # the filter: the filter is what refuses them.
    ran = subprocess.run(probe_argv(str(tmp_path)), capture_output=True, check=True)
    outside = json.loads(ran.stdout)
    assert outside == dict.fromkeys(outside, "ok")
    monkeypatch.setattr(seccomp, "_sealed", lambda: None)
    out, err = await sandboxed(probe_argv())
    unfiltered = json.loads(out or "{}")
    assert unfiltered, err
    locks = ["flock", "F_SETLK", "F_SETLKW", "F_GETLK", "F_OFD_SETLK", "F_OFD_GETLK"]
    assert {name: unfiltered[name] for name in locks} == dict.fromkeys(locks, "ok")


def test_without_a_filter_for_the_machine_the_sandbox_loads_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert seccomp.program("riscv64") is None
    assert seccomp.listing("riscv64") == "no filter for riscv64"

    def options() -> list[str]:
        _, fd = launch(wrap(["true"], cwd="/", config=ON)[0])
        try:
            return os.pread(fd, 1 << 20, 0).decode().split("\0")
        finally:
            os.close(fd)

    assert "--seccomp" in options() and seccomp.spawn_actions()
    monkeypatch.setattr(seccomp, "_sealed", lambda: None)
    assert "--seccomp" not in options() and seccomp.spawn_actions() == []


# -- the program, instruction by instruction ---------------------------------------------------


def run_filter(program: bytes, arch: int, nr: int, args: tuple[int, ...] = ()) -> int:
    """What the kernel would do with the call: the classic-BPF program run on its `struct
    seccomp_data` (only the instructions `arena.referee.seccomp` uses)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(*args, 0, 0, 0, 0, 0, 0)[:6])
    code = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    pc, a = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == seccomp.LD_ABS:
            a = struct.unpack_from("<I", data, k)[0]
        elif op == seccomp.AND:
            a &= k
        elif op == seccomp.JEQ:
            pc += jt if a == k else jf
        elif op == seccomp.JSET:
            pc += jt if a & k else jf
        elif op == seccomp.RET:
            return int(k)
        else:
            raise AssertionError(f"unknown instruction {op:#x}")
        pc += 1


def refused(code: int) -> int:
    return seccomp.ERRNO | code


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_program_refuses_exactly_the_locks_notifications_and_keys(machine: str) -> None:
    program = seccomp.program(machine)
    assert program is not None and len(program) % 8 == 0
    native, compat = seccomp.MACHINES[machine]
    for abi in (native, compat):
        n = abi.numbers

        def verdict(nr: int, *args: int, abi: seccomp.Abi = abi) -> int:
            return run_filter(program, abi.arch, nr, args)

        assert verdict(n["flock"]) == refused(errno.ENOLCK)
        fcntls = [n[name] for name in seccomp.FCNTLS if name in n]
        for call in fcntls:
            for command in seccomp.LOCK_COMMANDS.values():
                assert verdict(call, 3, command) == refused(errno.ENOLCK)
                # The kernel reads the command as 32 bits: high bits change nothing.
                assert verdict(call, 3, command | 1 << 32) == refused(errno.ENOLCK)
            assert verdict(call, 3, seccomp.NOTIFY_COMMANDS["F_NOTIFY"]) == refused(errno.EPERM)
            for harmless in (0, 1, 2, 3, 4, 1030, 1031):  # dup, get/set flags, pipe size
                assert verdict(call, 3, harmless) == seccomp.ALLOW
        for name in seccomp.DENIED:
            if name in n:
                assert verdict(n[name]) == refused(errno.EPERM)
        for name in seccomp.NAMESPACES:  # by the flags: only a new user namespace is refused
            new_user = seccomp.CLONE_NEWUSER
            assert verdict(n[name], new_user | 0x11) == refused(errno.EPERM)
            assert verdict(n[name], 0x01200011) == seccomp.ALLOW  # fork's flags
            assert verdict(n[name], 0x3D0F00) == seccomp.ALLOW  # a thread's
        assert verdict(n["clone3"]) == refused(errno.ENOSYS)
        blocked = set(n.values())
        for nr in range(0, 600):
            if nr not in blocked:
                assert verdict(nr, 3, 6) == seccomp.ALLOW, nr
    if machine == "x86_64":  # x32 calls: the same numbers with bit 30 set
        x32 = native.numbers["flock"] | seccomp.X32_BIT
        assert run_filter(program, native.arch, x32) == refused(errno.ENOLCK)
        x32 = native.numbers["fcntl"] | seccomp.X32_BIT
        assert run_filter(program, native.arch, x32, (3, 7)) == refused(errno.ENOLCK)
    other = 0xC00000F3  # AUDIT_ARCH_RISCV64: never made by these kernels
    assert run_filter(program, other, 0) == seccomp.KILL_PROCESS
    lines = seccomp.listing(machine).splitlines()
    assert len(lines) == len(program) // 8 and "flock: ENOLCK" in "\n".join(lines)


# -- the attack ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_bot_publishing_its_hand_as_locks_learns_nothing_of_its_opponents(
    tmp_path: Path,
) -> None:
    """The spy plays every deal once in each seat against a random bot, four games at once;
    at its first decision it publishes its hand as locks on /usr's files and reads what its
    copies publish. Its copy at the other seating of the same deal holds its opponent's hand:
    it must never learn it (the two games never play at once, and no lock can be taken)."""
    tag = random.randrange(1, 100_000)  # its own slots, apart from any other run's
    spy = command_bot("spy", "{python}", TEST_BOTS / "lock_spy_bot.py", str(tag), "0.6")
    victim = command_bot("victim", "{python}", TEST_BOTS / "random_bot.py")
    file = write_tournament(
        tmp_path, [spy, victim], ruleset="odin", options={"rounds": 1}, deals=4, jobs=4,
        sandbox="on", time={"move": 5},
    )  # fmt: skip
    t = load_tournament(file)
    with ResultsDir.open(tmp_path / "results", t) as folder:
        await run_tournament(t, folder)
        records = folder.records()
    reports: dict[str, dict[str, Any]] = {}  # by game
    for record in records:
        seat = [s.bot for s in record.seats].index("spy")
        line = next(x for x in record.stderr[seat].splitlines() if x.startswith('{"attack"'))
        reports[record.game] = json.loads(line)
    assert len(reports) == 8
    learned = []
    for game, report in reports.items():
        other = reports[game[:-1] + ("1" if game.endswith("0") else "0")]  # the other seating
        # There the spy sat where its opponent sits here, with the same cards.
        assert other["seat"] != report["seat"]
        if other["hand"] in report["learned"]:
            learned.append(game)
    assert learned == []
    if seccomp.program() is not None:  # and no lock could even be taken
        calls = {"flock", "F_SETLK", "F_OFD_SETLK", "F_GETLK", "F_OFD_GETLK"}
        assert all({e.split(":")[0] for e in r["errors"]} == calls for r in reports.values())
