"""The intake of a submitted bot: its archive (a .tar.gz or a .zip) taken in as it streams in,
unpacked under limits into a folder of its own, checked for a valid `bot.toml`, and stored
by the hash of its file tree.

An upload goes through three steps:

- `Intake.write` takes the upload chunk by chunk (as a multipart parser hands it over) into a
  spooled temporary file, and refuses it (`ArchiveTooLarge`, 413) as soon as more bytes came
  than `ArchiveLimits.archive_mb` allows, or (`BadArchive`, 422) once its first bytes show
  it is neither a gzip stream nor a zip file.
- `Intake.finish` unpacks it into a fresh private folder (`_Unpacker`), entry by entry, with
  every limit counted on the bytes actually produced, never on what the archive's headers
  claim; it refuses absolute paths, `..`, links of any kind, device files, fifos and sockets,
  names that are not printable UTF-8, duplicate entries, and too many, too deep, too long or
  too large entries. A folder wrapping every entry is unwrapped. The folder must hold a valid
  `bot.toml` (`arena.referee.folders.load_bot`); its tree's hash is `tree_digest`'s.
- `store` moves the checked folder into `versions/<digest>/` of the ladder's folder with one
  rename, or finds the same version there already.

Whatever is refused, nothing is written outside the intake's own folder, and that folder is
removed before the error is raised. Unpacking reads and writes files: the server runs
`finish` in a worker thread (`trio.to_thread.run_sync`), not in its event loop.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import shutil
import stat
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Annotated, ClassVar, cast

import msgspec
from msgspec import Meta

from arena.games.errors import ArenaError
from arena.referee.folders import BUILD_STAMP, MANIFEST, BotSpec, BotSpecError, load_bot

MIB = 1 << 20
CHUNK = 1 << 16  # bytes read, inflated or written at a time
RATIO_FREE = MIB  # bytes any archive may unpack to, whatever its compression ratio
NAME_BYTES = 255  # bytes of one name in a path (the file systems' limit)
HEADER_BYTES = 64 * 1024  # bytes of one tar extension header (long names, pax records)
HEADERS_PER_ENTRY = 4096  # bytes of tar extension headers allowed per entry the limits allow
TREE_FORMAT = b"arena-tree-1\n"  # the first bytes hashed into a tree digest
VERSIONS = "versions"  # the store's folder of versions, by digest


class ArchiveLimits(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How large an uploaded archive may be, and what it may unpack to (the `[submissions]`
    limits of ladder.toml). Sizes are in MiB; every limit is counted on the bytes actually
    received and produced, never on what an archive's headers claim."""

    archive_mb: Annotated[
        float, Meta(gt=0, description="MiB of the upload as sent (the .tar.gz or .zip)")
    ] = 10.0
    unpacked_mb: Annotated[
        float, Meta(gt=0, description="MiB of all the archive's files together, unpacked")
    ] = 100.0
    file_mb: Annotated[float, Meta(gt=0, description="MiB of one file, unpacked")] = 50.0
    files: Annotated[
        int, Meta(ge=1, description="entries in the archive: files and folders together")
    ] = 2000
    depth: Annotated[int, Meta(ge=1, description="names in one path (a/b/c is 3)")] = 16
    path_bytes: Annotated[
        int, Meta(ge=1, description="bytes of one path inside the archive, in UTF-8")
    ] = 256
    ratio: Annotated[
        float,
        Meta(gt=0, description="how many times its own size an upload may unpack to, beyond "
             "its first MiB: a decompression bomb is refused as soon as it passes this"),
    ] = 100.0  # fmt: skip
    spool_mb: Annotated[
        float,
        Meta(
            ge=0,
            description="MiB of an upload held in memory before it goes to disk (0: on "
            "disk from its first byte)",
        ),
    ] = 1.0


def _bytes(mb: float) -> int:
    return int(mb * MIB)


def _mb(n: float) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB else f"{int(n):,} bytes"


class IntakeError(ArenaError):
    """An upload the ladder refuses, in words for its author; `status` is the HTTP status the
    API answers with (413: too large, 422: not a sound archive or bot) and `kind` a word for
    the JSON error."""

    status: ClassVar[int] = 422
    kind: ClassVar[str] = "refused"


