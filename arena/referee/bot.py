"""One bot process: spawn it in its own process group, exchange lines, enforce deadlines, kill.

The referee never blocks on a bot: its output is read while the referee waits for it, so a
dead bot is noticed at once (end of file) and a silent one only costs its deadline. Lines
are capped in size and stderr is kept to a bound. No process of a bot outlives its game: a
sandboxed bot lives in its own PID namespace, which ends with it; an unsandboxed one carries
a mark by which every process it started is found and ended (`arena.referee.processes`). A sandboxed
bot's memory is watched as a whole, all its processes together.

How to start a bot (`BotSpec`) and its folder's `bot.toml` and build are in
`arena.referee.folders`.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import os
import select
import signal
from collections import deque
from collections.abc import Callable
from typing import NoReturn

import trio

from arena.games.text import counted
from arena.referee import memory, processes
from arena.referee.faults import (
    IN_SANDBOX,
    INPUT_CLOSED,
    LINE_TOO_LONG,
    NOT_STARTED,
    BotFault,
)
from arena.referee.folders import BotSpec
from arena.referee.programs import ProgramError
from arena.referee.sandbox import (
    MIB,
    SandboxUnavailable,
    active,
    launch,
    launcher_error,
    wrap,
)
from arena.referee.spawn import Child, NoResources, spawn, spawn_moved, spawn_soon
from protocol.messages import MAX_LINE_BYTES

STDERR_LIMIT = 64 * 1024
MEMORY_POLL = 0.1  # seconds between two looks at a sandboxed bot's memory
MEMORY_SHARE = 0.1  # the share of the referee's time that watching one bot's memory may take
SPAWN_TRIES = 12  # a start that fails for the referee's lack of resources is tried again
READ_SIZE = 65536  # bytes asked of the bot's output per read
#: Seconds the bots' exchanges may run without once letting the referee's other tasks run
#: (other games, stderr readers, memory watches): the fast path (`BotProcess.exchange`) does
#: not yield to trio when the pipe is ready at once, nor while it waits for an answer in the
#: kernel on one CPU, so after this long it yields anyway. Another game's bot whose answer
#: waits meanwhile is read (and its clock stopped) up to this much later: about what one
#: decision with a long legal list keeps the loop busy anyway. Counted per bot, or once
#: for all the bots of a game that the trio run plays alone (`_Turn`).
FAIR_SHARE = 0.001
_SELECT_LIMIT = 1024  # select.select takes descriptors below FD_SETSIZE only
_LIMIT_SIGNALS = {
    "SIGXCPU": " (its CPU time limit in the sandbox)",
    "SIGXFSZ": " (its file size limit in the sandbox)",
}


class BotProcess:
    """A running bot: lines in and out with deadlines, stderr kept, killed as a group."""

    def __init__(
        self,
        spec: BotSpec,
        *,
        max_line: int = MAX_LINE_BYTES,
        stderr_limit: int = STDERR_LIMIT,
        hide: tuple[str, ...] = (),
    ) -> None:
        self.spec = spec
        self.max_line = max_line
        self.stderr_limit = stderr_limit
        self.hide = hide  # paths a sandbox must not show this bot (see arena.referee.sandbox.wrap)
        self.sandboxed = False
        self.process: Child | None = None
        self.violation: BotFault | None = None  # a limit it broke while nobody asked it
        self.on_violation: Callable[[BotFault], None] | None = None
        self._stderr = bytearray()
        self._stderr_dropped = 0
        self._stderr_closed = trio.Event()
        self._lines: deque[tuple[bytes, float]] = deque()  # read, not yet asked for
        self._partial = bytearray()
        self._eof = False
        self._too_long = False
        # The pipes' descriptors, read once (`exchange` uses them at every decision); -1 before
        # the start and once closed. `_poll` watches the output for `pending`.
        self._in = self._out = self._err = -1
        self._poll = select.poll()
        self._read: Callable[[int], bytes | None] = _nothing_read  # the output's, non-blocking
        self._sent = 0  # what `exchange_at_once` wrote, and whether it read an answer
        self.writing = False  # a line is being written that the bot has not read all of yet
        self._read_at_once = False
        # When trio last ran while this bot was asked (`_own`), or any bot of the run (`_shared`,
        # once started: `_run_turn`); FAIR_SHARE counts from the one `exchange_at_once` uses.
        self._own = self._shared = self._turn = _Turn()
        self._now: Callable[[], float] = trio.current_time  # (the run's own clock, once started)
        self._one_cpu = False
        self.killed = False
        self.mark = ""  # unsandboxed: the mark in its environment (arena.referee.processes)
        self._orphans: list[int] = []  # its orphans killed, to reap

    # -- life cycle ------------------------------------------------------------
    async def start(self, nursery: trio.Nursery) -> None:
        """Spawn the process in a new session (its own process group), inside its sandbox if
        it has one, else marked (`arena.referee.processes`); raise a startup fault, or NoResources
        when the referee lacked the means to start it (not the bot's fault)."""
        self._now = trio.lowlevel.current_clock().current_time  # trio.current_time, directly
        self._own = self._turn = _Turn(self._now())
        self._shared = _run_turn(self._now)
        self._one_cpu = len(os.sched_getaffinity(0)) == 1
        spec = self.spec
        argv, cwd, env = spec.argv(), spec.cwd, {**os.environ, **spec.env}
        try:
            self.sandboxed = active(spec.sandbox)
        except SandboxUnavailable as exc:
            raise BotFault("startup", f"{NOT_STARTED}: {exc}") from None
        if self.sandboxed:
            assert spec.sandbox is not None
            try:
                argv, env = wrap(
                    argv,
                    cwd=cwd,
                    config=spec.sandbox,
                    folder=spec.folder,
                    env=spec.env,
                    hide=self.hide,
                )
            except ProgramError as exc:
                raise BotFault("startup", f"{IN_SANDBOX}: {exc}") from None
            argv, options = launch(argv)
            start = functools.partial(spawn_moved, argv, env=env, options=options)
        else:
            self.mark = env[processes.MARK] = processes.new_mark()
            start = functools.partial(spawn, argv, cwd=cwd, env=env)
            options = None
        try:
            self.process = await _spawn_retrying(start)
        except OSError as exc:
            why = f"{argv[0]!r}: {exc.strerror or exc}"
            raise BotFault("startup", f"{NOT_STARTED} ({why})") from None
        finally:
            if options is not None:
                os.close(options)
        proc = self.process
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._in, self._out, self._err = (
            proc.stdin.fileno(),
            proc.stdout.fileno(),
            proc.stderr.fileno(),
        )
        self._poll.register(self._out, select.POLLIN)
        self._read = io.FileIO(self._out, "rb", closefd=False).read
        nursery.start_soon(self._drain_stderr)
        if self.sandboxed and spec.sandbox is not None:
            nursery.start_soon(self._watch_memory, spec.sandbox.memory_mb)
        processes.keep_reaping()  # (once the referee is a subreaper, orphans come to it)

    def kill(self) -> None:
        """End the bot and every process it started. Safe to call twice.

        A sandboxed bot's group is killed outright (its PID namespace dies with it); for an
        unsandboxed one, its tree and its marked orphans too (`arena.referee.processes`)."""
        proc = self.process
        if proc is None or self.killed:
            return
        self.killed = True
        if self.sandboxed:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        else:
            self._orphans = processes.end_tree(proc.pid, self.mark)
        proc.kill()

    async def _watch_memory(self, limit_mb: int) -> None:
        """Kill the bot when all its processes together hold more than `limit_mb` MiB of
        memory, its memory files included (`arena.referee.memory`; the sandbox's
        per-process limit alone lets a bot of many processes, or of memory files, take the
        machine): a `memory` fault. A long look (a bot of many processes holding many
        descriptors) lets the referee's other tasks run as it goes, and is followed by a
        longer wait: the watch takes at most MEMORY_SHARE of the referee's time. The first
        look comes MEMORY_POLL after the start (the bot's own start-up is not slowed by it)."""
        assert self.process is not None
        held = memory.BotMemory(self.process.pid)
        limit = limit_mb * MIB
        while True:
            await trio.sleep(max(MEMORY_POLL, held.spent / MEMORY_SHARE - held.spent))
            if self.killed or self.process.returncode is not None:
                return
            used = await held.look(limit)
            if used.total > limit and not self.killed:
                files = ""
                if used.resident - used.mapped <= limit:  # its memory files put it over
                    files = (
                        f" ({used.files / MIB:.0f} MiB of it in memory files: memfd, "
                        "/dev/shm, /tmp, $HOME)"
                    )
                fault = BotFault(
                    "memory",
                    memory.over_limit(used.total, limit_mb) + files,
                )
                self.violation = fault
                self.kill()
                if self.on_violation is not None:
                    self.on_violation(fault)
                return

    async def close(self, grace: float = 0.0) -> None:
        """Give the bot `grace` seconds to exit by itself, then kill its group and reap it."""
        proc = self.process
        if proc is None:
            return
        with trio.CancelScope(shield=True):
            if grace > 0 and not self.killed:
                with trio.move_on_after(grace):
                    await proc.wait()
            self.kill()
            with trio.move_on_after(5):
                await proc.wait()
            if proc.returncode is None:  # (not dead yet after a SIGKILL: reaped later)
                processes.abandon(proc.pid)
            with trio.move_on_after(1):  # the orphans killed are ours to reap
                while self._orphans:
                    self._orphans = processes.reap(self._orphans)
                    await trio.sleep(0.005 if self._orphans else 0)
            processes.reap_orphans()  # (and those that ended by themselves)
            self._in = self._out = self._err = -1  # (their numbers may be reused once closed)
            self._poll = select.poll()
            self._read = _nothing_read
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                    await stream.aclose()
            proc.close_pidfd()

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.returncode

    def stderr_text(self) -> str:
        text = self._stderr.decode("utf-8", "replace")
        if self._stderr_dropped:
            text += f"\n[... {counted(self._stderr_dropped, 'more byte')} of stderr dropped]"
        return text

    # -- background readers ------------------------------------------------------
    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        stream = self.process.stderr
        try:
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                while chunk := await stream.receive_some(65536):
                    room = self.stderr_limit - len(self._stderr)
                    if room > 0:
                        self._stderr += chunk[:room]
                    self._stderr_dropped += max(0, len(chunk) - max(room, 0))
        finally:
            self._stderr_closed.set()

    # -- the exchange ---------------------------------------------------------------
    def _exit_reason(self) -> str:
        """How the bot ended, as a phrase after its name, once its output is at its end: its
        exit, or, still running, that it closed its output (`_input_closed` says otherwise)."""
        code = self.returncode
        if code is None:
            return "closed its output"
        if code != 0 and (why := launcher_error(self.stderr_text())) is not None:
            return f"{IN_SANDBOX} ({why})"
        if self.sandboxed and code > 128:  # bwrap reports death by signal N as 128 + N
            code = 128 - code
        if code < 0:
            with contextlib.suppress(ValueError):
                name = signal.Signals(-code).name
                return f"was killed by {name}{_LIMIT_SIGNALS.get(name, '')}"
        return f"exited with status {code}"

    async def _exited(self) -> None:
        """Wait a little for the process to end (and, sandboxed, for its stderr to be read to the
        end: it may hold the sandbox's reason)."""
        assert self.process is not None
        with trio.move_on_after(0.5):
            await self.process.wait()
            await self._stderr_closed.wait()  # it may hold the reason (the sandbox's)

    async def send(self, line: bytes) -> None:
        """Write one line (the caller sets the deadline); a closed pipe is a crash."""
        assert self.process is not None and self.process.stdin is not None
        self.writing = True
        try:
            await self.process.stdin.send_all(line)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._input_closed()
        self.writing = False

    async def _input_closed(self) -> NoReturn:
        """The bot's input is closed: raise its fault, saying how it ended (most likely it
        exited), or that it closed its input and is still running."""
        await self._exited()
        if self.violation is not None:
            raise self.violation from None
        if self.returncode is None:  # (its output may well be open)
            raise BotFault("crash", INPUT_CLOSED) from None
        why = self._exit_reason()
        if why.startswith(NOT_STARTED):
            raise BotFault("crash", why) from None
        raise BotFault("crash", f"stopped reading its input and {why}") from None

    async def exchange(
        self,
        line: bytes | bytearray,
        scope: trio.CancelScope,
        deadline: float,
        now: float | None = None,
        alone: bool = True,
    ) -> tuple[bytes, float]:
        """`send` the line, then `receive` the answer, under the caller's cancel `scope`, which
        is to end at `deadline` (trio time): the referee's clock for one decision. The same
        faults, line framing and limits, deadline and cancellation as `send` and `receive`;
        cheaper.

        trio's streams begin every send and every receive with a checkpoint, a pass of its
        scheduler that costs more than the round trip itself, and moving a scope's deadline
        costs about as much as encoding the request. Here the line is written with `os.write`
        and the answer read with `os.read` at once (the pipes are non-blocking). trio is
        waited on only when a pipe is not ready (`send_all` for the rest of the line when the
        pipe is full, `wait_readable` while there is no answer yet), and only then is `scope`
        given `deadline`, before anything lets trio run: trio expires deadlines only when it
        runs, so until then the scope may keep an older one. What the skipped checkpoints did
        is done here: nothing is written once the scope is cancelled or `deadline` has
        passed, and an answer read at once at or after `deadline` is kept for `receive` while
        a checkpoint raises Cancelled, so a late answer is a timeout with its overrun, as
        before. An answer read at once lets the other tasks run (a schedule point) when they
        have not run for FAIR_SHARE seconds while bots were asked (`_Turn`; `alone`: see
        `exchange_at_once`). `now`, the trio time if the caller has just read it, saves
        reading it again.

        When the referee may run on one CPU only (its affinity, which the bot inherits), the
        bot cannot answer before the referee gives up that CPU: an answer not there at once is
        first waited for in the kernel (`_wait_briefly`), which hands the CPU straight to the
        bot, rather than through trio, whose scheduler pass costs several round trips; that
        wait ends by `deadline` and by the end of the fair share, so other tasks wait no
        longer than they would for an answer read at once. The game loop does so only while
        its game is the only one the run plays (`alone`)."""
        if (self._now() if now is None else now) >= deadline:
            scope.deadline = deadline
            await trio.lowlevel.checkpoint()  # raises Cancelled, as send_all's own would
        await trio.lowlevel.checkpoint_if_cancelled()
        answer = self.exchange_at_once(line, deadline, alone)
        if answer is None:
            answer = await self.exchange_rest(line, scope, deadline)
        return answer

    def exchange_at_once(
        self, line: bytes | bytearray, deadline: float, alone: bool = True
    ) -> tuple[bytes, float] | None:
        """The part of `exchange` that trio need not run, for a caller that has done what
        `exchange` does first (checked that `deadline` has not passed and let a cancelled
        scope raise): write the line, read the answer if it is there at once (or, on one
        CPU, comes during `_wait_briefly`), and return it when it came before `deadline`
        and the fair share is not spent. Otherwise None, and `exchange_rest` must follow
        (with the same line, under the scope that is to end at `deadline`).

        `alone` says that the caller's game is the only one its trio run is playing. Only
        then is an answer waited for in the kernel (while the loop waits there for this bot,
        another game's answer that has come would wait too; through trio it is read as soon
        as it comes), and the fair share counted once for all the run's bots (`_shared`: it
        is there for the other tasks of the run, whichever bot the game asks). With other
        games, it is counted for each bot (`_own`), which lets trio run more often: the
        games' turns interleave as finely as they did before the share was shared."""
        turn = self._turn = self._shared if alone else self._own
        try:
            sent = os.write(self._in, line)
        except OSError:  # full, or closed or broken: trio's stream finds which, later
            sent = 0
        if sent == len(line) and not (self._lines or self._eof or self._too_long):
            try:  # (None, not BlockingIOError, when there is nothing yet: raising costs more)
                chunk = self._read(READ_SIZE)
            except OSError:  # broken: reading after trio's wait says how
                chunk = None
            if chunk is None and alone and self._one_cpu:
                chunk = self._wait_briefly(deadline)
            if chunk:
                at = self._now()
                end = len(chunk) - 1
                if chunk.find(b"\n") == end and not self._partial:
                    # one whole line, the usual answer: `_absorb`, shortened
                    if end > self.max_line:
                        self._too_long = True
                    elif at < deadline and at - turn.at < FAIR_SHARE:
                        return chunk[:end], at
                    else:
                        self._lines.append((chunk[:end], at))
                else:
                    self._absorb(chunk, at)
                self._sent, self._read_at_once = sent, bool(self._lines)
                return None
            if chunk is not None:
                self._eof = True
        self._sent, self._read_at_once = sent, False
        return None

    async def exchange_rest(
        self, line: bytes | bytearray, scope: trio.CancelScope, deadline: float
    ) -> tuple[bytes, float]:
        """What `exchange` does through trio after `exchange_at_once` returned None."""
        if self._read_at_once:  # an answer, read late, or with the fair share spent
            at = self._lines[0][1]
            if at >= deadline:  # read late: kept, and the deadline takes its course
                scope.deadline = deadline
                await trio.lowlevel.checkpoint()
            elif at - self._turn.at >= FAIR_SHARE:
                # The answer is in hand, before its deadline: no deadline while the other tasks
                # run, not this one (a task holding the loop past it would leave the scope
                # cancelled for the next decision, charging its bot a timeout) nor an older one.
                scope.deadline = math.inf
                await trio.lowlevel.cancel_shielded_checkpoint()
                self._own.at = self._shared.at = self._now()
            return self._lines.popleft()
        scope.deadline = deadline  # trio may run from here on: it must see this deadline
        sent = self._sent
        if sent < len(line):  # trio writes the rest as the pipe drains, or says why it cannot
            assert self.process is not None and self.process.stdin is not None
            self.writing = True  # (still so if the deadline ends the wait: it did not read)
            try:
                # (a copy: a view would pin a reused buffer's size while trio holds it)
                await self.process.stdin.send_all(line[sent:])
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                await self._input_closed()
            self.writing = False
        return await self._receive(waiting=True)

    def _wait_briefly(self, deadline: float) -> bytes | None:
        """Wait in the kernel, not through trio, for the bot's output, until `deadline` or the
        end of the fair share (FAIR_SHARE after trio last ran while a bot was asked), and read
        it; None if nothing came meanwhile, or if the bot wrote to its stderr first (trio then
        lets the stderr reader empty the pipe, which a bot writing much may be waiting on), or
        if a descriptor is beyond `select`'s reach."""
        wait = min(self._turn.at + FAIR_SHARE, deadline) - self._now()
        out, err = self._out, self._err
        if wait <= 0 or not (0 <= out < _SELECT_LIMIT and 0 <= err < _SELECT_LIMIT):
            return None
        try:
            if out not in select.select([out, err], [], [], wait)[0]:
                return None
            return self._read(READ_SIZE)
        except OSError:  # (broken: trio's wait and the read after it say how)
            return None

    def _absorb(self, chunk: bytes, at: float) -> None:
        """Split what the bot wrote into lines; a line over the cap stops all reading."""
        start = 0
        while (nl := chunk.find(b"\n", start)) >= 0:
            if self._partial:
                self._partial += chunk[start:nl]
                line = bytes(self._partial)
                self._partial.clear()
            else:
                line = chunk[start:nl]
            if len(line) > self.max_line:
                self._too_long = True
                return
            self._lines.append((line, at))
            start = nl + 1
        self._partial += chunk[start:]
        if len(self._partial) > self.max_line:
            self._too_long = True

    def pending(self) -> bool:
        """Whether the bot has written a line that no request asked for (reads without waiting)."""
        if self._lines:
            return True
        if not self._poll.poll(0):  # nothing written, the usual case: one cheap syscall
            return False
        while not (self._lines or self._eof or self._too_long):
            try:
                chunk = self._read(READ_SIZE)  # (None: nothing more there)
            except OSError:
                chunk = b""
            if chunk is None:
                break
            self._take(chunk, self._now())
        return bool(self._lines)

    async def receive(self) -> tuple[bytes, float]:
        """The next line and the trio time it arrived; faults on EOF or an over-long line.

        Reading happens here, while the referee waits for this bot (under its deadline),
        so an exited bot is noticed at once (end of file) and nothing is read that nobody
        asked for."""
        return await self._receive(waiting=False)

    async def _receive(self, *, waiting: bool) -> tuple[bytes, float]:
        """`receive`, through trio's stream; or, `waiting` (for `exchange`, which has just
        found the pipe empty), waiting for the pipe with trio and then reading it directly."""
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        while True:
            if self._lines:
                return self._lines.popleft()
            if self._too_long:
                raise BotFault("malformed", f"{LINE_TOO_LONG} {self.max_line} bytes")
            if self._eof:
                await self._exited()
                if self.violation is not None:
                    raise self.violation
                why = self._exit_reason()
                if why.startswith(NOT_STARTED):
                    raise BotFault("crash", why)
                raise BotFault("crash", f"{why} before answering")
            if waiting:
                chunk = await self._wait_and_read(stream.fileno())
                self._own.at = self._shared.at = self._now()
            else:
                try:
                    chunk = await stream.receive_some(READ_SIZE)
                except (trio.ClosedResourceError, trio.BrokenResourceError):
                    chunk = b""
            self._take(chunk, self._now())

    @staticmethod
    async def _wait_and_read(fd: int) -> bytes:
        """Wait with trio until `fd` is readable (a checkpoint: the deadline and cancellation
        act here), then read it; empty at the end of the bot's output, or when the pipe is
        closed or broken (as for trio's stream)."""
        while True:
            try:
                await trio.lowlevel.wait_readable(fd)
            except trio.ClosedResourceError:
                return b""
            try:
                return os.read(fd, READ_SIZE)
            except BlockingIOError:
                continue
            except OSError:
                return b""

    def _take(self, chunk: bytes, at: float) -> None:
        """What one read gave: lines (`_absorb`), or, empty, the end of the bot's output."""
        if chunk:
            self._absorb(chunk, at)
        else:
            self._eof = True


def _nothing_read(size: int) -> bytes | None:
    """The read of a bot process not started, or closed: nothing there yet."""
    return None


class _Turn:
    """When trio last ran while a bot was asked (trio time): FAIR_SHARE counts from it. Each
    bot process has its own, and shares one with every bot of its trio run (`_run_turn`),
    which a game playing alone counts from: its task holds the loop whichever of its bots it
    asks, and a turn per bot would let trio run once a millisecond per seat, where once a
    millisecond is the rule."""

    __slots__ = ("at",)

    def __init__(self, at: float = -math.inf) -> None:
        self.at = at


_TURN: trio.lowlevel.RunVar[_Turn] = trio.lowlevel.RunVar("arena_bot_turn")


def _run_turn(now: Callable[[], float]) -> _Turn:
    """This trio run's `_Turn`, made (counting from `now`) by the first bot started in it."""
    try:
        return _TURN.get()
    except LookupError:
        turn = _Turn(now())
        _TURN.set(turn)
        return turn


async def _spawn_retrying(start: Callable[[], Child]) -> Child:
    """`spawn`, tried again for a while when the referee lacks descriptors or processes
    (other games end and free theirs); NoResources if it never could."""
    delay = 0.05
    for attempt in range(SPAWN_TRIES):
        try:
            return await spawn_soon(start)
        except NoResources:
            if attempt == SPAWN_TRIES - 1:
                raise
        await trio.sleep(delay)
        delay = min(1.0, delay * 2)
    raise AssertionError("unreachable")
