"""Bot folders as content-addressed archives: packed once by the coordinator, sent to each
worker once, unpacked there once under their digest, so every worker runs the same bytes.

A bot with a folder ships its folder (as `folder_files` lists it: no build stamp, no `.git`
or `__pycache__`; the worker builds it afresh). A bot given as a command line ships the
files its command names under its working directory; programs it runs from elsewhere
(`node`, `/usr/bin/java`) must be installed on the worker.

The cache a worker unpacks into is private to its user (`cache_folder`), so no other user can
plant a bot there, and a folder found under a digest is checked against the archive before
it is used (`unpack`). An entry is marked used at each unpack and held while a worker plays
it (`lease`); entries no worker has used for `ARENA_BOT_CACHE_DAYS` days (7 by default) are
removed (`clean_cache`), never one held or being unpacked or built.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import hashlib
import io
import os
import secrets
import shutil
import stat
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import BinaryIO

import msgspec

from arena.games.errors import ArenaError
from arena.referee.folders import BUILD_STAMP, BotSpec, build_outputs, folder_files
from arena.referee.sandbox import own_paths


class Parcel(msgspec.Struct, frozen=True):
    """A packed bot: its archive's SHA-256 and the coordinator's folder the archive holds."""

    digest: str
    root: str


def _files(spec: BotSpec) -> tuple[str, list[str]] | None:
    """The folder a bot's archive is made of and the files in it (relative), or None when it
    has nothing to ship."""
    if spec.folder is not None:
        return spec.folder, sorted(folder_files(spec.folder))
    root = os.path.abspath(spec.cwd or os.getcwd())
    named = [
        os.path.relpath(path, root)
        for path in own_paths(spec.argv(), root, None)
        if os.path.isfile(path) and path.startswith(root + os.sep)
    ]
    return (root, sorted(named)) if named else None


def pack(spec: BotSpec) -> tuple[Parcel, bytes] | None:
    """The bot's archive (a gzipped tar, the same bytes for the same files: sorted, owners and
    times zeroed) and its parcel; None when it has no files to ship."""
    found = _files(spec)
    if found is None:
        return None
    root, files = found
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            path = os.path.join(root, rel)
            st = os.lstat(path)
            info = tarfile.TarInfo(rel)
            info.mtime = 0
            if stat.S_ISLNK(st.st_mode):
                info.type = tarfile.SYMTYPE
                info.linkname = os.readlink(path)
                tar.addfile(info)
                continue
            info.mode = 0o755 if st.st_mode & stat.S_IXUSR else 0o644
            with open(path, "rb") as fh:
                data = fh.read()
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = gzip.compress(raw.getvalue(), mtime=0)
    return Parcel(hashlib.sha256(data).hexdigest(), root), data


class CacheError(ArenaError):
    """A worker's bot cache that another user may have written to (refused), or an archive
    that could not be unpacked into it."""


def _unsafe(path: Path) -> str | None:
    """Why `path` may not hold this user's unpacked bots, or None: it must be a folder (not
    a symbolic link), this user's, and closed to everyone else (mode 0700)."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot be looked at ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid != os.geteuid():
        return f"belongs to user {st.st_uid}, not to this user ({os.geteuid()})"
    if st.st_mode & 0o077:
        return f"is open to other users (mode {stat.S_IMODE(st.st_mode):04o}, not 0700)"
    return None


_fresh: Path | None = None  # this process's own cache, when the default one cannot be trusted


