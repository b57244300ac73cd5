"""A tournament's results folder: its config, its schedule and the journal of finished games.

`results/<name>/tournament.json` pins what was started, `schedule.jsonl` lists every planned
game, and `games.jsonl` gets each finished game appended and flushed as it ends. Re-opening
the folder for the same tournament resumes it: finished games are never played again.
"""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path
from typing import BinaryIO

import msgspec

from arena.league.config import ConfigError, Tournament, TournamentConfig
from arena.league.schedule import Game
from arena.referee.records import GameRecord, append_record, drop_torn_tail, read_records

CONFIG_FILE = "tournament.json"
SCHEDULE_FILE = "schedule.jsonl"
GAMES_FILE = "games.jsonl"
LOCK_FILE = ".lock"


class Stored(msgspec.Struct, frozen=True):
    """What the folder remembers of the tournament: its config and the bots' names."""

    config: TournamentConfig
    bots: list[str]


def _same_tournament(a: TournamentConfig, b: TournamentConfig) -> bool:
    # How many games run at once and how bots are sandboxed do not change which games are played.
    def games(c: TournamentConfig) -> TournamentConfig:
        bots = [msgspec.structs.replace(e, sandbox=None) for e in c.bots]
        return msgspec.structs.replace(
            c, jobs=None, sandbox="auto", allow_mixed_sandbox=False, bots=bots
        )

    return games(a) == games(b)


class ResultsDir:
    """One tournament's folder under the results root."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock: BinaryIO | None = None
        self.games_file = path / GAMES_FILE
        self.schedule_file = path / SCHEDULE_FILE

    @classmethod
    def open(cls, root: str | Path, tournament: Tournament, *, fresh: bool = False) -> ResultsDir:
        """Create or resume `root/<name>`; refuse a folder that holds another tournament."""
        path = Path(root) / tournament.config.name
        if fresh and path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True, exist_ok=True)
        stored_file = path / CONFIG_FILE
        current = Stored(tournament.config, [b.name for b in tournament.bots])
        if stored_file.exists():
            stored = msgspec.json.decode(stored_file.read_bytes(), type=Stored)
            if not _same_tournament(stored.config, current.config) or stored.bots != current.bots:
                raise ConfigError(
                    f"{path} holds results of a different tournament called "
                    f"{tournament.config.name!r}; change the name, or pass --fresh to "
                    "discard those results"
                )
        else:
            stored_file.write_bytes(msgspec.json.format(msgspec.json.encode(current)))
        folder = cls(path)
        folder.lock()
        return folder

    def lock(self) -> None:
        """Hold the folder for this process: two runs of one tournament would play games twice."""
        fh = open(self.path / LOCK_FILE, "wb")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise ConfigError(f"{self.path} is in use by another run of this tournament") from None
        self._lock = fh

    def release(self) -> None:
        if self._lock is not None:
            self._lock.close()  # closing drops the lock
            self._lock = None

    def __enter__(self) -> ResultsDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    @classmethod
    def existing(cls, path: str | Path) -> ResultsDir:
        """A results folder to read (for the leaderboard)."""
        folder = Path(path)
        if not (folder / GAMES_FILE).is_file() and not (folder / CONFIG_FILE).is_file():
            raise ConfigError(f"{folder} is not a tournament results folder (no {GAMES_FILE})")
        return cls(folder)

    def stored(self) -> Stored | None:
        file = self.path / CONFIG_FILE
        if not file.exists():
            return None
        return msgspec.json.decode(file.read_bytes(), type=Stored)

    def records(self) -> list[GameRecord]:
        """Every finished game, in the order it finished."""
        if not self.games_file.exists():
            return []
        return list(read_records(self.games_file))

    def finished(self) -> dict[str, GameRecord]:
        return {r.game: r for r in self.records()}

    def append(self, record: GameRecord) -> None:
        append_record(self.games_file, record)

    def planned(self) -> list[Game]:
        """Every game in the schedule file, in the order planned."""
        if not self.schedule_file.exists():
            return []
        games = []
        lines = self.schedule_file.read_bytes().split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                games.append(msgspec.json.decode(line, type=Game))
            except msgspec.DecodeError:
                if number < len(lines) - 1 or (number == len(lines) - 1 and lines[-1]):
                    raise  # only the last line can be torn by a crash mid-write
        return games

    def plan(self, games: list[Game]) -> None:
        """Write planned games to the schedule file (each once, in order)."""
        known = {g.id for g in self.planned()}
        new = [g for g in games if g.id not in known]
        if new:
            with open(self.schedule_file, "ab+") as fh:
                drop_torn_tail(fh)
                fh.write(b"".join(msgspec.json.encode(g) + b"\n" for g in new))
