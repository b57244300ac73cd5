"""The referee: one game between bot processes, on trio.

Each bot gets only messages built from its own seat's observation. Every
fault is typed (see `arena.referee.bot.FaultKind`) and has one policy: the bot is
killed, its seat is played on by a seeded random fallback so that the other
bots' game finishes, and it is ranked last (in a 2-player game: it loses).
Whatever happens, every bot's process group is killed before `play_game` returns.
"""

from __future__ import annotations

import contextlib
import functools
import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, Protocol

import msgspec
import trio

from arena.games import GameState, IllegalAction, OptionsInput, get_ruleset
from arena.games.base import Action, Audience, describe
from arena.games.text import counted
from arena.referee.bot import STDERR_LIMIT, BotProcess
from arena.referee.clock import MARGIN_MS, Clock, Deadline
from arena.referee.faults import (
    HELLO_ANSWER,
    HELLO_LATE,
    NOT_A_MESSAGE,
    NOT_READY,
    BotFault,
    FaultKind,
)
from arena.referee.folders import BotSpec
from arena.referee.records import Fault, GameRecord, Move, SeatRecord
from arena.referee.sandbox import hidden
from arena.referee.spawn import NoResources
from arena.referee.text import plain
from arena.referee.trace import Trace, TracedBotProcess
from protocol.messages import (
    MAX_LINE_BYTES,
    PROTOCOL_VERSION,
    Choice,
    GameOver,
    Hello,
    Limits,
    Ready,
    Request,
    bot_decoder,
    encode_line,
)


class RefereeConfig(msgspec.Struct, frozen=True):
    """Clock and bounds for one game, and what its bots may learn."""

    limits: Limits = Limits(startup_ms=10_000, move_ms=1_000)
    # an answer read this long past its allowance is still taken (`arena.referee.clock.Deadline`)
    margin_ms: int = MARGIN_MS
    late_grace_ms: int = 500  # how long to wait past a deadline to measure a late reply
    exit_grace_ms: int = 200  # how long a bot may take to exit after game_over
    max_line: int = MAX_LINE_BYTES
    stderr_limit: int = STDERR_LIMIT
    # game_over tells the seed; not where the same deal is played again (tournaments, matches)
    reveal_seed: bool = True
    # paths no sandboxed bot may see, even inside a folder it is shown (results, the
    # tournament file, a record file); other bots' files are hidden from each bot as well
    private: tuple[str, ...] = ()


class Connection(Protocol):
    """What the referee needs of a bot; `BotProcess` is the real one."""

    spec: BotSpec

    async def start(self, nursery: trio.Nursery) -> None: ...
    async def send(self, line: bytes) -> None: ...
    async def receive(self) -> tuple[bytes, float]: ...
    def pending(self) -> bool: ...
    def kill(self) -> None: ...
    async def close(self, grace: float = 0.0) -> None: ...
    def stderr_text(self) -> str: ...


Observer = Callable[[GameState[Any, Any], list[tuple[Audience, msgspec.Struct]]], None]
#: hears each fault as it is charged (before the fallback's first move for that seat)
OnFault = Callable[[Fault], None]


def ranks_with_faults(game_ranks: Sequence[int], faulted: set[int]) -> list[int]:
    """Faulting seats share the last place; the others keep their order among themselves.
    Alone against a dummy (a solo ruleset), a faulting bot loses: rank 2."""
    if len(game_ranks) == 1:
        return [2] if faulted else list(game_ranks)
    ok = [s for s in range(len(game_ranks)) if s not in faulted]
    ranks = [len(ok) + 1] * len(game_ranks)
    for s in ok:
        ranks[s] = 1 + sum(1 for o in ok if game_ranks[o] < game_ranks[s])
    return ranks


def fallback_rng(seed: int) -> random.Random:
    """The generator of fallback moves; derived from the game seed, so records replay."""
    return random.Random(f"arena-fallback:{seed}")


