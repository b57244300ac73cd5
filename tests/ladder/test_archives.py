"""The intake of submitted archives (arena/ladder/archives.py): uploads are refused while they
stream in once too large, hostile archives (zip-slip, absolute paths, links, devices, bombs,
too many files, bad names) are refused with nothing written outside the version's folder and
the partial folder gone, a bad bot.toml is a 422 with its reason, and versions are stored
under the digest of their tree, the same for a .tar.gz and a .zip of one folder."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.ladder.archives import (
    MIB,
    ArchiveLimits,
    ArchiveTooLarge,
    BadArchive,
    BadManifest,
    Intake,
    IntakeError,
    Unpacked,
    store,
    store_scratch,
    tree_digest,
)
from arena.referee.folders import BUILD_STAMP

BOT_TOML = b'name = "tiny"\ncommand = ["{python}", "bot.py"]\n'
BOT_PY = b"import sys\nfor line in sys.stdin:\n    pass\n"

# A bot's folder: path -> (bytes, executable); None is an empty folder.
TREE: dict[str, tuple[bytes, bool] | None] = {
    "bot.toml": (BOT_TOML, False),
    "bot.py": (BOT_PY, False),
    "run.sh": (b"#!/bin/sh\nexec python3 bot.py\n", True),
    "lib/util.py": (b"X = 1\n", False),
    "lib/deep/data.bin": (bytes(range(256)) * 40, False),
    "logs": None,
}


# -- archives made by hand ---------------------------------------------------------------------


@dataclass
class Entry:
    """One member of an archive made by hand: a file (data), a folder, or any tar type."""

    name: str
    data: bytes | None = b""
    mode: int = 0o644
    type: bytes = tarfile.REGTYPE
    linkname: str = ""
    mtime: int = 1_700_000_000


def tree_entries(tree: dict[str, tuple[bytes, bool] | None], top: str = "") -> list[Entry]:
    out = [Entry(top.rstrip("/"), None, 0o755, tarfile.DIRTYPE)] if top else []
    for path, content in tree.items():
        if content is None:
            out.append(Entry(top + path, None, 0o755, tarfile.DIRTYPE))
        else:
            data, executable = content
            out.append(Entry(top + path, data, 0o755 if executable else 0o644))
    return out


def tar_gz(entries: list[Entry], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=fmt) as tar:
        for e in entries:
            info = tarfile.TarInfo(e.name)
            info.type, info.mode, info.mtime, info.linkname = e.type, e.mode, e.mtime, e.linkname
            if "\x00" in e.name:
                info.pax_headers = {"path": e.name}  # (a ustar name ends at its first NUL)
            if e.type in (tarfile.CHRTYPE, tarfile.BLKTYPE):
                info.devmajor, info.devminor = 1, 3
            if e.type == tarfile.REGTYPE and e.data is not None:
                info.size = len(e.data)
                tar.addfile(info, io.BytesIO(e.data))
            else:
                tar.addfile(info)
    return gzip.compress(raw.getvalue(), mtime=0)


def zip_of(entries: list[Entry], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    raw = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zipfile warns of the duplicates we mean)
        with zipfile.ZipFile(raw, "w", compression=method) as archive:
            for e in entries:
                kind = {tarfile.DIRTYPE: stat.S_IFDIR, tarfile.SYMTYPE: stat.S_IFLNK}
                kind |= {tarfile.FIFOTYPE: stat.S_IFIFO, tarfile.CHRTYPE: stat.S_IFCHR}
                is_dir = e.type == tarfile.DIRTYPE
                info = zipfile.ZipInfo(e.name + ("/" if is_dir else ""), (2020, 1, 2, 3, 4, 5))
                info.create_system = 3
                info.external_attr = (kind.get(e.type, stat.S_IFREG) | e.mode) << 16
                info.compress_type = method
                data = e.linkname.encode() if e.type == tarfile.SYMTYPE else e.data or b""
                archive.writestr(info, b"" if is_dir else data)
    return raw.getvalue()


def with_bot(*entries: Entry) -> list[Entry]:
    """A sound bot's folder plus `entries`."""
    return [*tree_entries(TREE), *entries]


