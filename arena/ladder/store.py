"""The ladder's state: authors, bots, versions and the index of games, in SQLite inside the
ladder's folder, and the journal of finished games beside it.

The folder (`arena ladder init DIR` makes it):

    DIR/ladder.toml    the settings (arena.ladder.config)
    DIR/ladder.db      this store (SQLite, WAL mode: ladder.db-wal and ladder.db-shm beside it)
    DIR/games.jsonl    the journal: every finished game's record, one JSON line each
    DIR/.lock          held by the one process that writes the journal (the server)

DIR is itself a results folder: its journal is a tournament's `games.jsonl`, line for line,
so `arena leaderboard DIR`, `faults`, `export`, `replay` and `report` read a ladder as they
read a tournament. Each seat of a record names the version that played it by its label
(`bot@2`: the bot's name and the version's number), so the leaderboard has a row per version.

Crashes (`kill -9`, a power cut): every change is one SQLite transaction, committed with
`synchronous=FULL`, so what was committed stays and nothing is half done. A finished game is
written to the journal first (flushed to disk), then indexed; a crash between the two leaves
a game in the journal that the index lacks, and the next open of the store (and every later
recording) reads the journal past the last game indexed and indexes what it finds, each game
once (games are keyed by their id, and a game already indexed is never journaled again). A
torn last line (a crash mid-write) is cut, as a tournament's resume cuts it.

Threads: one process writes (it holds `DIR/.lock`), from as many threads as it likes. Each
thread has its own SQLite connection (reads run side by side, WAL lets them run beside a
write), and every write takes the store's one lock, so that journaling a game and indexing
it happen as one step, in the order the games finished. Other processes may open the store
without the journal (`writer=False`: `arena ladder author` while the server runs): SQLite
serialises their writes with the server's.

Tokens: an author's token (and the admin's) is `KEY.SECRET`, 32 random bytes of secret from
`secrets`; only the SHA-256 of the whole token is stored, found by its public KEY and
compared in constant time (`hmac.compare_digest`).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from arena.games.errors import ArenaError
from arena.games.suggest import unknown
from arena.games.text import counted
from arena.ladder.config import LADDER_FILE, LadderConfig, load_ladder_config
from arena.league.config import ConfigError
from arena.league.results import CONFIG_FILE, GAMES_FILE, LOCK_FILE, ResultsDir
from arena.referee.records import (
    Fault,
    GameRecord,
    GameSummary,
    decode_record,
    drop_torn_tail,
    holds,
    storage_error,
)

DB_FILE = "ladder.db"
#: The version of the store's tables this code reads and writes.
SCHEMA = 1
DAY = 86_400.0

Status = Literal["validating", "rejected", "active", "retired", "suspended"]
STATUSES: tuple[Status, ...] = ("validating", "rejected", "active", "retired", "suspended")

#: An author's or a bot's name: it names them in URLs, tables and version labels (`bot@2`).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_DIGEST = re.compile(r"[0-9a-f]{32,128}")


class LadderError(ArenaError):
    """A ladder operation that cannot be done: the message says why and what to do."""


class NotFound(LadderError):
    """No author, bot, version or game of that name or id."""


class NotOwner(LadderError):
    """A bot's name that belongs to another author (an upload under it is refused: 403)."""


def not_owner(bot: str, owner: str) -> NotOwner:
    """The error of an upload under a bot name that another author (`owner`) has."""
    return NotOwner(
        f"the bot name {bot!r} belongs to another author ({owner}), who first submitted it: "
        "give your bot another name in its bot.toml"
    )


class Author(msgspec.Struct, frozen=True):
    """An author: who submits bots, known by name; `revoked` authors' tokens are refused."""

    id: int
    name: str
    revoked: bool
    created: float


class Admin(msgspec.Struct, frozen=True):
    """The organiser, as the admin token authenticates them: may retire any bot."""

    name: str = "admin"


ADMIN = Admin()


class Bot(msgspec.Struct, frozen=True):
    """A bot's name on the ladder, owned by the author who first submitted it."""

    id: int
    name: str
    owner: str
    created: float


class Version(msgspec.Struct, frozen=True):
    """One submitted version of a bot: its content digest, its number among the bot's
    versions (from 1), its label in game records (`bot@number`), its status and why, the
    path of its validation report (relative to the ladder's folder), when it was submitted
    and when its status last changed (Unix seconds), how many games it has played and how
    many of its last games in a row it faulted."""

    id: int
    bot: str
    author: str
    number: int
    label: str
    digest: str
    status: Status
    reason: str
    report: str | None
    created: float
    changed: float
    games: int
    fault_streak: int


class GameEntry(msgspec.Struct, frozen=True):
    """A finished game in the index: its order among the ladder's games (`seq`, from 1), its
    id, where its record is in the journal (line from 1, byte offset and length), when it
    was indexed (Unix seconds), and the version in each seat."""

    seq: int
    id: str
    line: int
    offset: int
    length: int
    finished: float
    versions: list[int]