def cache_folder() -> Path:
    """Where a worker unpacks bots, private to this user (its own, mode 0700):
    $ARENA_BOT_CACHE (made if missing; CacheError, in words, when it is not private), else
    `arena-bots-<uid>` in the temporary directory. Anyone may take that name first: that
    folder is used when it is this user's and nobody else may write to it (then made 0700),
    and otherwise this process unpacks into a fresh private folder of its own."""
    global _fresh
    chosen = os.environ.get("ARENA_BOT_CACHE")
    if chosen:
        base = Path(chosen)
        with contextlib.suppress(FileExistsError):
            base.mkdir(parents=True, mode=0o700)
        if (why := _unsafe(base)) is not None:
            raise CacheError(
                f"the bot cache {base} (ARENA_BOT_CACHE) {why}: another user could replace "
                "the bots there; name a folder of your own that only you may use (chmod 700)"
            )
        return base
    if _fresh is not None and _unsafe(_fresh) is None:
        return _fresh
    base = Path(tempfile.gettempdir()) / f"arena-bots-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        base.mkdir(mode=0o700)
    with contextlib.suppress(OSError):
        st = os.lstat(base)
        mine = stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()
        if mine and not st.st_mode & 0o022 and stat.S_IMODE(st.st_mode) != 0o700:
            os.chmod(base, 0o700)  # (readable by all as earlier versions made it, or umask's)
    if _unsafe(base) is None:
        return base
    _fresh = Path(tempfile.mkdtemp(prefix=f"arena-bots-{os.getuid()}-"))
    return _fresh


_checked: dict[str, tuple[int, int]] = {}  # folders found sound here: (device, inode) by path


def unpack(parcel: Parcel, data: bytes, base: Path | None = None) -> Path:
    """The folder holding the parcel's files on this machine (`base`: the cache folder, which
    must be private), unpacked on first use.

    The archive is unpacked into a fresh folder, renamed into place whole, so a half-written
    folder is never used. A folder already there under the digest is used once it is found
    sound (`_sound`: this user's, closed to others, and holding the archive's files as they
    are in it, but for those its last build changed), once per process; one that is not (a
    folder planted there, or changed) is put aside and unpacked anew. Concurrent unpacks of
    one digest take turns (a lock file beside the folder); a rename onto a folder another
    process made first keeps that folder, once found sound."""
    base = cache_folder() if base is None else base
    if (why := _unsafe(base)) is not None:
        raise CacheError(f"the bot cache {base} {why}: another user could replace the bots there")
    target = base / parcel.digest
    _mark_used(base, parcel.digest)
    with contextlib.suppress(OSError):
        st = os.lstat(target)
        if _checked.get(str(target)) == (st.st_dev, st.st_ino):
            return target
    if hashlib.sha256(data).hexdigest() != parcel.digest:
        raise ValueError(f"the archive of {parcel.root} arrived damaged")
    with _held(base / f".{parcel.digest}.lock", fcntl.LOCK_EX):
        members: dict[str, tuple[str, bytes]] | None = None  # (read only if a folder is there)
        for _ in range(3):
            if os.path.lexists(target):
                if members is None:
                    members = _members(data)
                if _sound(target, members):
                    return _remember(target)
                aside = base / f".{parcel.digest[:16]}-old-{secrets.token_hex(8)}"
                os.rename(target, aside)  # (in the same folder: allowed whoever owns it)
                if aside.is_dir() and not aside.is_symlink():
                    shutil.rmtree(aside, ignore_errors=True)  # (what is another's may stay)
                else:
                    aside.unlink()
            scratch = Path(tempfile.mkdtemp(dir=base, prefix=f".{parcel.digest[:16]}-"))
            scratch.chmod(0o755)  # mkdtemp's 0o700 would hide the bot from its sandboxed self
            with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r") as tar:
                tar.extractall(scratch, filter="data")  # nothing lands outside the folder
            try:
                os.rename(scratch, target)
            except OSError as exc:  # another process unpacked it first: look at its folder
                shutil.rmtree(scratch, ignore_errors=True)
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                    raise
                continue
            return _remember(target)
    raise CacheError(f"the archive of {parcel.root} could not be unpacked into {target}")


USE_SUFFIX = ".use"  # `.DIGEST.use` beside an entry: when it was last used, who holds it
CACHE_DAYS = 7.0  # days an entry nobody uses stays (ARENA_BOT_CACHE_DAYS)


