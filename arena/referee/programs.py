"""What a bot's program really is, and which installation folders it needs to run sandboxed.

The sandbox shows a bot the system folders (/usr, /bin, /lib*, /etc) and the program file
its command names. That is not enough for interpreters that version managers install under
$HOME; `resolve_program` finds what to run and what to show instead:

1. The program is found as the sandbox finds it: a name with "/" relative to the bot's
   working directory, else on the PATH of the environment given (relative PATH entries
   relative to that directory too). Not found: None. In a system folder: itself, nothing
   more (the sandbox shows those).
2. A shim is resolved by asking its manager, since the shim only runs the manager, which the
   sandbox does not show (the bot would exit 127). A shim is either
   - a short script (`#!`, at most 16 KiB) whose `exec` line runs a manager's `exec`
     subcommand: pyenv, rbenv, nodenv, goenv, jenv, plenv and phpenv shims
     (`exec "/root/.pyenv/libexec/pyenv" exec "$program" "$@"`, with `export PYENV_ROOT=…`
     above it), asdf shims (`exec /home/u/.asdf/bin/asdf exec "node" "$@"`, or a bare
     `asdf` found on PATH since asdf 0.16); that manager is the one asked, with the
     shim's literal `export`s added to the environment; or
   - a program in a folder named `shims` that belongs to a manager: a symlink to the
     manager itself (mise), or a folder whose root (its parent, or the manager's root for
     `<root>/plugins/<plugin>/shims`) is named by PYENV_ROOT, RBENV_ROOT, …, ASDF_DATA_DIR
     or MISE_DATA_DIR, is named after the manager (`~/.pyenv`, `~/.asdf`, `…/mise`), or
     holds the manager in bin/ or libexec/. The manager is then found in the root's bin/
     or libexec/, under ASDF_DIR/bin for asdf, else on PATH. A `shims` folder that belongs
     to no manager holds ordinary programs.
   The manager runs as `MANAGER which NAME` in the bot's working directory with the given
   environment (so .python-version, .tool-versions and PYENV_VERSION count), its PWD set to
   that directory, for at most `timeout` seconds (its whole process group is killed after).
   NAME is the shim's literal name in the `exec` line, else the name it was run by. Its
   last line of output is the program; a failure (a version that is not installed, no
   version set), a timeout or an answer that is not a program raise ProgramError quoting
   the manager. What it says on stderr while succeeding is kept as the Program's
   `warning`, and so is an answer outside the manager's root: pyenv 2.4 and later answer
   with the system's python3, silently, when the version selected is not installed, as
   the shim itself would run. An answer that is a shim again is resolved in turn, at most
   four times.
3. The installation folders of the real program: for the program and each symlink on the
   way to its real file, the prefix above a `bin/` folder it lies in (a venv, a pyenv
   version, a conda installation or environment, an nvm node version). A venv's prefix
   brings its base installation's too, named by `home =` in its pyvenv.cfg (the base's bin
   folder): a venv made with --copies has no symlink leading there. The real file itself
   is shown when it lies outside every folder shown (the program path is a symlink to it).
   A script whose `#!` names an absolute interpreter outside the system folders brings
   that interpreter and its folders (`#!/usr/bin/env NAME` is left alone: inside the
   sandbox it finds whatever the sandbox's PATH shows).
   A prefix is shown only when it looks like an installation (it holds lib/, lib64/,
   pyvenv.cfg or conda-meta/) and is none of: `/`, a system folder, a folder directly
   under `/` (/opt, /home), a home folder or a folder above one, a folder directly under
   /home, or ~/.local (which holds the user's data in share/ and state/). Otherwise only
   the program file is shown: ~/bin/tool, ~/.cargo/bin/tool (next to credentials.toml)
   and ~/.local/bin/tool show no folder.

`env` is the environment the program would get outside the sandbox (the referee's with the
bot's own variables): the managers need HOME, PATH and their own variables. The caller runs
`path` instead of the command's first word and shows `path` and `folders` read-only; paths
it hides (other bots, results) still have to be masked inside those folders.

When a bot is loaded, before any game, its command is checked here too: the script an
interpreter's command runs must exist (`script_of`, `script_problem`), and a program that
is not executable gets a hint to run it (`run_hint`: chmod +x, or its interpreter in front).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shlex
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import msgspec

from arena.games.errors import ArenaError

# The folders the sandbox always shows; the same as arena.referee.sandbox.SYSTEM, kept here since
# the sandbox imports this module.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# Each manager and the variable naming its root, the folder that holds its shims/.
MANAGERS = {
    "pyenv": "PYENV_ROOT",
    "rbenv": "RBENV_ROOT",
    "nodenv": "NODENV_ROOT",
    "goenv": "GOENV_ROOT",
    "jenv": "JENV_ROOT",
    "plenv": "PLENV_ROOT",
    "phpenv": "PHPENV_ROOT",
    "asdf": "ASDF_DATA_DIR",
    "mise": "MISE_DATA_DIR",
}
MANAGER_TIMEOUT = 5.0  # seconds a manager may take to answer `which`
SHIM_MAX_BYTES = 16 * 1024  # a longer script is not a shim
MAX_SHIMS = 4  # shims leading to shims, at most
MAX_INTERPRETERS = 4  # nested `#!` interpreters, as many as Linux follows
INSTALLATION_MARKS = ("lib", "lib64", "pyvenv.cfg", "conda-meta")

_WORD = r"""(?:"[^"]*"|'[^']*'|[^\s"';&|]+)"""
_EXEC = re.compile(  # exec MANAGER exec NAME "$@"  (a comment may follow)
    rf"^[ \t]*exec[ \t]+(?P<manager>{_WORD})[ \t]+exec[ \t]+(?P<name>{_WORD})"
    r"""[ \t]+"\$@"[ \t]*(?:#.*)?$""",
    re.M,
)
_EXPORT = re.compile(
    r"""^[ \t]*export[ \t]+(?P<var>[A-Za-z_]\w*)=(?P<value>"[^"$`\\]*"|'[^']*'|[^\s"'$`\\;&|]*)"""
    r"[ \t]*$",
    re.M,
)


