"""The referee's per-decision shortcuts keep what it enforces.

`play` encodes every request of a game into one reused buffer, sends fixed clock fields when
there is no bank, remembers answer lines that chose an index, and checks for a cancellation
only after it waited; `BotProcess.exchange` counts the fair share once for a whole trio run
and, on one CPU, waits for an answer in the kernel before it waits through trio. Each of
these is checked here against what it replaces: the bytes each seat is sent, the index
range, the bound on the remembered lines, the deadline, and the fair share.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

import arena.referee.bot as bot_module
from arena.games import new_game
from arena.referee.bot import BotProcess
from arena.referee.folders import BotSpec
from arena.referee.game import KNOWN_ANSWERS, RefereeConfig, _Game, _whole_ms, play_game
from arena.referee.local import LocalBot, random_decider
from arena.referee.records import GameRecord
from protocol.messages import Limits, Request, encode_line
from tests.helpers.processes import counting_yields, running_bots

#: A bot that keeps every act line it is sent, byte for byte, in `<folder>/seat<seat>.jsonl`
#: (argv[1] is the folder), and answers index decision mod the number of actions offered.
RECORDER = """
import json, sys
out = None
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if msg["type"] == "hello":
        out = open(f"{sys.argv[1]}/seat{msg['seat']}.jsonl", "wb")
        reply = {"type": "ready", "name": "recorder"}
    elif msg["type"] == "act":
        out.write(line)
        out.flush()
        reply = {"type": "action", "index": msg["decision"] % len(msg["actions"])}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""

#: A bot that answers index 5 to every act, whatever was offered.
FIVE = """
import sys
for line in sys.stdin:
    if line.startswith('{"type":"hello"'):
        print('{"type":"ready","name":"five"}', flush=True)
    elif line.startswith('{"type":"act"'):
        print('{"type":"action","index":5}', flush=True)
    else:
        break
"""

SILENT = ["sh", "-c", "cat >/dev/null"]  # (sh keeps the output open: no end of file)
LATE = ["sh", "-c", "read line; sleep 0.05; echo answer; cat >/dev/null"]


def script(tmp_path: Path, name: str, source: str, *args: str) -> BotSpec:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return BotSpec(name, [sys.executable, str(path), *args])


def expected_requests(record: GameRecord, limits: Limits) -> dict[int, list[bytes]]:
    """Every act line each seat should have been sent in the game of `record`, built anew
    for each decision (as a referee without shortcuts would) by playing its moves again."""
    state = new_game(record.ruleset, record.players, record.options, record.seed)
    cursor = [0] * record.players
    lines: dict[int, list[bytes]] = {seat: [] for seat in range(record.players)}
    for decision, move in enumerate(record.moves):
        seat = state.current_player
        assert seat == move.seat
        events = state.events_for(seat, cursor[seat])
        cursor[seat] = state.event_count
        request = Request(
            decision=decision,
            observation=state.observation(seat),
            actions=state.legal_actions(),
            events=events,
            time_ms=limits.move_ms,
            bank_ms=0,
        )
        lines[seat].append(encode_line(request))
        state.apply(state.legal_actions()[decision % len(state.legal_actions())])
    return lines


# -- the reused request buffer -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
async def test_every_seat_is_sent_exactly_its_own_requests(tmp_path: Path, players: int) -> None:
    """The request buffer every bot process of the game shares: each line a seat reads is
    the one built for it, whole, with nothing left of a longer request before it (requests
    grow and shrink as hands and legal lists do)."""
    spec = script(tmp_path, "recorder", RECORDER, str(tmp_path))
    limits = Limits(startup_ms=10_000, move_ms=2_000)
    record = await play_game("odin", [spec] * players, seed=11, config=RefereeConfig(limits=limits))
    assert not record.faults
    expected = expected_requests(record, limits)
    sizes = set()
    for seat in range(players):
        sent = (tmp_path / f"seat{seat}.jsonl").read_bytes().splitlines(keepends=True)
        assert sent == expected[seat]
        sizes |= {len(line) for line in sent}
    assert len(sizes) > 10  # (lines of many lengths went through the one buffer)


async def test_with_a_bank_the_clock_fields_follow_each_seat_clock(tmp_path: Path) -> None:
    """With a bank (no fixed clock fields), each request still holds its own seat's view and
    clock: time_ms is the move time and what is left of the bank, in whole ms."""
    spec = script(tmp_path, "recorder", RECORDER, str(tmp_path))
    limits = Limits(startup_ms=10_000, move_ms=2_000, bank_ms=5_000, increment_ms=10)
    record = await play_game("odin", [spec] * 2, seed=4, config=RefereeConfig(limits=limits))
    assert not record.faults
    expected = expected_requests(record, limits)
    for seat in range(2):
        sent = (tmp_path / f"seat{seat}.jsonl").read_bytes().splitlines(keepends=True)
        assert len(sent) == len(expected[seat])
        banks = []
        for got, want in zip(sent, expected[seat], strict=True):
            got_msg, want_msg = msgspec.json.decode(got), msgspec.json.decode(want)
            banks.append(got_msg["bank_ms"])
            assert got_msg["time_ms"] == limits.move_ms + got_msg["bank_ms"]
            for clock_field in ("time_ms", "bank_ms"):
                del got_msg[clock_field], want_msg[clock_field]
            assert got_msg == want_msg
        assert banks[0] == limits.bank_ms and banks[-1] > limits.bank_ms  # increments added