class Recorded(msgspec.Struct, frozen=True):
    """What `record_game` did: the game as indexed, whether it was new (False: that game was
    already recorded and nothing was written), and the versions it suspended."""

    game: GameEntry
    new: bool
    suspended: list[Version]


class Planned(msgspec.Struct, frozen=True):
    """A game the matchmaker has chosen and not yet seen finish: its id, the deal it is a
    rotation of, its seed and the version in each seat. Planned games outlive a crash, so a
    game in flight is played again under its own id (and journaled once)."""

    id: str
    deal: str
    seed: int
    versions: list[int]


_SCHEMA_SQL = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE admin (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    revoked_at REAL
);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    owner INTEGER NOT NULL REFERENCES authors (id),
    created REAL NOT NULL
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    bot INTEGER NOT NULL REFERENCES bots (id),
    number INTEGER NOT NULL,
    label TEXT NOT NULL UNIQUE,
    digest TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('validating', 'rejected', 'active', 'retired', 'suspended')),
    reason TEXT NOT NULL DEFAULT '',
    report TEXT,
    created REAL NOT NULL,
    changed REAL NOT NULL,
    games INTEGER NOT NULL DEFAULT 0,
    fault_streak INTEGER NOT NULL DEFAULT 0,
    UNIQUE (bot, digest),
    UNIQUE (bot, number)
);
CREATE INDEX versions_status ON versions (status);
CREATE INDEX versions_created ON versions (created);
CREATE TABLE games (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    line INTEGER NOT NULL,
    at INTEGER NOT NULL,
    length INTEGER NOT NULL,
    finished REAL NOT NULL
);
CREATE TABLE game_seats (
    game INTEGER NOT NULL REFERENCES games (seq),
    seat INTEGER NOT NULL,
    version INTEGER NOT NULL REFERENCES versions (id),
    rank INTEGER NOT NULL,
    score REAL NOT NULL,
    faulted INTEGER NOT NULL,
    PRIMARY KEY (game, seat)
);
CREATE INDEX game_seats_version ON game_seats (version, game);
CREATE TABLE journal (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    size INTEGER NOT NULL,
    lines INTEGER NOT NULL
);
CREATE TABLE planned (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    deal TEXT NOT NULL,
    seed INTEGER NOT NULL,
    versions TEXT NOT NULL,
    created REAL NOT NULL
);
"""

_VERSION_SQL = """
SELECT v.id, b.name, a.name, v.number, v.label, v.digest, v.status, v.reason, v.report,
       v.created, v.changed, v.games, v.fault_streak
