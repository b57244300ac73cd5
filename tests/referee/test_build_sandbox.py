"""A bot's build step in its sandbox (docs/security.md, *Builds*; PROTOCOL.md section 11): it sees
what its bot sees, its folder writable, so it cannot write elsewhere, read the user's files
or environment, or use the network, and leaves nothing on the host; as root it runs as a
throwaway user and the folder goes back to its owner; the C example bot builds there and
then plays; a build is bounded in time (its whole sandbox killed), in the memory of all its
processes together and in the output the referee keeps; the commands build in the sandbox
they then play in. bubblewrap must be installed: these tests fail without it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from arena.referee import folders
from arena.referee.folders import BUILD_STAMP, BotSpec, BuildError, build_bot, load_bot
from arena.referee.game import play_game
from arena.referee.records import read_records
from arena.referee.sandbox import UID_BASE, SandboxConfig, sandbox_problem
from tests.helpers.cli import invoke
from tests.helpers.paths import EXAMPLE_BOTS, RANDOM
from tests.helpers.tournaments import path_bot, toml_value, write_tournament

ON = SandboxConfig(mode="on")
RANDOM_C = EXAMPLE_BOTS / "random-c"
FIRST_CHOICE = "from protocol.bot import run\nrun(lambda request: 0, name='first')\n"


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    assert sandbox_problem() is None, (
        f"{sandbox_problem()}: these tests need bubblewrap (bash .ci/run installs it)"
    )


def built(folder: Path, build: list[str], sandbox: SandboxConfig | None = ON) -> BotSpec:
    """A Python bot in `folder` (made) with this build step, in `sandbox`."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{folder.name}"\ncommand = ["{{python}}", "bot.py"]\nbuild = {toml_value(build)}\n'
    )
    (folder / "bot.py").write_text(FIRST_CHOICE)
    return msgspec.structs.replace(load_bot(str(folder)), sandbox=sandbox)


def failed(spec: BotSpec) -> BuildError:
    with pytest.raises(BuildError) as caught:
        build_bot(spec)
    return caught.value


# -- what a build can reach ------------------------------------------------------------------


def test_a_sandboxed_build_writes_in_its_folder_and_nowhere_else(tmp_path: Path) -> None:
    away = Path.home() / f".arena-build-test-{os.getpid()}"  # outside /tmp, the user's own
    script = 'echo made > made; echo x > ../planted; echo x > "$1"'
    spec = built(tmp_path / "b", ["sh", "-c", script, "sh", str(away)])
    try:
        error = failed(spec)
        assert "failed with status" in str(error)
        assert "in its sandbox, which shows it the system and its own folder only" in str(error)
        assert not away.exists() and not (tmp_path / "planted").exists()
    finally:
        with contextlib.suppress(FileNotFoundError):
            away.unlink()
    assert (tmp_path / "b" / "made").read_text() == "made\n"  # its folder is writable


def test_a_sandboxed_build_reads_neither_the_users_home_nor_arenas_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret").write_text("s3cret-in-home\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ARENA_TEST_TOKEN", "t0ken-in-env")
    script = f'env; cat "$HOME/secret" > leak || cat {home / "secret"} > leak'
    error = failed(built(tmp_path / "b", ["sh", "-c", script]))
    assert "failed with status" in str(error)
    assert "t0ken-in-env" not in error.output and "s3cret" not in error.output
    assert "HOME=/scratch" in error.output  # its own, private $HOME
    assert (tmp_path / "b" / "leak").read_text() == ""