# -- where an intake runs, and what it may leave -------------------------------------------------


@dataclass
class Place:
    """A ladder's folder (`store`, its scratch inside it) beside a folder of someone else's
    (`outside`), with everything there before an upload, to compare after it."""

    root: Path
    store: Path
    scratch: Path

    def everything(self) -> set[str]:
        found = set()
        for base in (self.root, Path.cwd()):
            for top, dirs, files in os.walk(base):
                found |= {os.path.join(top, n) for n in (*dirs, *files)}
        return found

    def intake(self, limits: ArchiveLimits | None = None) -> Intake:
        return Intake(self.scratch, limits)


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Place]:
    ladder = tmp_path / "ladder"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("not the bot's\n")
    yield Place(tmp_path, ladder, store_scratch(ladder))


def feed(intake: Intake, data: bytes, chunk: int = 8192) -> Unpacked:
    for at in range(0, len(data), chunk):
        intake.write(data[at : at + chunk])
    return intake.finish()


def refusal(
    place: Place, data: bytes, limits: ArchiveLimits | None = None
) -> tuple[IntakeError, Intake]:
    """The refusal of `data` and the intake that refused it, once checked to have left
    nothing behind: not a path more anywhere under the test's folders than before it, the
    scratch folder empty."""
    Intake(place.scratch).close()  # (the scratch folder made, as a server's is)
    before, there = place.everything(), set(os.listdir(place.scratch))
    intake = place.intake(limits)
    with pytest.raises(IntakeError) as caught:
        feed(intake, data)
    assert set(os.listdir(place.scratch)) == there, "the partial folder is gone at once"
    intake.close()
    assert place.everything() == before
    assert (place.root / "outside" / "secret").read_text() == "not the bot's\n"
    return caught.value, intake


def refused(place: Place, data: bytes, limits: ArchiveLimits | None = None) -> IntakeError:
    return refusal(place, data, limits)[0]


def accepted(place: Place, data: bytes, limits: ArchiveLimits | None = None) -> Unpacked:
    intake = place.intake(limits)
    unpacked = feed(intake, data)
    return unpacked


# -- sound archives ------------------------------------------------------------------------------


def files_of(folder: str) -> dict[str, tuple[bytes, bool] | None]:
    out: dict[str, tuple[bytes, bool] | None] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs:
            out[os.path.relpath(os.path.join(top, name), folder)] = None
        for name in files:
            path = os.path.join(top, name)
            assert not os.path.islink(path)
            executable = bool(os.stat(path).st_mode & stat.S_IXUSR)
            out[os.path.relpath(path, folder)] = (Path(path).read_bytes(), executable)
    return out


def test_a_tar_gz_and_a_zip_of_one_folder_unpack_to_it_with_one_digest(place: Place) -> None:
    wrapped = tar_gz(tree_entries(TREE, top="mybot/"))
    shuffled = list(reversed(tree_entries(TREE)))
    for e in shuffled:
        e.mtime = 1_000_000_000
    zipped = zip_of(shuffled)
    from_tar = accepted(place, wrapped)
    from_zip = accepted(place, zipped)
    assert from_tar.unwrapped == "mybot" and from_zip.unwrapped is None
    assert from_tar.digest == from_zip.digest == tree_digest(from_tar.folder)
    expected = {**TREE, "lib": None, "lib/deep": None}
    assert files_of(from_tar.folder) == files_of(from_zip.folder) == expected
    assert from_tar.spec.name == from_zip.spec.name == "tiny"
    assert stat.S_IMODE(os.stat(Path(from_zip.folder) / "run.sh").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(Path(from_zip.folder) / "bot.py").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(Path(from_zip.folder) / "lib").st_mode) == 0o755


