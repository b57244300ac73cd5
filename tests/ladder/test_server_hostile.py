"""Hostile uploads to a real `arena ladder serve` process (its bots in the bubblewrap
sandbox), over HTTP: archives that would write outside their folder (`..`, absolute paths,
links), archives over the ladder's limits and decompression bombs, each as a .tar.gz and as
a .zip, are refused with the status and a sentence that names the problem, and nothing is
written anywhere under the test's folder but the ladder's store. A bot whose build fails
and a bot that faults in its validation games are taken in, then rejected, each with a
reason a person can read and its report in DIR/reports/.

(A missing or wrong token, 401, and another author's bot name, 403, are checked against
the same application in tests/ladder/test_api.py.)"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import msgspec
import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore, init_ladder
from tests.helpers.ladder import (
    changed_paths,
    served,
    tar_gz,
    tar_link,
    tree_snapshot,
    until,
    upload,
)
from tests.helpers.paths import RANDOM, TEST_BOTS

pytestmark = pytest.mark.slow  # (a server process, bots validated in the sandbox)

#: the ladder's [submissions] limits, small so that small archives pass them
LIMITS = {"archive_mb": 0.25, "unpacked_mb": 8.0, "files": 50}
#: what the store writes whenever it is used: SQLite's database and its WAL files, and the
#: intakes' scratch folder (made at the first upload, empty again after each)
STORE_FILES = {"ladder/ladder.db", "ladder/ladder.db-wal", "ladder/ladder.db-shm", "ladder/.intake"}
#: the name of the file a hostile entry would write, wherever it would land
PROBE = "arena-probe.py"


class Ladder(msgspec.Struct):
    """The served ladder: the test's folder (`root`, holding the ladder's folder, `ladder`,
    and the server's working folder, `cwd`), the API's client and an author's token."""

    root: Path
    folder: Path
    client: httpx.Client
    token: str


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    """One server for the module, its working folder inside the test's folder (so that a
    path resolved against it would show in the snapshots), games of 2 seats, one
    validation game a seat."""
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "ladder"
    config = {"ruleset": "odin-race", "submissions": LIMITS, "validation": {"games_per_seat": 1}}
    init_ladder(folder, msgspec.convert(config, LadderConfig))
    with LadderStore.open(folder, writer=False) as store:
        token = store.create_author("alice")[1]
    cwd = root / "cwd"
    cwd.mkdir()
    with contextlib.ExitStack() as stack:
        with contextlib.chdir(cwd):  # (the server's working folder, from its start)
            _, address = stack.enter_context(served(folder, "--jobs", "2"))
        client = stack.enter_context(httpx.Client(base_url=address, timeout=60))
        yield Ladder(root, folder, client, token)


def manifest(name: str, build: str | None = None) -> bytes:
    """A bot.toml for `bot.py` run by Python, with `build` (a shell command) when given."""
    text = f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n'
    if build is not None:
        text += f"build = {msgspec.json.encode(['sh', '-c', build]).decode()}\n"
    return text.encode()


def bot(name: str, code: bytes | None = None) -> dict[str, bytes]:
    """A bot's files: its bot.toml and bot.py (the random bot unless `code` is given)."""
    return {"bot.toml": manifest(name), "bot.py": code or (RANDOM / "bot.py").read_bytes()}


def zip_file(files: Mapping[str, bytes], links: Mapping[str, str] | None = None) -> bytes:
    """A .zip of `files` (deflated, in that order), then symbolic `links` (path: target) as
    Info-ZIP stores them: the target as the entry's data, S_IFLNK in its Unix mode."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
        for path, target in (links or {}).items():
            info = zipfile.ZipInfo(path)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return out.getvalue()


def cases(root: Path) -> dict[str, tuple[bytes, int, str]]:
    """Each hostile upload by name: its archive, the status it gets and words its error
    must hold. A path that leaves the folder is aimed at the test's folder (four levels
    up from the unpacker's tree, or absolute), where the snapshots would see it."""
    base = bot("hostile")
    climb = "../../../../" + PROBE
    noise = os.urandom(100 * 1024)  # (does not compress: an archive about as large)
    big = {**base, "data.bin": os.urandom(400 * 1024)}
    unpacked = {**base, "noise.bin": noise, "zeros.bin": bytes(10 << 20)}
    many = {**base, **{f"f{i}.txt": b"x" for i in range(60)}}
    bomb = {**base, "zeros.bin": bytes(48 << 20)}  # (under 50 KiB compressed)
    slip = "leaves its folder"
    link = "symbolic link"
    return {
        "tar ..": (tar_gz({**base, "../" + PROBE: b"x"}), 422, slip),
        "tar ../../../..": (tar_gz({**base, climb: b"x"}), 422, slip),
        "tar lib/../../..": (tar_gz({**base, "lib/../../../../" + PROBE: b"x"}), 422, slip),
        "tar absolute": (tar_gz({**base, str(root / PROBE): b"x"}), 422, "absolute path"),
        "tar link out, then a file through it": (
            tar_gz(base, [tar_link("lib", "../../../.."), tarfile.TarInfo("lib/" + PROBE)]),
            422,
            link,
        ),
        "tar absolute link": (tar_gz(base, [tar_link("lib", str(root))]), 422, link),
        "tar hard link": (
            tar_gz(base, [tar_link("passwd", "/etc/passwd", tarfile.LNKTYPE)]),
            422,
            "hard link",
        ),
        "tar over archive_mb": (tar_gz(big), 413, "the upload is larger than 262,144 bytes"),
        "tar over unpacked_mb": (tar_gz(unpacked), 413, "unpacks to more than 8 MiB"),
        "tar over files": (tar_gz(many), 413, "more than 50 files and folders"),
        "tar bomb": (tar_gz(bomb), 413, "decompression bomb"),
        "zip ..": (zip_file({**base, "../" + PROBE: b"x"}), 422, slip),
        "zip ..\\": (zip_file({**base, climb.replace("/", "\\"): b"x"}), 422, slip),
        "zip absolute": (zip_file({**base, str(root / PROBE): b"x"}), 422, "absolute path"),
        "zip link out": (zip_file(base, {"lib": "../../../.."}), 422, link),
        "zip over archive_mb": (zip_file(big), 413, "the upload is larger than 262,144 bytes"),
        "zip over unpacked_mb": (zip_file(unpacked), 413, "unpacks to more than 8 MiB"),
        "zip over files": (zip_file(many), 413, "more than 50 files and folders"),
        "zip bomb": (zip_file(bomb), 413, "decompression bomb"),
    }


