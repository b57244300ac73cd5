"""Typed values from what people write (a TOML file's tables, a command's flags), every
problem one sentence in the project's words: which key, what it must be and what was given,
and for a key that names nothing, the keys there are with "did you mean" for a near miss.

msgspec checks the types; its wording (``Expected `int` <= 6 - at `$.seats` ``) is never
shown: only where it went wrong is taken from it, and the sentence is made from the type's
own description (`describe`) and the value found there in the data. How a key is named
depends on where it was written (`Names`): `[time] move` in a file, `--move-time` on the
command line.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

from arena.games.errors import ArenaError
from arena.games.suggest import unknown

T = TypeVar("T")

#: Where a value is in the data: keys of tables and indices of lists, from the top.
KeyPath = tuple[str | int, ...]

#: The values TOML has besides msgspec's own (as `msgspec.toml.decode` converts).
TOML_TYPES = (datetime.datetime, datetime.date, datetime.time)


class FieldError(ArenaError, ValueError):
    """Data that does not fit its type; the message names the key, what it must be and what
    was given (or the keys there are, for a key that names nothing)."""


class Names:
    """How keys are named in errors: as a TOML file spells them. `key` names a value
    (`seats`, `[time] move`, bots[1]: `command`), `table` the table holding keys ([time],
    bots[1]), `setting` a value given to a key (`deals = 3`)."""

    def key(self, path: KeyPath) -> str:
        if len(path) >= 3 and isinstance(path[1], int):  # a key of a table in an array
            return f"{self.table(path[:2])}: `{_dotted(path[2:])}`"
        if len(path) == 1:
            return f"`{path[0]}`"
        if isinstance(path[-1], int):  # an item of a list
            return f"`{_dotted(path[:-1])}[{path[-1]}]`"
        return f"`[{_dotted(path[:-1])}] {path[-1]}`"

    def table(self, path: KeyPath) -> str:
        if not path:
            return ""
        if len(path) >= 2 and isinstance(path[1], int):
            head = f"{path[0]}[{path[1]}]"
            return head + (f" `{_dotted(path[2:])}`" if len(path) > 2 else "")
        return f"[{_dotted(path)}]"

    def setting(self, path: KeyPath, value: Any) -> str:
        return f"`{path[-1]} = {toml_value(value)}`"


def _dotted(path: KeyPath) -> str:
    return ".".join(f"[{p}]" if isinstance(p, int) else p for p in path).replace(".[", "[")


TOML = Names()


def convert(data: Any, tp: type[T], *, names: Names = TOML, strict: bool = True) -> T:
    """`data` (decoded TOML: tables, lists, strings, numbers) as a `tp`; FieldError says
    in words what does not fit, naming keys with `names`. `strict=False` takes strings
    for numbers and booleans ("20", "true"), as given on a command line."""
    unknown_keys(data, tp, (), names)
    try:
        return msgspec.convert(data, tp, strict=strict, builtin_types=TOML_TYPES, str_keys=True)
    except msgspec.ValidationError as exc:
        raise FieldError(explain(exc, data, tp, names)) from None


def unknown_keys(data: Any, tp: Any, path: KeyPath, names: Names = TOML) -> None:
    """Raise FieldError at the first key of `data` that its table's type has not, naming the
    keys it has, with "did you mean" for a near miss."""
    tp = _bare(tp)
    if isinstance(data, dict) and _is_struct(tp):
        fields = _fields(tp)
        for key in data:
            if key not in fields:
                within = names.table(path)
                raise FieldError(unknown("key", str(key), fields, "keys", within))
        hints = _hints(tp)
        for key, value in data.items():
            unknown_keys(value, hints[key], (*path, key), names)
    elif _is_union(tp):
        tables = [m for m in typing.get_args(tp) if _is_struct(_bare(m))]
        if isinstance(data, dict) and len(tables) == 1:
            unknown_keys(data, tables[0], path, names)
        lists = [m for m in typing.get_args(tp) if typing.get_origin(_bare(m)) is list]
        if isinstance(data, list) and len(lists) == 1:
            unknown_keys(data, lists[0], path, names)
    elif isinstance(data, list) and typing.get_origin(tp) is list:
        (item,) = typing.get_args(tp)
        for i, value in enumerate(data):
            unknown_keys(value, item, (*path, i), names)
    elif isinstance(data, dict) and typing.get_origin(tp) is dict:
        _, item = typing.get_args(tp)
        for key, value in data.items():
            unknown_keys(value, item, (*path, key), names)


_AT = re.compile(r"(?s)(?P<message>.*?)(?: - at `\$(?P<where>[^`]*)`)?")
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def explain(exc: msgspec.ValidationError, data: Any, tp: Any, names: Names = TOML) -> str:
    """msgspec's error about `data` as a `tp`, said in words: the key (named by `names`),
    what it must be (`describe`) and what was given. An error raised by a type's own check
    (`__post_init__`), already in words, is kept, with the key it is about."""
    match = _AT.fullmatch(str(exc))
    assert match is not None  # the pattern matches any text
    message, where = match["message"], match["where"] or ""
    path: KeyPath = tuple(step[0] if step[0] else int(step[1]) for step in _STEP.findall(where))
    if found := re.fullmatch(r"Object missing required field `(.*)`", message):
        full = (*path, found[1])
        return f"{names.key(full)} is missing: give {describe(type_at(tp, full, data))}"
    if found := re.fullmatch(r"Object contains unknown field `(.*)`", message):
        fields = _fields(_bare(type_at(tp, path, data)))
        return unknown("key", found[1], fields, "keys", names.table(path))
    if message.startswith(("Expected ", "Invalid enum value", "Invalid value")):
        wanted = describe(type_at(tp, path, data))
        given = show(value_at(data, path))
        return f"{names.key(path)} must be {wanted}, not {given}" if path else wanted
    return f"{names.table(path) or names.key(path)}: {message}" if path else message


def value_at(data: Any, path: KeyPath) -> Any:
    """The value at `path` in `data` (None when it is not there)."""
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def type_at(tp: Any, path: KeyPath, data: Any = None) -> Any:
    """The type the value at `path` must have, in a value of type `tp`; `data` chooses
    between the members of a union (a table for a Struct, a list for a list)."""
    for step in path:
        tp = _choose(tp, data)
        bare = _bare(tp)
        data = value_at(data, (step,))
        if _is_struct(bare) and isinstance(step, str):
            tp = _hints(bare).get(step, Any)
        elif typing.get_origin(bare) is list and isinstance(step, int):
            tp = typing.get_args(bare)[0]
        elif typing.get_origin(bare) is dict:
            tp = typing.get_args(bare)[1]
        else:
            return Any
    return tp


def _choose(tp: Any, data: Any) -> Any:
    """The member of a union that `data` is written as (a table, a list), else `tp`."""
    bare = _bare(tp)
    if not _is_union(bare):
        return tp
    for member in typing.get_args(bare):
        inner = _bare(member)
        if isinstance(data, dict) and (_is_struct(inner) or typing.get_origin(inner) is dict):
            return member
        if isinstance(data, list) and typing.get_origin(inner) is list:
            return member
    return tp


def describe(tp: Any, *, plural: bool = False) -> str:
    """What a value of type `tp` must be, in words: "a whole number from 1 to 6", "one of
    "round-robin", "swiss", "gauntlet"", "a table (keys: move, startup)"; a type's own
    description (`Meta(description=...)`) when it has one."""
    if typing.get_origin(tp) is typing.Annotated:
        base, *metas = typing.get_args(tp)
        for meta in metas:
            if isinstance(meta, msgspec.Meta) and meta.description:
                return str(meta.description)
        return describe(base, plural=plural) + "".join(
            _bounds(m) for m in metas if isinstance(m, msgspec.Meta)
        )
    if _is_union(tp):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        if len(members) == 1:
            return describe(members[0], plural=plural)
        words = [
            ", ".join(toml_value(v) for v in typing.get_args(m))
            if typing.get_origin(m) is typing.Literal
            else describe(m, plural=plural)
            for m in members
        ]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
    if typing.get_origin(tp) is typing.Literal:
        return f"one of {_choices(tp)}"
    if typing.get_origin(tp) is list:
        return (
            ("lists" if plural else "a list")
            + " of "
            + describe(typing.get_args(tp)[0], plural=True)
        )
    if typing.get_origin(tp) is dict:
        item = typing.get_args(tp)[1]
        kind = "tables" if plural else "a table"
        return kind if item is Any else f"{kind} of {describe(item, plural=True)}"
    if _is_struct(tp):
        return ("tables" if plural else "a table") + f" (keys: {', '.join(_fields(tp))})"
    simple: dict[Any, tuple[str, str]] = {
        bool: ("true or false", "true or false"),
        int: ("a whole number", "whole numbers"),
        float: ("a number", "numbers"),
        str: ("a string", "strings"),
    }
    if tp in simple:
        return simple[tp][plural]
    return "values" if plural else "a value"


def _bounds(meta: msgspec.Meta) -> str:
    if meta.ge is not None and meta.le is not None:
        return f" from {meta.ge} to {meta.le}"
    if meta.gt is not None and meta.le is not None:
        return f" above {meta.gt} and at most {meta.le}"
    if meta.ge is not None:
        return f" >= {meta.ge}"
    if meta.le is not None:
        return f" <= {meta.le}"
    if meta.gt is not None:
        return f" > {meta.gt}"
    if meta.lt is not None:
        return f" < {meta.lt}"
    if meta.min_length == 1 and meta.max_length is None:
        return ", not empty"
    if meta.pattern is not None:
        return f" matching {meta.pattern}"
    return ""


def _choices(tp: Any) -> str:
    words = [toml_value(v) for v in typing.get_args(tp)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def show(value: Any, most: int = 40) -> str:
    """A value given, as it was written (TOML), cut to about `most` characters; a table or a
    list is named by its kind."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    text = toml_value(value)
    return text if len(text) <= most else text[: most - 1] + "…"


def toml_value(value: Any) -> str:
    """A value as TOML writes it: a basic string with escapes, true/false, a number, an
    inline table or an array (None, which TOML has not, as "none")."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, TOML_TYPES):
        return value.isoformat()
    return toml_string(str(value))


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in "\b\t\n\f\r":
            out.append(json.dumps(char)[1:-1])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, else quoted."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def _bare(tp: Any) -> Any:
    """`tp` without `Annotated`."""
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _fields(tp: type[msgspec.Struct]) -> tuple[str, ...]:
    return tuple(f.encode_name for f in msgspec.structs.fields(tp))


@functools.cache
def _hints(tp: type[msgspec.Struct]) -> dict[str, Any]:
    """A Struct's fields' types by the names they are written with."""
    hints = typing.get_type_hints(tp, include_extras=True)
    return {f.encode_name: hints[f.name] for f in msgspec.structs.fields(tp)}