def _held(path: Path, how: int) -> BinaryIO:
    """The lock file `path` (made if missing, for this user only) open and locked with
    flock `how` (with LOCK_NB: BlockingIOError when another holds it), once the lock holds
    the file the path names: `clean_cache` removes lock files, and a lock taken on a file
    just removed would guard nothing."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        held = os.fdopen(fd, "r+b")
        try:
            fcntl.flock(held, how)
            mine = os.fstat(fd)
            with contextlib.suppress(FileNotFoundError):
                now = os.lstat(path)
                if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                    return held
        except BaseException:
            held.close()
            raise
        held.close()


def _mark_used(base: Path, digest: str) -> None:
    """Note that the entry `digest` is used now (its use file's time)."""
    path = base / f".{digest}{USE_SUFFIX}"
    try:
        os.utime(path)
    except FileNotFoundError:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.close(fd)


def lease(parcel: Parcel, base: Path | None = None) -> BinaryIO:
    """The parcel's cache entry held in use until the file returned is closed (a shared lock
    on its use file, marked used now): `clean_cache`, in this process or another, leaves it
    alone meanwhile. A worker takes it before it unpacks the bot and keeps it while it may
    play it."""
    base = cache_folder() if base is None else base
    held = _held(base / f".{parcel.digest}{USE_SUFFIX}", fcntl.LOCK_SH)
    os.utime(held.fileno())
    return held


def cache_days() -> float:
    """How many days an entry nobody used stays in the cache: $ARENA_BOT_CACHE_DAYS (a number
    >= 0; 0 removes every entry not in use), else CACHE_DAYS."""
    text = os.environ.get("ARENA_BOT_CACHE_DAYS", "").strip()
    if not text:
        return CACHE_DAYS
    try:
        days = float(text)
    except ValueError:
        days = -1.0
    if not days >= 0 or days == float("inf"):
        raise CacheError(
            f"ARENA_BOT_CACHE_DAYS is {text!r}, not a number of days (>= 0) that an unused "
            "bot stays in the cache"
        )
    return days


_cleaning = threading.Lock()  # one clean-up at a time in this process


def clean_cache(base: Path | None = None, days: float | None = None) -> list[str]:
    """Remove from the cache (`base`: the cache folder) the entries nobody used for `days`
    days (by default `cache_days`): their folders, use and lock files, and what unpacks
    left behind that long ago; the digests removed. An entry held (`lease`), being unpacked
    (its lock) or being built (its build stamp locked) is never removed, however old, and
    neither is one used again while it is looked at."""
    base = cache_folder() if base is None else base
    days = cache_days() if days is None else days
    if (why := _unsafe(base)) is not None:
        raise CacheError(f"the bot cache {base} {why}: another user could replace the bots there")
    if not _cleaning.acquire(blocking=False):
        return []  # (another thread of this process is at it)
    try:
        return _clean(base, time.time() - days * 86400)
    finally:
        _cleaning.release()


def _clean(base: Path, before: float) -> list[str]:
    digests: set[str] = set()
    leftovers: list[Path] = []
    for entry in os.scandir(base):
        name = entry.name
        if _is_digest(name):
            digests.add(name)
        elif name.startswith(".") and name.endswith((USE_SUFFIX, ".lock")):
            digest = name[1:].rsplit(".", 1)[0]
            if _is_digest(digest):
                digests.add(digest)
        elif name.startswith(".") and "-" in name:  # a scratch or set-aside folder
            leftovers.append(base / name)
    removed = [digest for digest in sorted(digests) if _remove_stale(base, digest, before)]
    old = min(before, time.time() - 3600)  # (an unpack takes seconds: its scratch stays)
    for path in leftovers:
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode) and st.st_mtime < old:
                shutil.rmtree(path, ignore_errors=True)
    return removed


def _is_digest(name: str) -> bool:
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def _last_used(base: Path, digest: str) -> float:
    """When the entry was last used: the latest time of its use file, lock file and folder."""
    times = [0.0]
    for path in (base / f".{digest}{USE_SUFFIX}", base / f".{digest}.lock", base / digest):
        with contextlib.suppress(OSError):
            times.append(os.lstat(path).st_mtime)
    return max(times)


