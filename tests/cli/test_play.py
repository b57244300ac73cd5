"""`arena play` shown move by move: where a bot faulted and the fallback took over its seat."""

from __future__ import annotations

import shlex
import sys

from tests.helpers.cli import invoke
from tests.helpers.paths import RANDOM, TEST_BOTS


def test_play_marks_the_fault_and_every_move_the_fallback_made() -> None:
    crash = shlex.join([sys.executable, str(TEST_BOTS / "crash_bot.py"), "3", "on-request"])
    result = invoke("play", "odin-race", RANDOM, crash, "--seed", "0", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    (at,) = [i for i, line in enumerate(lines) if "a random fallback plays seat 1" in line]
    assert lines[at].startswith("crash at decision ")
    before, after = lines[:at], lines[at + 1 :]
    assert not any("[fallback" in line for line in before)  # the bot's own moves
    # its decisions (a take-back is one only when there is a choice: then it is marked too)
    seat1 = [line for line in after if line.startswith(("seat 1 plays", "seat 1 passes"))]
    assert seat1 and all(line.endswith("[fallback for crash_bot]") for line in seat1)
    seat0 = [line for line in after if line.startswith("seat 0 ")]
    assert seat0 and not any("[fallback" in line for line in seat0)
