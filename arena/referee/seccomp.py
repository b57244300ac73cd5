"""The sandbox's system-call filter: a classic BPF program that bubblewrap loads (`--seccomp
FD`) just before it starts the bot, inherited by everything the bot starts.

Every sandbox sees the same read-only system files (one inode under /usr for all of them), and
the kernel's file locks, lock and lease probes and file notifications work across sandboxes,
so two bots playing at the same time could talk through them: one locks the bytes of a file
that encode its hand, the other reads the locks. Processes that share a session keyring (the
referee's, inherited by every bot) could leave keys for one another, even between games. The
filter makes these calls fail, and allows everything else:

- `flock`, and `fcntl` (and the 32-bit `fcntl64`) with a lock command: F_GETLK, F_SETLK,
  F_SETLKW, their 64-bit forms F_GETLK64, F_SETLK64, F_SETLKW64, and the open file
  description locks F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW; and the leases F_SETLEASE and
  F_GETLEASE: ENOLCK ("no locks available"), the answer a program already gets where a file
  system has no locks;
- `fcntl` with F_NOTIFY (directory notification), `inotify_init`, `inotify_init1`,
  `inotify_add_watch`, `fanotify_init`, `fanotify_mark` (a watch on a shared file hears every
  other sandbox open or read it), and the keyring calls `add_key`, `request_key`, `keyctl`:
  EPERM;
- a new user namespace (`unshare` or `clone` with CLONE_NEWUSER): EPERM. Where the referee
  runs as root the bot is an unprivileged user of the host's own user namespace, and a user
  namespace of its own would let it mount a file system of its own (a tmpfs of any size, whose
  memory no watch sees) and reach much more of the kernel. `clone3`, whose flags sit in memory
  a filter cannot read, fails with ENOSYS, on which the C library uses `clone` instead;
- System V shared memory (`shmget`, and the 32-bit `ipc` call that multiplexes it): EPERM.
  Its segments are held by no process's descriptors or mappings once detached, so no look at
  a bot's processes could count them.

The kernel hands the filter each call's architecture, number and arguments (`struct
seccomp_data`). The program checks the architecture first, since numbers differ between
them: x86_64 (with its x32 calls, the native numbers with bit 30 set) and the 32-bit i386
calls an x86_64 kernel also takes; aarch64 and the 32-bit ARM calls of an aarch64 kernel. A
call of any other architecture, which these kernels never make, kills the process. On a
machine of another architecture there is no filter (`program` is None) and the channels above
stay open (docs/security.md, "Games at the same time").

The program is built once per process with `struct`: some sixty instructions, for which a
libseccomp binding would bring a native library and a package to every machine that plays
(PyPI has no maintained one); `listing` prints it instruction by instruction.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import struct
from dataclasses import dataclass
from typing import Any

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6] (both
# architectures are little-endian, so an argument's low 32 bits come first).
NR, ARCH, ARG0_LOW, ARG1_LOW = 0, 4, 16, 16 + 8 * 1

# Classic BPF opcodes (linux/bpf_common.h): the only ones the program uses.
LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k of seccomp_data
AND = 0x54  # BPF_ALU | BPF_AND | BPF_K: A &= k
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: if A == k, skip jt instructions, else jf
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K: if A & k, skip jt instructions, else jf
RET = 0x06  # BPF_RET | BPF_K: the verdict k

ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
ERRNO = 0x00050000  # SECCOMP_RET_ERRNO, the error number in the low 16 bits
KILL_PROCESS = 0x80000000  # SECCOMP_RET_KILL_PROCESS

X32_BIT = 0x40000000  # __X32_SYSCALL_BIT: an x32 call is its x86_64 number with this bit

# fcntl commands (asm-generic/fcntl.h, linux/fcntl.h): the same numbers on every architecture
# here. The 64-bit forms are only commands of the 32-bit calls (a 64-bit fcntl refuses them).
LOCK_COMMANDS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_GETLK64": 12,
    "F_SETLK64": 13,
    "F_SETLKW64": 14,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
}
NOTIFY_COMMANDS = {"F_NOTIFY": 1026}
CLONE_NEWUSER = 0x10000000  # linux/sched.h: the flag that makes a new user namespace

LOCKS = ("flock",)  # calls that fail with ENOLCK
FCNTLS = ("fcntl", "fcntl64")  # calls whose command decides
DENIED = (  # calls that fail with EPERM
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    "add_key",
    "request_key",
    "keyctl",
    "shmget",
    "ipc",
)
NAMESPACES = ("clone", "unshare")  # calls whose flags (the first argument) decide
NOT_THERE = ("clone3",)  # calls that fail with ENOSYS (the C library falls back)


@dataclass(frozen=True)
class Abi:
    """One architecture's calls: its AUDIT_ARCH value, the mask its numbers are compared under,
    and the numbers of the calls the filter looks at (a call it lacks is left out)."""

    name: str
    arch: int
    mask: int | None
    numbers: dict[str, int]


X86_64 = Abi(  # arch/x86/entry/syscalls/syscall_64.tbl; x32 shares these numbers
    "x86_64",
    0xC000003E,  # AUDIT_ARCH_X86_64: EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
    ~X32_BIT & 0xFFFFFFFF,
    {
        "shmget": 29,
        "clone": 56,
        "fcntl": 72,
        "flock": 73,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "inotify_init": 253,
        "inotify_add_watch": 254,
        "inotify_init1": 294,
        "unshare": 272,
        "fanotify_init": 300,
        "fanotify_mark": 301,
        "clone3": 435,
    },
)
I386 = Abi(  # arch/x86/entry/syscalls/syscall_32.tbl
    "i386",
    0x40000003,  # AUDIT_ARCH_I386: EM_386 | __AUDIT_ARCH_LE
    None,
    {
        "fcntl": 55,
        "ipc": 117,
        "clone": 120,
        "flock": 143,
        "fcntl64": 221,
        "add_key": 286,
        "request_key": 287,
        "keyctl": 288,
        "inotify_init": 291,
        "inotify_add_watch": 292,
        "unshare": 310,
        "inotify_init1": 332,
        "fanotify_init": 338,
        "fanotify_mark": 339,
        "shmget": 395,
        "clone3": 435,
    },
)
AARCH64 = Abi(  # include/uapi/asm-generic/unistd.h (no inotify_init: only inotify_init1)
    "aarch64",
    0xC00000B7,  # AUDIT_ARCH_AARCH64: EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
    None,
    {
        "fcntl": 25,
        "inotify_init1": 26,
        "inotify_add_watch": 27,
        "flock": 32,
        "unshare": 97,
        "shmget": 194,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "fanotify_init": 262,
        "fanotify_mark": 263,
        "clone3": 435,
    },
)
ARM = Abi(  # arch/arm/tools/syscall.tbl (EABI)
    "arm",
    0x40000028,  # AUDIT_ARCH_ARM: EM_ARM | __AUDIT_ARCH_LE
    None,
    {
        "fcntl": 55,
        "clone": 120,
        "flock": 143,
        "fcntl64": 221,
        "shmget": 307,
        "add_key": 309,
        "request_key": 310,
        "keyctl": 311,
        "inotify_init": 316,
        "inotify_add_watch": 317,
        "unshare": 337,
        "inotify_init1": 360,
        "fanotify_init": 367,
        "fanotify_mark": 368,
        "clone3": 435,
    },
)
# A machine (os.uname().machine), its own calls and the 32-bit calls its kernel also takes.
MACHINES = {"x86_64": (X86_64, I386), "aarch64": (AARCH64, ARM)}

FILTER_FD = 6  # where bwrap reads the filter (`arena.referee.spawn.spawn_moved` puts it there)


@dataclass(frozen=True)
class Instruction:
    """One BPF instruction: its opcode and operand, the labels its jumps go to when true and
    when false (None: the next instruction), and what it does, in words."""

    code: int
    k: int
    true: str | None = None
    false: str | None = None
    note: str = ""


def _abi_block(abi: Abi) -> list[tuple[str | None, Instruction]]:
    """The checks of one architecture's calls (labelled `abi.name`), ending in ALLOW."""
    n = abi.numbers
    out: list[tuple[str | None, Instruction]] = [
        (abi.name, Instruction(LD_ABS, NR, note="A = the call's number"))
    ]
    if abi.mask is not None:
        out.append((None, Instruction(AND, abi.mask, note="drop the x32 bit")))
    for name in FCNTLS:
        if name in n:
            out.append((None, Instruction(JEQ, n[name], "fcntl", None, f"{name}: by command")))
    for name in LOCKS:
        if name in n:
            out.append((None, Instruction(JEQ, n[name], "no-locks", None, f"{name}: ENOLCK")))
    for name in DENIED:
        if name in n:
            out.append((None, Instruction(JEQ, n[name], "denied", None, f"{name}: EPERM")))
    for name in NAMESPACES:
        if name in n:
            note = f"{name}: by its flags"
            out.append((None, Instruction(JEQ, n[name], "namespaces", None, note)))
    for name in NOT_THERE:
        if name in n:
            out.append((None, Instruction(JEQ, n[name], "no-such", None, f"{name}: ENOSYS")))
    out.append((None, Instruction(RET, ALLOW, note="any other call: allowed")))
    return out


