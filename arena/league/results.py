"""A tournament's results folder: its config, its schedule and the journal of finished games.

`results/<name>/tournament.json` pins what was started, `schedule.jsonl` lists every planned
game, and `games.jsonl` gets each finished game appended and flushed as it ends. Re-opening
the folder for the same tournament resumes it: finished games are never played again.

A run holds the folder through a lock file inside it (`.lock`, never deleted, so `--fresh`
empties the folder while holding it). Damaged lines of the journal or the schedule are left
out by every reader; the run holding the folder also sets them aside in a file beside
(`games.damaged.jsonl`, `schedule.damaged.jsonl`) and rewrites the file without them, so the
game they held is played again and the schedule derived again from the seed.

The journal is read as a stream, a line at a time, and as summaries (`GameSummary`: who sat
where, the result, the faults; not the moves nor the stderr) wherever whole records are not
needed: standings, a resume and its progress read a journal of a million games once, in
little memory (`games`, `finished`). Folders written before read the same: the format of a
line is unchanged.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol, TypeVar

import msgspec
from msgspec.structs import replace

from arena.league.config import ConfigError, Tournament, TournamentConfig
from arena.league.schedule import Game
from arena.referee.records import (
    DamagedLine,
    GameRecord,
    GameSummary,
    Line,
    append_lines,
    append_record,
    drop_lines,
    holds,
    read_lines,
    read_summary_lines,
    set_aside,
    storage_error,
)

CONFIG_FILE = "tournament.json"
SCHEDULE_FILE = "schedule.jsonl"
GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"


class Stored(msgspec.Struct, frozen=True):
    """What the folder remembers of the tournament: its config and the bots' names."""

    config: TournamentConfig
    bots: list[str]


def _same_tournament(a: TournamentConfig, b: TournamentConfig) -> bool:
    # How many games run at once, where (workers, a cluster, how long it waits for its
    # workers) and how bots are sandboxed do not change which games are played.
    def games(c: TournamentConfig) -> TournamentConfig:
        bots = [msgspec.structs.replace(e, sandbox=None) for e in c.bots]
        return msgspec.structs.replace(
            c,
            jobs=None,
            workers=None,
            cluster=None,
            wait_workers=None,
            wait_timeout=None,
            sandbox="auto",
            allow_mixed_sandbox=False,
            bots=bots,
        )

    return games(a) == games(b)


def aside_file(file: Path) -> Path:
    """Where the damaged lines of `file` are set aside: games.jsonl -> games.damaged.jsonl."""
    return file.with_name(f"{file.stem}.damaged{file.suffix}")


@dataclass(frozen=True)
class Damage:
    """Damaged lines found in one file of the folder, and where they were set aside (None: a
    reader's find, left in place for the next run to set aside)."""

    file: Path
    lines: list[DamagedLine]
    aside: Path | None

    def sentences(self, most: int = 5) -> list[str]:
        """One sentence per line (file:line, why, what becomes of it), at most `most` of them
        and then how many more."""
        games = self.file.name == GAMES_FILE
        if self.aside is not None:
            where = f"set aside in {self.aside}"
            then = f"{where}, " + (
                "its game will be played again" if games else "the schedule is derived again"
            )
        else:
            where = "left out"
            then = (
                "left out of these standings (the next run of this tournament sets it aside "
                "and plays its game again)"
                if games
                else "left out (the next run of this tournament sets it aside)"
            )
        shown = [f"{self.file}:{d.line}: {d.reason}; {then}" for d in self.lines[:most]]
        if len(self.lines) > most:
            shown.append(f"{self.file}: {len(self.lines) - most} more damaged lines, {where}")
        return shown


OnDamage = Callable[[Damage], None]


class _Journaled(Protocol):
    """A game as the journal holds it: a whole record or its summary, named by its id."""

    @property
    def game(self) -> str: ...


G = TypeVar("G", bound=_Journaled)


def _record_lines(path: Path, damaged: list[DamagedLine]) -> Iterator[Line[GameRecord]]:
    return read_lines(path, GameRecord, damaged)


