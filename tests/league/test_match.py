"""SPRT matches end to end: `run_match` deciding H1 for a much stronger bot and H0 for equal
ones, and resuming from its journal, with in-process bots; its results folder; and the `arena
sprt` command with real bot processes (exit statuses, resume after an interrupt). The test
itself (bounds, LLR, pentanomial, Elo interval) is in test_sprt.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import arena.league.executors.inprocess as inprocess_module
from arena.league.config import ConfigError
from arena.league.match import (
    MatchJournalError,
    MatchState,
    game_name,
    match_seed,
    parse_game_name,
    run_match,
)
from arena.league.match_results import MatchBot, MatchResults, MatchSpec, default_name
from arena.league.sprt import Sprt
from arena.referee.folders import BotSpec
from arena.referee.local import LocalBot, random_decider
from arena.referee.records import GameRecord, read_records
from arena.referee.spawn import NoResources
from tests.helpers.cli import invoke
from tests.helpers.paths import GREEDY, RANDOM, ROOT
from tests.helpers.records import seating


def greedy_decider(request: dict[str, Any]) -> int:
    """Shed the most cards at once; pass or take back the first offered otherwise."""
    actions = request["actions"]
    plays = [i for i, a in enumerate(actions) if a["type"] == "play"]
    if plays:
        return max(plays, key=lambda i: len(actions[i]["cards"]))
    return 0


def in_process(deciders: dict[str, Callable[[], Any]]) -> Callable[[BotSpec], LocalBot]:
    """A `connect` that gives every game a fresh in-process bot, by the spec's name."""
    return lambda spec: LocalBot(spec, deciders[spec.name]())


def local(name: str) -> BotSpec:
    return BotSpec(name, ["(in-process)"])


async def test_sprt_accepts_h1_for_a_much_stronger_bot() -> None:
    seeds = iter(range(10**6))
    connect = in_process(
        {"greedy": lambda: greedy_decider, "random": lambda: random_decider(f"r{next(seeds)}")}
    )
    state = await run_match(
        local("greedy"), local("random"), "odin-race", Sprt(elo0=0, elo1=10),
        max_pairs=300, connect=connect,
    )  # fmt: skip
    assert state.status == "H1", state.counts
    assert state.llr >= state.sprt.bounds()[1]
    assert len(state.games) == 2 * state.pairs
    assert all(not g.faults for g in state.games)  # in process, as asked: nothing was spawned
    assert {seating(g) for g in state.games} == {("greedy", "random"), ("random", "greedy")}


async def test_sprt_accepts_h0_for_equal_bots() -> None:
    seeds = iter(range(10**6))
    fresh = lambda: random_decider(f"s{next(seeds)}")  # noqa: E731
    state = await run_match(
        local("a"), local("b"), "odin-race", Sprt(elo0=100, elo1=200),
        max_pairs=300, connect=in_process({"a": fresh, "b": fresh}),
    )  # fmt: skip
    assert state.status == "H0", state.counts
    assert state.llr <= state.sprt.bounds()[0]
    assert all(not g.faults for g in state.games)


async def test_the_journal_recounts_to_the_state_of_the_run() -> None:
    """Every game is handed to `on_game` before it counts, in the order it finished;
    recounting those records gives the run's own state, pairs after the verdict left out."""
    seeds = iter(range(10**6))
    connect = in_process(
        {"greedy": lambda: greedy_decider, "random": lambda: random_decider(f"r{next(seeds)}")}
    )
    journal: list[GameRecord] = []
    test = Sprt(elo0=0, elo1=10)
    state = await run_match(
        local("greedy"), local("random"), "odin-race", test, max_pairs=300, jobs=3,
        on_game=journal.append, connect=connect,
    )  # fmt: skip
    assert state.status == "H1"
    assert len(journal) == len(state.played) >= 2 * state.pairs
    again = MatchState.recount(test, 1, ("greedy", "random"), journal)
    assert (again.counts, again.status, again.wdl) == (state.counts, state.status, state.wdl)
    assert again.games == state.games and again.uncounted == state.uncounted
    assert sum(state.wdl) == 2 * state.pairs
    assert state.wdl[0] + state.wdl[1] / 2 == pytest.approx(
        sum(c * i / 2 for i, c in enumerate(state.counts))
    )


