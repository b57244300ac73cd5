"""The published JSON Schema (`protocol.messages.schema`, what `arena protocol schema` prints)
agrees with the referee, checked by a JSON Schema validator: every line of real games of every
ruleset validates (the referee's messages, and the bots' answers by index and by value); the
answers the referee rejects do not; and a message, an offered action or an event of a type the
schema does not know validates, since PROTOCOL.md section 3 says such may come without a new
protocol version.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

import jsonschema
import pytest

from arena.games import all_rulesets, get_ruleset
from arena.referee.folders import BotSpec
from arena.referee.game import play_game
from arena.referee.local import LocalBot, play_local, random_decider
from arena.referee.transcript import my_bot
from protocol.messages import schema

SHORT: dict[str, dict[str, Any]] = {
    "odin": {"rounds": 1},
    "override-beta": {"rounds": 1},
    "bested": {"threshold": 5},
    "bested-solo": {"rounds": 1},
}
FAMILIES = ["odin", "override-classic", "bested"]  # a ruleset of each family of game types
Validators = tuple[jsonschema.Draft202012Validator, jsonschema.Draft202012Validator]


@cache
def validators(ruleset: str) -> Validators:
    """Validators of what the referee sends and of what a bot sends, in this ruleset."""
    st = get_ruleset(ruleset).state_type
    doc = schema(st.observation_type, st.action_type, st.event_type)
    out, back = ({"$defs": doc["$defs"], **doc[d]} for d in ("referee_to_bot", "bot_to_referee"))
    jsonschema.Draft202012Validator.check_schema(out)
    return jsonschema.Draft202012Validator(out), jsonschema.Draft202012Validator(back)


def answers_valid(ruleset: str, line: bytes) -> bool:
    return validators(ruleset)[1].is_valid(json.loads(line))


@pytest.mark.parametrize("ruleset", [r.id for r in all_rulesets()])
async def test_every_line_of_a_real_game_validates(ruleset: str) -> None:
    players = min(3, get_ruleset(ruleset).max_players)
    deciders = [my_bot(seat) for seat in range(players)]  # by index and by value in turn
    record, bots = await play_local(ruleset, deciders, options=SHORT.get(ruleset), seed=3)
    assert record.faults == []
    to_bot, to_referee = validators(ruleset)
    kinds: set[str] = set()
    for bot in bots:
        for sender, line in bot.exchange:
            message = json.loads(line)
            (to_bot if sender == "referee" else to_referee).validate(message)
            kinds |= {f"{message['type']}:{k}" for k in ("index", "action") if k in message}
    assert kinds == {"action:index", "action:action"}


class FirstAnswer(LocalBot):
    """An in-process bot that answers its first `act` with the line `answer(request)`, and
    plays at random after it."""

    def __init__(self, spec: BotSpec, answer: Callable[[dict[str, Any]], bytes]) -> None:
        super().__init__(spec, random_decider(spec.name))
        self.answer: Callable[[dict[str, Any]], bytes] | None = answer

    async def send(self, line: bytes) -> None:
        request = json.loads(line)
        if request["type"] != "act" or self.answer is None:
            return await super().send(line)
        self._replies.append(self.answer(request))
        self.answer = None


async def referee_fault(ruleset: str, answer: Callable[[dict[str, Any]], bytes]) -> str | None:
    """The fault kind the referee charges seat 0 with for answering its first `act` so."""
    specs = [BotSpec(f"bot-{s}", ["(in-process)"]) for s in range(2)]
    other = LocalBot(specs[1], random_decider("other"))
    conns = {id(specs[0]): FirstAnswer(specs[0], answer), id(specs[1]): other}
    record = await play_game(ruleset, specs, seed=5, connect=lambda s: conns[id(s)])
    kinds = [f.kind for f in record.faults if f.seat == 0]
    return kinds[0] if kinds else None


def offered(request: dict[str, Any]) -> str:
    return json.dumps(request["actions"][0])


def mistyped(item: dict[str, Any]) -> dict[str, Any]:
    """`item` with every field but its `type` given a value of another JSON type."""
    other = {str: 7, int: "7", bool: "7", type(None): 7, list: 7, dict: 7}
    return {k: v if k == "type" else other[type(v)] for k, v in item.items()}


REJECTED: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("neither index nor action", lambda r: '{"type":"action"}'),
    ("both null", lambda r: '{"type":"action","index":null,"action":null}'),
    ("both", lambda r: f'{{"type":"action","index":0,"action":{offered(r)}}}'),
    ("a fraction", lambda r: '{"type":"action","index":0.5}'),
    ("a string index", lambda r: '{"type":"action","index":"0"}'),
    ("a boolean index", lambda r: '{"type":"action","index":false}'),
    ("too large a number", lambda r: '{"type":"action","index":1e400}'),
    ("no such action", lambda r: '{"type":"action","action":{"type":"fold"}}'),
    ("no type", lambda r: '{"index":0}'),
]


@pytest.mark.parametrize("ruleset", FAMILIES)
@pytest.mark.parametrize(("case", "answer"), REJECTED, ids=[c for c, _ in REJECTED])
async def test_answers_the_referee_rejects_do_not_validate(
    ruleset: str, case: str, answer: Callable[[dict[str, Any]], str]
) -> None:
    line: list[bytes] = []

    def sent(request: dict[str, Any]) -> bytes:
        line.append(answer(request).encode())
        return line[-1]

    assert await referee_fault(ruleset, sent) == "schema"
    assert not answers_valid(ruleset, line[0]), line[0]


@pytest.mark.parametrize("index", ["1.0", "1e0"])
async def test_an_index_written_as_a_whole_float_is_the_documented_gap(index: str) -> None:
    """JSON Schema counts 1.0 as an integer (1.0 and 1 are the same number to it); the referee
    does not, as PROTOCOL.md sections 3 and 10 say."""
    line = f'{{"type":"action","index":{index}}}'
    assert await referee_fault("odin", lambda r: line.encode()) == "schema"
    assert answers_valid("odin", line.encode())


@pytest.mark.parametrize("ruleset", FAMILIES)
async def test_types_the_schema_does_not_know_validate_known_ones_are_checked(
    ruleset: str,
) -> None:
    _, bots = await play_local(ruleset, [my_bot(0), my_bot(1)], options=SHORT.get(ruleset))
    lines = [json.loads(line) for sender, line in bots[0].exchange if sender == "referee"]
    act = next(m for m in lines if m["type"] == "act")
    over = lines[-1]
    assert over["type"] == "game_over"
    to_bot = validators(ruleset)[0]
    acts = [m for m in lines if m["type"] == "act"]
    known_event = next(e for m in acts for e in m["events"] if len(e) > 1)
    known_action = next(a for m in acts for a in m["actions"] if len(a) > 1)
    new = {"type": "new_kind", "anything": [1, {"x": None}]}
    for valid in (
        new,
        {**act, "events": [*act["events"], new]},
        {**act, "actions": [*act["actions"], new]},
        {**over, "events": [new, *over["events"]]},
    ):
        assert to_bot.is_valid(valid), valid
    for invalid in (
        {"type": 7},
        {"kind": "new_kind"},
        {**act, "events": [*act["events"], mistyped(known_event)]},
        {**act, "events": [{**known_event, "type": None}]},
        {**act, "actions": [mistyped(known_action), *act["actions"]]},
        {**over, "events": [*over["events"], mistyped(known_event)]},
        {"type": "act"},
        {**over, "events": [{"no": "type"}]},
    ):
        assert not to_bot.is_valid(invalid), invalid
