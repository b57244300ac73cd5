"""In-process bots speaking the same JSON lines as a subprocess.

`LocalBot`, for check-bot and tests: `play_local` plays a whole game between such bots and
keeps, for every seat, the exact lines exchanged with the referee (the golden tests and the
protocol transcript in PROTOCOL.md are made with it).

`AgentBot`, for `arena.play` (`arena.referee.api`): a seat played by a Python agent, whose
mistakes (an exception, an answer that is no index or action) are that seat's faults, as a
bot process's would be.
"""

from __future__ import annotations

import contextlib
import operator
import random
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import msgspec
import trio

from arena.games import OptionsInput
from arena.referee.bot import STDERR_LIMIT
from arena.referee.faults import BotFault
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import GameRecord

Decide = Callable[[dict[str, Any]], int | dict[str, Any]]
Sender = Literal["referee", "bot"]


def random_decider(seed: str) -> Decide:
    """Uniformly random legal actions from a seeded generator."""
    rng = random.Random(seed)
    return lambda request: rng.randrange(len(request["actions"]))


class LocalBot:
    """A `Connection` whose bot is a Python function; every message still goes through JSON."""

    def __init__(self, spec: BotSpec, decide: Decide) -> None:
        self.spec = spec
        self.decide = decide
        self.received: list[bytes] = []  # every line the referee sent, for golden tests
        #: every line in either direction, in order, with who sent it (without the newline)
        self.exchange: list[tuple[Sender, bytes]] = []
        self._replies: list[bytes] = []
        self._decode = msgspec.json.Decoder().decode
        self._encode = msgspec.json.Encoder().encode
        self.killed = False

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    async def send(self, line: bytes) -> None:
        if self.killed:
            raise BotFault("crash", "was killed")
        self.received.append(line)
        self.exchange.append(("referee", line.rstrip(b"\n")))
        msg = self._decode(line)
        if msg["type"] == "hello":
            self._replies.append(self._encode({"type": "ready", "name": self.spec.name}))
        elif msg["type"] == "act":
            choice = self.decide(msg)
            key = "index" if isinstance(choice, int) else "action"
            self._replies.append(self._encode({"type": "action", key: choice}))

    async def receive(self) -> tuple[bytes, float]:
        if self._replies:
            reply = self._replies.pop(0)
            self.exchange.append(("bot", reply))
            return reply, trio.current_time()
        await trio.sleep_forever()  # a bot that does not answer: the caller's deadline ends it
        raise AssertionError("unreachable")

    def pending(self) -> bool:
        return bool(self._replies)

    def kill(self) -> None:
        self.killed = True

    async def close(self, grace: float = 0.0) -> None:
        self.killed = True

    def stderr_text(self) -> str:
        return ""


#: What a Python agent may return for a request: an index into its `actions`, or an action by
#: value (a mapping, or the ruleset's own action Struct).
Answer = int | Mapping[str, Any] | msgspec.Struct
#: A Python agent: the request (the `act` message as a bot receives it, decoded into plain
#: dicts and lists) to its answer. An object may also have `on_hello(message)` and
#: `on_game_over(message)` methods, called with those messages, and a `name`.
Agent = Callable[[dict[str, Any]], Answer]
IN_PROCESS = "(in-process agent)"  # the command an agent's seat records