def test_whole_ms_is_the_floor_never_below_zero() -> None:
    values = [-5.5, -1.0, -1e-12, 0.0, 1e-12, 0.4, 0.999999, 1.0, 2.5, 999.999, 1e6 + 0.5]
    for value in values:
        assert _whole_ms(value) == max(0, math.floor(value))


# -- answers remembered --------------------------------------------------------------------


async def test_a_remembered_answer_out_of_range_later_is_an_illegal_action(
    tmp_path: Path,
) -> None:
    """The same answer line, taken from memory once it was read, is still checked against
    each decision's own legal list: index 5 is fine at a lead of nine cards, illegal once
    fewer than six actions are offered."""
    five = script(tmp_path, "five", FIVE)
    record = await play_game("odin", [five, five], seed=3)
    faults = {f.seat: f for f in record.faults}
    assert faults, "a bot always answering index 5 is offered fewer actions at some point"
    for fault in faults.values():
        assert fault.kind == "illegal"
        assert "index out of range" in fault.reason
    state = new_game("odin", 2, None, 3)
    answered = 0
    for move in record.moves:
        legal = state.legal_actions()
        if move.by == "bot":
            assert move.action == legal[5]
            answered += 1
        state.apply(move.action)
    assert answered >= 2  # (the line was taken from memory after its first reading)


def test_answer_lines_remembered_are_bounded() -> None:
    """A bot that never sends the same line twice (here, an extra field that changes) gets
    every line decoded, and the referee remembers at most KNOWN_ANSWERS of them."""
    specs = [BotSpec(f"bot-{i}", ["(in-process)"]) for i in range(2)]
    conns = [LocalBot(s, random_decider(s.name)) for s in specs]
    game = _Game("odin", conns, None, 1, RefereeConfig(), None)
    legal = game.state.legal_actions()
    for n in range(3 * KNOWN_ANSWERS):
        index = n % len(legal)
        line = b'{"type":"action","index":%d,"n":%d}' % (index, n)
        assert game.action_of(line, legal) == legal[index]
    assert len(game.known_answers) == KNOWN_ANSWERS
    assert all(game.known_answers[line] < len(legal) for line in game.known_answers)


# -- the fair share and the wait in the kernel ---------------------------------------------


def answering_at_once(bots: list[BotProcess], now: list[float]) -> None:
    """Every read of these bots finds an answer there at once, at the time `now[0]` (a clock
    the test moves: trio's own is left alone)."""
    for bot in bots:
        bot._read = lambda size: b"pong\n"
        bot._now = lambda: now[0]


async def yields_per_exchange(
    asked: list[tuple[float, BotProcess]], base: float, now: list[float], alone: bool
) -> list[int]:
    """For each (time, bot), ask the bot at that time: how many times trio ran meanwhile."""
    steps = []
    deadline = base + 1000  # (trio's own clock stays near base: never reached)
    with trio.CancelScope() as scope, counting_yields() as yields:
        for at, bot in asked:
            now[0] = base + at
            before = yields.count
            line, _ = await bot.exchange(b"ping\n", scope, deadline, alone=alone)
            assert line == b"pong"
            steps.append(yields.count - before)
    assert not scope.cancelled_caught
    return steps


