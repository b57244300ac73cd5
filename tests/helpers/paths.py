"""Where things are, for tests at any depth under tests/: the repository, its example bots,
the test bots (tests/bots/) and the golden playthroughs (tests/golden/)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: examples/bots/: the example bots users start from
EXAMPLE_BOTS = ROOT / "examples" / "bots"
GREEDY = EXAMPLE_BOTS / "greedy-py"
RANDOM = EXAMPLE_BOTS / "random-py"
#: tests/bots/: the misbehaving (and plain) bot scripts the referee tests run
TEST_BOTS = ROOT / "tests" / "bots"
GARBAGE = TEST_BOTS / "garbage_bot.py"
#: tests/golden/: the stored golden playthroughs
GOLDEN = ROOT / "tests" / "golden"
