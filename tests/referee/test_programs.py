"""resolve_program: the shims of pyenv, rbenv, nodenv, goenv, jenv, asdf and mise resolved by
fake managers that behave like the real ones (each shim also runs outside the sandbox and must
land on the program resolve_program names), the installation folders of conda, nvm and venv
layouts and what is never shown, and this machine's own pyenv python3, run in a bubblewrap
sandbox that shows only the system and what resolve_program says it needs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.referee.programs import (
    SYSTEM,
    Program,
    ProgramError,
    may_show,
    resolve_program,
    within,
)
from arena.referee.sandbox import sandbox_problem

SYSTEM_PATH = "/usr/bin:/bin"

# A fake pyenv, rbenv, nodenv, goenv or jenv with the real one's `which` and `exec`: the
# version comes from @VERSION_VAR@, else the nearest @FILE@ from the working directory up,
# else $ROOT/version; `system` is the first NAME on PATH after the shims; a version that is
# not installed fails as the real managers did before pyenv 2.4.
FAKE_ENV_MANAGER = r"""#!/usr/bin/env bash
set -e
root="${@ROOT_VAR@:-@ROOT@}"
command="$1"
name="$2"
if [ -n "${@VERSION_VAR@:-}" ]; then
  version="$@VERSION_VAR@"
  origin="@VERSION_VAR@ environment variable"
else
  dir="$PWD"
  origin=""
  while [ -z "$origin" ]; do
    if [ -f "$dir/@FILE@" ]; then origin="$dir/@FILE@"; fi
    if [ "$dir" = / ]; then break; fi
    dir="$(dirname "$dir")"
  done
  if [ -z "$origin" ]; then origin="$root/version"; fi
  version="$(cat "$origin")"
fi
if [ "$version" = system ]; then
  search="$(printf %s ":$PATH:" | sed "s#:$root/shims:#:#g; s#^:##; s#:\$##")"
  program="$(PATH="$search" command -v "$name" || true)"
elif [ -d "$root/versions/$version" ]; then
  program="$root/versions/$version/bin/$name"
else
  echo "@KIND@: version \`$version' is not installed (set by $origin)" >&2
  exit 1
fi
if [ ! -x "$program" ]; then
  echo "@KIND@: $name: command not found" >&2
  exit 127
fi
case "$command" in
  which) echo "$program" ;;
  exec) shift 2; exec "$program" "$@" ;;
  *) echo "@KIND@: no such command \`$command'" >&2; exit 1 ;;
esac
"""

# A shim as pyenv, rbenv, nodenv and goenv write them (jenv adds @EXTRA@).
FAKE_ENV_SHIM = r"""#!/usr/bin/env bash
set -e
[ -n "$@UPPER@_DEBUG" ] && set -x

program="${0##*/}"
@EXTRA@
export @ROOT_VAR@="@ROOT@"
exec "@ROOT@/libexec/@KIND@" exec "$program" "$@"
"""

JENV_EXTRA = r"""if [ "$program" = "java" ]; then
  for arg; do
    case "$arg" in
    -e* | -- ) break ;;
    */* )
      if [ -f "$arg" ]; then
        export JENV_FILE_ARG="$arg"
        break
      fi
      ;;
    esac
  done
fi
"""

# A fake asdf: `which` and `exec` take the version of the tool holding the command from the
# nearest .tool-versions from the working directory up, else ~/.tool-versions.
FAKE_ASDF = r"""#!/usr/bin/env bash
set -e
data="${ASDF_DATA_DIR:-$HOME/.asdf}"
command="$1"
name="$2"
dir="$PWD"
file=""
while [ -z "$file" ]; do
  if [ -f "$dir/.tool-versions" ]; then file="$dir/.tool-versions"; fi
  if [ "$dir" = / ]; then break; fi
  dir="$(dirname "$dir")"
done
if [ -z "$file" ] && [ -f "$HOME/.tool-versions" ]; then file="$HOME/.tool-versions"; fi
if [ -n "$file" ]; then
  while read -r tool version; do
    if [ -x "$data/installs/$tool/$version/bin/$name" ]; then
      program="$data/installs/$tool/$version/bin/$name"
    fi
  done < "$file"
fi
if [ -z "${program:-}" ]; then
  echo "No version is set for command $name" >&2
  echo "Consider adding one of the following versions in your config file at \
$HOME/.tool-versions" >&2
  ls "$data/installs"/*/ >&2
  exit 126
