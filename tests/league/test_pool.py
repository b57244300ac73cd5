"""The worker pool shared by tournaments and matches: every task once, at most `jobs` at once,
and a task the referee could not start played again by another worker."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import trio

import arena.league.executors.inprocess as inprocess_module
from arena.league.config import load_tournament
from arena.league.match import run_match
from arena.league.pool import GamePool
from arena.league.results import ResultsDir
from arena.league.sprt import Sprt
from arena.league.tournament import run_tournament
from arena.referee.folders import BotSpec
from arena.referee.spawn import NoResources
from tests.helpers.paths import ROOT
from tests.helpers.tournaments import command_bot, write_tournament

RANDOM = BotSpec("random", [sys.executable, str(ROOT / "tests" / "bots" / "random_bot.py")])


def first_game_cannot_start(module: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make `module`'s first game fail to start, as if descriptors ran short; count calls."""
    real, calls = module.play_game, [0]

    async def first_cannot_start(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise NoResources("the referee could not open a pipe: Too many open files")
        return await real(*args, **kwargs)

    monkeypatch.setattr(module, "play_game", first_cannot_start)
    return calls


class Recorder:
    """A stand-in for the referee: counts games in flight and fails the starts it is told to."""

    def __init__(self, fail: set[int] | None = None) -> None:
        self.fail = fail or set()
        self.now = self.most = 0
        self.played: list[int] = []
        self.done: list[tuple[int, int]] = []

    async def play(self, task: int) -> int:
        if task in self.fail:
            self.fail.discard(task)  # it fails once, as if descriptors ran short
            raise NoResources("the referee could not open a pipe: Too many open files")
        self.now += 1
        self.most = max(self.most, self.now)
        await trio.sleep(0.001 * (task % 3))
        self.now -= 1
        self.played.append(task)
        return task * 10

    def finished(self, task: int, result: int) -> None:
        self.done.append((task, result))


async def test_every_task_once_and_no_more_than_jobs_at_once() -> None:
    r = Recorder()
    pool = GamePool(3, 2)
    await pool.run(range(20), r.play, r.finished)
    assert sorted(r.played) == list(range(20))
    assert sorted(r.done) == [(t, t * 10) for t in range(20)]
    assert r.most == 3


async def test_tasks_are_taken_lazily_so_a_generator_can_stop_early() -> None:
    r = Recorder()
    pool = GamePool(2, 2)

    def tasks():  # stops once five results are in, as a match stops at a verdict
        n = 0
        while len(r.done) < 5:
            yield n
            n += 1

    await pool.run(tasks(), r.play, r.finished)
    assert 5 <= len(r.done) <= 6  # at most the one game in flight with the fifth finishes too


async def test_a_task_that_cannot_start_is_played_by_another_worker() -> None:
    r = Recorder(fail={0})
    notes: list[str] = []
    pool = GamePool(3, 2, notes.append)
    await pool.run(range(10), r.play, r.finished)
    assert sorted(r.played) == list(range(10))
    assert len(notes) == 1 and "playing 2 games at once from now on" in notes[0]
    assert pool.jobs == 2  # the next run starts with what the machine allowed


async def test_the_last_worker_that_cannot_start_stops_the_run() -> None:
    r = Recorder(fail={0, 1})
    pool = GamePool(2, 2)
    with pytest.raises(NoResources):
        await pool.run(range(4), r.play, r.finished)


async def test_a_tournament_plays_on_with_fewer_games_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One worker's game cannot start: it is handed back and played by another worker, the
    tournament goes on one game fewer at once, and no game is lost or faulted."""
    bots = [command_bot(n, "{python}", ROOT / "tests" / "bots" / "random_bot.py") for n in "ab"]
    t = load_tournament(write_tournament(tmp_path, bots, deals=3, jobs=2))
    calls = first_game_cannot_start(inprocess_module, monkeypatch)
    notes: list[str] = []
    with ResultsDir.open(tmp_path / "results", t) as folder:
        await run_tournament(t, folder, on_note=notes.append)
        records = folder.records()
    assert len(records) == 6 and len({r.game for r in records}) == 6
    assert [f for r in records for f in r.faults] == []
    assert calls[0] == 7
    assert len(notes) == 1 and "playing 1 game at once from now on" in notes[0]


async def test_a_match_plays_on_with_fewer_games_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A match shares the tournament's pool: a game that cannot start is played again."""
    calls = first_game_cannot_start(inprocess_module, monkeypatch)
    notes: list[str] = []
    a, b = BotSpec("a", RANDOM.command), BotSpec("b", RANDOM.command)
    state = await run_match(
        a, b, "odin-race", Sprt(elo0=0, elo1=10), max_pairs=3, jobs=2, on_note=notes.append
    )
    assert state.pairs == 3 and len(state.games) == 6
    assert [f for g in state.games for f in g.faults] == []
    assert calls[0] == 7
    assert len(notes) == 1 and "playing 1 game at once from now on" in notes[0]