class AgentBot:
    """A `Connection` whose bot is a Python agent, called in the referee's own process.

    Every message still goes through JSON, so the agent receives exactly what a bot process
    would, and nothing of the referee's objects. What the agent does wrong is its seat's
    fault, raised as a bot process's would be (`BotFault`), and the game goes on by the
    fault policy: an exception (a crash; in `on_hello`, a start-up fault), whose traceback
    is kept as the seat's stderr; an answer that is not an index or an action (a schema
    fault). An index out of range, or an action by value the rules refuse, is the
    referee's to find (an illegal action), as for any bot. An exception in `on_game_over`
    is no fault (the game is over): only its traceback is kept. `error` holds the first
    exception the agent raised, for a caller that wants it raised again."""

    def __init__(self, spec: BotSpec, agent: Agent, *, stderr_limit: int = STDERR_LIMIT) -> None:
        self.spec = spec
        self.agent = agent
        self.error: Exception | None = None
        self.stderr_limit = stderr_limit
        self.killed = False
        self._reply: bytes | None = None
        self._tracebacks: list[str] = []
        self._decode = msgspec.json.Decoder().decode
        self._encode = msgspec.json.Encoder().encode

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    async def send(self, line: bytes) -> None:
        if self.killed:
            raise BotFault("crash", "was killed")
        msg = self._decode(line)
        kind = msg.get("type")
        if kind == "hello":
            hook = getattr(self.agent, "on_hello", None)
            if callable(hook):
                self._call(hook, msg, " in on_hello")
            self._reply = self._encode({"type": "ready", "name": self.spec.name[:100]})
        elif kind == "act":
            self._reply = self._answer(self._call(self.agent, msg, ""))
        elif kind == "game_over":
            hook = getattr(self.agent, "on_game_over", None)
            if callable(hook):
                # the game is over: no fault, its traceback is the seat's stderr
                with contextlib.suppress(BotFault):
                    self._call(hook, msg, " in on_game_over")

    def _call(self, fn: Callable[[dict[str, Any]], Any], msg: dict[str, Any], where: str) -> Any:
        """`fn(msg)`; an exception it raises is kept (`error`, and its traceback from the
        agent's own frame on) and becomes the seat's crash."""
        try:
            return fn(msg)
        except Exception as exc:
            if self.error is None:
                self.error = exc
            tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
            self._tracebacks.append("".join(traceback.format_exception(type(exc), exc, tb)))
            raise BotFault("crash", f"raised {_exception(exc)}{where}") from None

    def _answer(self, choice: Any) -> bytes:
        """The `action` line of the agent's answer: an index (any integer but a bool), or an
        action by value (a mapping or a Struct)."""
        if not isinstance(choice, bool) and hasattr(type(choice), "__index__"):
            return self._encode({"type": "action", "index": operator.index(choice)})
        if isinstance(choice, msgspec.Struct):
            action: Any = msgspec.to_builtins(choice)
        elif isinstance(choice, Mapping):
            action = dict(choice)
        else:
            raise BotFault(
                "schema",
                f"returned {_shown(choice)}, which is neither an index into the request's "
                "actions nor an action (a dict)",
            )
        try:
            return self._encode({"type": "action", "action": action})
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
            raise BotFault("schema", f"returned an action that is not JSON ({exc})") from None

    async def receive(self) -> tuple[bytes, float]:
        reply, self._reply = self._reply, None
        if reply is not None:
            return reply, trio.current_time()
        await trio.sleep_forever()  # (never: an agent answers every message it is asked)
        raise AssertionError("unreachable")

    def pending(self) -> bool:
        return self._reply is not None

    def kill(self) -> None:
        self.killed = True

    async def close(self, grace: float = 0.0) -> None:
        self.killed = True

    def stderr_text(self) -> str:
        """The tracebacks of what the agent raised, their last `stderr_limit` characters."""
        return "".join(self._tracebacks)[-self.stderr_limit :]


def _exception(exc: BaseException) -> str:
    """An exception in words: its type, and its message if it has one."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _shown(value: Any, limit: int = 60) -> str:
    """A value an agent returned, as Python shows it, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({type(value).__name__})"


async def play_local(
    ruleset_id: str,
    deciders: Sequence[Decide],
    *,
    options: OptionsInput = None,
    seed: int = 0,
    config: RefereeConfig | None = None,
    names: Sequence[str] | None = None,
) -> tuple[GameRecord, list[LocalBot]]:
    """Play one game in process, seat i deciding with `deciders[i]`; return the record and
    the bots, whose `exchange` holds every line of that seat's conversation in order."""
    names = list(names or (f"local-{i}" for i in range(len(deciders))))
    specs = [BotSpec(name, ["(in-process)"]) for name in names]
    bots = {id(spec): LocalBot(spec, decide) for spec, decide in zip(specs, deciders, strict=True)}
    record = await play_game(
        ruleset_id,
        specs,
        options=options,
        seed=seed,
        config=config,
        connect=lambda spec: bots[id(spec)],
    )
    return record, list(bots.values())