def test_the_digest_follows_paths_bytes_and_the_executable_bit_only(place: Place) -> None:
    base = accepted(place, tar_gz(tree_entries(TREE))).digest
    odd_modes = tree_entries(TREE)
    for e in odd_modes:
        e.mode = {0o644: 0o600, 0o755: 0o700}[e.mode]
        e.mtime = 12345
    assert accepted(place, tar_gz(odd_modes, tarfile.GNU_FORMAT)).digest == base
    changes = [
        {**TREE, "bot.py": (BOT_PY + b"\n", False)},  # a file's bytes
        {**TREE, "bot.py": (BOT_PY, True)},  # its executable bit
        {**TREE, "bot2.py": (BOT_PY, False)},  # a file more
        {k: v for k, v in TREE.items() if k != "logs"},  # an empty folder less
        {**{k: v for k, v in TREE.items() if k != "lib/util.py"}, "util.py": (b"X = 1\n", False)},
    ]
    digests = {base}
    for tree in changes:
        digests.add(accepted(place, zip_of(tree_entries(tree))).digest)
    assert len(digests) == 1 + len(changes)


def test_versions_are_stored_by_digest_and_an_identical_one_is_found(place: Place) -> None:
    with place.intake() as intake:
        first = store(feed(intake, tar_gz(tree_entries(TREE))), place.store)
    with place.intake() as intake:
        again = store(feed(intake, zip_of(tree_entries(TREE, top="bot/"))), place.store)
    target = place.store / "versions" / first.digest
    assert (first.existed, again.existed) == (False, True)
    assert first.folder == again.folder == str(target)
    assert files_of(str(target)) == {**TREE, "lib": None, "lib/deep": None}
    assert first.spec.folder == str(target.resolve()) and first.spec.name == "tiny"
    assert tree_digest(target) == first.digest
    assert os.listdir(place.scratch) == []
    assert os.listdir(place.store / "versions") == [first.digest]


def test_a_build_stamp_in_the_archive_is_dropped(place: Place) -> None:
    stamp = Entry(BUILD_STAMP, b'{"inputs": "planted", "outputs": {}}')
    unpacked = accepted(place, tar_gz(with_bot(stamp)))
    assert not os.path.lexists(Path(unpacked.folder) / BUILD_STAMP)
    assert unpacked.digest == accepted(place, tar_gz(tree_entries(TREE))).digest


@pytest.mark.parametrize("make", [tar_gz, zip_of], ids=["tar.gz", "zip"])
def test_an_upload_sent_a_byte_at_a_time_and_spooled_on_disk_is_taken(
    place: Place, make: Callable[[list[Entry]], bytes]
) -> None:
    data = make(tree_entries(TREE))
    with place.intake(ArchiveLimits(spool_mb=0)) as intake:
        unpacked = feed(intake, data, chunk=1)
        assert intake.received == len(data)
        assert files_of(unpacked.folder) == {**TREE, "lib": None, "lib/deep": None}


def test_backslashes_in_a_zip_are_separators(place: Place) -> None:
    unpacked = accepted(place, zip_of(with_bot(Entry("lib\\win.py", b"W = 1\n"))))
    assert (Path(unpacked.folder) / "lib" / "win.py").read_bytes() == b"W = 1\n"


# -- hostile archives ----------------------------------------------------------------------------

