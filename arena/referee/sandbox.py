"""The bot sandbox: each bot alone with its own seat, built on bubblewrap (`bwrap`).

A sandboxed bot runs in its own PID, IPC, network, UTS and mount namespaces: it sees no
other process (so no other bot's /proc/<pid>/fd/0 and nothing to signal), has no network,
and sees a read-only system (/usr, /bin, /lib*, /etc minus its secrets), the Python
runtime when its command runs one, its own folder and the files its command names (all
read-only), an empty private $HOME (/scratch) and /tmp, and nothing of the referee's files.
Resource limits are set inside by `prlimit`; when the referee runs as root the bot runs
as a throwaway unprivileged user (`setpriv`), since the kernel exempts root from the
process limit and root could read root-only files. A system-call filter (`seccomp`) denies
file locks, file notifications and keyrings, through which bots in sandboxes side by side
could talk, and user namespaces and System V shared memory, which would hold memory that no
look at a bot's processes sees.
"""

from __future__ import annotations

import functools
import os
import re
import resource
import secrets
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from arena.games.convert import explain
from arena.games.errors import ArenaError
from arena.games.suggest import did_you_mean
from arena.referee import seccomp
from arena.referee.programs import Program, ProgramError, resolve_program

Mode = Literal["auto", "on", "off"]
MIB = 1 << 20
SCRATCH = "/scratch"  # the bot's private writable folder, and its $HOME
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
ETC_SECRETS = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/security/opasswd",
    "/etc/krb5.keytab",
    "/etc/wireguard",
    "/etc/NetworkManager/system-connections",
)
# What the bot keeps of the referee's environment (which may hold tokens and passwords).
KEPT_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
UID_BASE = 1 << 30  # throwaway user ids for bots when the referee is root: 2^30 + random
LAUNCHERS = ("bwrap: ", "setpriv: ", "prlimit: ")  # the sandbox's own error lines


class SandboxConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Whether bots run sandboxed, and the limits of each bot process inside the sandbox."""

    mode: Mode = "auto"
    memory_mb: Annotated[int, Meta(ge=16)] = 2048  # per process (RLIMIT_AS) and all together
    processes: Annotated[int, Meta(ge=4)] = 128  # processes and threads (RLIMIT_NPROC)
    cpu_seconds: Annotated[int, Meta(ge=1)] = 600  # CPU time per game (RLIMIT_CPU)
    file_size_mb: Annotated[int, Meta(ge=1)] = 64  # the largest file it may write (RLIMIT_FSIZE)
    scratch_mb: Annotated[int, Meta(ge=1)] = 64  # the size of $HOME and of /tmp (each)
    open_files: Annotated[int, Meta(ge=32)] = 256  # descriptors per process (RLIMIT_NOFILE)

    def describe(self) -> str:
        return (
            f"{self.memory_mb} MiB memory, {self.processes} processes, "
            f"{self.cpu_seconds} s CPU, {self.file_size_mb} MiB files, "
            f"{self.scratch_mb} MiB scratch, {_open_files(self.open_files)} open files"
        )


class SandboxOverride(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One bot's changes to the tournament's sandbox settings; unset fields are inherited."""

    mode: Mode | None = None
    memory_mb: Annotated[int, Meta(ge=16)] | None = None
    processes: Annotated[int, Meta(ge=4)] | None = None
    cpu_seconds: Annotated[int, Meta(ge=1)] | None = None
    file_size_mb: Annotated[int, Meta(ge=1)] | None = None
    scratch_mb: Annotated[int, Meta(ge=1)] | None = None
    open_files: Annotated[int, Meta(ge=32)] | None = None

    def apply(self, base: SandboxConfig) -> SandboxConfig:
        changes = {f: v for f in self.__struct_fields__ if (v := getattr(self, f)) is not None}
        return msgspec.structs.replace(base, **changes)


def settings(value: Mode | SandboxConfig) -> SandboxConfig:
    """A `sandbox = "on"` shorthand or a full table, as a config."""
    return SandboxConfig(mode=value) if isinstance(value, str) else value


def with_limits(config: SandboxConfig, pairs: Iterable[str]) -> SandboxConfig:
    """`memory_mb=4096`-style pairs applied to `config`; ValueError names a bad one."""
    fields = [f for f in SandboxConfig.__struct_fields__ if f != "mode"]
    changes: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or key not in fields:
            hint = did_you_mean(key, fields) if sep else ""
            raise ValueError(
                f"expected one of {', '.join(fields)} = a number, got {pair!r}"
                + (f"; {hint}" if hint else "")
            )
        changes[key] = value.strip()
    data = {**msgspec.structs.asdict(config), **changes}
    try:
        return msgspec.convert(data, SandboxConfig, strict=False)
    except msgspec.ValidationError as exc:
        raise ValueError(f"sandbox limit: {explain(exc, data, SandboxConfig)}") from None


