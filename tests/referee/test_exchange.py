"""The referee's fast exchange with a bot process (`BotProcess.exchange`): the request written
and the answer read directly when the pipes are ready, trio waited on only when they are not,
with the deadline, cancellation, line framing and faults of `send` and `receive`.

The bots here are one-line shell or Python commands. Most of them write their answer before
being asked, and the test waits until it is in the pipe, so that whether the exchange finds
it there at once does not depend on how the scheduler runs the two processes.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

import arena.referee.bot as bot_module
from arena.referee.bot import BotProcess
from arena.referee.faults import BotFault
from protocol.messages import MAX_LINE_BYTES
from tests.helpers.processes import counting_yields, running_bots

ANSWERS_FIRST = ["sh", "-c", "echo answer; exec cat >/dev/null"]  # answers before it is asked
ECHO = ["cat"]
SILENT = ["sh", "-c", "exec cat >/dev/null"]


@asynccontextmanager
async def running(command: list[str], max_line: int = MAX_LINE_BYTES) -> AsyncIterator[BotProcess]:
    """A started bot process, closed (killed and reaped) at the end; none lasts 10 s."""
    async with running_bots(command, max_line=max_line) as bots:
        yield bots[0]


async def answer_waiting(bot: BotProcess) -> None:
    """Wait until the bot's answer is in the pipe (without reading it)."""
    assert bot.process is not None and bot.process.stdout is not None
    with trio.fail_after(5):
        await trio.lowlevel.wait_readable(bot.process.stdout.fileno())


async def test_an_answer_in_the_pipe_is_read_at_once_without_letting_trio_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 1e9)
    async with running(ANSWERS_FIRST) as bot:
        await answer_waiting(bot)
        with trio.CancelScope() as scope, counting_yields() as yields:
            deadline = trio.current_time() + 10
            line, at = await bot.exchange(b'{"type":"act"}\n', scope, deadline)
            assert (line, yields.count) == (b"answer", 0)
            await trio.lowlevel.checkpoint()
            assert yields.count == 1  # (what is counted)
        assert at <= trio.current_time()
        assert scope.deadline == math.inf  # never waited: the deadline was not needed


async def test_an_answer_read_at_once_lets_trio_run_after_fair_share(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 0.0)
    async with running(ANSWERS_FIRST) as bot:
        await answer_waiting(bot)
        with trio.CancelScope() as scope, counting_yields() as yields:
            deadline = trio.current_time() + 10
            line, _ = await bot.exchange(b'{"type":"act"}\n', scope, deadline)
        assert (line, yields.count) == (b"answer", 1)
        assert not scope.cancelled_caught


class HoldsTheLoop(trio.abc.Instrument):
    """Holds the loop `seconds` once, the next time the current task lets trio run: what
    another task computing that long would do while this one waits to run again."""

    def __init__(self, seconds: float) -> None:
        self.task = trio.lowlevel.current_task()
        self.seconds = seconds
        self.held = False

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task and not self.held:
            self.held = True
            time.sleep(self.seconds)


