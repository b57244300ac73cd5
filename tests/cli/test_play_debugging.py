"""Debugging a bot with `arena play` and `arena check-bot`: --trace (on stderr) and
--trace-file, the hint for a faulted bot's cause after the game, and a --record or
--trace-file path that cannot be written refused before any bot starts."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM, TEST_BOTS

CRASH = shlex.join([sys.executable, str(TEST_BOTS / "crash_bot.py"), "2", "on-request"])


def seats_traced(trace: str) -> dict[int, list[str]]:
    """The directions of each seat's trace lines ("to", "from", "fault"), in order."""
    seats: dict[int, list[str]] = {}
    for line in trace.splitlines()[1:]:
        words = line.split()
        assert words[2] == "seat", line
        seats.setdefault(int(words[3]), []).append(words[1])
    return seats


def test_play_traces_every_line_on_stderr() -> None:
    result = invoke("play", "odin-race", RANDOM, CRASH, "--sandbox", "off", "--trace")
    assert result.exit_code == 0, result.output
    trace = result.stderr
    assert trace.startswith(
        "trace of odin-race, 2 players, seed 0: seat 0 random-py, seat 1 crash_bot "
    )
    assert "trace of" not in result.stdout and "seat 0 plays" in result.stdout
    seats = seats_traced(trace)
    assert seats[0][:2] == ["to", "from"] and seats[0][-1] == "to"  # hello, ready ... game_over
    # the crash bot: hello and ready, two requests answered, a third unanswered, its fault
    assert seats[1] == ["to", "from", "to", "from", "to", "from", "to", "fault"]
    assert "fault seat 1  crash: crash_bot exited with status 3 before answering" in trace
    assert '"type":"game_over"' in trace.splitlines()[-1]


def test_play_writes_the_trace_to_a_file(tmp_path: Path) -> None:
    file = tmp_path / "trace.txt"
    file.write_text("an older trace\n")
    result = invoke("play", "odin-race", RANDOM, RANDOM, "-q", "--trace-file", file)
    assert result.exit_code == 0, result.output
    assert not result.stderr
    assert result.stdout.endswith(f"trace written to {file}\n")
    text = file.read_text()
    assert text.startswith("trace of odin-race, 2 players, seed 0: seat 0 random-py, ")
    assert set(seats_traced(text)) == {0, 1}


def test_check_bot_traces_the_bot_and_not_its_in_process_opponents() -> None:
    args = ["-r", "odin-race", "-n", "2", "--games", "1", "--sandbox", "off", "--trace"]
    result = invoke("check-bot", RANDOM, *args)
    assert result.exit_code == 0, result.output
    headers = [line for line in result.stderr.splitlines() if line.startswith("trace of")]
    assert headers == [
        "trace of odin-race, 2 players, seed 2000: seat 0 random-py, seat 1 random-1 (not "
        "traced) (times in ms since the game started)",
        "trace of odin-race, 2 players, seed 2001: seat 0 random-0 (not traced), seat 1 "
        "random-py (times in ms since the game started)",
    ]
    first, second = result.stderr.split(headers[1])
    assert set(seats_traced(first)) == {0} and set(seats_traced(headers[1] + second)) == {1}


def test_play_gives_the_hint_for_the_cause_after_the_game(tmp_path: Path) -> None:
    script = tmp_path / "chatty.py"
    script.write_text("print('hello from my bot')\n")
    bot = f"{sys.executable} {script}"
    result = invoke("play", "odin-race", RANDOM, bot, "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        "hint for chatty (seat 1, startup): stdout carries the protocol's JSON lines only, and "
        "its first line must be the ready line: write debug prints and logs to stderr (Python: "
        "print(..., file=sys.stderr); JavaScript: console.error)"
    )
    quiet = invoke("play", "odin-race", RANDOM, bot, "--sandbox", "off", "-q")
    assert "hint for" not in quiet.output


def test_play_shows_the_exit_status_and_stderr_of_a_bot_that_exited(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nsys.stderr.write('KeyError: seat\\n')\nsys.exit(5)\n")
    result = invoke("play", "odin-race", f"{sys.executable} {script}", RANDOM, "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "startup during the handshake: broken exited with status 5" in result.output
    assert "  its stderr, last lines:\n    KeyError: seat\n" in result.output
    assert "hint for broken (seat 0, startup): it ended before answering hello: its stderr, " in (
        result.output
    )


@pytest.fixture
def marked_bot(tmp_path: Path) -> tuple[str, Path]:
    """A bot's command line that leaves a file behind as soon as it starts, and that file."""
    marker = tmp_path / "started"
    script = tmp_path / "marking.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    return f"{sys.executable} {script}", marker


@pytest.mark.parametrize(
    ("where", "says"),
    [
        ("missing/games.jsonl", "--record {path}: the folder {parent} does not exist"),
        (".", "--record {path}: it is a folder, not a file"),
        ("file/games.jsonl", "--record {path}: {parent} is a file, not a folder"),
        ("/sys/arena-games.jsonl", "--record: cannot write {path}: "),
    ],
)
def test_play_refuses_a_record_path_it_cannot_write_before_any_bot_starts(
    tmp_path: Path, marked_bot: tuple[str, Path], where: str, says: str
) -> None:
    (tmp_path / "file").write_text("")
    path = tmp_path / where
    bot, marker = marked_bot
    result = invoke("play", "odin-race", bot, RANDOM, "--record", path, "--sandbox", "off")
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line.startswith("error: " + says.format(path=path, parent=path.parent)), line
    assert not marker.exists()  # no bot started: nothing played, nothing lost


def test_play_refuses_a_trace_file_it_cannot_write(
    tmp_path: Path, marked_bot: tuple[str, Path]
) -> None:
    bot, marker = marked_bot
    path = tmp_path / "missing" / "trace.txt"
    result = invoke("play", "odin-race", bot, RANDOM, "--trace-file", path, "--sandbox", "off")
    assert result.exit_code == 2, result.output
    assert result.output == f"error: --trace-file {path}: the folder {path.parent} does not exist\n"
    assert not marker.exists()


def test_the_record_check_leaves_no_file_behind(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    result = invoke("play", "odin-race", "no-such-bot-here", RANDOM, "--record", path)
    assert result.exit_code == 2 and "neither a bot folder" in result.output
    assert not path.exists()
