"""Nothing a bot writes stops the referee. Arbitrary lines (any bytes, markup, terminal control
sequences, deep nesting, huge numbers, huge actions) are sent as a bot's `ready` and as its
first action, through the real referee and real bot processes: the game ends, its record is
written and reads back, and the bot is faulted exactly when its line was not a valid answer
(the kind the protocol names), with a short reason safe to show; no other seat is faulted.
"""

from __future__ import annotations

import json
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest
import trio
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.games import IllegalAction, get_ruleset, new_game
from arena.games.odin import OdinState
from arena.referee.bot import BotProcess
from arena.referee.faults import BotFault, FaultKind
from arena.referee.folders import BotSpec
from arena.referee.game import MAX_REASON, RefereeConfig, _Game, bounded, play_game
from arena.referee.local import LocalBot, play_local, random_decider
from arena.referee.records import GameRecord, append_record, read_records
from arena.referee.replay import replay
from arena.referee.sandbox import SandboxConfig
from arena.referee.text import plain
from protocol.messages import MAX_LINE_BYTES, Choice, Limits, Ready, bot_decoder
from tests.helpers.paths import TEST_BOTS as BOTS

RANDOM = BotSpec("random", [sys.executable, str(BOTS / "random_bot.py")])
RULESET, PLAYERS, SEAT = "odin-race", 3, 1
CONFIG = RefereeConfig(limits=Limits(startup_ms=5000, move_ms=3000), exit_grace_ms=500)
DECODER = bot_decoder(get_ruleset(RULESET).action_type)
LONGEST_REASON = MAX_REASON + len("… (1,000,000,000 characters, cut)")
Moment = Literal["ready", "action"]

# -- the lines -------------------------------------------------------------------------------

NESTED = b'{"type": "ready", "name": "deep", "junk": ' + b"[" * 1000 + b"]" * 1000 + b"}"
NESTED_ACTION = b'{"type": "action", "index": 0, "junk": ' + b"[" * 1000 + b"]" * 1000 + b"}"
BAD_UTF8 = b'{"type": "action", "index": 0, "note": "\xff\xfe"}'
BAD_UTF8_READY = b'{"type": "ready", "name": "\xc3\x28"}'
HUGE_FLOAT = b'{"type": "action", "index": 1e400}'
HUGE_INT = b'{"type": "action", "index": ' + str(10**30).encode() + b"}"
MARKUP = b"[/]"
# Not JSON, though a decoder for objects sees a wrong type (an array, a number) at byte 0:
OPEN_ARRAYS = b"[" * 100_000
BAD_TAIL = b'{"type": "action", "index": [0, }'
NUMBER_TAIL = b"12 ab"
ANSI = b"\x1b[2J\x1b[31m[bold]red\x1b]0;title\x07"
NULS = b'{"type": "action",\x00 "index": 0}\x00'
# 200,000 cards: a line of 1,000,052 bytes, just under the 1 MiB a line may hold
MANY_CARDS = (
    b'{"type":"action","action":{"type":"play","cards":[' + b",".join([b'"1R"'] * 200_000) + b"]}}"
)
CARDS = [f"{n}{c}" for n in range(10) for c in "ROYGX"]
CLOSES_INPUT = "exec 0<&-; echo closed; exec sleep 10"  # its output stays open
ODD = ["[/]", "[bold]", "\x1b[31m", "\x1b]0;t\x07", "\x00", "\x7f", "\x9b", "\u202e", "\r", "\\"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
odd_text = st.lists(st.text(max_size=6) | st.sampled_from(ODD), max_size=6).map("".join)
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "pass", "take", "fold"]) | odd_text},
    optional={
        "cards": st.lists(st.sampled_from(CARDS) | odd_text, max_size=4),
        "card": st.sampled_from(CARDS) | odd_text,
    },
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["ready", "action", "hello"]) | odd_text},
    optional={
        "name": odd_text | json_values,
        "index": st.integers() | st.integers(-3, 40) | json_values,
        "action": actions | json_values,
        "extra": json_values,
    },
)


def _json(value: Any) -> bytes:
    return msgspec.json.encode(value)


lines = st.one_of(
    st.binary(max_size=120),
    odd_text.map(str.encode),
    messages.map(_json),
    st.tuples(messages.map(_json), st.binary(max_size=4)).map(b"".join),
).map(lambda line: line.replace(b"\n", b""))  # one line: the bot writes it, then a newline


# -- what the protocol says should happen ----------------------------------------------------