def first_choice(request: dict[str, Any]) -> int:
    return 0


DETERMINISTIC = {"greedy": lambda: greedy_decider, "first": lambda: first_choice}
UNDECIDED = Sprt(elo0=0, elo1=10, alpha=1e-9, beta=1e-9)  # bounds ±20.7: no verdict in 8 pairs


async def play_deterministic(
    max_pairs: int, played: list[GameRecord], stop_after: int | None = None, jobs: int = 1
) -> tuple[MatchState | None, list[GameRecord]]:
    """A match of two deterministic in-process bots, resumed from `played`; with
    `stop_after`, cancelled (as Ctrl-C stops it) once that many new games are journaled.
    The state (None if cancelled) and the games this run journaled."""
    new: list[GameRecord] = []
    with trio.CancelScope() as scope:

        def journal(record: GameRecord) -> None:
            new.append(record)
            if stop_after is not None and len(new) >= stop_after:
                scope.cancel()

        return await run_match(
            local("greedy"), local("first"), "odin-race", UNDECIDED, max_pairs=max_pairs,
            jobs=jobs, played=played, on_game=journal, connect=in_process(DETERMINISTIC),
        ), new  # fmt: skip
    return None, new


@pytest.mark.parametrize("jobs", [1, 2])
async def test_an_interrupted_match_resumes_without_playing_a_game_twice(jobs: int) -> None:
    """Stopped mid-pair, then resumed from its journal: every game of the first run kept and
    none played again, the half-played deal completed, and the counts those of a run that
    was never stopped (the bots are deterministic, so each deal's games are the same)."""
    whole, _ = await play_deterministic(6, [])
    assert whole is not None and whole.status == "continue" and whole.pairs == 6
    stopped, first = await play_deterministic(6, [], stop_after=5, jobs=jobs)
    assert stopped is None and 5 <= len(first) < 12  # (two games may finish at once)
    partial = MatchState.recount(UNDECIDED, 1, ("greedy", "first"), first)
    if jobs == 1:
        assert len(first) == 5 and partial.pairs == 2 and partial.uncounted == 1
    resumed, second = await play_deterministic(6, first, jobs=jobs)
    assert resumed is not None
    names = [r.game for r in first + second]
    assert len(names) == len(set(names)) == 12  # every game once
    assert {parse_game_name(r.game) for r in second} == {
        (d, o) for d in range(6) for o in (0, 1)
    } - {parse_game_name(r.game) for r in first}
    assert resumed.counts == whole.counts and resumed.wdl == whole.wdl
    assert resumed.pairs == 6 and resumed.uncounted == 0


async def test_a_larger_max_pairs_plays_on_from_where_the_match_stopped() -> None:
    first_state, first = await play_deterministic(2, [])
    assert first_state is not None and first_state.pairs == 2 and len(first) == 4
    again, none = await play_deterministic(2, first)  # nothing left to play
    assert none == [] and again is not None and again.counts == first_state.counts
    more, second = await play_deterministic(4, first)
    assert more is not None and more.pairs == 4
    assert sorted(r.game for r in second) == ["d2-ab", "d2-ba", "d3-ab", "d3-ba"]
    for record in second:
        deal, order = parse_game_name(record.game) or (-1, -1)
        assert record.seed == match_seed(1, deal)
        assert seating(record) == (("greedy", "first") if order == 0 else ("first", "greedy"))


