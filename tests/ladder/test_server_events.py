"""The event stream of a real `arena ladder serve --workers 1` process (its games in a
worker process, through the Dask executor): a finished game reaches a client within 2 s of
being journaled, with the versions' status changes and the table's refits; a retired bot
plays no new games; SIGTERM ends the stream and the server cleanly."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.store import LadderStore, init_ladder
from tests.helpers.ladder import archive, served, until

pytestmark = pytest.mark.slow  # (a server process, games played)


class Listener(threading.Thread):
    """Reads `GET /api/events` as it streams, keeping each event with the time it came."""

    def __init__(self, address: str) -> None:
        super().__init__(daemon=True)
        self.address = address
        self.events: list[tuple[float, str, dict[str, Any]]] = []
        self.open = threading.Event()
        self.ended = threading.Event()

    def run(self) -> None:
        kind = ""
        with httpx.stream("GET", f"{self.address}/api/events", timeout=None) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            self.open.set()
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line[len("event: ") :]
                elif line.startswith("data: "):
                    self.events.append((time.time(), kind, json.loads(line[len("data: ") :])))
        self.ended.set()

    def of(self, kind: str) -> list[tuple[float, dict[str, Any]]]:
        return [(at, data) for at, k, data in list(self.events) if k == kind]


def test_the_stream_delivers_games_within_2_s_and_status_changes(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    init_ladder(folder, msgspec.convert({"ruleset": "odin-race"}, LadderConfig))
    with LadderStore.open(folder, writer=False) as store:
        tokens = {name: store.create_author(name)[1] for name in ("alice", "bob")}
        admin = store.make_admin_token()
    with (
        served(folder, "--jobs", "2", "--workers", "1") as (proc, address),
        httpx.Client(base_url=address) as client,
    ):
        listener = Listener(address)
        listener.start()
        assert listener.open.wait(10)
        for bot, author in (("a1", "alice"), ("b1", "bob")):
            got = client.post(
                "/api/bots",
                files={"archive": ("bot.tar.gz", archive(bot))},
                headers={"Authorization": f"Bearer {tokens[author]}"},
            )
            assert got.status_code == 201, got.text
        until(lambda: len(listener.of("game")) >= 6)
        for at, game in listener.of("game"):
            assert at - game["finished"] < 2.0, game
            assert sorted(game["seats"]) == ["a1@1", "b1@1"] and sorted(game["ranks"]) in (
                [1, 2],
                [1, 1],
            )
        journaled = {g["id"] for g in client.get("/api/games").json()["games"]}
        assert {game["id"] for _, game in listener.of("game")} <= journaled
        statuses = [(v["label"], v["status"]) for _, v in listener.of("version")]
        for label in ("a1@1", "b1@1"):
            assert statuses.index((label, "validating")) < statuses.index((label, "active"))
        until(lambda: listener.of("table"), 15)  # (refitted every 5 s while games come)
        # Retired by the organiser: told on the stream, and no new game seats it.
        retired = client.post("/api/bots/a1/retire", headers={"Authorization": f"Bearer {admin}"})
        assert retired.status_code == 200, retired.text
        until(
            lambda: (
                ("a1@1", "retired")
                in [(v["label"], v["status"]) for _, v in listener.of("version")]
            ),
            5,
        )
        # (the games in flight finish; then none starts: a table needs two authors' bots)
        totals = [client.get("/api/games").json()["total"]]

        def still() -> bool:
            time.sleep(2)
            totals.append(client.get("/api/games").json()["total"])
            return totals[-1] == totals[-2]

        until(still, 30)
        proc.send_signal(signal.SIGTERM)
        assert listener.ended.wait(10)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