FROM versions v JOIN bots b ON b.id = v.bot JOIN authors a ON a.id = b.owner
"""

_summary = msgspec.json.Decoder(GameSummary)
_encode = msgspec.json.Encoder().encode
_whole_record = holds(GameRecord)


def _version(row: Sequence[Any]) -> Version:
    return Version(*row)


def _entry(row: Sequence[Any], versions: list[int]) -> GameEntry:
    return GameEntry(row[0], row[1], row[2], row[3], row[4], row[5], versions)


def _author(row: Sequence[Any]) -> Author:
    return Author(row[0], row[1], bool(row[2]), row[3])


def hash_token(token: str) -> str:
    """The SHA-256 of a token, in hex: all the store keeps of it."""
    return hashlib.sha256(token.encode()).hexdigest()


def _new_token() -> tuple[str, str, str]:
    """A new token, with its public key and its hash: `KEY.SECRET`, 32 random bytes."""
    key = secrets.token_hex(6)
    token = f"{key}.{secrets.token_urlsafe(32)}"
    return token, key, hash_token(token)


def check_name(name: str, what: str) -> str:
    """`name` if it can name an author or a bot on the ladder, else a LadderError in words."""
    if not NAME.fullmatch(name):
        raise LadderError(
            f"{what} name {name!r} cannot be used: a name on the ladder is 1 to 64 letters, "
            "digits, '.', '_' or '-', starting with a letter or a digit (it names the "
            f"{what} in URLs and tables)"
        )
    return name


class LadderStore:
    """The state of one ladder folder; open it with `LadderStore.open`. Safe to use from
    several threads of one process (see the module's notes)."""

    def __init__(
        self,
        folder: Path,
        config: LadderConfig,
        *,
        writer: bool,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.folder = folder
        self.config = config
        self.writer = writer
        self.now = now
        self.db_file = folder / DB_FILE
        self.journal = folder / GAMES_FILE
        self._write = threading.RLock()  # every write; journal and index together
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._results: ResultsDir | None = None

    # -- opening and closing ------------------------------------------------------------

    @classmethod
    def open(
        cls,
        folder: str | Path,
        *,
        writer: bool = True,
        now: Callable[[], float] = time.time,
    ) -> LadderStore:
        """The store of the ladder at `folder`, its config read and checked. A `writer`
        holds the folder (one process at a time: the server) and may record games; it
        first brings the index up to date with the journal (after a crash). A store opened
        with `writer=False` manages authors, bots and versions beside a running server."""
        path = Path(folder)
        config = load_ladder_config(path)
        if not (path / DB_FILE).is_file():
            raise LadderError(
                f"{path} has {LADDER_FILE} but no {DB_FILE}: its init did not finish; "
                f"delete the folder and run arena ladder init again"
            )
        store = cls(path, config, writer=writer, now=now)
        try:
            store._check_schema()
            if writer:
                store._hold()
                store.journal.touch()
                with store._write:
                    store._catch_up(rebuild_if_changed=True)
        except sqlite3.Error as exc:
            store.close()
            raise _db_error(store.db_file, exc) from None
        except OSError as exc:
            store.close()
            raise storage_error("open the ladder in", path, exc) from None
        except BaseException:
            store.close()
            raise
        return store

    def _hold(self) -> None:
        """Hold the folder (its `.lock`, as a tournament's run holds its results folder): one
        process at a time journals games."""
        results = ResultsDir(self.folder)
        try:
            results.lock(what="ladder")
        except ConfigError:
            try:
                holder = (self.folder / LOCK_FILE).read_text().strip()
            except OSError:
                holder = ""
            raise LadderError(
                f"{self.folder} is in use by another process of this ladder"
                + (f" (process {holder})" if holder.isdigit() else "")
                + ": one process (its server) journals its games; stop it first"
            ) from None
        self._results = results

    def _check_schema(self) -> None:
        conn = self._conn()
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            conn.execute("PRAGMA journal_mode=WAL")
        try:
            row = conn.execute("SELECT version FROM schema_version").fetchone()
        except sqlite3.DatabaseError:
            row = None
        if row is None:
            raise LadderError(f"{self.db_file} is not a ladder's store (no schema version)")
        if row[0] != SCHEMA:
            raise LadderError(
                f"{self.db_file} has schema version {row[0]}; this arena reads version "
                f"{SCHEMA}: run the arena that made it"
            )

    def close(self) -> None:
        """Close every thread's connection and release the folder."""
        with self._connections_lock:
            for conn in self._connections:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._connections.clear()
        self._local = threading.local()
        if self._results is not None:
            self._results.release()
            self._results = None

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection (made on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.db_file)
            self._local.conn = conn
            with self._connections_lock:
                self._connections.append(conn)
        return conn

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT), under the store's lock; rolled
        back if anything in it fails."""
        with self._write:
            conn = self._conn()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _db_error(self.db_file, exc) from None
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise _db_error(self.db_file, exc) from None

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        try:
            return self._conn().execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise _db_error(self.db_file, exc) from None

    def results(self) -> ResultsDir:
        """The folder as a results folder to read (never repaired by this reader), as
        `arena leaderboard DIR` reads it."""
        return ResultsDir(self.folder)

    # -- authors and tokens -----------------------------------------------------------------

    def create_author(self, name: str) -> tuple[Author, str]:
        """A new author and their token (shown once: only its hash is kept)."""
        check_name(name, "author")
        with self._writing() as conn:
            found = conn.execute("SELECT revoked FROM authors WHERE name = ?", (name,)).fetchone()
            if found is not None:
                state = " (revoked)" if found[0] else ""
                raise LadderError(
                    f"author {name!r} already exists{state}: their token was shown once, when "
                    "they were made; choose another name"
                )
            token, key, digest = self._fresh_token(conn)
            now = self.now()
            cursor = conn.execute(
                "INSERT INTO authors (name, key, token_hash, created) VALUES (?, ?, ?, ?)",
                (name, key, digest, now),
            )
            assert cursor.lastrowid is not None
            return Author(cursor.lastrowid, name, False, now), token

    def _fresh_token(self, conn: sqlite3.Connection) -> tuple[str, str, str]:
        """A token whose key no author or admin has (a clash of 48 random bits is unlikely,
        and refused all the same)."""
        while True:
            token, key, digest = _new_token()
            used = conn.execute(
                "SELECT 1 FROM authors WHERE key = ? UNION SELECT 1 FROM admin WHERE key = ?",
                (key, key),
            ).fetchone()
            if used is None:
                return token, key, digest

    def revoke_author(self, name: str) -> Author:
        """Refuse `name`'s token from now on; their bots and games stay."""
        with self._writing() as conn:
            row = conn.execute(
                "SELECT id, name, revoked, created FROM authors WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                raise NotFound(self._no_author(conn, name))
            conn.execute(
                "UPDATE authors SET revoked = 1, revoked_at = ? WHERE id = ?", (self.now(), row[0])
            )
            return Author(row[0], row[1], True, row[3])

    def _no_author(self, conn: sqlite3.Connection, name: str) -> str:
        names = [r[0] for r in conn.execute("SELECT name FROM authors ORDER BY name")]
        return unknown("author", name, names)

    def author(self, name: str) -> Author | None:
        rows = self._read("SELECT id, name, revoked, created FROM authors WHERE name = ?", (name,))
        return _author(rows[0]) if rows else None

    def authors(self) -> list[Author]:
        rows = self._read("SELECT id, name, revoked, created FROM authors ORDER BY name")
        return [_author(r) for r in rows]

    def make_admin_token(self) -> str:
        """A new admin token, replacing the old one (which stops working)."""
        with self._writing() as conn:
            token, key, digest = self._fresh_token(conn)
            conn.execute(
                "INSERT OR REPLACE INTO admin (id, key, token_hash, created) VALUES (1, ?, ?, ?)",
                (key, digest, self.now()),
            )
            return token

    def authenticate(self, token: str) -> Author | Admin | None:
        """Whose token this is: an author (not revoked), the admin, or None. The token's hash
        is compared in constant time with the one stored under its key."""
        key, dot, _ = token.partition(".")
        given = hash_token(token)
        if dot and re.fullmatch(r"[0-9a-f]{12}", key):
            rows = self._read("SELECT token_hash FROM admin WHERE key = ?", (key,))
            if rows:
                return ADMIN if hmac.compare_digest(rows[0][0], given) else None
            rows = self._read(
                "SELECT id, name, revoked, created, token_hash FROM authors WHERE key = ?", (key,)
            )
            if rows:
                row = rows[0]
                if hmac.compare_digest(row[4], given) and not row[2]:
                    return _author(row)
                return None
        hmac.compare_digest(given, hash_token(""))  # as long as a comparison that is made
        return None

    # -- bots and versions --------------------------------------------------------------------

    def add_version(
        self, bot: str, author: Author, digest: str, *, report: str | None = None
    ) -> tuple[Version, bool]:
        """A new version of `bot` (status validating) by `author`, and True; the bot is
        made, owned by `author`, if it is new. A version of that bot with the same content
        digest is returned as it is, and False. Another author's bot is NotOwner."""
        check_name(bot, "bot")
        if not _DIGEST.fullmatch(digest):
            raise LadderError(f"{digest!r} is not a content digest (lowercase hex)")
        with self._writing() as conn:
            owner = conn.execute(
                "SELECT revoked FROM authors WHERE id = ?", (author.id,)
            ).fetchone()
            if owner is None or owner[0]:
                raise LadderError(f"author {author.name!r} is revoked and cannot submit")
            row = conn.execute(
                "SELECT b.id, a.id, a.name FROM bots b JOIN authors a ON a.id = b.owner "
                "WHERE b.name = ?",
                (bot,),
            ).fetchone()
            now = self.now()
            if row is None:
                cursor = conn.execute(
                    "INSERT INTO bots (name, owner, created) VALUES (?, ?, ?)",
                    (bot, author.id, now),
                )
                bot_id = cursor.lastrowid
            elif row[1] != author.id:
                raise not_owner(bot, row[2])
            else:
                bot_id = row[0]
                same = conn.execute(
                    _VERSION_SQL + "WHERE v.bot = ? AND v.digest = ?", (bot_id, digest)
                ).fetchone()
                if same is not None:
                    return _version(same), False
            (number,) = conn.execute(
                "SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE bot = ?", (bot_id,)
            ).fetchone()
            cursor = conn.execute(
                "INSERT INTO versions (bot, number, label, digest, status, report, created, "
                "changed) VALUES (?, ?, ?, ?, 'validating', ?, ?, ?)",
                (bot_id, number, f"{bot}@{number}", digest, report, now, now),
            )
            assert cursor.lastrowid is not None
            return self._version_in(conn, cursor.lastrowid), True

    def _version_in(self, conn: sqlite3.Connection, version: int) -> Version:
        row = conn.execute(_VERSION_SQL + "WHERE v.id = ?", (version,)).fetchone()
        if row is None:
            raise NotFound(f"no version {version} on this ladder")
        return _version(row)

    def version(self, version: int) -> Version:
        """The version of that id (NotFound if none)."""
        rows = self._read(_VERSION_SQL + "WHERE v.id = ?", (version,))
        if not rows:
            raise NotFound(f"no version {version} on this ladder")
        return _version(rows[0])

    def version_by_label(self, label: str) -> Version | None:
        rows = self._read(_VERSION_SQL + "WHERE v.label = ?", (label,))
        return _version(rows[0]) if rows else None

    def bot(self, name: str) -> Bot | None:
        rows = self._read(
            "SELECT b.id, b.name, a.name, b.created FROM bots b JOIN authors a ON a.id = b.owner "
            "WHERE b.name = ?",
            (name,),
        )
        return Bot(*rows[0]) if rows else None

    def bots(self) -> list[Bot]:
        rows = self._read(
            "SELECT b.id, b.name, a.name, b.created FROM bots b JOIN authors a ON a.id = b.owner "
            "ORDER BY b.name"
        )
        return [Bot(*r) for r in rows]

    def versions(self, bot: str) -> list[Version]:
        """Every version of `bot`, oldest first (none for a bot not on the ladder)."""
        rows = self._read(_VERSION_SQL + "WHERE b.name = ? ORDER BY v.number", (bot,))
        return [_version(r) for r in rows]

    def active_versions(self) -> list[Version]:
        """The versions that play, oldest bot first: one per bot at most."""
        rows = self._read(_VERSION_SQL + "WHERE v.status = 'active' ORDER BY v.bot")
        return [_version(r) for r in rows]

    def set_status(
        self, version: int, status: Status, reason: str = "", *, report: str | None = None
    ) -> Version:
        """Give a version its status, with the reason its author reads (and the path of its
        validation report, relative to the folder, when given). `active` is `activate`."""
        if status not in STATUSES:
            raise LadderError(f"{status!r} is no status; statuses: {', '.join(STATUSES)}")
        if status == "active":
            return self.activate(version, reason, report=report)[0]
        with self._writing() as conn:
            self._version_in(conn, version)
            conn.execute(
                "UPDATE versions SET status = ?, reason = ?, report = COALESCE(?, report), "
                "changed = ? WHERE id = ?",
                (status, reason, report, self.now(), version),
            )
            return self._version_in(conn, version)

    def activate(
        self, version: int, reason: str = "", *, report: str | None = None
    ) -> tuple[Version, list[Version]]:
        """Make a version active (its fault streak starts again, and `report`, when given,
        is the path of its validation report) and retire the bot's version that was active
        before it, in one transaction: the new version, and those retired. The retired
        versions' games stay in the journal and the index."""
        with self._writing() as conn:
            new = self._version_in(conn, version)
            now = self.now()
            retired = [
                _version(r)
                for r in conn.execute(
                    _VERSION_SQL + "WHERE v.bot = (SELECT bot FROM versions WHERE id = ?) "
                    "AND v.status = 'active' AND v.id != ?",
                    (version, version),
                )
            ]
            for old in retired:
                conn.execute(
                    "UPDATE versions SET status = 'retired', reason = ?, changed = ? WHERE id = ?",
                    (f"replaced by {new.label}", now, old.id),
                )
            conn.execute(
                "UPDATE versions SET status = 'active', reason = ?, fault_streak = 0, "
                "report = COALESCE(?, report), changed = ? WHERE id = ?",
                (reason, report, now, version),
            )
            return (
                self._version_in(conn, version),
                [self._version_in(conn, old.id) for old in retired],
            )

    def retire_bot(self, bot: str, reason: str) -> list[Version]:
        """Retire every version of `bot` that plays or is being validated (the admin's
        retirement of a bot): the versions retired."""
        with self._writing() as conn:
            if conn.execute("SELECT 1 FROM bots WHERE name = ?", (bot,)).fetchone() is None:
                raise NotFound(f"no bot {bot!r} on this ladder")
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT v.id FROM versions v JOIN bots b ON b.id = v.bot WHERE b.name = ? "
                    "AND v.status IN ('active', 'validating', 'suspended')",
                    (bot,),
                )
            ]
            for vid in ids:
                conn.execute(
                    "UPDATE versions SET status = 'retired', reason = ?, changed = ? WHERE id = ?",
                    (reason, self.now(), vid),
                )
            return [self._version_in(conn, vid) for vid in ids]

    def active_bots(self, author: Author) -> list[str]:
        """The names of `author`'s bots that have an active version (for the limit of
        active bots per author)."""
        rows = self._read(
            "SELECT DISTINCT b.name FROM bots b JOIN versions v ON v.bot = b.id "
            "WHERE b.owner = ? AND v.status = 'active' ORDER BY b.name",
            (author.id,),
        )
        return [r[0] for r in rows]

    def submissions_since(self, author: Author, since: float) -> int:
        """How many versions `author` submitted at or after `since` (Unix seconds)."""
        rows = self._read(
            "SELECT COUNT(*) FROM versions v JOIN bots b ON b.id = v.bot "
            "WHERE b.owner = ? AND v.created >= ?",
            (author.id, since),
        )
        return int(rows[0][0])

    def submissions_today(self, author: Author) -> int:
        """How many versions `author` submitted in the last 24 hours (for the daily limit)."""
        return self.submissions_since(author, self.now() - DAY)

    # -- games --------------------------------------------------------------------------------

    def record_game(self, record: GameRecord) -> Recorded:
        """Journal a finished game and index it, once: a game whose id is already recorded
        is not written again (a game played again after a crash). Each seat's bot must be
        the label of a version (`bot@2`), each version seated once. The versions that this
        game brings to `[matchmaking] suspend_after` faulted games in a row are suspended,
        in the same transaction."""
        if not self.writer:
            raise LadderError("this store was opened without the journal (writer=False)")
        if not record.game:
            raise LadderError("a ladder game needs its id (the record's `game`)")
        labels = [s.bot for s in record.seats]
        if len(set(labels)) != len(labels):
            raise LadderError(f"game {record.game} seats a version twice: {', '.join(labels)}")
        with self._write:
            self._catch_up()
            known = self._game(record.game)
            if known is not None:
                return Recorded(known, False, [])
            versions = self._labels(labels)
            line = _encode(record) + b"\n"
            at = self._append(line)
            with self._writing() as conn:
                entry, suspended = self._index(
                    conn, GameSummary.of(record), versions, at, len(line), suspend=True
                )
            return Recorded(entry, True, suspended)

    def _labels(self, labels: Sequence[str]) -> list[int]:
        """The version id of each label, or a LadderError naming those that are none."""
        found: dict[str, int] = {}
        for label in labels:
            rows = self._read("SELECT id FROM versions WHERE label = ?", (label,))
            if rows:
                found[label] = rows[0][0]
        missing = [label for label in labels if label not in found]
        if missing:
            raise LadderError(
                f"no version is labelled {', '.join(missing)}: a ladder game's seats name "
                "versions by their labels (bot@number)"
            )
        return [found[label] for label in labels]

    def _append(self, line: bytes) -> int:
        """Append `line` to the journal, flushed to disk; the offset it starts at."""
        try:
            with open(self.journal, "ab+") as fh:
                drop_torn_tail(fh, _whole_record)
                at = fh.seek(0, os.SEEK_END)
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise storage_error("append to", self.journal, exc) from None
        return at

    def _index(
        self,
        conn: sqlite3.Connection,
        game: GameSummary,
        versions: Sequence[int],
        at: int,
        length: int,
        *,
        suspend: bool,
    ) -> tuple[GameEntry, list[Version]]:
        """Index one journaled game (inside the caller's transaction): its position, its
        seats, the versions' counts of games and faults in a row (and with `suspend`, the
        suspensions they bring); the journal's indexed size moves past it."""
        (lines,) = conn.execute("SELECT lines FROM journal").fetchone()
        now = self.now()
        cursor = conn.execute(
            "INSERT INTO games (id, line, at, length, finished) VALUES (?, ?, ?, ?, ?)",
            (game.game, lines + 1, at, length, now),
        )
        seq = cursor.lastrowid
        assert seq is not None
        faulted = {f.seat for f in game.faults}
        first_fault: dict[int, Fault] = {}
        for f in game.faults:
            first_fault.setdefault(f.seat, f)
        suspended = []
        limit = self.config.matchmaking.suspend_after
        for seat, version in enumerate(versions):
            fault = seat in faulted
            conn.execute(
                "INSERT INTO game_seats (game, seat, version, rank, score, faulted) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (seq, seat, version, game.ranks[seat], game.scores[seat], int(fault)),
            )
            if game.error is not None:  # a referee error: charged to no bot
                conn.execute("UPDATE versions SET games = games + 1 WHERE id = ?", (version,))
                continue
            conn.execute(
                "UPDATE versions SET games = games + 1, fault_streak = "
                "CASE WHEN ? THEN fault_streak + 1 ELSE 0 END WHERE id = ?",
                (int(fault), version),
            )
            if not (fault and suspend):
                continue
            streak, status = conn.execute(
                "SELECT fault_streak, status FROM versions WHERE id = ?", (version,)
            ).fetchone()
            if streak >= limit and status == "active":
                why = (
                    f"suspended: it faulted in {counted(streak, 'game')} in a row (the last, "
                    f"game {game.game}: {first_fault[seat].sentence()}); fix it and submit a "
                    "new version"
                )
                conn.execute(
                    "UPDATE versions SET status = 'suspended', reason = ?, changed = ? "
                    "WHERE id = ?",
                    (why, now, version),
                )
                suspended.append(self._version_in(conn, version))
        conn.execute("UPDATE journal SET size = ?, lines = lines + 1", (at + length,))
        conn.execute("DELETE FROM planned WHERE id = ?", (game.game,))
        entry = GameEntry(seq, game.game, lines + 1, at, length, now, list(versions))
        return entry, suspended

    def _catch_up(self, *, rebuild_if_changed: bool = False) -> int:
        """Index the games of the journal past its indexed size (a crash between journaling
        a game and indexing it): how many. With `rebuild_if_changed`, a journal that is not
        the one indexed (shorter, or its last indexed game no longer where it was: rewritten
        by hand or by a repair) has its positions indexed again from its start."""
        size = self.journal.stat().st_size if self.journal.exists() else 0
        (indexed, lines) = self._read("SELECT size, lines FROM journal")[0]
        if rebuild_if_changed and not self._same_journal(size, indexed):
            return self._rebuild()
        if size == indexed:
            return 0
        with open(self.journal, "ab+") as fh:  # a torn last line is cut, a whole one ended
            drop_torn_tail(fh, _whole_record)
            size = fh.seek(0, os.SEEK_END)
        if size <= indexed:
            return 0
        count = 0
        for number, at, data in _lines_from(self.journal, indexed, lines):
            try:
                game = _summary.decode(data)
            except msgspec.DecodeError:
                game = None
            with self._writing() as conn:
                if game is None or not game.game or self._game(game.game) is not None:
                    conn.execute(  # not a game, or one indexed: passed over, counted as a line
                        "UPDATE journal SET size = ?, lines = ?", (at + len(data), number)
                    )
                    continue
                versions = self._labels_or_none([s.bot for s in game.seats])
                if versions is None:  # a game of no known versions: the journal keeps it
                    conn.execute("UPDATE journal SET size = ?, lines = ?", (at + len(data), number))
                    continue
                self._index(conn, game, versions, at, len(data), suspend=True)
                count += 1
        return count

    def _labels_or_none(self, labels: Sequence[str]) -> list[int] | None:
        try:
            return self._labels(labels)
        except LadderError:
            return None

    def _same_journal(self, size: int, indexed: int) -> bool:
        """Whether the journal still holds, where the index says, the last game indexed."""
        if size < indexed:
            return False
        rows = self._read("SELECT id, at, length FROM games ORDER BY seq DESC LIMIT 1")
        if not rows:
            return True
        game, at, length = rows[0]
        return bool(_game_at(self.journal, at, length) == game)

    def _rebuild(self) -> int:
        """Index the journal again from its start: every game's position and line, the
        games the index lacks added, those the journal lost removed, and each version's
        counts of games and faults in a row worked out again (suspending no one). How many
        games the journal holds."""
        with self._writing() as conn:
            conn.execute("DELETE FROM game_seats")
            conn.execute("DELETE FROM games")
            conn.execute("UPDATE versions SET games = 0, fault_streak = 0")
            conn.execute("UPDATE journal SET size = 0, lines = 0")
            count = 0
            for number, at, data in _lines_from(self.journal, 0, 0):
                try:
                    game = _summary.decode(data)
                except msgspec.DecodeError:
                    game = None
                versions = None
                if game is not None and game.game:
                    seen = conn.execute("SELECT 1 FROM games WHERE id = ?", (game.game,))
                    if seen.fetchone() is None:
                        versions = self._labels_or_none([s.bot for s in game.seats])
                if game is not None and versions is not None:
                    self._index(conn, game, versions, at, len(data), suspend=False)
                    count += 1
                conn.execute("UPDATE journal SET size = ?, lines = ?", (at + len(data), number))
            return count

    def _game(self, game: str) -> GameEntry | None:
        rows = self._read(
            "SELECT seq, id, line, at, length, finished FROM games WHERE id = ?", (game,)
        )
        if not rows:
            return None
        seats = self._read(
            "SELECT version FROM game_seats WHERE game = ? ORDER BY seat", (rows[0][0],)
        )
        return _entry(rows[0], [s[0] for s in seats])

    def game(self, game: str) -> GameEntry | None:
        """The indexed game of that id, or None."""
        return self._game(game)

    def read_game(self, game: str) -> GameRecord:
        """The whole record of a finished game, read from the journal where the index says
        (NotFound if there is none)."""
        entry = self._game(game)
        if entry is None:
            raise NotFound(f"no game {game!r} on this ladder")
        try:
            with open(self.journal, "rb") as fh:
                fh.seek(entry.offset)
                data = fh.read(entry.length)
        except OSError as exc:
            raise storage_error("read", self.journal, exc) from None
        try:
            record = decode_record(data)
        except msgspec.DecodeError:
            record = None
        if record is None or record.game != game:  # the journal was rewritten since
            for _, _, line in _lines_from(self.journal, 0, 0):
                with contextlib.suppress(msgspec.DecodeError):
                    if _summary.decode(line).game == game:
                        return decode_record(line)
            raise NotFound(f"game {game!r} is indexed but no longer in {self.journal}")
        return record

    def games(self, bot: str | None = None, *, limit: int = 50, skip: int = 0) -> list[GameEntry]:
        """Finished games, the last first, `limit` of them after skipping `skip`; with
        `bot`, only the games a version of that bot played."""
        if bot is None:
            rows = self._read(
                "SELECT seq, id, line, at, length, finished FROM games ORDER BY seq DESC "
                "LIMIT ? OFFSET ?",
                (limit, skip),
            )
        else:
            rows = self._read(
                "SELECT DISTINCT g.seq, g.id, g.line, g.at, g.length, g.finished FROM games g "
                "JOIN game_seats s ON s.game = g.seq JOIN versions v ON v.id = s.version "
                "JOIN bots b ON b.id = v.bot WHERE b.name = ? ORDER BY g.seq DESC "
                "LIMIT ? OFFSET ?",
                (bot, limit, skip),
            )
        out = []
        for row in rows:
            seats = self._read(
                "SELECT version FROM game_seats WHERE game = ? ORDER BY seat", (row[0],)
            )
            out.append(_entry(row, [s[0] for s in seats]))
        return out

    def game_count(self, bot: str | None = None) -> int:
        """How many games the ladder has finished (with `bot`: a version of that bot played)."""
        if bot is None:
            return int(self._read("SELECT COUNT(*) FROM games")[0][0])
        rows = self._read(
            "SELECT COUNT(DISTINCT s.game) FROM game_seats s JOIN versions v ON "
            "v.id = s.version JOIN bots b ON b.id = v.bot WHERE b.name = ?",
            (bot,),
        )
        return int(rows[0][0])

    def game_counts(self, *, active_only: bool = True) -> dict[int, int]:
        """Games played by each version (by id): the active ones, or all of them."""
        where = "WHERE status = 'active'" if active_only else ""
        return {r[0]: r[1] for r in self._read(f"SELECT id, games FROM versions {where}")}

    # -- planned games ----------------------------------------------------------------------

    def plan(self, games: Sequence[Planned]) -> None:
        """Remember games chosen to be played, so that a crash does not forget them (a game
        already planned or finished is passed over)."""
        with self._writing() as conn:
            now = self.now()
            for game in games:
                if conn.execute("SELECT 1 FROM games WHERE id = ?", (game.id,)).fetchone():
                    continue
                conn.execute(
                    "INSERT OR IGNORE INTO planned (id, deal, seed, versions, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (game.id, game.deal, game.seed, _encode(game.versions).decode(), now),
                )

    def planned(self) -> list[Planned]:
        """The games planned and not finished, in the order planned."""
        rows = self._read("SELECT id, deal, seed, versions FROM planned ORDER BY seq")
        return [Planned(r[0], r[1], r[2], msgspec.json.decode(r[3], type=list[int])) for r in rows]

    def unplan(self, games: Sequence[str]) -> None:
        """Forget planned games that will not be played (a version in them retired)."""
        with self._writing() as conn:
            conn.executemany("DELETE FROM planned WHERE id = ?", [(g,) for g in games])


