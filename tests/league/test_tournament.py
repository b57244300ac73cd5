"""Tournaments end to end: the TOML file, each format with real bot processes, faulty bots,
kill and resume of `arena tournament` and the leaderboard command (SPRT matches:
test_match.py).

Games are kept short (odin-race, or odin for one round) and few, with two at once.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import trio

from arena.league.config import ConfigError, Tournament, load_tournament
from arena.league.leaderboard import leaderboard
from arena.league.results import ResultsDir
from arena.league.schedule import Game
from arena.league.tournament import run_tournament, schedule_of
from arena.referee.records import GameRecord, read_records
from tests.helpers.cli import WIDE, arena, invoke, started_arena, wait_for_games
from tests.helpers.paths import GARBAGE, GREEDY, RANDOM, ROOT
from tests.helpers.records import seating
from tests.helpers.tournaments import command_bot, path_bot, write_tournament

# -- bots for tournament files (the files: tests/helpers/tournaments.py), running them -------


def random_bot(name: str) -> str:
    return command_bot(name, "{python}", RANDOM / "bot.py")


def greedy_bot(name: str) -> str:
    return command_bot(name, "{python}", GREEDY / "bot.py")


async def run(t: Tournament, root: Path, on_game: Any = None) -> tuple[list[GameRecord], Path]:
    """Run (or resume) a tournament in process; its records and its results folder."""
    with ResultsDir.open(root, t) as folder:
        progress = await run_tournament(t, folder, on_game)
        records = folder.records()
    assert progress.done == progress.total == len(records)
    return records, folder.path


def game_ids(path: Path) -> list[str]:
    return [r.game for r in read_records(path)]


# -- 1. the tournament file ------------------------------------------------------------------


def test_a_good_file_loads_bots_by_path_and_by_command(tmp_path: Path) -> None:
    here = tmp_path / "league"
    (here / "mybot").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "bot.py").write_text("")  # a missing script is refused
    script = here / "mybot" / "run.sh"
    script.write_text("#!/bin/sh\nexec python3 bot.py\n")
    script.chmod(0o755)
    file = write_tournament(
        here,
        [
            path_bot(os.path.relpath(GREEDY, here)),  # relative to the file, not to the cwd
            path_bot(os.path.relpath(RANDOM, here), name="rnd", env={"SPEED": "1"}),
            command_bot("py-cmd", "{python}", "bot.py", cwd="../elsewhere"),
            "[[bots]]\ncommand = './run.sh'\ncwd = 'mybot'",  # a command string, name from it
        ],
        name="league-1",
        ruleset="odin",
        format="gauntlet",
        challenger="greedy-py",
        deals=3,
        seed=7,
        options={"target": 10},
        time={"move": 0.25, "startup": 2},
    )
    t = load_tournament(file)
    c = t.config
    assert (c.name, c.ruleset, c.format, c.challenger) == (
        "league-1",
        "odin",
        "gauntlet",
        "greedy-py",
    )
    assert (c.seats, c.deals, c.seed, c.options) == (2, 3, 7, {"target": 10})
    limits = c.referee_config().limits
    assert (limits.move_ms, limits.startup_ms) == (250, 2000)
    assert t.source == str(file.resolve())
    assert t.jobs == 2

    greedy, rnd, py_cmd, sh = t.bots
    assert (greedy.name, greedy.command, greedy.cwd) == (
        "greedy-py",
        ["{python}", "bot.py"],
        str(GREEDY),
    )
    assert (rnd.name, rnd.cwd, rnd.env) == ("rnd", str(RANDOM), {"SPEED": "1"})
    assert (py_cmd.command, py_cmd.cwd) == (["{python}", "bot.py"], str(tmp_path / "elsewhere"))
    assert (sh.name, sh.command, sh.cwd) == ("run", ["./run.sh"], str(here / "mybot"))


TWO_BOTS = [path_bot(GREEDY), path_bot(RANDOM)]
HEAD = 'name = "bad"\nruleset = "odin"\n'


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param(
            HEAD + "round = 3\n",
            ["unknown key `round`: did you mean `rounds`?", "keys: name, ruleset, bots"],
            id="unknown-key",
        ),
        pytest.param(
            HEAD + "[time]\nmove = 1\nbonus = 2\n",
            ["unknown key `bonus` in [time]", "keys: move, startup, bank, increment, margin"],
            id="unknown-time",
        ),
        pytest.param(
            'name = "bad"\nruleset = "chess"\n', ["unknown ruleset", "chess", "odin"], id="ruleset"
        ),
        pytest.param(HEAD + "options = { target = 12 }\n", ["target", "10|15|20"], id="option"),
        pytest.param(HEAD + "options = { colour = 1 }\n", ["colour"], id="unknown-option"),
        pytest.param(HEAD + 'format = "knockout"\n', ["format", "knockout"], id="format"),
        pytest.param(HEAD + "deals = 0\n", ["deals", ">= 1"], id="deals"),
        pytest.param(
            'name = "bad"\nruleset = "override-beta"\nseats = 5\n',
            ["override-beta takes 2-4 players, not 5"],
            id="seats-above",
        ),
        pytest.param(HEAD + "seats = 1\n", ["odin takes 2-6 players, not 1"], id="seats-below"),
    ],
)
def test_a_bad_setting_is_one_config_error_naming_it(
    tmp_path: Path, text: str, says: list[str]
) -> None:
    file = tmp_path / "bad.toml"
    # a [time] table in `text` must come after the plain keys and before the bots
    file.write_text(text + "\n" + "\n".join(TWO_BOTS) + "\n")
    with pytest.raises(ConfigError) as exc:
        load_tournament(file)
    message = str(exc.value)
    assert str(file) in message
    for words in says:
        assert words in message, message


@pytest.mark.parametrize(
    ("fields", "bots", "says"),
    [
        pytest.param(
            {"seats": 3}, TWO_BOTS, ["3 seats per table need at least that many bots"], id="few"
        ),
        pytest.param(
            {}, [*TWO_BOTS, greedy_bot("greedy-py")], ["repeated: greedy-py"], id="duplicates"
        ),
        pytest.param(
            {"format": "gauntlet"}, TWO_BOTS, ["gauntlet needs `challenger`"], id="no-challenger"
        ),
        pytest.param(
            {"format": "gauntlet", "challenger": "grredy-py"},
            TWO_BOTS,
            [
                "unknown bot `grredy-py` in `challenger`: did you mean `greedy-py`?",
                "greedy-py, random-py",
            ],
            id="unknown-challenger",
        ),
        pytest.param(
            {}, [*TWO_BOTS, path_bot(ROOT / "tests")], ["bots[2]", "no bot.toml"], id="no-manifest"
        ),
        pytest.param(
            {},
            [*TWO_BOTS, path_bot(ROOT / "no-such-folder")],
            ["bots[2]", "no-such-folder"],
            id="no-folder",
        ),
        pytest.param(
            {},
            [*TWO_BOTS, command_bot("ghost", "no-such-program-x9", "--fast")],
            ["bots[2]", "'no-such-program-x9' was not found"],
            id="missing-command",
        ),
        pytest.param(
            {},
            [*TWO_BOTS, "[[bots]]\nname = 'nothing'"],
            ["bots[2]", "path", "command"],
            id="empty",
        ),
    ],
)
def test_a_bad_field_of_bots_is_one_config_error_naming_it(
    tmp_path: Path, fields: dict[str, Any], bots: list[str], says: list[str]
) -> None:
    file = write_tournament(tmp_path, bots, ruleset="odin", **fields)
    with pytest.raises(ConfigError) as exc:
        load_tournament(file)
    message = str(exc.value)
    assert str(file) in message, message
    for words in says:
        assert words in message, message


def test_invalid_toml_and_a_missing_file_are_config_errors(tmp_path: Path) -> None:
    file = tmp_path / "broken.toml"
    file.write_text('name = "t"\nruleset = odin\n')  # an unquoted string
    with pytest.raises(ConfigError, match="not valid TOML") as exc:
        load_tournament(file)
    assert str(file) in str(exc.value)
    with pytest.raises(ConfigError, match="no tournament file at"):
        load_tournament(tmp_path / "missing.toml")


# -- 2. round robin --------------------------------------------------------------------------


@pytest.mark.slow
async def test_round_robin_plays_exactly_the_planned_games_on_paired_deals(
    tmp_path: Path,
) -> None:
    bots = [path_bot(GREEDY), path_bot(RANDOM), greedy_bot("greedy-b"), random_bot("random-b")]
    t = load_tournament(write_tournament(tmp_path, bots, name="rr", deals=2))
    names = ["greedy-py", "random-py", "greedy-b", "random-b"]
    total = schedule_of(t).total()
    assert total == 6 * 2 * 2  # 6 pairs, 2 deals, each in both seatings

    progress: list[tuple[int, int]] = []
    records, folder = await run(
        t, tmp_path / "results", lambda _r, p: progress.append((p.done, p.total))
    )

    schedule = schedule_of(t).plan(0, [], {})
    assert len(records) == total == len(schedule)
    assert progress == [(n, total) for n in range(1, total + 1)]
    ids = [r.game for r in records]
    assert len(set(ids)) == len(ids) and set(ids) == {g.id for g in schedule}
    assert game_ids(folder / "games.jsonl") == ids  # journaled as they finished
    assert ResultsDir(folder).planned() == schedule

    planned = {g.id: g for g in schedule}
    deals: dict[tuple[int, int], list[GameRecord]] = defaultdict(list)
    for rec in records:
        game = planned[rec.game]
        assert seating(rec) == game.seats and rec.seed == game.seed
        assert rec.ruleset == "odin-race" and not rec.faults
        deals[game.table, game.deal].append(rec)
    assert len(deals) == 6 * 2
    for first, second in deals.values():  # each deal in both seatings, on the same cards
        assert first.seed == second.seed
        assert seating(first) == seating(second)[::-1]
    assert len({rec.seed for rec in records}) == len(deals)  # and every deal is another
    met = Counter(frozenset(seating(rec)) for rec in records)
    assert met == {frozenset(pair): 4 for pair in combinations(names, 2)}

    board = leaderboard(records, [b.name for b in t.bots])
    assert board.games == total
    rows = {row.bot: row for row in board.rows}
    assert set(rows) == set(names)
    assert all(row.games == 3 * 2 * 2 and not row.faults for row in rows.values())
    order = [row.bot for row in board.rows]
    assert max(order.index("greedy-py"), order.index("greedy-b")) < min(
        order.index("random-py"), order.index("random-b")
    ), order


# -- 3. kill and resume of `arena tournament` ----------------------------------------------

# A bot that plays (greedy or random by argv[1]) and, when its input ends without a game
# over (the referee vanished), lingers like a bot deep in thought: only a kill ends it.
LINGERING_BOT = """\
import random
import sys
import time

