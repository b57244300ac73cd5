"""A bot's command is checked when the bot is loaded, before any game: a program or an
interpreter's script that does not exist is "not found" with the path looked at, and a file
that exists but is not executable says how to run it (chmod +x, or through its interpreter).
A command a build step produces is checked after the build."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from arena.league.config import ConfigError, load_tournament
from arena.referee.folders import BotSpecError, build_bot, default_name, load_bot
from arena.referee.programs import script_of
from tests.helpers.cli import commands_seating, invoke
from tests.helpers.paths import RANDOM
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

FIRST_CHOICE = "from protocol.bot import run\nrun(lambda request: 0, name='first')\n"


def manifest(folder: Path, *lines: str) -> Path:
    """`folder` (made) with a bot.toml of these lines."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


@pytest.mark.parametrize("interpreter", ["python3", "{python}"])
def test_a_missing_script_of_a_folder_bot_is_not_found_when_loaded(
    tmp_path: Path, interpreter: str
) -> None:
    folder = manifest(tmp_path / "gone", 'name = "gone"', f'command = ["{interpreter}", "bot.py"]')
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    assert str(exc.value) == (
        f"{folder / 'bot.toml'}: the command's script 'bot.py' was not found "
        f"(looked at {folder / 'bot.py'})"
    )


def test_every_command_stops_on_a_missing_script_before_any_game(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "gone", 'name = "gone"', 'command = ["python3", "bot.py"]')
    record = tmp_path / "games.jsonl"
    for args in commands_seating(folder, RANDOM, record):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert "the command's script 'bot.py' was not found" in result.output
        assert f"(looked at {folder / 'bot.py'})" in result.output
        assert "startup" not in result.output and "SPRT" not in result.output  # none played
    assert not record.exists()

    file = write_tournament(tmp_path, [path_bot(folder), path_bot(RANDOM)])
    result = invoke("tournament", file, "--results", tmp_path / "results")
    assert result.exit_code == 2, result.output
    assert "bots[0]" in result.output and "'bot.py' was not found" in result.output
    assert not (tmp_path / "results" / "t").exists()


def test_a_tournament_command_entry_with_a_missing_script_is_refused(tmp_path: Path) -> None:
    file = write_tournament(
        tmp_path, [path_bot(RANDOM), command_bot("mine", "{python}", "mine.py", "--fast")]
    )
    with pytest.raises(ConfigError) as exc:
        load_tournament(file)
    assert "bots[1]: the command's script 'mine.py' was not found" in str(exc.value)
    assert f"(looked at {tmp_path / 'mine.py'})" in str(exc.value)


def test_a_script_that_is_not_executable_says_how_to_run_it(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "plain", 'name = "plain"', 'command = ["./bot.py", "--fast"]')
    (folder / "bot.py").write_text("#!/usr/bin/env python3\n" + FIRST_CHOICE)
    path = folder / "bot.py"
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    assert str(exc.value).endswith(
        f"the command's program {path} is not executable (chmod +x {path}, or run it "
        'through its interpreter: command = ["python3", "bot.py", "--fast"])'
    )


def test_a_command_line_that_is_not_executable_is_not_reported_as_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.js").write_text("process.exit(0)\n")
    result = invoke("play", "odin-race", "./bot.js", RANDOM)
    assert result.exit_code == 2, result.output
    path = tmp_path / "bot.js"
    assert f"{path} is not executable (chmod +x {path}, or run it through its " in result.output
    assert 'interpreter: "node ./bot.js")' in result.output
    assert "not found" not in result.output

    result = invoke("play", "odin-race", "./missing.py", RANDOM)
    assert result.exit_code == 2, result.output
    assert f"'./missing.py' was not found (looked at {tmp_path / 'missing.py'})" in result.output

    result = invoke("play", "odin-race", "python3 missing.py", RANDOM)
    assert result.exit_code == 2, result.output
    assert f"script 'missing.py' was not found (looked at {tmp_path / 'missing.py'})" in (
        result.output
    )


def test_a_bare_name_on_the_command_line_that_is_a_file_here_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mybot").write_text(f"#!{sys.executable}\n{FIRST_CHOICE}")
    (tmp_path / "mybot").chmod(0o755)
    with pytest.raises(BotSpecError, match=r"'mybot' is not a program on PATH; .* \./mybot"):
        load_bot("mybot")
    assert load_bot("./mybot").command == ["./mybot"]


def test_a_script_a_build_makes_is_checked_after_the_build(tmp_path: Path) -> None:
    make = "import pathlib\npathlib.Path('made.py').write_text(pathlib.Path('src').read_text())\n"
    folder = manifest(
        tmp_path / "built",
        'name = "built"',
        'command = ["{python}", "made.py"]',
        'build = ["{python}", "make.py"]',
    )
    (folder / "make.py").write_text(make)
    (folder / "src").write_text(FIRST_CHOICE)
    spec = load_bot(str(folder))  # made.py does not exist yet: the build makes it
    assert build_bot(spec).command == ["{python}", "made.py"]

    idle = manifest(
        tmp_path / "idle", 'name = "idle"', 'command = ["{python}", "made.py"]', 'build = ["true"]'
    )
    spec = load_bot(str(idle))
    with pytest.raises(BotSpecError, match=r"script 'made\.py' was not found \(looked at"):
        build_bot(spec)


@pytest.mark.parametrize(
    ("command", "script"),
    [
        (["python3", "bot.py", "--fast"], "bot.py"),
        (["python3", "-u", "-W", "ignore", "bot.py"], "bot.py"),
        (["python3", "-m", "mybot"], None),
        (["python3", "-c", "print(1)"], None),
        (["python3.12", "--", "bot.py"], "bot.py"),
        (["/usr/bin/node", "--require", "x", "bot.js"], "bot.js"),
        (["node", "-e", "1"], None),
        (["bash", "-c", "exec ./bot"], None),
        (["bash", "run.sh"], "run.sh"),
        (["java", "-Xmx1g", "-jar", "bot.jar"], "bot.jar"),
        (["java", "-cp", ".", "Bot"], None),
        (["./bot", "data.txt"], None),
        (["python3"], None),
    ],
)
def test_the_script_of_an_interpreter_command(command: list[str], script: str | None) -> None:
    assert script_of(command) == script


def test_a_script_found_by_path_and_a_folder_a_python_runs_are_accepted(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "pkg", 'name = "pkg"', 'command = ["{python}", "app"]')
    (folder / "app").mkdir()
    (folder / "app" / "__main__.py").write_text(FIRST_CHOICE)
    assert load_bot(str(folder)).command == ["{python}", "app"]
    assert os.path.isdir(folder / "app")


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("python3 bot.py", "bot"),
        ("python3 crash_bot.py 3 on-request", "crash_bot"),
        ("python3 -u my_bot.py --fast", "my_bot"),
        ("./mybot", "mybot"),
        ("env SEED=3 python3 bot.py 7", "bot"),
    ],
)
def test_a_command_line_bot_is_named_after_its_program_file(line: str, name: str) -> None:
    assert default_name(shlex.split(line)) == name
