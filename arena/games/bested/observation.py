"""What one seat of `bested` sees: the observation Struct and its parts, and the phases
(by name for the bots, by number inside the state).

The parts (a play, a Pass Card's or a bet's view) hold strings and integers only, so
`gc=False` keeps them out of the cycle collector's walks (tables and tricks keep many)."""

from __future__ import annotations

from functools import cache
from typing import Literal

from msgspec import Struct

from arena.games.bested.actions import PASS_CARDS, PassCardName
from arena.games.melds import KIND_NAMES, Meld, MeldName, code_of


class TablePlay(Struct, frozen=True, gc=False):
    """One play of the current trick."""

    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]


PassState = Literal["available", "held", "removed"]


class PassCardView(Struct, frozen=True, gc=False):
    """A Pass Card of this round: in the centre, held (unresolved) or removed."""

    card: PassCardName
    number: int
    state: PassState
    holder: int | None
    leaving: bool  # held, and removed from the round once resolved


class BetView(Struct, frozen=True, gc=False):
    owner: int
    on: int


Phase = Literal["choose_wild", "lead", "play", "resolve", "over", "swap"]
_PHASES: tuple[Phase, ...] = ("choose_wild", "lead", "play", "resolve", "over", "swap")
CHOOSE, LEAD, PLAY, RESOLVE, OVER, SWAP = range(6)


class BestedObservation(Struct, tag="bested", frozen=True):
    """What one seat sees: its own hand and wilds, and the public table."""

    ruleset: str
    seat: int
    players: int
    round: int
    phase: Phase
    to_act: int | None
    resolving: PassCardName | None
    hand: list[str]
    wilds: list[str]
    hand_sizes: list[int]
    trick_leader: int | None
    beat: TablePlay | None
    plays: list[TablePlay]
    #: phase `swap`, to the seat deciding only: its meld awaiting swaps (not yet public)
    pending: TablePlay | None
    takeable: list[str]
    in_trick: list[int]
    passed: list[int]
    shed: list[int]
    pass_cards: list[PassCardView]
    bets: list[BetView]
    bets_left: list[int]
    round_points: list[int]
    totals: list[int]
    threshold: int
    round_leader: int
    undealt: int
    gaps: bool
    zeros: bool
    high: int


def table_play(seat: int, meld: Meld, used: tuple[int, ...]) -> TablePlay:
    return TablePlay(
        seat,
        KIND_NAMES[meld.kind],
        tuple(map(code_of, meld.naturals)),
        meld.wilds,
        tuple(map(code_of, used)) if used else (),
    )


@cache
def pass_card_view(
    number: int, state: PassState, holder: int | None, leaving: bool
) -> PassCardView:
    """A Pass Card's view, shared: observations are built at every decision and a game
    has few distinct views."""
    return PassCardView(PASS_CARDS[number], number, state, holder, leaving)


@cache
def bet_view(owner: int, on: int) -> BetView:
    """A bet's view, shared like `pass_card_view`'s."""
    return BetView(owner, on)
