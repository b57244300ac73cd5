"""The events of `bested`: what the seats are told, in order.

They hold strings, integers and lists of them only, so none can be in a reference cycle:
`gc=False` keeps them out of the cycle collector's walks (a game's log keeps thousands)."""

from __future__ import annotations

from msgspec import Struct

from arena.games.bested.actions import PassCardName
from arena.games.events import Dealt
from arena.games.melds import MeldName
from arena.games.text import counted


def _meld_text(meld: str, cards: tuple[str, ...], wilds: tuple[int, ...]) -> str:
    parts = list(cards) + [f"wild={r}" for r in wilds]
    return f"{meld} {' '.join(parts)}"


class RoundStarted(Struct, tag="round_started", frozen=True, gc=False):
    round: int
    leader: int
    hand_sizes: list[int]
    undealt: int
    pass_cards: list[PassCardName]

    def text(self) -> str:
        cards = ", ".join(self.pass_cards)
        undealt = counted(self.undealt, "card")
        return (
            f"round {self.round}: seat {self.leader} leads; {undealt} undealt; Pass Cards {cards}"
        )


class WildChosen(Struct, tag="wild_chosen", frozen=True, gc=False):
    """2 players: `seat` turned a card into a wild; `card` is shown to that seat only."""

    seat: int
    card: str | None

    def text(self) -> str:
        return f"seat {self.seat} turns {self.card or 'a card'} into a wild"


class TrickStarted(Struct, tag="trick_started", frozen=True, gc=False):
    leader: int

    def text(self) -> str:
        return f"seat {self.leader} leads a new trick"


class Played(Struct, tag="played", frozen=True, gc=False):
    """A meld played: natural cards, wilds' declared ranks and their printed cards."""

    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]

    def text(self) -> str:
        return f"seat {self.seat} plays {_meld_text(self.meld, self.cards, self.wilds)}"


class Passed(Struct, tag="passed", frozen=True, gc=False):
    seat: int
    pass_card: PassCardName | None

    def text(self) -> str:
        took = f" and takes {self.pass_card}" if self.pass_card else ""
        return f"seat {self.seat} passes{took}"


class Payout(Struct, frozen=True, gc=False):
    """A bet paid: its owner and the points."""

    owner: int
    points: int


class ShedOut(Struct, tag="shed_out", frozen=True, gc=False):
    """`seat` emptied its hand: its points, what bets on it paid, the Pass Card leaving
    the round (`at_once` false: it is held, and leaves once resolved)."""

    seat: int
    points: int
    payouts: list[Payout]
    removes: PassCardName | None
    at_once: bool

    def text(self) -> str:
        paid = "".join(f"; seat {p.owner} earns {p.points} for bets" for p in self.payouts)
        gone = ""
        if self.removes:
            gone = f"; {self.removes} leaves the round" + ("" if self.at_once else " once resolved")
        return f"seat {self.seat} sheds out and earns {self.points}{paid}{gone}"


class PassCardRemoved(Struct, tag="pass_card_removed", frozen=True, gc=False):
    pass_card: PassCardName

    def text(self) -> str:
        return f"{self.pass_card} leaves the round"


class TrickEnded(Struct, tag="trick_ended", frozen=True, gc=False):
    """Nobody is left in the trick; held Pass Cards resolve next (6, 5, 4, 3, Lead Next)."""

    last_passer: int | None

    def text(self) -> str:
        return "the trick ends; Pass Cards resolve"


class BetPlaced(Struct, tag="bet_placed", frozen=True, gc=False):
    seat: int
    on: int

    def text(self) -> str:
        return f"seat {self.seat} bets on seat {self.on}"


class Gave(Struct, tag="gave", frozen=True, gc=False):
    """`seat` gave a card to `to`; the card is shown to those two only (`wild`: it stays a
    wild in the receiver's hand)."""

    seat: int
    to: int
    card: str | None
    wild: bool | None

    def text(self) -> str:
        what = self.card or "a card"
        if self.wild:
            what += " (a wild)"
        return f"seat {self.seat} gives {what} to seat {self.to}"


class TookWild(Struct, tag="took_wild", frozen=True, gc=False):
    seat: int
    card: str

    def text(self) -> str:
        return f"seat {self.seat} takes {self.card} as a wild"


class Discarded(Struct, tag="discarded", frozen=True, gc=False):
    seat: int
    meld: MeldName
    cards: tuple[str, ...]
    wilds: tuple[int, ...]
    wild_cards: tuple[str, ...]

    def text(self) -> str:
        return f"seat {self.seat} discards {_meld_text(self.meld, self.cards, self.wilds)}"


class Declined(Struct, tag="declined", frozen=True, gc=False):
    seat: int
    pass_card: PassCardName

    def text(self) -> str:
        return f"seat {self.seat} does nothing with {self.pass_card}"


class RoundOver(Struct, tag="round_over", frozen=True, gc=False):
    """The round's points, the totals, the finishing order (the last holder last)."""

    round: int
    points: list[int]
    totals: list[int]
    order: list[int]
    game_over: bool

    def text(self) -> str:
        pts = " ".join(map(str, self.points))
        tots = " ".join(map(str, self.totals))
        return f"round {self.round} over: points {pts}; totals {tots}"


BestedEvent = (
    Dealt
    | RoundStarted
    | WildChosen
    | TrickStarted
    | Played
    | Passed
    | ShedOut
    | PassCardRemoved
    | TrickEnded
    | BetPlaced
    | Gave
    | TookWild
    | Discarded
    | Declined
    | RoundOver
)
