"""Ladders for tests: a bot's archive, a real `arena ladder serve` process, waiting on it,
and comparing the live table with the batch fit's."""

from __future__ import annotations

import contextlib
import hashlib
import io
import math
import os
import re
import select
import signal
import stat
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from tests.helpers.cli import arena
from tests.helpers.paths import RANDOM


def archive(name: str, extra: bytes = b"") -> bytes:
    out = io.BytesIO()
    files = {
        "bot.toml": f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n'.encode(),
        "bot.py": extra + (RANDOM / "bot.py").read_bytes(),
    }
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


@contextlib.contextmanager
def served(folder: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`arena ladder serve FOLDER --port 0 OPTIONS` (by default 3 games at once), and its
    address once it listens; killed (its whole group) at the end."""
    proc = subprocess.Popen(
        arena("ladder", "serve", folder, "--port", "0", *(options or ("--jobs", "3"))),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        seen = ""
        deadline = time.monotonic() + 30
        while not (found := re.search(r"at (http://127\.0\.0\.1:\d+)", seen)):
            assert time.monotonic() < deadline and proc.poll() is None, seen
            ready, _, _ = select.select([proc.stdout], [], [], 1)
            if ready:
                seen += proc.stdout.readline()
        yield proc, found.group(1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def until(check: Callable[[], object], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def same_table(live: Any, batch: Any, tolerance: float = 1e-6) -> bool:
    """Whether two leaderboards (as JSON) give every version the same figures: equal but for
    their floats, which may differ within `tolerance` (the live fit refits from its last
    solution and adds its sums in the order the games came), and for the order of versions
    whose ratings are that close (their rank, their LOS over the next one, and the order the
    pairs are listed in follow it), and for whether a place is settled (the ladder's table
    alone says)."""
    return _same(_by_version(live), _by_version(batch), tolerance)


def _by_version(value: Any) -> Any:
    """Lists of rows and pairs keyed by version (and opponent), without what follows from
    the order of near-equal ratings."""
    if isinstance(value, dict):
        return {
            k: _by_version(v) for k, v in value.items() if k not in ("rank", "los_next", "settled")
        }
    if isinstance(value, list) and value and all(isinstance(v, dict) and "bot" in v for v in value):
        return {(v["bot"], v.get("opponent")): _by_version(v) for v in value}
    if isinstance(value, list):
        return [_by_version(v) for v in value]
    return value


def _same(live: Any, batch: Any, tolerance: float) -> bool:
    if isinstance(live, dict) and isinstance(batch, dict):
        return live.keys() == batch.keys() and all(
            _same(live[key], batch[key], tolerance) for key in live
        )
    if isinstance(live, list) and isinstance(batch, list):
        return len(live) == len(batch) and all(
            _same(a, b, tolerance) for a, b in zip(live, batch, strict=True)
        )
    if isinstance(live, float) or isinstance(batch, float):
        return math.isclose(float(live), float(batch), rel_tol=tolerance, abs_tol=tolerance)
    return bool(live == batch)


def upload(
    client: httpx.Client, token: str, data: bytes, filename: str = "bot.tar.gz"
) -> httpx.Response:
    """`POST /api/bots` of the archive `data` (the form field `archive`) as the author whose
    token is `token`."""
    return client.post(
        "/api/bots",
        files={"archive": (filename, data)},
        headers={"Authorization": f"Bearer {token}"},
    )


def tree_snapshot(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path under `root` (relative, with `/`), each with what it is: a folder and its
    mode; a file, its mode, size and SHA-256; a link and its target; anything else its mode.
    Two snapshots are equal unless something under `root` was made, removed, written or
    changed mode (times are left out: a folder's changes whenever an entry comes or goes)."""
    seen: dict[str, tuple[object, ...]] = {}
    for top, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(top) / name
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISDIR(info.st_mode):
                seen[rel] = ("dir", info.st_mode)
            elif stat.S_ISREG(info.st_mode):
                with path.open("rb") as fh:
                    digest = hashlib.file_digest(fh, "sha256").hexdigest()
                seen[rel] = ("file", info.st_mode, info.st_size, digest)
            elif stat.S_ISLNK(info.st_mode):
                seen[rel] = ("link", os.readlink(path))
            else:
                seen[rel] = ("other", info.st_mode)
    return seen


def changed_paths(
    before: dict[str, tuple[object, ...]], after: dict[str, tuple[object, ...]]
) -> set[str]:
    """The paths two `tree_snapshot`s disagree on: made, removed or changed between them."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def stock(folder: Path, bots: dict[str, str], reason: str = "accepted by the test") -> None:
    """Make the ladder in `folder` (already made) hold `bots` (name: author) already active:
    each the example random bot, stored as an upload would be (by `Intake`) and activated
    without validation, so that every bot plays from the first table."""
    from arena.ladder.archives import Intake, store, store_scratch
    from arena.ladder.store import LadderStore

    with LadderStore.open(folder, writer=False) as ladder:
        authors = {name: ladder.create_author(name)[0] for name in sorted(set(bots.values()))}
        for bot, author in bots.items():
            with Intake(store_scratch(folder)) as intake:
                intake.write(archive(bot))
                stored = store(intake.finish(), folder)
            version, _ = ladder.add_version(bot, authors[author], stored.digest)
            ladder.activate(version.id, reason)


def tar_gz(files: Mapping[str, bytes], special: Sequence[tarfile.TarInfo] = ()) -> bytes:
    """A .tar.gz of `files` (path: bytes, in that order), then the `special` entries (links,
    hard links: headers without data)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
        for info in special:
            tar.addfile(info)
    return out.getvalue()


def tar_link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info
