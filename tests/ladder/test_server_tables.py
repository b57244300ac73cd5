"""How the ladder's server chooses games, in process (no game played): the live table marks
which active versions' places are settled, a settled bot seeds tables at its
`settled_share` of the others' rate, and a retired version's games waiting to start are
dropped from the queue and the store's plan; a refit that fails is done again from
scratch."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import msgspec
import numpy as np
import pytest
import trio

from arena.ladder.api import LiveTable
from arena.ladder.config import LadderConfig
from arena.ladder.server import LadderServer
from arena.ladder.store import LadderStore, Version, init_ladder
from arena.league.executors import InProcess
from arena.league.leaderboard import results_leaderboard
from arena.league.live_ratings import LiveRatings
from arena.league.ratings import RatingTable
from tests.helpers.reports import random_record


def ladder(tmp_path: Path, bots: int, **settings: object) -> tuple[LadderStore, list[Version]]:
    """A ladder of `bots` active versions b0@1, b1@1, ..., each of its own author."""
    folder = tmp_path / "ladder"
    init_ladder(folder, msgspec.convert({"ruleset": "odin", **settings}, LadderConfig))
    store = LadderStore.open(folder)
    versions = []
    for i in range(bots):
        author, _ = store.create_author(f"author{i}")
        version, _ = store.add_version(f"b{i}", author, f"{i:064x}")
        versions.append(store.activate(version.id)[0])
    return store, versions


def play(store: LadderStore, table: LiveTable, winner: str, loser: str, game: int) -> None:
    """A game of two seats that `winner` wins, journaled and told to the live table."""
    record = random_record("odin", [winner, loser], 7000 + game, game=f"g{game}")
    record = msgspec.structs.replace(record, ranks=[1, 2], faults=[])
    store.record_game(record)
    table.add(record)


async def test_the_live_table_says_which_active_places_are_settled(tmp_path: Path) -> None:
    store, _ = ladder(tmp_path, 4)
    table = LiveTable(store)
    # b0 beats everyone, always; b1 and b2 share their games; b3 plays none (and is not on
    # the table until it does).
    n = 0
    for _ in range(30):
        for pair in (("b0@1", "b1@1"), ("b0@1", "b2@1"), ("b1@1", "b2@1"), ("b2@1", "b1@1")):
            play(store, table, *pair, n)
            n += 1
    board = await table.leaderboard()
    marks = {row.bot: row.settled for row in board.rows}
    assert marks == {"b0@1": True, "b1@1": False, "b2@1": False}
    # A retired version's place no longer counts: b1 and b2 stay unsettled, b1 shows None.
    store.retire_bot("b1", "retired by the organiser")
    play(store, table, "b2@1", "b0@1", n)
    marks = {row.bot: row.settled for row in (await table.leaderboard()).rows}
    assert marks["b1@1"] is None and marks["b0@1"] is True and marks["b2@1"] is True
    store.close()


def test_a_settled_bot_seeds_tables_at_its_share_and_retired_games_are_dropped(
    tmp_path: Path,
) -> None:
    store, versions = ladder(tmp_path, 4, matchmaking={"settled_share": 0.25})
    server = LadderServer(store, InProcess(2, 2, None), sandbox=None, seed=3)

    async def refit() -> None:
        n = 0
        for _ in range(10):  # b0 beats everyone; the others share their games
            for other in ("b1@1", "b2@1", "b3@1"):
                play(store, server.table, "b0@1", other, n)
                n += 1
            for pair in (("b1@1", "b2@1"), ("b2@1", "b3@1"), ("b3@1", "b1@1")):
                play(store, server.table, *pair, n)
                n += 1
        board = await server.table.leaderboard()
        assert {row.bot: row.settled for row in board.rows}["b0@1"] is True

    trio.run(refit)
    seats: Counter[str] = Counter()
    for _ in range(400):
        game = server._make()
        assert game is not None
        seats.update(store.version(v).label for v in game.versions)
    others = [seats[f"b{i}@1"] for i in (1, 2, 3)]
    # Seeded at a quarter of the rate (it still fills seats near it in rating).
    assert 0 < seats["b0@1"] < 0.6 * min(others), seats
    # Retiring b1 drops its waiting games (from the queue and the plan), and no later table
    # seats it.
    for _ in range(40):  # (until a game of b1 waits in the queue)
        if any(versions[1].id in game.versions for game in server.queue):
            break
        server._make()
    dropped = {game.id for game in server.queue if versions[1].id in game.versions}
    assert dropped
    retired = store.retire_bot("b1", "retired by its author, author1")
    server.withdraw(retired)
    assert not any(versions[1].id in game.versions for game in server.queue)
    planned = {game.id for game in store.planned()}
    assert planned >= {game.id for game in server.queue} and not planned & dropped
    for _ in range(40):
        game = server._make()
        assert game is not None and versions[1].id not in game.versions
    store.close()


async def test_a_refit_that_fails_is_done_again_from_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = ladder(tmp_path, 2)
    table = LiveTable(store)
    for n in range(6):
        play(store, table, *(("b0@1", "b1@1") if n % 3 else ("b1@1", "b0@1")), n)
    first = await table.leaderboard()
    play(store, table, "b1@1", "b0@1", 6)
    failing = table.standings.live
    fit = type(failing).table

    def broken(self: LiveRatings) -> RatingTable:
        if self is failing:
            raise np.linalg.LinAlgError("Singular matrix")
        return fit(self)

    monkeypatch.setattr(type(failing), "table", broken)
    board = await table.leaderboard()
    assert table.standings.live is not failing  # (started again, from every game)
    assert board.games == first.games + 1 == 7
    batch = results_leaderboard(store.results())
    assert [(r.bot, r.elo, r.games) for r in board.rows] == [
        (r.bot, r.elo, r.games) for r in batch.rows
    ]
    store.close()
