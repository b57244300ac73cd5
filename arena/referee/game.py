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
from typing import Any, Literal, Protocol

import msgspec
import trio

from arena.games import GameState, IllegalAction, OptionsInput, get_ruleset
from arena.games.base import Action, Audience, describe
from arena.referee.bot import STDERR_LIMIT, BotProcess, BotSpec
from arena.referee.clock import Clock
from arena.referee.faults import BotFault, FaultKind
from arena.referee.records import Fault, GameRecord, Move, SeatRecord
from arena.referee.sandbox import hidden
from arena.referee.spawn import NoResources
from arena.referee.text import plain
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
    ) -> None:
        self.ruleset = get_ruleset(ruleset_id)
        self.options: msgspec.Struct = self.ruleset.options(options)
        self.state = self.ruleset.new_game(len(conns), self.options, seed)
        self.seed = seed
        self.conns = list(conns)
        self.config = config
        self.observer = observer
        self.on_fault = on_fault
        self.decoder: msgspec.json.Decoder[Ready | Choice[Action]] = bot_decoder(
            self.ruleset.action_type
        )
        self.fallback = fallback_rng(seed)
        n = len(conns)
        self.cursor = [0] * n
        self.clocks = [Clock(config.limits) for _ in range(n)]
        self.out: set[int] = set()
        self.faults: list[Fault] = []
        self.moves: list[Move] = []
        self.decision = 0
        # The most decisions its rules allow (docs/rules.md): past it the rules are broken,
        # and the game is ended as a referee error rather than run for ever.
        self.bound = self.ruleset.max_decisions(n, self.options)
        self.error: str | None = None
        self._seen = 0
        self.asking: tuple[int, float, float] = (0, 0.0, math.inf)  # seat, allowance, deadline
        self.playing = False  # past the handshake
        self.asked_at = 0.0  # when the decision being asked began: the bot's time runs from it

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
        deadline = trio.current_time() + limits.startup_ms / 1000
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
                line, _ = await conn.receive()
            if scope.cancelled_caught:
                raise BotFault("startup", f"did not answer hello within {limits.startup_ms} ms")
            msg = self.decode(line, "answered hello with")
            if not isinstance(msg, Ready):
                raise BotFault("startup", "answered hello with an action instead of ready")
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
            kind, why = "schema", f"which is not a valid message: {exc}"
        except msgspec.DecodeError as exc:
            kind, why = "malformed", f"which is not JSON: {exc}"
        except RecursionError:
            kind, why = "malformed", "which is nested too deeply to read"
        except Exception as exc:  # nothing a bot writes may stop the game
            kind, why = "malformed", f"which could not be read ({_error(exc)})"
        raise BotFault(kind, f"{sent} {_snippet(line)}, {why}")

    # -- one decision --------------------------------------------------------------------
    async def ask(
        self, seat: int, legal: list[Action], clock: trio.CancelScope
    ) -> tuple[Action | _ByValue, float]:
        """Send this seat its request and read the answer, under `clock`'s deadline.

        One cancel scope serves the whole game (`play`): setting its deadline is much
        cheaper than a scope per decision, and a bot process sets it only when it has to
        wait (`BotProcess.exchange`). A timeout cancels it; `timed_out` takes over."""
        conn = self.conns[seat]
        state = self.state
        clock_of_seat = self.clocks[seat]
        allowance = clock_of_seat.allowance()
        now = self.asked_at = trio.current_time()
        # Only ever move the deadline forward: unsetting it costs trio far more.
        deadline = now + allowance / 1000
        self.asking = (seat, allowance, deadline)
        process = conn if isinstance(conn, BotProcess) else None
        if process is None:
            clock.deadline = deadline
        if conn.pending():
            clock.deadline = deadline
            # What waits may be the end of its output (it exited): receive says which.
            line, _ = await conn.receive()
            raise BotFault("malformed", f"wrote a line that no request asked for: {_snippet(line)}")
        events = state.events_for(seat, self.cursor[seat])
        self.cursor[seat] = state.event_count
        request = Request(
            decision=self.decision,
            observation=state.observation(seat),
            actions=legal,
            events=events,
            time_ms=max(0, math.floor(allowance)),  # whole ms, as every clock field
            bank_ms=max(0, math.floor(clock_of_seat.bank)),
        )
        line = encode_line(request)
        start = self.asked_at = trio.current_time()  # the bot's time runs from here
        if process is not None:  # writes and reads at once when the pipe is ready
            line, at = await process.exchange(line, clock, deadline)
        else:
            await conn.send(line)
            line, at = await conn.receive()
        if at < start:  # read before the request was sent: an extra line, not the answer
            raise BotFault("malformed", f"wrote a line that no request asked for: {_snippet(line)}")
        elapsed = (at - start) * 1000
        clock_of_seat.spent(elapsed)
        msg = self.decode(line)
        if not isinstance(msg, Choice):
            raise BotFault("schema", "sent ready when an action was due")
        if (msg.index is None) == (msg.action is None):
            which = "neither index nor action" if msg.index is None else "both index and action"
            raise BotFault(
                "schema", f"sent an action with {which}; give exactly one of index or action"
            )
        if msg.index is not None:
            if not 0 <= msg.index < len(legal):
                raise IllegalAction(
                    {"index": msg.index}, f"index out of range: {len(legal)} actions were offered"
                )
            return legal[msg.index], elapsed
        assert msg.action is not None  # (exactly one of the two, as checked above)
        return _ByValue(msg.action), elapsed

    async def timed_out(self) -> BotFault:
        """The bot being asked missed its deadline: wait a little longer to measure by how
        much (the overrun), then return the fault. A late answer is never used."""
        seat, allowance, deadline = self.asking
        grace = self.config.late_grace_ms
        with trio.move_on_at(deadline + grace / 1000):
            try:
                _, at = await self.conns[seat].receive()
            except BotFault as exc:
                return exc
            overrun = (at - deadline) * 1000
            return BotFault(
                "timeout", f"answered {overrun:.0f} ms after its {allowance:.0f} ms", overrun
            )
        return BotFault(
            "timeout", f"did not answer within {allowance:.0f} ms (waited {grace} ms more)"
        )

    def notify(self) -> None:
        if self.observer is not None:
            new = self.state.events_since(self._seen)
            self._seen = self.state.event_count
            self.observer(self.state, new)

    async def play(self) -> None:
        self.playing = True
        state = self.state
        self.notify()
        while not state.is_terminal:
            with trio.CancelScope() as clock:
                while not state.is_terminal:
                    if self.decision >= self.bound:
                        self.error = (
                            f"the game passed the {self.bound} decisions its rules allow "
                            f"({self.ruleset.id}, {len(self.conns)} players): a rules error, "
                            "charged to no bot"
                        )
                        return
                    seat = state.current_player
                    assert seat is not None
                    legal = state.legal_actions()
                    ms = 0.0
                    if seat not in self.out:
                        try:
                            action, ms = await self.ask(seat, legal, clock)
                            if seat not in self.out:  # (faulted meanwhile: the fallback decides)
                                self.apply(action)
                        except (BotFault, IllegalAction) as exc:
                            clock.deadline = math.inf
                            self.fault(seat, exc, self.decision)
                            # the time the bot had: to its answer, else until the fault
                            ms = ms or (trio.current_time() - self.asked_at) * 1000
                        state = self.state  # a new one, if a bot's action broke the old one
                    self.conclude(seat, legal, ms)
            if clock.cancelled_caught:
                seat, allowance, _ = self.asking
                fault = await self.timed_out()
                self.fault(seat, fault, self.decision)
                # the time the bot had: its allowance and the overrun, or all that was waited
                waited = (trio.current_time() - self.asked_at) * 1000
                ms = allowance + fault.overrun_ms if fault.overrun_ms is not None else waited
                self.conclude(seat, state.legal_actions(), ms)

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
        by: Literal["bot", "fallback"] = "bot"
        if len(self.moves) == len(state.history):
            by = "fallback"
            state.apply(self.fallback.choice(legal))
        self.moves.append(Move(seat, state.history[-1][1], round(ms, 3), by))
        self.decision += 1
        self.notify()

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