# -- is it available? -----------------------------------------------------------------------


class SandboxUnavailable(ArenaError, RuntimeError):
    """The sandbox was required (mode "on") but cannot run on this machine."""


class SandboxWarning(UserWarning):
    """Bots run unsandboxed because the sandbox cannot run here (mode "auto")."""


INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: "
    "sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)"
)


@functools.cache
def sandbox_problem() -> str | None:
    """Why bots cannot be sandboxed here, or None: actually runs a trivial sandbox, since bwrap
    may be installed but unusable (user namespaces disabled, as in some containers)."""
    for tool, package in (("bwrap", "bubblewrap"), ("prlimit", "util-linux")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (package {package})"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv is not installed (package util-linux)"
    argv, env = wrap(["true"], cwd="/", config=SandboxConfig(mode="on"))
    try:
        done = subprocess.run(
            argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not run: {exc}"
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = text[-1] if text else f"exit status {done.returncode}"
        return (
            f"bwrap is installed but cannot create a sandbox here ({why}); unprivileged "
            "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, "
            "or an AppArmor profile for bwrap on Ubuntu 24.04)"
        )
    return None


def bwrap_available() -> bool:
    """Whether bots can be sandboxed on this machine (checked once per process)."""
    return sandbox_problem() is None


def unavailable_warning(problem: str) -> str:
    """The one warning of a command whose bots run unsandboxed because they must."""
    return (
        f"bots run WITHOUT a sandbox: {problem}. Each bot runs as you, so it can read the "
        "other bots' input through /proc/<pid>/fd/0 (their hidden cards), read the "
        "tournament file and results/ (the seeds, hence every deal), read other bots' "
        "folders, keep notes between games, signal or kill the other bots and the referee, "
        f"and use the network. To sandbox bots, {INSTALL_HINT}; "
        "pass --sandbox off to run without one knowingly."
    )


_warned = False


def active(config: SandboxConfig | None) -> bool:
    """Whether a bot with this config runs sandboxed. "on" where the sandbox cannot run raises
    SandboxUnavailable; "auto" there runs unsandboxed, with one SandboxWarning per process."""
    global _warned
    if config is None or config.mode == "off":
        return False
    problem = sandbox_problem()
    if problem is None:
        return True
    if config.mode == "on":
        raise SandboxUnavailable(f"the sandbox is required but {problem}; {INSTALL_HINT}")
    if not _warned:
        _warned = True
        warnings.warn(unavailable_warning(problem), SandboxWarning, stacklevel=2)
    return False


MIXED_RISK = (
    "an unsandboxed bot runs as you: it can read a sandboxed opponent's input (its hidden "
    "hand) through /proc/<pid>/fd/0, and ptrace or kill it"
)


class MixedSandbox(ArenaError):
    """Bots without the sandbox would sit at tables with sandboxed ones, and that was not
    allowed."""


def settle(
    bots: Sequence[tuple[str, SandboxConfig | None]],
    mode: Mode | None = None,
    *,
    allow_mixed: bool = False,
) -> tuple[list[SandboxConfig], list[str]]:
    """Each bot's sandbox with "auto" settled for this machine (on where the sandbox works,
    else off with one warning), and the warnings to show. `mode`, if given, replaces every
    bot's own. "on" where the sandbox cannot run raises SandboxUnavailable; bots left off
    beside bots on raise MixedSandbox, unless `allow_mixed` (then a warning says what they
    could do)."""
    configs = [c or SandboxConfig(mode="off") for _, c in bots]
    if mode is not None:
        configs = [msgspec.structs.replace(c, mode=mode) for c in configs]
    modes = {c.mode for c in configs}
    warnings: list[str] = []
    problem = sandbox_problem() if modes - {"off"} else None
    if problem is not None and "on" in modes:
        raise SandboxUnavailable(
            f"the sandbox is required (--sandbox on) but {problem}; {INSTALL_HINT}"
        )
    if problem is not None and "auto" in modes:
        warnings.append(unavailable_warning(problem))
    settled: Mode = "off" if problem is not None else "on"
    out = [msgspec.structs.replace(c, mode=settled) if c.mode == "auto" else c for c in configs]
    outside = [name for (name, _), c in zip(bots, out, strict=True) if c.mode == "off"]
    if outside and len(outside) < len(out):
        names = ", ".join(outside)
        if not allow_mixed:
            raise MixedSandbox(
                f"{names} would run without the sandbox, at tables with sandboxed bots; "
                f"{MIXED_RISK}. Sandbox every bot or none (--sandbox on or off), or pass "
                "--allow-mixed-sandbox (in a tournament file: allow_mixed_sandbox = true) "
                "to run them so all the same"
            )
        warnings.append(
            f"{names} run without the sandbox beside sandboxed bots (allowed): {MIXED_RISK}"
        )
    return out, warnings


# -- what a bot may see ---------------------------------------------------------------------


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies inside it (both absolute and normalized)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def hidden(
    own: Sequence[str], others: Sequence[Sequence[str]], private: Sequence[str]
) -> tuple[str, ...]:
    """What a sandbox must hide from a bot whose own paths are `own`: the private paths and the
    other bots' own paths. What overlaps its own stays visible (a folder or file it shares
    with another bot), except another bot's folder nested in its own."""
    out = list(private)
    for paths in others:
        for path in paths:
            nested = os.path.isdir(path) and any(path != o and within(path, o) for o in own)
            shared = any(within(o, path) or within(path, o) for o in own)
            if path not in out and (nested or not shared):
                out.append(path)
    return tuple(out)


def _system(path: str) -> bool:
    return any(within(path, d) for d in SYSTEM)


def _packages() -> list[str]:
    """The folders of the packages a `{python}` bot may import: `protocol` and `msgspec`."""
    import protocol

    return [
        str(Path(d).resolve())
        for package in (protocol, msgspec)
        for d in package.__path__
        if os.path.isdir(d)
    ]


def python_runtime() -> list[str]:
    """The folders a Python bot of this interpreter needs: the venv, the base installation
    and the packages `protocol` and `msgspec` (an editable install keeps `protocol` in the
    source tree; only the package's own folder is shown)."""
    dirs = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, *_packages()}
    out: list[str] = []
    for d in sorted(os.path.abspath(d) for d in dirs):
        if not _system(d) and not any(within(d, o) for o in out):
            out.append(d)
    return out


def python_path(env: dict[str, str]) -> str:
    """The PYTHONPATH that lets a `{python}` bot import `protocol` and `msgspec` however arena
    was installed (even run from a source tree by PYTHONPATH), after the bot's own."""
    parents = dict.fromkeys(os.path.dirname(d) for d in _packages())
    return os.pathsep.join(filter(None, [env.get("PYTHONPATH", ""), *parents]))


def _uses_python(exe: str | None) -> bool:
    if exe is None:
        return False
    real = os.path.realpath(exe)
    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    return exe == sys.executable or any(
        within(p, os.path.realpath(x)) for x in prefixes for p in (real, os.path.abspath(exe))
    )


def executable(argv0: str, cwd: str) -> str | None:
    """The absolute path of the program a command runs, or None if it is not found."""
    if "/" in argv0:
        path = os.path.normpath(os.path.join(cwd, argv0))
        return path if os.path.isfile(path) else None
    return shutil.which(argv0)


def own_paths(argv: Sequence[str], cwd: str, folder: str | None) -> list[str]:
    """The host paths a bot may read besides the system and the Python runtime.

    A bot with a folder gets its folder, and a program found on PATH (`node`, `java`) if it
    lies elsewhere: its command comes from its manifest, written by its author, so files it
    names outside the folder stay hidden. A bare command line (written by whoever runs the
    game) gets the program it runs and every file it names."""
    exe = executable(argv[0], cwd) if argv else None
    if exe is not None and (_system(exe) or _uses_python(exe)):
        exe = None
    if folder:
        out = [os.path.abspath(folder)]
        if exe is not None and "/" not in argv[0] and not within(exe, out[0]):
            out.append(exe)
        return out
    out = [exe] if exe is not None else []
    for arg in argv[1:]:
        if not arg or arg.startswith("-") or "\0" in arg:
            continue
        path = os.path.normpath(os.path.join(cwd, arg))
        if os.path.isfile(path) and not any(within(path, o) for o in out):
            out.append(path)
    return out


def _mask(target: str, keep: Sequence[str]) -> list[str]:
    """bwrap arguments hiding `target` (a file or folder), except the paths in `keep`
    strictly inside it: its other entries are hidden one by one, down to them."""
    inner = [k for k in keep if k != target and within(k, target)]
    if not inner:
        if os.path.isdir(target):
            return ["--tmpfs", target, "--remount-ro", target]
        return ["--ro-bind", "/dev/null", target]
    out: list[str] = []
    try:
        entries = sorted(os.listdir(target))
    except OSError:
        return out
    for entry in entries:
        path = os.path.join(target, entry)
        if os.path.islink(path) or path in inner:
            continue
        if any(within(k, path) for k in inner):
            out += _mask(path, inner)
        elif os.path.exists(path):
            out += _mask(path, [])
    return out


@functools.lru_cache(maxsize=256)
def _program(argv0: str, cwd: str, env: tuple[tuple[str, str], ...]) -> Program | None:
    """`resolve_program`, once per command, folder and environment: a shim's manager takes
    tens of milliseconds to answer, and a tournament starts the same bot many times."""
    return resolve_program(argv0, cwd, dict(env))


def _shown(
    argv: Sequence[str], cwd: str, folder: str | None, env: dict[str, str]
) -> tuple[str | None, list[str], Program | None]:
    """The program a sandboxed command runs (its shim resolved), what the sandbox shows of the
    host, and the resolved program when it is not this interpreter or a system program
    (which the sandbox shows anyway). ProgramError when a shim's manager fails."""
    exe = executable(argv[0], cwd) if argv else None
    program = None
    if argv and exe is not None and not _uses_python(exe) and not _system(exe):
        program = _program(argv[0], cwd, tuple(sorted(env.items())))
        if program is not None:
            exe = program.path
    shown = own_paths(argv, cwd, folder)
    if _uses_python(exe):
        shown = python_runtime() + shown
    if program is not None and not _system(program.path):
        for path in [program.path, *program.folders]:
            if not any(within(path, s) for s in shown):
                shown.insert(0, path)
    return exe, shown, program


def _open_files(wanted: int) -> int:
    """The limit on open files a sandboxed process gets: `wanted`, or the referee's own hard
    limit when that is lower (nobody inside the sandbox may raise a hard limit, so asking for
    more would stop every bot from starting)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def wrap(
    argv: Sequence[str],
    *,
    cwd: str | None,
    config: SandboxConfig,
    folder: str | None = None,
    env: dict[str, str] | None = None,
    hide: Sequence[str] = (),
    writable: bool = False,
) -> tuple[list[str], dict[str, str]]:
    """The bwrap command line that runs `argv` sandboxed, and the environment to start it with.

    `folder` is the bot's own folder (shown read-only; with `writable`, read-write, as its
    build sees it); `cwd` its working directory (an empty folder in the sandbox unless
    shown); `env` its own variables, added to a minimal environment; `hide` paths it must
    not see even inside what it is shown (the tournament file, results, other bots'
    folders)."""
    cwd = os.path.abspath(cwd or os.getcwd())
    argv = list(argv)
    args = ["bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts"]
    args += ["--die-with-parent", "--new-session", "--hostname", "arena-bot"]
    root = os.geteuid() == 0
    if root:  # keep only what setpriv needs to become the throwaway user
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    scratch = str(config.scratch_mb * MIB)
    args += ["--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
    for d in SYSTEM:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm"]
    args += ["--perms", "1777", "--size", scratch, "--tmpfs", SCRATCH]

    exe, shown, program = _shown(argv, cwd, folder, {**os.environ, **(env or {})})
    made: set[str] = set()

    def ancestors(path: str) -> None:
        """Make the folders above `path` (bwrap would copy their modes: /root is 0700)."""
        parts = Path(path).parts[1:-1]
        for i in range(len(parts)):
            d = "/" + "/".join(parts[: i + 1])
            if d in made or _system(d) or d == "/tmp" or any(within(d, s) for s in shown):
                continue
            made.add(d)
            args.extend(["--perms", "0755", "--dir", d])

    for path in shown:
        ancestors(path)
        bind = "--bind" if writable and path == os.path.abspath(folder or "") else "--ro-bind"
        args += [bind, path, path]
    if not any(within(cwd, s) for s in shown) and not _system(cwd):
        ancestors(cwd)
        args += ["--perms", "0755", "--dir", cwd]
    if exe is not None and (program is not None or exe in shown):
        argv[0] = exe  # run by its path (past any shim): it may not be on the sandbox's PATH
    keep = [*shown, cwd]
    sources = [*(d for d in SYSTEM if not os.path.islink(d)), *shown]
    for path in [*ETC_SECRETS, *hide]:
        path = os.path.abspath(path)
        if os.path.lexists(path) and any(within(path, s) for s in sources):
            args += _mask(path, keep)
    args += ["--remount-ro", "/", "--chdir", cwd, "--"]
    if root:
        uid = str(UID_BASE + secrets.randbelow(1 << 24))
        args += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
        args += ["--inh-caps=-all", "--"]
    args += [
        "prlimit",
        f"--as={config.memory_mb * MIB}",
        f"--nproc={config.processes}",
        f"--cpu={config.cpu_seconds}:{config.cpu_seconds + 1}",  # SIGXCPU, then SIGKILL
        f"--fsize={config.file_size_mb * MIB}",
        f"--nofile={_open_files(config.open_files)}",
        "--core=0",
        "--",
        *argv,
    ]
    base = {k: v for k in KEPT_ENV if (v := os.environ.get(k)) is not None}
    out = {**base, "HOME": SCRATCH, "TMPDIR": "/tmp", **(env or {})}
    if _uses_python(exe):
        out["PYTHONPATH"] = python_path(env or {})
    return args, out


# The bot's standard input and output reach it on descriptors 3 and 4 (`arena.referee.spawn`), moved
# into place by a shell inside the sandbox: bwrap's monitor process, outside, keeps its own 0,
# 1 and 2 open until the sandbox ends, so a bot that closed its output would not be seen doing
# so (the referee reads end-of-file only when every copy is closed); it closes the others.
INNER = 'exec 0<&3 1>&4 3<&- 4>&-; exec "$@"'
OPTIONS_FD = 5  # where bwrap reads its options


def launch(argv: Sequence[str]) -> tuple[list[str], int]:
    """The command that starts `argv` (from `wrap`) with its streams as above, and a memory
    file holding bwrap's options (read as `--args 5`), so that the bot, which can read its
    sandbox's command line (/proc/1/cmdline), does not learn the paths it is kept from. The
    caller moves the file onto descriptor 5 of the child (`arena.referee.spawn.spawn_moved`) and
    closes it. The options load the system-call filter (`arena.referee.seccomp`) where this
    machine has one: `spawn_moved` opens it on descriptor 6."""
    argv = list(argv)
    end = argv.index("--")
    fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
    options = [*argv[1:end], *seccomp.bwrap_options()]
    os.write(fd, b"".join(a.encode() + b"\0" for a in options))
    os.lseek(fd, 0, os.SEEK_SET)
    inner = ["/bin/sh", "-c", INNER, "arena-bot"]
    return [argv[0], "--args", str(OPTIONS_FD), "--", *inner, *argv[end + 1 :]], fd


# -- explaining a failure -------------------------------------------------------------------


def launcher_error(stderr: str) -> str | None:
    """The sandbox's own complaint in a bot's stderr (it could not start the bot), if any."""
    for line in stderr.splitlines():
        if line.startswith(LAUNCHERS):
            return line.strip()
    return None


_PATH = re.compile(r"(?<![\w.:/-])(/(?:[\w.+@~-]+/?)+)")
_NETWORK = re.compile(
    r"network is unreachable|name or service not known|temporary failure in name resolution|"
    r"getaddrinfo|enetunreach|eai_again|connection refused|econnrefused|"
    r"no address associated|could not resolve host|nodename nor servname",
    re.IGNORECASE,
)


def reached(
    stderr: str,
    argv: Sequence[str],
    *,
    cwd: str | None,
    folder: str | None = None,
    hide: Sequence[str] = (),
) -> list[str]:
    """What a bot tried to reach that the sandbox keeps from it, read from its error output:
    existing host paths it named that the sandbox does not show, and the network."""
    cwd = os.path.abspath(cwd or os.getcwd())
    try:
        _, inside, _ = _shown(argv, cwd, folder, dict(os.environ))
    except ProgramError:
        inside = own_paths(argv, cwd, folder)
    shown = [*SYSTEM, "/proc", "/dev", *inside]
    hidden = [os.path.abspath(h) for h in (*ETC_SECRETS, *hide)]
    out: list[str] = []
    for line in stderr.splitlines():
        denied = "permission denied" in line.lower() or "eacces" in line.lower()
        for match in _PATH.finditer(line):
            path = os.path.normpath(match.group(1))
            if path in ("/", "/tmp") or not os.path.exists(path):
                continue
            if any(o.split(" (")[0] == path for o in out):
                continue
            if any(within(path, h) for h in hidden):
                out.append(f"{path} (hidden by the sandbox)")
            elif not any(within(path, s) for s in shown):
                out.append(f"{path} (outside the sandbox)")
            elif denied and os.geteuid() == 0:
                out.append(f"{path} (not readable by the unprivileged user the bot runs as)")
    if (net := _NETWORK.search(stderr)) is not None:
        out.append(f"the network ({net.group(0)}): the sandbox has none")
    return out
