"""The matchmaker's promises, kept by a real `arena ladder serve` process (its bots in the
sandbox, two games at once): five active bots of four authors, one author owning two, play
tables of 2 and of 3 seats; once it has played GAMES games and stopped, the journal and the
store show every bot's games in proportion (the fewest-games-first rule, within the bound
`next_table` documents), every deal played in every rotation of one seating with no two of
its games at once, and no table seating two bots of one author."""

from __future__ import annotations

import itertools
import signal
from collections import Counter, defaultdict
from pathlib import Path

import httpx
import msgspec
import pytest

from arena.ladder.config import LadderConfig
from arena.ladder.matchmaking import SLACK
from arena.ladder.store import LadderStore, init_ladder
from arena.referee.records import GameRecord, read_records
from tests.helpers.ladder import served, stock, until

pytestmark = pytest.mark.slow  # (a server process, games played)

#: each bot's author: alice owns two bots, which never sit at one table
BOTS = {"a1": "alice", "a2": "alice", "b1": "bob", "c1": "carol", "d1": "dave"}
#: three tables of 2 seats for each table of 3 (with 4 authors, the two of alice's bots can
#: keep up with the others: at most one of them sits at a table)
SEATS = {"2": 3, "3": 1}
#: games played before the server is stopped: enough that a bot always left out would break
#: the bound on the spread (asserted below: 2 bots a game at least, shared by 4 bots, is 32
#: games each, past SLACK and two tables' games, 30)
GAMES = 64
#: how much a game's start, taken as its indexed time less its `seconds`, may seem to come
#: before the indexed end of the deal's game before it: a game is indexed by the server's
#: recorder a little after it ends (its two writes to disk, behind those of the games that
#: finished before it), and `seconds` is rounded to the ms. Far less than a game lasts (half
#: a second and more), so two rotations played at once would still be caught.
TOLERANCE = 0.1


def stocked(folder: Path) -> None:
    """Make the ladder in `folder` with BOTS already active (stored as an upload would be,
    by `Intake`, and activated without validation), so that every bot plays from the first
    table: a bot that joins later starts far behind, where the matchmaker's bound on the
    spread of games does not hold until it has caught up."""
    config = {"ruleset": "odin-race", "seats": SEATS, "matchmaking": {"settled_share": 1.0}}
    init_ladder(folder, msgspec.convert(config, LadderConfig))
    stock(folder, BOTS, "accepted by the test, as it is the example random bot")


def test_tables_keep_games_in_proportion_deals_paired_and_authors_apart(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    stocked(folder)
    with served(folder, "--jobs", "2") as (proc, address), httpx.Client(base_url=address) as api:
        until(lambda: api.get("/api/games").json()["total"] >= GAMES, seconds=120)
        proc.send_signal(signal.SIGTERM)  # (the games in flight stay planned)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0, out
    records = list(read_records(folder / "games.jsonl"))
    with LadderStore.open(folder, writer=False) as ladder:
        active = ladder.active_versions()
        label = {v.id: v.label for v in active}
        games = {v.label: v.games for v in active}
        finished = {e.id: e.finished for e in ladder.games(limit=len(records) + 1)}
        planned = ladder.planned()
    assert sorted(label.values()) == sorted(f"{bot}@1" for bot in BOTS)  # (none suspended)
    assert len(records) >= GAMES and finished.keys() == {r.game for r in records}
    author = {f"{bot}@1": name for bot, name in BOTS.items()}

    # No table seats two bots of one author.
    for record in records:
        authors = [author[seat.bot] for seat in record.seats]
        assert len(set(authors)) == len(authors), (record.game, authors)
    for game in planned:
        assert len({author[label[v]] for v in game.versions}) == len(game.versions), game

    # Games in proportion: each bot's games, those planned counted (as the matchmaker counts
    # them), are within SLACK and two tables' games of each other (3 games a bot, the most a
    # table gives). A bot always left out would have none while the others shared every
    # game: more than the bound, as the first assertion shows.
    played = Counter(seat.bot for record in records for seat in record.seats)
    assert {bot: played[bot] for bot in games} == games  # (the store's count: the journal's)
    waiting = Counter(label[v] for game in planned for v in game.versions)
    load = {bot: played[bot] + waiting[bot] for bot in games}
    bound = SLACK + 2 * max(int(seats) for seats in SEATS)
    assert sum(load.values()) / (len(BOTS) - 1) > bound
    assert max(load.values()) - min(load.values()) <= bound, load

    # Paired deals: the games of one deal (one seed; ids DEAL-0, DEAL-1, ...), those played
    # and those planned when the server stopped, are every rotation of one seating, each bot
    # in each seat once.
    deals: defaultdict[int, dict[str, tuple[str, ...]]] = defaultdict(dict)
    for record in records:
        deals[record.seed][record.game] = tuple(seat.bot for seat in record.seats)
    for game in planned:
        deals[game.seed][game.id] = tuple(label[v] for v in game.versions)
    for seed, seatings in deals.items():
        first = next(iter(seatings.values()))
        k = len(first)
        assert sorted(seatings) == [f"{seed:016x}-{i}" for i in range(k)], seatings
        assert set(seatings.values()) == {first[i:] + first[:i] for i in range(k)}, seatings
        for seat in range(k):
            assert {s[seat] for s in seatings.values()} == set(first), seatings
    assert {len(s) for s in deals.values()} == {2, 3}  # (both table sizes were played)

    # No two games of one deal at once: each starts (its indexed time less its `seconds`)
    # after the deal's game before it was indexed. Games of different deals did overlap,
    # two at once, so this tells apart deals played in turn from deals played at once.
    def span(record: GameRecord) -> tuple[float, float]:
        end = finished[record.game]
        return end - record.seconds, end

    by_deal: defaultdict[int, list[GameRecord]] = defaultdict(list)
    for record in records:
        by_deal[record.seed].append(record)
    checked = 0
    for played_games in by_deal.values():
        spans = sorted(span(record) for record in played_games)
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert start >= end - TOLERANCE, spans
            checked += 1
    assert checked >= GAMES // 3
    overlapping = [
        (a.game, b.game)
        for a, b in itertools.combinations(records, 2)
        if a.seed != b.seed and span(a)[0] < span(b)[1] and span(b)[0] < span(a)[1]
    ]
    assert len(overlapping) >= GAMES // 4, overlapping
