"""Bot folders as PROTOCOL.md section 11 describes them: a bare command name found in the
folder, the `build` step (run once per change of the folder, a failure an error before any
game), the `rulesets` a bot plays (checked by check-bot, enforced by play, sprt and
tournaments), check-bot in every seat, and the files a sandboxed bot cannot read as root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import msgspec
import pytest

from arena.games import all_rulesets, get_ruleset
from arena.league.config import ConfigError, load_tournament
from arena.referee.check import check_bot, games_per_count, unreadable_files
from arena.referee.folders import BUILD_STAMP, BotSpecError, BuildError, build_bot, load_bot
from arena.referee.game import play_game
from arena.referee.records import GameRecord, read_records
from arena.referee.sandbox import sandbox_problem
from protocol.messages import bot_decoder
from tests.helpers.cli import commands_seating, invoke
from tests.helpers.paths import EXAMPLE_BOTS as EXAMPLES
from tests.helpers.paths import GARBAGE, RANDOM, ROOT
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

RANDOM_C = EXAMPLES / "random-c"
ODIN_HEURISTIC = EXAMPLES / "odin-heuristic"

FIRST_CHOICE = "from protocol.bot import run\nrun(lambda request: 0, name='first')\n"


def script(path: Path, body: str, mode: int = 0o755) -> Path:
    """An executable Python script run by this interpreter (which can import `protocol`)."""
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(mode)
    return path


def manifest(folder: Path, *lines: str) -> Path:
    """`folder` (made) with a bot.toml of these lines."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


# -- a bare command name ---------------------------------------------------------------------


async def test_a_bare_command_name_is_the_file_in_the_bots_folder(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "cbot", 'name = "cbot"', 'command = ["cbot"]')
    script(folder / "cbot", FIRST_CHOICE)
    spec = load_bot(str(folder))
    assert spec.command == ["./cbot"] and spec.cwd == str(folder)
    record = await play_game("odin-race", [spec, load_bot(str(RANDOM))], seed=3)
    assert record.faults == []
    assert record.seats[0].bot == "cbot"


def test_a_bare_name_not_in_the_folder_is_a_program_on_path() -> None:
    spec = load_bot(str(EXAMPLES / "random-js"))
    assert spec.command == ["node", "bot.js"]


def test_a_file_in_the_folder_that_is_not_executable_is_a_clear_error(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "cbot", 'name = "cbot"', 'command = ["cbot"]')
    script(folder / "cbot", FIRST_CHOICE, mode=0o644)
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    message = str(exc.value)
    assert "'cbot' is a file in the bot's folder but not executable" in message
    assert f"chmod +x {folder / 'cbot'}" in message


def test_a_program_found_nowhere_is_a_clear_error(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "ghost", 'name = "ghost"', 'command = "ghost-x9 --fast"')
    with pytest.raises(BotSpecError, match="neither a file in the bot's folder"):
        load_bot(str(folder))
    result = invoke("play", "odin-race", folder, RANDOM)
    assert result.exit_code == 2, result.output
    assert "'ghost-x9' is neither a file in the bot's folder" in result.output
    assert "nor a program on PATH" in result.output


