"""Writing tournament files (TOML) for tests: [[bots]] entries and the file around them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str | Path):
        return json.dumps(str(value))  # a TOML basic string for these plain texts
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"


def path_bot(folder: Path | str, **fields: Any) -> str:
    """A [[bots]] entry for a bot folder (holding bot.toml)."""
    return "\n".join(["[[bots]]", f"path = {toml_value(folder)}", *_fields(fields)])


def command_bot(name: str, *command: str | Path, **fields: Any) -> str:
    """A [[bots]] entry for a command line."""
    head = ["[[bots]]", f"name = {toml_value(name)}", f"command = {toml_value(list(command))}"]
    return "\n".join(head + _fields(fields))


def _fields(fields: dict[str, Any]) -> list[str]:
    return [f"{k} = {toml_value(v)}" for k, v in fields.items()]


def write_tournament(
    folder: Path, bots: list[str], *, file: str = "tournament.toml", **fields: Any
) -> Path:
    """A tournament file: short odin-race games, 2 seats, 1 deal, 2 jobs unless overridden."""
    settings = {"name": "t", "ruleset": "odin-race", "seats": 2, "deals": 1, "jobs": 2}
    settings.update(fields)
    path = folder / file
    path.write_text("\n".join([*_fields(settings), "", *bots, ""]))
    return path
