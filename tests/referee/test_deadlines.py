"""Every answer is judged by the time the referee read it, against its own decision's
allowance plus the margin (`arena.referee.clock.Deadline`); no deadline carries over to another
seat. Bots answer at the edge of their time, on a loaded machine and with the referee's loop
held just when an answer comes: a late answer is its own bot's timeout, an answer read within
the margin is taken (its `ms` shows the overrun), and the next seat is never charged."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import trio

from arena.referee.clock import MARGIN_MS, Deadline
from arena.referee.faults import BotFault
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import GameRecord
from protocol.messages import Limits
from tests.helpers.paths import TEST_BOTS

MOVE_MS = 60
LOADED_MS = 250  # on loaded cores: long enough for an honest bot's answer, whatever the load
RANDOM = BotSpec("random", [sys.executable, str(TEST_BOTS / "random_bot.py")])


def edge(offset_ms: float) -> BotSpec:
    return BotSpec("edge", [sys.executable, str(TEST_BOTS / "edge_bot.py"), str(offset_ms)])


def config(move_ms: int = MOVE_MS) -> RefereeConfig:
    return RefereeConfig(
        limits=Limits(startup_ms=10_000, move_ms=move_ms), late_grace_ms=300, exit_grace_ms=300
    )


@contextmanager
def cores_loaded() -> Iterator[None]:
    """Busy loops on every core for the block's length, as other work on the machine."""
    pids = []
    for _ in range(os.cpu_count() or 2):
        pid = os.fork()
        if pid == 0:  # (the child spins until it is killed; it touches nothing of the test's)
            while True:
                pass
        pids.append(pid)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def asked(record: GameRecord, seat: int) -> set[int]:
    """The decisions the bot in `seat` says it was asked (it names each on its stderr)."""
    return {int(n) for n in re.findall(r"^asked (\d+)$", record.stderr[seat], re.MULTILINE)}


def check(record: GameRecord, edge_seat: int, move_ms: int = MOVE_MS) -> None:
    """The edge bot's moves were taken within the margin or charged to it; the other seat's
    never."""
    assert all(f.seat == edge_seat for f in record.faults), record.faults
    for fault in record.faults:
        assert fault.kind == "timeout", fault
        assert fault.decision in asked(record, edge_seat), (fault, record.stderr[edge_seat])
    for move in record.moves:
        if move.by == "bot":
            assert move.ms <= move_ms + MARGIN_MS, move


def test_a_deadline_judges_by_the_time_an_answer_was_read() -> None:
    deadline = Deadline(1, start=10.0, allowance_ms=100, margin_ms=20)
    assert deadline.judge(10.05) == pytest.approx(50)
    assert deadline.judge(10.115) == pytest.approx(115)  # past the allowance, within the margin
    assert deadline.judge(10.12) == pytest.approx(120)
    with pytest.raises(BotFault) as late:
        deadline.judge(10.1201)
    assert late.value.kind == "timeout"
    assert late.value.overrun_ms == pytest.approx(20.1)
    assert "answered 20 ms after its 100 ms" in late.value.reason


class HoldsTheLoop(trio.abc.Instrument):
    """Holds the whole loop `seconds` once, when the game's task has just sent the edge bot
    (seat 0) its request for decision `decision` and waits: what other work of the referee's
    process would do. The bot's answer comes during the hold, before its deadline; the
    referee reads it after the hold."""

    def __init__(self, seconds: float, decision: int) -> None:
        self.task = trio.lowlevel.current_task()
        self.seconds, self.decision = seconds, decision
        self.armed = False
        self.held = False

    def observe(self, state: Any, events: Any) -> None:
        self.armed = state.current_player == 0 and len(state.history) >= self.decision

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task and self.armed and not self.held:
            self.held = True
            time.sleep(self.seconds)


async def held_game(hold_ms: float) -> GameRecord:
    held = HoldsTheLoop((MOVE_MS + hold_ms) / 1000, decision=2)
    trio.lowlevel.add_instrument(held)
    try:
        record = await play_game(
            "odin-race", [edge(-5), RANDOM], seed=3, config=config(), observer=held.observe
        )
    finally:
        trio.lowlevel.remove_instrument(held)
    assert held.held
    return record


@pytest.mark.alone
async def test_an_answer_read_past_the_margin_is_its_own_bots_timeout() -> None:
    """The bot answered 5 ms before its deadline; the referee read it 25 ms after it (more than
    the margin): a timeout of that bot, with its overrun, and the next seat is asked as usual."""
    record = await held_game(hold_ms=MARGIN_MS + 10)
    assert [(f.seat, f.kind) for f in record.faults] == [(0, "timeout")]
    fault = record.faults[0]
    assert fault.overrun_ms is not None and fault.overrun_ms >= MARGIN_MS
    assert "answered" in fault.reason
    check(record, edge_seat=0)