MAX_REASON = 300  # characters of a fault's reason kept in the record and shown


def bounded(reason: str, limit: int = MAX_REASON) -> str:
    """A fault's reason made safe to show (see `arena.referee.text.plain`) and cut to `limit`
    characters, saying how long it was: one bot's reason goes to every other bot."""
    text = plain(reason)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters, cut)"


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
    connect: Callable[[BotSpec], Connection] | None = None,
    observer: Observer | None = None,
    on_fault: OnFault | None = None,
    start_limiter: trio.CapacityLimiter | None = None,
    game_id: str = "",
) -> GameRecord:
    """Play one game between `bots` (seat i is bots[i]) and return its record.

    `observer` sees the events of each move as it is made, `on_fault` each fault as it is
    charged; `start_limiter` bounds how many bots start at once (shared across concurrent
    games); `game_id` is stored in the record (a tournament's schedule key)."""
    config = config or RefereeConfig()
    ruleset = get_ruleset(ruleset_id)
    ruleset.check_players(len(bots))

    def make(spec: BotSpec) -> Connection:
        if connect is not None:
            return connect(spec)
        others = [b.paths() for b in bots if b != spec]
        hide = hidden(spec.paths(), others, config.private) if spec.sandbox is not None else ()
        return BotProcess(
            spec, max_line=config.max_line, stderr_limit=config.stderr_limit, hide=hide
        )

    conns = [make(spec) for spec in bots]
    game = _Game(ruleset_id, conns, options, seed, config, observer, on_fault)
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
                await game.play()
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
        moves=game.moves,
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
