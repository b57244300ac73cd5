"""A head-to-head match on paired deals that stops when a sequential test decides (as fishtest)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from arena.league.schedule import deal_seed
from arena.league.sprt import PAIR_SCORES, Sprt, Status
from arena.referee.bot import BotSpec
from arena.referee.game import Connection, RefereeConfig, play_game
from arena.referee.records import GameRecord


@dataclass
class MatchState:
    """The running tally: pentanomial counts of pair scores for bot A, and the verdict."""

    sprt: Sprt
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))
    games: list[GameRecord] = field(default_factory=list)
    status: Status = "continue"

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def llr(self) -> float:
        return self.sprt.llr(self.counts)


def pair_score(first: GameRecord, second: GameRecord) -> float:
    """Bot A's points over a deal played twice (A in seat 0, then seat 1): 0 to 2."""
    points = 0.0
    for rec, seat in ((first, 0), (second, 1)):
        mine, theirs = rec.ranks[seat], rec.ranks[1 - seat]
        points += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return points


async def run_match(
    a: BotSpec,
    b: BotSpec,
    ruleset: str,
    sprt: Sprt,
    *,
    options: Any = None,
    seed: int = 1,
    config: RefereeConfig | None = None,
    max_pairs: int = 10_000,
    jobs: int = 2,
    on_pair: Callable[[MatchState], None] | None = None,
    connect: Callable[[BotSpec], Connection] | None = None,
) -> MatchState:
    """Play deals, each once with A in seat 0 and once with B in seat 0, until the SPRT
    accepts H0 or H1 or `max_pairs` pairs are played."""
    state = MatchState(sprt)
    # Each deal is played twice, seats swapped: game_over must not tell its seed.
    config = msgspec.structs.replace(config or RefereeConfig(), reveal_seed=False)
    limiter = trio.CapacityLimiter(max(1, jobs))
    next_deal = 0

    async def play_pair(deal: int) -> None:
        game_seed = deal_seed(seed, f"sprt-{deal}")

        async def one(seats: list[BotSpec], out: list[GameRecord]) -> None:
            async with limiter:
                out.append(
                    await play_game(
                        ruleset,
                        seats,
                        options=options,
                        seed=game_seed,
                        config=config,
                        connect=connect,
                        game_id=f"d{deal}-{seats[0].name}",
                    )
                )

        first: list[GameRecord] = []
        second: list[GameRecord] = []
        async with trio.open_nursery() as pair:
            pair.start_soon(one, [a, b], first)
            pair.start_soon(one, [b, a], second)
        if state.status != "continue":
            return  # a verdict came while this pair was in flight: it does not count
        state.games += [first[0], second[0]]
        if first[0].error is not None or second[0].error is not None:
            return  # a game without a result (a referee error): the pair does not count
        state.counts[PAIR_SCORES.index(pair_score(first[0], second[0]))] += 1
        state.status = sprt.status(state.counts)
        if on_pair is not None:
            on_pair(state)

    async with trio.open_nursery() as nursery:
        # Keep about `jobs` games in flight: a pair is two games.
        in_flight = trio.CapacityLimiter(max(1, (jobs + 1) // 2))
        while state.status == "continue" and next_deal < max_pairs:
            await in_flight.acquire_on_behalf_of(next_deal)

            async def run(deal: int) -> None:
                try:
                    await play_pair(deal)
                finally:
                    in_flight.release_on_behalf_of(deal)

            nursery.start_soon(run, next_deal)
            next_deal += 1
    return state
