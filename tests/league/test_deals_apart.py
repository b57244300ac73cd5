"""No two games of one deal at the same time (`arena.league.lineup`), whatever plays them: the
rotations of a tournament's deal and the two orders of a match's deal never overlap, in this
process, on local worker processes or on a Dask cluster, and the other deals keep the jobs
busy meanwhile; the lineup looks ahead no further than it must, plays a game that could not
start again before its deal's other games, and drops held-back games a match no longer wants.

The games are played by tests/bots/clock_bot.py, which logs when it played and what it held;
its first hand tells which deal a game was (each seat of each deal holds other cards)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import arena.league.executors.inprocess as inprocess_module
from arena.games import new_game
from arena.league.config import load_tournament
from arena.league.executors import Executor, GameJob, InProcess
from arena.league.executors.cluster import DaskExecutor
from arena.league.lineup import Lineup
from arena.league.match import run_match
from arena.league.pool import GamePool
from arena.league.results import ResultsDir
from arena.league.sprt import Sprt
from arena.league.tournament import run_tournament, schedule_of
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig
from arena.referee.spawn import NoResources
from protocol.messages import Limits
from tests.helpers.paths import TEST_BOTS
from tests.helpers.tournaments import command_bot, write_tournament

CLOCK = TEST_BOTS / "clock_bot.py"
WAIT = 0.2  # each bot's pause at its first decision: games of one deal at once would overlap
OPTIONS = {"rounds": 1}


# -- the lineup alone ------------------------------------------------------------------------


def test_the_next_task_of_a_free_deal_goes_and_held_ones_go_first_once_free() -> None:
    drawn: list[str] = []

    def stream() -> Iterator[str]:
        for name in ["a1", "a2", "b1", "b2", "c1"]:
            drawn.append(name)
            yield name

    lineup = Lineup(stream(), deal=lambda task: task[0])
    assert lineup.take() == "a1"
    assert lineup.take() == "b1" and drawn == ["a1", "a2", "b1"]  # no further than b1
    assert lineup.take() == "c1"  # b2 is held too
    assert lineup.take() is None and not lineup.finished  # a2 and b2 wait for their deals
    lineup.ended("b1")
    lineup.ended("a1")
    assert lineup.take() == "a2"  # drawn first, so first once both are free
    assert lineup.take() == "b2"
    assert lineup.take() is None and lineup.finished


def test_a_task_handed_back_goes_first_and_keeps_its_deal() -> None:
    lineup = Lineup(["a1", "a2", "b1"], deal=lambda task: task[0])
    assert lineup.take() == "a1"
    lineup.again("a1")  # could not start: its deal stays in flight
    assert lineup.take() == "a1"
    assert lineup.take() == "b1"  # a2 still waits for a1
    assert lineup.take() is None
    lineup.ended("a1")
    assert lineup.take() == "a2"


def test_held_tasks_no_longer_wanted_are_dropped() -> None:
    lineup = Lineup(["a1", "a2", "b1"], deal=lambda task: task[0], wanted=lambda t: t != "a2")
    assert [lineup.take(), lineup.take()] == ["a1", "b1"]
    lineup.ended("a1")
    assert lineup.take() is None and lineup.finished  # a2 was dropped, never handed out


async def test_the_pool_retries_a_game_that_could_not_start_before_its_deals_others() -> None:
    """A game the referee could not start is played again with its deal held: no other game of
    that deal starts meanwhile, and the pool goes on one game fewer at once."""
    playing: set[str] = set()
    overlaps: list[str] = []
    failed = {"a1"}

    async def play(task: str) -> str:
        if any(other[0] == task[0] for other in playing):
            overlaps.append(task)
        if task in failed:
            failed.discard(task)
            await trio.sleep(0.01)  # the other games are under way when it fails
            raise NoResources("the referee could not open a pipe: Too many open files")
        playing.add(task)
        await trio.sleep(0.02)
        playing.discard(task)
        return task

    done: list[str] = []
    tasks = ["a1", "a2", "b1", "b2", "c1", "c2"]
    await GamePool(3, 2).run(tasks, play, lambda task, _: done.append(task), lambda t: t[0])
    assert sorted(done) == tasks and overlaps == []


# -- every executor --------------------------------------------------------------------------


def played_when(log: Path, games_of: dict[tuple[str, int, tuple[str, ...]], str]) -> dict[str, Any]:
    """When each game was played (its bots' first hello to last game_over), from the clock
    bots' log; `games_of` names the game of each (bot, seat, hand)."""
    games: dict[str, dict[str, Any]] = {}
    for line in log.read_text().splitlines():
        entry = json.loads(line)
        game = games_of[(entry["name"], entry["seat"], tuple(entry["hand"]))]
        span = games.setdefault(game, {"start": entry["start"], "end": entry["end"]})
        span["start"] = min(span["start"], entry["start"])
        span["end"] = max(span["end"], entry["end"])
    return games


def overlapping(spans: dict[str, Any], deal_of: dict[str, int]) -> list[tuple[str, str]]:
    """Pairs of games of one deal that were played at the same time."""
    names = sorted(spans)
    return [
        (g, h)
        for i, g in enumerate(names)
        for h in names[i + 1 :]
        if deal_of[g] == deal_of[h]
        and spans[g]["start"] < spans[h]["end"]
        and spans[h]["start"] < spans[g]["end"]
    ]


def hands(seed: int, players: int) -> list[tuple[str, ...]]:
    """Each seat's first hand in an odin deal."""
    game = new_game("odin", players, OPTIONS, seed)
    return [tuple(msgspec.to_builtins(game.observation(s))["hand"]) for s in range(players)]


@pytest.mark.alone
@pytest.mark.slow
@pytest.mark.parametrize("where", ["in-process", "workers"])
async def test_no_two_rotations_of_a_deal_overlap_and_the_jobs_stay_busy(
    tmp_path: Path, where: str
) -> None:
    """In process, and on two worker processes of a Dask `LocalCluster` (`--workers 2`; a
    cluster given by its address plays through the same `DaskExecutor.run`)."""
    folder, log = tmp_path / "t", tmp_path / "clock.log"  # the log outside what is shipped
    folder.mkdir()
    bots = [command_bot(n, "{python}", CLOCK, log, str(WAIT), n) for n in "ab"]
    file = write_tournament(
        folder, bots, ruleset="odin", options=OPTIONS, deals=3, jobs=4, sandbox="off"
    )
    t = load_tournament(file)
    games = schedule_of(t).plan(0, [], {})
    games_of = {
        (game.seats[seat], seat, hand): game.id
        for game in games
        for seat, hand in enumerate(hands(game.seed, 2))
    }
    executor: Executor = InProcess(4, 2) if where == "in-process" else DaskExecutor.local(2, 4)
    try:
        with ResultsDir.open(tmp_path / "results", t) as results:
            await run_tournament(t, results, executor=executor)
            assert len(results.records()) == 6
    finally:
        executor.close()
    spans = played_when(log, games_of)
    assert len(spans) == 6
    assert overlapping(spans, {g.id: g.seed for g in games}) == []
    # Three deals, so three games at a time: the first of each deal began together.
    first = sorted(spans.values(), key=lambda s: s["start"])[:3]
    assert max(s["start"] for s in first) < min(s["end"] for s in first)


async def test_the_two_games_of_a_match_deal_never_overlap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A match's deals are played once each way; at four jobs, the "ab" games of four deals go
    first and each "ba" game waits for its deal's."""
    real = inprocess_module.play_game
    now: dict[int, int] = {}
    most: list[int] = []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        seed = kwargs["seed"]
        now[seed] = now.get(seed, 0) + 1
        most.append(max(now.values()))
        try:
            await trio.sleep(0.005)
            return await real(*args, **kwargs)
        finally:
            now[seed] -= 1

    monkeypatch.setattr(inprocess_module, "play_game", counted)
    command = [sys.executable, str(TEST_BOTS / "random_bot.py")]
    a, b = BotSpec("a", command), BotSpec("b", command)
    config = RefereeConfig(limits=Limits(startup_ms=10_000, move_ms=5_000))
    state = await run_match(
        a, b, "odin-race", Sprt(elo0=0, elo1=10), max_pairs=4, jobs=4, config=config
    )
    assert state.pairs == 4 and len(most) == 8
    assert max(most) == 1


def test_a_game_job_s_deal_is_its_seed_whatever_the_ruleset_or_options() -> None:
    """Rulesets of one family deal the same cards from one seed, and options such as rounds
    change no deal: games that share a seed share a deal."""
    assert hands(77, 2)[0][:3] == tuple(
        msgspec.to_builtins(new_game("odin", 2, {"rounds": 2}, 77).observation(0))["hand"][:3]
    )
    race = msgspec.to_builtins(new_game("odin-race", 2, None, 77).observation(0))["hand"]
    assert set(hands(77, 2)[0]) & set(race)
    job = GameJob("odin", [], OPTIONS, 77, RefereeConfig(), "g")
    other = GameJob("odin-race", [], {}, 77, RefereeConfig(), "h")
    assert job.deal == other.deal == 77
