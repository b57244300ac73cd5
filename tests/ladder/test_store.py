"""The ladder's folder: ladder.toml's keys, defaults and errors in words, and the store in
SQLite beside the journal: tokens kept only as hashes, bot names owned by their first author,
versions activated and retired, games journaled and indexed exactly once across crashes
(`kill -9` included), from several threads, in WAL mode."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import msgspec
import pytest

from arena.ladder.config import (
    EXPLAINED,
    LADDER_FILE,
    LadderConfig,
    LadderConfigError,
    ladder_toml,
    load_ladder_config,
)
from arena.ladder.store import (
    ADMIN,
    DB_FILE,
    LadderError,
    LadderStore,
    NotFound,
    NotOwner,
    Version,
    init_ladder,
)
from arena.league.results import GAMES_FILE, ResultsDir
from arena.referee.records import GameRecord, read_records
from tests.helpers.paths import ROOT
from tests.helpers.reports import random_record

DIGESTS = [f"{i:x}" * 64 for i in range(1, 10)]


def make(tmp_path: Path, **fields: object) -> Path:
    folder = tmp_path / "ladder"
    init_ladder(folder, msgspec.convert({"ruleset": "odin", **fields}, LadderConfig))
    return folder


def two_bots(store: LadderStore) -> tuple[Version, Version]:
    """alice's bot `a` and bob's bot `b`, each with one active version."""
    alice, _ = store.create_author("alice")
    bob, _ = store.create_author("bob")
    a, _ = store.add_version("a", alice, DIGESTS[0])
    b, _ = store.add_version("b", bob, DIGESTS[1])
    return store.activate(a.id)[0], store.activate(b.id)[0]


def game(labels: list[str], number: int, fault_seat: int | None = None) -> GameRecord:
    """A real game record between random players, seats named by version labels, as a
    tournament journals it."""
    fault = None if fault_seat is None else (fault_seat, 1)
    return random_record("odin", labels, 1000 + number, game=f"g{number}", fault_at=fault)


# -- ladder.toml -------------------------------------------------------------------------------


def test_every_key_has_a_default_and_the_file_written_explains_each_and_reads_back(
    tmp_path: Path,
) -> None:
    config = LadderConfig(ruleset="odin")
    assert config.seats == 2 and config.seat_weights() == {2: 1.0}
    assert config.jobs is None and config.time.move == 1.0 and config.time.startup == 10.0
    assert config.matchmaking.suspend_after == 5 and config.matchmaking.settled_share == 0.25
    s = config.submissions
    assert (s.active_bots, s.per_day, s.archive_mb, s.unpacked_mb, s.files) == (
        3,
        10,
        10,
        100,
        2000,
    )
    assert config.validation.games_per_seat == 2

    weighted = LadderConfig(ruleset="odin", seats={"2": 3, "4": 1}, options={"target": 10})
    text = ladder_toml(weighted, "made by a test")
    (tmp_path / LADDER_FILE).write_text(text)
    assert load_ladder_config(tmp_path) == weighted
    assert weighted.seat_weights() == {2: 0.75, 4: 0.25}
    lines = text.splitlines()
    for path in EXPLAINED:  # each key or table comes right after its own comment
        name = path.split(".")[-1]
        heads = (f"{name} = ", f"# {name} = ", f"[{name}]")
        at = next(i for i, line in enumerate(lines) if line.startswith(heads))
        assert lines[at - 1].startswith("# ") and not lines[at - 1].startswith(heads), path
    fields = {f for t in (LadderConfig,) for f in t.__struct_fields__}
    nested = {
        f"{table}.{f}"
        for table in ("time", "matchmaking", "submissions", "validation")
        for f in getattr(config, table).__struct_fields__
    }
    assert fields | nested == set(EXPLAINED)
    assert "# full_deck = false" in text  # the ruleset's other options, with their defaults


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[matchmaking]\nsuspend_afer = 3\n",
            "unknown key `suspend_afer` in [matchmaking]: did you mean `suspend_after`?",
        ),
        ("sets = 2\n", "unknown key `sets`: did you mean `seats`?"),
        (
            "[matchmaking]\nsuspend_after = 0\n",
            "`[matchmaking] suspend_after` must be a whole number >= 1, not 0",
        ),
        (
            '[submissions]\nper_day = "ten"\n',
            '`[submissions] per_day` must be a whole number >= 1, not "ten"',
        ),
        (
            "[matchmaking]\nsettled_share = 2.0\n",
            "`[matchmaking] settled_share` must be a number above 0 and at most 1, not 2.0",
        ),
        ("seats = 9\n", "`seats` must be from 1 to 6, not 9"),
        ("seats = 1\n", "odin takes 2-6 players, not 1"),
        (
            "seats = { 2 = 1, 4 = 0 }\n",
            "`seats`: the weight of 4 seats must be a number more than 0, not 0",
        ),
        ("seats = { two = 1 }\n", "`seats`: two is not a seat count"),
        (
            'seats = "2"\n',
            "`seats` must be a seat count (a whole number), or a table of "
            'weights by seat count, not "2"',
        ),
        ("[options]\ntagret = 10\n", "odin has no option `tagret`: did you mean `target`?"),
        ("[time]\nmove = 0\n", "`[time] move` must be at least 0.001 s"),
    ],
)
def test_a_bad_key_is_one_sentence_naming_it(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / LADDER_FILE).write_text('ruleset = "odin"\n' + text)
    with pytest.raises(LadderConfigError) as exc:
        load_ladder_config(tmp_path)
    said = str(exc.value)
    assert said.startswith(f"{tmp_path / LADDER_FILE}: "), said
    assert message in said, said
    assert "\n" not in said and "Expected `" not in said and "$." not in said


def test_a_missing_ruleset_a_bad_one_and_broken_toml_are_refused_in_words(tmp_path: Path) -> None:
    file = tmp_path / LADDER_FILE
    for text, message in [
        ("seats = 2\n", "`ruleset` is missing: give a ruleset id"),
        ('ruleset = "odn"\n', "unknown ruleset `odn`: did you mean `odin`?"),
        ('ruleset = "odin\n', f"{file}:1:"),
    ]:
        file.write_text(text)
        with pytest.raises(LadderConfigError) as exc:
            load_ladder_config(tmp_path)
        assert message in str(exc.value), str(exc.value)
    with pytest.raises(LadderConfigError, match="not a ladder folder"):
        load_ladder_config(tmp_path / "nothing")


# -- the folder --------------------------------------------------------------------------------


def test_init_makes_the_folder_and_refuses_an_existing_ladder(tmp_path: Path) -> None:
    folder = make(tmp_path)
    assert {p.name for p in folder.iterdir()} == {LADDER_FILE, DB_FILE, GAMES_FILE}
    before = (folder / LADDER_FILE).read_bytes()
    with pytest.raises(LadderError, match="already holds a ladder"):
        init_ladder(folder, LadderConfig(ruleset="odin-race"))
    assert (folder / LADDER_FILE).read_bytes() == before
    results = tmp_path / "results"
    results.mkdir()
    (results / GAMES_FILE).touch()
    with pytest.raises(LadderError, match="holds a tournament's results"):
        init_ladder(results, LadderConfig(ruleset="odin"))


def test_the_store_is_in_wal_mode_with_foreign_keys_on(tmp_path: Path) -> None:
    folder = make(tmp_path)
    raw = sqlite3.connect(folder / DB_FILE)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
    raw.close()
    with LadderStore.open(folder) as store:
        conn = store._conn()
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO bots (name, owner, created) VALUES ('x', 99, 0)")


def test_one_process_at_a_time_writes_the_journal_others_manage_authors(tmp_path: Path) -> None:
    folder = make(tmp_path)
    with LadderStore.open(folder) as server:
        with pytest.raises(
            LadderError, match=r"in use by another process of this ladder \(process \d+\)"
        ):
            LadderStore.open(folder)
        with LadderStore.open(folder, writer=False) as admin:
            admin.create_author("carol")
            with pytest.raises(LadderError, match="without the journal"):
                admin.record_game(game(["x@1", "y@1"], 1))
        assert server.author("carol") is not None  # the server sees the new author at once


# -- tokens ------------------------------------------------------------------------------------


def test_tokens_are_kept_only_as_hashes_and_wrong_or_revoked_ones_are_refused(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "ladder"
    admin = init_ladder(folder, LadderConfig(ruleset="odin"))
    with LadderStore.open(folder) as store:
        alice, token = store.create_author("alice")
        bob, bob_token = store.create_author("bob")
        assert len(token.split(".")[1]) >= 43  # 32 random bytes, base64
        assert store.authenticate(token) == alice
        assert store.authenticate(bob_token) == bob
        assert store.authenticate(admin) == ADMIN
        key, secret = token.split(".")
        for wrong in ["", "x", token + "x", token[:-1], f"{key}.{secret[::-1]}", admin[:-2]]:
            assert store.authenticate(wrong) is None, wrong
        store.revoke_author("alice")
        assert store.authenticate(token) is None
        assert store.authenticate(bob_token) == bob
        with pytest.raises(LadderError, match="already exists \\(revoked\\)"):
            store.create_author("alice")
        with pytest.raises(NotFound, match="did you mean `bob`"):
            store.revoke_author("bobb")
        with pytest.raises(LadderError, match="cannot be used"):
            store.create_author("a b")
    stored = b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())
    for secret_text in (token, bob_token, admin, *(t.split(".")[1] for t in (token, admin))):
        assert secret_text.encode() not in stored
    other = tmp_path / "other"
    init_ladder(other, LadderConfig(ruleset="odin"))
    with LadderStore.open(other) as store:
        assert store.authenticate(admin) is None  # another ladder's admin token


# -- bots and versions -------------------------------------------------------------------------


def test_a_bot_name_belongs_to_its_first_author_and_a_same_digest_is_the_same_version(
    tmp_path: Path,
) -> None:
    with LadderStore.open(make(tmp_path)) as store:
        alice, _ = store.create_author("alice")
        bob, _ = store.create_author("bob")
        first, new = store.add_version("racer", alice, DIGESTS[0])
        assert new and (first.status, first.number, first.label) == ("validating", 1, "racer@1")
        with pytest.raises(NotOwner, match="belongs to another author \\(alice\\)"):
            store.add_version("racer", bob, DIGESTS[1])
        again, new = store.add_version("racer", alice, DIGESTS[0])
        assert not new and again == first
        second, new = store.add_version("racer", alice, DIGESTS[1])
        assert new and second.label == "racer@2"
        racer = store.bot("racer")
        assert racer is not None and racer.owner == "alice"
        assert [v.label for v in store.versions("racer")] == ["racer@1", "racer@2"]
        with pytest.raises(LadderError, match="cannot be used"):
            store.add_version("a/../b", alice, DIGESTS[2])


def test_activating_a_version_retires_the_previous_one_whose_games_stay(tmp_path: Path) -> None:
    with LadderStore.open(make(tmp_path)) as store:
        a1, b1 = two_bots(store)
        alice = store.author("alice")
        assert alice is not None
        store.record_game(game([a1.label, b1.label], 1))
        a2, _ = store.add_version("a", alice, DIGESTS[5])
        rejected = store.set_status(a2.id, "rejected", "faulted in validation", report="r.json")
        assert (rejected.status, rejected.reason, rejected.report) == (
            "rejected",
            "faulted in validation",
            "r.json",
        )
        assert [v.label for v in store.active_versions()] == ["a@1", "b@1"]
        a3, _ = store.add_version("a", alice, DIGESTS[6])
        active, retired = store.activate(a3.id)
        assert active.status == "active"
        assert [(v.label, v.status, v.reason) for v in retired] == [
            ("a@1", "retired", "replaced by a@3")
        ]
        assert [v.label for v in store.active_versions()] == ["a@3", "b@1"]
        assert store.version(a1.id).games == 1
        assert [g.id for g in store.games("a")] == ["g1"]
        assert store.active_bots(alice) == ["a"]


def test_submissions_are_counted_over_the_last_24_hours(tmp_path: Path) -> None:
    clock = [1_000_000.0]
    folder = make(tmp_path)
    with LadderStore.open(folder, now=lambda: clock[0]) as store:
        alice, _ = store.create_author("alice")
        store.add_version("a", alice, DIGESTS[0])
        clock[0] += 3600
        store.add_version("a", alice, DIGESTS[1])
        store.add_version("a", alice, DIGESTS[1])  # the same digest: no new submission
        store.add_version("b", alice, DIGESTS[2])
        assert store.submissions_today(alice) == 3
        clock[0] += 86_400 - 1800  # the first is now more than a day old
        assert store.submissions_today(alice) == 2
        assert store.active_bots(alice) == []


# -- games -------------------------------------------------------------------------------------


def test_a_game_is_journaled_and_indexed_once_and_read_back(tmp_path: Path) -> None:
    folder = make(tmp_path)
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        first = store.record_game(game([a.label, b.label], 1))
        second = store.record_game(game([b.label, a.label], 2))
        again = store.record_game(game([a.label, b.label], 1))
        assert first.new and second.new and not again.new and again.game == first.game
        assert (first.game.line, second.game.line) == (1, 2)
        assert second.game.versions == [b.id, a.id]
        read = msgspec.json.encode(store.read_game("g2"))
        assert read == msgspec.json.encode(game([b.label, a.label], 2))
        assert store.game_counts() == {a.id: 2, b.id: 2}
        assert store.game_count() == 2 and store.game_count("a") == 2
        assert [g.id for g in store.games(limit=1)] == ["g2"]
        assert [g.id for g in store.games(limit=1, skip=1)] == ["g1"]
        with pytest.raises(LadderError, match="no version is labelled ghost@1"):
            store.record_game(game([a.label, "ghost@1"], 3))
        with pytest.raises(LadderError, match="seats a version twice"):
            store.record_game(game([a.label, a.label], 4))
    assert [r.game for r in read_records(folder / GAMES_FILE)] == ["g1", "g2"]
    assert [line.value.game for line in ResultsDir.existing(folder).games()] == ["g1", "g2"]


def test_faulted_games_in_a_row_suspend_a_version_with_the_reason(tmp_path: Path) -> None:
    folder = make(tmp_path, matchmaking={"suspend_after": 3})
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        suspended = []
        for number in range(1, 6):
            clean = number == 2  # a clean game starts the count again
            record = game([a.label, b.label], number, None if clean else 0)
            suspended.append([v.label for v in store.record_game(record).suspended])
        assert suspended == [[], [], [], [], ["a@1"]]
        version = store.version(a.id)
        assert version.status == "suspended" and version.fault_streak == 3
        assert "faulted in 3 games in a row" in version.reason and "g5" in version.reason
        assert "a@1 did not answer within 1000 ms" in version.reason
        assert store.version(b.id).status == "active"


def test_a_game_journaled_but_not_indexed_before_a_crash_is_indexed_once_on_reopening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make(tmp_path)
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        store.record_game(game([a.label, b.label], 1))

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # the process dies between the journal and the index

    with LadderStore.open(folder) as store, monkeypatch.context() as patch:
        patch.setattr(LadderStore, "_index", crash)
        with pytest.raises(KeyboardInterrupt):
            store.record_game(game([b.label, a.label], 2))
    assert (folder / GAMES_FILE).read_bytes().count(b"\n") == 2
    with LadderStore.open(folder) as store:
        assert [g.id for g in store.games()] == ["g2", "g1"]
        entry = store.game("g2")
        assert entry is not None and entry.line == 2
        assert not store.record_game(game([b.label, a.label], 2)).new  # played again: kept once
        assert store.record_game(game([a.label, b.label], 3)).game.line == 3
        assert store.game_counts() == {a.id: 3, b.id: 3}
    assert [r.game for r in read_records(folder / GAMES_FILE)] == ["g1", "g2", "g3"]


def test_a_torn_last_line_is_cut_and_a_rewritten_journal_is_indexed_again(
    tmp_path: Path,
) -> None:
    folder = make(tmp_path)
    journal = folder / GAMES_FILE
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        for number in range(1, 4):
            store.record_game(game([a.label, b.label], number))
    whole = journal.read_bytes()
    journal.write_bytes(whole + whole[:50])  # a crash mid-write
    with LadderStore.open(folder) as store:
        assert journal.read_bytes() == whole
        assert store.record_game(game([a.label, b.label], 4)).game.line == 4
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[1:]))  # the first game's line gone (a repair, by hand)
    with LadderStore.open(folder) as store:
        assert [(g.id, g.line) for g in store.games()] == [("g4", 3), ("g3", 2), ("g2", 1)]
        assert store.read_game("g3").game == "g3"
        assert store.game_counts() == {a.id: 3, b.id: 3}


def test_games_recorded_from_several_threads_are_each_journaled_and_indexed_once(
    tmp_path: Path,
) -> None:
    folder = make(tmp_path)
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        records = [game([a.label, b.label], n) for n in range(20)]
        errors: list[BaseException] = []

        def play(share: list[GameRecord]) -> None:
            try:
                for record in share:
                    store.record_game(record)
                    store.game_counts()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(records[i::4],)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        entries = store.games(limit=100)
        assert sorted(e.line for e in entries) == list(range(1, 21))
        for entry in entries:
            assert store.read_game(entry.id).game == entry.id
    assert len(list(read_records(folder / GAMES_FILE))) == 20


def test_planned_games_outlive_a_restart_until_they_finish(tmp_path: Path) -> None:
    from arena.ladder.store import Planned

    folder = make(tmp_path)
    with LadderStore.open(folder) as store:
        a, b = two_bots(store)
        store.plan(
            [Planned("g1", "d1", 1001, [a.id, b.id]), Planned("g2", "d1", 1001, [b.id, a.id])]
        )
    with LadderStore.open(folder) as store:
        assert [p.id for p in store.planned()] == ["g1", "g2"]
        store.record_game(game([a.label, b.label], 1))
        assert [p.versions for p in store.planned()] == [[b.id, a.id]]
        store.plan([Planned("g1", "d1", 1001, [a.id, b.id])])  # finished: not planned again
        store.unplan(["g2"])
        assert store.planned() == []


KILLED = """
import sys
from arena.ladder.store import LadderStore
from tests.helpers.reports import random_record
store = LadderStore.open(sys.argv[1])
n = 0
while True:
    n += 1
    store.record_game(random_record("odin", ["a@1", "b@1"], n, game=f"g{n}"))
    print(n, flush=True)
"""


@pytest.mark.slow
def test_kill_9_while_games_are_recorded_loses_and_doubles_none(tmp_path: Path) -> None:
    folder = make(tmp_path)
    with LadderStore.open(folder) as store:
        two_bots(store)
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    done = 0
    while done < 30:
        line = proc.stdout.readline()
        assert line, "the recording process ended early"
        done = int(line)
        assert time.monotonic() < deadline
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    journaled = [r.game for r in read_records(folder / GAMES_FILE)]
    assert len(journaled) >= done and len(set(journaled)) == len(journaled)
    with LadderStore.open(folder) as store:
        indexed = sorted(store.games(limit=10_000), key=lambda g: g.line)
        assert [g.id for g in indexed] == journaled
        assert [g.line for g in indexed] == list(range(1, len(journaled) + 1))
        again = len(journaled) + 1
        for n in range(1, again + 1):  # every game of the run played again, and one more
            store.record_game(random_record("odin", ["a@1", "b@1"], n, game=f"g{n}"))
        assert store.game_count() == again
    assert [r.game for r in read_records(folder / GAMES_FILE)] == [
        f"g{n}" for n in range(1, again + 1)
    ]
    assert tomllib.loads((folder / LADDER_FILE).read_text())["ruleset"] == "odin"