async def test_a_fair_share_yield_held_past_the_deadline_times_out_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An answer in hand before its deadline: while the other tasks run for the fair share,
    one may hold the loop past that deadline. Neither this decision nor the next one asked
    under the same scope (the game loop's) is timed out for it."""
    monkeypatch.setattr(bot_module, "FAIR_SHARE", 0.0)
    async with running(ANSWERS_FIRST) as bot:
        await answer_waiting(bot)
        with trio.CancelScope() as scope:
            held = HoldsTheLoop(0.1)
            trio.lowlevel.add_instrument(held)
            try:
                deadline = trio.current_time() + 0.02
                line, _ = await bot.exchange(b'{"type":"act"}\n', scope, deadline)
            finally:
                trio.lowlevel.remove_instrument(held)
            assert line == b"answer"
            assert held.held and trio.current_time() > deadline  # held past it, at the yield
            await trio.sleep(0)  # the next decision's first wait
        assert not scope.cancelled_caught


async def test_an_echo_round_trip_reads_the_line_whole() -> None:
    async with running(ECHO) as bot:
        for n in range(50):
            request = b'{"type":"act","decision":%d}\n' % n
            with trio.CancelScope() as scope:
                line, _ = await bot.exchange(request, scope, trio.current_time() + 5)
            assert line == request[:-1]
            assert not scope.cancelled_caught


async def test_no_answer_is_waited_for_under_the_deadline_then_cancelled() -> None:
    async with running(SILENT) as bot:
        start = trio.current_time()
        with trio.CancelScope() as scope:
            deadline = start + 0.2
            await bot.exchange(b'{"type":"act"}\n', scope, deadline)
        assert scope.cancelled_caught
        assert scope.deadline == deadline
        assert trio.current_time() >= deadline


async def test_nothing_is_written_once_the_deadline_has_passed() -> None:
    async with running(ECHO) as bot:
        with trio.CancelScope() as scope:
            await bot.exchange(b"late\n", scope, trio.current_time() - 0.001)
        assert scope.cancelled_caught
        with trio.move_on_after(0.3) as waited:
            await bot.receive()  # cat would echo what it was sent: nothing came
        assert waited.cancelled_caught
        with trio.CancelScope() as scope:
            line, _ = await bot.exchange(b"in time\n", scope, trio.current_time() + 5)
        assert line == b"in time"


async def test_nothing_is_written_once_the_scope_is_cancelled() -> None:
    async with running(ECHO) as bot:
        with trio.CancelScope() as scope:
            scope.cancel()
            await bot.exchange(b"cancelled\n", scope, trio.current_time() + 5)
        assert scope.cancelled_caught
        with trio.move_on_after(0.3) as waited:
            await bot.receive()
        assert waited.cancelled_caught


async def test_an_answer_read_at_once_past_the_deadline_is_kept_for_the_timeout() -> None:
    """The deadline passes between writing the request and reading the answer (the start is
    made to look early): the answer is not returned, the scope is cancelled as trio would at
    its checkpoint, and the line waits for `receive`, with the time it was read."""
    async with running(ANSWERS_FIRST) as bot:
        await answer_waiting(bot)
        deadline = trio.current_time() - 0.001
        early = iter([deadline - 1.0])
        bot._now = lambda: next(early, None) or trio.current_time()
        with trio.CancelScope() as scope:
            await bot.exchange(b'{"type":"act"}\n', scope, deadline)
            pytest.fail("a late answer was returned")
        assert scope.cancelled_caught
        line, at = await bot.receive()
        assert line == b"answer" and at >= deadline


async def test_two_lines_in_one_read_are_framed_as_two() -> None:
    two = ["sh", "-c", 'printf "first\\nsecond\\n"; exec cat >/dev/null']
    async with running(two) as bot:
        await answer_waiting(bot)
        with trio.CancelScope() as scope:
            line, _ = await bot.exchange(b"go\n", scope, trio.current_time() + 5)
        assert line == b"first"
        with trio.fail_after(1):
            assert bot.pending()  # a line nobody asked for
            line, _ = await bot.receive()
        assert line == b"second"


async def test_an_over_long_line_read_at_once_is_malformed() -> None:
    async with running(["sh", "-c", "echo 0123456789abc; exec cat >/dev/null"], max_line=10) as bot:
        await answer_waiting(bot)
        with pytest.raises(BotFault) as fault, trio.CancelScope() as scope:
            await bot.exchange(b"go\n", scope, trio.current_time() + 5)
        assert fault.value.kind == "malformed"
        assert "longer than 10 bytes" in fault.value.reason


async def test_a_request_longer_than_the_pipe_is_written_whole() -> None:
    """A 1 MiB line fills the pipe: the rest is written by trio as the bot reads it."""
    count = [sys.executable, "-c", "import sys; print(len(sys.stdin.buffer.readline()))"]
    request = b"x" * (1 << 20) + b"\n"
    async with running(count) as bot:
        with trio.CancelScope() as scope:
            line, _ = await bot.exchange(request, scope, trio.current_time() + 10)
        assert line == str(len(request)).encode()


async def test_a_bot_that_has_exited_is_a_crash() -> None:
    async with running(["true"]) as bot:
        assert bot.process is not None
        with trio.fail_after(5):
            await bot.process.wait()
        with pytest.raises(BotFault) as fault, trio.CancelScope() as scope:
            await bot.exchange(b"go\n", scope, trio.current_time() + 5)
        assert fault.value.kind == "crash"
        assert fault.value.reason == "stopped reading its input and exited with status 0"


async def test_a_bot_that_closes_its_output_without_answering_is_a_crash() -> None:
    closer = ["sh", "-c", "exec >&-; exec cat >/dev/null"]
    async with running(closer) as bot:
        with pytest.raises(BotFault) as fault, trio.CancelScope() as scope:
            await bot.exchange(b"go\n", scope, trio.current_time() + 5)
        assert fault.value.kind == "crash"
        assert fault.value.reason == "closed its output before answering"