class _Game:
    """The state of one refereed game: the rules state, the connections, the record."""

    def __init__(
        self,
        ruleset_id: str,
        conns: Sequence[Connection],
        options: OptionsInput,
        seed: int,
        config: RefereeConfig,
        observer: Observer | None,
        on_fault: OnFault | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.ruleset = get_ruleset(ruleset_id)
        self.options: msgspec.Struct = self.ruleset.options(options)
        self.state = self.ruleset.new_game(len(conns), self.options, seed)
        self.seed = seed
        self.conns = list(conns)
        self.config = config
        self.observer = observer
        self.on_fault = on_fault
        self.trace = trace
        self.decoder: msgspec.json.Decoder[Ready | Choice[Action]] = bot_decoder(
            self.ruleset.action_type
        )
        self.fallback = fallback_rng(seed)
        n = len(conns)
        self.cursor = [0] * n
        self.clocks = [Clock(config.limits) for _ in range(n)]
        self.out: set[int] = set()
        self.faults: list[Fault] = []
        # The record's moves, kept in their cheapest form while the game runs (`moves` makes
        # them at its end): the time each decision's bot had, unrounded, and which decisions
        # the fallback made. The seat and action of each are the state's history.
        self.times: list[float] = []
        self.fallbacks: set[int] = set()
        self.decision = 0
        # The most decisions its rules allow (docs/rules.md): past it the rules are broken,
        # and the game is ended as a referee error rather than run for ever.
        self.bound = self.ruleset.max_decisions(n, self.options)
        self.error: str | None = None
        self._seen = 0
        self.margin = config.margin_ms
        self.asking = Deadline(0, 0.0, math.inf, 0.0)  # the decision being asked
        self.playing = False  # past the handshake
        self.suspended = False  # whether this task waited since it last checked for a cancel
        self.now: Callable[[], float] = trio.current_time  # (the run's clock itself, in `play`)
        # Looked up once for `play`, whose loop runs once a decision:
        self.processes = [c if isinstance(c, BotProcess) else None for c in self.conns]
        self.encode_into = msgspec.json.Encoder().encode_into
        #: answers seen that chose an index, line by line (`action_of`)
        self.known_answers: dict[bytes, int] = {}
        self.buffer = bytearray()  # every request of the game to a bot process, in turn
        first = self.clocks[0] if n else Clock(config.limits)
        #: without bank or increment, every request's clock: (allowance, time_ms, bank_ms)
        self.fixed_clock: tuple[float, int, int] | None = (
            None
            if first.uses_bank
            else (first.allowance(), _whole_ms(first.allowance()), _whole_ms(first.bank))
        )

    # -- faults ----------------------------------------------------------------
    def fault(self, seat: int, exc: BotFault | IllegalAction, decision: int | None) -> None:
        """Record the fault (its reason made safe to show and bounded), kill the bot and put
        its seat out. A seat already out is left as it is: the first fault stands."""
        if seat in self.out:
            return
        kind: FaultKind
        if isinstance(exc, IllegalAction):
            kind, overrun = "illegal", None
            reason = f"sent an illegal action {_shorten(describe(exc.action))}: {exc.reason}"
        else:
            kind, reason, overrun = exc.kind, exc.reason, exc.overrun_ms
        fault = Fault(seat, self.conns[seat].spec.name, kind, decision, bounded(reason), overrun)
        self.faults.append(fault)
        self.out.add(seat)
        self.conns[seat].kill()
        if self.trace is not None:
            self.trace.fault(seat, kind, fault.sentence())
        if self.on_fault is not None:
            self.on_fault(fault)

    def violated(self, seat: int, fault: BotFault) -> None:
        """A bot broke a limit (its memory) and was killed. During the handshake or its own
        decision, that is its fault now; otherwise it is found at its next decision (or,
        if none comes, at the end: `unnoticed`)."""
        if not self.playing:
            self.fault(seat, fault, None)
        elif self.state.current_player == seat:
            self.fault(seat, fault, self.decision)

    def unnoticed(self) -> None:
        """Faults of bots killed for a limit after their last decision."""
        for seat, conn in enumerate(self.conns):
            violation = getattr(conn, "violation", None)
            if violation is not None and seat not in self.out:
                self.fault(seat, violation, None)

    # -- handshake -----------------------------------------------------------------
    async def handshake(
        self, nursery: trio.Nursery, seat: int, limiter: trio.CapacityLimiter | None
    ) -> None:
        if limiter is None:
            await self._handshake(nursery, seat)
        else:
            async with limiter:  # throttle process start-ups across concurrent games
                await self._handshake(nursery, seat)

    async def _handshake(self, nursery: trio.Nursery, seat: int) -> None:
        conn = self.conns[seat]
        limits = self.config.limits
        deadline = trio.current_time() + (limits.startup_ms + self.margin) / 1000
        hello = Hello(
            protocol=PROTOCOL_VERSION,
            ruleset=self.ruleset.id,
            options=msgspec.to_builtins(self.options),
            seat=seat,
            players=len(self.conns),
            limits=limits,
        )
        try:
            await conn.start(nursery)
            with trio.move_on_at(deadline) as scope:
                await conn.send(encode_line(hello))
                line, at = await conn.receive()
            if scope.cancelled_caught or at > deadline:  # (read late: judged by when it was read)
                raise BotFault("startup", f"{HELLO_LATE} {limits.startup_ms} ms")
            msg = self.decode(line, HELLO_ANSWER)
            if not isinstance(msg, Ready):
                raise BotFault("startup", NOT_READY)
        except BotFault as exc:
            if exc.kind != "startup":  # during the handshake, every fault is a start-up fault
                exc = BotFault("startup", exc.reason)
            self.fault(seat, exc, None)

    def decode(self, line: bytes, sent: str = "sent") -> Ready | Choice[Action]:
        """A bot's line as a message; anything wrong with it, whatever msgspec raises (a
        RecursionError for deep nesting included), is the bot's malformed or schema fault."""
        kind: FaultKind
        try:
            line.decode()  # msgspec checks only the strings it keeps; the protocol is UTF-8
            return self.decoder.decode(line)
        except UnicodeDecodeError as exc:
            kind, why = "malformed", f"which is not UTF-8 (at byte {exc.start})"
        except msgspec.ValidationError as exc:
            # The decoder stops at the first value of a wrong type, before reading what follows
            # (`[/]`: an array, where an object is due): whether the line is JSON at all comes
            # first. Read as raw JSON, it is read to its end (the numbers' size unchecked).
            try:
                msgspec.json.decode(line, type=msgspec.Raw)
                kind, why = "schema", f"{NOT_A_MESSAGE}: {exc}"
            except Exception as bad:
                kind, why = _unreadable(bad)
        except Exception as exc:  # nothing a bot writes may stop the game
            kind, why = _unreadable(exc)
        raise BotFault(kind, f"{sent} {_snippet(line)}, {why}")

    # -- one decision --------------------------------------------------------------------
    # A decision asked of a bot process is written out in `play`, where it runs once a
    # decision; `ask_connection` asks any other `Connection`.

    async def unrequested(self, seat: int, conn: Connection, clock: trio.CancelScope) -> NoReturn:
        """The bot has written a line that no request asked for (`Connection.pending`): its
        fault, raised with the line, under the decision's deadline (what waits may be the end
        of its output, when it exited: `receive` says which)."""
        allowance = self.clocks[seat].allowance()
        asking = self.asking = Deadline(seat, self.now(), allowance, self.margin)
        clock.deadline = asking.limit
        self.suspended = True
        line, _ = await conn.receive()
        raise _unasked(line)

    async def ask_connection(
        self, seat: int, legal: list[Action], clock: trio.CancelScope
    ) -> tuple[Action | _ByValue, float]:
        """Send this seat its request and read the answer, under `clock`'s deadline, through
        a `Connection` that is not a bot process (an in-process bot): its own `send` and
        `receive`, under the deadline set before anything is sent."""
        conn = self.conns[seat]
        state = self.state
        clock_of_seat = self.clocks[seat]
        if conn.pending():
            await self.unrequested(seat, conn, clock)
        allowance = clock_of_seat.allowance()
        asking = self.asking = Deadline(seat, self.now(), allowance, self.margin)
        clock.deadline = asking.limit
        events = state.events_for(seat, self.cursor[seat])
        self.cursor[seat] = state.event_count
        request = Request(
            decision=self.decision,
            observation=state.observation(seat),
            actions=legal,
            events=events,
            time_ms=_whole_ms(allowance),  # whole ms, as every clock field
            bank_ms=_whole_ms(clock_of_seat.bank),
        )
        start = asking.start = self.now()  # the bot's time runs from here
        await conn.send(encode_line(request))
        line, at = await conn.receive()
        if at < start:  # read before the request was sent: an extra line, not the answer
            raise _unasked(line)
        elapsed = asking.judge(at)
        clock_of_seat.spent(elapsed)
        return self.choice(self.decode(line), legal), elapsed

    def action_of(self, line: bytes, legal: list[Action]) -> Action | _ByValue:
        """The action a bot process's answer chose (`decode`, then `choice`). A line that
        chose an index is remembered (`known_answers`, up to KNOWN_ANSWERS lines a game): the
        same bytes decode the same way, so the next time it comes, only the range of its index
        is left to check. A bot answers in one form, so a few lines serve a whole game."""
        msg = self.decode(line)
        action = self.choice(msg, legal)
        known = self.known_answers
        if type(msg) is Choice and msg.index is not None and len(known) < KNOWN_ANSWERS:
            known[line] = msg.index
        return action

    @staticmethod
    def choice(msg: Ready | Choice[Action], legal: list[Action]) -> Action | _ByValue:
        """The action a bot's answer chose: an offered one (by index), or one it sent by value
        (`_ByValue`, which the rules check when it is applied)."""
        if type(msg) is not Choice:
            raise BotFault("schema", "sent ready when an action was due")
        index, action = msg.index, msg.action
        if (index is None) == (action is None):
            which = "neither index nor action" if index is None else "both index and action"
            raise BotFault(
                "schema", f"sent an action with {which}; give exactly one of index or action"
            )
        if index is not None:
            if not 0 <= index < len(legal):
                offered = f"{counted(len(legal), 'action')} {'was' if len(legal) == 1 else 'were'}"
                raise IllegalAction({"index": index}, f"index out of range: {offered} offered")
            return legal[index]
        assert action is not None  # (exactly one of the two, as checked above)
        return _ByValue(action)

    async def timed_out(self) -> BotFault:
        """The bot being asked missed its deadline: wait a little longer to measure by how
        much (the overrun), then return the fault. A late answer is never used."""
        asking = self.asking
        conn, grace = self.conns[asking.seat], self.config.late_grace_ms
        if getattr(conn, "writing", False):  # its request was never all written
            return BotFault(
                "timeout",
                f"did not read its input: its request could not be written within its "
                f"{asking.allowance:.0f} ms (the pipe to it stayed full)",
            )
        with trio.move_on_at(asking.limit + grace / 1000):
            try:
                _, at = await conn.receive()
            except BotFault as exc:
                return exc
            return asking.late(max(at, asking.limit))
        return BotFault(
            "timeout",
            f"did not answer within {asking.allowance:.0f} ms (waited {grace} ms more)",
        )

    def notify(self) -> None:
        if self.observer is not None:
            new = self.state.events_since(self._seen)
            self._seen = self.state.event_count
            self.observer(self.state, new)

    async def play(self) -> None:
        """Play the game to its end, one decision at a time.

        One cancel scope serves every decision (`clock`): setting its deadline is much
        cheaper than a scope per decision, and a bot process sets it only when trio has to
        run (`BotProcess.exchange`). A timeout cancels it; `timed_out` takes over.

        The loop is written for speed: what does not change during a game is looked up
        once, a bot process's request is encoded into one buffer that every request of the
        game reuses (each encoding replaces the whole content, so no request carries a byte
        of an earlier one), a game without bank or increment sends the same clock fields
        every time, and the usual answer (an index in range) is taken without a call.

        Before a request is written, a cancelled scope raises, as a checkpoint would, but
        only when something could have cancelled it: other tasks and trio's deadlines act
        only while this task waits (`suspended` says it did; a wait, or a yield for the fair
        share, comes at least every FAIR_SHARE), so a decision whose answer came at once
        skips that check and its cost. A cancellation requested by the game's own callbacks
        (observer, on_fault), in this task, is seen at its next wait."""
        self.playing = True
        self.suspended = True  # (the handshakes waited)
        now = self.now = trio.lowlevel.current_clock().current_time  # trio.current_time
        state = self.state
        self.notify()
        # What the loop uses is held in locals.
        out, times, bound, cursor = self.out, self.times, self.bound, self.cursor
        clocks, processes, fixed = self.clocks, self.processes, self.fixed_clock
        playing = _run_games()
        buffer, encode_into, known = self.buffer, self.encode_into, self.known_answers
        observed, margin = self.observer is not None, self.margin
        while state.current_player is not None:
            with trio.CancelScope() as clock:
                while (seat := state.current_player) is not None:
                    if clock.cancel_called:
                        # A deadline passed while an answer read in time waited to be taken:
                        # that decision is judged (`Deadline.judge`), and the next one gets a
                        # scope of its own, so that no cancellation carries over to its seat.
                        break
                    if self.decision >= bound:
                        self.error = (
                            f"the game passed the {self.bound} decisions its rules allow "
                            f"({self.ruleset.id}, {counted(len(self.conns), 'player')}): a rules "
                            "error, charged to no bot"
                        )
                        return
                    legal = state.legal_actions()
                    if seat in out:
                        self.conclude(seat, legal, 0.0)
                        continue
                    ms = 0.0
                    try:
                        process = processes[seat]
                        if process is None:
                            self.suspended = True
                            action, ms = await self.ask_connection(seat, legal, clock)
                        else:  # send this seat its request and read the answer
                            if process.pending():
                                await self.unrequested(seat, process, clock)
                            seat_clock = clocks[seat]
                            events = state.events_for(seat, cursor[seat])
                            cursor[seat] = state.event_count
                            if fixed is None:
                                allowance = seat_clock.allowance()
                                time_ms = _whole_ms(allowance)  # whole ms, as every clock field
                                bank_ms = _whole_ms(seat_clock.bank)
                            else:
                                allowance, time_ms, bank_ms = fixed
                            observation = state.observation(seat)
                            request = Request(
                                self.decision, observation, legal, events, time_ms, bank_ms
                            )
                            encode_into(request, buffer)  # (cut to the new request's length)
                            buffer.extend(b"\n")
                            start = now()  # the bot's time runs from here
                            asking = self.asking = Deadline(seat, start, allowance, margin)
                            deadline = asking.limit  # when the referee stops waiting
                            if deadline > start:  # `BotProcess.exchange`, its calls written out
                                if self.suspended:
                                    self.suspended = False
                                    await trio.lowlevel.checkpoint_if_cancelled()
                                alone = playing.count == 1  # (the only game of the run)
                                got = process.exchange_at_once(buffer, deadline, alone)
                                if got is None:
                                    self.suspended = True
                                    got = await process.exchange_rest(buffer, clock, deadline)
                                answer, at = got
                            else:
                                self.suspended = True
                                answer, at = await process.exchange(buffer, clock, deadline, start)
                            if at < start:  # read before the request was sent: not the answer
                                raise _unasked(answer)
                            elapsed = asking.judge(at)  # (by when it was read; late: a timeout)
                            if fixed is None:
                                seat_clock.spent(elapsed)
                            index = known.get(answer)  # (`action_of`, without its call)
                            if index is not None and index < len(legal):
                                action = legal[index]
                            else:
                                action = self.action_of(answer, legal)
                            ms = elapsed
                        if seat not in out:  # (faulted meanwhile: the fallback decides)
                            if type(action) is _ByValue:
                                self.apply(action)
                            else:
                                state.apply(action)
                    except (BotFault, IllegalAction) as exc:
                        clock.deadline = math.inf
                        self.fault(seat, exc, self.decision)
                        # the time the bot had: to its answer, else as its deadline says
                        ms = ms or self.asking.had(getattr(exc, "overrun_ms", None), now())
                    state = self.state  # a new one, if a bot's action broke the old one
                    if len(times) == len(state.history):  # not applied: the fallback decides
                        self.conclude(seat, legal, ms)
                        continue
                    times.append(ms)  # `conclude`, inline
                    self.decision += 1
                    if observed:
                        self.notify()
            if clock.cancelled_caught:
                asking = self.asking
                self.suspended = True
                fault = await self.timed_out()
                self.fault(asking.seat, fault, self.decision)
                ms = asking.had(fault.overrun_ms, now())
                self.conclude(asking.seat, state.legal_actions(), ms)

    def apply(self, action: Action | _ByValue) -> None:
        """Apply a bot's action. One it sent by value that the rules fail on other than
        by refusing it (a TypeError, an OverflowError...) is its illegal action; the game
        goes on from a state rebuilt from the moves so far, since the failure may have left
        this one half changed. An offered action the rules fail on is their bug: it raises."""
        if not isinstance(action, _ByValue):
            self.state.apply(action)
            return
        try:
            self.state.apply(action.action)
        except IllegalAction:
            raise
        except Exception as exc:
            self.state = self.rebuilt()
            raise BotFault(
                "illegal",
                f"sent an action the rules could not apply: {_shorten(describe(action.action))} "
                f"({_error(exc)})",
            ) from None

    def rebuilt(self) -> GameState[Any, Any]:
        """The game state after the moves applied so far, played again from the seed."""
        state = self.ruleset.new_game(len(self.conns), self.options, self.seed)
        for _, action in self.state.history:
            state.apply(action)
        return state

    def conclude(self, seat: int, legal: list[Action], ms: float) -> None:
        """Record the decision; if the bot's action was not applied, the fallback decides."""
        state = self.state
        if len(self.times) == len(state.history):
            self.fallbacks.add(len(self.times))
            state.apply(self.fallback.choice(legal))
        self.times.append(ms)
        self.decision += 1
        self.notify()

    def moves(self) -> list[Move]:
        """The record's moves: who made each applied action, how long the bot had (in ms, to
        the µs) and who chose it."""
        fallbacks = self.fallbacks
        return [
            Move(seat, action, round(ms, 3), "fallback" if i in fallbacks else "bot")
            for i, ((seat, action), ms) in enumerate(
                zip(self.state.history, self.times, strict=True)
            )
        ]

    async def finish(self, ranks: list[int], scores: list[float]) -> None:
        """Tell every live bot the result, then give them a moment to exit."""
        deadline = trio.current_time() + 1.0
        fault_text = [f"seat {f.seat}: {f.kind}: {f.reason}" for f in self.faults]
        for seat, conn in enumerate(self.conns):
            if seat in self.out:
                continue
            msg = GameOver(
                scores=scores,
                ranks=ranks,
                events=self.state.events_for(seat, self.cursor[seat]),
                seed=self.seed if self.config.reveal_seed else None,
                faults=fault_text,
            )
            with contextlib.suppress(BotFault), trio.move_on_at(deadline):
                await conn.send(encode_line(msg))


class _ByValue(msgspec.Struct, frozen=True):
    """An action a bot sent by value (not an index into the offered list)."""

    action: Action


class _Games:
    """How many games one trio run is playing (past their handshakes): a bot process's
    answer is waited for in the kernel only while it is one (`BotProcess.exchange_at_once`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


_GAMES: trio.lowlevel.RunVar[_Games] = trio.lowlevel.RunVar("arena_games_playing")


def _run_games() -> _Games:
    """This trio run's `_Games`."""
    try:
        return _GAMES.get()
    except LookupError:
        games = _Games()
        _GAMES.set(games)
        return games


MAX_REASON = 300  # characters of a fault's reason kept in the record and shown
KNOWN_ANSWERS = 64  # answer lines remembered a game (`_Game.action_of`)


def bounded(reason: str, limit: int = MAX_REASON) -> str:
    """A fault's reason made safe to show (see `arena.referee.text.plain`) and cut to `limit`
    characters, saying how long it was: one bot's reason goes to every other bot."""
    text = plain(reason)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters, cut)"


