"""A head-to-head match on paired deals that stops when a sequential test decides (as fishtest)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import msgspec

from arena.games import OptionsInput
from arena.league.pool import GamePool, OnNote
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
    options: OptionsInput = None,
    seed: int = 1,
    config: RefereeConfig | None = None,
    max_pairs: int = 10_000,
    jobs: int = 2,
    on_pair: Callable[[MatchState], None] | None = None,
    on_note: OnNote | None = None,
    connect: Callable[[BotSpec], Connection] | None = None,
) -> MatchState:
    """Play deals, each once with A in seat 0 and once with B in seat 0, until the SPRT
    accepts H0 or H1 or `max_pairs` pairs are played."""
    state = MatchState(sprt)
    # Each deal is played twice, seats swapped: game_over must not tell its seed.
    config = msgspec.structs.replace(config or RefereeConfig(), reveal_seed=False)
    pool = GamePool(jobs, 2, on_note)
    halves: dict[int, list[GameRecord | None]] = {}  # each deal's games, A first and B first

    def games() -> Iterator[tuple[int, int]]:
        """(deal, 0) with A in seat 0 and (deal, 1) with B in seat 0, until a verdict."""
        for deal in range(max_pairs):
            for order in (0, 1):
                if state.status != "continue":
                    return
                yield deal, order

    async def play(game: tuple[int, int]) -> GameRecord:
        deal, order = game
        seats = [a, b] if order == 0 else [b, a]
        return await play_game(
            ruleset,
            seats,
            options=options,
            seed=deal_seed(seed, f"sprt-{deal}"),
            config=config,
            connect=connect,
            start_limiter=pool.starting,
            game_id=f"d{deal}-{seats[0].name}",
        )

    def done(game: tuple[int, int], record: GameRecord) -> None:
        deal, order = game
        pair = halves.setdefault(deal, [None, None])
        pair[order] = record
        first, second = pair
        if first is None or second is None:
            return
        del halves[deal]
        if state.status != "continue":
            return  # a verdict came while this pair was in flight: it does not count
        state.games += [first, second]
        if first.error is not None or second.error is not None:
            return  # a game without a result (a referee error): the pair does not count
        state.counts[PAIR_SCORES.index(pair_score(first, second))] += 1
        state.status = sprt.status(state.counts)
        if on_pair is not None:
            on_pair(state)

    await pool.run(games(), play, done)
    return state
