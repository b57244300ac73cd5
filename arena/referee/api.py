"""Games from Python: `play` seats Python agents (called in process), the built-in random
player and bot programs (subprocesses, started as `arena play` starts them) at one table,
plays one game and returns its record; `play_async` is the same for trio programs.

A seat is given as one of:

- a callable (an *agent*): it receives each request as a bot does (the `act` message of
  PROTOCOL.md, decoded into plain dicts and lists) and returns an index into the request's
  `actions`, or an action by value (`arena.referee.local.AgentBot` says what else it may
  have and how its mistakes are charged);
- the string "random": the built-in random player, seeded by the game's seed and its seat;
- a path (a `str` or an `os.PathLike`): a bot folder with bot.toml, or a command line, read
  as `arena play` reads its bots (`arena.referee.folders.load_bot`), its build step run if
  its folder changed, run in the sandbox as there (`sandbox`, default "auto").
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from arena.games import GameConfigError, OptionsInput, all_rulesets, get_ruleset
from arena.games.errors import ArenaError, first_leaf
from arena.games.suggest import unknown
from arena.referee import clock
from arena.referee.folders import BotSpec, BotSpecError, BuildError, build_bot, load_bot
from arena.referee.game import Connection, RefereeConfig, play_game
from arena.referee.local import IN_PROCESS, Agent, AgentBot, LocalBot, random_decider
from arena.referee.records import Fault, GameRecord
from arena.referee.sandbox import (
    Mode,
    SandboxConfig,
    SandboxUnavailable,
    SandboxWarning,
    settle,
)

RANDOM = "random"  # the seat of the built-in random player
BUILT_IN = "(built-in random player)"  # the command its seat records
#: The clock's keyword arguments, by the clock setting each one is (for errors: their names)
CLOCK_ARGUMENTS = {
    "move": "move_time",
    "startup": "startup_time",
    "bank": "bank",
    "increment": "increment",
}
MODES: tuple[Mode, ...] = ("auto", "on", "off")
#: A seat of `play`: an agent, "random", or a bot's path or command line
Seat = Agent | str | os.PathLike[str]


class AgentError(ArenaError):
    """An agent's fault, raised by `play(..., raise_errors=True)` instead of being recorded
    (an agent that raised is raised again as itself instead). `fault` is the fault as the
    record would have held it."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(f"seat {fault.seat}: {fault.sentence()}")
        self.fault = fault