class ArchiveTooLarge(IntakeError):
    """An upload larger than a limit allows: sent, unpacked, one file, or too many files."""

    status: ClassVar[int] = 413
    kind: ClassVar[str] = "too-large"


class BadArchive(IntakeError):
    """An upload that is not a sound .tar.gz or .zip of a bot folder: another format, a
    damaged archive, or an entry the ladder refuses (a link, a device, `..`, ...)."""

    kind: ClassVar[str] = "bad-archive"


class BadManifest(BadArchive):
    """An archive whose `bot.toml` is missing or wrong; the message says what is wrong in it,
    with paths inside the archive (never the server's)."""

    kind: ClassVar[str] = "bad-manifest"


class Unpacked(msgspec.Struct, frozen=True):
    """An archive unpacked and checked: its folder (inside the intake's own, until `store`
    moves it), the digest of its tree (`tree_digest`), the bot its `bot.toml` names, how
    many files and bytes it holds, and the folder that wrapped everything in the archive
    (None when nothing was unwrapped)."""

    folder: str
    digest: str
    spec: BotSpec
    files: int
    size: int
    unwrapped: str | None = None


class Stored(msgspec.Struct, frozen=True):
    """A version in the store: its digest, its folder (`versions/<digest>`), its bot as loaded
    from there, and whether that same tree was stored already (then the upload was
    discarded and the folder is the earlier one)."""

    digest: str
    folder: str
    spec: BotSpec
    existed: bool