def test_a_verdict_stops_the_count_on_replay_too() -> None:
    """Pairs completed after the verdict are journaled but never counted, then or later."""
    test = Sprt(elo0=0, elo1=200, alpha=0.2, beta=0.2)
    a_wins = [made_record(d, o, a_first=True) for d in range(8) for o in (0, 1)]
    state = MatchState.recount(test, 1, ("a", "b"), a_wins)
    assert state.status == "H1" and 0 < state.pairs < 8
    assert state.uncounted == 16 - 2 * state.pairs
    assert state.wdl == [2 * state.pairs, 0, 0]


def made_record(deal: int, order: int, *, a_first: bool, seed: int = 1) -> GameRecord:
    """A record of game (deal, order) of a match between "a" and "b" that A wins (or loses)."""
    bots = ["a", "b"] if order == 0 else ["b", "a"]
    a_seat = bots.index("a")
    ranks = [1, 2] if (a_seat == 0) == a_first else [2, 1]
    seats = [{"seat": i, "bot": bot, "command": ["x"]} for i, bot in enumerate(bots)]
    return msgspec.convert(
        {
            "ruleset": "odin-race", "options": {}, "seed": match_seed(seed, deal), "players": 2,
            "seats": seats, "moves": [], "faults": [], "scores": [0, 0], "game_ranks": ranks,
            "ranks": ranks, "seconds": 0.1, "stderr": ["", ""], "game": game_name(deal, order),
        },
        GameRecord,
    )  # fmt: skip


def test_a_journal_of_another_match_is_refused() -> None:
    test = Sprt(elo0=0, elo1=10)
    good = made_record(0, 0, a_first=True)
    MatchState.recount(test, 1, ("a", "b"), [good])
    for bad, why in (
        (made_record(0, 0, a_first=True, seed=2), "seed"),
        (msgspec.structs.replace(good, game="r0-t0-d0-s0"), "name"),
        (made_record(0, 1, a_first=True), None),
    ):
        if why is None:  # game d0-ba with the bots of d0-ab
            bad = msgspec.structs.replace(bad, seats=good.seats)
            why = "seats"
        with pytest.raises(MatchJournalError, match=why):
            MatchState.recount(test, 1, ("a", "b"), [bad])


def test_a_game_journaled_twice_counts_once() -> None:
    test = Sprt(elo0=0, elo1=10)
    games = [made_record(0, 0, a_first=True), made_record(0, 1, a_first=True)]
    state = MatchState.recount(test, 1, ("a", "b"), [games[0], games[0], games[1], games[1]])
    assert state.counts == [0, 0, 0, 0, 1] and state.wdl == [2, 0, 0]


# -- the results folder --------------------------------------------------------------------------


def spec(**changes: Any) -> MatchSpec:
    base = MatchSpec(
        MatchBot("a", ["{python}", "a.py"], "/bots/a"), MatchBot("b", ["{python}", "b.py"]),
        "odin-race", {}, 1, 0.0, 10.0, 0.05, 0.05, 1.0,
    )  # fmt: skip
    return msgspec.structs.replace(base, **changes)


def test_the_folder_holds_one_test_and_one_run(tmp_path: Path) -> None:
    path = tmp_path / default_name("a", "b/c", "odin-race", 7)
    assert path.name == "sprt-a-vs-b_c-odin-race-s7"
    with MatchResults.open(path, spec()) as folder:
        folder.append(made_record(0, 0, a_first=True))
        with pytest.raises(ConfigError, match="in use by another run of this SPRT"):
            MatchResults.open(path, spec())
        with pytest.raises(ConfigError, match="in use by another run"):
            MatchResults.open(path, spec(), fresh=True)  # --fresh never empties a running test
    assert json.loads((path / "sprt.json").read_text())["elo1"] == 10.0
    with MatchResults.open(path, spec()) as folder:  # the same test: resumed
        assert [r.game for r in folder.records()] == ["d0-ab"]
    with pytest.raises(ConfigError, match=r"another SPRT; here elo1 5 \(there: 10\)"):
        MatchResults.open(path, spec(elo1=5.0))
    other_bot = spec(a=MatchBot("a", ["{python}", "a.py"], "/bots/a2"))
    with pytest.raises(ConfigError, match=r"bot A a = .* in /bots/a2 \(there: a = .* in /bots/a\)"):
        MatchResults.open(path, other_bot)
    with MatchResults.open(path, spec(elo1=5.0), fresh=True) as folder:
        assert folder.records() == []
    assert json.loads((path / "sprt.json").read_text())["elo1"] == 5.0


