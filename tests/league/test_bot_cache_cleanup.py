"""A worker's bot cache cleans itself: an unpacked bot nobody has used for
$ARENA_BOT_CACHE_DAYS days is deleted with its files, one used lately stays, and one held by
a run (a lease), being unpacked or being built stays however old; an unpack's scratch left
behind that long ago goes too; a bad number of days is an error in words."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest

from arena.league.executors.shipping import (
    CacheError,
    Parcel,
    cache_days,
    clean_cache,
    lease,
    pack,
    unpack,
)
from arena.referee.folders import BUILD_STAMP, load_bot
from tests.helpers.paths import GREEDY, RANDOM

DAY = 86400.0


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    return base


def unpacked(bot: Path, base: Path) -> tuple[Parcel, Path]:
    packed = pack(load_bot(str(bot)))
    assert packed is not None
    parcel, data = packed
    return parcel, unpack(parcel, data, base)


def age(base: Path, digest: str, days: float) -> None:
    """Make the entry look last used `days` days ago (its folder, use and lock files)."""
    then = time.time() - days * DAY
    for path in (base / digest, base / f".{digest}.use", base / f".{digest}.lock"):
        if path.exists():
            os.utime(path, (then, then))


def files_of(base: Path, digest: str) -> list[str]:
    return sorted(name for name in os.listdir(base) if digest in name)


def test_a_bot_unused_for_a_week_goes_and_one_used_lately_stays(cache: Path) -> None:
    old, old_folder = unpacked(RANDOM, cache)
    recent, _ = unpacked(GREEDY, cache)
    age(cache, old.digest, 8)
    age(cache, recent.digest, 6)
    assert clean_cache(cache) == [old.digest]
    assert not old_folder.exists() and files_of(cache, old.digest) == []
    assert (cache / recent.digest).is_dir()
    # Unpacked again when a run needs it after all.
    _, again = unpacked(RANDOM, cache)
    assert again == old_folder and (again / "bot.py").is_file()


def test_a_bot_held_by_a_run_stays_however_old_and_goes_once_let_go(cache: Path) -> None:
    parcel, folder = unpacked(RANDOM, cache)
    held = lease(parcel, cache)
    age(cache, parcel.digest, 30)
    assert clean_cache(cache) == []
    assert (folder / "bot.py").is_file()
    held.close()
    age(cache, parcel.digest, 30)  # (the lease marked it used)
    assert clean_cache(cache) == [parcel.digest]
    assert not folder.exists()


def test_a_bot_being_unpacked_or_built_stays(cache: Path) -> None:
    parcel, folder = unpacked(RANDOM, cache)
    with (cache / f".{parcel.digest}.lock").open("r+b") as lock:  # as `unpack` holds it
        fcntl.flock(lock, fcntl.LOCK_EX)
        age(cache, parcel.digest, 30)
        assert clean_cache(cache) == []
    stamp = folder / BUILD_STAMP
    stamp.write_text("{}")
    with stamp.open("r+b") as building:  # as a build holds its stamp
        fcntl.flock(building, fcntl.LOCK_EX)
        age(cache, parcel.digest, 30)
        assert clean_cache(cache) == []
    assert (folder / "bot.py").is_file()
    age(cache, parcel.digest, 30)
    assert clean_cache(cache) == [parcel.digest]


def test_the_days_come_from_the_environment_and_a_bad_number_is_refused(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parcel, folder = unpacked(RANDOM, cache)
    monkeypatch.setenv("ARENA_BOT_CACHE_DAYS", "30")
    age(cache, parcel.digest, 8)
    assert cache_days() == 30 and clean_cache(cache) == []
    monkeypatch.setenv("ARENA_BOT_CACHE_DAYS", "0")  # every bot not in use
    held = lease(parcel, cache)
    assert clean_cache(cache) == []
    held.close()
    assert clean_cache(cache) == [parcel.digest] and not folder.exists()
    for bad in ("a week", "-1", "inf", "nan"):
        monkeypatch.setenv("ARENA_BOT_CACHE_DAYS", bad)
        with pytest.raises(CacheError) as caught:
            clean_cache(cache)
        assert str(caught.value) == (
            f"ARENA_BOT_CACHE_DAYS is {bad!r}, not a number of days (>= 0) that an unused "
            "bot stays in the cache"
        )


def test_an_unpacks_scratch_left_long_ago_goes_and_a_fresh_one_stays(cache: Path) -> None:
    parcel, _ = unpacked(RANDOM, cache)
    stale = cache / f".{parcel.digest[:16]}-abcd1234"
    fresh = cache / f".{parcel.digest[:16]}-efgh5678"
    for scratch in (stale, fresh):
        scratch.mkdir()
        (scratch / "bot.py").write_text("half written")
    then = time.time() - 8 * DAY  # as long ago as a bot unused would go
    os.utime(stale, (then, then))
    assert clean_cache(cache) == []  # (the bot itself was used just now)
    assert not stale.exists() and fresh.is_dir()
