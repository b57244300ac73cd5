"""The actions of `bested`: the JSON a bot writes (`play` and `pass` are shared with
`bested-solo`), and the Pass Cards they name.

They hold strings and integers only, so none can be in a reference cycle: `gc=False`
keeps them out of the cycle collector's walks (the memo of meld_actions.py and every
game's history keep many)."""

from __future__ import annotations

from functools import cache
from typing import Literal, NamedTuple

from msgspec import Struct

from arena.games.melds import MeldName, card_table

PassCardName = Literal["lead_next", "wild", "discard_meld", "bet_wild", "give_bet"]
#: Pass Cards by the player count printed on them (docs/rules.md §5.1): 2 Lead Next .. 6
PASS_CARDS: dict[int, PassCardName] = {
    2: "lead_next",
    3: "wild",
    4: "discard_meld",
    5: "bet_wild",
    6: "give_bet",
}
PASS_NUMBER: dict[str, int] = {name: n for n, name in PASS_CARDS.items()}
LEAD_NEXT = 2


class ChooseWild(Struct, tag="choose_wild", frozen=True, gc=False):
    """2 players, round start: secretly turn this card of your hand into a wild."""

    card: str


class Play(Struct, tag="play", frozen=True, gc=False):
    """Lead or beat with a meld: natural cards plus wilds declared as these ranks."""

    meld: MeldName
    cards: tuple[str, ...] = ()
    wilds: tuple[int, ...] = ()


class Pass(Struct, tag="pass", frozen=True, gc=False):
    """Hard pass: out of the trick; take this available Pass Card (null: none is due)."""

    pass_card: PassCardName | None = None


class Bet(Struct, tag="bet", frozen=True, gc=False):
    """Pass Card 6 or 5: put one of your bet cards on a player still holding cards."""

    on: int


class Give(Struct, tag="give", frozen=True, gc=False):
    """Pass Card 6: give this card of your hand to another player still holding cards."""

    card: str
    to: int


class TakeWild(Struct, tag="take_wild", frozen=True, gc=False):
    """Pass Card 5 or 3: take this card played in the trick into your hand as a wild."""

    card: str


class Discard(Struct, tag="discard", frozen=True, gc=False):
    """Pass Card 4: discard this meld from your hand, face up."""

    meld: MeldName
    cards: tuple[str, ...] = ()
    wilds: tuple[int, ...] = ()


class Decline(Struct, tag="decline", frozen=True, gc=False):
    """Pass Card 5 or 3: do nothing with it."""


class Swap(Struct, tag="swap", frozen=True, gc=False):
    """After a play or a discard (phase `swap`): put this natural card of your pending
    meld back in your hand and one of your wilds, declared as its rank, in its place.

    arena's ruling: the plays offered use wilds only where no natural of the hand could
    stand; a wild where a natural could stand is this follow-up, which keeps the offered
    lists small while every legal meld stays reachable."""

    card: str


class Done(Struct, tag="done", frozen=True, gc=False):
    """After a play or a discard (phase `swap`): the pending meld is final as it stands."""


BestedAction = ChooseWild | Play | Pass | Bet | Give | TakeWild | Discard | Decline | Swap | Done
_DECLINE = Decline()
_DONE = Done()
_PASS_NONE = Pass(None)
_PASSES = {name: Pass(name) for name in PASS_CARDS.values()}
MAX_SEATS = max(PASS_CARDS)


class CardActions(NamedTuple):
    """The actions naming one card (or one seat), built once: legal lists are built at
    every decision, and the same Structs serve every game (they are immutable)."""

    choose_wild: tuple[ChooseWild, ...]  # by card id
    take_wild: tuple[TakeWild, ...]  # by card id
    swap: tuple[Swap, ...]  # by card id
    give: tuple[tuple[Give, ...], ...]  # by card id, then the seat given to
    bet: tuple[Bet, ...]  # by the seat bet on


@cache
def card_actions() -> CardActions:
    codes = card_table().codes
    seats = range(MAX_SEATS)
    return CardActions(
        tuple(ChooseWild(c) for c in codes),
        tuple(TakeWild(c) for c in codes),
        tuple(Swap(c) for c in codes),
        tuple(tuple(Give(c, s) for s in seats) for c in codes),
        tuple(Bet(s) for s in seats),
    )