SYMLINK_OUT = Entry("link", None, 0o777, tarfile.SYMTYPE, "../../../outside/secret")
HOSTILE: dict[str, tuple[bytes, str]] = {
    "tar zip-slip": (tar_gz(with_bot(Entry("../x", b"slip"))), "leaves its folder"),
    "zip zip-slip": (zip_of(with_bot(Entry("../x", b"slip"))), "leaves its folder"),
    "deep zip-slip": (tar_gz(with_bot(Entry("lib/../../x", b"slip"))), "leaves its folder"),
    "windows zip-slip": (zip_of(with_bot(Entry("..\\x", b"slip"))), "leaves its folder"),
    "tar absolute": (tar_gz(with_bot(Entry("/tmp/arena-abs-x", b"abs"))), "absolute path"),
    "zip absolute": (zip_of(with_bot(Entry("/tmp/arena-abs-x", b"abs"))), "absolute path"),
    "tar symlink out": (tar_gz(with_bot(SYMLINK_OUT)), "symbolic link"),
    "zip symlink out": (zip_of(with_bot(SYMLINK_OUT)), "symbolic link"),
    "tar symlink in": (
        tar_gz(with_bot(Entry("alias.py", None, 0o777, tarfile.SYMTYPE, "bot.py"))),
        "symbolic link",
    ),
    "symlink then write through it": (
        tar_gz(with_bot(Entry("out", None, 0o777, tarfile.SYMTYPE, "../.."), Entry("out/x"))),
        "symbolic link",
    ),
    "hard link": (
        tar_gz(with_bot(Entry("copy", None, 0o644, tarfile.LNKTYPE, "bot.py"))),
        "hard link",
    ),
    "hard link out": (
        tar_gz(with_bot(Entry("copy", None, 0o644, tarfile.LNKTYPE, "/etc/passwd"))),
        "hard link",
    ),
    "character device": (
        tar_gz(with_bot(Entry("null", None, 0o666, tarfile.CHRTYPE))),
        "character device",
    ),
    "block device": (tar_gz(with_bot(Entry("sda", None, 0o660, tarfile.BLKTYPE))), "device"),
    "tar fifo": (tar_gz(with_bot(Entry("pipe", None, 0o644, tarfile.FIFOTYPE))), "fifo"),
    "zip fifo": (zip_of(with_bot(Entry("pipe", b"", 0o644, tarfile.FIFOTYPE))), "fifo"),
    "zip device": (zip_of(with_bot(Entry("null", b"", 0o644, tarfile.CHRTYPE))), "device"),
    "newline in a name": (tar_gz(with_bot(Entry("a\nb.py", b"x"))), "control character"),
    "NUL in a name": (tar_gz(with_bot(Entry("a\x00b.py", b"x"))), "control character"),
    "escape in a zip name": (zip_of(with_bot(Entry("a\x1b[2Jb.py", b"x"))), "control"),
    "bidi override": (tar_gz(with_bot(Entry("txt.\u202eyp", b"x"))), "control character"),
    "not UTF-8": (tar_gz(with_bot(Entry("caf\udce9.py", b"x"))), "not UTF-8"),
    "tar duplicate": (tar_gz(with_bot(Entry("bot.py", b"evil"))), "twice"),
    "zip duplicate": (zip_of(with_bot(Entry("bot.py", b"evil"))), "twice"),
    "duplicate folder": (
        tar_gz(with_bot(Entry("logs", None, 0o755, tarfile.DIRTYPE))),
        "twice",
    ),
    "file then folder": (tar_gz(with_bot(Entry("bot.py/x", b"x"))), "both as a file"),
    "folder then file": (tar_gz(with_bot(Entry("lib", b"x"))), "both as a file"),
    "too deep": (tar_gz(with_bot(Entry("/".join("d" * 17) + "/f", b"x"))), "deeper than 16"),
    "too long": (tar_gz(with_bot(Entry("n" * 200 + "/" + "m" * 100, b"x"))), "longer than 256"),
    "name too long": (tar_gz(with_bot(Entry("n" * 256, b"x"))), "longer than 255"),
    "encrypted zip entry": (b"", "encrypted"),  # (made below)
    "bzip2 zip entry": (zip_of(with_bot(), zipfile.ZIP_BZIP2), "deflate"),
    "plain tar": (gzip.decompress(tar_gz(with_bot())), "must be gzipped"),
    "bzip2 tar": (b"BZh91AY&SY" + b"\0" * 64, "bzip2"),
    "text": (b"name = 'tiny'\n", "unknown format"),
    "empty": (b"", "empty"),
    "cut gzip": (tar_gz(with_bot())[:-20], "cut short"),
    "gzip of garbage": (gzip.compress(b"\x01" * 5000), "not a sound .tar.gz"),
    "damaged zip": (zip_of(with_bot())[:-30], "not a sound .zip"),
    "huge pax header": (b"", "headers are too large"),  # (made below)
}


def _encrypted_zip() -> bytes:
    """A bot's zip with every entry marked encrypted (zipfile writes none: the flag is set in
    its local and central headers afterwards)."""
    data = bytearray(zip_of(with_bot()))
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.find(signature)
        while start >= 0:
            data[start + at] |= 0x1
            start = data.find(signature, start + 4)
    return bytes(data)


