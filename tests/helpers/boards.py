"""Finished games made by hand, with chosen seats, ranks and faults, for standings tests."""

from __future__ import annotations

from collections.abc import Sequence

from arena.referee.records import Fault, GameRecord, SeatRecord


def made_game(
    bots: Sequence[str],
    ranks: Sequence[int],
    *,
    faulted: Sequence[str] = (),
    game: str = "",
    seed: int = 0,
    scores: Sequence[float] | None = None,
    error: str | None = None,
) -> GameRecord:
    """A finished game: `bots` seat by seat, their ranks after the fault policy, and a crash
    of each bot named in `faulted` (its ranks are as given: pass the faulter's last place)."""
    faults = [
        Fault(seat, name, "crash", 0, "exited") for seat, name in enumerate(bots) if name in faulted
    ]
    return GameRecord(
        ruleset="odin",
        options={},
        seed=seed,
        players=len(bots),
        seats=[SeatRecord(i, name, ["bot"]) for i, name in enumerate(bots)],
        moves=[],
        faults=faults,
        scores=list(scores) if scores is not None else [0.0] * len(bots),
        game_ranks=list(ranks),
        ranks=list(ranks),
        seconds=0.1,
        stderr=[""] * len(bots),
        game=game,
        error=error,
    )


def table_deal(
    round: int,
    table: Sequence[str],
    places: Sequence[Sequence[int]],
    *,
    faulted: Sequence[str] = (),
    deal: int = 0,
    number: int = 0,
    seed: int | None = None,
) -> list[GameRecord]:
    """One deal of a table in every rotation, as a tournament plays it: rotation r seats
    `table[r:] + table[:r]`; `places[r]` gives each bot of `table` (in `table`'s order) its
    rank in rotation r. Game ids are the schedule's ("r1-t0-d0-s2", table `number`)."""
    games = []
    k = len(table)
    for r in range(k):
        seats = [*table[r:], *table[:r]]
        rank_of = dict(zip(table, places[r], strict=True))
        games.append(
            made_game(
                seats,
                [rank_of[name] for name in seats],
                faulted=faulted,
                game=f"r{round}-t{number}-d{deal}-s{r}",
                seed=seed if seed is not None else 1000 * round + 100 * number + deal,
            )
        )
    return games
