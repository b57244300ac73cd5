"""Bot folders: how to start a bot (`BotSpec`), read from a folder's `bot.toml` or a command
line (`load_bot`), with its command found in the folder or on PATH (`resolve_command`), and
its optional build step (`build_bot`, run once per change of the folder, in the bot's
sandbox when it has one)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import msgspec
from msgspec import Meta

from arena.games import all_rulesets
from arena.games.convert import FieldError, convert
from arena.games.errors import ArenaError
from arena.games.suggest import did_you_mean
from arena.referee import guardian, memory, processes
from arena.referee.programs import ProgramError, run_hint, script_problem
from arena.referee.sandbox import (
    MIB,
    UID_BASE,
    SandboxConfig,
    SandboxUnavailable,
    active,
    own_paths,
    reached,
    wrap,
)

MANIFEST = "bot.toml"


class BotSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How to start a bot: its name, command line, working directory, extra environment,
    its own folder (what a sandbox shows it besides the files its command names), its
    sandbox (None: none), its build step (run in its folder before use, see `build_bot`) and
    the rulesets it plays (None: every one)."""

    name: str
    command: list[str]
    cwd: str | None = None
    env: dict[str, str] = msgspec.field(default_factory=dict)
    folder: str | None = None
    sandbox: SandboxConfig | None = None
    build: list[str] | None = None
    rulesets: list[str] | None = None

    def argv(self) -> list[str]:
        """The command with `{python}` replaced by this interpreter (which has `protocol`)."""
        return _expand(self.command)

    def paths(self) -> list[str]:
        """The host paths that are this bot's own: its folder and the files its command names."""
        return own_paths(self.argv(), os.path.abspath(self.cwd or os.getcwd()), self.folder)

    def refusal(self, ruleset: str) -> str | None:
        """Why this bot may not be seated in `ruleset` (its bot.toml lists others), or None."""
        if self.rulesets is None or ruleset in self.rulesets:
            return None
        return (
            f"{self.name} does not play {ruleset}: its {MANIFEST} lists "
            f"rulesets = [{', '.join(self.rulesets)}]"
        )


def show_command(words: list[str]) -> str:
    """A command as a shell line, for people (`{python}` left as it is)."""
    return " ".join(w if w == "{python}" else shlex.quote(w) for w in words)


def _expand(words: list[str]) -> list[str]:
    """`words` with `{python}` replaced by this interpreter."""
    return [sys.executable if part == "{python}" else part for part in words]


class BotSpecError(ArenaError, ValueError):
    """A bot could not be named: no such folder or command, or a bad manifest."""


class BuildError(BotSpecError):
    """A bot's build step failed; `output` holds the last lines of what it printed."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class _Manifest(msgspec.Struct, forbid_unknown_fields=True):
    """bot.toml as written: `command` and `build` are lists or shell-like strings."""

    name: Annotated[str, Meta(description="a string: the bot's name, as standings show it")]
    command: Annotated[
        list[str] | str,
        Meta(description="the program that is the bot, with its arguments: a list of strings "
             "or a string"),
    ]  # fmt: skip
    env: dict[str, str] = msgspec.field(default_factory=dict)
    build: list[str] | str | None = None
    rulesets: list[str] | None = None


def _words(value: list[str] | str) -> list[str]:
    """A command given as a list, or as a string split like a shell line."""
    return shlex.split(value) if isinstance(value, str) else list(value)


def resolve_command(
    command: list[str], folder: str, env: dict[str, str], *, where: str
) -> list[str]:
    """A folder bot's command with its program found: a bare name (no "/") is the file of
    that name in the bot's folder when there is one (run as `./name`; it must be
    executable), else a program on PATH. BotSpecError says plainly when it is neither,
    when a file named is not executable (and how to run it: `run_hint`), or when the script
    an interpreter's command runs does not exist (`script_problem`)."""
    program = command[0]
    resolved = command
    if program == "{python}":
        pass
    elif "/" in program:
        path = os.path.normpath(os.path.join(folder, program))
        if not os.path.exists(path):
            raise BotSpecError(
                f"{where}: the command's program {program!r} was not found (looked at {path})"
            )
        if not os.path.isfile(path):
            raise BotSpecError(f"{where}: the command's program {path} is a folder, not a program")
        if not os.access(path, os.X_OK):
            raise BotSpecError(
                f"{where}: the command's program {path} is not executable "
                f"({run_hint(path, command, toml=True)})"
            )
    elif os.path.isfile(local := os.path.join(folder, program)):
        if not os.access(local, os.X_OK):
            raise BotSpecError(
                f"{where}: the command's program {program!r} is a file in the bot's folder "
                f"but not executable ({run_hint(local, command, toml=True)})"
            )
        resolved = [f"./{program}", *command[1:]]
    elif shutil.which(program, path={**os.environ, **env}.get("PATH", os.defpath)) is None:
        raise BotSpecError(
            f"{where}: the command's program {program!r} is neither a file in the bot's "
            f"folder ({folder}) nor a program on PATH"
        )
    if (problem := script_problem(_expand(command), folder)) is not None:
        raise BotSpecError(f"{where}: {problem}")
    return resolved