def connect(db: Path) -> sqlite3.Connection:
    """A connection to the store: autocommit (transactions are explicit), foreign keys on,
    every commit on disk before it returns (`synchronous=FULL`), waiting up to 10 s for
    another writer."""
    conn = sqlite3.connect(db, isolation_level=None, timeout=10.0, check_same_thread=False)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA busy_timeout = 10000")
    return conn


def _db_error(db: Path, exc: sqlite3.Error) -> LadderError:
    return LadderError(f"the ladder's store {db} cannot be used: {exc}")


def _lines_from(path: Path, at: int, lines: int) -> Iterator[tuple[int, int, bytes]]:
    """The whole lines of `path` from byte `at` (which starts line `lines` + 1): each line's
    number, offset and bytes (its newline included); a last line without one is left out."""
    with open(path, "rb", buffering=1 << 20) as fh:
        fh.seek(at)
        number = lines
        for data in fh:
            if not data.endswith(b"\n"):
                return
            number += 1
            yield number, at, data
            at += len(data)


def _game_at(path: Path, at: int, length: int) -> str | None:
    """The id of the game whose record is at `at` in `path`, `length` bytes, or None."""
    try:
        with open(path, "rb") as fh:
            fh.seek(at)
            data = fh.read(length)
        return _summary.decode(data).game
    except (OSError, msgspec.DecodeError):
        return None


