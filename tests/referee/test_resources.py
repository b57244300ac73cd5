"""The referee's own resources: running short of file descriptors or processes is the
referee's error, never a bot's fault."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arena.referee.bot as bot_module
from arena.league.capacity import FDS_PER_BOT, games_at_once, raise_fd_limit
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.records import read_records
from arena.referee.spawn import NoResources, spawn
from tests.helpers.paths import ROOT
from tests.helpers.tournaments import command_bot, write_tournament

RANDOM = BotSpec("random", [sys.executable, str(ROOT / "tests" / "bots" / "random_bot.py")])


@pytest.fixture
def failing_spawns(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Make the first `n[0]` bot starts fail as if the referee had no descriptors left
    (n[0] < 0: every start fails); retries are not slowed down."""
    n = [0]
    real = bot_module.spawn_soon

    async def spawn_or_fail(*args: Any, **kwargs: Any) -> Any:
        if n[0] != 0:
            n[0] -= 1
            raise NoResources("the referee could not open a pipe: Too many open files")
        return await real(*args, **kwargs)

    monkeypatch.setattr(bot_module, "spawn_soon", spawn_or_fail)
    monkeypatch.setattr(bot_module, "SPAWN_TRIES", 4)
    yield n


async def test_a_start_that_fails_for_lack_of_descriptors_is_tried_again(
    failing_spawns: list[int],
) -> None:
    failing_spawns[0] = 3
    record = await play_game("odin-race", [RANDOM, RANDOM], seed=1)
    assert record.faults == []
    assert failing_spawns[0] == 0


async def test_a_start_that_never_succeeds_stops_the_game_charging_no_bot(
    failing_spawns: list[int],
) -> None:
    failing_spawns[0] = -1
    with pytest.raises(NoResources, match="Too many open files"):
        await play_game("odin-race", [RANDOM, RANDOM], seed=1)


def test_spawn_says_no_resources_when_descriptors_run_out() -> None:
    """With every descriptor taken, starting a process raises NoResources (not OSError)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held: list[int] = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    try:
        with pytest.raises(NoResources):
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
                if len(held) > 100:
                    break
                if len(held) % 2 == 0:
                    spawn(["true"]).kill()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_games_at_once_fits_the_descriptor_limit() -> None:
    limit = raise_fd_limit()
    assert limit == resource.getrlimit(resource.RLIMIT_NOFILE)[1] or limit >= 1 << 20
    jobs, note = games_at_once(4, 2)
    assert (jobs, note) == (4, None)
    huge = limit // (2 * FDS_PER_BOT)
    jobs, note = games_at_once(huge, 2)
    assert 1 <= jobs < huge and note is not None and "ulimit -n" in note


def _limited(soft: int, hard: int) -> Any:
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.slow
@pytest.mark.parametrize(("soft", "hard"), [(100, 100), (64, 4096)])
def test_a_tournament_under_a_low_ulimit_n_charges_no_bot(
    tmp_path: Path, soft: int, hard: int
) -> None:
    """`arena tournament` with 128 jobs under `ulimit -n 100` (soft and hard) plays fewer games
    at once and says so once; with a soft limit of 64 under a hard one of 4096 it raises its
    own limit first. Either way every game ends without a fault."""
    bots = [command_bot(n, "{python}", ROOT / "tests" / "bots" / "random_bot.py") for n in "abcd"]
    path = write_tournament(tmp_path, bots, deals=2, jobs=128)
    arena = Path(sys.executable).parent / "arena"
    done = subprocess.run(
        [str(arena), "tournament", str(path), "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        preexec_fn=_limited(soft, hard),
        timeout=300,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    records = list(read_records(tmp_path / "results" / "t" / "games.jsonl"))
    assert len(records) == 24
    assert [f for r in records for f in r.faults] == []
    told = done.stdout.count(" at once, not 128")
    assert told == (1 if hard == soft else 0), done.stdout
    # a sandboxed bot gets no more open files than the referee may have (it cannot raise them)
    assert f"{min(hard, 256)} open files" in done.stdout, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    json.dumps(done.stdout)  # printable


def test_arena_play_stops_in_words_when_the_referee_cannot_start_a_bot(
    tmp_path: Path, failing_spawns: list[int]
) -> None:
    """No traceback and no record charging a bot: exit status 3 and what to do."""
    from typer.testing import CliRunner

    from arena.cli.app import app

    failing_spawns[0] = -1
    record = tmp_path / "games.jsonl"
    bot = str(ROOT / "examples" / "bots" / "random-py")
    result = CliRunner().invoke(
        app, ["play", "odin-race", bot, bot, "--sandbox", "off", "--record", str(record)]
    )
    assert result.exit_code == 3, result.output
    assert "no bot was charged" in result.output and "ulimit -n" in result.output
    assert "Traceback" not in result.output and not record.exists()