def _check_command_line(text: str, command: list[str]) -> None:
    """Raise BotSpecError when a command line given as a bot cannot run: its program is not
    found (a path: not there; a bare name: not on PATH) or not executable, or the script its
    interpreter would run does not exist."""
    program, cwd = command[0], os.getcwd()
    neither = f"{text!r} is neither a bot folder (with {MANIFEST}) nor a command"
    if program == "{python}":
        pass
    elif "/" in program:
        path = os.path.normpath(os.path.join(cwd, program))
        if not os.path.exists(path):
            raise BotSpecError(f"{neither}: {program!r} was not found (looked at {path})")
        if not os.path.isfile(path):
            raise BotSpecError(f"{neither}: {path} is a folder without {MANIFEST}")
        if not os.access(path, os.X_OK):
            hint = run_hint(path, command, toml=False)
            raise BotSpecError(f"{text!r}: {path} is not executable ({hint})")
    elif shutil.which(program) is None:
        here = (
            f"; the file of that name here runs as ./{program}" if os.path.isfile(program) else ""
        )
        raise BotSpecError(f"{neither}: {program!r} is not a program on PATH{here}")
    if (problem := script_problem(_expand(command), cwd)) is not None:
        raise BotSpecError(f"{text!r}: {problem}")


def _rulesets(names: list[str] | None, where: str) -> list[str] | None:
    """The manifest's `rulesets`, each checked against the registry (None: every one)."""
    if names is None:
        return None
    known = [r.id for r in all_rulesets()]
    unknown = [n for n in names if n not in known]
    if unknown:
        hints = [h for n in unknown if (h := did_you_mean(n, known))]
        raise BotSpecError(
            f"{where}: rulesets: unknown ruleset {', '.join(map(repr, unknown))}; "
            + "".join(f"{h} " for h in hints)
            + f"choose from: {', '.join(known)}"
        )
    if not names:
        raise BotSpecError(
            f"{where}: rulesets is empty: list the rulesets the bot plays, or leave the key "
            "out (every ruleset)"
        )
    return list(dict.fromkeys(names))


def load_bot(text: str) -> BotSpec:
    """A bot from a folder holding `bot.toml` (name, command, optional env, build and
    rulesets), or from a command line. A folder's command is resolved (`resolve_command`)
    now, or, for a bot with a build step, once `build_bot` has built it."""
    path = Path(text)
    if path.is_dir():
        manifest = path / MANIFEST
        if not manifest.is_file():
            raise BotSpecError(f"{path} has no {MANIFEST} (with name = ... and command = [...])")
        try:
            data = convert(tomllib.loads(manifest.read_text()), _Manifest)
        except tomllib.TOMLDecodeError as exc:
            raise BotSpecError(f"{manifest}: not valid TOML ({exc})") from None
        except FieldError as exc:  # the key, what it must be and what it is, in words
            raise BotSpecError(f"{manifest}: {exc}") from None
        command = _words(data.command)
        if not command:
            raise BotSpecError(f"{manifest}: the command is empty")
        build = None if data.build is None else _words(data.build)
        if build is not None and not build:
            raise BotSpecError(f"{manifest}: the build command is empty")
        rulesets = _rulesets(data.rulesets, str(manifest))
        folder = str(path.resolve())
        if build is None:
            command = resolve_command(command, folder, data.env, where=str(manifest))
        spec = BotSpec(data.name, command, folder, data.env, folder=folder, build=build)
        return msgspec.structs.replace(spec, rulesets=rulesets)
    command = shlex.split(text)
    if not command:
        raise BotSpecError("an empty bot command")
    _check_command_line(text, command)
    return BotSpec(default_name(command), command)


