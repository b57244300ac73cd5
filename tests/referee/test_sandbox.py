"""The bot sandbox (bubblewrap): every attack of a cheating bot fails inside it and succeeds
without it, the resource limits hold, the game always completes with faults recorded against
the right bot, no bot learns a seed before its game is over, and the commands' settings.

The hostile bot is tests/bots/hostile_bot.py; it reports what it got on stderr, which the
game record keeps. bubblewrap must be installed (`bash .ci/run` installs it): without it
these tests fail, they are never skipped.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

import arena.referee.sandbox as sandbox_module
from arena.cli.app import app
from arena.league.config import ConfigError, load_tournament
from arena.league.match import run_match
from arena.league.results import ResultsDir
from arena.league.sprt import Sprt
from arena.league.tournament import run_tournament
from arena.referee.folders import BotSpec, load_bot
from arena.referee.game import RefereeConfig, play_game
from arena.referee.local import LocalBot, random_decider
from arena.referee.records import GameRecord, read_records
from arena.referee.sandbox import SandboxConfig, SandboxOverride, sandbox_problem
from protocol.messages import Limits
from tests.helpers.paths import RANDOM as RANDOM_PY
from tests.helpers.paths import ROOT, TEST_BOTS
from tests.helpers.records import check_record
from tests.helpers.sandbox import HOSTILE, ON, hostile
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

MODES = [pytest.param(ON, id="sandboxed"), pytest.param(None, id="unsandboxed")]
runner = CliRunner()


def good(sandbox: SandboxConfig | None = ON) -> BotSpec:
    """An honest bot from its folder: examples/bots/random-py."""
    return msgspec.structs.replace(load_bot(str(RANDOM_PY)), sandbox=sandbox)


def config(**kwargs: Any) -> RefereeConfig:
    limits = Limits(startup_ms=kwargs.pop("startup_ms", 5000), move_ms=2000)
    return RefereeConfig(limits=limits, exit_grace_ms=500, **kwargs)


def report(record: GameRecord, seat: int) -> dict[str, Any]:
    """What the hostile bot in `seat` got: its JSON line on stderr."""
    for line in record.stderr[seat].splitlines():
        if line.startswith('{"attack"'):
            return json.loads(line)
    raise AssertionError(f"seat {seat} reported nothing; its stderr: {record.stderr[seat]!r}")


def hostile_processes() -> list[int]:
    """Live processes running the hostile bot (or a sandbox around one)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"hostile_bot.py" in cmdline and state not in ("Z", "X"):
            out.append(int(entry))
    return out


@pytest.fixture(autouse=True)
def nothing_left() -> Iterator[None]:
    """After each test, no hostile bot process (nor any child of one) may be left running."""
    yield
    # The referee kills them at once; on a loaded machine their exit may take a moment.
    deadline = time.monotonic() + 10
    while (left := hostile_processes()) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):  # it may end between look and kill
            os.kill(pid, signal.SIGKILL)
    assert not left, f"hostile processes outlived the test: {left}"


async def play(
    bots: list[BotSpec], faulty: set[int] = frozenset(), seed: int = 0, **kwargs: Any
) -> GameRecord:
    """One game of odin-race; the record must replay, with faults exactly at `faulty`."""
    record = await play_game("odin-race", bots, seed=seed, config=config(**kwargs))
    check_record(record, set(faulty))
    assert [s.sandboxed for s in record.seats] == [b.sandbox is not None for b in bots]
    return record


def test_the_sandbox_works_here() -> None:
    assert sandbox_problem() is None, (
        f"{sandbox_problem()}: these tests need bubblewrap (bash .ci/run installs it)"
    )