def _huge_pax_header() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("bot.py")
        info.size = len(BOT_PY)
        info.pax_headers = {"comment": "x" * (2 * MIB)}  # (read whole by tarfile)
        tar.addfile(info, io.BytesIO(BOT_PY))
    return gzip.compress(raw.getvalue())


HOSTILE["encrypted zip entry"] = (_encrypted_zip(), "encrypted")
HOSTILE["huge pax header"] = (_huge_pax_header(), "headers are too large")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_archive_is_refused_leaving_nothing_behind(place: Place, case: str) -> None:
    data, reason = HOSTILE[case]
    error = refused(place, data)
    assert isinstance(error, BadArchive) and error.status == 422
    assert reason in str(error)
    assert str(place.root) not in str(error)
    for name in ("x", "arena-abs-x"):
        assert not any(Path(p).name == name for p in place.everything())
    assert not Path("/tmp/arena-abs-x").exists()


def test_an_oversized_upload_is_refused_before_it_has_all_come(place: Place) -> None:
    limits = ArchiveLimits(archive_mb=0.1)
    Intake(place.scratch).close()
    before = place.everything()
    intake = place.intake(limits)
    chunks = [os.urandom(4096) for _ in range(100)]  # 400 KiB, sent 4 KiB at a time
    chunks[0] = tar_gz(with_bot())[:4096].ljust(4096, b"\0")
    fed = 0
    with pytest.raises(ArchiveTooLarge) as caught:
        for chunk in chunks:
            intake.write(chunk)
            fed += 1
    assert caught.value.status == 413 and "larger than 104,857 bytes" in str(caught.value)
    assert fed == 25 and intake.received == 26 * 4096  # (the 26th is the one refused)
    assert os.listdir(place.scratch) == [] and place.everything() == before
    with pytest.raises(BadArchive, match="already refused"):
        intake.write(b"more")
    with pytest.raises(BadArchive, match="already refused"):
        intake.finish()


def test_an_upload_that_is_no_archive_is_refused_at_its_first_bytes(place: Place) -> None:
    intake = place.intake()
    with pytest.raises(BadArchive, match="unknown format"):
        intake.write(b"GET / HTTP/1.1\r\n")
    assert os.listdir(place.scratch) == []


