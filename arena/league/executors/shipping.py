"""Bot folders as content-addressed archives: packed once by the coordinator, sent to each
worker once, unpacked there once under their digest, so every worker runs the same bytes.

A bot with a folder ships its folder (as `folder_files` lists it: no build stamp, no `.git`
or `__pycache__`; the worker builds it afresh). A bot given as a command line ships the
files its command names under its working directory; programs it runs from elsewhere
(`node`, `/usr/bin/java`) must be installed on the worker.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from pathlib import Path

import msgspec

from arena.referee.folders import BotSpec, folder_files
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


def cache_folder() -> Path:
    """Where a worker unpacks bots: $ARENA_BOT_CACHE, else a folder of this user's in the
    temporary directory."""
    chosen = os.environ.get("ARENA_BOT_CACHE")
    base = Path(chosen) if chosen else Path(tempfile.gettempdir()) / f"arena-bots-{os.getuid()}"
    # Readable by all, as bot folders are: a sandboxed bot runs as another user.
    base.mkdir(parents=True, exist_ok=True, mode=0o755)
    return base


def unpack(parcel: Parcel, data: bytes, base: Path | None = None) -> Path:
    """The folder holding the parcel's files on this machine, unpacked on first use (into a
    temporary folder renamed into place, so a half-written folder is never used)."""
    base = cache_folder() if base is None else base
    target = base / parcel.digest
    if target.is_dir():
        return target
    if hashlib.sha256(data).hexdigest() != parcel.digest:
        raise ValueError(f"the archive of {parcel.root} arrived damaged")
    scratch = Path(tempfile.mkdtemp(dir=base, prefix=f".{parcel.digest[:16]}-"))
    scratch.chmod(0o755)  # mkdtemp's 0o700 would hide the bot from its sandboxed self
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r") as tar:
        tar.extractall(scratch, filter="data")  # nothing lands outside the folder
    try:
        os.rename(scratch, target)
    except OSError:  # another game unpacked it first
        shutil.rmtree(scratch, ignore_errors=True)
    return target


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