# -- the attacks -------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", MODES)
async def test_reading_a_siblings_stdin(sandbox: SandboxConfig | None) -> None:
    """The thief opens the other bot's /proc/<pid>/fd/0 and reads the hello meant for it
    (the victim is slow to read). Without the sandbox it gets the line, and the victim,
    robbed of its hello, fails to start; inside, it sees no other process at all."""
    thief = hostile("stdin", os.getpid(), sandbox=sandbox)
    victim = hostile("late", 1.5, sandbox=sandbox)
    sandboxed = sandbox is not None
    record = await play([thief, victim], set() if sandboxed else {1}, startup_ms=3500)
    got = report(record, 0)
    if sandboxed:
        assert got["siblings"] == [] and got["stolen"] == ""
        assert "No such file" in got["referee_files"]
        assert record.faults == []
    else:
        assert '"type":"hello"' in got["stolen"] and '"seat":1' in got["stolen"]
        assert got["referee_files"] > 0  # it can open the referee's pipes to every bot
        (fault,) = record.faults
        assert fault.seat == 1 and fault.kind == "startup"


@pytest.mark.parametrize("sandbox", MODES)
async def test_reading_the_tournament_file_results_and_another_bots_folder(
    tmp_path: Path, sandbox: SandboxConfig | None
) -> None:
    """A bot reads the tournament file (its seed rebuilds every deal), the results (the
    schedule with every game's seed, earlier records) and another bot's folder."""
    other = tmp_path / "other"
    shutil.copytree(RANDOM_PY, other)
    (other / "strategy.txt").write_text("SECRET-STRATEGY")
    results = tmp_path / "results"
    paths = f"{tmp_path / 'tournament.toml'}:{results / 't'}:{other}"
    mode = "off" if sandbox is None else "on"
    reader = command_bot("reader", "{python}", HOSTILE, "read", env={"HOSTILE_PATHS": paths})
    file = write_tournament(
        tmp_path, [reader, path_bot(other)], seed=987654321, jobs=1, sandbox=mode
    )
    t = load_tournament(file)
    with ResultsDir.open(results, t) as folder:
        await run_tournament(t, folder)
        records = folder.records()
    assert len(records) == 2 and all(r.faults == [] for r in records)
    second = records[1]  # played after the first was journaled
    got = report(second, [s.bot for s in second.seats].index("reader"))
    loot = "\n".join(got["got"].values())
    if sandbox is not None:
        assert all(s.sandboxed for r in records for s in r.seats)
        assert loot == "" and len(got["errors"]) == 3
        assert all("No such file" in e for e in got["errors"].values()), got["errors"]
    else:
        assert "seed = 987654321" in loot  # the tournament file
        assert str(records[0].seed) in got["got"][str(results / "t" / "schedule.jsonl")]
        assert str(records[0].seed) in got["got"][str(results / "t" / "games.jsonl")]
        assert "SECRET-STRATEGY" in loot


async def test_a_bot_sees_its_own_folder_but_not_the_referees_files_inside_it(
    tmp_path: Path,
) -> None:
    """A tournament run from inside a bot's folder: the bot is shown its folder, but the
    tournament file and the results in it are hidden."""
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(HOSTILE, mine / "hostile_bot.py")
    (mine / "notes.txt").write_text("my own notes")
    (mine / "bot.toml").write_text(
        'name = "mine"\ncommand = ["{python}", "hostile_bot.py", "read"]\n'
    )
    results = mine / "results"
    paths = f"{mine / 'tournament.toml'}:{results / 't'}:{mine}:/proc/1/cmdline"
    bots = [path_bot(mine, env={"HOSTILE_PATHS": paths}), path_bot(RANDOM_PY)]
    t = load_tournament(write_tournament(mine, bots, seed=987654321, jobs=1, sandbox="on"))
    with ResultsDir.open(results, t) as folder:
        await run_tournament(t, folder)
        records = folder.records()
    assert all(r.faults == [] for r in records)
    got = report(records[1], [s.bot for s in records[1].seats].index("mine"))
    loot = "\n".join(got["got"].values())
    assert got["got"][str(mine / "notes.txt")] == "my own notes"
    assert "hostile_bot.py" in got["got"][str(mine / "bot.toml")]
    assert "987654321" not in loot and str(records[0].seed) not in loot
    assert "No such file" in got["errors"][str(results / "t")]  # an empty folder in its place
    assert "Permission denied" in got["errors"][str(mine / "tournament.toml")]
    # the sandbox's own command line does not name what it hides
    cmdline = got["got"]["/proc/1/cmdline"]
    assert "bwrap" in cmdline and str(mine) not in cmdline


