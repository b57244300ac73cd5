"""What the whole suite shares.

The tests mirror arena's layers: tests/games/, tests/referee/, tests/league/ and tests/cli/
(the top level keeps the tests that pin no single layer). Shared helpers live in
tests/helpers/ and are imported from there, never from another test module:

- `paths`: the repository, the example bots, tests/bots/ and tests/golden/
- `tournaments`: tournament files and their [[bots]] entries
- `records`: `check_record` (a record replays, ranks follow the fault policy) and `seating`
- `cli`: `invoke`, the `arena` command in process with wide lines
- `sandbox`: the hostile bot as a sandboxed bot spec
- `odin`, `bested`, `bounds`, `play`, `messages`: the game families' rules helpers
- `reports`: results folders of random games made in process, and the hidden cards of a
  replay's seats (the HTML report's tests and `bash bench/run report`)
"""

from __future__ import annotations

import pytest

# The helpers assert as the tests do (check_record, the rules checkers): let pytest explain
# their failures as it does the tests' own.
pytest.register_assert_rewrite("tests.helpers")