def default_name(command: Sequence[str]) -> str:
    """A command line's bot name: its program file ("bot" for `python3 bot.py --fast 3`,
    "crash_bot" for `python3 crash_bot.py 3 on-request`, "mybot" for `./mybot.sh`)."""
    rest = list(command)
    if rest[0] == "env":  # `env NAME=value ... program args`: the program is what is named
        rest = rest[1:]
        while rest and "=" in rest[0] and not rest[0].startswith("-"):
            rest = rest[1:]
    rest = rest or list(command)
    words = [w for w in rest[1:] if not w.startswith("-")] or [rest[0]]
    return Path(words[0]).stem


# -- the build step ----------------------------------------------------------------------------

BUILD_STAMP = ".arena-build"  # in the bot's folder: what its last successful build saw
BUILD_TIMEOUT = 600.0  # seconds a build may take
BUILD_TAIL = 25  # lines of a failed build's output shown
BUILD_KEPT = 16 * 1024  # bytes of the end of a build's output kept, however much it prints
BUILD_POLL = 0.1  # seconds between two looks at a sandboxed build's memory
_NOT_HASHED = (".git", "__pycache__")  # folders whose changes never call for a build


def folder_files(folder: str) -> dict[str, tuple[int, int]]:
    """Every file (or symbolic link) under `folder`, by relative path, with its size and
    modification time in ns; the build stamp and the `.git` and `__pycache__` folders left
    out."""
    out: dict[str, tuple[int, int]] = {}
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_HASHED)
        for name in files:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, folder)
            if rel == BUILD_STAMP:
                continue
            with contextlib.suppress(OSError):
                st = os.lstat(path)
                out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def _digest(build: list[str], files: dict[str, tuple[int, int]], outputs: set[str]) -> str:
    """The hash of the build command and of (path, size, mtime) of every file that is not a
    build output."""
    h = hashlib.sha256(json.dumps(build).encode())
    for rel in sorted(files):
        if rel not in outputs:
            size, mtime = files[rel]
            h.update(f"\0{rel}\0{size}\0{mtime}".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class _Stamp(msgspec.Struct):
    inputs: str  # `_digest` of the folder after the build, outputs left out
    outputs: dict[str, tuple[int, int]]  # the files the build wrote, as it left them


def _current(stamp: _Stamp | None, build: list[str], files: dict[str, tuple[int, int]]) -> bool:
    """Whether the last build still stands: no input changed, every output as it left it."""
    if stamp is None:
        return False
    if any(files.get(rel) != tuple(seen) for rel, seen in stamp.outputs.items()):
        return False
    return _digest(build, files, set(stamp.outputs)) == stamp.inputs


def build_bot(spec: BotSpec, on_build: Callable[[BotSpec], None] | None = None) -> BotSpec:
    """Run the bot's build step in its folder unless nothing changed since its last success,
    then resolve its command (`resolve_command`); return the spec ready to run.

    The stamp `.arena-build` in the folder keeps a hash of (path, size, mtime) of every file
    but the build's outputs (the files the build created or changed) and those outputs as
    it left them; a change to either calls for a build. The build runs as `_run_build`
    says: in the bot's sandbox when it has one, else as the user; a failure is a BuildError
    holding the last lines of its output. `on_build` hears of a build about to run."""
    if spec.build is None or spec.folder is None:
        return spec
    folder = spec.folder
    where = os.path.join(folder, MANIFEST)
    try:
        fd = os.open(os.path.join(folder, BUILD_STAMP), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise BuildError(
            f"{spec.name}: cannot write its build stamp in {folder}: {exc.strerror}"
        ) from None
    with os.fdopen(fd, "r+b") as stamp_file:
        fcntl.flock(stamp_file, fcntl.LOCK_EX)  # another arena building the same bot waits
        try:
            stamp: _Stamp | None = msgspec.json.decode(stamp_file.read(), type=_Stamp)
        except (msgspec.DecodeError, msgspec.ValidationError):
            stamp = None
        before = folder_files(folder)
        if not _current(stamp, spec.build, before):
            if on_build is not None:
                on_build(spec)
            _run_build(spec, folder)
            after = folder_files(folder)
            outputs = {rel for rel, seen in after.items() if before.get(rel) != seen}
            made = _Stamp(_digest(spec.build, after, outputs), {r: after[r] for r in outputs})
            stamp_file.seek(0)
            stamp_file.truncate()
            stamp_file.write(msgspec.json.encode(made) + b"\n")
    command = resolve_command(spec.command, folder, spec.env, where=where)
    return msgspec.structs.replace(spec, command=command)


def build_outputs(folder: str) -> set[str] | None:
    """The files the last successful build of `folder` created or changed (relative paths,
    from its stamp; empty when it has none), read once no build of it is running; None
    when the stamp cannot be opened as a regular file of the folder."""
    try:
        fd = os.open(
            os.path.join(folder, BUILD_STAMP),
            os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
            0o644,
        )
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stamp_file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        fcntl.flock(stamp_file, fcntl.LOCK_SH)  # a build running writes it when it ends
        try:
            return set(msgspec.json.decode(stamp_file.read(), type=_Stamp).outputs)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return set()


def _run_build(spec: BotSpec, folder: str) -> None:
    """Run the build command in `folder`, for at most BUILD_TIMEOUT seconds, keeping only the
    end of its output (`_follow`); BuildError with its last lines when it fails.

    With the bot's sandbox active (`arena.referee.sandbox.active`), the build sees what the
    bot sees, its folder writable (`wrap`): no network, no other process, nothing of the
    host but the read-only system and runtime, a private $HOME and /tmp, the bot's env and
    not the referee's, and the bot's limits (prlimit's per process, and its memory as a
    whole, watched). When arena runs as root, the build runs as the throwaway user `wrap`
    picks, to whom the folder is handed for the build and taken back from after it
    (`_hand_over`, `_take_back`). Without a sandbox it runs as the user, with arena's
    environment plus the bot's env."""
    assert spec.build is not None
    head = f"the build of {spec.name} ({show_command(spec.build)}, in {folder})"
    argv, env = _expand(spec.build), {**os.environ, **spec.env}
    try:
        inside = active(spec.sandbox)
    except SandboxUnavailable as exc:
        raise BuildError(f"{head} could not start: {exc}") from None
    if not inside:
        _watched(head, argv, env, folder, None)
        return
    assert spec.sandbox is not None
    if "/" in argv[0]:
        found = os.path.isfile(os.path.join(folder, argv[0]))
    else:
        found = shutil.which(argv[0], path=env.get("PATH", os.defpath)) is not None
    if not found:
        raise BuildError(f"{head} could not start: no program {argv[0]!r} was found")
    try:
        argv, env = wrap(
            argv, cwd=folder, config=spec.sandbox, folder=folder, env=spec.env, writable=True
        )
    except ProgramError as exc:
        raise BuildError(f"{head} could not start in the sandbox: {exc}") from None
    user = _build_user(argv)
    owners = _hand_over(folder, user, head) if user is not None else None
    try:
        _watched(head, argv, env, folder, spec.sandbox.memory_mb)
    except BuildError as exc:
        tried = reached(exc.output, _expand(spec.build), cwd=folder, folder=folder)
        why = f"; it tried to reach {', '.join(tried)}" if tried else ""
        raise BuildError(
            f"{exc} in its sandbox, which shows it the system and its own folder only, with "
            f"no network{why}",
            exc.output,
        ) from None
    finally:
        if user is not None and owners is not None:
            _take_back(folder, user, owners)


def _watched(
    head: str, argv: list[str], env: dict[str, str], folder: str, memory_mb: int | None
) -> None:
    """Run a build's command line in `folder` in a session of its own (`_follow` watching
    it); BuildError with the last lines of its output when it fails."""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        raise BuildError(f"{head} could not start: {exc.strerror or exc}") from None
    with proc:
        output, stopped = _follow(proc, memory_mb)
    if stopped is not None:
        raise BuildError(f"{head} {stopped}", _tail(output))
    if proc.returncode != 0:
        code = proc.returncode
        how = f"was killed by signal {-code}" if code < 0 else f"failed with status {code}"
        raise BuildError(f"{head} {how}", _tail(output))


def _follow(proc: subprocess.Popen[bytes], memory_mb: int | None) -> tuple[bytes, str | None]:
    """Read a build's output until it ends, keeping its last BUILD_KEPT bytes, and why it was
    stopped (None if it was not): past BUILD_TIMEOUT, or, given `memory_mb` (a sandboxed
    build), when all its processes together hold more memory, its memory files included
    (`arena.referee.memory`, as for its bot). A stopped build's process group is killed (a
    sandbox's PID namespace dies with it)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    kept = bytearray()
    held = memory.BotMemory(proc.pid)
    deadline = time.monotonic() + BUILD_TIMEOUT
    looked = -BUILD_POLL
    reading, stopped = True, None
    try:
        while reading or proc.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                stopped = f"did not finish within {BUILD_TIMEOUT:g} s"
                break
            if memory_mb is not None and now - looked >= BUILD_POLL:
                looked = now
                if (used := held.measure(memory_mb * MIB).total) > memory_mb * MIB:
                    stopped = memory.over_limit(used, memory_mb)
                    break
            wait = min(BUILD_POLL, deadline - now)
            if not reading:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(wait)
            elif poller.poll(wait * 1000):
                chunk = os.read(fd, 1 << 16)
                kept += chunk
                del kept[:-BUILD_KEPT]
                reading = bool(chunk)
    finally:
        if stopped is not None or proc.poll() is None:  # (also when the referee is stopped)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return bytes(kept), stopped


def _build_user(argv: Sequence[str]) -> int | None:
    """The throwaway user a sandboxed build runs as when arena is root: the one `wrap`'s
    setpriv becomes (its `--reuid=`, the first in the command line: bwrap's options before
    it are flags and absolute paths); None when arena is not root (the build runs as the
    user, mapped into the sandbox's user namespace)."""
    if os.geteuid() != 0:
        return None
    for word in argv:
        if word.startswith("--reuid="):
            return int(word.removeprefix("--reuid="))
    raise AssertionError("a sandbox run as root switches to a throwaway user")


def _walk(folder: str) -> list[str]:
    """`folder` and every path under it, parents first; symbolic links not followed."""
    out = [folder]
    for top, dirs, files in os.walk(folder):
        out += [os.path.join(top, name) for name in (*dirs, *files)]
    return out


def _hand_over(folder: str, user: int, head: str) -> dict[str, tuple[int, int, int]]:
    """Give every path of `folder` to `user` (the build's throwaway user, who may then write
    there); each path's owner, group and inode before, for `_take_back`: a path a throwaway
    user still owns (an earlier build's, its referee killed before it took the folder back)
    counts as the folder's owner's, or its parent folder's. BuildError (the folder taken
    back) when a path cannot be given."""
    owners: dict[str, tuple[int, int, int]] = {}
    try:
        for path in _walk(folder):
            st = os.lstat(path)
            owner = (st.st_uid, st.st_gid)
            if st.st_uid >= UID_BASE:
                up = os.lstat(os.path.dirname(folder))
                owner = owners.get(folder, (up.st_uid, up.st_gid, 0))[:2]
            owners[path] = (*owner, st.st_ino)
            os.chown(path, user, user, follow_symlinks=False)
    except OSError as exc:
        _take_back(folder, user, owners)
        raise BuildError(
            f"{head} could not start: cannot hand {exc.filename} to the build's user: "
            f"{exc.strerror}"
        ) from None
    return owners


def _take_back(folder: str, user: int, owners: dict[str, tuple[int, int, int]]) -> None:
    """Undo `_hand_over` once the build's processes are gone: each path it found goes back to
    its owner; what the build made (a new path or a new file at an old path) goes to the
    folder's owner, readable by all (and executable by all where its owner may run it),
    without set-user-ID, set-group-ID or sticky bits."""
    _end_user(user)
    default = owners.get(folder, (os.geteuid(), os.getegid(), 0))
    for path in _walk(folder):
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            uid, gid, ino = owners.get(path, default)
            os.chown(path, uid, gid, follow_symlinks=False)
            if ino != st.st_ino and not stat.S_ISLNK(st.st_mode):
                mode = stat.S_IMODE(st.st_mode) & 0o777 | 0o444
                if stat.S_ISDIR(st.st_mode) or st.st_mode & stat.S_IXUSR:
                    mode |= 0o111
                os.chmod(path, mode)


def _end_user(user: int) -> None:
    """Kill every process of `user` (a build's throwaway user) until none is left: a build
    stopped by the referee may still be dying when its sandbox's monitor has exited."""
    guardian.kill_until_none(lambda pid: processes.status_value(pid, b"Uid:") == user, 500)


def _tail(output: bytes, lines: int = BUILD_TAIL) -> str:
    """The last `lines` lines of a build's output, as text."""
    return "\n".join(output.decode("utf-8", "replace").rstrip().splitlines()[-lines:])