fi
case "$command" in
  which) echo "$program" ;;
  exec) shift 2; exec "$program" "$@" ;;
esac
"""

# A fake mise: every shim is a symlink to it; run by another name, it runs that program.
FAKE_MISE = r"""#!/usr/bin/env bash
set -e
data="${MISE_DATA_DIR:-$HOME/.local/share/mise}"
find_program() {
  program=""
  if [ -f "$PWD/.tool-versions" ]; then
    while read -r tool version; do
      if [ -x "$data/installs/$tool/$version/bin/$1" ]; then
        program="$data/installs/$tool/$version/bin/$1"
      fi
    done < "$PWD/.tool-versions"
  fi
  if [ -z "$program" ]; then echo "mise ERROR $1 is not a mise bin" >&2; exit 1; fi
}
if [ "${0##*/}" != mise ]; then find_program "${0##*/}"; exec "$program" "$@"; fi
if [ "$1" = which ]; then find_program "$2"; echo "$program"; fi
"""

# The programs a fake manager installs: each prints the path it was run by.
FAKE_PROGRAM = '#!/bin/sh\necho "$0"\n'

# What each pyenv-like manager is asked about, and the file naming a folder's version.
ENV_MANAGERS = {
    "pyenv": ("python3", ".python-version"),
    "rbenv": ("ruby", ".ruby-version"),
    "nodenv": ("node", ".node-version"),
    "goenv": ("go", ".go-version"),
    "jenv": ("java", ".java-version"),
}


def write(path: Path, text: str, mode: int = 0o755) -> Path:
    """A file with `text`, its folders made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def link(path: Path, target: str) -> Path:
    """A symlink at `path` to `target`, its folders made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def install(prefix: Path, *names: str) -> Path:
    """An installation: bin/NAME (fake programs) and lib/."""
    for name in names:
        write(prefix / "bin" / name, FAKE_PROGRAM)
    (prefix / "lib").mkdir(parents=True, exist_ok=True)
    return prefix


def fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    return template


def env_manager(home: Path, kind: str, versions: Sequence[str] = ("1.0.0", "2.0.0")) -> Path:
    """A pyenv-like manager's root: ~/.KIND with libexec/KIND, bin/KIND -> ../libexec/KIND,
    shims/NAME, the given versions installed and the first one global."""
    root = home / f".{kind}"
    name, file = ENV_MANAGERS[kind]
    values = {
        "KIND": kind,
        "UPPER": kind.upper(),
        "ROOT": str(root),
        "ROOT_VAR": f"{kind.upper()}_ROOT",
        "VERSION_VAR": f"{kind.upper()}_VERSION",
        "FILE": file,
        "EXTRA": JENV_EXTRA if kind == "jenv" else "",
    }
    write(root / "libexec" / kind, fill(FAKE_ENV_MANAGER, **values))
    link(root / "bin" / kind, f"../libexec/{kind}")
    write(root / "shims" / name, fill(FAKE_ENV_SHIM, **values))
    for version in versions:
        install(root / "versions" / version, name)
    write(root / "version", f"{versions[0]}\n", 0o644)
    return root


def run(
    argv: Sequence[str], cwd: Path | str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`argv` run outside any sandbox, its output captured."""
    return subprocess.run(
        list(argv), cwd=cwd, env=env, capture_output=True, text=True, timeout=30, check=False
    )


