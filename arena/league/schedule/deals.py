"""Fair deals: the games of a table, every deal in every rotation of its seating, on seeds
derived from the tournament seed.

Every deal is played once per cyclic rotation of its table's seating, all on the same game
seed, so each bot sits in each seat exactly once per deal and the luck of the cards cancels.
Deal `d` starts from the seating rotated by `d` (so in a 2-seat game the bots take turns at
being seat 0 of the deal's first game).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec

Table = tuple[str, ...]


class Game(msgspec.Struct, frozen=True, gc=False):
    """One game to play: its place in the schedule, who sits where, and its deal's seed.
    (Not tracked by Python's cycle collector, which a million of them would keep busy: a
    game holds only strings and numbers, so it can be in no cycle.)"""

    id: str
    round: int
    table: int
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int


def rotations(bots: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The k cyclic rotations of a seating: each bot sits in each seat exactly once."""
    return [bots[i:] + bots[:i] for i in range(len(bots))]


def deal_seed(tournament_seed: int, key: str) -> int:
    """A 63-bit game seed from the tournament seed and a key (SHA-256: stable across runs)."""
    digest = hashlib.sha256(f"{tournament_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_id(round: int, table: int, deal: int, rotation: int) -> str:
    """The stable id of a game, unique within a tournament: "r0-t3-d1-s2"."""
    return f"r{round}-t{table}-d{deal}-s{rotation}"


def book_seed(book: Sequence[int], number: int) -> int:
    """Deal `number` of a deal file (`book`), which is cycled when it holds fewer deals."""
    return book[number % len(book)]


def table_games(
    tables: Sequence[Table],
    deals: int,
    seed: int,
    kind: str,
    round: int = 0,
    book: Sequence[int] = (),
    first_deal: int = 0,
) -> list[Game]:
    """All games of `tables`: deal by deal, table by table, every rotation of a deal together.

    This order interleaves the tables, so a tournament cut short has played every table
    about equally, and the rotations of a deal are contiguous, so luck has cancelled for
    every complete table-deal. Deal seeds depend on (kind, round, table, deal); with a deal
    file (`book`), deal d of every table is the file's deal `first_deal + d`.
    """
    games: list[Game] = []
    for deal in range(deals):
        for number, table in enumerate(tables):
            k = len(table)
            if book:
                game_seed = book_seed(book, first_deal + deal)
            else:
                game_seed = deal_seed(seed, f"{kind}:r{round}:t{number}:d{deal}")
            prefix = f"r{round}-t{number}-d{deal}-s"  # game_id, made once per deal
            for r in range(k):
                turn = (deal + r) % k  # the seating rotated by deal + r (`rotations`)
                seats = table[turn:] + table[:turn] if turn else table
                games.append(Game(f"{prefix}{r}", round, number, deal, r, seats, game_seed))
    return games


def solo(bots: Sequence[str], deals: int, seed: int, book: Sequence[int] = ()) -> list[Game]:
    """A solo ruleset's schedule: every bot plays the same seeded deals alone, deal by deal,
    so bots can be compared deal by deal (docs/rules.md §6.6). Table i is bot i; with a
    deal file (`book`), deal d is the file's deal d."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must differ")
    return [
        Game(
            id=game_id(0, table, deal, 0),
            round=0,
            table=table,
            deal=deal,
            rotation=0,
            seats=(name,),
            seed=book_seed(book, deal) if book else deal_seed(seed, f"solo:d{deal}"),
        )
        for deal in range(deals)
        for table, name in enumerate(bots)
    ]


def check_field(bots: Sequence[str], seats: int, deals: int) -> None:
    """Reject fields and table sizes that cannot make a schedule, in words."""
    if len(set(bots)) != len(bots):
        raise ValueError(f"bot names must be unique: {list(bots)}")
    if seats < 2:
        raise ValueError(f"a table needs at least 2 seats, not {seats}")
    if seats > len(bots):
        raise ValueError(f"{seats} seats need at least {seats} bots, there are {len(bots)}")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
