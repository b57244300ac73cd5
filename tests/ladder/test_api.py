"""The ladder's HTTP API, in process (httpx's ASGI transport): an author's upload becomes a
version that is validating, stored by the digest of its files; tokens and ownership are
checked (401, 403), hostile or bad archives refused with a sentence (413, 422), limits a day
kept (429); bots, versions, games and the table read back as JSON."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import msgspec
import pytest

from arena.ladder.api import LiveTable, make_app
from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore, Version, init_ladder
from arena.league.leaderboard import results_leaderboard
from tests.helpers.ladder import same_table, tar_gz, tar_link
from tests.helpers.paths import RANDOM
from tests.helpers.reports import random_record


def bot_archive(name: str, code: bytes | None = None) -> bytes:
    code = code if code is not None else (RANDOM / "bot.py").read_bytes()
    toml = f'name = "{name}"\ncommand = ["python3", "bot.py"]\n'.encode()
    return tar_gz({"bot.toml": toml, "bot.py": code})


class Ladder(msgspec.Struct):
    store: LadderStore
    client: httpx.AsyncClient
    tokens: dict[str, str]
    submitted: list[Version]
    table: LiveTable


@pytest.fixture
async def ladder(tmp_path: Path) -> AsyncIterator[Ladder]:
    folder = tmp_path / "ladder"
    config = msgspec.convert(
        {"ruleset": "odin", "submissions": {"per_day": 4, "active_bots": 2, "archive_mb": 1}},
        LadderConfig,
    )
    init_ladder(folder, config)
    store = LadderStore.open(folder)
    tokens = {name: store.create_author(name)[1] for name in ("alice", "bob")}
    submitted: list[Version] = []

    async def heard(version: Version) -> None:
        submitted.append(version)

    table = LiveTable(store)
    app = make_app(store, heard, table)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ladder") as client:
        yield Ladder(store, client, tokens, submitted, table)
    store.close()


async def upload(ladder: Ladder, author: str | None, archive: bytes) -> httpx.Response:
    headers = {} if author is None else {"Authorization": f"Bearer {ladder.tokens[author]}"}
    files = {"archive": ("bot.tar.gz", archive, "application/gzip")}
    return await ladder.client.post("/api/bots", files=files, headers=headers)


async def test_an_upload_becomes_a_validating_version_stored_by_its_digest(
    ladder: Ladder,
) -> None:
    got = await upload(ladder, "alice", bot_archive("racer"))
    assert got.status_code == 201, got.text
    body = got.json()
    assert body["new"] is True
    version = body["version"]
    assert (version["bot"], version["label"], version["status"]) == (
        "racer",
        "racer@1",
        "validating",
    )
    stored = ladder.store.folder / "versions" / version["digest"]
    assert (stored / "bot.toml").is_file() and (stored / "bot.py").is_file()
    assert [v.label for v in ladder.submitted] == ["racer@1"]
    # The same files again: the same version, nothing new to validate.
    again = await upload(ladder, "alice", bot_archive("racer"))
    assert again.status_code == 200 and again.json()["new"] is False
    assert len(ladder.submitted) == 1
    # Changed files: version 2; the bot reads back with both, the latest first.
    changed = await upload(
        ladder, "alice", bot_archive("racer", b"# v2\n" + RANDOM.joinpath("bot.py").read_bytes())
    )
    assert changed.status_code == 201
    shown = (await ladder.client.get("/api/bots/racer")).json()
    assert shown["owner"] == "alice"
    assert [v["label"] for v in shown["versions"]] == ["racer@2", "racer@1"]


async def test_tokens_and_ownership_are_checked(ladder: Ladder) -> None:
    none = await upload(ladder, None, bot_archive("racer"))
    assert none.status_code == 401
    assert none.json() == {
        "error": "this needs an author's token: send it as `Authorization: Bearer TOKEN`"
    }
    ladder.tokens["mallory"] = ladder.tokens["alice"][:-2] + "xx"
    wrong = await upload(ladder, "mallory", bot_archive("racer"))
    assert wrong.status_code == 401 and "not an author's" in wrong.json()["error"]
    assert (await upload(ladder, "alice", bot_archive("racer"))).status_code == 201
    taken = await upload(ladder, "bob", bot_archive("racer"))
    assert taken.status_code == 403
    assert taken.json()["error"] == (
        "the bot name 'racer' belongs to another author (alice), who first submitted it: give "
        "your bot another name in its bot.toml"
    )
    ladder.store.revoke_author("alice")
    revoked = await upload(ladder, "alice", bot_archive("racer"))
    assert revoked.status_code == 401


async def test_hostile_and_bad_archives_are_refused_with_a_sentence(
    ladder: Ladder, tmp_path: Path
) -> None:
    toml = b'name = "x"\ncommand = ["python3", "bot.py"]\n'
    cases = {
        "slip": (tar_gz({"bot.toml": toml, "bot.py": b"", "../escaped": b"x"}), 422, "leaves"),
        "link": (
            tar_gz({"bot.toml": toml, "bot.py": b""}, [tar_link("l", "/etc/passwd")]),
            422,
            "link",
        ),
        "no manifest": (tar_gz({"bot.py": b""}), 422, "bot.toml"),
        "not an archive": (b"hello, this is not an archive at all", 422, "gzip"),
        "too large": (b"\x1f\x8b" + bytes(2 << 20), 413, "larger than"),
    }
    for case, (archive, status, says) in cases.items():
        got = await upload(ladder, "alice", archive)
        assert got.status_code == status, (case, got.text)
        assert says in got.json()["error"], (case, got.json())
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "ladder" / "escaped").exists()
    assert not list((ladder.store.folder / ".intake").iterdir())  # nothing left of them
    assert ladder.submitted == [] and ladder.store.bots() == []
    form = await ladder.client.post(
        "/api/bots",
        data={"other": "x"},
        headers={"Authorization": f"Bearer {ladder.tokens['bob']}"},
    )
    assert form.status_code == 400 and "archive" in form.json()["error"]


async def test_submissions_a_day_and_active_bots_are_limited(ladder: Ladder) -> None:
    for i in range(2):
        got = await upload(ladder, "bob", bot_archive(f"b{i}"))
        assert got.status_code == 201
        version = ladder.store.version_by_label(f"b{i}@1")
        assert version is not None
        ladder.store.activate(version.id)
    third = await upload(ladder, "bob", bot_archive("b2"))
    assert third.status_code == 403 and "2 active bots" in third.json()["error"]
    for i in range(2):  # new versions of active bots are fine, up to 4 a day
        code = f"# {i}\n".encode() + (RANDOM / "bot.py").read_bytes()
        assert (await upload(ladder, "bob", bot_archive("b0", code))).status_code == 201
    late = await upload(ladder, "bob", bot_archive("b1", b"# late\n"))
    assert late.status_code == 429
    assert late.json()["error"] == (
        "bob has submitted 4 versions in the last 24 hours, the most this ladder takes: submit "
        "again later"
    )


def two_versions(ladder: Ladder) -> tuple[Version, Version]:
    """Versions a@1 (alice's) and b@1 (bob's), active."""
    alice, bob = ladder.store.author("alice"), ladder.store.author("bob")
    assert alice is not None and bob is not None
    a, _ = ladder.store.add_version("a", alice, "1" * 64)
    b, _ = ladder.store.add_version("b", bob, "2" * 64)
    return ladder.store.activate(a.id)[0], ladder.store.activate(b.id)[0]


async def test_games_and_the_table_read_back_as_the_journal_has_them(ladder: Ladder) -> None:
    two_versions(ladder)
    for number in range(3):
        record = random_record("odin", ["a@1", "b@1"], 1000 + number, game=f"g{number}")
        ladder.store.record_game(record)
        ladder.table.add(record)  # (as the server does with each game it records)
    page = (await ladder.client.get("/api/games", params={"bot": "a"})).json()
    assert page["total"] == 3 and page["pages"] == 1
    assert [g["id"] for g in page["games"]] == ["g2", "g1", "g0"]
    assert page["games"][0]["seats"] == ["a@1", "b@1"]
    record = (await ladder.client.get("/api/games/g1")).json()
    assert record["game"] == "g1" and [s["bot"] for s in record["seats"]] == ["a@1", "b@1"]
    assert (await ladder.client.get("/api/games/nope")).status_code == 404
    assert (await ladder.client.get("/api/bots/nope")).status_code == 404
    assert (await ladder.client.get("/api/games", params={"page": "0"})).status_code == 400
    table = (await ladder.client.get("/api/leaderboard")).json()
    expected = json.loads(msgspec.json.encode(results_leaderboard(ladder.store.results())))
    assert same_table(table, expected) and {row["bot"] for row in table["rows"]} == {"a@1", "b@1"}
    # A game more: the table follows (refitted from the last fit).
    record = random_record("odin", ["b@1", "a@1"], 1003, game="g3")
    ladder.store.record_game(record)
    ladder.table.add(record)
    again = (await ladder.client.get("/api/leaderboard")).json()
    expected = json.loads(msgspec.json.encode(results_leaderboard(ladder.store.results())))
    assert again["games"] == 4 and same_table(again, expected)


def played(ladder: Ladder) -> tuple[Version, Version]:
    """Versions a@1 (alice's) and b@1 (bob's), active, and two games between them in which
    each wrote on its stderr."""
    a, b = two_versions(ladder)
    for number, seats in enumerate((["a@1", "b@1"], ["b@1", "a@1"])):
        record = random_record("odin", seats, 2000 + number, game=f"g{number}")
        stderr = [f"{label}'s secret in g{number}" for label in seats]
        ladder.store.record_game(msgspec.structs.replace(record, stderr=stderr))
    return a, b


def bearer(ladder: Ladder, author: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {ladder.tokens[author]}"}


async def test_a_bots_stderr_and_reports_are_its_authors_alone(ladder: Ladder) -> None:
    a, _ = played(ladder)
    report = ladder.store.folder / "reports" / "a@1.txt"
    report.parent.mkdir()
    report.write_text("a@1 played 4 games without a fault; its stderr: a's own words\n")
    ladder.store.set_status(a.id, "active", "accepted", report="reports/a@1.txt")
    logs = await ladder.client.get("/api/bots/a/logs", headers=bearer(ladder, "alice"))
    assert logs.status_code == 200, logs.text
    body = logs.json()
    assert (body["bot"], body["total"], body["page"], body["pages"]) == ("a", 2, 1, 1)
    assert [(e["game"], e["version"], e["seat"], e["stderr"]) for e in body["logs"]] == [
        ("g1", "a@1", 1, "a@1's secret in g1"),
        ("g0", "a@1", 0, "a@1's secret in g0"),
    ]
    # Another author, no token, a bad page; the organiser may read them.
    other = await ladder.client.get("/api/bots/a/logs", headers=bearer(ladder, "bob"))
    assert other.status_code == 403
    assert other.json()["error"] == "the logs of a are its author's alone, and bob is not"
    assert (await ladder.client.get("/api/bots/a/logs")).status_code == 401
    bad = await ladder.client.get(
        "/api/bots/a/logs", params={"page": "x"}, headers=bearer(ladder, "alice")
    )
    assert bad.status_code == 400
    assert (await ladder.client.get("/api/bots/zz/logs")).status_code == 404
    admin = {"Authorization": f"Bearer {ladder.store.make_admin_token()}"}
    assert (await ladder.client.get("/api/bots/a/logs", headers=admin)).status_code == 200
    # A game's record shows no bot's stderr to anyone.
    record = (await ladder.client.get("/api/games/g0", headers=bearer(ladder, "alice"))).json()
    assert record["stderr"] == ["", ""]
    # The validation report: its author reads it with the bot; anyone else does not.
    mine = (await ladder.client.get("/api/bots/a", headers=bearer(ladder, "alice"))).json()
    assert mine["versions"][0]["report"] == report.read_text()
    for headers in ({}, bearer(ladder, "bob")):
        theirs = (await ladder.client.get("/api/bots/a", headers=headers)).json()
        assert theirs["versions"][0]["report"] is None


async def test_a_bot_is_retired_by_its_author_or_the_organiser(ladder: Ladder) -> None:
    retired: list[list[str]] = []
    app = make_app(
        ladder.store,
        table=ladder.table,
        on_retired=lambda vs: retired.append([v.label for v in vs]),
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://ladder") as client:
        played(ladder)
        assert (await client.post("/api/bots/a/retire")).status_code == 401
        other = await client.post("/api/bots/a/retire", headers=bearer(ladder, "bob"))
        assert other.status_code == 403 and "its author's alone" in other.json()["error"]
        assert retired == []
        own = await client.post("/api/bots/a/retire", headers=bearer(ladder, "alice"))
        assert own.status_code == 200, own.text
        assert [(v["label"], v["status"], v["reason"]) for v in own.json()["retired"]] == [
            ("a@1", "retired", "retired by its author, alice")
        ]
        admin = {"Authorization": f"Bearer {ladder.store.make_admin_token()}"}
        by_admin = await client.post("/api/bots/b/retire", headers=admin)
        assert [v["reason"] for v in by_admin.json()["retired"]] == ["retired by the organiser"]
        assert retired == [["a@1"], ["b@1"]]
        assert ladder.store.active_versions() == []
        # Its games stay; retiring it again retires nothing.
        assert (await client.get("/api/games", params={"bot": "a"})).json()["total"] == 2
        again = await client.post("/api/bots/a/retire", headers=bearer(ladder, "alice"))
        assert again.json()["retired"] == [] and retired == [["a@1"], ["b@1"]]
        assert (await client.post("/api/bots/zz/retire", headers=admin)).status_code == 404