def expected(line: bytes, moment: Moment, record: GameRecord) -> FaultKind | None:
    """The fault kind the protocol gives this line (None: a valid answer), worked out from
    PROTOCOL.md section 9 and the rules, at the bot's first decision of `record`."""
    msg: Any = None
    kind: FaultKind | None = None
    try:
        if len(line) > MAX_LINE_BYTES:
            raise msgspec.DecodeError("a line longer than the protocol allows")
        json.loads(line.decode(), parse_constant=not_json)  # JSON, by Python's reading
        msg = DECODER.decode(line)
    except msgspec.ValidationError:
        kind = "schema"
    except (UnicodeDecodeError, ValueError, RecursionError):  # msgspec's DecodeError too
        kind = "malformed"
    if moment == "ready":
        return None if kind is None and isinstance(msg, Ready) else "startup"
    if kind is not None:
        return kind
    if not isinstance(msg, Choice) or (msg.index is None) == (msg.action is None):
        return "schema"
    state = new_game(record.ruleset, record.players, record.options, record.seed)
    for move in record.moves[: first_decision(record)]:
        state.apply(msgspec.convert(move.action, get_ruleset(RULESET).action_type))
    if msg.index is not None:
        return None if 0 <= msg.index < len(state.legal_actions()) else "illegal"
    try:
        state.apply(msg.action)
    except Exception:
        return "illegal"
    return None


def not_json(word: str) -> None:
    """Python's JSON reader takes NaN and Infinity; JSON has no such words."""
    raise ValueError(f"{word} is not JSON")


def first_decision(record: GameRecord) -> int:
    return next(i for i, m in enumerate(record.moves) if m.seat == SEAT)


def play_line(line: bytes, moment: Moment) -> None:
    """Play one game with `line` sent by the bot in SEAT at `moment`, append its record to a
    file and read it back, and check what happened against the protocol."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "line").write_bytes(line)
        command = [sys.executable, str(BOTS / "line_bot.py"), moment, str(Path(tmp) / "line")]
        bots = [RANDOM] * PLAYERS
        bots[SEAT] = BotSpec("line", command)
        played = trio.run(partial(play_game, RULESET, bots, seed=7, config=CONFIG))
        path = Path(tmp) / "games.jsonl"
        append_record(path, played)
        (record,) = read_records(path)
    replay(record)  # the record is whole: it replays to its end and its result
    assert msgspec.json.encode(record) == msgspec.json.encode(played)
    kind = expected(line, moment, record)
    faults = [(f.seat, f.kind, f.decision) for f in record.faults]
    if kind is None:
        assert faults == []
        assert all(m.by == "bot" for m in record.moves)
    else:
        decision = None if moment == "ready" else first_decision(record)
        assert faults == [(SEAT, kind, decision)], (line[:200], record.faults)
        (fault,) = record.faults
        assert len(fault.reason) <= LONGEST_REASON and plain(fault.reason) == fault.reason
        assert record.ranks[SEAT] == PLAYERS
        assert all(m.by == "bot" for m in record.moves if m.seat != SEAT)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(line=lines)
@example(line=NESTED)
@example(line=BAD_UTF8_READY)
@example(line=HUGE_FLOAT.replace(b"action", b"ready"))
@example(line=MARKUP)
@example(line=OPEN_ARRAYS)
@example(line=ANSI)
@example(line=NULS)
@example(line=b'{"type": "ready", "name": "[/]\\u001b[2J\\u0000"}')  # valid: nothing is shown
def test_any_line_as_ready(line: bytes) -> None:
    play_line(line, "ready")


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(line=lines)
@example(line=NESTED_ACTION)
@example(line=BAD_UTF8)
@example(line=HUGE_FLOAT)
@example(line=HUGE_INT)
@example(line=MARKUP)
@example(line=OPEN_ARRAYS)
@example(line=BAD_TAIL)
@example(line=NUMBER_TAIL)
@example(line=ANSI)
@example(line=NULS)
@example(line=MANY_CARDS)
@example(line=b'{"type": "action", "action": {"type": "[/]\\u001b[2J\\u009b"}}')
@example(line=b'{"type": "action", "index": 0}')  # valid
def test_any_line_as_the_first_action(line: bytes) -> None:
    play_line(line, "action")


# -- the examples, one by one: what the reasons say -----------------------------------------


@pytest.mark.parametrize(
    ("line", "moment", "says"),
    [
        (NESTED, "ready", "which is nested too deeply to read"),
        (NESTED_ACTION, "action", "which is nested too deeply to read"),
        (BAD_UTF8, "action", "which is not UTF-8 (at byte 40)"),
        (HUGE_FLOAT, "action", "which is not a valid message: Number out of range"),
        (HUGE_INT, "action", f'sent an illegal action {{"index":{10**30}}}: index out of range'),
        (ANSI, "action", "sent '\\x1b[2J\\x1b[31m[bold]red\\x1b]0;title\\x07', which is not JSON"),
        (MARKUP, "action", "sent '[/]', which is not JSON: JSON is malformed: invalid character"),
        (OPEN_ARRAYS, "action", "which is nested too deeply to read"),
        (BAD_TAIL, "action", "which is not JSON: JSON is malformed: invalid character (byte 32)"),
        (MANY_CARDS, "action", 'sent an illegal action {"type":"play","cards":["1R",'),
    ],
)
def test_reasons_are_short_plain_sentences(line: bytes, moment: Moment, says: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "line").write_bytes(line)
        command = [sys.executable, str(BOTS / "line_bot.py"), moment, str(Path(tmp) / "line")]
        record = trio.run(partial(play_game, RULESET, [RANDOM, BotSpec("line", command)]))
    (fault,) = record.faults
    assert fault.seat == 1 and says in fault.reason, fault.reason
    assert len(fault.reason) <= MAX_REASON and "\x1b" not in fault.reason
    assert fault.sentence() == f"line {fault.reason}"


def test_a_reason_is_bounded_and_says_what_was_cut() -> None:
    reason = "sent " + "\x1b[31m" * 200_000  # shown escaped: 8 characters each
    text = bounded(reason)
    assert text.startswith("sent \\x1b[31m\\x1b[31m")
    assert "\x1b" not in text
    assert text.endswith("… (1,600,005 characters, cut)")
    assert len(text) == MAX_REASON + len("… (1,600,005 characters, cut)")
    assert bounded("did not answer within 1000 ms") == "did not answer within 1000 ms"


# -- the rules failing on an action, and faults told twice -----------------------------------


class Trap:
    """Makes the rules fail (as a bug in them would) on the next action applied after it is
    armed: the action is applied, changing the state, then an OverflowError is raised."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.armed = False
        real = OdinState._apply

        def apply(state: OdinState, seat: int, action: Any) -> Any:
            if not self.armed:
                return real(state, seat, action)
            self.armed = False
            real(state, seat, action)
            raise OverflowError("Python int too large to convert to C long")

        monkeypatch.setattr(OdinState, "_apply", apply)


