"""`arena check-bot`'s report: each game's line names the bot's fault in it, the problems are
grouped by cause with a count ("timeout in 2 of 7 games: ..."), each with the games it came
in and the hint for its cause; `--players` tries exactly the counts asked, and refuses one
the ruleset does not allow, naming those it does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.games import GameConfigError, get_ruleset
from arena.referee.check import allowed_players, check_bot, player_counts
from arena.referee.folders import load_bot
from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM

# Plays the first action, except in seat 1 (too slow: a timeout) and seat 2 (not JSON).
MOODY = """\
import json, sys, time
seat = None
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        seat = msg["seat"]
        print(json.dumps({"type": "ready", "name": "moody"}), flush=True)
    elif msg["type"] == "act":
        if seat == 1:
            time.sleep(2)
        if seat == 2:
            print("oops, not JSON", flush=True)
            continue
        print(json.dumps({"type": "action", "index": 0}), flush=True)
"""


def moody(tmp_path: Path) -> str:
    script = tmp_path / "moody.py"
    script.write_text(MOODY)
    return f"{sys.executable} {script}"


@pytest.mark.slow
def test_check_bot_names_each_fault_and_groups_them_by_cause(tmp_path: Path) -> None:
    args = ["-r", "odin-race", "-n", "3,4", "--games", "1", "--move-time", "0.2"]
    result = invoke("check-bot", moody(tmp_path), *args, "--sandbox", "off")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    games = [line for line in lines if line.startswith("  odin-race with ")]
    assert [line.split(": ")[1].split(" at ")[0] for line in games] == [
        *("done", "timeout", "malformed"),  # 3 players, seats 0-2
        *("done", "timeout", "malformed", "done"),  # 4 players, seats 0-3
    ]
    assert games[1].startswith(
        "  odin-race with 3 players, seat 1, seed 3001: timeout at decision "
    )
    assert "moody: 7 games, " in result.output

    (timeout,) = [i for i, line in enumerate(lines) if line.startswith("timeout in ")]
    assert lines[timeout] == (
        "timeout in 2 of 7 games: moody did not answer within 200 ms (waited 500 ms more)"
    )
    assert lines[timeout + 1].startswith(
        "  in odin-race (3 players, seat 1, seed 3001) at decision "
    )
    assert ", odin-race (4 players, seat 1, seed 4001) at decision " in lines[timeout + 1]
    assert lines[timeout + 2].startswith("  hint: answer each act within its time_ms")

    (malformed,) = [i for i, line in enumerate(lines) if line.startswith("malformed in ")]
    assert lines[malformed].startswith(
        "malformed in 2 of 7 games: moody sent 'oops, not JSON', which is not JSON"
    )
    assert "(3 players, seat 2, seed 3002)" in lines[malformed + 1]
    assert "(4 players, seat 2, seed 4002)" in lines[malformed + 1]
    assert timeout < malformed  # each cause where it first came
    assert sum(1 for line in lines if line.startswith("  hint: ")) == 2  # one per cause


def test_check_bot_groups_startup_faults_by_cause_with_the_hint_for_it(tmp_path: Path) -> None:
    script = tmp_path / "chatty.py"
    script.write_text("print('starting up', flush=True)\nimport sys\nsys.stdin.read()\n")
    bot = f"{sys.executable} {script}"
    result = invoke("check-bot", bot, "-r", "odin-race", "-n", "2", "--sandbox", "off")
    assert result.exit_code == 1, result.output
    assert result.output.count(": startup during the handshake") == 2
    assert "startup in 2 of 2 games: chatty answered hello with 'starting up', which is not " in (
        result.output
    )
    assert "  hint: stdout carries the protocol's JSON lines only" in result.output
    assert "log to stderr" not in result.output and "start quickly" not in result.output


def test_check_bot_tries_exactly_the_player_counts_asked() -> None:
    args = ["-r", "odin-race", "--games", "1", "--sandbox", "off"]
    result = invoke("check-bot", RANDOM, *args, "-n", "3", "--players", "5")
    assert result.exit_code == 0, result.output
    games = [line for line in result.output.splitlines() if line.startswith("  odin-race with ")]
    assert [line.split(", seed")[0] for line in games] == [
        *(f"  odin-race with 3 players, seat {s}" for s in range(3)),
        *(f"  odin-race with 5 players, seat {s}" for s in range(5)),
    ]
    assert all(line.endswith(": done") for line in games)


def test_check_bot_refuses_a_player_count_the_ruleset_does_not_allow() -> None:
    result = invoke("check-bot", RANDOM, "-r", "odin-race", "-n", "2,7")
    assert result.exit_code == 2, result.output
    assert result.output == "error: odin-race takes 2 to 6 players, not 7\n"  # nothing played
    result = invoke("check-bot", RANDOM, "-r", "odin", "-r", "bested-solo", "-n", "2")
    assert result.exit_code == 2, result.output
    assert result.output == "error: bested-solo takes 1 player only, not 2\n"
    for bad in ("two", "0"):
        result = invoke("check-bot", RANDOM, "-r", "odin", "-n", bad)
        assert result.exit_code == 2 and "--players" in result.output, result.output
        assert len(result.output.splitlines()) == 1


async def test_check_bot_with_player_counts_plays_only_those() -> None:
    odin = get_ruleset("odin")
    report = await check_bot(load_bot(str(RANDOM)), [odin], games=1, players=[4, 4])
    assert report.ok and report.games == 4  # one count, a game per seat
    assert player_counts(odin) == [2, 6] and player_counts(odin, [5, 3, 5]) == [3, 5]
    assert allowed_players(get_ruleset("override-classic")) == "2 players only"
    assert allowed_players(get_ruleset("override-beta")) == "2 to 4 players"
    both = [odin, get_ruleset("bested-solo")]
    with pytest.raises(GameConfigError, match=r"^bested-solo takes 1 player only, not 2$"):
        await check_bot(load_bot(str(RANDOM)), both, players=[2])  # before any game
