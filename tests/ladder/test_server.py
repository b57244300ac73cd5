"""A ladder served by a real `arena ladder serve` process on 127.0.0.1: two authors submit
four bots over HTTP, each is validated in the sandbox and plays; the API's table is the
journal's (`arena leaderboard DIR`); a wrong token is 401 and another author's bot name 403;
a new version retires the one before; after `kill -9` and a restart every game is journaled
once and every version is still there."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
from pathlib import Path

import httpx
import msgspec
import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore, init_ladder
from arena.league.leaderboard import Standings
from arena.referee.records import read_records
from tests.helpers.cli import arena
from tests.helpers.ladder import archive, same_table, served, until
from tests.helpers.paths import RANDOM, TEST_BOTS

pytestmark = pytest.mark.slow  # (a server process, games played)


def status(client: httpx.Client, bot: str) -> str:
    return str(client.get(f"/api/bots/{bot}").json()["versions"][0]["status"])


def test_four_bots_of_two_authors_play_and_the_table_is_the_journals(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, msgspec.convert({"ruleset": "odin-race"}, LadderConfig))
    with LadderStore.open(folder, writer=False) as store:
        tokens = {name: store.create_author(name)[1] for name in ("alice", "bob")}
    bots = {"a1": "alice", "a2": "alice", "b1": "bob", "b2": "bob"}
    with served(folder) as (proc, address), httpx.Client(base_url=address) as client:
        for bot, author in bots.items():
            got = client.post(
                "/api/bots",
                files={"archive": ("bot.tar.gz", archive(bot))},
                headers={"Authorization": f"Bearer {tokens[author]}"},
            )
            assert got.status_code == 201, got.text
        until(lambda: all(status(client, bot) == "active" for bot in bots))
        # A wrong token is 401; another author's bot name is 403; neither is stored.
        wrong = client.post(
            "/api/bots",
            files={"archive": ("bot.tar.gz", archive("z1"))},
            headers={"Authorization": f"Bearer {tokens['alice']}x"},
        )
        assert wrong.status_code == 401 and "not an author's" in wrong.json()["error"]
        taken = client.post(
            "/api/bots",
            files={"archive": ("bot.tar.gz", archive("b1", b"# mine now\n"))},
            headers={"Authorization": f"Bearer {tokens['alice']}"},
        )
        assert taken.status_code == 403 and "belongs to another author (bob)" in taken.text
        assert client.get("/api/bots/z1").status_code == 404
        assert [v["label"] for v in client.get("/api/bots/b1").json()["versions"]] == ["b1@1"]
        # `arena submit`: a crashing bot is rejected (exit 1) with its reason; its report
        # is in the ladder's folder.
        crashy = tmp_path / "crashy"
        crashy.mkdir()
        (crashy / "bot.py").write_text((TEST_BOTS / "crash_bot.py").read_text())
        (crashy / "bot.toml").write_text('name = "crashy"\ncommand = ["{python}", "bot.py"]\n')
        done = subprocess.run(
            arena("submit", address, crashy, "--token", tokens["bob"]),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "submitted crashy@1: validating"
        assert lines[-1].startswith("crashy@1 is rejected: rejected: ")
        assert (folder / "reports" / "crashy@1.txt").is_file()
        until(lambda: client.get("/api/games").json()["total"] >= 12)
        # A new version of a1, through `arena submit` (exit 0 once it plays), retires the
        # first; its games stay.
        a1 = tmp_path / "a1"
        a1.mkdir()
        (a1 / "bot.py").write_text("# v2\n" + (RANDOM / "bot.py").read_text())
        (a1 / "bot.toml").write_text('name = "a1"\ncommand = ["{python}", "bot.py"]\n')
        done = subprocess.run(
            arena("submit", address, a1),
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "ARENA_TOKEN": tokens["alice"]},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines()[-1].startswith("a1@2 is active: accepted: ")
        versions = client.get("/api/bots/a1").json()["versions"]
        assert [(v["label"], v["status"]) for v in versions] == [
            ("a1@2", "active"),
            ("a1@1", "retired"),
        ]
        # The API's table (its last refit, a second or so behind) is the batch fit of the
        # journal's games up to as many: the journal is in the order the table got them.
        shown = client.get("/api/leaderboard").json()
        batch = Standings()
        for record in itertools.islice(read_records(folder / "games.jsonl"), shown["games"]):
            batch.add(record)
        here = json.loads(msgspec.json.encode(batch.leaderboard()))
        assert shown["games"] >= 12 and same_table(shown, here), (shown, here)
        # No table seats two bots of one author.
        for record in read_records(folder / "games.jsonl"):
            authors = [bots[seat.bot.split("@")[0]] for seat in record.seats]
            assert len(set(authors)) == len(authors)
        os.killpg(proc.pid, signal.SIGKILL)  # mid-game: 3 games in flight
        proc.wait()
    before = [r.game for r in read_records(folder / "games.jsonl")]
    with served(folder) as (proc, address), httpx.Client(base_url=address) as client:
        until(lambda: client.get("/api/games").json()["total"] >= len(before) + 6)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
    ids = [r.game for r in read_records(folder / "games.jsonl")]
    assert len(ids) == len(set(ids)) and ids[: len(before)] == before
    cli = subprocess.run(
        arena("leaderboard", folder, "--json"), capture_output=True, text=True, check=True
    )
    assert json.loads(cli.stdout)["games"] == len(ids)
    with LadderStore.open(folder, writer=False) as store:
        assert sorted(v.label for b in store.bots() for v in store.versions(b.name)) == [
            "a1@1",
            "a1@2",
            "a2@1",
            "b1@1",
            "b2@1",
            "crashy@1",
        ]