def instructions(machine: str) -> list[tuple[str | None, Instruction]] | None:
    """The program for `machine` as labelled instructions, or None for an unknown machine."""
    if machine not in MACHINES:
        return None
    native, compat = MACHINES[machine]
    out: list[tuple[str | None, Instruction]] = [
        (None, Instruction(LD_ABS, ARCH, note="A = the call's architecture")),
        (None, Instruction(JEQ, native.arch, native.name, None, f"{native.name}?")),
        (None, Instruction(JEQ, compat.arch, compat.name, None, f"{compat.name}?")),
        (None, Instruction(RET, KILL_PROCESS, note="another architecture: kill")),
        *_abi_block(native),
        *_abi_block(compat),
        ("fcntl", Instruction(LD_ABS, ARG1_LOW, note="A = the command (low 32 bits)")),
    ]
    for name, value in LOCK_COMMANDS.items():
        out.append((None, Instruction(JEQ, value, "no-locks", None, f"{name}: ENOLCK")))
    for name, value in NOTIFY_COMMANDS.items():
        out.append((None, Instruction(JEQ, value, "denied", None, f"{name}: EPERM")))
    out += [
        (None, Instruction(RET, ALLOW, note="any other command: allowed")),
        ("namespaces", Instruction(LD_ABS, ARG0_LOW, note="A = the flags (low 32 bits)")),
        (None, Instruction(JSET, CLONE_NEWUSER, "denied", None, "a new user namespace?")),
        (None, Instruction(RET, ALLOW, note="any other flags: allowed")),
        ("no-locks", Instruction(RET, ERRNO | errno.ENOLCK, note="fail with ENOLCK")),
        ("denied", Instruction(RET, ERRNO | errno.EPERM, note="fail with EPERM")),
        ("no-such", Instruction(RET, ERRNO | errno.ENOSYS, note="fail with ENOSYS")),
    ]
    return out