# -- making a ladder --------------------------------------------------------------------------


def refuse_existing(folder: Path) -> None:
    """Refuse a folder that already holds a ladder, or a tournament's results, or is a file."""
    if folder.exists() and not folder.is_dir():
        raise LadderError(f"{folder} is a file, not a folder: choose a folder for the ladder")
    for name in (LADDER_FILE, DB_FILE):
        if (folder / name).exists():
            raise LadderError(
                f"{folder} already holds a ladder ({name}): choose another folder, or delete "
                "this one to start over"
            )
    for name in (GAMES_FILE, CONFIG_FILE):
        if (folder / name).exists():
            raise LadderError(
                f"{folder} holds a tournament's results ({name}): choose another folder"
            )


def init_ladder(folder: str | Path, config: LadderConfig, heading: str = "") -> str:
    """Make a ladder in `folder`: its store (empty, with an admin token), an empty journal,
    and `ladder.toml` (written last: a folder without it is no ladder). The admin token,
    shown once (only its hash is kept)."""
    from arena.ladder.config import write_ladder_config

    path = Path(folder)
    refuse_existing(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise storage_error("create the ladder folder", path, exc) from None
    new = path / f".{DB_FILE}.new"
    for leftover in (new, new.with_name(new.name + "-wal"), new.with_name(new.name + "-shm")):
        leftover.unlink(missing_ok=True)
    try:
        conn = connect(new)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(f"BEGIN; {_SCHEMA_SQL} COMMIT;")
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA,))
            conn.execute("INSERT INTO journal (id, size, lines) VALUES (1, 0, 0)")
            token, key, digest = _new_token()
            conn.execute(
                "INSERT INTO admin (id, key, token_hash, created) VALUES (1, ?, ?, ?)",
                (key, digest, time.time()),
            )
            conn.execute("COMMIT")
        finally:
            conn.close()  # the last connection: the WAL is checkpointed and removed
        os.replace(new, path / DB_FILE)
        (path / GAMES_FILE).touch()
    except sqlite3.Error as exc:
        raise _db_error(path / DB_FILE, exc) from None
    except OSError as exc:
        raise storage_error("write the ladder folder", path, exc) from None
    write_ladder_config(path, config, heading)
    return token
