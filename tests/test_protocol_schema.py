"""The JSON Schema of the protocol: stable, language-neutral names that every reference finds.

At the top of tests/, not in a layer's folder: it pins `protocol/`, the package beside
arena's layers that bots and the referee share (and that imports nothing from arena).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.games import all_rulesets, get_ruleset
from protocol.messages import schema

NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def references(node: Any) -> set[str]:
    """Every definition a schema node points at ($ref and discriminator mappings alike)."""
    if isinstance(node, dict):
        return set().union(*(references(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(set(), *(references(v) for v in node))
    if isinstance(node, str) and node.startswith("#/$defs/"):
        return {node.removeprefix("#/$defs/")}
    return set()


@pytest.mark.parametrize("ruleset", [r.id for r in all_rulesets()])
def test_definitions_have_plain_names_and_every_reference_resolves(ruleset: str) -> None:
    st = get_ruleset(ruleset).state_type
    doc = schema(st.observation_type, st.action_type, st.event_type)
    names = set(doc["$defs"])
    assert all(NAME.match(n) for n in names), sorted(n for n in names if not NAME.match(n))
    assert {"Hello", "Request", "GameOver", "Ready", "Choice"} <= names
    assert references(doc) <= names
    mapping = doc["referee_to_bot"]["anyOf"][0]["discriminator"]["mapping"]  # known types
    assert mapping == {
        "hello": "#/$defs/Hello",
        "act": "#/$defs/Request",
        "game_over": "#/$defs/GameOver",
    }
    assert doc["bot_to_referee"]["discriminator"]["mapping"]["action"] == "#/$defs/Choice"
