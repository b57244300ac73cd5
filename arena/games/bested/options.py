"""The options of a `bested` game and the fixed rules they give: the decks per player
count (docs/rules.md §5.1), the deal, the meld types, the zeros rule, the threshold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from msgspec import Meta, Struct

from arena.games import melds as M


class BestedOptions(Struct, frozen=True, forbid_unknown_fields=True):
    gaps: Annotated[
        bool, Meta(description="suited gaps (ranks two apart) are a fourth meld type")
    ] = False
    zeros: Annotated[
        bool,
        Meta(description="add the 0s and deal one more card; a 0 also beats the highest rank"),
    ] = False
    threshold: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(
            description="end after the round a total reaches this (default 2p 10, 3p 20, "
            "4p 30, 5-6p 40)"
        ),
    ] = None


#: docs/rules.md §5.1 decks per player count: (ranks, suits, cards each); 6p has the 0s
DECKS: dict[int, tuple[range, str, int]] = {
    2: (range(1, 13), "SHD", 15),
    3: (range(1, 16), "SHD", 15),
    4: (range(1, 16), "SHDC", 15),
    5: (range(1, 18), "SHDC", 13),
    6: (range(0, 18), "SHDC", 12),
}
THRESHOLDS = {2: 10, 3: 20, 4: 30, 5: 40, 6: 40}
BET_CARDS = 5  # docs/rules.md §5.7: bet cards per player per round


@dataclass(frozen=True)
class Rules:
    """One game's fixed rules: deck, deal, meld types, zeros rule, threshold."""

    players: int
    deck: tuple[int, ...]
    hand_size: int
    kinds: tuple[int, ...]
    high: int  # the deck's highest rank
    zero_high: int | None  # the zeros rule: a 0 beats exactly this rank
    threshold: int
    gaps: bool
    zeros: bool


def bested_rules(players: int, opts: BestedOptions) -> Rules:
    ranks, suits, each = DECKS[players]
    if opts.zeros and players < 6:
        # docs/rules.md §5.10: add rank 0 in each suit in use and deal one more card each.
        ranks, each = range(0, ranks.stop), each + 1
    kinds = (M.SINGLE, M.SET, M.RUN) + ((M.GAP,) if opts.gaps else ())
    return Rules(
        players=players,
        deck=M.deck_ids(ranks, suits),
        hand_size=each,
        kinds=kinds,
        high=ranks[-1],
        zero_high=ranks[-1] if opts.zeros else None,
        threshold=opts.threshold or THRESHOLDS[players],
        gaps=opts.gaps,
        zeros=opts.zeros,
    )
