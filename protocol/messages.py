"""The JSON-lines messages between the referee and a bot, as msgspec tagged unions.

Every message is one JSON object on one line, tagged by its "type" field.
Referee to bot: `hello`, `act`, `game_over`. Bot to referee: `ready`, `action`.
Messages that carry game data (observations, actions, events) are generic
over the ruleset's own types, so one schema per ruleset can be exported.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Generic, TypeVar

import msgspec
from msgspec import Meta, Struct

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 1 << 20  # the longest line a bot may send (1 MiB)

Obs = TypeVar("Obs")
A = TypeVar("A")
Ev = TypeVar("Ev")


class Limits(Struct, frozen=True):
    """The clock, in milliseconds. Over `move_ms` a decision draws on the bank, if any."""

    startup_ms: int
    move_ms: int
    bank_ms: int = 0
    increment_ms: int = 0


# -- referee to bot --------------------------------------------------------


class Hello(Struct, tag="hello", frozen=True):
    """First message: the game and the seat this bot plays. Answer with `ready`."""

    protocol: int
    ruleset: str
    options: dict[str, Any]
    seat: int
    players: int
    limits: Limits


class Request(Struct, Generic[Obs, A, Ev], tag="act", frozen=True):
    """A decision: this seat's view, what happened since the last message, the choices."""

    decision: int
    observation: Obs
    actions: list[A]
    events: list[Ev]
    time_ms: int  # milliseconds for this decision (whole, rounded down), bank included
    bank_ms: int  # what is left of the bank (whole milliseconds, rounded down)


class GameOver(Struct, Generic[Ev], tag="game_over", frozen=True):
    """The game has ended; the bot should exit after reading this. `seed` is null where the
    same deal is played again (a tournament's seat rotations, a match's paired deals)."""

    scores: list[float]
    ranks: list[int]
    events: list[Ev]
    seed: int | None
    faults: list[str]


# -- bot to referee ---------------------------------------------------------


class Ready(Struct, tag="ready", frozen=True):
    """The answer to `hello`."""

    name: Annotated[str, Meta(max_length=100)]


class Choice(Struct, Generic[A], tag="action", frozen=True):
    """The answer to `act`: an index into the offered list, or an action by value."""

    index: int | None = None
    action: A | None = None


RefereeMessage = Hello | Request[Any, Any, Any] | GameOver[Any]

encoder = msgspec.json.Encoder()


def encode_line(message: Struct) -> bytes:
    """One message as a JSON line (with the trailing newline)."""
    buf = bytearray()
    encoder.encode_into(message, buf)
    buf.extend(b"\n")
    return bytes(buf)


@cache
def bot_decoder(action_type: Any) -> msgspec.json.Decoder[Any]:
    """The decoder for what a bot may send, for one ruleset's actions (built once)."""
    return msgspec.json.Decoder(Ready | Choice[action_type])


@cache
def referee_decoder(observation_type: Any, action_type: Any, event_type: Any) -> Any:
    """The decoder for what the referee sends, typed for one ruleset (for bots and tests)."""
    return msgspec.json.Decoder(
        Hello | Request[observation_type, action_type, event_type] | GameOver[event_type]
    )


def schema(observation_type: Any, action_type: Any, event_type: Any) -> dict[str, Any]:
    """JSON Schema of every message in both directions, for one ruleset's game types.

    What the referee may send is open as PROTOCOL.md section 3 says it may grow: a message,
    an offered action or an event of a type the schema does not know is any object with a
    string `type` (the known types are checked in full). What a bot sends is checked as the
    referee does: an answer gives exactly one of `index` and `action`."""
    to_bot = Hello | Request[observation_type, action_type, event_type] | GameOver[event_type]
    to_referee = Ready | Choice[action_type]
    (out, back), defs = msgspec.json.schema_components([to_bot, to_referee])
    doc: dict[str, Any] = {"protocol": PROTOCOL_VERSION, "referee_to_bot": out}
    doc = _stable_names({**doc, "bot_to_referee": back, "$defs": defs})
    defs = doc["$defs"]
    doc["referee_to_bot"] = _open(doc["referee_to_bot"], defs, "a message")
    for name, field, what in (
        ("Request", "actions", "an action"),
        ("Request", "events", "an event"),
        ("GameOver", "events", "an event"),
    ):
        array = defs[name]["properties"][field]
        array["items"] = _open(array["items"], defs, what)
    defs["Choice"]["oneOf"] = [
        {"required": [field], "properties": {field: {"not": {"type": "null"}}}}
        for field in ("index", "action")
    ]
    defs["Choice"]["properties"]["index"]["description"] = (
        "written without a fraction or exponent: 1, never 1.0 or 1e0, which JSON Schema "
        "counts as integers and the referee does not (PROTOCOL.md section 10)"
    )
    return doc


def _open(union: dict[str, Any], defs: dict[str, Any], what: str) -> dict[str, Any]:
    """The schema of `union` (of tagged structs, or of one) or of any object whose `type` is
    a string none of them has (`what` it is, in words: "an event")."""
    refs = [union] if "$ref" in union else union["anyOf"]
    names = [r["$ref"].removeprefix("#/$defs/") for r in refs]
    known = [tag for name in names for tag in defs[name]["properties"]["type"]["enum"]]
    other = {
        "description": f"{what} of a type this schema does not know (PROTOCOL.md section 3)",
        "type": "object",
        "properties": {"type": {"type": "string", "not": {"enum": known}}},
        "required": ["type"],
    }
    return {"anyOf": [union, other]}


def _stable_names(doc: dict[str, Any]) -> dict[str, Any]:
    """The schema with language-neutral definition names: msgspec names a generic message after
    its type arguments' Python paths (`Choice_arena.games.odin.Play___...`), and titles it the
    same way; a schema holds one of each generic message, so its own name is enough."""
    generic = {t.__name__ for t in (Request, GameOver, Choice)}
    renames: dict[str, str] = {}
    for name in doc["$defs"]:
        short = name.split("_", 1)[0]
        if short != name and short in generic:
            if short in doc["$defs"] or short in renames.values():
                raise ValueError(f"two schema definitions would be named {short!r}")
            renames[name] = short

    def fix(node: Any) -> Any:
        """`node` with every reference (a `$ref`, a discriminator's mapping) renamed."""
        if isinstance(node, dict):
            return {k: fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        if isinstance(node, str) and node.startswith("#/$defs/"):
            target = node.removeprefix("#/$defs/")
            return "#/$defs/" + renames.get(target, target)
        return node

    doc = fix(doc)
    doc["$defs"] = {renames.get(k, k): v for k, v in doc["$defs"].items()}
    for short in renames.values():
        # The title too: msgspec spells it `Request[<Python paths of the type arguments>]`.
        if "title" in doc["$defs"][short]:
            doc["$defs"][short]["title"] = short
    return doc