def test_a_tournament_command_with_a_bare_name_runs_the_file_in_its_cwd(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    script(folder / "cbot", FIRST_CHOICE)
    file = write_tournament(tmp_path, [path_bot(RANDOM), command_bot("mine", "cbot", cwd="mine")])
    t = load_tournament(file)
    assert t.bots[1].command == ["./cbot"]
    result = invoke("tournament", file, "--results", tmp_path / "results", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    records = list(read_records(tmp_path / "results" / "t" / "games.jsonl"))
    assert len(records) == 2 and all(r.faults == [] for r in records)


# -- the build step --------------------------------------------------------------------------

MAKE = """\
import contextlib, os, pathlib, sys
with contextlib.suppress(OSError), open(os.environ["BUILD_LOG"], "a") as log:
    log.write("built\\n")  # (a sandboxed build cannot: the log is outside its folder)
source = pathlib.Path("bot.src").read_text()
if "FAIL" in source:
    for i in range(40):
        print(f"error line {i}")
    sys.exit(3)
out = pathlib.Path("bot")
out.write_text("#!" + sys.executable + "\\n" + source)
out.chmod(0o755)
"""


def built_bot(tmp_path: Path, source: str = FIRST_CHOICE, **extra: str) -> tuple[Path, Path]:
    """A bot folder whose build (a Python script) writes its program `bot` from `bot.src`
    and logs each run; the folder and the log."""
    log = tmp_path / "builds.log"
    folder = manifest(
        tmp_path / "built",
        'name = "built"',
        'command = ["bot"]',
        'build = ["{python}", "make.py"]',
        f"env = {{ BUILD_LOG = {str(log)!r} }}",
        *(f"{k} = {v}" for k, v in extra.items()),
    )
    (folder / "make.py").write_text(MAKE)
    (folder / "bot.src").write_text(source)
    return folder, log


def builds(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_build_runs_once_until_the_folder_changes(tmp_path: Path) -> None:
    folder, log = built_bot(tmp_path)
    spec = load_bot(str(folder))
    assert spec.build == ["{python}", "make.py"]
    assert spec.command == ["bot"]  # not built yet: resolved by the build
    heard: list[str] = []
    ready = build_bot(spec, lambda s: heard.append(s.name))
    assert ready.command == ["./bot"] and (folder / "bot").is_file()
    assert builds(log) == 1 and heard == ["built"]
    assert (folder / BUILD_STAMP).is_file()

    for _ in range(3):  # nothing changed: no build, whatever the number of uses
        assert build_bot(load_bot(str(folder)), lambda s: heard.append(s.name)).command == ["./bot"]
    assert builds(log) == 1 and heard == ["built"]

    (folder / "__pycache__").mkdir()  # what running a Python program leaves: not a change
    (folder / "__pycache__" / "x.pyc").write_bytes(b"x")
    build_bot(spec)
    assert builds(log) == 1

    source = folder / "bot.src"
    source.write_text(FIRST_CHOICE + "# edited\n")  # a source changed
    build_bot(spec)
    assert builds(log) == 2
    (folder / "notes.txt").write_text("new")  # a file added
    build_bot(spec)
    assert builds(log) == 3
    (folder / "notes.txt").unlink()  # a file removed
    build_bot(spec)
    assert builds(log) == 4
    (folder / "bot").unlink()  # an output missing
    build_bot(spec)
    assert builds(log) == 5 and (folder / "bot").is_file()
    (folder / "bot").write_text("#!/bin/sh\nexit 1\n")  # an output changed
    build_bot(spec)
    assert builds(log) == 6 and "protocol.bot" in (folder / "bot").read_text()
    build_bot(spec)
    assert builds(log) == 6


def test_a_string_build_is_split_like_command(tmp_path: Path) -> None:
    folder = manifest(
        tmp_path / "b", 'name = "b"', 'command = ["bot"]', "build = \"sh -c 'echo > made'\""
    )
    script(folder / "bot", FIRST_CHOICE)
    spec = load_bot(str(folder))
    assert spec.build == ["sh", "-c", "echo > made"]
    build_bot(spec)
    assert (folder / "made").is_file()


def test_a_failed_build_is_an_error_with_its_last_lines(tmp_path: Path) -> None:
    folder, log = built_bot(tmp_path, source="FAIL")
    spec = load_bot(str(folder))
    with pytest.raises(BuildError) as exc:
        build_bot(spec)
    assert "the build of built ({python} make.py, in " in str(exc.value)
    assert "failed with status 3" in str(exc.value)
    lines = exc.value.output.splitlines()
    assert lines[-1] == "error line 39" and lines[0] == "error line 15"  # the last 25
    with pytest.raises(BuildError):  # a failure is never remembered as a success
        build_bot(spec)
    assert builds(log) == 2

    missing = manifest(tmp_path / "m", 'name = "m"', 'command = ["bot"]', 'build = ["cc-x9"]')
    with pytest.raises(BuildError, match=r"the build of m \(cc-x9, in .*\) could not start"):
        build_bot(load_bot(str(missing)))


def test_a_failed_build_stops_every_command_before_any_game(tmp_path: Path) -> None:
    folder, _ = built_bot(tmp_path, source="FAIL")
    record = tmp_path / "games.jsonl"
    for args in commands_seating(folder, RANDOM, record):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        assert "building built: {python} make.py" in result.output
        assert "error: the build of built ({python} make.py, in" in result.output
        assert "failed with status 3" in result.output
        assert "its output, last lines:\n    error line 15\n" in result.output
        assert "    error line 39" in result.output and "error line 14" not in result.output
        assert "players" not in result.output and "SPRT" not in result.output  # none played
    assert not record.exists()

    file = write_tournament(tmp_path, [path_bot(folder), path_bot(RANDOM)])
    result = invoke("tournament", file, "--results", tmp_path / "results")
    assert result.exit_code == 2, result.output
    assert "failed with status 3" in result.output
    assert not (tmp_path / "results" / "t").exists()


@pytest.mark.slow
def test_commands_build_a_bot_once_and_then_play_it(tmp_path: Path) -> None:
    folder, log = built_bot(tmp_path)
    two = [path_bot(folder), path_bot(folder, name="built-2"), path_bot(RANDOM)]
    file = write_tournament(tmp_path, two)
    results = ["--results", tmp_path / "results", "--sandbox", "off"]
    result = invoke("tournament", file, *results)
    assert result.exit_code == 0, result.output
    assert result.output.count("building built") == 1 and builds(log) == 1
    records = list(read_records(tmp_path / "results" / "t" / "games.jsonl"))
    assert len(records) == 6 and all(r.faults == [] for r in records)

    result = invoke("play", "odin-race", folder, RANDOM, "-q", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "building" not in result.output and builds(log) == 1  # up to date
    (folder / "bot.src").write_text(FIRST_CHOICE + "# v2\n")
    result = invoke("check-bot", folder, "-r", "odin-race", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "building built" in result.output and builds(log) == 2
    assert "no problems found" in result.output


# -- rulesets --------------------------------------------------------------------------------


def test_rulesets_are_checked_against_the_registry(tmp_path: Path) -> None:
    base = ['name = "r"', 'command = ["{python}", "bot.py"]']
    folder = manifest(tmp_path / "r", *base, 'rulesets = ["odin", "chess", "go"]')
    (folder / "bot.py").write_text(FIRST_CHOICE)  # a bot whose script is missing is refused
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    message = str(exc.value)
    assert "rulesets: unknown ruleset 'chess', 'go'" in message
    assert "choose from: odin, odin-race" in message
    manifest(folder, *base, "rulesets = []")
    with pytest.raises(BotSpecError, match="rulesets is empty"):
        load_bot(str(folder))
    manifest(folder, *base, 'rulesets = ["odin", "bested", "odin"]')
    assert load_bot(str(folder)).rulesets == ["odin", "bested"]
    manifest(folder, *base)
    assert load_bot(str(folder)).rulesets is None  # every ruleset

    result = invoke("check-bot", manifest(folder, *base, 'rulesets = ["odinn"]'))
    assert result.exit_code == 2 and "unknown ruleset 'odinn'" in result.output


def test_the_example_bots_list_the_rulesets_they_were_written_for() -> None:
    odin_family = ["odin", "odin-race", "override-beta"]
    assert load_bot(str(ODIN_HEURISTIC)).rulesets == odin_family
    assert load_bot(str(EXAMPLES / "greedy-py")).rulesets == odin_family
    assert load_bot(str(EXAMPLES / "bested-heuristic")).rulesets == ["bested", "bested-solo"]
    for every in ("random-py", "random-js", "random-c"):
        assert load_bot(str(EXAMPLES / every)).rulesets is None


@pytest.mark.slow
def test_check_bot_checks_the_rulesets_a_bot_lists() -> None:
    result = invoke("check-bot", ODIN_HEURISTIC, "--games", "1")
    assert result.exit_code == 0, result.output
    assert "no problems found" in result.output
    played = set(re.findall(r"^  ([\w-]+) with (\d) players", result.output, re.M))
    assert played == {
        ("odin", "2"), ("odin", "6"), ("odin-race", "2"), ("odin-race", "6"),
        ("override-beta", "2"), ("override-beta", "4"),
    }  # fmt: skip
    assert "odin-heuristic: 22 games" in result.output  # 2 + 6, 2 + 6, 2 + 4: a game per seat


def test_check_bot_checks_an_unlisted_ruleset_when_asked_and_says_so() -> None:
    result = invoke("check-bot", ODIN_HEURISTIC, "-r", "override-classic", "--sandbox", "off")
    assert "note: odin-heuristic lists rulesets = [odin, odin-race, override-beta]; " in (
        result.output
    )
    assert "checking override-classic as asked" in result.output
    assert "odin-heuristic: 2 games" in result.output


def test_play_sprt_and_tournaments_refuse_a_bot_outside_its_rulesets(tmp_path: Path) -> None:
    says = "odin-heuristic does not play bested: its bot.toml lists rulesets = [odin, "
    record = tmp_path / "games.jsonl"
    result = invoke("play", "bested", RANDOM, ODIN_HEURISTIC, "--record", record)
    assert result.exit_code == 2 and f"error: {says}" in result.output, result.output
    assert not record.exists()
    result = invoke("sprt", ODIN_HEURISTIC, RANDOM, "-r", "bested", "--max-pairs", "1")
    assert result.exit_code == 2 and says in result.output, result.output
    assert "SPRT" not in result.output

    file = write_tournament(
        tmp_path, [path_bot(RANDOM), path_bot(ODIN_HEURISTIC)], ruleset="bested"
    )
    with pytest.raises(ConfigError) as exc:
        load_tournament(file)
    assert f"{file}: bots[1]: {says}" in str(exc.value)
    result = invoke("tournament", file, "--results", tmp_path / "results")
    assert result.exit_code == 2 and says in result.output
    assert not (tmp_path / "results" / "t").exists()

    listed = write_tournament(
        tmp_path, [path_bot(RANDOM), path_bot(ODIN_HEURISTIC)], file="ok.toml"
    )
    assert [b.name for b in load_tournament(listed).bots] == ["random-py", "odin-heuristic"]


# -- check-bot in every seat -----------------------------------------------------------------


@pytest.mark.slow
async def test_check_bot_plays_every_seat_of_every_player_count() -> None:
    seen: list[tuple[int, int, int]] = []

    def note(record: GameRecord, seat: int) -> None:
        assert record.seats[seat].bot == "random-py"
        assert all(s.bot != "random-py" for s in record.seats if s.seat != seat)
        seen.append((record.players, seat, record.seed))

    rulesets = [get_ruleset("odin"), get_ruleset("bested-solo")]
    report = await check_bot(load_bot(str(RANDOM)), rulesets, games=2, on_game=note)
    assert report.ok and report.games == 2 + 6 + 2
    assert sorted((p, s) for p, s, _ in seen) == sorted(
        [(2, 0), (2, 1), *((6, s) for s in range(6)), (1, 0), (1, 0)]
    )
    assert len({seed for p, _, seed in seen if p != 1}) == 8  # each game its own deal
    assert games_per_count(2, 6) == 6 and games_per_count(9, 2) == 9


def test_check_bot_names_the_seat_of_every_game_and_problem() -> None:
    bot = f"{sys.executable} {GARBAGE}"
    result = invoke("check-bot", bot, "-r", "odin-race", "--sandbox", "off")
    assert result.exit_code == 1, result.output
    for seat in range(6):
        assert f"  odin-race with 6 players, seat {seat}, seed {6000 + seat}: malformed at " in (
            result.output
        )
        assert f"odin-race (6 players, seat {seat}, seed {6000 + seat}) at decision " in (
            result.output
        )
    assert "odin-race (2 players, seat 1, seed 2001) at decision" in result.output


# -- files a sandboxed bot cannot read when arena is root ------------------------------------


def test_unreadable_files_names_what_others_cannot_use(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "data").mkdir(parents=True)
    (folder / "secret").mkdir()
    good = script(folder / "good", FIRST_CHOICE)
    program = script(folder / "bot", FIRST_CHOICE, mode=0o700)
    (folder / "data" / "weights.bin").write_bytes(b"0")
    (folder / "data" / "weights.bin").chmod(0o600)
    (folder / "data" / "table.txt").write_text("ok")
    (folder / "secret" / "inside.txt").write_text("not listed: its folder is")
    (folder / "secret").chmod(0o700)
    (folder / "link").symlink_to(program)
    outside = script(tmp_path / "tool", FIRST_CHOICE, mode=0o754)

    found = unreadable_files(["./bot"], cwd=str(folder), folder=str(folder))
    assert found == [
        f"{program} (mode 0700: others cannot read it)",
        f"{folder / 'data' / 'weights.bin'} (mode 0600: others cannot read it)",
        f"{folder / 'secret'}/ (mode 0700: others cannot list or enter it)",
    ]
    program.chmod(0o744)  # readable, but only its owner may run it
    found = unreadable_files([str(program)], cwd=str(folder), folder=str(folder))
    assert found[0] == f"{program} (mode 0744: others cannot run it)"
    assert str(good) not in " ".join(found)

    assert unreadable_files([str(outside), "x"], cwd=str(tmp_path)) == [
        f"{outside} (mode 0754: others cannot run it)"
    ]
    assert unreadable_files(["python3"], cwd=str(tmp_path)) == []  # the system's own

    many = tmp_path / "many"
    many.mkdir()
    for i in range(30):
        (many / f"f{i:02}").write_text("x")
        (many / f"f{i:02}").chmod(0o600)
    found = unreadable_files(["x"], cwd=str(many), folder=str(many))
    assert len(found) == 21 and found[-1] == "... and 10 more"


def root_sandbox() -> None:
    """Skip, saying why, unless arena runs as root (the only case where the sandbox runs a
    bot as another user); fail if the sandbox cannot run (CI installs bubblewrap)."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox runs a bot as another user only when arena runs as root")
    assert sandbox_problem() is None, f"{sandbox_problem()}: this test needs bubblewrap"


@pytest.mark.slow
def test_check_bot_as_root_names_the_files_the_sandboxed_bot_cannot_read(tmp_path: Path) -> None:
    root_sandbox()
    folder = manifest(tmp_path / "private", 'name = "private"', 'command = ["{python}", "bot.py"]')
    (folder / "bot.py").write_text(FIRST_CHOICE)
    (folder / "bot.py").chmod(0o600)
    result = invoke("check-bot", folder, "-r", "odin-race", "--games", "1")
    assert result.exit_code == 1, result.output
    assert "has problems inside the sandbox" in result.output
    assert "runs as a throwaway unprivileged user (arena runs as root), who cannot use:" in (
        result.output
    )
    assert f"  {folder / 'bot.py'} (mode 0600: others cannot read it)" in result.output
    assert f"make them readable by all: chmod -R a+rX {folder}" in result.output

    (folder / "bot.py").chmod(0o644)
    result = invoke("check-bot", folder, "-r", "odin-race", "--games", "1")
    assert result.exit_code == 0 and "works inside the sandbox" in result.output, result.output


def test_check_bot_as_root_names_a_compiled_program_only_its_owner_may_run(
    tmp_path: Path,
) -> None:
    root_sandbox()
    folder = tmp_path / "random-c"
    shutil.copytree(RANDOM_C, folder, ignore=shutil.ignore_patterns("bot", BUILD_STAMP))
    build_bot(load_bot(str(folder)))
    (folder / "bot").chmod(0o700)
    result = invoke("check-bot", folder, "-r", "odin-race", "--games", "1", "--try-unsandboxed")
    assert result.exit_code == 1, result.output
    assert "but works without it" in result.output
    assert f"  {folder / 'bot'} (mode 0700: others cannot read it)" in result.output


# -- the C example bot -----------------------------------------------------------------------


def test_a_c_compiler_is_installed() -> None:
    # The C example bot is part of what users rely on: no silent skip.
    assert shutil.which("cc"), "cc is needed for examples/bots/random-c (.ci/run installs gcc)"


def c_bot() -> Path:
    """examples/bots/random-c, built (its build step, once per change)."""
    build_bot(load_bot(str(RANDOM_C)))
    return RANDOM_C / "bot"


@pytest.mark.slow
async def test_the_c_bot_plays_every_ruleset_in_every_seat() -> None:
    spec = build_bot(load_bot(str(RANDOM_C)))
    assert spec.command == ["./bot"] and spec.build is not None and spec.build[0] == "cc"
    report = await check_bot(spec, all_rulesets(), games=1)
    assert report.ok, [p.fault for p in report.problems]
    assert report.games == sum(
        games_per_count(1, n) for r in all_rulesets() for n in {r.min_players, r.max_players}
    )
    record = await play_game("bested", [spec, load_bot(str(RANDOM)), spec], seed=4)
    assert record.faults == [] and len(record.moves) > 10


def test_the_c_bot_checks_out_in_the_sandbox_from_the_command_line() -> None:
    c_bot()
    result = invoke("check-bot", RANDOM_C, "-r", "odin", "-r", "override-original")
    assert result.exit_code == 0, result.output
    assert "random-c: 10 games" in result.output and "no problems found" in result.output
    if sandbox_problem() is None:
        assert "works inside the sandbox" in result.output


def test_the_c_bot_ignores_unknown_types_and_refuses_another_protocol() -> None:
    program = c_bot()
    hello = '{"type":"hello","protocol":1,"ruleset":"odin","options":{},"seat":2,"players":3}'
    act = (
        '{"type":"act","decision":2,"observation":{"note":"a ] and a \\" in a string",'
        '"nested":[{"a":[1,2]},{}]},"actions":[{"type":"pass"},{"type":"play","cards":["1R"]},'
        '{"type":"take","card":"7R"}],"events":[],"time_ms":1000.0,"bank_ms":0.0}'
    )
    lines = [hello, '{"type":"news","items":[1,{"type":"act"}]}', act, act, '{"type":"game_over"}']
    done = subprocess.run(
        [str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 0, done.stderr
    out = [msgspec.json.decode(line) for line in done.stdout.splitlines()]
    assert out[0] == {"type": "ready", "name": "random-c"}
    assert len(out) == 3  # nothing for the unknown type
    assert all(o["type"] == "action" and 0 <= o["index"] < 3 for o in out[1:])

    newer = hello.replace('"protocol":1', '"protocol":2')
    done = subprocess.run(
        [str(program)], input=newer + "\n", capture_output=True, text=True, timeout=10
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "random-c speaks protocol 1, not 2\n"


# -- PROTOCOL.md section 16.2: the fields an action may leave out ----------------------------


def test_the_fields_an_action_may_leave_out_are_those_section_16_2_names() -> None:
    optional: set[tuple[str, str]] = set()
    for ruleset in all_rulesets():
        for kind in typing.get_args(ruleset.action_type) or (ruleset.action_type,):
            info = msgspec.inspect.type_info(kind)
            assert isinstance(info, msgspec.inspect.StructType)
            tag = str(info.tag)
            optional |= {(tag, f.name) for f in info.fields if not f.required}
    assert optional == {
        ("pass", "pass_card"), ("play", "cards"), ("play", "wilds"),
        ("discard", "cards"), ("discard", "wilds"),
    }  # fmt: skip
    text = (ROOT / "docs" / "PROTOCOL.md").read_text()
    section = text[text.index("### 16.2") : text.index("### 16.3")]
    paragraph = " ".join(section[section.index("Fields that may be left out") :].split())
    for words in ("`pass_card` of `pass`", "`cards` and `wilds` of `play` and `discard`"):
        assert words in paragraph
    decode = bot_decoder(get_ruleset("bested").action_type).decode
    assert (
        decode(b'{"type":"action","action":{"type":"pass"}}').action
        == decode(b'{"type":"action","action":{"type":"pass","pass_card":null}}').action
    )


def test_an_unknown_bot_toml_key_names_the_keys(tmp_path: Path) -> None:
    folder = manifest(tmp_path / "k", 'name = "k"', 'command = ["bot"]', 'buidl = "make"')
    with pytest.raises(BotSpecError) as exc:
        load_bot(str(folder))
    keys = "keys: name, command, env, build, rulesets"
    assert f"unknown key `buidl`: did you mean `build`? {keys}" in str(exc.value)