class _Stop(Exception):
    """Ends a game at an agent's fault, to raise `error` from `play` (`raise_errors`)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class _Table:
    """One game, ready to play: its bots built and their sandboxes settled."""

    ruleset: str
    options: msgspec.Struct
    seed: int
    specs: list[BotSpec]
    config: RefereeConfig
    raise_errors: bool
    agents: dict[int, Agent] = field(default_factory=dict)  # by seat
    random: set[int] = field(default_factory=set)  # the built-in random player's seats
    warnings: list[str] = field(default_factory=list)


def play(
    ruleset: str,
    agents: Iterable[Seat],
    *,
    seed: int = 0,
    options: OptionsInput = None,
    move_time: float = 1.0,
    startup_time: float = 10.0,
    bank: float = 0.0,
    increment: float = 0.0,
    sandbox: Mode | SandboxConfig | None = None,
    raise_errors: bool = False,
) -> GameRecord:
    """Play one game of `ruleset`, seat i played by `agents[i]`, and return its record.

    `seed` fixes the deal (and the random player's and the fallback's choices): the same
    seed and agents give the same game. `options` are the ruleset's (a mapping such as
    `{"rounds": 1}`, strings accepted as on the command line, or its options Struct). The
    clock is `arena play`'s, in seconds: `move_time` a decision, `startup_time` to answer
    hello, a `bank` drawn on past the move time, `increment` added to it each decision;
    agents are on it too (an answer that comes too late is a timeout). `sandbox` is the
    bot programs' sandbox mode ("auto": where it works, the default; "on"; "off"), or a
    `SandboxConfig` with its limits as well; agents run in this process, unsandboxed.

    A seat's fault (an agent that raises or answers wrong, a bot that crashes) is recorded
    and the game goes on under the fault policy; with `raise_errors`, an agent's fault ends
    the game and is raised instead: what the agent raised, as itself, or an `AgentError`.
    Bad input (a ruleset, player count, option, clock setting or bot that cannot be) raises
    an `ArenaError` saying what is wrong, before any bot starts."""
    if trio.lowlevel.in_trio_run():
        raise ArenaError(
            "arena.play runs its own trio loop and cannot run inside one: "
            "use `await arena.play_async(...)` there"
        )
    table = _prepare(
        ruleset, agents, seed, options, (move_time, startup_time, bank, increment), sandbox
    )
    table.raise_errors = raise_errors
    for text in table.warnings:
        warnings.warn(text, SandboxWarning, stacklevel=2)
    try:
        return trio.run(_play_table, table)
    except BaseExceptionGroup as group:
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise


async def play_async(
    ruleset: str,
    agents: Iterable[Seat],
    *,
    seed: int = 0,
    options: OptionsInput = None,
    move_time: float = 1.0,
    startup_time: float = 10.0,
    bank: float = 0.0,
    increment: float = 0.0,
    sandbox: Mode | SandboxConfig | None = None,
    raise_errors: bool = False,
) -> GameRecord:
    """`play`, awaited in a trio program (several games may run at once, in a nursery). The
    bots are read and built in a worker thread, so a long build does not stall the loop."""
    prepare = functools.partial(
        _prepare,
        ruleset,
        agents,
        seed,
        options,
        (move_time, startup_time, bank, increment),
        sandbox,
    )
    table = await trio.to_thread.run_sync(prepare)
    table.raise_errors = raise_errors
    for text in table.warnings:
        warnings.warn(text, SandboxWarning, stacklevel=2)
    return await _play_table(table)


# -- reading the input ------------------------------------------------------------------------


def _prepare(
    ruleset: str,
    agents: Iterable[Seat],
    seed: int,
    options: OptionsInput,
    times: tuple[float, float, float, float],
    sandbox: Mode | SandboxConfig | None,
) -> _Table:
    """Every argument checked, each seat read, and the bot programs built: the game, ready
    to play; an ArenaError for the first argument that cannot be."""
    ids = [r.id for r in all_rulesets()]
    if not isinstance(ruleset, str) or ruleset not in ids:
        raise GameConfigError(unknown("ruleset", str(ruleset), ids))
    rs = get_ruleset(ruleset)
    seats = _seats(agents)
    rs.check_players(len(seats))
    typed = rs.options(options)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArenaError(f"seed must be a whole number, not {seed!r}")
    move, startup, bank, increment = times
    limits = clock.limits(
        move=_seconds(move, "move_time"),
        startup=_seconds(startup, "startup_time"),
        bank=_seconds(bank, "bank"),
        increment=_seconds(increment, "increment"),
        names=CLOCK_ARGUMENTS,
    )
    config = RefereeConfig(limits=limits)
    sandboxing = _sandbox(sandbox)
    table = _Table(ruleset, typed, seed, [], config, False)
    programs: dict[int, BotSpec] = {}
    for i, seat in enumerate(seats):
        if callable(seat):
            table.agents[i] = seat
            table.specs.append(BotSpec(_agent_name(seat, i), [IN_PROCESS]))
        elif isinstance(seat, str) and seat == RANDOM:
            table.random.add(i)
            table.specs.append(BotSpec(RANDOM, [BUILT_IN]))
        elif isinstance(seat, str | os.PathLike):
            spec = load_bot(os.fspath(seat))
            if (why := spec.refusal(ruleset)) is not None:
                raise BotSpecError(why)
            programs[i] = msgspec.structs.replace(spec, sandbox=sandboxing)
            table.specs.append(programs[i])
        else:
            raise BotSpecError(
                f"seat {i}: {_shown(seat)} is not an agent: give a callable, "
                f'"{RANDOM}", or a bot\'s folder or command line'
            )
    if programs:
        for i, spec in zip(programs, _settled(list(programs.values()), table), strict=True):
            table.specs[i] = _built(spec)
    return table


def _seats(agents: Iterable[Seat]) -> list[Seat]:
    """The seats as a list; ArenaError when `agents` is not a collection of them."""
    if isinstance(agents, str | bytes | os.PathLike | Mapping) or not isinstance(agents, Iterable):
        raise ArenaError(
            f"agents must be a list with one agent per seat, not {_shown(agents)} "
            f'(e.g. [my_agent, "{RANDOM}"])'
        )
    return list(agents)


def _seconds(value: float, name: str) -> float:
    """A clock argument as seconds; ArenaError when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise clock.ClockError(f"{name} must be a number of seconds, not {_shown(value)}")
    return float(value)