@pytest.mark.alone
@pytest.mark.slow
async def test_an_answer_read_within_the_margin_is_taken_and_shows_its_overrun() -> None:
    record = await held_game(hold_ms=MARGIN_MS / 2)
    assert record.faults == []
    over = [m.ms for m in record.moves if m.seat == 0 and m.ms > MOVE_MS]
    assert over and all(m <= MOVE_MS + MARGIN_MS for m in over)
    check(record, edge_seat=0)


@pytest.mark.alone
@pytest.mark.slow
@pytest.mark.parametrize("offsets", [(-5, -2, -1, 0, 1, 2)])
async def test_bots_at_the_edge_of_their_time_on_loaded_cores_fault_only_themselves(
    offsets: tuple[int, ...],
) -> None:
    """Hundreds of decisions answered at the allowance minus 5, 2, 1 and 0 ms and plus 1 and
    2 ms, with every core kept busy: the opponent is never faulted, no move taken is over its
    allowance plus the margin, and every timeout is of a request its bot got."""
    records: list[tuple[int, int, GameRecord]] = []
    at_once = trio.CapacityLimiter(6)  # (the busy loops are the load: one per core)

    async def one(offset: int, seed: int, seat: int) -> None:
        bots = [RANDOM, RANDOM]
        bots[seat] = edge(offset)
        async with at_once:
            record = await play_game("odin-race", bots, seed=seed, config=config(LOADED_MS))
        records.append((offset, seat, record))

    def decisions() -> int:
        return sum(len(asked(record, seat)) for _, seat, record in records)

    with cores_loaded():
        for seed in (1, 2, 3):  # a deal a wave, every offset in both seats, to 200 decisions
            async with trio.open_nursery() as nursery:
                for offset in offsets:
                    for seat in (0, 1):
                        nursery.start_soon(one, offset, seed, seat)
            if decisions() >= 200:
                break
    for _, seat, record in records:
        check(record, edge_seat=seat, move_ms=LOADED_MS)
    assert decisions() >= 200
    # Answers sent past the allowance that were taken show by how much they ran over.
    for offset, seat, record in records:
        if offset > 0:
            assert all(m.ms > LOADED_MS for m in record.moves if m.by == "bot" and m.seat == seat)


class Stuck:
    """A connection whose bot reads its hello and answers it, then reads no more: every later
    line waits to be written (`writing`, as `BotProcess` says while its pipe is full)."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        self.writing = False
        self.answers = [b'{"type":"ready","name":"stuck"}']

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    async def send(self, line: bytes) -> None:
        if b'"hello"' not in line:
            self.writing = True
            await trio.sleep_forever()

    async def receive(self) -> tuple[bytes, float]:
        if self.answers:
            return self.answers.pop(), trio.current_time()
        await trio.sleep_forever()
        raise AssertionError

    def pending(self) -> bool:
        return False

    def kill(self) -> None:
        return None

    async def close(self, grace: float = 0.0) -> None:
        return None

    def stderr_text(self) -> str:
        return ""


async def test_a_bot_that_does_not_read_its_input_is_told_so() -> None:
    """A request that cannot be written before the deadline (the bot's input pipe stays full)
    is a timeout that says the bot did not read its input, not that it did not answer."""
    record = await play_game(
        "odin-race", [RANDOM, RANDOM], seed=1, config=config(move_ms=100), connect=Stuck
    )
    fault = record.faults[0]
    assert (fault.seat, fault.kind) == (0, "timeout")
    assert fault.reason.startswith("did not read its input"), fault.reason


async def test_a_bot_process_whose_input_pipe_stays_full_is_still_being_written() -> None:
    from tests.helpers.processes import running_bots

    async with running_bots(["sh", "-c", "exec sleep 30"]) as (bot,):
        with trio.CancelScope() as scope:
            line = b"x" * (1 << 20) + b"\n"  # more than a pipe holds
            await bot.exchange(line, scope, trio.current_time() + 0.2)
        assert scope.cancelled_caught
        assert bot.writing


def test_a_tournament_file_sets_the_margin_and_refuses_one_that_is_no_margin(
    tmp_path: Any,
) -> None:
    from arena.league.config import load_tournament

    def file(margin: str) -> str:
        path = tmp_path / f"t{len(margin)}.toml"
        path.write_text(
            'name = "t"\nruleset = "odin-race"\n'
            f"[time]\nmargin = {margin}\n"
            '[[bots]]\nname = "a"\ncommand = "cat"\n[[bots]]\nname = "b"\ncommand = "cat"\n'
        )
        return str(path)

    assert load_tournament(file("0.05")).config.referee_config().margin_ms == 50
    with pytest.raises(ValueError, match=r"`\[time\] margin` must be at least 0 s and at most 1 s"):
        load_tournament(file("2.5"))
