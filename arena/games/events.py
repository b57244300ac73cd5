"""Events that several game families share."""

from __future__ import annotations

from msgspec import Struct


class Dealt(Struct, tag="dealt", frozen=True):
    """Private: the hand this seat was dealt for the round."""

    round: int
    hand: list[str]

    def text(self) -> str:
        return f"is dealt {' '.join(self.hand)}"
