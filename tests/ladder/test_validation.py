"""A submitted version's validation: built in its sandbox and played in every seat of every
table size the ladder uses, against random players and copies of itself; a sound bot is
accepted, one whose build fails or that faults is rejected with a sentence and a report that
shows its fault, the hint and its error output."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec

from arena.ladder.config import LadderConfig
from arena.ladder.validation import validate
from tests.helpers.paths import RANDOM, TEST_BOTS

CONFIG = msgspec.convert(
    {"ruleset": "odin-race", "seats": {"2": 1, "3": 1}, "validation": {"games_per_seat": 1}},
    LadderConfig,
)


def folder_of(tmp_path: Path, name: str, script: Path, build: str | None = None) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(script, folder / "bot.py")
    build_line = f"build = {build}\n" if build is not None else ""
    (folder / "bot.toml").write_text(
        f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n{build_line}'
    )
    return folder


async def test_a_sound_bot_is_accepted_after_games_in_every_seat(tmp_path: Path) -> None:
    verdict = await validate(folder_of(tmp_path, "sound", RANDOM / "bot.py"), CONFIG)
    assert verdict.accepted, verdict.report
    # 2 and 3 seats, one game a seat against random players, one against copies of itself.
    assert verdict.reason == "accepted: 7 validation games, every seat, no fault"


async def test_a_bot_that_faults_is_rejected_with_its_fault_and_stderr(tmp_path: Path) -> None:
    verdict = await validate(folder_of(tmp_path, "crashy", TEST_BOTS / "crash_bot.py"), CONFIG)
    assert not verdict.accepted
    assert verdict.reason.startswith("rejected: ") and " in 7 validation games; the first, in " in (
        verdict.reason
    )
    assert "hint: " in verdict.report and "its stderr, last lines:" in verdict.report


async def test_a_bot_whose_build_fails_is_rejected_with_the_build_output(tmp_path: Path) -> None:
    build = '["sh", "-c", "echo bot.c:1: error: expected ; >&2; exit 1"]'
    folder = folder_of(tmp_path, "unbuilt", RANDOM / "bot.py", build)
    verdict = await validate(folder, CONFIG)
    assert not verdict.accepted
    assert verdict.reason.startswith("its build failed: ")
    assert "bot.c:1: error: expected ;" in verdict.report
    # (where the server keeps the version is not the author's business)
    assert "in its folder" in verdict.reason
    assert str(folder) not in verdict.reason + verdict.report
