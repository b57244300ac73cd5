"""`arena.play` and `arena.play_async`: games from Python, with Python agents (in process),
the built-in random player and bot programs (subprocesses) at one table.

What a user relies on: the record replays (by the library and by `arena replay`), a seeded
game is reproducible, an agent's mistakes are its seat's faults (or raised, when asked),
bad input is an ArenaError in words before any game, and `import arena` stays light.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

import arena
import arena.referee.sandbox as sandbox_module
from arena.games.errors import ArenaError
from arena.referee.api import AgentError, Seat
from arena.referee.records import GameRecord, append_record
from arena.referee.replay import replay
from arena.referee.sandbox import SandboxUnavailable, SandboxWarning, bwrap_available
from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM as RANDOM_PY
from tests.helpers.paths import ROOT
from tests.helpers.records import check_record

RACE = "odin-race"  # one round: short games


def first(request: dict[str, Any]) -> int:
    return 0


def last(request: dict[str, Any]) -> int:
    return len(request["actions"]) - 1


def played(record: GameRecord) -> Any:
    """What a game was, without what its timing changes (seconds, each move's ms)."""
    return (
        record.ruleset,
        record.options,
        record.seed,
        record.seats,
        [(m.seat, m.action, m.by) for m in record.moves],
        [(f.seat, f.kind, f.decision, f.reason) for f in record.faults],
        record.scores,
        record.ranks,
    )


# -- agents --------------------------------------------------------------------------------


def test_agents_play_a_game_whose_record_replays() -> None:
    asked: list[dict[str, Any]] = []

    def watching(request: dict[str, Any]) -> int:
        asked.append(request)
        return 0

    record = arena.play(RACE, [watching, last], seed=3)
    check_record(record, set())
    replay(record)
    assert [s.bot for s in record.seats] == ["watching", "last"]
    # it got what a bot gets: the act message, its own seat's view and the choices
    assert asked and all(r["type"] == "act" and r["actions"] for r in asked)
    assert {r["observation"]["seat"] for r in asked} == {0}
    assert {"decision", "observation", "actions", "events", "time_ms", "bank_ms"} <= set(asked[0])
    assert sum(1 for m in record.moves if m.seat == 0) == len(asked)


def test_an_agent_object_hears_hello_and_game_over_and_names_itself() -> None:
    class Counting:
        name = "counting"

        def __init__(self) -> None:
            self.hello: dict[str, Any] = {}
            self.over: dict[str, Any] = {}

        def on_hello(self, message: dict[str, Any]) -> None:
            self.hello = message

        def on_game_over(self, message: dict[str, Any]) -> None:
            self.over = message

        def __call__(self, request: dict[str, Any]) -> int:
            return 0

    agent = Counting()
    record = arena.play("odin", ["random", agent], seed=4, options={"rounds": 1})
    assert record.seats[1].bot == "counting"
    assert (agent.hello["seat"], agent.hello["players"], agent.hello["ruleset"]) == (1, 2, "odin")
    assert agent.hello["options"]["rounds"] == 1
    assert agent.over["ranks"] == record.ranks and agent.over["scores"] == record.scores


def test_answers_by_index_of_any_integer_type_or_by_value() -> None:
    def numpy_index(request: dict[str, Any]) -> Any:
        return np.int64(len(request["actions"]) - 1)

    def by_value(request: dict[str, Any]) -> dict[str, Any]:
        action: dict[str, Any] = request["actions"][0]
        return action

    by_index = arena.play(RACE, [last, first], seed=5)
    record = arena.play(RACE, [numpy_index, by_value], seed=5)
    assert not record.faults
    assert played(record)[4:] == played(by_index)[4:]


def test_a_lambda_and_a_partial_are_named() -> None:
    import functools

    def pick(request: dict[str, Any], at: int) -> int:
        return at

    record = arena.play(RACE, [lambda r: 0, functools.partial(pick, at=0)], seed=1)
    assert [s.bot for s in record.seats] == ["agent-0", "pick"]


# -- with bot programs -----------------------------------------------------------------------


def test_an_agent_and_a_bot_program_share_a_table(tmp_path: Path) -> None:
    record = arena.play("odin", [first, "random", RANDOM_PY], seed=7, options={"rounds": 1})
    check_record(record, set())
    assert [s.bot for s in record.seats] == ["first", "random", "random-py"]
    assert record.seats[2].command == ["{python}", "bot.py"]
    # run as `arena play` runs it: in the sandbox, where it works here
    assert record.seats[2].sandboxed == bwrap_available()
    assert {m.seat for m in record.moves} == {0, 1, 2}
    # `arena replay` verifies it
    path = tmp_path / "games.jsonl"
    append_record(path, record)
    result = invoke("replay", path, "--quiet")
    assert result.exit_code == 0, result.output


def test_a_seeded_game_is_reproducible() -> None:
    seats: list[Seat] = [first, "random", RANDOM_PY]
    one = arena.play("odin", seats, seed=11, options={"rounds": 1})
    two = arena.play("odin", seats, seed=11, options={"rounds": 1})
    other = arena.play("odin", seats, seed=12, options={"rounds": 1})
    assert played(one) == played(two)
    assert played(one)[4] != played(other)[4]


async def test_play_async_plays_in_a_trio_program() -> None:
    record = await arena.play_async(RACE, [first, "random"], seed=2)
    assert played(record) == played(arena_play_in_thread(RACE, [first, "random"], seed=2))
    replay(record)


def arena_play_in_thread(ruleset: str, seats: list[Any], seed: int) -> GameRecord:
    """`arena.play` from a thread of its own (a trio test runs in a trio loop)."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(arena.play, ruleset, seats, seed=seed).result()


async def test_play_inside_a_trio_run_says_to_await_play_async() -> None:
    with pytest.raises(ArenaError, match=r"use `await arena\.play_async\(\.\.\.\)` there"):
        arena.play(RACE, [first, "random"])


# -- faults ----------------------------------------------------------------------------------


def test_an_agent_that_raises_is_its_seats_crash_and_the_game_goes_on() -> None:
    calls = 0

    def flaky(request: dict[str, Any]) -> int:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise ValueError("no idea what to play")
        return 0

    record = arena.play(RACE, [flaky, "random"], seed=6)
    check_record(record, {0})
    replay(record)
    (fault,) = record.faults
    assert (fault.seat, fault.bot, fault.kind) == (0, "flaky", "crash")
    assert fault.reason == "raised ValueError: no idea what to play"
    assert calls == 2  # never asked again: the fallback plays its seat
    assert record.ranks == [2, 1]
    # its traceback is the seat's stderr, from its own frame on
    assert "in flaky" in record.stderr[0] and "ValueError: no idea what to play" in record.stderr[0]
    assert "arena/referee" not in record.stderr[0]


@pytest.mark.parametrize(
    ("answer", "kind", "reason"),
    [
        (lambda r: 99, "illegal", 'sent an illegal action {"index":99}: index out of range'),
        (lambda r: -1, "illegal", 'sent an illegal action {"index":-1}: index out of range'),
        (lambda r: None, "schema", "returned None, which is neither an index"),
        (lambda r: True, "schema", "returned True, which is neither an index"),
        (lambda r: "play", "schema", "returned 'play', which is neither an index"),
        (lambda r: {"type": "play", "cards": [object()]}, "schema", "returned an action that"),
        (
            lambda r: {"type": "fly"},
            "schema",
            """sent '{"type":"action","action":{"type":"fly"}}'""",
        ),
    ],
)
def test_a_wrong_answer_is_its_seats_fault(answer: Any, kind: str, reason: str) -> None:
    record = arena.play(RACE, [answer, "random"], seed=6)
    (fault,) = record.faults
    assert (fault.seat, fault.kind, fault.decision) == (0, kind, 0), fault
    assert fault.reason.startswith(reason), fault.reason
    check_record(record, {0})


def test_an_agent_too_slow_for_its_clock_times_out() -> None:
    def slow(request: dict[str, Any]) -> int:
        time.sleep(0.4)
        return 0

    record = arena.play(RACE, ["random", slow], seed=6, move_time=0.1)
    (fault,) = record.faults
    assert (fault.seat, fault.kind) == (1, "timeout")
    assert fault.reason.endswith("after its 100 ms")
    replay(record)


def test_an_exception_in_on_hello_is_a_startup_fault() -> None:
    class Shy:
        def on_hello(self, message: dict[str, Any]) -> None:
            raise RuntimeError("not today")

        def __call__(self, request: dict[str, Any]) -> int:
            raise AssertionError("never asked")

    record = arena.play(RACE, ["random", Shy()], seed=1)
    (fault,) = record.faults
    assert (fault.seat, fault.bot, fault.kind, fault.decision) == (1, "Shy", "startup", None)
    assert fault.reason == "raised RuntimeError: not today in on_hello"
    check_record(record, {1})


def test_an_exception_in_on_game_over_is_no_fault_but_its_traceback_is_kept() -> None:
    class Sore:
        def on_game_over(self, message: dict[str, Any]) -> None:
            raise KeyError("ranks")

        def __call__(self, request: dict[str, Any]) -> int:
            return 0

    record = arena.play(RACE, ["random", Sore()], seed=1)
    assert not record.faults
    assert "KeyError: 'ranks'" in record.stderr[1]
    with pytest.raises(KeyError, match="ranks"):
        arena.play(RACE, ["random", Sore()], seed=1, raise_errors=True)


def test_raise_errors_raises_what_the_agent_raised() -> None:
    problem = ValueError("no idea what to play")

    def broken(request: dict[str, Any]) -> int:
        raise problem

    with pytest.raises(ValueError) as info:
        arena.play(RACE, ["random", broken], seed=6, raise_errors=True)
    assert info.value is problem
    assert info.value.__traceback__ is not None


def test_raise_errors_raises_a_wrong_answer_as_an_agent_error() -> None:
    with pytest.raises(AgentError) as info:
        arena.play(RACE, [lambda r: 99, "random"], seed=6, raise_errors=True)
    assert str(info.value).startswith('seat 0: agent-0 sent an illegal action {"index":99}')
    assert info.value.fault.kind == "illegal"
    assert arena.AgentError is AgentError and isinstance(info.value, ArenaError)


def test_raise_errors_leaves_a_bot_programs_faults_recorded() -> None:
    crash = [sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"]
    record = arena.play(RACE, [first, " ".join(crash)], seed=1, raise_errors=True, sandbox="off")
    (fault,) = record.faults
    assert (fault.seat, fault.kind) == (1, "startup")


# -- bad input -------------------------------------------------------------------------------


def bot_folder(tmp_path: Path, manifest: str) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(manifest)
    (folder / "bot.py").write_text((RANDOM_PY / "bot.py").read_text())
    return folder


@pytest.mark.parametrize(
    ("ruleset", "seats", "kwargs", "message"),
    [
        ("odn", ["random", "random"], {}, "unknown ruleset `odn`: did you mean `odin`?"),
        ("odin", ["random"], {}, "odin takes 2-6 players, not 1"),
        ("override-classic", ["random"] * 3, {}, "override-classic takes 2 players, not 3"),
        ("odin", "random", {}, "agents must be a list with one agent per seat, not 'random'"),
        ("odin", first, {}, "agents must be a list with one agent per seat, not <function"),
        ("odin", ["random", 3], {}, 'seat 1: 3 is not an agent: give a callable, "random"'),
        ("odin", ["random"] * 2, {"options": {"round": 1}}, "did you mean `rounds`?"),
        ("odin", ["random"] * 2, {"options": {"target": 12}}, "bad value 12 for odin option"),
        ("odin", ["random"] * 2, {"move_time": 0}, "move_time must be at least 0.001 s"),
        ("odin", ["random"] * 2, {"bank": -1}, "bank must be at least 0 s"),
        ("odin", ["random"] * 2, {"startup_time": "10"}, "startup_time must be a number"),
        ("odin", ["random"] * 2, {"seed": "7"}, "seed must be a whole number, not '7'"),
        ("odin", ["random"] * 2, {"sandbox": "yes"}, 'sandbox must be one of "auto", "on"'),
        ("odin", ["random", "no-such-bot"], {}, "'no-such-bot' is neither a bot folder"),
    ],
)
def test_bad_input_is_an_arena_error_in_words(
    ruleset: str, seats: Any, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ArenaError) as info:
        arena.play(ruleset, seats, **kwargs)
    assert message in str(info.value)
    assert "msgspec" not in str(info.value) and "Expected" not in str(info.value)


def test_a_bot_that_does_not_play_the_ruleset_is_refused(tmp_path: Path) -> None:
    folder = bot_folder(
        tmp_path, 'name = "boards"\ncommand = ["{python}", "bot.py"]\nrulesets = ["bested"]\n'
    )
    with pytest.raises(ArenaError, match=r"boards does not play odin: its bot.toml lists"):
        arena.play("odin", ["random", folder])


def test_a_failed_build_says_what_it_printed(tmp_path: Path) -> None:
    folder = bot_folder(
        tmp_path,
        'name = "broken"\ncommand = ["{python}", "bot.py"]\n'
        'build = ["sh", "-c", "echo compiler says no; exit 3"]\n',
    )
    with pytest.raises(ArenaError) as info:
        arena.play(RACE, ["random", folder])
    assert "failed with status 3" in str(info.value)
    assert "compiler says no" in str(info.value)


def test_without_a_working_sandbox_the_warning_and_error_speak_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox_module, "sandbox_problem", lambda: "bwrap is not installed")
    with pytest.raises(SandboxUnavailable) as info:
        arena.play(RACE, ["random", RANDOM_PY], sandbox="on")
    assert 'the sandbox is required (sandbox="on") but bwrap is not installed' in str(info.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = arena.play(RACE, ["random", RANDOM_PY], seed=1)
    (warning,) = [w for w in caught if issubclass(w.category, SandboxWarning)]
    assert 'pass sandbox="off"' in str(warning.message) and "--sandbox" not in str(warning.message)
    assert warning.filename == __file__  # shown at the caller's line
    assert not record.seats[1].sandboxed and not record.faults


# -- the package and the example -----------------------------------------------------------


def test_import_arena_stays_light() -> None:
    code = (
        "import sys, arena\n"
        "heavy = ['trio', 'numpy', 'msgspec', 'arena.referee', 'arena.games']\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "print('play' in dir(arena), callable(arena.play), 'trio' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.splitlines() == ["[]", "True True True"]


def test_an_unknown_attribute_of_arena_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'arena' has no attribute 'plya'"):
        arena.plya  # noqa: B018


def test_the_python_api_example_runs_as_written(tmp_path: Path) -> None:
    example = ROOT / "examples" / "python_api.py"
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[2] for line in lines[:3]] == ["most_cards", "random", "random-py"]
    assert all(line.startswith(f"seat {i}: ") for i, line in enumerate(lines[:3]))
    assert lines[3].endswith(" moves, 0 faults") and lines[4] == "the record replays"
    assert not done.stderr


def test_the_record_is_a_plain_game_record() -> None:
    record = arena.play(RACE, [first, "random"], seed=1)
    line = msgspec.json.encode(record)
    assert msgspec.json.encode(msgspec.json.decode(line, type=GameRecord)) == line
    assert json.loads(line)["seats"][0]["command"] == ["(in-process agent)"]