def test_hostile_archives_are_refused_and_nothing_is_written(ladder: Ladder) -> None:
    for case, (data, status, says) in cases(ladder.root).items():
        sent = LIMITS["archive_mb"] * (1 << 20)  # (only those over it are refused for size)
        assert (len(data) > sent) == ("archive_mb" in case), (case, len(data))
        filename = "bot.zip" if case.startswith("zip") else "bot.tar.gz"
        before = tree_snapshot(ladder.root)
        got = upload(ladder.client, ladder.token, data, filename)
        after = tree_snapshot(ladder.root)
        assert got.status_code == status, (case, got.text)
        assert says in got.json()["error"], (case, got.json())
        assert changed_paths(before, after) <= STORE_FILES, case
        assert not list((ladder.folder / ".intake").iterdir()), case  # (nothing left of it)
    assert not [p for p in (ladder.root, ladder.root.parent) if (p / PROBE).exists()]
    assert ladder.client.get("/api/bots/hostile").status_code == 404
    assert ladder.client.get("/api/games").json()["total"] == 0


def test_a_failed_build_and_a_faulting_bot_are_rejected_with_their_reasons(
    ladder: Ladder,
) -> None:
    before = tree_snapshot(ladder.root)
    broken = {
        **bot("broken"),
        "bot.toml": manifest(
            "broken", "echo compiling bot.c; echo 'bot.c:3: expected ;' >&2; exit 3"
        ),
    }
    garbled = bot("garbled", (TEST_BOTS / "garbage_bot.py").read_bytes())
    digests = {}
    for name, data, filename in (
        ("broken", tar_gz(broken), "bot.tar.gz"),
        ("garbled", zip_file(garbled), "bot.zip"),
    ):
        got = upload(ladder.client, ladder.token, data, filename)
        assert got.status_code == 201, got.text
        assert got.json()["version"]["status"] == "validating"
        digests[name] = got.json()["version"]["digest"]

    def latest(name: str) -> dict[str, str]:
        version: dict[str, str] = ladder.client.get(f"/api/bots/{name}").json()["versions"][0]
        return version

    until(lambda: all(latest(name)["status"] != "validating" for name in digests))
    shown = {name: latest(name) for name in digests}
    assert {name: v["status"] for name, v in shown.items()} == {
        "broken": "rejected",
        "garbled": "rejected",
    }
    # The reasons, in words: the build and how it ended; the fault and what the bot sent.
    assert shown["broken"]["reason"].startswith("its build failed: the build of broken ")
    assert "failed with status 3" in shown["broken"]["reason"]
    assert shown["garbled"]["reason"].startswith("rejected: ")
    assert "garbled sent 'this is {not JSON', which is not JSON" in shown["garbled"]["reason"]
    reports = {name: ladder.folder / "reports" / f"{name}@1.txt" for name in digests}
    assert "bot.c:3: expected ;" in reports["broken"].read_text()  # (the build's output)
    assert "not JSON" in reports["garbled"].read_text()
    # What the server wrote: the store, the versions' folders (where the build ran) and
    # the two reports; nothing else, and no game (no version plays).
    after = tree_snapshot(ladder.root)
    versions = [f"ladder/versions/{digest}" for digest in digests.values()]
    made = {"ladder/versions", "ladder/reports", *versions}
    made |= {f"ladder/reports/{name}@1.txt" for name in digests}
    written = changed_paths(before, after)
    assert made <= written
    inside = [
        p
        for p in written - made - STORE_FILES
        if not p.startswith(tuple(v + "/" for v in versions))
    ]
    assert inside == [], inside
    assert ladder.client.get("/api/games").json()["total"] == 0
