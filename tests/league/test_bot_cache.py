"""A worker's bot cache (arena/league/executors/shipping.py): private to its user, so no
other user can plant a bot there; a folder under a digest that is not the archive (planted,
changed, another's, open to others) is replaced, one the bot's build added to or changed is
kept; unpacks racing for one digest end with one sound folder. And a worker builds a shipped
bot in its sandbox, as the coordinator would."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from arena.league.executors import shipping
from arena.league.executors.remote import WorkerError, _ready
from arena.league.executors.shipping import CacheError, Parcel, cache_folder, pack, unpack
from arena.referee.folders import BUILD_STAMP, BotSpec, load_bot
from arena.referee.game import play_game
from arena.referee.sandbox import SandboxConfig, sandbox_problem
from tests.helpers.paths import EXAMPLE_BOTS, RANDOM

ON = SandboxConfig(mode="on")
OTHER = 4242  # another user's id, for files chowned to them (as root)


@pytest.fixture(autouse=True)
def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test as a new worker process: nothing found sound yet, no private cache made."""
    monkeypatch.setattr(shipping, "_checked", {})
    monkeypatch.setattr(shipping, "_fresh", None)
    monkeypatch.delenv("ARENA_BOT_CACHE", raising=False)
    yield


def as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")


def shipped(folder: Path = RANDOM) -> tuple[BotSpec, Parcel, bytes]:
    spec = load_bot(str(folder))
    packed = pack(spec)
    assert packed is not None
    return spec, *packed


def private(path: Path) -> bool:
    st = path.lstat()
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and st.st_mode & 0o777 == 0o700


# -- the cache folder ------------------------------------------------------------------------


def test_the_default_cache_is_private_and_another_users_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shipping.tempfile, "tempdir", str(tmp_path))
    default = tmp_path / f"arena-bots-{os.getuid()}"
    assert cache_folder() == default and private(default)

    default.chmod(0o755)  # as earlier versions made it: only its owner could write there
    assert cache_folder() == default and private(default)

    default.chmod(0o777)  # anyone may have written there: not used
    fresh = cache_folder()
    assert fresh != default and private(fresh) and fresh.parent == tmp_path
    assert cache_folder() == fresh  # (this process's own, from now on)


def test_a_default_cache_planted_by_another_user_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    as_root()
    monkeypatch.setattr(shipping.tempfile, "tempdir", str(tmp_path))
    planted = tmp_path / f"arena-bots-{os.getuid()}"
    planted.mkdir(mode=0o700)
    os.chown(planted, OTHER, OTHER)
    fresh = cache_folder()
    assert fresh != planted and private(fresh)


def test_a_chosen_cache_open_to_others_or_anothers_is_refused_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = tmp_path / "cache"
    monkeypatch.setenv("ARENA_BOT_CACHE", str(chosen))
    assert cache_folder() == chosen and private(chosen)  # made, private
    chosen.chmod(0o755)
    with pytest.raises(CacheError) as caught:
        cache_folder()
    assert f"the bot cache {chosen} (ARENA_BOT_CACHE) is open to other users (mode 0755" in str(
        caught.value
    )
    assert "chmod 700" in str(caught.value)
    if os.geteuid() == 0:
        chosen.chmod(0o700)
        os.chown(chosen, OTHER, OTHER)
        with pytest.raises(CacheError, match=f"belongs to user {OTHER}, not to this user"):
            cache_folder()


# -- what is under a digest ------------------------------------------------------------------


def test_the_usual_path_unpacks_once_and_then_uses_the_folder(tmp_path: Path) -> None:
    _, parcel, data = shipped()
    target = unpack(parcel, data, tmp_path)
    assert (target / "bot.py").read_bytes() == (RANDOM / "bot.py").read_bytes()
    inode = target.stat().st_ino
    assert unpack(parcel, data, tmp_path) == target
    shipping._checked.clear()  # another worker process: finds it sound, uses it
    assert unpack(parcel, data, tmp_path) == target and target.stat().st_ino == inode
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{parcel.digest[:16]}-")]


def test_a_folder_planted_under_the_digest_is_replaced(tmp_path: Path) -> None:
    _, parcel, data = shipped()
    planted = tmp_path / parcel.digest
    shutil.copytree(RANDOM, planted)
    (planted / "bot.py").write_text("print('a planted bot')\n")  # the right name, not the bot
    target = unpack(parcel, data, tmp_path)
    assert target == planted
    assert (target / "bot.py").read_bytes() == (RANDOM / "bot.py").read_bytes()


def test_a_folder_open_to_others_under_the_digest_is_replaced(tmp_path: Path) -> None:
    _, parcel, data = shipped()
    target = unpack(parcel, data, tmp_path)
    target.chmod(0o777)
    shipping._checked.clear()
    again = unpack(parcel, data, tmp_path)
    assert again == target and again.stat().st_mode & 0o777 == 0o755