class Intake:
    """One upload, taken in as it streams: `write` each chunk, then `finish` to unpack and
    check it; `close` (or leaving a `with` block) removes whatever is left of it.

    The upload is spooled (in memory up to `spool_mb`, then in an unnamed temporary file in
    `scratch`) and refused as soon as it passes `archive_mb`. Its folder is made in
    `scratch` (private, mode 0700, until `store` moves it out); give a scratch folder on the
    store's file system (`store_scratch`) so that storing it is one rename. After a refusal
    the intake is closed: nothing of it is left in `scratch`."""

    def __init__(self, scratch: Path | str, limits: ArchiveLimits | None = None) -> None:
        self.limits = limits if limits is not None else ArchiveLimits()
        self.scratch = Path(scratch)
        self.scratch.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.received = 0  # bytes of the upload so far
        self.inflated = 0  # bytes decompressed so far (a tar's headers and padding included)
        self.written = 0  # bytes of files written so far
        spool = _bytes(self.limits.spool_mb)  # (the spool is closed by `close`)
        self._spool: IO[bytes] | None = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            max_size=spool, mode="w+b", dir=str(self.scratch)
        )
        if spool == 0:
            self._spool.rollover()  # (on disk from its first byte)
        self._head = b""
        self._staging: Path | None = None
        self._done = False

    def __enter__(self) -> Intake:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, chunk: bytes) -> None:
        """Take the next chunk of the upload. ArchiveTooLarge (the intake closed) once the
        upload passes `archive_mb`; BadArchive once its first bytes are neither gzip's
        nor zip's."""
        spool = self._open_spool()
        self.received += len(chunk)
        limit = _bytes(self.limits.archive_mb)
        if self.received > limit:
            self.close()
            raise ArchiveTooLarge(
                f"the upload is larger than {_mb(limit)}: make the bot's folder smaller "
                "(leave out build outputs, data and dependencies the bot can do without)"
            )
        if len(self._head) < 4:
            self._head += chunk[: 4 - len(self._head)]
            if len(self._head) >= 4:
                self._sniff()
        spool.write(chunk)

    def finish(self) -> Unpacked:
        """The upload unpacked into a fresh folder and checked (see the module's docstring):
        IntakeError, the intake closed and its folder gone, when it is refused."""
        spool = self._open_spool()
        self._done = True
        try:
            self._sniff()
            spool.seek(0)
            self._staging = Path(tempfile.mkdtemp(dir=self.scratch, prefix=".intake-"))
            unpacker = _Unpacker(self, self._staging / "tree")
            if self._head.startswith(b"\x1f\x8b"):
                unpacker.tar(spool)
            else:
                unpacker.zip(spool)
            return unpacker.checked()
        except BaseException:
            self.close()
            raise
        finally:
            if self._spool is not None:
                self._spool.close()
                self._spool = None

    def close(self) -> None:
        """Forget the upload and remove its folder, if `store` did not move it out."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        self._done = True
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    def _open_spool(self) -> IO[bytes]:
        if self._spool is None or self._done:
            raise BadArchive("this upload was already refused or finished: send it again")
        return self._spool

    def _sniff(self) -> None:
        """BadArchive unless the upload starts as a gzip stream or a zip file does."""
        head = self._head
        if head.startswith(b"\x1f\x8b") or head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            return
        self.close()
        if not head:
            raise BadArchive("the upload is empty: send the bot's folder as a .tar.gz or .zip")
        raise BadArchive(f"the upload is not a .tar.gz or .zip archive: it is {_format_of(head)}")


def _format_of(head: bytes) -> str:
    """What an upload that is not an archive the ladder takes looks like, in words."""
    gzip_it = "use gzip: tar czf bot.tar.gz FOLDER"
    known = {
        b"BZh": f"compressed with bzip2 ({gzip_it})",
        b"\xfd7zXZ": f"compressed with xz ({gzip_it})",
        b"\x28\xb5\x2f\xfd": f"compressed with zstd ({gzip_it})",
        b"7z\xbc\xaf": "a 7-Zip archive",
        b"Rar!": "a RAR archive",
    }
    for magic, what in known.items():
        if head.startswith(magic):
            return what
    return "of an unknown format (a plain tar must be gzipped: tar czf bot.tar.gz FOLDER)"


def store_scratch(store: Path | str) -> Path:
    """The scratch folder for intakes into `store` (on its file system, so that `store` can
    rename a checked folder into place)."""
    return Path(store) / ".intake"


def store(unpacked: Unpacked, base: Path | str) -> Stored:
    """The checked folder moved into `base/versions/<digest>` whole, by one rename (a folder
    there is never half written), or the version already there under that digest (the same
    files: the upload's folder is then removed). From a scratch folder on another file
    system, the folder is copied next to its place first, then renamed."""
    versions = Path(base) / VERSIONS
    versions.mkdir(parents=True, exist_ok=True)
    target = versions / unpacked.digest
    source = Path(unpacked.folder)
    existed = os.path.isdir(target)
    if not existed:
        try:
            os.rename(source, target)
        except OSError as exc:
            if exc.errno == errno.EXDEV:
                existed = _copy_into(source, target)
            elif exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                existed = True  # (another upload of the same tree came first)
            else:
                raise
    if existed:
        shutil.rmtree(source, ignore_errors=True)
    return Stored(unpacked.digest, str(target), load_bot(str(target)), existed)


def _copy_into(source: Path, target: Path) -> bool:
    """Copy `source` beside `target`, then rename it there; whether `target` was there
    first."""
    aside = target.parent / f".{target.name[:16]}-{secrets.token_hex(8)}"
    try:
        shutil.copytree(source, aside, symlinks=True)
        os.rename(aside, target)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            return True
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)
    shutil.rmtree(source, ignore_errors=True)
    return False


# -- the digest of a tree ------------------------------------------------------------------------


def _tree_hash(dirs: Iterable[str], files: Mapping[str, tuple[bool, bytes]]) -> str:
    """The SHA-256 of a tree: every folder and file by path (sorted by its UTF-8 bytes), a
    file with its executable bit and the SHA-256 of its bytes. Nothing else counts: not the
    archive's format or order, nor times, owners or other mode bits."""
    entries = [(d.encode(), b"d", b"") for d in dirs]
    entries += [(p.encode(), b"x" if x else b"f", h) for p, (x, h) in files.items()]
    digest = hashlib.sha256(TREE_FORMAT)
    for path, kind, content in sorted(entries):
        digest.update(kind + b"\0" + path + b"\0" + content)
    return digest.hexdigest()


def tree_digest(folder: Path | str) -> str:
    """The digest of a folder's tree as `Intake.finish` computes it for an archive (its
    build stamp left out): equal for a folder and for any archive that unpacks to it.
    ValueError for a folder holding anything but folders and regular files."""
    root = str(folder)
    dirs: list[str] = []
    files: dict[str, tuple[bool, bytes]] = {}
    for top, subdirs, names in os.walk(root):
        for name in (*subdirs, *names):
            path = os.path.join(top, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                dirs.append(rel)
            elif stat.S_ISREG(st.st_mode):
                if rel == BUILD_STAMP:
                    continue
                with open(path, "rb") as fh:
                    content = hashlib.file_digest(fh, "sha256").digest()
                files[rel] = (bool(st.st_mode & stat.S_IXUSR), content)
            else:
                raise ValueError(f"{path} is neither a folder nor a regular file")
    return _tree_hash(dirs, files)


# -- unpacking -----------------------------------------------------------------------------------

_ZIP_METHODS = {9: "deflate64", 12: "bzip2", 14: "lzma", 93: "zstandard", 95: "xz", 99: "AES"}
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}


def _show(name: str) -> str:
    """A name from an archive, fit to quote in a message: quoted, what is not printable
    escaped (as Python writes strings), cut at 120 characters."""
    return repr(name[:120]) + ("..." if len(name) > 120 else "")


class _Unpacker:
    """Writes one archive's entries into `tree` (made now, private to this user), each one
    checked before anything of it is written, with every size counted as it is produced."""

    def __init__(self, intake: Intake, tree: Path) -> None:
        self.intake = intake
        self.limits = intake.limits
        self.tree = tree
        tree.mkdir(mode=0o700)
        self.files: dict[str, tuple[bool, bytes]] = {}  # path: (executable, SHA-256)
        self.dirs: set[str] = set()  # every folder made (listed or a parent of an entry)
        self.listed: set[str] = set()  # the folders the archive lists
        self.entries = 0

    # -- what an entry may be

    def path_of(self, name: str, *, backslash_is_separator: bool) -> str | None:
        """The relative path an entry's name stands for (`.` and empty names dropped), or
        None for the archive's top folder itself; BadArchive for a name that could leave the
        folder or that no sound bot folder holds."""
        if any(unicodedata.category(c) == "Cc" or c in _BIDI for c in name):
            raise BadArchive(
                f"the archive holds a name with a control character ({_show(name)}): rename it"
            )
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            raise BadArchive(
                f"the archive holds a name that is not UTF-8 ({_show(name)}): rename it"
            ) from None
        if backslash_is_separator:
            name = name.replace("\\", "/")  # (as Windows tools write them into zips)
        elif "\\" in name:
            raise BadArchive(f"the archive holds a name with a backslash ({_show(name)})")
        if name.startswith("/"):
            raise BadArchive(
                f"the archive holds an absolute path ({_show(name)}): pack the folder's "
                "files with paths relative to it"
            )
        parts = [part for part in name.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise BadArchive(
                f"the archive holds a path that leaves its folder ({_show(name)}): pack the "
                "folder's files with paths relative to it, without .."
            )
        if not parts:
            return None
        if len(parts) > self.limits.depth:
            raise BadArchive(
                f"the archive holds a path deeper than {self.limits.depth} folders ({_show(name)})"
            )
        path = "/".join(parts)
        if any(len(part.encode()) > NAME_BYTES for part in parts):
            raise BadArchive(f"the archive holds a name longer than {NAME_BYTES} bytes")
        if len(path.encode()) > self.limits.path_bytes:
            raise BadArchive(
                f"the archive holds a path longer than {self.limits.path_bytes} bytes "
                f"({_show(path)})"
            )
        return path

    def count(self, path: str | None) -> None:
        """One more entry (None: the archive's top folder itself, which counts too);
        ArchiveTooLarge past the limit; BadArchive for a path listed twice."""
        if path is not None and (path in self.files or path in self.listed):
            raise BadArchive(f"the archive lists {_show(path)} twice")
        self.entries += 1
        if self.entries > self.limits.files:
            raise ArchiveTooLarge(self.too_many())

    def too_many(self) -> str:
        return (
            f"the archive holds more than {self.limits.files:,} files and folders: leave out "
            "what the bot does not need"
        )

    def refuse_kind(self, name: str, kind: str) -> None:
        """BadArchive for an entry of a kind no bot folder may hold (a link, a device...)."""
        hints = {
            "symbolic link": "links are refused, whether or not they stay in the folder: "
            "pack the file itself (tar -h, or zip without -y)",
            "hard link": "pack each file itself (tar --hard-dereference)",
        }
        why = hints.get(kind, "a bot's folder holds only files and folders")
        raise BadArchive(f"the archive holds a {kind} ({_show(name)}): {why}")

    # -- writing

    def folder(self, path: str) -> None:
        """Make the folder `path` (and its parents) unless it is there."""
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            if prefix in self.files:
                raise BadArchive(f"the archive holds {_show(prefix)} both as a file and a folder")
            if prefix not in self.dirs:
                os.mkdir(self.tree / prefix, 0o700)
                self.dirs.add(prefix)

    def file(self, path: str, executable: bool, source: IO[bytes], claimed: int) -> None:
        """Write the file `path` from `source`, refused as soon as it passes its limit or the
        archive's total does."""
        one = _bytes(self.limits.file_mb)
        if claimed > one:
            raise ArchiveTooLarge(self.too_big(path, one))
        if path in self.dirs:
            raise BadArchive(f"the archive holds {_show(path)} both as a file and a folder")
        if "/" in path:
            self.folder(path.rsplit("/", 1)[0])
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.tree / path, flags, 0o600)
        content = hashlib.sha256()
        size = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(CHUNK):
                size += len(chunk)
                self.intake.written += len(chunk)
                if size > one:
                    raise ArchiveTooLarge(self.too_big(path, one))
                self.check_total()
                content.update(chunk)
                out.write(chunk)
        self.files[path] = (executable, content.digest())

    def too_big(self, path: str, limit: int) -> str:
        return f"{_show(path)} in the archive is larger than {_mb(limit)}, the limit for one file"

    def check_total(self) -> None:
        limit = _bytes(self.limits.unpacked_mb)
        if self.intake.written > limit:
            raise ArchiveTooLarge(
                f"the archive unpacks to more than {_mb(limit)}: leave out what the bot does "
                "not need"
            )
        self.check_ratio(self.intake.written)

    def check_ratio(self, produced: int) -> None:
        """ArchiveTooLarge when `produced` bytes (beyond the first MiB) are more than `ratio`
        times the upload's size: a decompression bomb, refused before it fills the disk."""
        allowed = max(RATIO_FREE, self.limits.ratio * self.intake.received)
        if produced > allowed:
            raise ArchiveTooLarge(
                f"the archive unpacks to more than {self.limits.ratio:g} times its "
                f"{_mb(self.intake.received)}: refused as a decompression bomb (pack data "
                "that compresses this well some other way, or leave it out)"
            )

    # -- the formats

    def tar(self, spool: IO[bytes]) -> None:
        """Unpack a gzipped tar, read as a stream (`_Inflater` counts every byte inflated)."""
        limits = self.limits
        headers = limits.files * HEADERS_PER_ENTRY + HEADER_BYTES
        cap = _bytes(limits.unpacked_mb) + limits.files * 3 * tarfile.BLOCKSIZE + headers
        stream = _Inflater(spool, self, cap)
        try:
            with _Tar.open(fileobj=cast(IO[bytes], stream), mode="r|", tarinfo=_TarEntry) as tar:
                assert isinstance(tar, _Tar)
                tar.header_budget = headers
                while (info := tar.next()) is not None:  # (at most `files`: each counts)
                    self.tar_entry(tar, info)
            stream.drain()
        except tarfile.TarError as exc:
            raise BadArchive(f"the archive is not a sound .tar.gz ({exc})") from None
        except (EOFError, zlib.error) as exc:
            raise BadArchive(f"the archive's gzip stream is damaged or cut short ({exc})") from None
        except RecursionError:
            raise BadArchive("the archive's tar headers are nested too deep") from None

    def tar_entry(self, tar: tarfile.TarFile, info: tarfile.TarInfo) -> None:
        name = info.name
        if info.type in (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE):
            path = self.path_of(name, backslash_is_separator=False)
            if path is None:
                raise BadArchive(f"the archive holds a file without a name ({_show(name)})")
            self.count(path)
            source = tar.extractfile(info)
            assert source is not None
            self.file(path, bool(info.mode & stat.S_IXUSR), source, info.size)
        elif info.type == tarfile.DIRTYPE:
            path = self.path_of(name, backslash_is_separator=False)
            self.count(path)
            if path is not None:
                self.folder(path)
                self.listed.add(path)
        else:
            kinds = {
                tarfile.SYMTYPE: "symbolic link",
                tarfile.LNKTYPE: "hard link",
                tarfile.CHRTYPE: "character device",
                tarfile.BLKTYPE: "block device",
                tarfile.FIFOTYPE: "fifo",
                tarfile.GNUTYPE_SPARSE: "sparse file",
            }
            self.refuse_kind(name, kinds.get(info.type, f"entry of tar type {info.type!r}"))

    def zip(self, spool: IO[bytes]) -> None:
        """Unpack a zip file (its entries counted from its end record before its directory is
        read), only stored and deflated entries, their bytes counted as they inflate."""
        count = _zip_entries(spool)
        if count is not None and count > self.limits.files:
            raise ArchiveTooLarge(self.too_many())
        try:
            with zipfile.ZipFile(spool) as archive:
                infos = archive.infolist()
                if len(infos) > self.limits.files:
                    raise ArchiveTooLarge(self.too_many())
                for info in infos:
                    self.zip_entry(archive, info)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
            raise BadArchive(f"the archive is not a sound .zip ({exc})") from None

    def zip_entry(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
        name = info.orig_filename
        mode = info.external_attr >> 16 if info.create_system == 3 else 0
        kind = stat.S_IFMT(mode)
        if kind == stat.S_IFLNK:
            self.refuse_kind(name, "symbolic link")
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            kinds = {stat.S_IFCHR: "character device", stat.S_IFBLK: "block device"}
            kinds |= {stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket"}
            self.refuse_kind(name, kinds.get(kind, f"entry of mode {mode:o}"))
        path = self.path_of(name, backslash_is_separator=True)
        if name.endswith(("/", "\\")) or kind == stat.S_IFDIR:
            self.count(path)
            if path is not None:
                self.folder(path)
                self.listed.add(path)
            return
        if path is None:
            raise BadArchive(f"the archive holds a file without a name ({_show(name)})")
        if info.flag_bits & 0x1:
            raise BadArchive(f"{_show(name)} in the archive is encrypted: send it unencrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            method = _ZIP_METHODS.get(info.compress_type, f"method {info.compress_type}")
            raise BadArchive(
                f"{_show(name)} in the archive is compressed with {method}: zip it with "
                "deflate (zip's default)"
            )
        self.count(path)
        with archive.open(info) as source:
            self.file(path, bool(mode & stat.S_IXUSR), source, info.file_size)

    # -- the result

    def checked(self) -> Unpacked:
        """The tree unpacked, unwrapped (one folder holding everything, without a bot.toml
        beside it, stands for the bot's folder), its build stamp dropped, its modes set
        (folders 0755, files 0644 or 0755) and its bot.toml loaded."""
        root, prefix, unwrapped = self.tree, "", None
        tops = os.listdir(self.tree)
        if len(tops) == 1 and tops[0] in self.dirs:
            unwrapped = tops[0]
            root, prefix = self.tree / unwrapped, unwrapped + "/"
        files = {p[len(prefix) :]: v for p, v in self.files.items() if p.startswith(prefix)}
        dirs = {p[len(prefix) :] for p in self.dirs if p.startswith(prefix)}
        stamp = root / BUILD_STAMP
        if BUILD_STAMP in dirs:
            shutil.rmtree(stamp)
        elif BUILD_STAMP in files:
            stamp.unlink()
        files = {p: v for p, v in files.items() if not _under(p, BUILD_STAMP)}
        dirs = {p for p in dirs if not _under(p, BUILD_STAMP)}
        os.chmod(root, 0o755)
        for rel in dirs:
            os.chmod(root / rel, 0o755)
        for rel, (executable, _) in files.items():
            os.chmod(root / rel, 0o755 if executable else 0o644)
        spec = _manifest(root, unwrapped)
        size = self.intake.written
        return Unpacked(str(root), _tree_hash(dirs, files), spec, len(files), size, unwrapped)


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top + "/")


def _manifest(root: Path, unwrapped: str | None) -> BotSpec:
    """The bot the unpacked folder's bot.toml names (`load_bot`): BadManifest, with paths
    inside the archive, when it is missing or wrong."""
    manifest = root / MANIFEST
    where = f"{unwrapped}/{MANIFEST}" if unwrapped else MANIFEST
    if not os.path.lexists(manifest):
        found = "at its top" + (f" nor in {unwrapped}/" if unwrapped else "")
        raise BadManifest(
            f"the archive has no {MANIFEST} {found}: a bot's folder holds a {MANIFEST} with "
            "name = ... and command = [...]"
        )
    if not manifest.is_file():
        raise BadManifest(f"{where} in the archive is a folder, not a file")
    try:
        manifest.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise BadManifest(f"{where} is not UTF-8 text") from None
    try:
        return load_bot(str(root))
    except BotSpecError as exc:
        text, inside = str(exc), f"{unwrapped}/" if unwrapped else ""
        for path in sorted({str(root), os.path.realpath(root)}, key=len, reverse=True):
            text = text.replace(path + os.sep, inside).replace(path, "the bot's folder")
        raise BadManifest(text) from None


def _zip_entries(fh: IO[bytes]) -> int | None:
    """How many entries a zip file's end record says it holds (the zip64 one when there is
    one), or None when there is no such record (zipfile then says what is wrong)."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    tail_size = min(size, 22 + 0xFFFF)
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    total = int.from_bytes(tail[at + 10 : at + 12], "little")
    if total != 0xFFFF:
        return total
    locator = tail[at - 20 : at] if at >= 20 else b""
    if not locator.startswith(b"PK\x06\x07"):
        return None
    fh.seek(int.from_bytes(locator[8:16], "little"))
    record = fh.read(56)
    if not record.startswith(b"PK\x06\x06") or len(record) < 40:
        return None
    return int.from_bytes(record[32:40], "little")


class _Tar(tarfile.TarFile):
    """A tar read as a stream, with a budget of bytes for its extension headers (long names,
    pax records) that `_TarEntry` spends."""

    header_budget = HEADER_BYTES


class _TarEntry(tarfile.TarInfo):
    """A tar header whose extension headers (GNU long names, pax records) are refused before
    they are read when one is larger than HEADER_BYTES or they all pass their budget: the
    tarfile module reads each into memory whole."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        extensions = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE)
        headers = (*extensions, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
        if self.type in headers and isinstance(tar, _Tar):
            tar.header_budget -= self.size
            if self.size > HEADER_BYTES or tar.header_budget < 0:
                raise BadArchive(
                    "the archive's tar headers are too large (long names or extended "
                    "attributes): pack it without extended attributes (tar --no-xattrs)"
                )
        entry: tarfile.TarInfo = super()._proc_member(tar)  # type: ignore[misc]
        return entry


class _Inflater:
    """The inflated bytes of a gzip stream (one or more members) read from `source`, for
    tarfile's stream mode: at most what is asked for at a time, each counted in the intake's
    `inflated`, refused as soon as they pass `cap` or the intake's ratio."""

    def __init__(self, source: IO[bytes], unpacker: _Unpacker, cap: int) -> None:
        self.source = source
        self.unpacker = unpacker
        self.cap = cap
        self.pending = b""  # compressed bytes read and not yet given to the decompressor
        self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def read(self, size: int = -1) -> bytes:
        """Up to `size` inflated bytes (CHUNK when `size` is negative); b"" at the end."""
        want = CHUNK if size < 0 else size
        out = bytearray()
        while len(out) < want:
            data = self.inflate.unconsumed_tail or self.pending
            if not data:
                data = self.source.read(CHUNK)
                if not data:
                    if not self.inflate.eof:
                        raise EOFError("the upload ends inside its gzip stream")
                    break
            self.pending = b""
            if self.inflate.eof:  # another gzip member follows
                self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            piece = self.inflate.decompress(data, want - len(out))
            if self.inflate.eof:
                self.pending = self.inflate.unused_data
            out += piece
            self.count(len(piece))
        return bytes(out)

    def count(self, n: int) -> None:
        intake = self.unpacker.intake
        intake.inflated += n
        if intake.inflated > self.cap:
            raise ArchiveTooLarge(
                f"the archive unpacks to more than {_mb(self.cap)}: leave out what the bot "
                "does not need"
            )
        self.unpacker.check_ratio(intake.inflated)

    def drain(self) -> None:
        """Read the stream to its end (what follows the tar's end counted too), so that a
        damaged or cut gzip stream is refused."""
        while self.read(CHUNK):
            pass
