"""Tournament formats behind one interface: a `Schedule` plans the games of each round.

A fixed format (round robin, gauntlet, solo) plans every game at once, as round 0. Swiss
plans round by round, each round from the results of the rounds before it. The tournament
runner only asks a schedule for its rounds in order, so a new format is a `Schedule`
subclass and one entry in `SCHEDULES`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

from arena.league.config import TournamentConfig
from arena.league.schedule.deals import Game, solo
from arena.league.schedule.standings import bye_value, byes_from, standings_from
from arena.league.schedule.swiss import swiss_round
from arena.league.schedule.tables import gauntlet, round_robin

#: a finished game's ranks per seat, by game id (1 = best)
Ranks = Mapping[str, Sequence[int]]


class Schedule(ABC):
    """Which games a tournament plays, planned one round at a time."""

    #: the rounds, in the order they are planned and played (`Game.round` of their games)
    rounds: Sequence[int]

    @abstractmethod
    def total(self) -> int:
        """How many games the tournament plays in all."""

    @abstractmethod
    def plan(self, round: int, planned: Sequence[Game], ranks: Ranks) -> list[Game]:
        """The games of `round`, given every game planned so far (by earlier runs too) and the
        ranks of the finished ones; every game of the earlier rounds has finished."""


class FixedSchedule(Schedule):
    """A schedule known from the start: one round (0) holding every game."""

    rounds = (0,)

    def __init__(self, games: list[Game]) -> None:
        self.games = games

    def total(self) -> int:
        return len(self.games)

    def plan(self, round: int, planned: Sequence[Game], ranks: Ranks) -> list[Game]:
        return self.games


class SwissSchedule(Schedule):
    """Swiss rounds 1..n, each paired from the standings after the rounds before it."""

    def __init__(
        self,
        bots: Sequence[str],
        seats: int,
        deals: int,
        seed: int,
        rounds: int,
        book: Sequence[int] = (),
    ) -> None:
        self.bots, self.seats, self.deals, self.seed = list(bots), seats, deals, seed
        self.rounds = range(1, rounds + 1)
        self.book = book

    def per_round(self) -> int:
        """Games in each round: every table plays every deal in every rotation."""
        return len(self.bots) // self.seats * self.deals * self.seats

    def total(self) -> int:
        return len(self.rounds) * self.per_round()

    def plan(self, round: int, planned: Sequence[Game], ranks: Ranks) -> list[Game]:
        games = [g for g in planned if g.round == round]
        if len(games) == self.per_round():  # a round planned whole is read back as it is
            return games
        # Not planned yet, or its plan was cut short by a crash: pair it from the results.
        earlier = [g for g in planned if g.round < round]
        standings = standings_from(
            [(g, ranks[g.id]) for g in earlier],
            byes_from(self.bots, earlier),
            bye_points=bye_value(self.seats, self.deals),
        )
        games, _ = swiss_round(
            self.bots, standings, round, self.seats, self.deals, self.seed, self.book
        )
        return games


def _round_robin(c: TournamentConfig, bots: Sequence[str]) -> Schedule:
    book = c.deal_seeds or ()
    if c.seats == 1:  # a solo ruleset: every bot plays the same deals alone
        return FixedSchedule(solo(bots, c.deals, c.seed, book))
    return FixedSchedule(round_robin(bots, c.seats, c.deals, c.seed, c.max_tables, book))


def _gauntlet(c: TournamentConfig, bots: Sequence[str]) -> Schedule:
    assert c.challenger is not None  # the config's checks require one for a gauntlet
    field = [n for n in bots if n != c.challenger]
    book = c.deal_seeds or ()
    return FixedSchedule(
        gauntlet(c.challenger, field, c.seats, c.deals, c.seed, c.max_tables, book)
    )


def _swiss(c: TournamentConfig, bots: Sequence[str]) -> Schedule:
    return SwissSchedule(bots, c.seats, c.deals, c.seed, c.rounds, c.deal_seeds or ())


#: every tournament format (`format` in a tournament file) and how its schedule is made
SCHEDULES: dict[str, Callable[[TournamentConfig, Sequence[str]], Schedule]] = {
    "round-robin": _round_robin,
    "gauntlet": _gauntlet,
    "swiss": _swiss,
}


def schedule_for(config: TournamentConfig, bots: Sequence[str]) -> Schedule:
    """The schedule of a tournament of `bots` (names, in the file's order) under `config`."""
    return SCHEDULES[config.format](config, bots)
