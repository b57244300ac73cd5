"""The one base class of errors shown to users in words: a bad ruleset or option, bot, config or
file. The command line catches it once and prints its message; a library caller catches it to
tell a user's mistake from a bug."""

from __future__ import annotations


class ArenaError(Exception):
    """An error in words for the user (never a traceback); the message says what is wrong."""
