"""Shared card and deck helpers: compact card ids with a text code per card.

A card's text code is its number followed by its suit letter ("7R", "12H");
a wild suit is written "*" (the Cheat Code is "0*"). Ids are assigned in the
canonical order (number descending, then suit order), so sorting ids sorts
cards the way a set's value is read: largest digit first.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from arena.games.base import IllegalAction

WILD_SUIT = "*"


@dataclass(frozen=True)
class CardTable:
    """The cards of one deck: id -> number, suit letter and code, and back."""

    suit_order: str
    numbers: tuple[int, ...]
    suits: tuple[str, ...]
    codes: tuple[str, ...]
    index: dict[str, int] = field(repr=False)

    @classmethod
    def build(cls, cards: Iterable[tuple[int, str]], suit_order: str) -> CardTable:
        """Number the given (number, suit) cards in canonical order."""

        def key(card: tuple[int, str]) -> tuple[int, int]:
            number, suit = card
            pos = len(suit_order) if suit == WILD_SUIT else suit_order.index(suit)
            return (-number, pos)

        ordered = sorted(set(cards), key=key)
        codes = tuple(f"{n}{s}" for n, s in ordered)
        return cls(
            suit_order=suit_order,
            numbers=tuple(n for n, _ in ordered),
            suits=tuple(s for _, s in ordered),
            codes=codes,
            index={c: i for i, c in enumerate(codes)},
        )

    def __len__(self) -> int:
        return len(self.codes)

    def encode(self, ids: Iterable[int]) -> list[str]:
        codes = self.codes
        return [codes[i] for i in ids]

    def parse(self, code: object) -> int | None:
        """The id of a card code, or None when this deck has no such card."""
        return self.index.get(code) if isinstance(code, str) else None

    def from_hand(
        self, action: object, codes: Iterable[object], hand: Collection[int], held: str
    ) -> list[int]:
        """The ids of a bot's card codes, each a card of this deck that is `held` ("in your
        hand"), none listed twice; otherwise IllegalAction for `action` says which is not."""
        ids = []
        for code in codes:
            c = self.parse(code)
            if c is None:
                raise IllegalAction(action, f"{code!r} is not a card of this deck")
            if c not in hand:
                raise IllegalAction(action, f"{code} is not {held}")
            ids.append(c)
        if len(set(ids)) != len(ids):
            raise IllegalAction(action, "the same card is listed twice")
        return ids


def deal(
    rng: random.Random, deck: Sequence[int], players: int, each: int
) -> tuple[list[list[int]], list[int]]:
    """Shuffle `deck` and deal `each` cards per seat; return the sorted hands and the rest."""
    cards = list(deck)
    rng.shuffle(cards)
    hands = [sorted(cards[i * each : (i + 1) * each]) for i in range(players)]
    return hands, cards[players * each :]