def _unreadable(exc: Exception) -> tuple[FaultKind, str]:
    """The fault kind, and why in words, of a line that could not be read as JSON."""
    if isinstance(exc, msgspec.DecodeError):
        return "malformed", f"which is not JSON: {exc}"
    if isinstance(exc, RecursionError):
        return "malformed", "which is nested too deeply to read"
    return "malformed", f"which could not be read ({_error(exc)})"


def _unasked(line: bytes) -> BotFault:
    """The fault of a bot that wrote `line` when no request asked for one."""
    return BotFault("malformed", f"wrote a line that no request asked for: {_snippet(line)}")


def _whole_ms(ms: float) -> int:
    """Milliseconds as the protocol's clock fields give them: whole, rounded down, never below
    0 (`max(0, math.floor(ms))`)."""
    return int(ms) if ms > 0 else 0


def _shorten(text: str, limit: int = 120) -> str:
    """`text` cut to `limit` characters, so that what follows it in a reason survives."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_shorten(str(exc))}" if str(exc) else type(exc).__name__


def _first(group: BaseExceptionGroup[NoResources]) -> NoResources:
    """The first exception of a (nested) group."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _snippet(line: bytes, limit: int = 80) -> str:
    text = line[:limit].decode("utf-8", "replace")
    return repr(text + ("..." if len(line) > limit else ""))