class ProgramError(ArenaError):
    """A bot's program cannot be resolved: its shim's manager failed; the message says why."""


class Program(msgspec.Struct, frozen=True):
    """The program a bot's command runs, and what the sandbox must show for it to run."""

    path: str  # the program to run: absolute, shims resolved, symlinks kept (a venv's python)
    folders: list[str]  # installation folders (or lone files) it needs readable, besides path
    via: str | None = None  # how it was resolved, for messages: "pyenv shim"
    warning: str | None = None  # a shim's manager's stderr, or that it answered outside itself


class Shim(msgspec.Struct, frozen=True):
    """How to resolve a shim: ask `manager` (an executable) `which name`, with `exports`."""

    kind: str  # the manager's name: "pyenv", "asdf"
    manager: str | None  # its executable, or None when it could not be found
    name: str  # the command to ask it about
    root: str | None  # the folder holding its shims/ and its versions, when known
    exports: dict[str, str] = msgspec.field(default_factory=dict)


# -- finding ----------------------------------------------------------------------------------


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies inside it (both absolute and normalized)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def system(path: str) -> bool:
    """Whether `path` lies in a folder the sandbox always shows."""
    return any(within(path, d) for d in SYSTEM)


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def on_path(name: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The first executable `name` on env's PATH (relative entries from `cwd`), like execvp."""
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.normpath(os.path.join(cwd, folder or ".", name))
        if _runnable(path):
            return path
    return None


def find(argv0: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The absolute path of the program `argv0` names, as the sandbox finds it, or None."""
    if not argv0 or "\0" in argv0:
        return None
    if "/" in argv0:
        path = os.path.normpath(os.path.join(cwd, argv0))
        return path if os.path.isfile(path) else None
    return on_path(argv0, cwd, env)


# -- shims ------------------------------------------------------------------------------------


def _unquote(word: str) -> str:
    return word[1:-1] if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'" else word


def _script(path: str) -> str | None:
    """The text of `path` if it is a script short enough to be a shim."""
    try:
        with open(path, "rb") as f:
            head = f.read(SHIM_MAX_BYTES + 1)
    except OSError:
        return None
    if not head.startswith(b"#!") or len(head) > SHIM_MAX_BYTES:
        return None
    return head.decode("utf-8", "replace")


def _manager_in(root: str, kind: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The `kind` manager's executable for shims under `root`: in its bin/ or libexec/, under
    ASDF_DIR for asdf, else on PATH."""
    folders = [os.path.join(root, "bin"), os.path.join(root, "libexec")]
    if kind == "asdf" and env.get("ASDF_DIR"):
        folders.insert(0, os.path.join(env["ASDF_DIR"], "bin"))
    for folder in folders:
        if _runnable(path := os.path.join(folder, kind)):
            return path
    return on_path(kind, cwd, env)


def _shims_root(shims: str) -> str:
    """The manager's root for a shims folder: its parent, or above `plugins/<plugin>/`."""
    parent = os.path.dirname(shims)
    above = os.path.dirname(parent)
    return os.path.dirname(above) if os.path.basename(above) == "plugins" else parent


def _same(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _root_kind(root: str, env: Mapping[str, str]) -> str | None:
    """Which manager owns a shims folder's root: by its variable, its name, or its contents."""
    for kind, var in MANAGERS.items():
        if env.get(var) and _same(env[var], root):
            return kind
    if (named := os.path.basename(root).lstrip(".")) in MANAGERS:
        return named
    for kind in MANAGERS:
        for folder in ("bin", "libexec"):
            if _runnable(os.path.join(root, folder, kind)):
                return kind
    return None


def _script_shim(path: str, text: str, cwd: str, env: Mapping[str, str]) -> Shim | None:
    """How to resolve a shim script that execs its manager's `exec`, or None if it is not."""
    match = _EXEC.search(text)
    if match is None:
        return None
    word = _unquote(match["manager"])
    if (kind := os.path.basename(word)) not in MANAGERS:
        return None
    exports = {m["var"]: _unquote(m["value"]) for m in _EXPORT.finditer(text)}
    shims = os.path.dirname(os.path.realpath(path))
    root = exports.get(MANAGERS[kind]) or env.get(MANAGERS[kind]) or None
    if root is None and os.path.basename(shims) == "shims":
        root = _shims_root(shims)
    if any(c in word for c in "$`"):
        manager = _manager_in(root or _shims_root(shims), kind, cwd, {**env, **exports})
    elif "/" in word:
        manager = os.path.normpath(os.path.join(cwd, word))
    else:
        manager = on_path(word, cwd, {**env, **exports})
    name = _unquote(match["name"])
    if not name or any(c in name for c in "$`/"):
        name = os.path.basename(path)  # "$program", which the shim sets to ${0##*/}
    return Shim(kind, manager, name, root, exports)


def shim(path: str, cwd: str, env: Mapping[str, str]) -> Shim | None:
    """How to resolve `path` if it is a version manager's shim (see the module docstring)."""
    name = os.path.basename(path)
    if (text := _script(path)) is not None and (found := _script_shim(path, text, cwd, env)):
        return found
    real = os.path.realpath(path)
    kind = os.path.basename(real)
    in_shims = os.path.basename(os.path.dirname(path)) == "shims"
    if os.path.islink(path) and kind in MANAGERS and kind != name and (kind == "mise" or in_shims):
        root = _shims_root(os.path.dirname(path)) if in_shims else None
        return Shim(kind, real, name, root)  # mise: each shim is a symlink to mise itself
    for folder in dict.fromkeys([os.path.dirname(path), os.path.dirname(real)]):
        if os.path.basename(folder) != "shims":
            continue
        root = _shims_root(folder)
        if (owner := _root_kind(root, env)) is not None:
            return Shim(owner, _manager_in(root, owner, cwd, env), name, root)
    return None


def _ask(shim_: Shim, shown: str, cwd: str, env: Mapping[str, str], timeout: float) -> Program:
    """The program a shim runs, by asking its manager `which`; ProgramError if it cannot say."""
    what = f"{shown} is {'an' if shim_.kind[0] in 'aeiou' else 'a'} {shim_.kind} shim"
    if shim_.manager is None or not _runnable(shim_.manager):
        where = f" ({shim_.manager} is not a program)" if shim_.manager else ""
        raise ProgramError(f"{what}, but {shim_.kind} itself was not found{where}")
    argv = [shim_.manager, "which", shim_.name]
    asked = f"`{shim_.kind} which {shim_.name}` in {cwd}"
    run_env = {**env, **shim_.exports, "PWD": cwd}
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=run_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, all killed on a timeout
        )
    except OSError as exc:
        raise ProgramError(f"{what}, and {asked} could not run: {exc}") from None
    with proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the group it leads: only what we started
            proc.communicate()
            raise ProgramError(f"{what}, and {asked} did not answer within {timeout:g} s") from None
    said = err.decode("utf-8", "replace").strip()
    lines = [x.strip() for x in out.decode("utf-8", "replace").splitlines() if x.strip()]
    if proc.returncode != 0:
        why = said or (lines[-1] if lines else "no message")
        raise ProgramError(f"{what}, and {asked} failed (exit status {proc.returncode}): {why}")
    answer = lines[-1] if lines else ""
    if not answer or not os.path.isabs(answer) or not _runnable(answer):
        raise ProgramError(f"{what}, and {asked} answered {answer!r}, which is not a program")
    answer = os.path.normpath(answer)
    notes = [said] if said else []
    if shim_.root is not None and not (
        within(answer, os.path.normpath(shim_.root))
        or within(os.path.realpath(answer), os.path.realpath(shim_.root))
    ):
        notes.append(
            f"{shim_.kind} runs {answer}, which it does not manage: its `system` version, or "
            "what it falls back to when the version selected is not installed"
        )
    return Program(answer, [], f"{shim_.kind} shim", "\n".join(notes) or None)


# -- installation folders ---------------------------------------------------------------------


def _homes(env: Mapping[str, str]) -> set[str]:
    """The user's home folder, as `env` names it and as the password database does."""
    homes = {env.get("HOME", "")}
    with contextlib.suppress(KeyError):
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    out = {os.path.normpath(h) for h in homes if h.startswith("/")}
    return out | {os.path.realpath(h) for h in out}


def may_show(prefix: str, env: Mapping[str, str]) -> bool:
    """Whether an installation prefix may be shown whole (see the module docstring)."""
    homes = _homes(env)
    for p in dict.fromkeys([os.path.normpath(prefix), os.path.realpath(prefix)]):
        if p == "/" or system(p) or p.count("/") < 2 or os.path.dirname(p) == "/home":
            return False
        if any(within(h, p) or p == os.path.join(h, ".local") for h in homes):
            return False
    return any(os.path.exists(os.path.join(prefix, m)) for m in INSTALLATION_MARKS)


def _prefix(path: str) -> str | None:
    """The folder above the `bin/` folder holding `path`, if it lies in one."""
    folder = os.path.dirname(path)
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else None


def _links(path: str) -> list[str]:
    """`path` and each symlink on the way to its real file, ending with the real file."""
    hops = [path]
    for _ in range(40):
        if not os.path.islink(hops[-1]):
            break
        try:
            target = os.readlink(hops[-1])
        except OSError:
            break
        here = os.path.realpath(os.path.dirname(hops[-1]))
        hops.append(os.path.normpath(os.path.join(here, target)))
    real = os.path.realpath(path)
    return list(dict.fromkeys([*hops, real]))


def venv_base(prefix: str) -> str | None:
    """The base installation's bin folder of a venv (`home =` in its pyvenv.cfg), if any."""
    try:
        with open(os.path.join(prefix, "pyvenv.cfg"), encoding="utf-8") as f:
            text = f.read(64 * 1024)
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "home" and os.path.isabs(value.strip()):
            return os.path.normpath(value.strip())
    return None


def interpreter(path: str) -> str | None:
    """The absolute interpreter a script's `#!` line names, if any (`/usr/bin/env` included)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    return os.path.normpath(words[0]) if words and words[0].startswith("/") else None


def _outermost(paths: list[str]) -> list[str]:
    """`paths` without those inside an earlier or later one, in order."""
    out: list[str] = []
    for p in dict.fromkeys(paths):
        if not any(within(p, o) for o in paths if o != p):
            out.append(p)
    return out


def installation(path: str, env: Mapping[str, str], depth: int = 0) -> list[str]:
    """The folders (or lone files) a real program needs shown besides itself: its
    installation prefixes, a venv's base, its real file and its `#!` interpreter's."""
    if system(path):
        return []
    hops = _links(path)
    out: list[str] = []
    for hop in hops:
        prefix = _prefix(hop)
        if prefix is None or system(hop) or not may_show(prefix, env):
            continue
        out.append(prefix)
        if (home := venv_base(prefix)) is not None:
            for base in dict.fromkeys([home, os.path.realpath(home)]):
                if (up := _prefix(os.path.join(base, "python"))) is not None and (
                    not system(up) and may_show(up, env)
                ):
                    out.append(up)
    real = hops[-1]
    if real != path and not system(real) and not any(within(real, o) for o in out):
        out.append(real)
    interp = interpreter(real)
    if interp is not None and not system(interp) and depth < MAX_INTERPRETERS:
        out += [interp, *installation(interp, env, depth + 1)]
    return [p for p in _outermost(out) if p != path]


# -- the whole ----------------------------------------------------------------------------------


def resolve_program(
    argv0: str, cwd: str, env: Mapping[str, str], *, timeout: float = MANAGER_TIMEOUT
) -> Program | None:
    """The program `argv0` runs from `cwd` and the folders it needs, shims resolved by their
    manager (ProgramError when it fails), or None when there is no such program."""
    cwd = os.path.abspath(cwd)
    path = find(argv0, cwd, env)
    if path is None:
        return None
    if system(path):
        return Program(path, [])
    vias: list[str] = []
    warnings: list[str] = []
    for _ in range(MAX_SHIMS + 1):
        found = shim(path, cwd, env) if not system(path) else None
        if found is None:
            via = ", then ".join(vias) or None
            warning = "\n".join(warnings) or None
            return Program(path, installation(path, env), via, warning)
        if len(vias) == MAX_SHIMS:
            break
        answer = _ask(found, path if vias else argv0, cwd, env, timeout)
        path = answer.path
        vias.append(f"{found.kind} shim")
        if answer.warning:
            warnings.append(answer.warning)
    raise ProgramError(f"{argv0} leads through more than {MAX_SHIMS} shims ({', '.join(vias)})")


# -- what a command names, checked when a bot is loaded ------------------------------------------


class _Interpreter(NamedTuple):
    """An interpreter's options: those whose value is the next word, and those after which
    the command names no script (it runs code or a module given otherwise)."""

    values: frozenset[str]
    no_script: frozenset[str]


_INTERPRETERS: list[tuple[re.Pattern[str], _Interpreter]] = [
    (
        re.compile(r"(?:python|pypy)[\d.]*|\{python\}"),
        _Interpreter(frozenset({"-W", "-X", "-Q"}), frozenset({"-c", "-m", "-"})),
    ),
    (
        re.compile(r"node(?:js)?"),
        _Interpreter(
            frozenset({"-r", "--require", "--import", "--loader", "-C", "--conditions"}),
            frozenset({"-e", "--eval", "-p", "--print", "-i", "--interactive", "-"}),
        ),
    ),
    (
        re.compile(r"(?:ba|da|z|k)?sh"),
        _Interpreter(frozenset({"-o", "+o", "-O", "+O"}), frozenset({"-c", "-s", "-i"})),
    ),
    (re.compile(r"ruby[\d.]*"), _Interpreter(frozenset({"-I", "-C", "-E"}), frozenset({"-e"}))),
    (re.compile(r"perl[\d.]*"), _Interpreter(frozenset(), frozenset({"-e", "-E"}))),
    (re.compile(r"lua(?:jit)?[\d.]*"), _Interpreter(frozenset({"-l"}), frozenset({"-e", "-"}))),
    (re.compile(r"Rscript"), _Interpreter(frozenset(), frozenset({"-e"}))),
]
#: The interpreter a file's name suggests, when its `#!` line names none.
_BY_SUFFIX = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".sh": "bash",
    ".rb": "ruby",
    ".pl": "perl",
    ".lua": "lua",
    ".R": "Rscript",
}


def script_of(argv: Sequence[str]) -> str | None:
    """The script file an interpreter's command runs (`python3 -u bot.py`: "bot.py";
    `java -jar bot.jar`: "bot.jar"), or None: the program is no interpreter known here, or
    the command runs code or a module instead (`python3 -m bot`, `node -e ...`)."""
    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name == "java":
        jar = [i for i, word in enumerate(argv[:-1]) if word == "-jar"]
        return argv[jar[0] + 1] if jar else None
    kind = next((k for pattern, k in _INTERPRETERS if pattern.fullmatch(name)), None)
    if kind is None:
        return None
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            return next(words, None)
        option = word.split("=", 1)[0] if word.startswith("--") else word
        if option in kind.no_script:
            return None
        if option in kind.values:
            if "=" not in word:
                next(words, None)
            continue
        if word.startswith("-") and not word.startswith("--"):  # a cluster: -uW ignore, -uc CODE
            for at, letter in enumerate(word[1:], 1):
                if f"-{letter}" in kind.no_script:
                    return None
                if f"-{letter}" in kind.values:
                    if at == len(word) - 1:  # its value is the next word
                        next(words, None)
                    break
            continue
        if word.startswith(("-", "+")):
            continue
        return word
    return None


def script_problem(argv: Sequence[str], cwd: str) -> str | None:
    """What is wrong with the script an interpreter's command names (`script_of`), in words:
    it was not found (with the path looked at, from `cwd`); or None."""
    script = script_of(argv)
    if script is None or not script or "\0" in script:
        return None
    path = os.path.normpath(os.path.join(cwd, script))
    if os.path.exists(path):  # a folder too: python runs its __main__.py, node its index.js
        return None
    return f"the command's script {script!r} was not found (looked at {path})"


def _interpreter_of(path: str) -> str | None:
    """The interpreter a script names in its `#!` line (`#!/usr/bin/env python3`: python3),
    else the one its file name suggests (`bot.py`: python3), or None."""
    named = interpreter(path)
    if named is not None:
        try:
            with open(path, "rb") as f:
                words = f.read(256)[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
        except OSError:
            words = []
        if os.path.basename(named) == "env":
            rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
            return os.path.basename(rest[0]) if rest else None
        return os.path.basename(named)
    return _BY_SUFFIX.get(os.path.splitext(path)[1])


def run_hint(path: str, command: Sequence[str], *, toml: bool) -> str:
    """How to run `path`, the program `command` names, which is not executable: `chmod +x
    PATH`, or `command` with the file's interpreter in front (`_interpreter_of`), written as
    a bot.toml or tournament file's `command` with `toml`, else as a command line."""
    chmod = f"chmod +x {shlex.quote(path)}"
    name = _interpreter_of(path)
    if name is None:
        return chmod
    program = command[0].removeprefix("./") if toml else command[0]
    words = [name, program, *command[1:]]
    if toml:
        shown = "command = [" + ", ".join(json.dumps(w) for w in words) + "]"
    else:
        shown = json.dumps(shlex.join(words))
    return f"{chmod}, or run it through its interpreter: {shown}"