def zeros_tar_gz(size: int, name: str = "zeros.bin") -> bytes:
    """A tar.gz of a bot and a file of `size` zero bytes, compressed as it is made (a bomb:
    about a thousand times smaller than what it unpacks to)."""

    def header(path: str, length: int) -> bytes:
        info = tarfile.TarInfo(path)
        info.size = length
        return info.tobuf(tarfile.PAX_FORMAT)

    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = []
    for e in with_bot():
        if e.data is not None:
            out.append(pack.compress(header(e.name, len(e.data)) + e.data))
            out.append(pack.compress(bytes(-len(e.data) % tarfile.BLOCKSIZE)))
    out.append(pack.compress(header(name, size)))
    for _ in range(size // MIB):
        out.append(pack.compress(bytes(MIB)))
    out.append(pack.compress(bytes(size % MIB + -size % tarfile.BLOCKSIZE + tarfile.RECORDSIZE)))
    out.append(pack.flush())
    return b"".join(out)


def test_zeros_tar_gz_is_a_sound_archive(place: Place) -> None:
    unpacked = accepted(place, zeros_tar_gz(3000))
    assert (Path(unpacked.folder) / "zeros.bin").read_bytes() == bytes(3000)


def test_a_decompression_bomb_is_refused_by_its_ratio_early(place: Place) -> None:
    bomb = zeros_tar_gz(40 * MIB)
    assert len(bomb) < 100_000  # (over 400 times smaller than what it unpacks to)
    error, intake = refusal(place, bomb)
    assert isinstance(error, ArchiveTooLarge) and error.status == 413
    assert "decompression bomb" in str(error)
    # what it got to write, and inflate, before it was refused: not past 100 times its size
    assert intake.inflated <= max(MIB, 100 * len(bomb)) + 64 * 1024
    assert intake.written <= intake.inflated < 40 * MIB // 4


def test_a_bomb_is_refused_by_the_unpacked_limit_on_bytes_produced(place: Place) -> None:
    limits = ArchiveLimits(unpacked_mb=2, ratio=1e9)
    bomb = zeros_tar_gz(40 * MIB)
    error, intake = refusal(place, bomb, limits)
    assert isinstance(error, ArchiveTooLarge) and "unpacks to more than 2 MiB" in str(error)
    assert 2 * MIB < intake.written <= 2 * MIB + 64 * 1024


def test_a_zip_bomb_is_refused(place: Place) -> None:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("bot.toml", BOT_TOML)
        z.writestr("bot.py", BOT_PY)
        with z.open("zeros.bin", "w") as out:
            for _ in range(40):
                out.write(bytes(MIB))
    bomb = raw.getvalue()
    error, intake = refusal(place, bomb)
    assert isinstance(error, ArchiveTooLarge) and "decompression bomb" in str(error)
    assert intake.written <= max(MIB, 100 * len(bomb)) + 64 * 1024


def test_a_zip_that_understates_a_file_is_refused_at_its_claim(place: Place) -> None:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("bot.toml", BOT_TOML)
        z.writestr("bot.py", BOT_PY)
        z.writestr("zeros.bin", bytes(5 * MIB))
    data = bytearray(raw.getvalue())
    for signature, name_at, size_at in ((b"PK\x03\x04", 30, 22), (b"PK\x01\x02", 46, 24)):
        at = data.find(signature)
        while data[at + name_at : at + name_at + 9] != b"zeros.bin":
            at = data.find(signature, at + 4)
        data[at + size_at : at + size_at + 4] = (1000).to_bytes(
            4, "little"
        )  # (5 MiB, it says 1000)
    error, intake = refusal(place, bytes(data), ArchiveLimits(file_mb=0.01))
    assert isinstance(error, BadArchive) and "not a sound .zip" in str(error)
    assert intake.written <= len(BOT_TOML) + len(BOT_PY) + 1000


def test_one_file_too_large_is_refused(place: Place) -> None:
    limits = ArchiveLimits(file_mb=0.01)
    for data in (zeros_tar_gz(20_000), zip_of(with_bot(Entry("big", bytes(20_000))))):
        error = refused(place, data, limits)
        assert isinstance(error, ArchiveTooLarge) and "the limit for one file" in str(error)


@pytest.mark.parametrize("make", [tar_gz, zip_of], ids=["tar.gz", "zip"])
def test_too_many_files_are_refused(place: Place, make: Callable[[list[Entry]], bytes]) -> None:
    limits = ArchiveLimits(files=10)
    few = [Entry(f"f{i}.txt", b"x") for i in range(10 - len(with_bot()))]
    accepted(place, make(with_bot(*few)), limits)
    error = refused(place, make(with_bot(*few, Entry("one-more.txt", b"x"))), limits)
    assert isinstance(error, ArchiveTooLarge) and error.status == 413
    assert "more than 10 files and folders" in str(error)


def test_entries_of_the_top_folder_itself_count(place: Place) -> None:
    dots = [Entry(".", None, 0o755, tarfile.DIRTYPE) for _ in range(20)]
    error = refused(place, tar_gz([*dots, *with_bot()]), ArchiveLimits(files=15))
    assert isinstance(error, ArchiveTooLarge)


# -- bot.toml ------------------------------------------------------------------------------------

MANIFESTS = {
    "missing": (None, "the archive has no bot.toml at its top"),
    "not TOML": (b"name = \n", "bot.toml: not valid TOML"),
    "no command": (b'name = "tiny"\n', "command"),
    "unknown key": (BOT_TOML + b"colour = 'red'\n", "colour"),
    "script missing": (b'name = "tiny"\ncommand = ["{python}", "nope.py"]\n', "nope.py"),
    "unknown ruleset": (BOT_TOML + b'rulesets = ["chess-960"]\n', "unknown ruleset"),
    "not UTF-8": (BOT_TOML + b"# caf\xe9\n", "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(MANIFESTS))
def test_a_missing_or_bad_bot_toml_is_a_422_with_its_reason(place: Place, case: str) -> None:
    manifest, reason = MANIFESTS[case]
    tree = {k: v for k, v in TREE.items() if k != "bot.toml"}
    if manifest is not None:
        tree["bot.toml"] = (manifest, False)
    for data in (tar_gz(tree_entries(tree, top="mybot/")), zip_of(tree_entries(tree))):
        error = refused(place, data)
        assert isinstance(error, BadManifest) and error.status == 422
        assert reason in str(error), str(error)
        assert str(place.root) not in str(error) and "/.intake" not in str(error)


def test_a_missing_bot_toml_under_a_wrapper_says_where_it_looked(place: Place) -> None:
    tree = {k: v for k, v in TREE.items() if k != "bot.toml"}
    error = refused(place, tar_gz(tree_entries(tree, top="mybot/")))
    assert "nor in mybot/" in str(error)


# -- random archives -----------------------------------------------------------------------------

PIECES = ["a", "b", "bot.py", "..", ".", "", "/", "\\", "\x00", "\n", "é", "\udcff", "\u202e"]
names = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(names, st.binary(max_size=64)), min_size=1, max_size=6), st.booleans())
def test_random_names_never_write_outside_the_folder(
    members: list[tuple[str, bytes]], as_zip: bool
) -> None:
    entries = with_bot(*(Entry(name, data) for name, data in members))
    try:
        data = zip_of(entries) if as_zip else tar_gz(entries)
    except (ValueError, UnicodeError):
        assume(False)
        raise
    with tempfile.TemporaryDirectory() as tmp:
        place = Place(Path(tmp), Path(tmp) / "ladder", Path(tmp) / "ladder" / ".intake")
        (Path(tmp) / "outside").mkdir()
        (Path(tmp) / "outside" / "secret").write_text("not the bot's\n")
        Intake(place.scratch).close()
        before = place.everything()
        with place.intake() as intake:
            try:
                unpacked = feed(intake, data)
            except IntakeError:
                assert os.listdir(place.scratch) == []
            else:
                folder = Path(unpacked.folder)
                for top, dirs, files in os.walk(place.scratch):
                    for name in (*dirs, *files):
                        path = Path(top, name)
                        assert not path.is_symlink()
                        assert path.resolve().is_relative_to(folder) or folder.is_relative_to(path)
                assert tree_digest(folder) == unpacked.digest
        assert place.everything() == before


components = st.text(alphabet="abcxyz_-.", min_size=1, max_size=8).filter(lambda s: s.strip("."))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.lists(components, min_size=1, max_size=4).map("/".join),
        st.integers(min_value=0, max_value=13_000),
        min_size=1,
        max_size=12,
    ),
    st.booleans(),
)
def test_random_sound_folders_are_taken_whole_within_their_limits(
    sizes: dict[str, int], as_zip: bool
) -> None:
    paths = sorted(sizes)
    assume(not any(q.startswith(p + "/") for p in paths for q in paths))  # (no file as a folder)
    files = {f"r/{p}": (bytes([len(p) % 251]) * size, False) for p, size in sizes.items()}
    tree: dict[str, tuple[bytes, bool] | None] = {**TREE, **files}
    entries = [e for e in tree_entries(tree) if e.data is not None]  # (folders left implicit)
    data = zip_of(entries) if as_zip else tar_gz(entries)
    limits = ArchiveLimits(unpacked_mb=20_000 / MIB, file_mb=12_000 / MIB)
    lengths = [len(v[0]) for v in tree.values() if v is not None]
    fits = sum(lengths) <= 20_000 and max(lengths) <= 12_000
    with tempfile.TemporaryDirectory() as tmp, Intake(Path(tmp) / "s", limits) as intake:
        try:
            unpacked = feed(intake, data)
        except ArchiveTooLarge:
            assert not fits
            assert os.listdir(Path(tmp) / "s") == []
        else:
            assert fits
            got = {k: v for k, v in files_of(unpacked.folder).items() if v is not None}
            assert got == {k: v for k, v in tree.items() if v is not None}
            assert unpacked.size == sum(lengths)