def test_a_folder_of_another_user_under_the_digest_is_replaced(tmp_path: Path) -> None:
    as_root()
    _, parcel, data = shipped()
    planted = tmp_path / parcel.digest
    shutil.copytree(RANDOM, planted)  # the right files, but another's: they may change them
    for path in [planted, *planted.rglob("*")]:
        os.chown(path, OTHER, OTHER, follow_symlinks=False)
    target = unpack(parcel, data, tmp_path)
    assert target.stat().st_uid == os.geteuid()
    assert all(p.lstat().st_uid == os.geteuid() for p in target.rglob("*"))


def test_what_a_build_adds_or_changes_keeps_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "made"
    shutil.copytree(RANDOM, folder)
    (folder / "notes.txt").write_text("shipped\n")
    (folder / "bot.toml").write_text(
        (RANDOM / "bot.toml").read_text() + "build = \"sh -c 'echo built >> notes.txt'\"\n"
    )
    spec, parcel, data = shipped(folder)
    cache = tmp_path / "cache"
    monkeypatch.setenv("ARENA_BOT_CACHE", str(cache))
    ready = _ready(spec, (parcel, data), "w1")
    target = cache / parcel.digest
    assert ready.folder == str(target) and (target / "notes.txt").read_text() == "shipped\nbuilt\n"
    inode = target.stat().st_ino
    shipping._checked.clear()  # another worker process
    assert unpack(parcel, data, cache) == target and target.stat().st_ino == inode
    assert (target / "notes.txt").read_text() == "shipped\nbuilt\n"  # not built again


def test_a_rename_onto_a_folder_another_process_made_first_keeps_it_if_sound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, parcel, data = shipped()
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    theirs = unpack(parcel, data, other)  # what another process unpacked, ready to move in
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    target = base / parcel.digest
    real = os.rename
    landed: list[str] = []

    def raced(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == target and not landed:  # it lands just before this one's rename
            landed.append(str(src))
            shutil.copytree(theirs, target)
        real(src, dst)

    monkeypatch.setattr(shipping.os, "rename", raced)
    assert unpack(parcel, data, base) == target and landed
    assert not Path(landed[0]).exists()  # this one's own copy, discarded
    first = target.stat().st_ino
    assert (target / "bot.py").read_bytes() == (RANDOM / "bot.py").read_bytes()
    shipping._checked.clear()
    assert unpack(parcel, data, base) == target and target.stat().st_ino == first


def test_unpacks_racing_in_threads_end_with_one_sound_folder(tmp_path: Path) -> None:
    _, parcel, data = shipped()
    got: list[Path] = []
    threads = [
        threading.Thread(target=lambda: got.append(unpack(parcel, data, tmp_path)))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got == [tmp_path / parcel.digest] * 6
    assert (got[0] / "bot.py").read_bytes() == (RANDOM / "bot.py").read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{parcel.digest[:16]}-")]


# -- a worker's build ------------------------------------------------------------------------


def test_a_worker_builds_a_shipped_bot_in_its_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sandbox_problem() is None, f"{sandbox_problem()}: this test needs bubblewrap"
    monkeypatch.setenv("ARENA_BOT_CACHE", str(tmp_path / "cache"))
    away = Path.home() / f".arena-worker-build-test-{os.getpid()}"
    folder = tmp_path / "planter"
    shutil.copytree(RANDOM, folder)
    (folder / "bot.toml").write_text(
        'name = "planter"\ncommand = ["{python}", "bot.py"]\n'
        f'build = ["sh", "-c", "echo x > \'{away}\'"]\n'
    )
    spec, parcel, data = shipped(folder)
    try:
        with pytest.raises(WorkerError, match=r"worker w1: the build of planter .* failed"):
            _ready(msgspec.structs.replace(spec, sandbox=ON), (parcel, data), "w1")
        assert not away.exists()
    finally:
        away.unlink(missing_ok=True)


async def test_a_worker_builds_the_c_bot_in_its_sandbox_and_it_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sandbox_problem() is None, f"{sandbox_problem()}: this test needs bubblewrap"
    monkeypatch.setenv("ARENA_BOT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "random-c"
    shutil.copytree(
        EXAMPLE_BOTS / "random-c", folder, ignore=shutil.ignore_patterns("bot", BUILD_STAMP)
    )
    spec, parcel, data = shipped(folder)
    ready = _ready(msgspec.structs.replace(spec, sandbox=ON), (parcel, data), "w1")
    assert ready.folder == str(tmp_path / "cache" / parcel.digest)
    assert ready.command == ["./bot"] and (Path(ready.folder) / "bot").is_file()
    opponent = msgspec.structs.replace(load_bot(str(RANDOM)), sandbox=ON)
    record = await play_game("odin-race", [ready, opponent], seed=2)
    assert record.faults == [] and all(seat.sandboxed for seat in record.seats)