def test_a_folder_of_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "tournament.json").write_text("{}")
    with pytest.raises(ConfigError, match="holds a tournament's results, not this SPRT's"):
        MatchResults.open(tmp_path / "t", spec())
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "sprt.json").write_text('{"a": 1')
    with pytest.raises(ConfigError, match="not an SPRT's description"):
        MatchResults.open(tmp_path / "s", spec())
    MatchResults.open(tmp_path / "t", spec(), fresh=True).release()
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == [".lock", "sprt.json"]


# -- the command ---------------------------------------------------------------------------------


def journal(folder: Path) -> list[GameRecord]:
    (path,) = folder.glob("*/games.jsonl")
    return list(read_records(path))


@pytest.mark.slow
def test_sprt_command_finds_greedy_stronger_than_random(tmp_path: Path) -> None:
    """H1: exit 0, with the summary; run again, the test has ended: nothing is played."""
    args = ("sprt", GREEDY, RANDOM, "-r", "odin-race", "--elo0", "0", "--elo1", "100")
    result = invoke(*args, "--results", tmp_path, "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "H1 accepted: greedy-py is stronger than random-py" in result.output
    assert "pairs" in result.output and "LLR" in result.output
    folder = tmp_path / "sprt-greedy-py-vs-random-py-odin-race-s1"
    assert f"results in {folder}" in result.output
    played = journal(tmp_path)
    test = Sprt(elo0=0, elo1=100)
    state = MatchState.recount(test, 1, ("greedy-py", "random-py"), played)
    wins, draws, losses = state.wdl
    for line in (
        f"greedy-py vs random-py: {state.pairs} pairs",
        f"  games   greedy-py: W {wins}  D {draws}  L {losses}  ({2 * state.pairs} games",
        f"  pairs   pentanomial {state.counts}",
        "  Elo     ",
        f"  LLR     {state.llr:+.3f}  (bounds -2.944, +2.944)",
    ):
        assert line in result.output
    again = invoke(*args, "--results", tmp_path, "--sandbox", "off")
    assert again.exit_code == 0, again.output
    assert f"resuming: {len(played)} games already played" in again.output
    assert "the test has ended" in again.output
    assert journal(tmp_path) == played
    assert f"  games   greedy-py: W {wins}  D {draws}  L {losses}" in again.output


@pytest.mark.slow
def test_h0_accepted_exits_1(tmp_path: Path) -> None:
    args = ("sprt", RANDOM, GREEDY, "-r", "odin-race", "--elo0", "0", "--elo1", "100")
    result = invoke(*args, "--results", tmp_path, "--sandbox", "off")
    assert result.exit_code == 1, result.output
    assert "H0 accepted: random-py is not stronger than greedy-py by 100 Elo" in result.output


def test_no_decision_exits_4_and_a_larger_max_pairs_plays_on(tmp_path: Path) -> None:
    """Two pairs cannot decide: exit 4; the same command with --max-pairs 3 plays deal 2
    only and counts on from two pairs."""
    args = ["sprt", RANDOM, RANDOM, "-r", "odin-race", "--name", "even", "--results", tmp_path]
    args += ["--sandbox", "off", "--elo0", "0", "--elo1", "5", "-j", "1"]
    result = invoke(*args, "--max-pairs", "2")
    assert result.exit_code == 4, result.output
    assert "no decision after 2 pairs (--max-pairs 2)" in result.output
    first = journal(tmp_path)
    assert sorted(r.game for r in first) == ["d0-ab", "d0-ba", "d1-ab", "d1-ba"]
    result = invoke(*args, "--max-pairs", "3")
    assert result.exit_code == 4, result.output
    assert "resuming: 4 games already played, 2 pairs counted" in result.output
    assert "random-py vs random-py: 3 pairs" in result.output
    both = journal(tmp_path)
    assert both[:4] == first and sorted(r.game for r in both[4:]) == ["d2-ab", "d2-ba"]


def test_refusals_exit_2(tmp_path: Path) -> None:
    base = ["sprt", RANDOM, GREEDY, "-r", "odin-race", "--results", tmp_path, "--name", "x"]
    bad = invoke(*base, "--elo0", "10", "--elo1", "0")
    assert bad.exit_code == 2 and "error: --elo0 must be below --elo1" in bad.output
    bad_name = invoke(*base[:-1], "../up")
    assert bad_name.exit_code == 2 and "error: --name '../up'" in bad_name.output
    here = spec(a=MatchBot("random-py", ["x"]), b=MatchBot("greedy-py", ["y"]))
    with MatchResults.open(tmp_path / "x", here):
        busy = invoke(*base, "--sandbox", "off")
        assert busy.exit_code == 2 and "in use by another run" in busy.output, busy.output
    other = invoke(*base, "--sandbox", "off")
    assert other.exit_code == 2 and "holds the results of another SPRT" in other.output
    assert "--fresh" in other.output
    assert not (tmp_path / "x" / "games.jsonl").exists()


def test_the_referee_out_of_resources_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, calls = inprocess_module.play_game, [0]

    async def third_cannot_start(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] >= 3:
            raise NoResources("the referee could not open a pipe: Too many open files")
        return await real(*args, **kwargs)

    monkeypatch.setattr(inprocess_module, "play_game", third_cannot_start)
    result = invoke(
        "sprt", RANDOM, RANDOM, "-r", "odin-race", "--results", tmp_path, "-j", "1",
        "--sandbox", "off",
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert "no bot was charged" in result.output
    assert "2 finished games are saved; run the same command again to resume" in result.output
    assert len(journal(tmp_path)) == 2


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_a_stopped_command_resumes_without_playing_a_deal_twice(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """`arena sprt` as a process, stopped by Ctrl-C (exit 130, saying how to resume) or
    killed mid-run; the same command again keeps every journaled game, plays only the rest
    and counts on to the last pair."""
    args = [sys.executable, "-m", "arena", "sprt", str(RANDOM), str(GREEDY), "-r", "odin-race"]
    args += ["--results", str(tmp_path), "--sandbox", "off", "--max-pairs", "12"]
    args += ["--elo0", "-1000", "--elo1", "-999", "--alpha", "1e-9", "--beta", "1e-9"]
    env = {**os.environ, "COLUMNS": "400"}
    run = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    games = tmp_path / "sprt-random-py-vs-greedy-py-odin-race-s1" / "games.jsonl"
    deadline = time.monotonic() + 60
    while not (games.exists() and games.read_bytes().count(b"\n") >= 5):
        assert time.monotonic() < deadline and run.poll() is None, "no games were played"
        time.sleep(0.05)
    run.send_signal(stop)
    out, _ = run.communicate(timeout=60)
    first = list(read_records(games))
    assert 5 <= len(first) < 24
    if stop == signal.SIGINT:
        assert run.returncode == 130, out
        assert f"{len(first)} finished games are saved in" in out
        assert "run the same command again to resume" in out
        assert "  LLR     " in out  # the summary so far
    else:
        assert run.returncode == -signal.SIGKILL
    again = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 4, again.stdout + again.stderr  # no decision in 12 pairs
    assert f"resuming: {len(first)} games already played" in again.stdout
    assert "random-py vs greedy-py: 12 pairs" in again.stdout
    both = list(read_records(games))
    assert both[: len(first)] == first
    count = Counter(r.game for r in both)
    assert len(count) == 24 and set(count.values()) == {1}, count.most_common(3)
