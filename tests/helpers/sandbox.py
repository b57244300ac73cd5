"""The hostile bot (tests/bots/hostile_bot.py) as a bot spec, sandboxed unless told otherwise.

Kept out of the test modules so that a referee run in a child process (test_sandbox's
REFEREE_SCRIPT) can import it without importing a test module."""

from __future__ import annotations

import sys

from arena.referee.folders import BotSpec
from arena.referee.sandbox import SandboxConfig
from tests.helpers.paths import TEST_BOTS

HOSTILE = TEST_BOTS / "hostile_bot.py"
ON = SandboxConfig(mode="on")


def hostile(attack: str, *args: object, sandbox: SandboxConfig | None = ON, **env: str) -> BotSpec:
    """The hostile bot running one attack, as a bare command line."""
    command = [sys.executable, str(HOSTILE), attack, *map(str, args)]
    return BotSpec(f"hostile-{attack}", command, env=env, sandbox=sandbox)