def run_shown(argv: Sequence[str], shown: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """`argv` run in a bubblewrap sandbox showing the system folders and `shown` only."""
    assert sandbox_problem() is None, f"{sandbox_problem()}: bubblewrap must work here"
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
    for d in SYSTEM:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for path in shown:
        args += ["--ro-bind", path, path]
    args += ["--chdir", "/", "--", *argv]
    return run(args, "/", {"PATH": SYSTEM_PATH, "HOME": "/tmp"})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The bot's working directory."""
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


# -- pyenv-like shims ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ENV_MANAGERS)
def test_a_shim_resolves_to_the_version_its_manager_selects(
    kind: str, home: Path, work: Path
) -> None:
    """The global version, then a version file in the working directory, then the
    KIND_VERSION variable; each time the shim itself, run outside, runs the same program."""
    root = env_manager(home, kind)
    name, file = ENV_MANAGERS[kind]
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}

    def check(version: str, env: dict[str, str]) -> None:
        program = resolve_program(name, str(work), env)
        prefix = str(root / "versions" / version)
        assert program == Program(f"{prefix}/bin/{name}", [prefix], f"{kind} shim")
        assert run([name], work, env).stdout.strip() == program.path

    check("1.0.0", env)
    write(work / file, "2.0.0\n", 0o644)
    check("2.0.0", env)
    check("1.0.0", {**env, f"{kind.upper()}_VERSION": "1.0.0"})


def test_a_version_that_is_not_installed_raises_the_managers_complaint(
    home: Path, work: Path
) -> None:
    """The message names the shim, the manager's question and its own words, which are the
    words the shim itself says when run."""
    root = env_manager(home, "pyenv")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    write(work / ".python-version", "3.0.0\n", 0o644)
    complaint = f"pyenv: version `3.0.0' is not installed (set by {work}/.python-version)"
    with pytest.raises(ProgramError) as caught:
        resolve_program("python3", str(work), env)
    assert str(caught.value) == (
        f"python3 is a pyenv shim, and `pyenv which python3` in {work} failed "
        f"(exit status 1): {complaint}"
    )
    assert run(["python3"], work, env).stderr.strip() == complaint


def test_a_command_the_selected_version_lacks_raises_the_managers_complaint(
    home: Path, work: Path
) -> None:
    root = env_manager(home, "pyenv")
    write(root / "shims" / "idle", (root / "shims" / "python3").read_text())
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    with pytest.raises(ProgramError, match=r"\(exit status 127\): pyenv: idle: command not found"):
        resolve_program("idle", str(work), env)


def test_a_shim_named_by_path_or_through_a_symlink_is_resolved(home: Path, work: Path) -> None:
    """`~/.pyenv/shims/python3` as a path, and `~/bin/python3` linking to the shim."""
    root = env_manager(home, "pyenv")
    env = {"HOME": str(home), "PATH": f"{home}/bin:{SYSTEM_PATH}"}
    link(home / "bin" / "python3", str(root / "shims" / "python3"))
    want = str(root / "versions" / "1.0.0" / "bin" / "python3")
    for argv0 in (str(root / "shims" / "python3"), "python3"):
        program = resolve_program(argv0, str(work), env)
        assert program is not None and program.path == want and program.via == "pyenv shim"


def test_a_shim_not_written_by_pyenv_is_resolved_from_its_shims_folder(
    tmp_path: Path, home: Path, work: Path
) -> None:
    """A shims folder's root is pyenv's when PYENV_ROOT names it (here a folder named `py`)
    or when it is named `.pyenv`; the manager is then found in the root's bin/."""
    root = env_manager(home, "pyenv")
    write(root / "shims" / "python3", "#!/bin/sh\n# a shim of another make\nexit 127\n")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    program = resolve_program("python3", str(work), env)
    assert program is not None and program.path == str(root / "versions/1.0.0/bin/python3")

    moved = tmp_path / "py"
    root.rename(moved)
    odd = moved / "shims" / "python3"
    env = {"HOME": str(home), "PATH": f"{odd.parent}:{SYSTEM_PATH}", "PYENV_ROOT": str(moved)}
    program = resolve_program("python3", str(work), env)
    assert program == Program(
        str(moved / "versions/1.0.0/bin/python3"), [str(moved / "versions/1.0.0")], "pyenv shim"
    )


