"""The one base class of errors shown to users in words: a bad ruleset or option, bot, config or
file. The command line catches it once and prints its message; a library caller catches it to
tell a user's mistake from a bug."""

from __future__ import annotations

from typing import TypeVar, cast


class ArenaError(Exception):
    """An error in words for the user (never a traceback); the message says what is wrong."""


E = TypeVar("E", bound=BaseException)


def first_leaf(group: BaseExceptionGroup[E]) -> E:
    """The first exception of a (nested) exception group: the one to show, when a group (a
    trio nursery's) holds errors of one kind."""
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return cast(E, exc)  # a group of E holds only E
