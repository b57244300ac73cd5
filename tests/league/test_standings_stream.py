"""Standings tallied one game at a time (`Standings`), as a journal is read: the same board as
the games all at once, from whole records or their summaries, asked for at any point; deals
that are not one deal in both seatings make no pair; the fit gets each game's results."""

from __future__ import annotations

import random

import msgspec

from arena.league.leaderboard import Standings, leaderboard
from arena.league.ratings import fit, game_results
from arena.referee.records import GameRecord, GameSummary
from tests.helpers.boards import made_game, table_deal


def some_games(seed: int, count: int, seats: int) -> list[GameRecord]:
    """Random finished games among five bots: `seats` seats, repeated deal seeds, faults, a
    referee error now and then, and a bot against itself now and then."""
    rng = random.Random(seed)
    bots = ["a", "b", "c", "d", "e"]
    games = []
    for number in range(count):
        names = [rng.choice(bots) for _ in range(seats)]
        ranks = [rng.randint(1, seats) for _ in range(seats)]
        faulted = [name for name in names if rng.random() < 0.1]
        error = "too long" if rng.random() < 0.05 else None
        games.append(
            made_game(names, ranks, faulted=faulted, game=f"g{number}", seed=rng.randint(0, 6))
        )
        if error is not None:
            games[-1] = msgspec.structs.replace(games[-1], error=error)
    return games


def test_standings_fed_game_by_game_match_the_board_of_all_the_games() -> None:
    for seats in (2, 3):
        games = some_games(seats, 80, seats)
        whole = leaderboard(games, ["a", "idle"])
        standings = Standings(["a", "idle"])
        for number, game in enumerate(games, 1):
            standings.add(GameSummary.of(game))
            if number == 40:  # asked halfway, as the live view does: the board so far
                assert standings.leaderboard() == leaderboard(games[:40], ["a", "idle"])
        assert standings.leaderboard() == whole
        assert standings.played == 80 and whole.games + whole.unrated == 80
        assert [row.bot for row in whole.rows][-1] == "idle"


def test_a_deal_makes_a_pair_only_when_played_once_in_each_seating() -> None:
    both = table_deal(0, ("a", "b"), [(1, 2), (1, 2)], deal=0)  # a wins both: WW
    same_seating = [made_game(["a", "b"], [1, 2], seed=5), made_game(["a", "b"], [2, 1], seed=5)]
    split = table_deal(0, ("a", "b"), [(1, 2), (2, 1)], deal=1)  # WL, but ...
    third = msgspec.structs.replace(both[1], seed=split[0].seed)  # ... a third game of it
    board = leaderboard([*both, *same_seating, *split, third], ["a", "b"])
    rows = {row.bot: row for row in board.rows}
    assert rows["a"].pentanomial == [0, 0, 0, 0, 1]  # deal 0 only
    assert rows["b"].pentanomial == [1, 0, 0, 0, 0]
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses) == (5, 0, 2)  # every game counts
    assert board.games == 7


def seat_0_halves(ranks: list[int]) -> int:
    return 2 if ranks[0] < ranks[1] else 1 if ranks[0] == ranks[1] else 0


def test_deal_pairs_match_game_by_game_pairing_over_random_journals() -> None:
    # The pairs are found among all the games at the end; counted game by game instead
    # (first game of a deal, then the other seating; a third game or the same seating
    # twice spoils the deal), they are the same.
    for seed in range(5):
        games = [g for g in some_games(seed, 300, 2) if g.error is None]
        board = leaderboard(games, ["a"])
        state: dict[tuple[int, frozenset[str]], list[GameRecord] | None] = {}
        for g in games:
            bots = [s.bot for s in g.seats]
            if bots[0] == bots[1]:
                continue
            key = (g.seed, frozenset(bots))
            seen = state.setdefault(key, [])
            if seen is not None:
                state[key] = [*seen, g] if len(seen) < 2 else None
        expected: dict[str, list[int]] = {}
        for pair in state.values():
            if pair is None or len(pair) != 2 or pair[0].seats[0].bot == pair[1].seats[0].bot:
                continue
            first, second = pair
            halves = seat_0_halves(first.ranks) + 2 - seat_0_halves(second.ranks)
            expected.setdefault(first.seats[0].bot, [0] * 5)[halves] += 1
            expected.setdefault(first.seats[1].bot, [0] * 5)[4 - halves] += 1
        got = {row.bot: row.pentanomial for row in board.rows if any(row.pentanomial or [])}
        assert got == expected


def test_a_seed_beyond_64_bits_leaves_out_deal_pairs_but_not_wins_and_losses() -> None:
    games = [*table_deal(0, ("a", "b"), [(1, 2), (2, 1)], deal=0)]
    odd = [made_game(["a", "b"], [1, 2], seed=-1), made_game(["b", "a"], [1, 2], seed=-1)]
    rows = {row.bot: row for row in leaderboard([*games, *odd], ["a", "b"]).rows}
    assert rows["a"].pentanomial is None or rows["a"].pentanomial == [0] * 5
    assert (rows["a"].wins, rows["a"].losses) == (2, 2)
    rows = {row.bot: row for row in leaderboard(games, ["a", "b"]).rows}
    assert rows["a"].pentanomial == [0, 0, 1, 0, 0]


def test_the_fit_gets_every_game_as_game_results_gives_it() -> None:
    # Made from the flat arrays as columns, the results are those of `game_results` for each
    # game, keyed by its deal (seed) and the bots at its table, so that the rotations of one
    # deal count as one draw of chance: the same table to the last bit.
    mixed = [g for seats in (2, 3, 4, 6) for g in some_games(seats, 40, seats)]
    random.Random(1).shuffle(mixed)
    for games in ([g for g in some_games(7, 60, 2)], some_games(8, 60, 4), mixed):
        rated = [g for g in games if g.error is None]
        standings = Standings()
        for game in games:
            standings.add(game)
        results = [
            r
            for number, g in enumerate(rated)
            for r in game_results(
                [s.bot for s in g.seats],
                g.ranks,
                number,
                deal=f"{g.seed}:{sorted(s.bot for s in g.seats)}",
            )
        ]
        assert standings.ratings() == fit(results, standings.names)