def test_pyenv_virtualenv_plugin_shims_are_pyenvs(home: Path, work: Path) -> None:
    """`~/.pyenv/plugins/pyenv-virtualenv/shims/activate` is asked of pyenv, which knows no
    such program (the real one must be sourced)."""
    root = env_manager(home, "pyenv")
    shims = root / "plugins" / "pyenv-virtualenv" / "shims"
    write(shims / "activate", '#!/usr/bin/env bash\neval "$(pyenv sh-activate "$@")"\n')
    env = {"HOME": str(home), "PATH": f"{shims}:{SYSTEM_PATH}"}
    complaint = r"activate is a pyenv shim.*activate: command not found"
    with pytest.raises(ProgramError, match=complaint):
        resolve_program("activate", str(work), env)


def test_a_shims_folder_of_no_manager_holds_ordinary_programs(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    write(bot / "shims" / "run", "#!/bin/sh\nexec python3 play.py\n")
    program = resolve_program("shims/run", str(bot), {"HOME": str(tmp_path / "home")})
    assert program == Program(str(bot / "shims" / "run"), [])


def test_a_wrapper_script_that_passes_other_arguments_is_not_a_shim(home: Path, work: Path) -> None:
    """`exec pyenv exec python3 bot.py` runs a script, not any python3: it is kept."""
    root = env_manager(home, "pyenv")
    script = write(work / "run.sh", f'#!/bin/sh\nexec "{root}/bin/pyenv" exec python3 bot.py\n')
    program = resolve_program("./run.sh", str(work), {"HOME": str(home)})
    assert program == Program(str(script), [])


def test_a_manager_that_hangs_is_given_up_and_killed(home: Path, work: Path) -> None:
    root = env_manager(home, "pyenv")
    write(root / "libexec" / "pyenv", "#!/usr/bin/env bash\nsleep 30\necho /bin/true\n")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    start = time.monotonic()
    with pytest.raises(ProgramError, match=r"`pyenv which python3` .* did not answer within 0.5 s"):
        resolve_program("python3", str(work), env, timeout=0.5)
    assert time.monotonic() - start < 5


def test_a_manager_answering_no_program_is_refused(home: Path, work: Path) -> None:
    root = env_manager(home, "pyenv")
    write(root / "libexec" / "pyenv", "#!/bin/sh\necho 'python3 is somewhere'\n")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    with pytest.raises(ProgramError, match="answered 'python3 is somewhere', which is not a"):
        resolve_program("python3", str(work), env)


def test_a_shim_whose_manager_is_gone_says_so(home: Path, work: Path) -> None:
    root = env_manager(home, "pyenv")
    (root / "libexec" / "pyenv").unlink()
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    with pytest.raises(ProgramError, match=r"pyenv itself was not found \(.*/libexec/pyenv is not"):
        resolve_program("python3", str(work), env)


def test_a_manager_answering_its_own_shim_is_stopped(home: Path, work: Path) -> None:
    root = env_manager(home, "pyenv")
    write(root / "libexec" / "pyenv", f"#!/bin/sh\necho {root}/shims/python3\n")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}"}
    with pytest.raises(ProgramError, match="python3 leads through more than 4 shims"):
        resolve_program("python3", str(work), env)


# -- asdf and mise ------------------------------------------------------------------------------


def asdf(data: Path) -> Path:
    """An asdf data folder with nodejs 18.19.0 and 20.11.0 installed; its shim for node is
    written by the caller."""
    for version in ("18.19.0", "20.11.0"):
        install(data / "installs" / "nodejs" / version, "node")
    return data