class ResultsDir:
    """One tournament's folder under the results root. `on_damage` hears of the damaged lines
    each read finds (a run holding the folder sets them aside first)."""

    def __init__(self, path: Path, on_damage: OnDamage | None = None) -> None:
        self.path = path
        self.on_damage = on_damage
        self._lock: BinaryIO | None = None
        self.games_file = path / GAMES_FILE
        self.schedule_file = path / SCHEDULE_FILE

    @classmethod
    def open(
        cls,
        root: str | Path,
        tournament: Tournament,
        *,
        fresh: bool = False,
        on_damage: OnDamage | None = None,
    ) -> ResultsDir:
        """Create or resume `root/<name>` and hold it for this run; refuse a folder that holds
        another tournament or that another run holds. `fresh` empties it, once held."""
        folder = cls.hold(Path(root) / tournament.config.name, fresh=fresh, on_damage=on_damage)
        try:
            folder._pin(Stored(tournament.config, [b.name for b in tournament.bots]))
        except BaseException:
            folder.release()
            raise
        return folder

    @classmethod
    def hold(
        cls,
        path: Path,
        *,
        fresh: bool = False,
        on_damage: OnDamage | None = None,
        what: str = "tournament",
    ) -> ResultsDir:
        """Create the folder if need be and hold it (the lock, before anything is read or
        deleted); `fresh` then empties it. `what` names its kind in the refusal."""
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise storage_error("create the results folder", path, exc) from None
        folder = cls(path, on_damage)
        folder.lock(fresh=fresh, what=what)
        try:
            if fresh:
                folder._discard()
        except BaseException:
            folder.release()
            raise
        return folder

    def lock(self, *, fresh: bool = False, what: str = "tournament") -> None:
        """Hold the folder for this process: two runs of one tournament would play games twice
        (and `--fresh` would empty a folder another run writes to)."""
        try:
            fd = os.open(self.path / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise storage_error("write the results folder", self.path, exc) from None
        fh = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = fh.read(32).decode(errors="replace").strip()
            fh.close()
            raise ConfigError(
                f"{self.path} is in use by another run of this {what}"
                + (f" (process {holder})" if holder.isdigit() else "")
                + ("; --fresh discarded nothing" if fresh else "")
                + ": wait for it to finish, or stop it, and run again"
            ) from None
        fh.truncate(0)
        fh.write(f"{os.getpid()}\n".encode())  # who holds it, for the refusal above
        fh.flush()
        self._lock = fh

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing drops the lock
            self._lock = None

    def __enter__(self) -> ResultsDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _discard(self) -> None:
        """Delete everything in the folder but the lock file this run holds."""
        try:
            for entry in self.path.iterdir():
                if entry.name == LOCK_FILE:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        except OSError as exc:
            raise storage_error("discard the results in", self.path, exc) from None

    def _pin(self, current: Stored) -> None:
        """Remember which tournament the folder holds, or refuse it if it holds another."""
        stored = self.stored()
        if stored is None:
            file = self.path / CONFIG_FILE
            new = file.with_name(f".{CONFIG_FILE}.new")
            try:  # whole or not at all: a torn config would stop every later run
                new.write_bytes(msgspec.json.format(msgspec.json.encode(current)))
                os.replace(new, file)
            except OSError as exc:
                raise storage_error("write", file, exc) from None
        elif not _same_tournament(stored.config, current.config) or stored.bots != current.bots:
            raise ConfigError(
                f"{self.path} holds results of a different tournament called "
                f"{current.config.name!r}; change the name, or pass --fresh to "
                "discard those results"
            )

    @classmethod
    def existing(cls, path: str | Path, on_damage: OnDamage | None = None) -> ResultsDir:
        """A results folder to read (for the leaderboard); reading never changes it."""
        folder = Path(path)
        if not (folder / GAMES_FILE).is_file() and not (folder / CONFIG_FILE).is_file():
            raise ConfigError(f"{folder} is not a tournament results folder (no {GAMES_FILE})")
        return cls(folder, on_damage)

    def stored(self) -> Stored | None:
        file = self.path / CONFIG_FILE
        if not file.exists():
            return None
        try:
            return msgspec.json.decode(file.read_bytes(), type=Stored)
        except OSError as exc:
            raise storage_error("read", file, exc) from None
        except msgspec.DecodeError as exc:
            raise ConfigError(
                f"{file} is damaged ({exc}), so which tournament these results belong to is "
                "unknown; pass --fresh to discard them and start over"
            ) from None

    def games(self) -> Iterator[Line[GameSummary]]:
        """Every finished game as its summary (`GameSummary`: no moves, no stderr), with its
        line's number and bytes, in the order it finished, read as a stream: one line in
        memory at a time. Each game comes once (a second record of a game, as two runs at
        once wrote before runs were locked, counts as damaged). The damaged lines are
        reported once the last line is read (and first set aside by a run holding the
        folder), so read to the end."""
        return self._journal(read_summary_lines)

    def records(self) -> list[GameRecord]:
        """Every finished game's whole record, in the order it finished, each game once (as
        `games` reads them). This holds every move of every game in memory: for a few games
        (tests, a short match); standings, resumes and progress read `games` or `finished`."""
        return [line.value for line in self._journal(_record_lines)]

    def finished(
        self, each: Callable[[GameSummary], None] | None = None
    ) -> dict[str, tuple[int, ...]]:
        """The ranks of every finished game by its id, in the order the games finished: what a
        resume needs (which games are done; Swiss pairs on the ranks), from one read of the
        journal as summaries. `each` hears every game's summary as it is read, so standings
        can be tallied in the same read."""
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}  # one tuple per distinct result
        ranks: dict[str, tuple[int, ...]] = {}
        for line in self.games():
            game = line.value
            ranks[game.game] = shared.setdefault(key := tuple(game.ranks), key)
            if each is not None:
                each(game)
        return ranks

    def _journal(
        self, read: Callable[[Path, list[DamagedLine]], Iterator[Line[G]]]
    ) -> Iterator[Line[G]]:
        """The journal's good lines as `read` decodes them, each game once, then its damage
        reported (and repaired by a run holding the folder)."""
        if not self.games_file.exists():
            return
        damaged: list[DamagedLine] = []
        doubles: list[tuple[int, bytes, str]] = []  # a second record: its line, bytes and game
        seen: set[str] = set()
        for line in read(self.games_file, damaged):
            game = line.value.game
            if game in seen and game:
                doubles.append((line.number, line.data, game))
                continue
            seen.add(game)
            yield line
        twice = []
        if doubles:  # where each first record is: found again, rather than kept for every game
            first: dict[str, int] = {}
            games = {game for _, _, game in doubles}
            for line in read(self.games_file, []):
                if line.value.game in games:
                    first.setdefault(line.value.game, line.number)
            for number, data, game in doubles:
                reason = f"a second record of game {game} (the first is line {first[game]})"
                twice.append(DamagedLine(number, reason, data))
        self._repair(self.games_file, damaged, "not a game record", twice)

    def append(self, record: GameRecord) -> None:
        append_record(self.games_file, record)

    def planned(self) -> list[Game]:
        """Every game in the schedule file, in the order planned."""
        return [line.value for line in self._schedule()]

    def plan(self, games: list[Game]) -> None:
        """Write planned games to the schedule file (each once, in order). The file is read
        along `games`: while it lists them in their order (a resume plans the same games
        again) nothing is kept; only the ids of other lines are."""
        matched = 0  # games[:matched] are the file's first good lines, in order
        others: set[str] = set()
        for line in self._schedule():
            planned = line.value.id
            if matched < len(games) and games[matched].id == planned:
                matched += 1
            else:
                others.add(planned)
        new = [g for g in games[matched:] if g.id not in others]
        if new:
            data = b"".join(msgspec.json.encode(g) + b"\n" for g in new)
            append_lines(self.schedule_file, data, holds(Game))

    def _schedule(self) -> Iterator[Line[Game]]:
        """The schedule file's good lines, read as a stream, then its damage reported (and
        repaired by a run holding the folder)."""
        if not self.schedule_file.exists():
            return
        damaged: list[DamagedLine] = []
        yield from read_lines(self.schedule_file, Game, damaged)
        self._repair(self.schedule_file, damaged, "not a planned game")

    def _repair(
        self, file: Path, damaged: list[DamagedLine], what: str, twice: Sequence[DamagedLine] = ()
    ) -> None:
        """Report the damaged lines (`what` they are not) and the `twice` journaled; a run
        holding the folder first sets them aside and rewrites the file without them. A torn
        last line (a crash mid-write) is no damage: the next append cuts it."""
        bad = [replace(d, reason=f"{what} ({d.reason})") for d in damaged if not d.torn]
        shown = sorted([*bad, *twice], key=lambda d: d.line)
        if not shown:
            return
        aside = None
        if self._lock is not None:
            aside = aside_file(file)
            set_aside(file, shown, aside)
            drop_lines(file, {d.line for d in [*damaged, *twice]})
        if self.on_damage is not None:
            self.on_damage(Damage(file, shown, aside))