def _assemble(program: list[tuple[str | None, Instruction]]) -> list[tuple[int, int, int, int]]:
    """(code, jt, jf, k) of each instruction, its jumps counted from the next instruction."""
    at = {label: i for i, (label, _) in enumerate(program) if label is not None}

    def offset(i: int, label: str | None) -> int:
        if label is None:
            return 0
        skip = at[label] - i - 1
        assert 0 <= skip < 256, f"a jump to {label} out of reach"
        return skip

    return [
        (ins.code, offset(i, ins.true), offset(i, ins.false), ins.k)
        for i, (_, ins) in enumerate(program)
    ]


@functools.cache
def program(machine: str | None = None) -> bytes | None:
    """The filter for `machine` (default: this one) as bwrap reads it, an array of `struct
    sock_filter` (u16 code, u8 jt, u8 jf, u32 k); None on an unknown machine."""
    found = instructions(machine or os.uname().machine)
    if found is None:
        return None
    return b"".join(struct.pack("=HBBI", *ins) for ins in _assemble(found))


def listing(machine: str) -> str:
    """The program for `machine`, one instruction a line, with the jumps resolved."""
    found = instructions(machine)
    if found is None:
        return f"no filter for {machine}"
    names = {LD_ABS: "ld", AND: "and", JEQ: "jeq", JSET: "jset", RET: "ret"}
    lines = []
    for i, ((label, ins), (_, jt, jf, _)) in enumerate(zip(found, _assemble(found), strict=True)):
        where = f"{label}:" if label else ""
        jumps = f" jt {i + 1 + jt} jf {i + 1 + jf}" if ins.code in (JEQ, JSET) else ""
        lines.append(f"{i:3} {where:<10}{names[ins.code]} {ins.k:#x}{jumps}  ; {ins.note}")
    return "\n".join(lines)


@functools.cache
def _sealed() -> int | None:
    """A memory file holding this machine's filter, sealed against change, open for the life
    of the process (None where there is no filter)."""
    data = program()
    if data is None:
        return None
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


def bwrap_options() -> list[str]:
    """bwrap's options that load the filter from FILTER_FD (none where there is no filter)."""
    return [] if _sealed() is None else ["--seccomp", str(FILTER_FD)]


def spawn_actions() -> list[tuple[Any, ...]]:
    """The posix_spawn file actions that open the filter on FILTER_FD of the child, afresh
    each time (bwrap reads it to its end), through the child's own copy of the memory file,
    which is still open when the actions run."""
    fd = _sealed()
    if fd is None:
        return []
    return [(os.POSIX_SPAWN_OPEN, FILTER_FD, f"/proc/self/fd/{fd}", os.O_RDONLY, 0)]