@pytest.mark.parametrize("sandbox", MODES)
async def test_killing_every_process_it_can_see(sandbox: SandboxConfig | None) -> None:
    """The killer SIGKILLs every process of the game it can find and probes the referee.
    Without the sandbox the other bot dies (a crash fault for the victim, not the killer)
    and the referee could have been killed; inside, it finds nothing to kill."""
    mark = f"mark-{os.getpid()}-{time.monotonic_ns()}"
    killer = hostile("kill", os.getpid(), sandbox=sandbox, HOSTILE_MARK=mark)
    victim = hostile("late", 0, sandbox=sandbox, HOSTILE_MARK=mark)
    sandboxed = sandbox is not None
    record = await play([killer, victim], set() if sandboxed else {1}, seed=3)
    got = report(record, 0)
    if sandboxed:
        assert got["visible"] <= 3  # the sandbox's init, itself and a passing child at most
        assert all(pid == 1 for pid in got["killed"])  # pid 1 ignores it
        assert "No such process" in got["referee"]
        assert record.faults == []
    else:
        assert got["killed"] and got["referee"] == "could signal it"
        (fault,) = record.faults
        assert fault.seat == 1 and "killed by SIGKILL" in fault.reason


@pytest.mark.parametrize("sandbox", MODES)
async def test_forking_many_processes(sandbox: SandboxConfig | None) -> None:
    """A fork bomb (100 children here) stops at the sandbox's process limit; every child is
    killed with the bot when the game ends."""
    limits = None if sandbox is None else msgspec.structs.replace(sandbox, processes=16)
    record = await play([hostile("fork", 100, sandbox=limits), good(sandbox)])
    got = report(record, 0)
    if sandbox is not None:
        assert got["forked"] < 16 and "Resource temporarily unavailable" in got["error"]
    else:
        assert got["forked"] == 100


@pytest.mark.parametrize("sandbox", MODES)
async def test_children_that_leave_the_process_group_die_with_the_bot(
    sandbox: SandboxConfig | None,
) -> None:
    """Children that start their own session escape a process-group kill; the PID namespace
    (sandboxed) or the referee, their subreaper (unsandboxed), takes them down with the bot (the
    `nothing_left` fixture checks)."""
    record = await play([hostile("fork", 3, "setsid", sandbox=sandbox), good(sandbox)])
    assert report(record, 0)["forked"] == 3


REFEREE_SCRIPT = """
import sys, trio
sys.path.insert(0, {root!r})
from arena.referee.game import play_game
from tests.helpers.sandbox import hostile, ON
from arena.referee.folders import BotSpec
sandbox = ON if {sandboxed!r} else None
slow = BotSpec("slow", [sys.executable, {random!r}, "30"], sandbox=sandbox)
trio.run(lambda: play_game("odin-race", [hostile("fork", 3, "setsid", sandbox=sandbox), slow]))
"""