def test_an_asdf_shim_runs_the_version_of_the_nearest_tool_versions(home: Path, work: Path) -> None:
    """A shim as asdf 0.15 writes them, naming its manager by path; ~/.tool-versions, then
    the working directory's; neither: asdf's complaint."""
    data = asdf(home / ".asdf")
    write(data / "bin" / "asdf", FAKE_ASDF)
    shim = f"""#!/usr/bin/env bash
# asdf-plugin: nodejs 18.19.0
# asdf-plugin: nodejs 20.11.0
exec {data}/bin/asdf exec "node" "$@" # asdf_allow: ' asdf '
"""
    write(data / "shims" / "node", shim)
    env = {"HOME": str(home), "PATH": f"{data}/shims:{SYSTEM_PATH}"}
    for where, version in ((home, "20.11.0"), (work, "18.19.0")):
        write(where / ".tool-versions", f"nodejs {version}\n", 0o644)
        program = resolve_program("node", str(work), env)
        prefix = str(data / "installs" / "nodejs" / version)
        assert program == Program(f"{prefix}/bin/node", [prefix], "asdf shim")
        assert run(["node"], work, env).stdout.strip() == program.path

    (home / ".tool-versions").unlink()
    (work / ".tool-versions").unlink()
    with pytest.raises(ProgramError) as caught:
        resolve_program("node", str(work), env)
    message = str(caught.value)
    assert message.startswith("node is an asdf shim, and `asdf which node`")
    assert "(exit status 126): No version is set for command node" in message


def test_an_asdf_016_shim_finds_asdf_on_path_and_its_data_in_asdf_data_dir(
    tmp_path: Path, home: Path, work: Path
) -> None:
    """asdf 0.16 writes `exec asdf exec "node" "$@"`: asdf is found on PATH."""
    data = asdf(tmp_path / "asdf-data")
    write(data / "shims" / "node", '#!/usr/bin/env bash\nexec asdf exec "node" "$@"')
    write(home / ".tool-versions", "nodejs 20.11.0\n", 0o644)
    env = {"HOME": str(home), "ASDF_DATA_DIR": str(data), "PATH": f"{data}/shims:{SYSTEM_PATH}"}
    with pytest.raises(ProgramError, match=r"node is an asdf shim, but asdf itself was not found$"):
        resolve_program("node", str(work), env)

    write(home / ".local" / "bin" / "asdf", FAKE_ASDF)
    env["PATH"] = f"{data}/shims:{home}/.local/bin:{SYSTEM_PATH}"
    program = resolve_program("node", str(work), env)
    prefix = str(data / "installs" / "nodejs" / "20.11.0")
    assert program == Program(f"{prefix}/bin/node", [prefix], "asdf shim")
    assert run(["node"], work, env).stdout.strip() == program.path


def test_a_mise_shim_is_a_symlink_to_mise(home: Path, work: Path) -> None:
    mise = write(home / ".local" / "bin" / "mise", FAKE_MISE)
    data = home / ".local" / "share" / "mise"
    install(data / "installs" / "node" / "22.1.0", "node")
    link(data / "shims" / "node", str(mise))
    write(work / ".tool-versions", "node 22.1.0\n", 0o644)
    env = {"HOME": str(home), "PATH": f"{data}/shims:{SYSTEM_PATH}"}
    program = resolve_program("node", str(work), env)
    prefix = str(data / "installs" / "node" / "22.1.0")
    assert program == Program(f"{prefix}/bin/node", [prefix], "mise shim")
    assert run(["node"], work, env).stdout.strip() == program.path


