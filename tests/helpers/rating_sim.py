"""Tournaments simulated from known strengths, for checking the rating fit's error bars
(tests/league/test_ratings_coverage.py and `bash bench/run ratings` share it)."""

from __future__ import annotations

import numpy as np

from arena.league.ratings import ELO_PER_NAT, Result, fit, game_results

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


def covered(seats: int, draws: float, seed: int, count: int, keyed: bool = True) -> int:
    """How many of the count × BOTS (tournament, bot) 95% intervals hold the true rating."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(count):
        names, truth, results = tournament(rng, seats, draws, keyed)
        table = fit(results, names)
        hits += sum(
            abs(table.rating(name).elo - true) <= table.rating(name).error
            for name, true in zip(names, truth.tolist(), strict=True)
        )
    return hits


def coverage(seats: int, draws: float, seed: int, count: int, keyed: bool = True) -> float:
    """The share of (tournament, bot) whose 95% interval holds the true, centred rating."""
    return covered(seats, draws, seed, count, keyed) / (count * BOTS)