async def test_a_game_alone_counts_the_fair_share_once_for_its_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two bots asked in turn by one task, its game the only one of the run: trio is let run
    once the share is spent since it last ran, whichever bot let it run then (a share
    counted per bot would let it run at each bot's turn, twice as often)."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 5.0)
    async with running_bots(SILENT, SILENT) as (first, second):
        base = trio.current_time()
        now = [base]
        answering_at_once([first, second], now)
        assert first._shared is second._shared
        first._shared.at = first._own.at = second._own.at = base
        asked = [(3.0, first), (6.0, second), (8.0, first), (10.0, second), (12.0, first)]
        steps = await yields_per_exchange(asked, base, now, alone=True)
        assert steps == [0, 1, 0, 0, 1]  # at 6, and at 12: 8 and 10 are within 5 of 6


async def test_with_other_games_the_fair_share_is_counted_per_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With other games playing, each bot's share counts from when trio last ran while it was
    asked: the games' turns interleave as finely as before the share was shared."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 5.0)
    async with running_bots(SILENT, SILENT) as (first, second):
        base = trio.current_time()
        now = [base]
        answering_at_once([first, second], now)
        first._shared.at = first._own.at = second._own.at = base
        asked = [(3.0, first), (6.0, second), (8.0, first), (10.0, second), (12.0, first)]
        steps = await yields_per_exchange(asked, base, now, alone=False)
        assert steps == [0, 1, 1, 0, 0]  # first's share ends at 5, second's at 5, then 11, 13


async def test_on_one_cpu_a_late_answer_is_waited_for_in_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer that comes after the request (the bot sleeps 50 ms first) is waited for
    without letting trio run while the fair share lasts: the CPU goes to the bot."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 1e9)
    async with running_bots(LATE) as (bot,):
        bot._one_cpu = True
        with trio.CancelScope() as scope, counting_yields() as yields:
            start = trio.current_time()
            line, at = await bot.exchange(b"go\n", scope, start + 5)
        assert line == b"answer" and at - start >= 0.05
        assert yields.count == 0
        assert scope.deadline == math.inf  # trio never ran: the deadline was not needed


@pytest.mark.alone
async def test_with_other_games_an_answer_is_not_waited_for_in_the_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While other games play, the loop does not wait in the kernel for one bot (another
    game's answer would wait with it): an answer not there at once is left to trio."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 1e9)
    async with running_bots(LATE) as (bot,):
        bot._one_cpu = True
        start = trio.current_time()
        assert bot.exchange_at_once(b"go\n", start + 5, alone=False) is None
        assert trio.current_time() - start < 0.04  # (the bot sleeps 0.05 s before answering)
        with trio.CancelScope() as scope:
            line, _ = await bot.exchange_rest(b"go\n", scope, start + 5)
        assert line == b"answer"


@pytest.mark.alone
async def test_on_one_cpu_a_bot_writing_to_stderr_ends_the_kernel_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot that writes to its stderr before it answers may wait for the referee to read
    it (a full pipe): the wait in the kernel ends there, and trio, which runs the stderr
    reader, waits for the answer."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 1e9)
    noisy = ["sh", "-c", "read line; echo thinking >&2; sleep 0.2; echo answer; cat >/dev/null"]
    async with running_bots(noisy) as (bot,):
        bot._one_cpu = True
        start = trio.current_time()
        assert bot.exchange_at_once(b"go\n", start + 5) is None
        assert trio.current_time() - start < 0.15
        with trio.CancelScope() as scope:
            line, _ = await bot.exchange_rest(b"go\n", scope, start + 5)
        assert line == b"answer"
        with trio.fail_after(2):
            while "thinking" not in bot.stderr_text():
                await trio.sleep(0.01)


async def test_on_one_cpu_the_kernel_wait_ends_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 1e9)
    async with running_bots(SILENT) as (bot,):
        bot._one_cpu = True
        start = trio.current_time()
        with trio.CancelScope() as scope:
            await bot.exchange(b"go\n", scope, start + 0.2)
        assert scope.cancelled_caught  # a timeout, as through trio
        assert 0.2 <= trio.current_time() - start < 0.2 + 1


@pytest.mark.slow
async def test_on_one_cpu_the_kernel_wait_ends_with_the_fair_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot that does not answer holds the loop in the kernel no longer than the fair
    share: then trio waits for it, and the other tasks run before its deadline."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 0.05)
    ran: list[float] = []

    async def other() -> None:
        while True:
            ran.append(trio.current_time())
            await trio.sleep(0.005)

    async with running_bots(SILENT) as (bot,), trio.open_nursery() as nursery:
        bot._one_cpu = True
        nursery.start_soon(other)
        await trio.sleep(0.01)
        start = trio.current_time()
        bot._turn.at = start
        with trio.CancelScope() as scope:
            await bot.exchange(b"go\n", scope, start + 1.0)
        assert scope.cancelled_caught
        during = [t for t in ran if start < t < start + 1.0]
        assert during and during[0] - start < 0.05 + 0.5
        nursery.cancel_scope.cancel()


# -- cancellation --------------------------------------------------------------------------


async def test_a_game_whose_answers_come_at_once_still_sees_a_cancellation(
    tmp_path: Path,
) -> None:
    """Cancelled by its own observer (in its own task, between two decisions), a game
    whose bots answer at once stops at its next wait or fair-share yield: long before its
    end, and it leaves no record."""
    spec = script(tmp_path, "recorder", RECORDER, str(tmp_path))
    seen: list[Any] = []
    with trio.CancelScope() as scope:

        def observe(state: Any, events: Any) -> None:
            seen.append(state.event_count)
            if len(seen) == 20:
                scope.cancel()

        await play_game("odin", [spec, spec], seed=2, observer=observe)
        pytest.fail("the game was played to its end")
    assert scope.cancelled_caught
    decisions = len((tmp_path / "seat0.jsonl").read_bytes().splitlines())
    decisions += len((tmp_path / "seat1.jsonl").read_bytes().splitlines())
    assert 19 <= decisions < 19 + 100  # (about a millisecond of decisions past the cancel)