def test_shims_leading_to_shims_are_all_resolved(home: Path, work: Path) -> None:
    """pyenv answering with an asdf shim (pyenv falls back to the rest of PATH for `system`)."""
    root = env_manager(home, "pyenv")
    data = asdf(home / ".asdf")
    write(data / "bin" / "asdf", FAKE_ASDF)
    write(data / "shims" / "python3", f'#!/bin/sh\nexec {data}/bin/asdf exec "python3" "$@"\n')
    install(data / "installs" / "python" / "3.12.0", "python3")
    write(home / ".tool-versions", "python 3.12.0\n", 0o644)
    write(root / "libexec" / "pyenv", f"#!/bin/sh\necho {data}/shims/python3\n")
    env = {"HOME": str(home), "PATH": f"{root}/shims:{data}/shims:{SYSTEM_PATH}"}
    program = resolve_program("python3", str(work), env)
    prefix = str(data / "installs" / "python" / "3.12.0")
    assert program is not None and program.warning is not None
    assert program == Program(
        f"{prefix}/bin/python3", [prefix], "pyenv shim, then asdf shim", program.warning
    )
    assert program.warning.startswith(f"pyenv runs {data}/shims/python3, which it does not ")


def test_the_system_version_is_resolved_with_a_warning(home: Path, work: Path) -> None:
    """pyenv's `system` version: the next program of that name on PATH, which pyenv does not
    manage (what pyenv 2.4 and later also run when the selected version is not installed)."""
    root = env_manager(home, "pyenv")
    write(root / "shims" / "env", (root / "shims" / "python3").read_text())
    env = {"HOME": str(home), "PATH": f"{root}/shims:{SYSTEM_PATH}", "PYENV_VERSION": "system"}
    assert run(["env"], work, env).stdout.startswith("PYENV_VERSION=system\n")  # ran /usr/bin/env
    assert resolve_program("env", str(work), env) == Program(
        "/usr/bin/env",
        [],
        "pyenv shim",
        "pyenv runs /usr/bin/env, which it does not manage: its `system` version, or what it "
        "falls back to when the version selected is not installed",
    )


# -- installation folders -----------------------------------------------------------------------


def test_conda_python_shows_its_installation_and_keeps_its_symlink(home: Path, work: Path) -> None:
    """~/miniconda3/bin/python links to python3.11 beside it; the base and an environment."""
    for prefix in (home / "miniconda3", home / "miniconda3" / "envs" / "bots"):
        install(prefix, "python3.11")
        link(prefix / "bin" / "python", "python3.11")
        (prefix / "lib" / "python3.11").mkdir()
        (prefix / "conda-meta").mkdir()
        env = {"HOME": str(home), "PATH": f"{prefix}/bin:{SYSTEM_PATH}"}
        program = resolve_program("python", str(work), env)
        assert program == Program(str(prefix / "bin" / "python"), [str(prefix)])


def test_nvm_node_and_npm_show_their_node_version(home: Path, work: Path) -> None:
    """npm is a link into lib/node_modules, inside the same version folder."""
    prefix = install(home / ".nvm" / "versions" / "node" / "v20.11.0", "node")
    cli = prefix / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    write(cli, "#!/usr/bin/env node\n")
    link(prefix / "bin" / "npm", "../lib/node_modules/npm/bin/npm-cli.js")
    env = {"HOME": str(home), "PATH": f"{prefix}/bin:{SYSTEM_PATH}"}
    for name in ("node", "npm"):
        program = resolve_program(name, str(work), env)
        assert program == Program(str(prefix / "bin" / name), [str(prefix)])


def base_folders() -> list[str]:
    """What a venv made by this interpreter needs besides itself: its base installation
    (nothing when that is in a system folder, as /usr is)."""
    base = os.path.realpath(sys.base_prefix)
    return [] if any(within(base, d) for d in SYSTEM) else [base]


@pytest.mark.parametrize("copies", [False, True], ids=["symlinks", "copies"])
def test_a_venv_shows_itself_and_its_base_and_runs_with_only_those(
    tmp_path: Path, work: Path, copies: bool
) -> None:
    """A venv's python (a link to its base's, or a copy with --copies) needs the venv and
    the base that pyvenv.cfg names; in a sandbox showing only those it runs as the venv."""
    venv = tmp_path / "venv"
    flags = ["--copies"] if copies else []
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", *flags, str(venv)], check=True)
    python = venv / "bin" / "python"
    program = resolve_program(str(python), str(work), {"HOME": str(tmp_path / "home")})
    assert program == Program(str(python), [str(venv), *base_folders()])
    code = "import sys; print(sys.prefix, sys.base_prefix)"
    done = run_shown([program.path, "-c", code], [program.path, *program.folders])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(venv), sys.base_prefix]


