"""Tournaments simulated from known strengths, for checking the rating fit's error bars
(tests/league/test_ratings_coverage.py, `bash bench/run ratings` and `bash bench/run paired`
share it): games each of a fresh deal (`tournament`), or paired deals, every deal played in
every rotation of its table (`paired_tournament`)."""

from __future__ import annotations

import numpy as np

from arena.league.ratings import (
    ELO_PER_NAT,
    RatingTable,
    Result,
    ResultColumns,
    fit,
    fit_columns,
    game_results,
)

BOTS = 10
GAMES_PER_BOT = 200


def tournament(
    rng: np.random.Generator, seats: int, draws: float, keyed: bool = True
) -> tuple[list[str], np.ndarray, list[Result]]:
    """Bots with normal(0, 150) Elo, then games from the model the fit assumes.

    Two seats: a round robin; a game is drawn with probability min(draws, 2p, 2(1 - p)), so
    the expected score stays p = σ(θa - θb). More seats: random tables ranked by Plackett-Luce
    (θ plus Gumbel noise), whose every pair of seats again follows σ(θa - θb).
    """
    names = [f"bot{i}" for i in range(BOTS)]
    elo = rng.normal(0.0, 150.0, BOTS)
    theta = elo / ELO_PER_NAT
    results: list[Result] = []
    if seats == 2:
        a, b = np.triu_indices(BOTS, 1)
        a, b = np.repeat(a, GAMES_PER_BOT // (BOTS - 1)), np.repeat(b, GAMES_PER_BOT // (BOTS - 1))
        p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
        draw = np.minimum(np.minimum(2 * p, 2 * (1 - p)), draws)
        u = rng.random(a.size)
        score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
        for x, y, s in zip(a.tolist(), b.tolist(), score.tolist(), strict=True):
            results.append(Result(names[x], names[y], s))
    else:
        tables = np.argsort(rng.random((GAMES_PER_BOT * BOTS // seats, BOTS)), axis=1)[:, :seats]
        performance = theta[tables] + rng.gumbel(size=tables.shape)
        ranks = np.argsort(np.argsort(-performance, axis=1), axis=1) + 1
        for g, (table, rank) in enumerate(zip(tables.tolist(), ranks.tolist(), strict=True)):
            results += game_results([names[x] for x in table], rank, g if keyed else None)
    return names, elo - elo.mean(), results


def held(table: RatingTable, names: list[str], truth: np.ndarray) -> int:
    """How many of the bots' 95% intervals in `table` hold their true ratings."""
    return sum(
        abs(table.rating(name).elo - true) <= table.rating(name).error
        for name, true in zip(names, truth.tolist(), strict=True)
    )


def covered(seats: int, draws: float, seed: int, count: int, keyed: bool = True) -> int:
    """How many of the count × BOTS (tournament, bot) 95% intervals hold the true rating."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(count):
        names, truth, results = tournament(rng, seats, draws, keyed)
        hits += held(fit(results, names), names, truth)
    return hits


def coverage(seats: int, draws: float, seed: int, count: int, keyed: bool = True) -> float:
    """The share of (tournament, bot) whose 95% interval holds the true, centred rating."""
    return covered(seats, draws, seed, count, keyed) / (count * BOTS)


def paired_tournament(
    rng: np.random.Generator,
    seats: int,
    luck: float,
    grouped: bool = True,
    bots: int = BOTS,
    games_per_bot: int = GAMES_PER_BOT,
) -> tuple[list[str], np.ndarray, ResultColumns]:
    """`bots` bots with normal(0, 150) Elo playing paired deals: every table plays each of
    its deals once in every rotation of its seating (a round robin of pairs with 2 seats,
    random tables of distinct bots with more), about `games_per_bot` games per bot, as
    pairwise results (columns) keyed by their deal, or by their game alone (`grouped`
    False: the error bars taken game by game).

    The games are ranked by Plackett-Luce (θ plus Gumbel noise), so every pair of seats of
    every game follows σ(θa - θb) as the fit assumes. `luck` is how much the deal decides:
    with that probability a table-deal's noise belongs to its seats (each seat's Gumbel
    drawn once per deal, so each bot gets each seat's luck once over the rotations, and
    two equal bots split a 2-seat deal pair 1-1), else every game draws fresh noise.
    """
    names = [f"bot{i}" for i in range(bots)]
    elo = rng.normal(0.0, 150.0, bots)
    theta = elo / ELO_PER_NAT
    k = seats
    if k == 2:
        a, b = np.triu_indices(bots, 1)
        per_pair = games_per_bot // (2 * (bots - 1))
        tables = np.repeat(np.stack((a, b), axis=1), per_pair, axis=0)
    else:
        count = round(games_per_bot * bots / k**2)
        tables = np.argsort(rng.random((count, bots)), axis=1)[:, :k]
    deals = tables.shape[0]
    turn = (np.arange(k)[None, :] - np.arange(k)[:, None]) % k  # [rotation, place]: seat
    own = rng.gumbel(size=(deals, k))[:, turn]  # the deal's seat luck, per rotation and place
    fresh = rng.gumbel(size=(deals, k, k))
    lucky = np.less(rng.random(deals), luck)
    noise = np.where(lucky[:, None, None], own, fresh)  # [deal, rotation, place of the bot]
    performance = theta[tables][:, None, :] + noise
    i, j = np.triu_indices(k, 1)
    won = performance[:, :, i] > performance[:, :, j]  # [deal, rotation, pair of places]
    shape = won.shape
    game = np.arange(deals * k).reshape(deals, k)
    group = np.repeat(np.arange(deals), k).reshape(deals, k) if grouped else game
    columns = ResultColumns(
        a=np.broadcast_to(tables[:, None, i], shape).ravel().astype(np.int64),
        b=np.broadcast_to(tables[:, None, j], shape).ravel().astype(np.int64),
        score=won.ravel().astype(np.float64),
        weight=np.full(won.size, 1.0 / (k - 1)),
        group=np.broadcast_to(group[:, :, None], shape).ravel().astype(np.int64),
    )
    return names, elo - elo.mean(), columns


def paired_covered(
    seats: int,
    luck: float,
    seed: int,
    count: int,
    grouped: bool = True,
    bots: int = BOTS,
    games_per_bot: int = GAMES_PER_BOT,
) -> int:
    """How many of the count × bots (tournament, bot) 95% intervals of paired tournaments
    (`paired_tournament`) hold the true rating."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(count):
        names, truth, columns = paired_tournament(rng, seats, luck, grouped, bots, games_per_bot)
        hits += held(fit_columns(columns, names), names, truth)
    return hits


def paired_coverage(
    seats: int,
    luck: float,
    seed: int,
    count: int,
    grouped: bool = True,
    bots: int = BOTS,
    games_per_bot: int = GAMES_PER_BOT,
) -> float:
    """The share of (tournament, bot) whose 95% interval of a paired tournament holds the
    true, centred rating."""
    hits = paired_covered(seats, luck, seed, count, grouped, bots, games_per_bot)
    return hits / (count * bots)