async def test_an_action_by_value_the_rules_fail_on_is_the_bots_illegal_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot is faulted and the game goes on from the state before its action (the failed
    one changed the state half way): the record replays exactly."""
    trap = Trap(monkeypatch)
    rng = random_decider("by-value")
    asked = 0

    def by_value_first(request: dict[str, Any]) -> int | dict[str, Any]:
        nonlocal asked
        asked += 1
        if asked > 1:
            return rng(request)
        trap.armed = True
        return request["actions"][0]  # an offered action, sent by value

    deciders = [random_decider("a"), by_value_first, random_decider("c")]
    record, _ = await play_local(RULESET, deciders, seed=5)
    (fault,) = record.faults
    assert (fault.seat, fault.kind, fault.decision) == (1, "illegal", first_decision(record))
    assert fault.reason.startswith("sent an action the rules could not apply: {")
    assert fault.reason.endswith("(OverflowError: Python int too large to convert to C long)")
    assert record.moves[fault.decision].by == "fallback"
    replay(record)


async def test_an_offered_action_the_rules_fail_on_is_their_bug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trap = Trap(monkeypatch)

    def by_index(request: dict[str, Any]) -> int:
        trap.armed = True
        return 0

    with pytest.raises(BaseExceptionGroup) as info:  # raised through trio's nurseries
        await play_local(RULESET, [by_index, by_index], seed=5)
    assert info.group_contains(OverflowError, depth=None)


def test_a_seat_is_faulted_once_the_first_fault_stands() -> None:
    specs = [BotSpec(f"bot-{i}", ["(in-process)"]) for i in range(2)]
    conns = [LocalBot(s, random_decider(s.name)) for s in specs]
    game = _Game(RULESET, conns, None, 1, CONFIG, None)
    game.fault(1, BotFault("crash", "exited with status 1 before answering"), 4)
    game.fault(1, BotFault("timeout", "did not answer within 5 ms (waited 1 ms more)"), 4)
    game.fault(1, IllegalAction({"index": 9}, "index out of range"), 5)
    assert [(f.seat, f.kind, f.decision) for f in game.faults] == [(1, "crash", 4)]
    assert game.out == {1} and conns[1].killed and not conns[0].killed


# -- a bot that closes its input --------------------------------------------------------------


@pytest.mark.parametrize("sandbox", [None, SandboxConfig(mode="on")], ids=["plain", "sandboxed"])
async def test_a_bot_that_closes_only_its_input_is_said_to_have_closed_its_input(
    sandbox: SandboxConfig | None,
) -> None:
    """It closes its input, says so on its output (kept open) and keeps running: writing to
    it is its crash, for closing its input, not its output."""
    bot = BotProcess(BotSpec("closer", ["sh", "-c", CLOSES_INPUT], sandbox=sandbox))
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await bot.start(nursery)
            try:
                line, _ = await bot.receive()
                assert line == b"closed"
                with pytest.raises(BotFault) as fault:
                    await bot.send(b'{"type":"hello"}\n')
            finally:
                await bot.close()
    assert fault.value.kind == "crash"
    assert fault.value.reason == "closed its input and kept running"