def test_a_sandboxed_build_has_no_network(tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"
        error = failed(built(tmp_path / "b", ["{python}", "-c", connect]))
        assert "Connection refused" in error.output or "unreachable" in error.output
        assert "it tried to reach the network" in str(error)
        with pytest.raises(BlockingIOError):  # nobody came
            server.accept()


def test_as_root_a_build_runs_as_a_throwaway_user_and_its_folder_goes_back(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("arena not run as root: the build runs as the user running it")
    script = "id -u > uid; umask 077; echo x > private; mkdir made; echo x > made/file"
    spec = built(tmp_path / "b", ["sh", "-c", script])
    folder = tmp_path / "b"
    os.chown(folder / "bot.py", 4242, 4343)  # a file of another owner stays that owner's
    (folder / "left").write_text("")  # a file an earlier build's user kept (its referee killed)
    os.chown(folder / "left", UID_BASE + 5, UID_BASE + 5)
    build_bot(spec)
    assert int((folder / "uid").read_text()) >= 1 << 30  # not root: a throwaway user
    owners = {p.name: (p.lstat().st_uid, p.lstat().st_gid) for p in [folder, *folder.rglob("*")]}
    assert owners.pop("bot.py") == (4242, 4343)
    assert set(owners.values()) == {(0, 0)}, owners
    # What the build made is readable by all (a sandboxed bot runs as another throwaway user).
    assert (folder / "private").stat().st_mode & 0o777 == 0o644
    assert (folder / "made").stat().st_mode & 0o777 == 0o755


async def test_the_c_bot_builds_in_the_sandbox_and_then_plays(tmp_path: Path) -> None:
    folder = tmp_path / "random-c"
    shutil.copytree(RANDOM_C, folder, ignore=shutil.ignore_patterns("bot", BUILD_STAMP))
    heard: list[BotSpec] = []
    spec = build_bot(msgspec.structs.replace(load_bot(str(folder)), sandbox=ON), heard.append)
    assert heard and spec.command == ["./bot"]
    assert (folder / "bot").stat().st_mode & 0o755 == 0o755
    build_bot(spec, heard.append)
    assert len(heard) == 1  # once per change, as ever
    opponent = msgspec.structs.replace(load_bot(str(RANDOM)), sandbox=ON)
    record = await play_game("odin-race", [spec, opponent], seed=5)
    assert record.faults == [] and all(seat.sandboxed for seat in record.seats)


# -- bounds ----------------------------------------------------------------------------------


def strays(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    out = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                out.append(int(entry))
    return out


@pytest.mark.slow
def test_a_build_past_its_time_is_killed_with_every_process_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(folders, "BUILD_TIMEOUT", 1.0)
    marker = "123.4567"  # (sleep's argument: how its processes are found)
    spec = built(tmp_path / "b", ["sh", "-c", f"setsid sleep {marker} & sleep {marker}"])
    started = time.monotonic()
    try:
        error = failed(spec)
        assert "did not finish within 1 s" in str(error)
        assert time.monotonic() - started < 10
        for _ in range(100):  # a sandbox's processes die with it, even one in its own session
            if not strays(marker):
                break
            time.sleep(0.02)
        assert strays(marker) == []
    finally:
        for pid in strays(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


HOG = """\
import os, time
for _ in range(3):
    if os.fork() == 0:
        break
block = b"x" * (80 << 20)
time.sleep(20)
"""


def test_a_build_whose_processes_together_take_too_much_memory_is_killed(tmp_path: Path) -> None:
    # Four processes of 80 MiB each: each within the 200 MiB limit, together past it.
    spec = built(tmp_path / "b", ["{python}", "-c", HOG], SandboxConfig(mode="on", memory_mb=200))
    started = time.monotonic()
    error = failed(spec)
    assert "in all its processes together, over its limit of 200 MiB" in str(error)
    assert time.monotonic() - started < 10


FLOOD = """\
import resource, sys
import msgspec
from arena.referee.folders import BuildError, build_bot, load_bot
from arena.referee.sandbox import SandboxConfig
spec = msgspec.structs.replace(load_bot(sys.argv[1]), sandbox=SandboxConfig(mode="on"))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    build_bot(spec)
except BuildError as exc:
    print(len(exc.output.encode()), len(exc.output.splitlines()), exc.output.splitlines()[-1])
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_a_build_flooding_its_output_keeps_only_its_end_in_memory(tmp_path: Path) -> None:
    # 64 MB of output: the referee (a process of its own here, to measure its memory) keeps
    # the last BUILD_KEPT bytes, of which the error shows the last BUILD_TAIL lines.
    flood = "yes 'a flood of output' | head -c 64000000; echo; echo the end; exit 1"
    built(tmp_path / "b", ["sh", "-c", flood])
    done = subprocess.run(
        [sys.executable, "-c", FLOOD, str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    error, grown = done.stdout.splitlines()
    assert int(grown) < 16  # MiB more at its peak than before the build
    kept, lines, end = error.split(" ", 2)
    assert int(kept) <= folders.BUILD_KEPT and int(lines) == folders.BUILD_TAIL
    assert end == "the end"


# -- the commands ----------------------------------------------------------------------------


def test_play_and_tournaments_build_in_the_sandbox_they_play_in(tmp_path: Path) -> None:
    planting = ["sh", "-c", "echo x > ../planted; exit 0"]
    mine = built(tmp_path / "mine", planting, None)
    result = invoke("play", "odin-race", mine.folder or "", RANDOM, "-q", "--sandbox", "on")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "planted").exists()
    assert "in the sandbox)" in result.output  # "building mine: ... (in FOLDER, in the sandbox)"

    theirs = built(tmp_path / "theirs", planting, None)
    file = write_tournament(tmp_path, [path_bot(theirs.folder or ""), path_bot(RANDOM)])
    result = invoke("tournament", file, "--results", tmp_path / "results", "--sandbox", "on")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "planted").exists()
    assert "in the sandbox)" in result.output
    records = list(read_records(tmp_path / "results" / "t" / "games.jsonl"))
    assert records and all(r.faults == [] for r in records)
