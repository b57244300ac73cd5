"""A head-to-head match on paired deals that stops when a sequential test decides (as fishtest).

Deal d is played twice on the seed `deal_seed(seed, f"sprt-{d}")`: game "d<d>-ab" with A in
seat 0, and game "d<d>-ba" with B in seat 0. A pair counts when its second game finishes, in
the order pairs complete, until the test decides. A match resumes from its games already
played (its journal, in the order they finished): recounting them the same way gives the
state the run had when it stopped, and only the games not yet played are played.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from arena.games import OptionsInput
from arena.games.errors import ArenaError
from arena.league.executors import Executor, GameJob, InProcess, OnNote
from arena.league.schedule import deal_seed
from arena.league.sprt import PAIR_SCORES, Sprt, Status
from arena.referee.folders import BotSpec
from arena.referee.game import Connection, RefereeConfig
from arena.referee.records import GameRecord, GameSummary

ORDERS = ("ab", "ba")
"""The two games of a deal: order 0 seats A first, order 1 seats B first."""
_GAME_NAME = re.compile(r"d(0|[1-9][0-9]*)-(ab|ba)")


class MatchJournalError(ArenaError):
    """A journal holding a game that is not one of this match's (another seed, other bots)."""


def game_name(deal: int, order: int) -> str:
    """The record's name for a game of a match: "d12-ab" (A in seat 0) or "d12-ba"."""
    return f"d{deal}-{ORDERS[order]}"


def parse_game_name(name: str) -> tuple[int, int] | None:
    """(deal, order) from a game's name ("d12-ba" -> (12, 1)), or None if it is not one."""
    match = _GAME_NAME.fullmatch(name)
    if match is None:
        return None
    return int(match[1]), ORDERS.index(match[2])


def match_seed(seed: int, deal: int) -> int:
    """The game seed of a deal: both its games are played on it."""
    return deal_seed(seed, f"sprt-{deal}")


@dataclass
class MatchState:
    """The running tally: pentanomial counts of pair scores for bot A, its wins, draws and
    losses in the games of those pairs, and the verdict; `played` holds every finished game,
    counted or not, by (deal, order). Games are kept as summaries (no moves, no stderr), so
    a long match holds little of each."""

    sprt: Sprt
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))
    games: list[GameSummary] = field(default_factory=list)  # complete pairs before the verdict
    status: Status = "continue"
    wdl: list[int] = field(default_factory=lambda: [0, 0, 0])
    played: dict[tuple[int, int], GameSummary] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def llr(self) -> float:
        return self.sprt.llr(self.counts)

    @property
    def uncounted(self) -> int:
        """Finished games outside the counted pairs: half of a pair, a pair that finished after
        the verdict, or a pair with a game the referee could not finish."""
        return len(self.played) - 2 * self.pairs

    def add(self, deal: int, order: int, game: GameRecord | GameSummary) -> bool:
        """Take a finished game; True when it completes a pair that counts (the verdict is
        then updated). Pairs finishing after the verdict, and a pair holding a game with a
        referee error (no result), do not count; a game already taken is ignored."""
        if (deal, order) in self.played:
            return False
        record = self.played[(deal, order)] = GameSummary.of(game)
        other = self.played.get((deal, 1 - order))
        if other is None or self.status != "continue":
            return False
        first, second = (record, other) if order == 0 else (other, record)
        self.games += [first, second]
        if first.error is not None or second.error is not None:
            return False
        self.counts[PAIR_SCORES.index(pair_score(first, second))] += 1
        for rec, seat in ((first, 0), (second, 1)):
            mine, theirs = rec.ranks[seat], rec.ranks[1 - seat]
            self.wdl[0 if mine < theirs else 1 if mine == theirs else 2] += 1
        self.status = self.sprt.status(self.counts)
        return True

    @classmethod
    def recount(
        cls,
        sprt: Sprt,
        seed: int,
        names: tuple[str, str],
        records: Iterable[GameRecord | GameSummary],
    ) -> MatchState:
        """The state after `records` (a match's journal, in the order the games finished), as
        the run that played them counted it; a game that is not of this match (by its name,
        seed or bots) is a `MatchJournalError`."""
        state = cls(sprt)
        for record in records:
            game = parse_game_name(record.game)
            seats = [seat.bot for seat in record.seats]
            if game is None:
                why = f"its name is {record.game!r}, not d<deal>-ab or d<deal>-ba"
            elif record.seed != match_seed(seed, game[0]):
                why = f"its seed {record.seed} is not deal {game[0]}'s for the seed {seed}"
            elif seats != (list(names) if game[1] == 0 else list(names[::-1])):
                why = f"its seats are {', '.join(seats)}"
            else:
                state.add(*game, record)
                continue
            raise MatchJournalError(
                f"the journal holds game {record.game!r}, which is not one of this match's: {why}"
            )
        return state


def pair_score(first: GameRecord | GameSummary, second: GameRecord | GameSummary) -> float:
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
    played: Iterable[GameRecord | GameSummary] = (),
    on_game: Callable[[GameRecord], None] | None = None,
    on_pair: Callable[[MatchState], None] | None = None,
    on_note: OnNote | None = None,
    connect: Callable[[BotSpec], Connection] | None = None,
    executor: Executor | None = None,
) -> MatchState:
    """Play deals 0 to `max_pairs` - 1, each once with A in seat 0 and once with B in seat 0,
    until the SPRT accepts H0 or H1. `played` is the journal of an earlier run of the same
    match (recounted first, its games not played again); `on_game` hears every finished game
    before it counts (to journal it), `on_pair` every pair that counts. `executor` plays the
    games (default: `InProcess`, `jobs` at once, through `connect` when given)."""
    state = MatchState.recount(sprt, seed, (a.name, b.name), played)
    # Each deal is played twice, seats swapped: game_over must not tell its seed.
    config = msgspec.structs.replace(config or RefereeConfig(), reveal_seed=False)
    executor = InProcess(jobs, 2, on_note, connect) if executor is None else executor
    # The options as plain data, as a game job carries them to wherever it is played.
    plain: dict[str, Any] = (
        msgspec.to_builtins(options) if isinstance(options, msgspec.Struct) else dict(options or {})
    )

    def games() -> Iterator[tuple[int, int]]:
        """The games not yet played, deal by deal, until a verdict."""
        for deal in range(max_pairs):
            for order in (0, 1):
                if state.status != "continue":
                    return
                if (deal, order) not in state.played:
                    yield deal, order

    def job(game: tuple[int, int]) -> GameJob:
        deal, order = game
        bots = [a, b] if order == 0 else [b, a]
        return GameJob(ruleset, bots, plain, match_seed(seed, deal), config, game_name(deal, order))

    @trio.lowlevel.enable_ki_protection  # journaled and counted, or neither (Ctrl-C waits)
    def done(game: tuple[int, int], record: GameRecord) -> None:
        if game in state.played:  # played twice (an executor's retry): counted once
            return
        if on_game is not None:
            on_game(record)  # journaled before it counts
        if state.add(*game, record) and on_pair is not None:
            on_pair(state)

    # The two games of a deal never play at once (`arena.league.lineup`): one held back while
    # the other plays is dropped if the verdict comes first.
    await executor.run(games(), job, done, lambda game: state.status == "continue")
    return state