from protocol.bot import run

rng = random.Random(0)


def decide(request):
    actions = request["actions"]
    if sys.argv[1] == "greedy":
        plays = [i for i, a in enumerate(actions) if a["type"] == "play"]
        if plays:
            return max(plays, key=lambda i: len(actions[i]["cards"]))
        return 0
    return rng.randrange(len(actions))


over = []
run(decide, name=sys.argv[1], on_game_over=over.append)
if not over:
    time.sleep(60)
"""

ENV = {**os.environ, **WIDE}


def processes_running(marker: str) -> list[int]:
    """Live processes whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry))
    return found


@pytest.fixture
def lingering(tmp_path: Path) -> Iterator[Path]:
    """The lingering bot's script; at teardown any process still running it is killed."""
    script = tmp_path / "bots" / "lingering_bot.py"
    script.parent.mkdir()
    script.write_text(LINGERING_BOT)
    yield script
    for pid in processes_running(str(script)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def durable_tournament(folder: Path, script: Path, deals: int = 6) -> Path:
    """Three lingering bots (every game has two of them): 3 pairs x deals x 2 seatings."""
    bots = [
        command_bot("greedy", "{python}", script, "greedy"),
        command_bot("random-a", "{python}", script, "random"),
        command_bot("random-b", "{python}", script, "random"),
    ]
    return write_tournament(folder, bots, name="durable", deals=deals)


def run_arena(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        arena(*args), capture_output=True, text=True, env=ENV, timeout=120, check=False
    )


@pytest.mark.slow
def test_ctrl_c_stops_the_run_and_its_bots_and_a_rerun_completes(
    tmp_path: Path, lingering: Path
) -> None:
    file = durable_tournament(tmp_path, lingering)
    results = tmp_path / "results"
    games = results / "durable" / "games.jsonl"
    planned = sorted(g.id for g in schedule_of(load_tournament(file)).plan(0, [], {}))
    assert len(planned) == 36

    with started_arena("tournament", file, "--results", results) as proc:
        wait_for_games(games, 3, proc)
        while not processes_running(str(lingering)):  # Ctrl-C while bots are playing
            assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130, out
    assert "interrupted" in out
    assert f"Resume with: arena tournament {file} --results {results}" in out
    deadline = time.monotonic() + 3  # killed bots may take a moment to vanish
    while processes_running(str(lingering)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert processes_running(str(lingering)) == [], "bot processes outlived the run"

    before = games.read_bytes()
    done = game_ids(games)
    assert 3 <= len(done) < 36 and len(set(done)) == len(done)
    assert f"{len(done)} finished games are saved" in out

    # Resumed with another number of jobs: the same tournament, so it goes on.
    rerun = run_arena("tournament", file, "--results", results, "--jobs", "1")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"resuming: {len(done)} games already played" in rerun.stdout
    ids = game_ids(games)
    assert sorted(ids) == planned  # every planned game once: none lost, none twice
    assert games.read_bytes().startswith(before)  # the earlier games were kept as they were


def test_ctrl_c_as_a_game_is_journaled_still_counts_that_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C arriving just as a record is written: the game is counted as finished too, so
    "N finished games are saved" is the journal's count (the signal waits for a checkpoint)."""
    t = load_tournament(write_tournament(tmp_path, [path_bot(GREEDY), path_bot(RANDOM)], deals=3))
    journal = ResultsDir.append

    def append_then_ctrl_c(self: ResultsDir, record: GameRecord) -> None:
        journal(self, record)
        if len(game_ids(self.games_file)) == 2:
            signal.raise_signal(signal.SIGINT)  # handled before the next line runs

    monkeypatch.setattr(ResultsDir, "append", append_then_ctrl_c)
    with ResultsDir.open(tmp_path / "results", t) as folder:
        finished = folder.finished()
        with pytest.raises((KeyboardInterrupt, BaseExceptionGroup)) as caught:
            trio.run(partial(run_tournament, t, folder, finished=finished))
        if isinstance(caught.value, BaseExceptionGroup):
            assert caught.value.subgroup(KeyboardInterrupt) is not None
        assert sorted(finished) == sorted(game_ids(folder.games_file))
        assert len(finished) >= 2


@pytest.mark.slow
def test_a_killed_run_resumes_without_replaying_and_the_folder_is_locked_meanwhile(
    tmp_path: Path, lingering: Path
) -> None:
    file = durable_tournament(tmp_path, lingering)
    results = tmp_path / "results"
    games = results / "durable" / "games.jsonl"
    planned = sorted(g.id for g in schedule_of(load_tournament(file)).plan(0, [], {}))

    with started_arena("tournament", file, "--results", results) as proc:
        wait_for_games(games, 3, proc)
        os.killpg(proc.pid, signal.SIGSTOP)  # frozen mid-run, still holding its folder
        frozen = games.read_bytes()
        second = run_arena("tournament", file, "--results", results)
        assert second.returncode == 2, second.stdout + second.stderr
        assert "is in use by another run of this tournament" in second.stdout
        assert games.read_bytes() == frozen  # the refused run played nothing
        os.killpg(proc.pid, signal.SIGKILL)  # no chance to clean up
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    data = games.read_bytes()
    kept = data[: data.rfind(b"\n") + 1]  # the finished games (a torn tail is not one)
    finished = [json.loads(line) for line in kept.splitlines()]
    assert 3 <= len(finished) < 36
    # The worst case: the kill came in the middle of writing a record.
    games.write_bytes(kept + kept.splitlines()[0][:150])

    rerun = run_arena("tournament", file, "--results", results)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"resuming: {len(finished)} games already played" in rerun.stdout
    ids = game_ids(games)  # every line a whole record: the torn one was dropped
    assert sorted(ids) == planned
    after = games.read_bytes()
    assert after.startswith(kept)  # the finished games were not played again
    assert [json.loads(line)["seconds"] for line in after.splitlines()[: len(finished)]] == [
        r["seconds"] for r in finished
    ]


@pytest.mark.slow
def test_another_tournament_of_the_same_name_is_refused_unless_fresh(tmp_path: Path) -> None:
    bots = [path_bot(GREEDY), path_bot(RANDOM), random_bot("random-b")]
    first = write_tournament(tmp_path, bots, file="first.toml", name="same")
    results = tmp_path / "results"
    games = results / "same" / "games.jsonl"
    done = invoke("tournament", str(first), "--results", str(results))
    assert done.exit_code == 0, done.output
    assert len(game_ids(games)) == 6
    before = games.read_bytes()

    second = write_tournament(tmp_path, bots, file="second.toml", name="same", deals=2)
    refused = invoke("tournament", str(second), "--results", str(results))
    assert refused.exit_code == 2
    assert "holds results of a different tournament" in refused.output
    assert "--fresh" in refused.output
    assert games.read_bytes() == before

    fresh = invoke("tournament", str(second), "--results", str(results), "--fresh")
    assert fresh.exit_code == 0, fresh.output
    ids = game_ids(games)
    assert sorted(ids) == sorted(g.id for g in schedule_of(load_tournament(second)).plan(0, [], {}))
    assert len(ids) == 12  # the first tournament's games were discarded


# -- 4. Swiss --------------------------------------------------------------------------------


def byes_by_round(schedule: list[Game], names: list[str]) -> dict[int, list[str]]:
    seated: dict[int, set[str]] = defaultdict(set)
    for game in schedule:
        seated[game.round].update(game.seats)
    return {r: [n for n in names if n not in seated[r]] for r in sorted(seated)}


@pytest.mark.slow
@pytest.mark.parametrize("count", [5, 6])
async def test_swiss_plays_its_rounds_and_a_resume_derives_the_same_pairings(
    tmp_path: Path, count: int
) -> None:
    names = [f"{kind}-{i}" for i, kind in zip(range(count), ["greedy", "random"] * 3, strict=False)]
    bots = [(greedy_bot if n.startswith("greedy") else random_bot)(n) for n in names]
    t = load_tournament(
        write_tournament(tmp_path, bots, name="swiss", format="swiss", rounds=3, seed=3)
    )
    total = schedule_of(t).total()
    assert total == 3 * (count // 2) * 2

    records, folder = await run(t, tmp_path / "results")
    results = ResultsDir(folder)
    schedule = results.planned()
    ids = [r.game for r in records]
    assert len(ids) == total == len(schedule) and set(ids) == {g.id for g in schedule}

    byes = byes_by_round(schedule, names)
    assert sorted(byes) == [1, 2, 3]
    for number in (1, 2, 3):
        tables = {g.table: set(g.seats) for g in schedule if g.round == number}
        seated = [n for table in tables.values() for n in table]
        assert len(seated) == len(set(seated)) == count - count % 2  # one table each per round
        assert len(byes[number]) == count % 2
    given = [n for round_byes in byes.values() for n in round_byes]
    assert len(given) == len(set(given)), f"a second bye before everyone had one: {byes}"

    by_id = {r.game: r for r in records}
    for game in schedule:  # each deal in both seatings on the same seed, as planned
        rec = by_id[game.id]
        assert seating(rec) == game.seats and rec.seed == game.seed
    round_of = {g.id: g.round for g in schedule}

    # Interrupted after round 1: only round 1 is journaled and planned.
    games_file, schedule_file = results.games_file, results.schedule_file
    original_games, original_schedule = games_file.read_bytes(), schedule_file.read_bytes()
    round_1 = [
        line
        for line in original_games.splitlines(keepends=True)
        if round_of[json.loads(line)["game"]] == 1
    ]
    assert len(round_1) == (count // 2) * 2
    games_file.write_bytes(b"".join(round_1))
    schedule_file.write_bytes(
        b"".join(
            line
            for line in original_schedule.splitlines(keepends=True)
            if json.loads(line)["round"] == 1
        )
    )
    played: list[str] = []
    await run(t, tmp_path / "results", lambda rec, _p: played.append(rec.game))
    assert schedule_file.read_bytes() == original_schedule  # the same pairings, derived again
    assert sorted(played) == sorted(i for i in ids if round_of[i] > 1)  # round 1 not replayed
    assert games_file.read_bytes().startswith(b"".join(round_1))
    assert sorted(game_ids(games_file)) == sorted(ids)


# -- 5. k seats ------------------------------------------------------------------------------


def pair_scores(records: list[GameRecord]) -> dict[tuple[str, str], list[float]]:
    """Each bot's score against each other bot at its table, game by game (1, 1/2 or 0)."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for rec in records:
        for i, j in combinations(range(rec.players), 2):
            a, b = rec.seats[i].bot, rec.seats[j].bot
            mine = (
                1.0 if rec.ranks[i] < rec.ranks[j] else 0.5 if rec.ranks[i] == rec.ranks[j] else 0.0
            )
            out[a, b].append(mine)
            out[b, a].append(1.0 - mine)
    return out


@pytest.mark.slow
async def test_three_seat_round_robin_plays_every_table_in_every_rotation(
    tmp_path: Path,
) -> None:
    names = ["greedy-py", "random-py", "random-b", "greedy-b"]
    bots = [path_bot(GREEDY), path_bot(RANDOM), random_bot("random-b"), greedy_bot("greedy-b")]
    t = load_tournament(
        write_tournament(tmp_path, bots, ruleset="odin", seats=3, options={"rounds": 1})
    )
    assert schedule_of(t).total() == 4 * 3  # each 3-subset of 4 bots, in its 3 rotations

    records, _ = await run(t, tmp_path / "results")
    assert len(records) == 12 and len({r.game for r in records}) == 12
    tables: dict[frozenset[str], list[GameRecord]] = defaultdict(list)
    for rec in records:
        assert rec.players == 3 and not rec.faults
        tables[frozenset(seating(rec))].append(rec)
    assert set(tables) == {frozenset(c) for c in combinations(names, 3)}
    for games in tables.values():
        assert len({rec.seed for rec in games}) == 1  # one deal, its three rotations
        for seat in range(3):  # each bot in each seat once
            assert sorted(rec.seats[seat].bot for rec in games) == sorted(seating(games[0]))
        rotations = {seating(games[0])[i:] + seating(games[0])[:i] for i in range(3)}
        assert {seating(rec) for rec in games} == rotations

    # The leaderboard splits each 3-seat game into its pairs: every bot scored against each
    # other bot at its table, its place the mean of its ranks.
    board = leaderboard(records, names)
    scores = pair_scores(records)
    for row in board.rows:
        assert row.games == 9
        mine = [s for (a, _b), got in scores.items() if a == row.bot for s in got]
        assert len(mine) == 9 * 2
        assert row.score == pytest.approx(sum(mine) / len(mine), abs=1e-4)
        places = [r.ranks[s.seat] for r in records for s in r.seats if s.bot == row.bot]
        assert row.mean_place == pytest.approx(sum(places) / 9, abs=1e-3)
    assert {(p.bot, p.opponent) for p in board.pairs} == set(scores)
    for p in board.pairs:
        got = scores[p.bot, p.opponent]
        assert p.games == len(got) == 6  # two shared tables, three games each
        assert p.score == pytest.approx(sum(got) / len(got), abs=1e-4)


# -- 6. gauntlet -----------------------------------------------------------------------------


@pytest.mark.slow
async def test_gauntlet_puts_the_challenger_in_every_game(tmp_path: Path) -> None:
    field = ["random-py", "random-b", "random-c"]
    bots = [
        path_bot(RANDOM),
        greedy_bot("challenger"),
        random_bot("random-b"),
        random_bot("random-c"),
    ]
    t = load_tournament(
        write_tournament(tmp_path, bots, format="gauntlet", challenger="challenger", deals=2)
    )
    assert schedule_of(t).total() == 3 * 2 * 2
    records, _ = await run(t, tmp_path / "results")
    assert len(records) == 12
    seats: Counter[tuple[str, str]] = Counter()
    for rec in records:
        assert "challenger" in seating(rec)
        seats[rec.seats[0].bot, rec.seats[1].bot] += 1
    # every field bot meets it twice per deal, once in each seat; the field never meets
    assert seats == {
        pair: 2 for bot in field for pair in (("challenger", bot), (bot, "challenger"))
    }


# -- 7. faults, and 8. the leaderboard command ---------------------------------------------


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A round robin with a bot that answers garbage and one that exits at once, run
    through `arena tournament`: its results folder and its output."""
    here = tmp_path_factory.mktemp("faulty")
    bots = [
        path_bot(GREEDY),
        path_bot(RANDOM),
        command_bot("garbage", "{python}", GARBAGE),
        command_bot("quitter", "{python}", "-c", "pass"),
    ]
    file = write_tournament(here, bots, name="faulty", time={"startup": 2})
    result = invoke("tournament", str(file), "--results", str(here / "results"))
    assert result.exit_code == 0, result.output
    return here / "results" / "faulty", result.output


def test_bots_that_only_fault_finish_last_with_their_faults_counted(
    faulty_run: tuple[Path, str],
) -> None:
    folder, output = faulty_run
    records = ResultsDir(folder).records()
    assert len(records) == 12  # every planned game was played all the same
    assert "faulty: 12 games" in output
    board = leaderboard(records, ["greedy-py", "random-py", "garbage", "quitter"])
    rows = {row.bot: row for row in board.rows}
    assert set(rows) == {"greedy-py", "random-py", "garbage", "quitter"}
    assert {row.bot for row in board.rows[-2:]} == {"garbage", "quitter"}
    assert rows["garbage"].faults == {"malformed": 6}  # every one of its 6 games
    assert rows["quitter"].faults == {"startup": 6}  # it never answered hello
    assert rows["greedy-py"].faults == {} == rows["random-py"].faults
    for row in board.rows:  # places as ranked under the fault policy
        places = [r.ranks[s.seat] for r in records for s in r.seats if s.bot == row.bot]
        assert row.games == len(places) == 6
        assert row.mean_place == pytest.approx(sum(places) / 6, abs=1e-3)
    for rec in records:  # a faulter never ranks above a bot that played on
        ok = [s.seat for s in rec.seats if s.bot in ("greedy-py", "random-py")]
        bad = [s.seat for s in rec.seats if s.seat not in ok]
        assert all(rec.ranks[o] < rec.ranks[b] for o in ok for b in bad)


def test_leaderboard_command_prints_table_json_and_csv(faulty_run: tuple[Path, str]) -> None:
    folder, _ = faulty_run
    names = {"greedy-py", "random-py", "garbage", "quitter"}

    table = invoke("leaderboard", str(folder))
    assert table.exit_code == 0, table.output
    assert "faulty: 12 games" in table.output
    lines = table.output.splitlines()  # the leaderboard, then the tables beside it
    board_lines = lines[: next(i for i, line in enumerate(lines) if line.startswith("└"))]
    rows = [line.split("│") for line in board_lines if "│" in line]
    assert [row[2].strip() for row in rows][2:] in (["garbage", "quitter"], ["quitter", "garbage"])
    assert {row[2].strip() for row in rows} == names
    faults = {row[2].strip(): row[-2].strip() for row in rows}
    assert faults == {
        "greedy-py": "-",
        "random-py": "-",
        "garbage": "malformed 6",
        "quitter": "startup 6",
    }
    pairs = invoke("leaderboard", str(folder), "--pairs")
    assert pairs.exit_code == 0 and "Head to head" in pairs.output

    as_json = invoke("leaderboard", str(folder), "--json")
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.output)
    assert data["games"] == 12
    assert {row["bot"] for row in data["rows"]} == names
    assert [row["rank"] for row in data["rows"]] == [1, 2, 3, 4]

    as_csv = invoke("leaderboard", str(folder), "--csv")
    assert as_csv.exit_code == 0, as_csv.output
    header, *rows = list(csv.reader(io.StringIO(as_csv.output)))
    assert header[:5] == ["rank", "bot", "elo", "error", "games"]
    assert "faults_malformed" in header
    assert {row[1] for row in rows} == names and len(rows) == 4
    garbage = next(row for row in rows if row[1] == "garbage")
    assert garbage[header.index("faults_malformed")] == "6"
    assert garbage[header.index("games")] == "6"


def test_leaderboard_of_a_folder_that_is_not_results_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    for folder in (tmp_path, tmp_path / "missing"):
        result = invoke("leaderboard", str(folder))
        assert result.exit_code == 2
        assert "is not a tournament results folder" in result.output