def _remove_stale(base: Path, digest: str, before: float) -> bool:
    """Remove the entry `digest` if it was last used before `before` and nobody holds it,
    unpacks it or builds it (each lock tried, never waited for). A lease or an unpack that
    comes meanwhile waits for these locks, then finds their files gone and takes new ones
    (`_held`), and unpacks the bot anew."""
    if _last_used(base, digest) >= before:
        return False
    with contextlib.ExitStack() as stack:
        try:
            for suffix in (USE_SUFFIX, ".lock"):
                path = base / f".{digest}{suffix}"
                stack.enter_context(_held(path, fcntl.LOCK_EX | fcntl.LOCK_NB))
        except BlockingIOError:
            return False  # held by a worker that may play it, or being unpacked
        target = base / digest
        if os.path.lexists(target):
            if not _idle_build(target):
                return False
            aside = base / f".{digest[:16]}-old-{secrets.token_hex(8)}"
            os.rename(target, aside)
            _checked.pop(str(target), None)
            if aside.is_dir() and not aside.is_symlink():
                shutil.rmtree(aside, ignore_errors=True)
            else:
                aside.unlink()
        for suffix in (USE_SUFFIX, ".lock"):  # (removed while locked: see `_held`)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(base / f".{digest}{suffix}")
    return True


def _idle_build(target: Path) -> bool:
    """Whether no build of the folder `target` is running (its stamp not locked)."""
    try:
        fd = os.open(target / BUILD_STAMP, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return True
    except OSError:
        return not target.is_dir() or target.is_symlink()
    with os.fdopen(fd, "rb") as stamp:
        try:
            fcntl.flock(stamp, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


def _remember(target: Path) -> Path:
    st = os.lstat(target)
    _checked[str(target)] = (st.st_dev, st.st_ino)
    return target


def _members(data: bytes) -> dict[str, tuple[str, bytes]]:
    """The archive's entries by path: a file's SHA-256, a symbolic link's target."""
    out: dict[str, tuple[str, bytes]] = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r") as tar:
        for info in tar:
            if info.issym():
                out[info.name] = ("link", os.fsencode(info.linkname))
            elif (fh := tar.extractfile(info)) is not None:
                out[info.name] = ("file", hashlib.sha256(fh.read()).digest())
    return out


def _sound(target: Path, members: dict[str, tuple[str, bytes]]) -> bool:
    """Whether the folder `target` is the archive of `members` unpacked: a folder of this
    user's that nobody else may write to, each entry of the archive there as the archive
    has it (a regular file of the same bytes, a symbolic link to the same target, in the
    folder itself, not through a link), but for the files its last build created or
    changed (`build_outputs`, read once no build of it runs). What else is there is not
    looked at: build outputs, bytecode; anything that can add files there runs as this
    user, and could as well change this cache's code."""
    try:
        if not stat.S_ISDIR(os.lstat(target).st_mode):
            return False
        outputs = build_outputs(str(target))  # waits for a build: the folder is lent then
        st = os.lstat(target)
        if outputs is None or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            return False
        real = os.path.realpath(target)
        for rel, (kind, want) in members.items():
            if rel in outputs:
                continue
            path = os.path.join(target, rel)
            if os.path.realpath(os.path.dirname(path)) != os.path.dirname(os.path.join(real, rel)):
                return False  # a folder on its way is a symbolic link
            if kind == "link":
                if os.readlink(path) != os.fsdecode(want):
                    return False
                continue
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return False
                if hashlib.file_digest(fh, "sha256").digest() != want:
                    return False
        return True
    except OSError:
        return False


def moved(spec: BotSpec, parcel: Parcel, target: Path) -> BotSpec:
    """The spec with every path under the parcel's folder moved to `target`."""
    root = parcel.root

    def move(path: str) -> str:
        if path == root:
            return str(target)
        if path.startswith(root + os.sep):
            return str(target / path[len(root) + 1 :])
        return path

    cwd = move(spec.cwd) if spec.cwd is not None else str(target)
    folder = move(spec.folder) if spec.folder is not None else None
    return msgspec.structs.replace(
        spec, command=[move(word) for word in spec.command], cwd=cwd, folder=folder
    )
