"""An SPRT match's results folder: the test it holds and the journal of its games, locked.

`<root>/<name>/sprt.json` pins the test (bots, ruleset and options, seed, bounds, move
time) and `games.jsonl` gets each finished game appended and flushed as it ends: the same
journal a tournament keeps (`arena.league.results`), so `arena leaderboard` and `arena
replay` read it. Opening the folder again for the same test resumes it; a folder holding
anything else is refused unless `fresh`, and only one run at a time may hold it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import msgspec

from arena.league.config import ConfigError
from arena.league.results import CONFIG_FILE, LOCK_FILE, OnDamage, ResultsDir
from arena.referee.folders import BotSpec
from arena.referee.records import GameRecord, GameSummary

MATCH_FILE = "sprt.json"
_NAME = re.compile(r"[A-Za-z0-9._-]+")


class MatchBot(msgspec.Struct, frozen=True):
    """A bot as far as it decides the games: its name, command, folder and environment."""

    name: str
    command: list[str]
    cwd: str | None = None
    env: dict[str, str] = msgspec.field(default_factory=dict)

    @classmethod
    def of(cls, spec: BotSpec) -> MatchBot:
        return cls(spec.name, list(spec.command), spec.cwd, dict(spec.env))


class MatchSpec(msgspec.Struct, frozen=True):
    """What makes two runs one test, stored as sprt.json. How many games run at once, the
    sandbox and the most pairs to play may change between runs; nothing here may."""

    a: MatchBot
    b: MatchBot
    ruleset: str
    options: dict[str, Any]
    seed: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    move_time: float

    def differences(self, other: MatchSpec) -> list[str]:
        """What differs from `other`, in words: "elo1 10 (there: 5)"."""
        out = []
        for name in self.__struct_fields__:
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine == theirs:
                continue
            if isinstance(mine, MatchBot) and isinstance(theirs, MatchBot):
                out.append(f"bot {name.upper()} {_bot(mine)} (there: {_bot(theirs)})")
            else:
                out.append(f"{name} {_value(mine)} (there: {_value(theirs)})")
        return out


def _bot(bot: MatchBot) -> str:
    where = f" in {bot.cwd}" if bot.cwd else ""
    return f"{bot.name} = {' '.join(bot.command)}{where}"


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={v}" for k, v in value.items()) + "}"
    return str(value)


def default_name(a: str, b: str, ruleset: str, seed: int) -> str:
    """The folder of a test by default: "sprt-<A>-vs-<B>-<ruleset>-s<seed>", each name kept
    to letters, digits, ".", "_" and "-" (anything else becomes "_")."""

    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip(".") or "_"

    return f"sprt-{safe(a)}-vs-{safe(b)}-{safe(ruleset)}-s{seed}"


def check_name(name: str) -> str:
    """A folder name given with --name: letters, digits, ".", "_" and "-", not "." or ".."."""
    if not _NAME.fullmatch(name) or name in (".", ".."):
        raise ConfigError(
            f"--name {name!r}: a folder name takes letters, digits, '.', '_' and '-' only"
        )
    return name


class MatchResults:
    """One SPRT's folder, held (locked) by this process from `open` to `release`."""

    def __init__(self, journal: ResultsDir) -> None:
        self.path = journal.path
        self._journal = journal

    @classmethod
    def open(
        cls,
        path: str | Path,
        spec: MatchSpec,
        *,
        fresh: bool = False,
        on_damage: OnDamage | None = None,
    ) -> MatchResults:
        """Hold `path` for the test `spec`: create it, or resume the same test there; refuse
        (ConfigError) a folder another run holds, or one holding anything else unless
        `fresh`, which then empties it. The lock (the tournament folder's) is taken before the
        folder is read or emptied, so a running test is never discarded under its feet.
        `on_damage` hears of damaged journal lines, which the journal sets aside (their games
        are then played again)."""
        folder = Path(path)
        journal = ResultsDir.hold(folder, fresh=fresh, on_damage=on_damage, what="SPRT")
        try:
            _claim(folder, spec)
        except BaseException:
            journal.release()
            raise
        return cls(journal)

    def records(self) -> list[GameRecord]:
        """Every finished game's whole record, each once, in the order it finished."""
        return self._journal.records()

    def games(self) -> list[GameSummary]:
        """Every finished game as its summary (no moves, no stderr: what a recount needs),
        each once, in the order it finished."""
        return [line.value for line in self._journal.games()]

    def append(self, record: GameRecord) -> None:
        """Journal a finished game, flushed to disk before it counts."""
        self._journal.append(record)

    def release(self) -> None:
        self._journal.release()

    def __enter__(self) -> MatchResults:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _claim(folder: Path, spec: MatchSpec) -> None:
    """Write sprt.json in a folder that holds nothing else; accept one that holds this test."""
    file = folder / MATCH_FILE
    again = "pass --fresh to discard them, or --name to use another folder"
    if file.exists():
        try:
            stored = msgspec.json.decode(file.read_bytes(), type=MatchSpec)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ConfigError(f"{file} is not an SPRT's description ({exc}); {again}") from None
        if stored != spec:
            raise ConfigError(
                f"{folder} holds the results of another SPRT; here "
                + "; ".join(spec.differences(stored))
                + f". {again.capitalize()}"
            )
        return
    temporary = folder / (MATCH_FILE + ".new")  # a crash may have left it: it never counts
    others = sorted(e.name for e in folder.iterdir() if e.name not in (LOCK_FILE, temporary.name))
    if others:
        what = "a tournament's results" if CONFIG_FILE in others else ", ".join(others)
        raise ConfigError(f"{folder} holds {what}, not this SPRT's; {again}")
    with open(temporary, "wb") as fh:
        fh.write(msgspec.json.format(msgspec.json.encode(spec)))
        fh.flush()
        os.fsync(fh.fileno())
    temporary.replace(file)  # whole or absent, even after a crash
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a crash
    finally:
        os.close(directory)