@pytest.mark.parametrize("sandbox", MODES)
def test_a_referee_killed_with_sigkill_takes_its_bots_down(sandbox: SandboxConfig | None) -> None:
    """kill -9 of the referee mid-game: the bots and the children they started in sessions of
    their own all die (the sandbox dies with its parent; unsandboxed, the guardian kills
    every process that carries the referee's mark)."""
    script = REFEREE_SCRIPT.format(
        root=str(ROOT),
        sandboxed=sandbox is not None,
        random=str(TEST_BOTS / "random_bot.py"),
    )
    referee = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 20
        while len(hostile_processes()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(hostile_processes()) >= 4, "the bot and its 3 children never all ran"
    finally:
        referee.kill()
        referee.wait()
    deadline = time.monotonic() + 5
    while hostile_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hostile_processes() == []


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", MODES)
async def test_opening_a_network_connection(sandbox: SandboxConfig | None) -> None:
    """The bot connects to a server on the machine's loopback: inside, it has no network."""
    heard: list[bytes] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(10)

        def serve() -> None:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                heard.append(conn.recv(100))

        listener = threading.Thread(target=serve, daemon=True)
        listener.start()
        port = server.getsockname()[1]
        record = await play([hostile("net", port, sandbox=sandbox), good(sandbox)])
        if sandbox is not None:
            server.close()  # ends accept()
        listener.join(5)
    got = report(record, 0)
    if sandbox is not None:
        assert got["connected"] is False and heard == []
        assert "refused" in got["error"] or "unreachable" in got["error"]
    else:
        assert got["connected"] is True and heard == [b"the hidden cards are...\n"]


async def test_the_referees_environment_stays_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's environment may hold secrets: a sandboxed bot gets a minimal one (plus
    its own variables); an unsandboxed one gets it all."""
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    paths = {"HOSTILE_PATHS": "/proc/self/environ", "MINE": "yes"}
    inside = await play([hostile("read", **paths), good()])
    outside = await play([hostile("read", sandbox=None, **paths), good(None)])
    env_inside = report(inside, 0)["got"]["/proc/self/environ"]
    env_outside = report(outside, 0)["got"]["/proc/self/environ"]
    assert "hunter2" not in env_inside and "MINE=yes" in env_inside
    assert "HOME=/scratch" in env_inside and "TMPDIR=/tmp" in env_inside
    assert "ARENA_TEST_SECRET=hunter2" in env_outside


# -- the limits ----------------------------------------------------------------------------------


async def test_memory_limit() -> None:
    limited = msgspec.structs.replace(ON, memory_mb=256)
    big = await play([hostile("memory", 512, sandbox=limited), good()])
    small = await play([hostile("memory", 16, sandbox=limited), good()])
    assert report(big, 0) == {"attack": "memory", "allocated": 0, "error": "MemoryError"}
    assert report(small, 0)["allocated"] == 16


@pytest.mark.slow
async def test_memory_limit_holds_for_all_its_processes_together() -> None:
    """Three processes of 1 GiB each, each within the 2 GiB a process may reserve, are 3 GiB
    for the bot: it is stopped with a `memory` fault, and the other bot plays on unharmed."""
    hog = hostile("memory-split", 1024, 3, sandbox=msgspec.structs.replace(ON, memory_mb=2048))
    slow = RefereeConfig(limits=Limits(startup_ms=5000, move_ms=30_000), exit_grace_ms=500)
    record = await play_game("odin-race", [hog, good()], config=slow)
    check_record(record, {0})
    (fault,) = record.faults
    assert fault.kind == "memory" and fault.seat == 0 and fault.decision is not None
    assert "over its limit of 2048 MiB" in fault.reason
    assert record.moves[-1].seat in (0, 1) and record.ranks == [2, 1]


@pytest.mark.slow
async def test_cpu_limit_kills_the_bot_with_a_clear_fault() -> None:
    limited = msgspec.structs.replace(ON, cpu_seconds=1)
    record = await play([hostile("cpu", 3, sandbox=limited), good()], {0})
    (fault,) = record.faults
    assert fault.kind == "startup"  # it burnt its CPU before answering hello
    assert "killed by SIGXCPU (its CPU time limit in the sandbox)" in fault.reason
    # unlimited, the same bot burns its 1.5 s and plays on
    record = await play([hostile("cpu", 1.5, sandbox=None), good(None)])
    assert report(record, 0)["survived"] is True


async def test_file_size_and_scratch_limits() -> None:
    files = msgspec.structs.replace(ON, file_size_mb=1)
    record = await play([hostile("file", 4, sandbox=files), good()])
    assert report(record, 0) == {
        "attack": "file",
        "written": 1 << 20,
        "error": "[Errno 27] File too large",
    }
    scratch = msgspec.structs.replace(ON, scratch_mb=2)
    record = await play([hostile("file", 4, sandbox=scratch), good()])
    got = report(record, 0)
    assert got["written"] <= 2 << 20 and "No space left on device" in got["error"]


async def test_a_sandbox_that_cannot_start_is_a_clear_startup_fault(tmp_path: Path) -> None:
    spec = msgspec.structs.replace(good(), folder=str(tmp_path / "gone"))
    record = await play([spec, good()], {0})
    (fault,) = record.faults
    assert fault.kind == "startup"
    assert "could not be started in the sandbox (bwrap: Can't find source path" in fault.reason


# -- seeds ---------------------------------------------------------------------------------------

# Drawn at run time, so that no file a bot could scan (this test's own source, say, when the
# checkout lives under /tmp) holds it.
SEED = random.SystemRandom().randrange(10**12, 10**13)


@pytest.mark.parametrize("sandbox", MODES)
async def test_no_message_before_game_over_tells_the_seed(sandbox: SandboxConfig | None) -> None:
    """Neither hello nor any act carries the seed (nor the bot's environment or what it can
    read); game_over of a single game tells it, once the game is over."""
    record = await play([hostile("seeds", sandbox=sandbox), good(sandbox)], seed=SEED)
    got = report(record, 0)
    assert SEED not in got["messages"] and SEED not in got["files"]
    assert got["game_over"] == [SEED]


@pytest.mark.parametrize("sandbox", MODES)
async def test_tournament_bots_never_learn_a_seed(
    tmp_path: Path, sandbox: SandboxConfig | None
) -> None:
    """In a tournament every deal is played again in other seats, so not even game_over
    tells the seed. Without the sandbox the bot still finds the seeds in the tournament
    file and the results; inside, nowhere."""
    tournament_seed = 424242424242
    paths = f"{tmp_path / 'tournament.toml'}:{tmp_path / 'results' / 't'}"
    hunter = command_bot("hunter", "{python}", HOSTILE, "seeds", env={"HOSTILE_PATHS": paths})
    mode = "off" if sandbox is None else "on"
    bots = [hunter, path_bot(RANDOM_PY)]
    t = load_tournament(write_tournament(tmp_path, bots, seed=tournament_seed, sandbox=mode))
    with ResultsDir.open(tmp_path / "results", t) as folder:
        await run_tournament(t, folder)
        records = folder.records()
    seeds = {tournament_seed} | {r.seed for r in records}
    found: set[int] = set()
    for record in records:
        got = report(record, [s.bot for s in record.seats].index("hunter"))
        assert not seeds & set(got["messages"] + got["game_over"])
        found |= set(got["files"])
    if sandbox is not None:
        assert not seeds & found
    else:
        assert tournament_seed in found


async def test_match_bots_never_learn_a_seed() -> None:
    """An SPRT match plays each deal twice, seats swapped: game_over withholds the seed."""
    bots: list[LocalBot] = []

    def connect(spec: BotSpec) -> LocalBot:
        bots.append(LocalBot(spec, random_decider(f"{spec.name}:{len(bots)}")))
        return bots[-1]

    a, b = BotSpec("a", ["(in-process)"]), BotSpec("b", ["(in-process)"])
    state = await run_match(a, b, "odin-race", Sprt(elo0=0, elo1=10), max_pairs=2, connect=connect)
    assert len(state.games) == 4 and len(bots) == 8
    overs = [json.loads(bot.received[-1]) for bot in bots]
    assert all(o["type"] == "game_over" and o["seed"] is None for o in overs)
    seeds = {str(g.seed) for g in state.games}
    assert not any(seed in line.decode() for bot in bots for line in bot.received for seed in seeds)


# -- settings ------------------------------------------------------------------------------------


def test_tournament_sandbox_settings_and_per_bot_overrides(tmp_path: Path) -> None:
    bots = [
        path_bot(RANDOM_PY),
        path_bot(RANDOM_PY, name="loose", sandbox="off"),
        path_bot(RANDOM_PY, name="big", sandbox={"memory_mb": 4096}),
    ]
    file = write_tournament(tmp_path, bots, seats=3, ruleset="odin")
    file.write_text(file.read_text() + "\n[sandbox]\nmode = 'on'\nprocesses = 64\n")
    t = load_tournament(file)
    by_name = {b.name: b.sandbox for b in t.bots}
    assert by_name["random-py"] == SandboxConfig(mode="on", processes=64)
    assert by_name["loose"] == SandboxConfig(mode="off", processes=64)
    assert by_name["big"] == SandboxConfig(mode="on", processes=64, memory_mb=4096)
    assert t.bots[0].folder == str(RANDOM_PY)

    default = load_tournament(
        write_tournament(tmp_path, [path_bot(RANDOM_PY), path_bot(RANDOM_PY, name="b")])
    )
    assert {b.sandbox for b in default.bots} == {SandboxConfig(mode="auto")}
    assert SandboxOverride(processes=8).apply(ON) == SandboxConfig(mode="on", processes=8)

    bad = write_tournament(tmp_path, bots[:1] * 2, sandbox="maybe", file="bad.toml")
    with pytest.raises(ConfigError, match='`sandbox` must be "auto", "on", "off" or a table'):
        load_tournament(bad)


def test_a_tournament_resumes_with_another_sandbox_setting(tmp_path: Path) -> None:
    bots = [path_bot(RANDOM_PY), path_bot(RANDOM_PY, name="b")]
    first = load_tournament(write_tournament(tmp_path, bots, sandbox="on"))
    ResultsDir.open(tmp_path / "results", first).release()
    again = load_tournament(write_tournament(tmp_path, bots, sandbox="off"))
    ResultsDir.open(tmp_path / "results", again).release()  # not "a different tournament"


def test_play_in_and_out_of_the_sandbox(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    for mode in ("on", "off"):
        args = ["play", "odin-race", str(RANDOM_PY), str(RANDOM_PY), "-q", "--sandbox", mode]
        result = runner.invoke(app, [*args, "--limit", "memory_mb=512", "--record", str(record)])
        assert result.exit_code == 0, result.output
        assert "warning" not in result.output
    inside, outside = read_records(record)
    assert [s.sandboxed for s in inside.seats] == [True, True]
    assert [s.sandboxed for s in outside.seats] == [False, False]
    result = runner.invoke(app, ["play", "odin", str(RANDOM_PY), "-L", "memory=1"])
    assert result.exit_code == 2 and "memory_mb" in result.output


def test_the_tournament_command_overrides_the_files_sandbox(tmp_path: Path) -> None:
    bots = [path_bot(RANDOM_PY), path_bot(RANDOM_PY, name="b", sandbox="on")]
    file = write_tournament(tmp_path, bots, sandbox="on")
    results = tmp_path / "results"
    args = ["tournament", str(file), "--results", str(results), "--sandbox", "off"]
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "bots run without a sandbox" in result.output
    records = list(read_records(results / "t" / "games.jsonl"))
    assert len(records) == 2 and not any(s.sandboxed for r in records for s in r.seats)
    result = runner.invoke(app, [*args[:-1], "on"], env={"COLUMNS": "400"})  # resumes: done
    assert result.exit_code == 0 and "bots run sandboxed (each: 2048 MiB memory" in result.output


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine without bubblewrap: a PATH without it (the bots here need no PATH)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(sandbox_module, "_warned", False)
    sandbox_problem.cache_clear()
    yield
    sandbox_problem.cache_clear()


@pytest.mark.slow
def test_without_bubblewrap_auto_warns_once_and_on_refuses(no_bwrap: None, tmp_path: Path) -> None:
    assert sandbox_problem() == "bwrap is not installed (package bubblewrap)"
    bots = [path_bot(RANDOM_PY), path_bot(RANDOM_PY, name="b"), path_bot(RANDOM_PY, name="c")]
    file = write_tournament(tmp_path, bots, ruleset="odin-race", deals=2)
    results = ["--results", str(tmp_path / "results")]
    result = runner.invoke(app, ["tournament", str(file), *results], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert result.output.count("warning") == 1, result.output
    for words in ("WITHOUT a sandbox", "/proc/<pid>/fd/0", "apt-get install bubblewrap"):
        assert words in result.output
    assert "bots run without a sandbox" in result.output

    result = runner.invoke(app, ["play", "odin", str(RANDOM_PY), str(RANDOM_PY), "--sandbox", "on"])
    assert result.exit_code == 2
    assert "the sandbox is required" in result.output and "bubblewrap" in result.output

    result = runner.invoke(app, ["check-bot", str(RANDOM_PY), "-r", "odin-race", "--games", "1"])
    assert result.exit_code == 0 and result.output.count("warning") == 1
    assert "checked without the sandbox" in result.output


@pytest.mark.slow
def test_check_bot_says_whether_the_bot_works_inside_the_sandbox(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check-bot", str(RANDOM_PY), "-r", "odin-race", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "works inside the sandbox" in result.output

    needy = tmp_path / "needy"
    needy.mkdir()
    outside = tmp_path / "weights.bin"
    outside.write_text("0.5")
    (needy / "bot.py").write_text(
        f"from protocol.bot import run\nopen({str(outside)!r}).read()\nrun(lambda r: 0, 'needy')\n"
    )
    (needy / "bot.toml").write_text('name = "needy"\ncommand = ["{python}", "bot.py"]\n')
    args = ["check-bot", str(needy), "-r", "odin-race", "--games", "1", "--try-unsandboxed"]
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert "does not work inside the sandbox" in result.output
    assert "but works without it" in result.output
    assert f"{outside} (outside the sandbox)" in result.output

    result = runner.invoke(app, [*args, "--sandbox", "off"], env={"COLUMNS": "400"})
    assert result.exit_code == 0 and "checked without the sandbox" in result.output


def _pyenv_python3() -> str | None:
    """python3 on PATH, when it is a pyenv shim (as on the machines this project runs on)."""
    found = shutil.which("python3")
    if found is None or os.path.basename(os.path.dirname(found)) != "shims":
        return None
    return found if "pyenv" in Path(found).read_text(errors="replace") else None


async def test_a_bot_run_by_a_pyenv_shim_plays_in_the_sandbox(tmp_path: Path) -> None:
    """`command = ["python3", "bot.py"]`, where python3 is pyenv's shim (a script under $HOME
    that runs pyenv, which the sandbox does not show): the sandbox runs the interpreter the
    shim would run, shows its installation, and the bot plays without a fault."""
    if _pyenv_python3() is None:
        pytest.skip("python3 on PATH is not a pyenv shim on this machine")
    folder = tmp_path / "pyenv-bot"
    folder.mkdir()
    (folder / "bot.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'ready', 'name': 'p'}), flush=True)\n"
        "    elif m['type'] == 'act':\n"
        "        print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
        "    else:\n"
        "        break\n"
    )
    (folder / "bot.toml").write_text('name = "pyenv-bot"\ncommand = ["python3", "bot.py"]\n')
    spec = msgspec.structs.replace(load_bot(str(folder)), sandbox=ON)
    record = await play([spec, good()])
    assert record.seats[0].sandboxed and record.faults == []