def _sandbox(sandbox: Mode | SandboxConfig | None) -> SandboxConfig:
    """The bot programs' sandbox, from `play`'s argument (None: "auto", as `arena play`)."""
    if sandbox is None:
        return SandboxConfig(mode="auto")
    if isinstance(sandbox, SandboxConfig):
        return sandbox
    if sandbox not in MODES:
        modes = ", ".join(f'"{m}"' for m in MODES)
        raise ArenaError(f"sandbox must be one of {modes} or a SandboxConfig, not {sandbox!r}")
    return SandboxConfig(mode=sandbox)


def _settled(specs: list[BotSpec], table: _Table) -> list[BotSpec]:
    """The bot programs with "auto" settled for this machine (`settle`); its warning kept for
    `play` to give, in Python's words rather than the command line's."""
    try:
        configs, texts = settle([(s.name, s.sandbox) for s in specs])
    except SandboxUnavailable as exc:
        raise SandboxUnavailable(str(exc).replace("(--sandbox on)", '(sandbox="on")')) from None
    table.warnings += [t.replace("pass --sandbox off", 'pass sandbox="off"') for t in texts]
    return [msgspec.structs.replace(s, sandbox=c) for s, c in zip(specs, configs, strict=True)]


def _built(spec: BotSpec) -> BotSpec:
    """The bot with its build step run if its folder changed (`build_bot`); a failed build's
    error holds the last lines of its output in its message."""
    try:
        return build_bot(spec)
    except BuildError as exc:
        if not exc.output:
            raise
        tail = exc.output.replace("\n", "\n    ")
        raise BuildError(f"{exc}; its output, last lines:\n    {tail}", exc.output) from None


def _agent_name(agent: Agent, seat: int) -> str:
    """An agent's name: its `name` if it has one, else its function's (a partial's too) or
    its class's; a lambda is "agent-SEAT"."""
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or not name:
        inner = agent.func if isinstance(agent, functools.partial) else agent
        name = getattr(inner, "__name__", None) or type(inner).__name__
    return f"agent-{seat}" if name.startswith("<") else name


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({type(value).__name__})"


# -- playing ----------------------------------------------------------------------------------


async def _play_table(table: _Table) -> GameRecord:
    """Play the prepared game: agents and the random player in process, the bot programs as
    the processes `play_game` starts (each sandboxed one shown nothing of the other
    programs' files)."""
    config, specs = table.config, table.specs
    conns: dict[int, Connection] = {}  # the agents and the random player; None: a program
    bots: dict[int, AgentBot] = {}
    for i, spec in enumerate(specs):
        if i in table.agents:
            bots[i] = AgentBot(spec, table.agents[i], stderr_limit=config.stderr_limit)
            conns[id(spec)] = bots[i]
        elif i in table.random:
            conns[id(spec)] = LocalBot(spec, random_decider(f"arena-random:{table.seed}:{i}"))

    def charged(fault: Fault) -> None:
        bot = bots.get(fault.seat)
        if table.raise_errors and bot is not None:
            raise _Stop(bot.error if bot.error is not None else AgentError(fault))

    try:
        record = await play_game(
            table.ruleset,
            specs,
            options=table.options,
            seed=table.seed,
            config=config,
            connect=lambda spec: conns.get(id(spec)),  # programs: started by play_game
            on_fault=charged,
        )
    except BaseExceptionGroup as group:
        if (stop := group.subgroup(_Stop)) is not None:
            raise first_leaf(stop).error from None
        leaves = _leaves(group)
        if len(leaves) == 1 and isinstance(leaves[0], Exception):
            raise leaves[0] from None  # (a rules error: as itself, not inside trio's groups)
        raise
    if table.raise_errors:  # what an agent raised once the game was over (`on_game_over`)
        for bot in bots.values():
            if bot.error is not None:
                raise bot.error
    return record


def _leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    """Every exception of a (nested) group that is not itself a group."""
    out: list[BaseException] = []
    for exc in group.exceptions:
        out += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return out


__all__ = ["RANDOM", "AgentError", "Seat", "play", "play_async"]
