"""The registry of rulesets by id, with player-count limits and typed options."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from arena.games.base import GameState
from arena.games.errors import ArenaError
from arena.games.suggest import did_you_mean, unknown
from arena.games.text import counted

#: What callers may pass as a ruleset's options: a mapping from a file or the command line
#: (strings such as "true" or "20" are accepted), options already typed (a Struct), or None
#: for the defaults. `Ruleset.options` turns any of them into the ruleset's own Struct.
OptionsInput = Mapping[str, Any] | msgspec.Struct | None

#: A ruleset's options Struct type.
Opts = TypeVar("Opts", bound=msgspec.Struct)


class GameConfigError(ArenaError, ValueError):
    """A bad ruleset id, player count or option; the message lists what is allowed."""


class OptionInfo(msgspec.Struct, frozen=True):
    """One option of a ruleset, for `arena games` and for error messages."""

    name: str
    allowed: str
    default: Any
    help: str


def _allowed(tp: Any) -> str:
    """Human form of an option's type: `10|15|20`, `true|false`, `integer >= 1`."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        base, *metas = typing.get_args(tp)
        text = _allowed(base)
        for meta in metas:
            if isinstance(meta, msgspec.Meta) and meta.ge is not None:
                text = f"{text} >= {meta.ge}"
        return text
    if origin is typing.Literal:
        return "|".join(show_value(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_allowed(a) for a in typing.get_args(tp))
    if tp is bool:
        return "true|false"
    if tp is int:
        return "integer"
    if tp is type(None):
        return "none"
    return getattr(tp, "__name__", str(tp))


def _takes_none(info: OptionInfo) -> bool:
    """Whether an option may be set to none (no value), as its allowed values say."""
    return "none" in info.allowed.replace("|", " or ").split(" or ")


def show_value(value: Any) -> str:
    """An option value as a user types it: true, none, 15."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _help(tp: Any) -> str:
    if typing.get_origin(tp) is typing.Annotated:
        for meta in typing.get_args(tp)[1:]:
            if isinstance(meta, msgspec.Meta) and meta.description:
                return meta.description
    return ""


def describe_options(options_type: type[msgspec.Struct]) -> list[OptionInfo]:
    """The options of a ruleset with allowed values, defaults and help."""
    return list(_options_info(options_type))


@functools.cache
def _options_info(options_type: type[msgspec.Struct]) -> tuple[OptionInfo, ...]:
    """`describe_options`, worked out once per type (it evaluates the type hints: slow)."""
    hints = typing.get_type_hints(options_type, include_extras=True)
    out = []
    for field in msgspec.structs.fields(options_type):
        tp = hints[field.name]
        default = None if field.default is msgspec.NODEFAULT else field.default
        out.append(OptionInfo(field.name, _allowed(tp), default, _help(tp)))
    return tuple(out)


@dataclass(frozen=True)
class Ruleset(Generic[Opts]):
    """One playable ruleset: id, seat limits, options and how to start a game."""

    id: str
    title: str
    summary: str
    min_players: int
    max_players: int
    options_type: type[Opts]
    state_type: type[GameState[Any, Any]]
    #: `factory(players, options, seed)`: a new game with these typed options.
    factory: Callable[[int, Opts, int], GameState[Any, Any]]
    #: `max_decisions(players, options)`: the most decisions (applied actions) a game with
    #: these players and typed options (as `options()` returns them) can take. A proven
    #: upper bound (docs/rules.md §9), so a game that passes it has broken rules.
    max_decisions: Callable[[int, Opts], int]

    @property
    def action_type(self) -> Any:
        return self.state_type.action_type

    @property
    def player_counts(self) -> str:
        if self.min_players == self.max_players:
            return str(self.min_players)
        return f"{self.min_players}-{self.max_players}"

    def options(self, raw: OptionsInput = None) -> Opts:
        """Typed options from a mapping (strings such as "true" or "20" are accepted)."""
        if isinstance(raw, self.options_type):
            return raw
        if isinstance(raw, msgspec.Struct):
            raw = msgspec.structs.asdict(raw)
        raw = dict(raw or {})
        infos = {o.name: o for o in _options_info(self.options_type)}
        listing = "; ".join(
            f"{o.name}={o.allowed} (default {show_value(o.default)})" for o in infos.values()
        )
        for name in raw:
            if name not in infos:
                hint = did_you_mean(name, infos)
                known = f"options: {listing}" if listing else "it has no options"
                raise GameConfigError(
                    f"{self.id} has no option `{name}`" + (f": {hint} " if hint else "; ") + known
                )
        for name, value in raw.items():  # "none", as `arena games` shows it: no value
            if isinstance(value, str) and value.lower() == "none" and _takes_none(infos[name]):
                raw[name] = None
        try:
            return msgspec.convert(raw, self.options_type, strict=False)
        except msgspec.ValidationError as exc:
            text = str(exc)
            field = text.rsplit("`$.", 1)[-1].rstrip("`") if "`$." in text else None
            if field in infos:
                info = infos[field]
                raise GameConfigError(
                    f"bad value {raw.get(field)!r} for {self.id} option `{field}`: "
                    f"allowed {info.allowed}"
                ) from None
            raise GameConfigError(f"bad options for {self.id}: {text}") from None

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            takes = (
                counted(self.max_players, "player")
                if self.min_players == self.max_players
                else f"{self.player_counts} players"
            )
            raise GameConfigError(f"{self.id} takes {takes}, not {players}")

    def new_game(
        self, players: int, options: OptionsInput = None, seed: int = 0
    ) -> GameState[Any, Any]:
        """Start a game: the only entry point to a ruleset's rules."""
        self.check_players(players)
        return self.factory(players, self.options(options), seed)


# Rulesets of every options type: which one an id names is known only when the game runs.
_REGISTRY: dict[str, Ruleset[Any]] = {}


def register(ruleset: Ruleset[Opts]) -> Ruleset[Opts]:
    if ruleset.id in _REGISTRY:
        raise ValueError(f"ruleset {ruleset.id!r} registered twice")
    _REGISTRY[ruleset.id] = ruleset
    return ruleset


def all_rulesets() -> list[Ruleset[Any]]:
    return list(_REGISTRY.values())


def get_ruleset(ruleset_id: str) -> Ruleset[Any]:
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise GameConfigError(unknown("ruleset", ruleset_id, _REGISTRY)) from None


def new_game(
    ruleset_id: str,
    players: int,
    options: OptionsInput = None,
    seed: int = 0,
) -> GameState[Any, Any]:
    """Start a game of `ruleset_id` for `players` seats from a seed."""
    return get_ruleset(ruleset_id).new_game(players, options, seed)
