"""A tournament file's mistakes said in the project's words: the key with its table, what it
must be and what was given, the keys there are and "did you mean" for a near miss; keys the
chosen format would ignore refused with what to write instead; and the near-miss helper
every such message uses."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import get_ruleset
from arena.games.suggest import did_you_mean, near, unknown
from arena.league.config import ConfigError, load_tournament, tournament_toml
from arena.referee.folders import BotSpecError, load_bot
from tests.helpers.paths import GREEDY, RANDOM
from tests.helpers.tournaments import path_bot

BOTS = "\n" + "\n".join([path_bot(RANDOM), path_bot(GREEDY)]) + "\n"
HEAD = 'name = "t"\nruleset = "odin"\n'
KEYS = (
    "keys: name, ruleset, bots, format, seats, deals, rounds, challenger, max_tables, seed, "
    "deal_file, deal_seeds, jobs, workers, cluster, wait_workers, wait_timeout, options, time, "
    "sandbox, allow_mixed_sandbox, base"
)
LIMITS = "mode, memory_mb, processes, cpu_seconds, file_size_mb, scratch_mb, open_files"


def refusal(tmp_path: Path, text: str) -> str:
    """The one-line error of a tournament file holding `text` and then two bots."""
    file = tmp_path / "t.toml"
    file.write_text(text + BOTS)
    with pytest.raises(ConfigError) as exc:
        load_tournament(file)
    message = str(exc.value)
    assert message.startswith(f"{file}")
    assert "\n" not in message
    for library in ("Expected `", "Object contains", "Object missing", "- at `$", "Invalid enum"):
        assert library not in message, message
    return message.removeprefix(f"{file}: ")


# -- the near-miss helper ----------------------------------------------------------------------


def test_near_misses_are_found_whatever_the_case_and_said_one_way() -> None:
    keys = ["deals", "seats", "deal_file", "rounds"]
    assert near("deal", keys) == ["deals", "deal_file"]
    assert near("SEATS", keys) == ["seats"]
    assert near("xyzzy", keys) == []
    assert did_you_mean("ruonds", keys) == "did you mean `rounds`?"
    assert did_you_mean("deal", keys) == "did you mean `deals` or `deal_file`?"
    assert did_you_mean("xyzzy", keys) == ""
    assert unknown("ruleset", "odn", ["odin", "bested"]) == (
        "unknown ruleset `odn`: did you mean `odin`? rulesets: odin, bested"
    )
    assert unknown("ruleset", "chess", ["odin", "bested"]) == (
        "unknown ruleset `chess`; rulesets: odin, bested"
    )
    assert unknown("key", "moev", ["move"], "keys", "[time]") == (
        "unknown key `moev` in [time]: did you mean `move`? keys: move"
    )


# -- every mistake in words --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param(
            HEAD + "deal = 4\n",
            f"unknown key `deal`: did you mean `deals` or `deal_file`? {KEYS}",
            id="typo",
        ),
        pytest.param(
            HEAD + "[time]\nmoev = 1\n",
            "unknown key `moev` in [time]: did you mean `move`? keys: move, startup, bank, "
            "increment, margin",
            id="typo-in-a-table",
        ),
        pytest.param(
            HEAD + "[sandbox]\nmemory = 512\n",
            f"unknown key `memory` in [sandbox]: did you mean `memory_mb`? keys: {LIMITS}",
            id="typo-in-sandbox",
        ),
        pytest.param(
            HEAD + "seats = 7\n", "`seats` must be a whole number from 1 to 6, not 7", id="range"
        ),
        pytest.param(
            HEAD + 'seats = "3"\n',
            '`seats` must be a whole number from 1 to 6, not "3"',
            id="type",
        ),
        pytest.param(
            HEAD + "deals = 0\n", "`deals` must be a whole number >= 1, not 0", id="deals"
        ),
        pytest.param(
            HEAD + "[time]\nmove = 'fast'\n",
            '`[time] move` must be a number, not "fast"',
            id="table-key",
        ),
        pytest.param(
            HEAD + "[time]\nmove = 0\n",
            "`[time] move` must be at least 0.001 s (1 ms: a decision with no time is a "
            "timeout) and at most 86400 s (a day); got 0",
            id="clock",
        ),
        pytest.param(
            HEAD + 'format = "knockout"\n',
            '`format` must be one of "round-robin", "swiss" or "gauntlet", not "knockout"',
            id="format",
        ),
        pytest.param(
            HEAD + 'sandbox = "maybe"\n',
            f'`sandbox` must be "auto", "on", "off" or a table (keys: {LIMITS}), not "maybe"',
            id="sandbox",
        ),
        pytest.param(
            HEAD + "allow_mixed_sandbox = 1\n",
            "`allow_mixed_sandbox` must be true or false, not 1",
            id="bool",
        ),
        pytest.param(
            HEAD + "deal_seeds = [3, -1]\n",
            "`deal_seeds[1]` must be a whole number from 0 to 9223372036854775807, not -1",
            id="list-item",
        ),
        pytest.param(
            'name = "t"\n',
            "`ruleset` is missing: give a ruleset id (`arena games` lists them)",
            id="missing",
        ),
        pytest.param(
            'name = "my league"\nruleset = "odin"\n',
            "`name` must be a name of letters, digits, '.', '_' and '-' (it names the results "
            'folder), not "my league"',
            id="name",
        ),
        pytest.param(
            'name = "t"\nruleset = "odn"\n',
            "unknown ruleset `odn`: did you mean `odin`? rulesets: odin, odin-race, "
            "override-beta, override-classic, override-original, bested, bested-solo",
            id="ruleset",
        ),
        pytest.param(
            HEAD + "options = { targt = 10 }\n",
            "odin has no option `targt`: did you mean `target`? options: full_deck=true|false "
            "(default false); target=10|15|20 (default 15); rounds=integer >= 1 or none "
            "(default none)",
            id="option",
        ),
    ],
)
def test_a_mistake_is_one_line_naming_the_key_what_it_must_be_and_what_it_is(
    tmp_path: Path, text: str, says: str
) -> None:
    assert refusal(tmp_path, text) == says


def test_a_mistake_in_a_bot_names_the_bot_and_its_key(tmp_path: Path) -> None:
    def bot(lines: str) -> str:
        file = tmp_path / "b.toml"
        file.write_text(HEAD + BOTS + "[[bots]]\n" + lines)
        with pytest.raises(ConfigError) as exc:
            load_tournament(file)
        return str(exc.value).removeprefix(f"{file}: ")

    assert bot('comand = "x"\n') == (
        "unknown key `comand` in bots[2]: did you mean `command`? keys: path, command, name, "
        "cwd, env, sandbox"
    )
    assert bot("command = 3\n") == "bots[2]: `command` must be a list of strings or a string, not 3"
    assert bot(f'path = "{RANDOM}"\nsandbox = {{ memory_mb = 8 }}\n') == (
        "bots[2]: `sandbox.memory_mb` must be a whole number >= 16, not 8"
    )


def test_a_bot_toml_mistake_is_said_in_words(tmp_path: Path) -> None:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = 3\ncommand = ["cat"]\n')
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    says = "`name` must be a string: the bot's name, as standings show it, not 3"
    assert str(exc.value) == f"{folder / 'bot.toml'}: {says}"


# -- keys of another format ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param(
            HEAD + "rounds = 3\n",
            "`rounds` applies to the swiss format only; a round robin plays each of its tables "
            "once, on `deals` deals (here 1): use `deals = 3` to play 3 times as many games",
            id="rounds-in-a-round-robin",
        ),
        pytest.param(
            HEAD + 'format = "gauntlet"\nchallenger = "random-py"\ndeals = 2\nrounds = 2\n',
            "`rounds` applies to the swiss format only; a gauntlet plays each of its tables "
            "once, on `deals` deals (here 2): use `deals = 4` to play twice as many games",
            id="rounds-in-a-gauntlet",
        ),
        pytest.param(
            HEAD + 'challenger = "nobody"\n',
            "`challenger` applies to the gauntlet format only (one bot against all the "
            'others); this is a round robin: leave it out, or set `format = "gauntlet"`',
            id="challenger-in-a-round-robin",
        ),
        pytest.param(
            HEAD + 'format = "swiss"\nmax_tables = 2\n',
            "`max_tables` applies to the round-robin and gauntlet formats (it samples their "
            "tables); a swiss round seats every bot once, by the standings: leave it out",
            id="max-tables-in-swiss",
        ),
        pytest.param(
            'name = "t"\nruleset = "bested-solo"\nseats = 1\nmax_tables = 2\n',
            "`max_tables` does not apply to a solo ruleset (`seats = 1`): every bot plays the "
            "deals alone, at no table",
            id="max-tables-solo",
        ),
        pytest.param(
            HEAD + 'format = "gauntlet"\nchallenger = "grredy-py"\n',
            "unknown bot `grredy-py` in `challenger`: did you mean `greedy-py`? bots: "
            "random-py, greedy-py",
            id="challenger-names-no-bot",
        ),
    ],
)
def test_a_key_the_format_would_ignore_is_refused_with_what_to_do(
    tmp_path: Path, text: str, says: str
) -> None:
    assert refusal(tmp_path, text) == says


@pytest.mark.parametrize(
    "text",
    [
        HEAD + 'format = "swiss"\nrounds = 3\n',
        HEAD + 'format = "gauntlet"\nchallenger = "greedy-py"\n',
        HEAD + "max_tables = 1\n",
        HEAD + 'format = "gauntlet"\nchallenger = "greedy-py"\nmax_tables = 1\n',
    ],
)
def test_the_keys_of_the_chosen_format_are_taken(tmp_path: Path, text: str) -> None:
    file = tmp_path / "t.toml"
    file.write_text(text + BOTS)
    load_tournament(file)


def test_an_option_of_none_is_taken_as_arena_games_shows_it() -> None:
    odin = get_ruleset("odin")
    assert odin.options({"rounds": "none"}).rounds is None
    assert odin.options({"rounds": "3"}).rounds == 3


# -- the tournament file written from flags ------------------------------------------------


def test_a_written_tournament_file_reads_back_as_it_was() -> None:
    raw: dict[str, Any] = {
        "name": "t",
        "ruleset": "odin",
        "base": '/some where/with "quotes" and \\ backslashes',
        "deals": 2,
        "options": {"target": 10, "full_deck": True},
        "time": {"move": 0.25, "bank": 1e-05},
        "bots": [{"path": "bots/a"}, {"command": "python3 'my bot.py'", "env": {"A B": "1"}}],
    }
    assert tomllib.loads(tournament_toml(raw, "written\nby a test")) == raw


@given(st.text())
def test_any_string_survives_the_tournament_file(text: str) -> None:
    raw = {"name": text, "bots": [{"command": text}], "options": {"x": text}}
    assert tomllib.loads(tournament_toml(raw)) == raw