async def play_game(
    ruleset_id: str,
    bots: Sequence[BotSpec],
    *,
    options: OptionsInput = None,
    seed: int = 0,
    config: RefereeConfig | None = None,
    connect: Callable[[BotSpec], Connection | None] | None = None,
    observer: Observer | None = None,
    on_fault: OnFault | None = None,
    start_limiter: trio.CapacityLimiter | None = None,
    game_id: str = "",
    trace: Trace | None = None,
) -> GameRecord:
    """Play one game between `bots` (seat i is bots[i]) and return its record.

    `observer` sees the events of each move as it is made, `on_fault` each fault as it is
    charged; `start_limiter` bounds how many bots start at once (shared across concurrent
    games); `game_id` is stored in the record (a tournament's schedule key). `connect` makes
    a seat's connection (an in-process bot) or returns None for a bot process made here, as
    every seat is without it. With `trace`,
    every line to and from each bot process and each fault go to it (`arena.referee.trace`;
    a `connect` of its own traces the processes it makes `TracedBotProcess`es)."""
    config = config or RefereeConfig()
    ruleset = get_ruleset(ruleset_id)
    ruleset.check_players(len(bots))

    def sandboxed(spec: BotSpec) -> bool:
        return spec.sandbox is not None and spec.sandbox.mode != "off"

    # A `connect` may make some seats' connections and leave the rest (None) to bot processes
    # made here. Each process's own paths (looked up on disk), once, and only when a sandbox
    # must hide them: a sandboxed bot is shown nothing of the other processes' files.
    given = [connect(spec) if connect is not None else None for spec in bots]
    programs = [i for i, conn in enumerate(given) if conn is None]
    needed = any(sandboxed(bots[i]) for i in programs)
    paths = {i: bots[i].paths() for i in programs} if needed else {}

    def make(i: int, spec: BotSpec) -> Connection:
        if (conn := given[i]) is not None:
            return conn
        hide: tuple[str, ...] = ()
        if sandboxed(spec):
            others = [paths[j] for j in programs if bots[j] != spec]
            hide = hidden(paths[i], others, config.private)
        if trace is not None:
            return TracedBotProcess(
                spec,
                trace,
                i,
                max_line=config.max_line,
                stderr_limit=config.stderr_limit,
                hide=hide,
            )
        return BotProcess(
            spec, max_line=config.max_line, stderr_limit=config.stderr_limit, hide=hide
        )

    conns = [make(i, spec) for i, spec in enumerate(bots)]
    game = _Game(ruleset_id, conns, options, seed, config, observer, on_fault, trace)
    if trace is not None:
        trace.begin(
            f"{ruleset.id}, {counted(len(bots), 'player')}, seed {seed}",
            [
                b.name if isinstance(c, TracedBotProcess) else f"{b.name} (not traced)"
                for b, c in zip(bots, conns, strict=True)
            ],
        )
    for seat, conn in enumerate(conns):
        if isinstance(conn, BotProcess):  # a limit broken while it is not being asked
            conn.on_violation = functools.partial(game.violated, seat)
    started = time.perf_counter()
    try:
        async with trio.open_nursery() as nursery:
            try:
                async with trio.open_nursery() as starting:
                    for seat in range(len(conns)):
                        starting.start_soon(game.handshake, nursery, seat, start_limiter)
                playing = _run_games()
                playing.count += 1
                try:
                    await game.play()
                finally:
                    playing.count -= 1
                game.unnoticed()
                if game.error is None:
                    outcome = game.state.outcome()
                    game_ranks, scores = list(outcome.ranks), [float(s) for s in outcome.scores]
                else:  # no result: every seat shares the place its faults leave it
                    game_ranks, scores = [1] * len(conns), [0.0] * len(conns)
                ranks = ranks_with_faults(game_ranks, game.out)
                await game.finish(ranks, scores)
            finally:
                with trio.CancelScope(shield=True):
                    async with trio.open_nursery() as closing:
                        for conn in conns:
                            closing.start_soon(conn.close, config.exit_grace_ms / 1000)
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        # The referee could not start a bot for its own lack of resources: the game is not
        # played, no bot is charged; the caller may play it later.
        if (lack := group.subgroup(NoResources)) is not None:
            raise _first(lack) from None
        raise
    return GameRecord(
        ruleset=ruleset.id,
        options=msgspec.to_builtins(game.options),
        seed=seed,
        players=len(bots),
        seats=[
            SeatRecord(i, b.name, b.command, getattr(c, "sandboxed", False))
            for i, (b, c) in enumerate(zip(bots, conns, strict=True))
        ],
        moves=game.moves(),
        faults=game.faults,
        scores=scores,
        game_ranks=game_ranks,
        ranks=ranks,
        seconds=round(time.perf_counter() - started, 3),
        stderr=[c.stderr_text() for c in conns],
        game=game_id,
        error=game.error,
    )


__all__ = ["RefereeConfig", "describe", "play_game", "ranks_with_faults"]
