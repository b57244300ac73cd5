"""The ladder's matchmaker: which bots sit at the next table, on which deal, in which seats.

A pure module: no I/O, no clock, no threads; all its chance comes from the `random.Random`
the caller passes in, so a ladder replays the same tables from the same seed and state.

- `next_table` draws one table: the active bot with the fewest games (weighted, see below)
  is its seed, the other seats go to bots near the seed in rating, drawn from a window of
  random, heavy-tailed width so that every pair can still meet, never two bots of one author.
  The table comes with one deal played in every rotation of its seating (paired deals, as
  tournaments play them); the rotations are one unit, played one after another.
- `settled` says which places of a rating table are settled (separated from the bot above
  and the bot below at 95% likelihood of superiority) and `weights` turns that into the
  matchmaking weight that gives settled bots fewer games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from arena.games.errors import ArenaError
from arena.games.text import counted
from arena.league.ratings import RatingTable, normal_cdf
from arena.league.schedule.deals import rotations

#: the likelihood of superiority at which a place counts as settled
SETTLED_LOS = 0.95
#: the matchmaking weight of a settled bot: it plays about this share of an unsettled one's
#: games (a ladder's `[matchmaking] settled_share`)
SETTLED_SHARE = 0.25
#: how far (in weighted games) a bot may be ahead of the least played one and still fill a seat
SLACK = 24.0

Floats = npt.NDArray[np.float64]


class NotEnoughAuthors(ArenaError):
    """No seat count of the ladder can be filled: a table seats one bot per author, and the
    active bots belong to fewer authors than the smallest table has seats."""


class Entrant(msgspec.Struct, frozen=True):
    """One active bot as the matchmaker sees it: its id, its author, the games it has played
    so far, its rating and 95% error from the last fit (None before its first), whether it is
    suspended, and its matchmaking weight (`weights`: below 1 for a settled place). The draw
    reads the rating only; the error, with the rest of the fit, decides a settled place
    (`settled`), which comes in through the weight."""

    id: str
    author: str
    games: int = 0
    rating: float | None = None
    error: float | None = None
    suspended: bool = False
    weight: float = 1.0


class Table(msgspec.Struct, frozen=True):
    """The next table to play: its bots (in the seating of its first game), one deal's seed
    and key, and the deal's games: the seating in every rotation, each bot in each seat once.

    The games of one deal are one unit: play them one after another, never two at the same
    time (a bot's copies in two of them would hold every hand of the deal between them).
    `deal` is the key for that: hand the games to a `Lineup` with it as their deal, and give
    it to the rating fit as the results' `deal`, so the fit counts them as one draw of chance.
    """

    bots: tuple[str, ...]
    seed: int
    deal: str
    games: tuple[tuple[str, ...], ...]

    @property
    def seats(self) -> int:
        """The seat count of the table."""
        return len(self.bots)


def seat_counts(seats: int | Mapping[int, float]) -> dict[int, float]:
    """A ladder's seat counts with their weights: one count, or several weighted (as Halite
    plays 2 and 4), checked: counts of at least 2 seats, weights positive and finite."""
    counts = {seats: 1.0} if isinstance(seats, int) else dict(seats)
    if not counts:
        raise ArenaError("a ladder needs at least one seat count; give seats = 2, for example")
    for count, weight in counts.items():
        if count < 2:
            raise ArenaError(f"a table needs at least 2 seats, not {count}: raise the count")
        if not (weight > 0.0 and math.isfinite(weight)):
            raise ArenaError(
                f"the weight of {count}-seat tables must be a positive number, not {weight}"
            )
    return counts


def next_table(
    bots: Sequence[Entrant],
    seats: int | Mapping[int, float],
    rng: random.Random,
    *,
    slack: float = SLACK,
) -> Table:
    """The next table among `bots`, drawn with `rng`.

    The seat count is drawn by weight among the counts the active bots' authors can fill (a
    count needing more authors than there are is skipped; `NotEnoughAuthors` when none
    can be). The seed is the unsuspended bot with the fewest games over its weight, ties
    broken at random: the least played bot always plays next, however often it faults or
    however uncertain its rating (Halite's lesson). The other seats go to bots near the
    seed in rating: the candidates are ordered by distance from the seed's rating (ties at
    random), a window of the nearest W is drawn, W = ceil(needed / U) with U uniform in
    (0, 1] (a Pareto tail: half the tables look at most twice as far as they need, and any
    bot is within the window with probability at least needed / candidates), and the seats
    are filled from the window in random order, one bot per author, going on outwards when
    the window runs out of authors. Bots without a rating stand at the mean of the rated
    ones; a seed without one draws its opponents uniformly.

    A candidate must not be more than `slack` weighted games ahead of the seed, or else (when
    the seed is far behind, a newcomer) not ahead of the median bot: so no bot runs away from
    the others, the spread of weighted games stays within about `slack` and two tables'
    games, and newcomers meet the less played half of the field, not only each other. Only
    when the bots within reach are of too few authors are all bots candidates.
    """
    counts = seat_counts(seats)
    active = [bot for bot in bots if not bot.suspended]
    authors = [bot.author for bot in active]
    distinct = len(set(authors))
    fit = {count: weight for count, weight in counts.items() if count <= distinct}
    if not fit:
        smallest = min(counts)
        raise NotEnoughAuthors(
            f"a table of {smallest} seats needs bots of {smallest} authors, and the "
            f"{counted(len(active), 'active bot')} belong to "
            f"{counted(distinct, 'author')}: "
            "add authors' bots, lift suspensions, or lower the seat count"
        )
    sizes = sorted(fit)
    size = sizes[0] if len(sizes) == 1 else rng.choices(sizes, [fit[s] for s in sizes])[0]

    weight = np.array([bot.weight for bot in active], dtype=np.float64)
    load = np.divide(
        np.array([bot.games for bot in active], dtype=np.float64),
        weight,
        out=np.full(len(active), np.inf),
        where=weight > 0.0,
    )
    least = float(load.min())
    tied = np.flatnonzero(load == least)
    seed = int(tied[rng.randrange(len(tied))]) if len(tied) > 1 else int(tied[0])
    reach = max(least + slack, float(np.median(load)))

    rating = np.array(
        [math.nan if bot.rating is None else bot.rating for bot in active], dtype=np.float64
    )
    known = ~np.isnan(rating)
    if known[seed]:
        rating[~known] = rating[known].mean()  # unrated bots stand at the mean
        distance = np.abs(rating - rating[seed])
    else:
        distance = np.zeros(len(active))  # a seed without a rating: all equally near
    distance[seed] = np.inf
    near = np.where(load <= reach, distance, np.inf)

    need = size - 1
    width = math.ceil(need / (1.0 - rng.random()))
    order = _nearest(near, width, rng)
    chosen = [seed]
    taken = {authors[seed]}
    pools = (lambda: order, lambda: _outwards(near, order), lambda: _outwards(distance, order))
    for pool in pools:  # the window, then outwards within reach, then outwards beyond it
        for i in pool():
            if authors[i] not in taken:
                chosen.append(i)
                taken.add(authors[i])
                if len(chosen) == size:
                    break
        if len(chosen) == size:
            break
    rng.shuffle(chosen)
    seating = tuple(active[i].id for i in chosen)
    deal_seed = rng.getrandbits(63)
    return Table(
        bots=seating,
        seed=deal_seed,
        deal=f"{deal_seed:016x}",
        games=tuple(rotations(seating)),
    )


def _nearest(distance: Floats, width: int, rng: random.Random) -> list[int]:
    """The `width` bots of least finite `distance`, in random order: all of those nearer
    than the width-th, and a random sample of those as near as it (ties at random)."""
    finite = int(np.count_nonzero(np.isfinite(distance)))
    width = min(width, finite)
    if width == 0:
        return []
    edge = np.partition(distance, width - 1)[width - 1]
    inside = np.flatnonzero(distance < edge).tolist()
    level = np.flatnonzero(distance == edge).tolist()
    window = inside + rng.sample(level, width - len(inside))
    rng.shuffle(window)
    return window


def _outwards(distance: Floats, skip: list[int]) -> list[int]:
    """The bots of finite `distance` not in `skip`, nearest first: where the seats go once
    the window has run out of authors (rare, so a full sort is fine)."""
    seen = set(skip)
    order = np.argsort(distance, kind="stable").tolist()
    return [i for i in order if i not in seen and math.isfinite(distance[i])]


# -- settled places -------------------------------------------------------------------------


def settled(
    table: RatingTable,
    places: Sequence[int] | None = None,
    level: float = SETTLED_LOS,
    *,
    among: Sequence[str] | None = None,
) -> dict[str, bool]:
    """Whether each bot's place in `table` is settled, by bot name.

    A place is settled when the bot is separated from the bot above it and from the bot
    below it at `level` likelihood of superiority (LOS, from the fit's covariance: the
    normal probability that the upper rating is truly higher). The top bot needs only the
    bot below, the bottom one only the bot above. LOS, not non-overlapping error bars: LOS
    is the probability the question asks, with the two ratings' covariance in it; two 95%
    bars clear of each other is a much stricter test (about 99.5% for equal bars, which
    takes about 2.8 times the games to reach for the same gap) that ignores the covariance.

    `places`, when given, are the lines the organiser cares about instead of every place
    (20: the line under the top 20, the prize places, say): a bot is then settled when it
    is separated at `level` from the bot just across the nearest line above it and the
    nearest line below it (the lowest bot above the line, the highest below). Every place a
    line, the default, is the neighbour rule above.

    `among`, when given, are the bots whose places count (a ladder's active versions that
    have played): the others are left out of the order, and of the answer.
    """
    if not 0.5 < level < 1.0:
        raise ArenaError(f"the settled level is a probability above 0.5 and below 1, not {level}")
    chosen = None if among is None else set(among)
    at = [i for i, row in enumerate(table.ratings) if chosen is None or row.name in chosen]
    rows = [table.ratings[i] for i in at]
    n = len(rows)
    lines = range(1, n) if places is None else sorted({p for p in places if 0 < p < n})
    cov = table.covariance
    elo = [row.elo for row in table.ratings]

    def los(k: int, m: int) -> float:  # P(bot k above bot m), their places in `rows`
        i, j = at[k], at[m]
        var = cov[i][i] + cov[j][j] - 2.0 * cov[i][j]
        diff = elo[i] - elo[j]
        if var <= 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return normal_cdf(diff / math.sqrt(var))

    out: dict[str, bool] = {}
    above = -1  # the index into `lines` of the nearest line above bot i
    line_list = list(lines)
    for i, row in enumerate(rows):
        while above + 1 < len(line_list) and line_list[above + 1] <= i:
            above += 1
        ok = True
        if above >= 0:  # the line above bot i sits under place line_list[above]
            ok = los(line_list[above] - 1, i) >= level
        if ok and above + 1 < len(line_list):  # the line below bot i
            ok = los(i, line_list[above + 1]) >= level
        out[row.name] = ok
    return out


def weights(places: Mapping[str, bool], settled_weight: float = SETTLED_SHARE) -> dict[str, float]:
    """The matchmaking weight of each bot, from `settled`: 1 for an unsettled place, and
    `settled_weight` for a settled one. The matchmaker seeds tables by games over weight, so
    a settled bot plays about `settled_weight` times as often, and the games go where a
    place is still in doubt."""
    if not 0.0 < settled_weight <= 1.0:
        raise ArenaError(f"the weight of a settled bot is in (0, 1], not {settled_weight}")
    return {name: settled_weight if done else 1.0 for name, done in places.items()}