def test_a_script_shows_the_installation_of_its_interpreter(home: Path, work: Path) -> None:
    """`#!~/miniconda3/bin/python` brings the conda installation; `#!/usr/bin/env` nothing."""
    conda = install(home / "miniconda3", "python")
    (conda / "conda-meta").mkdir()
    bot = write(work / "bot.py", f"#!{conda}/bin/python\n")
    env = {"HOME": str(home)}
    assert resolve_program("./bot.py", str(work), env) == Program(str(bot), [str(conda)])
    write(bot, "#!/usr/bin/env python3\n")
    assert resolve_program("./bot.py", str(work), env) == Program(str(bot), [])


def test_a_link_to_a_file_outside_any_installation_shows_that_file(
    tmp_path: Path, home: Path
) -> None:
    """~/tools/x/bin/run links to ~/loose/real-run: the installation and the real file."""
    real = write(tmp_path / "loose" / "real-run", FAKE_PROGRAM)
    prefix = install(tmp_path / "tools" / "x")
    run_ = link(prefix / "bin" / "run", str(real))
    program = resolve_program(str(run_), str(tmp_path), {"HOME": str(home)})
    assert program == Program(str(run_), [str(prefix), str(real)])


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("bin", "the prefix is the home folder itself"),
        (".local/bin", "~/.local holds the user's data in share/ and state/"),
        (".cargo/bin", "~/.cargo is no installation (no lib/) and holds credentials.toml"),
    ],
)
def test_a_program_whose_prefix_may_not_be_shown_shows_only_itself(
    home: Path, work: Path, where: str, why: str
) -> None:
    for folder in ("lib", ".local/lib", ".local/share/keyrings"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    write(home / ".cargo" / "credentials.toml", "[registry]\ntoken = 'secret'\n", 0o600)
    tool = write(home / where / "tool", FAKE_PROGRAM)
    env = {"HOME": str(home), "PATH": f"{tool.parent}:{SYSTEM_PATH}"}
    assert resolve_program("tool", str(work), env) == Program(str(tool), []), why


def test_which_prefixes_may_be_shown(tmp_path: Path, home: Path) -> None:
    env = {"HOME": str(home)}
    install(home / ".pyenv" / "versions" / "3.12.0")
    (home / "venv").mkdir()
    (home / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / "bare").mkdir()
    assert may_show(str(home / ".pyenv" / "versions" / "3.12.0"), env)
    assert may_show(str(home / "venv"), env)
    assert not may_show(str(home / "bare"), env)  # no lib/, pyvenv.cfg or conda-meta/
    (home / "lib").mkdir()
    (tmp_path / "lib").mkdir()
    assert not may_show(str(home), env)  # the home folder
    assert not may_show(str(tmp_path), env)  # above it
    for folder in ("/", "/usr", "/usr/local", "/opt", "/home", "/home/someone"):
        assert not may_show(folder, env), folder


def test_system_programs_and_missing_ones(work: Path) -> None:
    env = {"PATH": SYSTEM_PATH}
    assert resolve_program("env", str(work), env) == Program("/usr/bin/env", [])
    assert resolve_program("/usr/bin/env", str(work), env) == Program("/usr/bin/env", [])
    assert resolve_program("no-such-program", str(work), env) is None
    assert resolve_program("./bot.py", str(work), env) is None
    assert resolve_program("", str(work), env) is None
    bot = write(work / "bot.py", "print(1)\n", 0o644)  # run by path: found even if not runnable
    assert resolve_program("./bot.py", str(work), env) == Program(str(bot), [])
    env = {"PATH": f"bin:{SYSTEM_PATH}"}  # relative PATH entries count from the bot's folder
    tool = write(work / "bin" / "tool", FAKE_PROGRAM)
    assert resolve_program("tool", str(work), env) == Program(str(tool), [])


# -- this machine's pyenv -----------------------------------------------------------------------


def machine_pyenv() -> tuple[str, str]:
    """This machine's python3 on PATH and its pyenv root, if it is a pyenv shim; else skip,
    saying so."""
    shim = shutil.which("python3")
    text = Path(shim).read_text(errors="replace")[:4096] if shim else ""
    if shim is None or os.path.basename(os.path.dirname(shim)) != "shims" or "pyenv" not in text:
        pytest.skip(f"python3 on PATH is {shim}, not a pyenv shim: this machine has no pyenv")
    return shim, os.environ.get("PYENV_ROOT") or os.path.dirname(os.path.dirname(shim))


def test_this_machines_pyenv_python3_resolves_to_an_interpreter_that_runs_sandboxed(
    tmp_path: Path,
) -> None:
    """python3 on PATH is a pyenv shim, which cannot run in a sandbox that shows only itself
    (exit 127). It resolves to an interpreter under the root's versions/, whose prefix is in
    folders; that interpreter runs as it is, and in a sandbox showing only it and its folders
    it runs from its own prefix; shown alone, it fails or runs some other installation's
    library (here: the system's /usr/lib/python3.11, if it has one)."""
    shim, root = machine_pyenv()
    assert run_shown([shim, "-c", "print(1)"], [shim]).returncode == 127

    program = resolve_program("python3", str(tmp_path), os.environ)
    assert program is not None and program.via == "pyenv shim", program
    versions = os.path.join(root, "versions")
    assert within(program.path, versions), program
    prefix = os.path.join(versions, program.path[len(versions) + 1 :].split("/")[0])
    assert prefix in program.folders, program
    assert run([program.path, "-c", "print(1)"], tmp_path, dict(os.environ)).stdout == "1\n"

    code = "import sys; print(sys.prefix)"
    done = run_shown([program.path, "-c", code], [program.path, *program.folders])
    assert (done.returncode, done.stdout) == (0, f"{prefix}\n"), done.stderr
    alone = run_shown([program.path, "-c", code], [program.path])
    assert (alone.returncode, alone.stdout) != (0, f"{prefix}\n")


def test_this_machines_pyenv_honours_python_version_in_the_bots_folder(tmp_path: Path) -> None:
    """Another installed version named by .python-version in the bot's working directory is
    the one resolved; a version that is not installed is pyenv's complaint (an error, or a
    warning when pyenv falls back to the system's python3, as pyenv 2.4 and later do)."""
    _, root = machine_pyenv()
    default = resolve_program("python3", str(tmp_path), os.environ)
    assert default is not None
    versions = Path(root) / "versions"
    others = [
        v.name
        for v in sorted(versions.iterdir())
        if (v / "bin" / "python3").is_file() and not within(default.path, str(v))
    ]
    if others:
        (tmp_path / ".python-version").write_text(f"{others[0]}\n")
        program = resolve_program("python3", str(tmp_path), os.environ)
        assert program is not None and within(program.path, str(versions / others[0]))
        assert program.folders == [str(versions / others[0])]

    (tmp_path / ".python-version").write_text("0.0.404\n")
    complaint = f"version `0.0.404' is not installed (set by {tmp_path}/.python-version)"
    try:
        program = resolve_program("python3", str(tmp_path), os.environ)
    except ProgramError as exc:  # pyenv before 2.4
        assert complaint in str(exc)
    else:  # pyenv 2.4 and later: the system's python3, as the shim itself runs
        assert program is not None and program.warning is not None, program
        assert "which it does not manage" in program.warning
        assert not within(program.path, root), program
        ran = run(["python3", "-c", "import sys; print(sys.executable)"], tmp_path, {**os.environ})
        assert os.path.realpath(ran.stdout.strip()) == os.path.realpath(program.path)
