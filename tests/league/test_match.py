"""SPRT matches end to end: `run_match` deciding H1 for a much stronger bot and H0 for equal
ones, with in-process bots, and the `arena sprt` command with real bot processes. The test
itself (bounds, LLR, pentanomial) is in test_sprt.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.league.match import run_match
from arena.league.sprt import Sprt
from arena.referee.bot import BotSpec
from arena.referee.local import LocalBot, random_decider
from tests.helpers.cli import invoke
from tests.helpers.paths import GREEDY, RANDOM
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


def test_sprt_command_finds_greedy_stronger_than_random() -> None:
    result = invoke("sprt", GREEDY, RANDOM, "-r", "odin-race", "--elo0", "0", "--elo1", "100")
    assert result.exit_code == 0, result.output
    assert "H1 accepted: greedy-py is stronger" in result.output
    assert "pairs" in result.output and "LLR" in result.output
