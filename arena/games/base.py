"""The game API every ruleset implements (modelled on OpenSpiel's state API).

A state is pure, synchronous rules code: it knows whose decision it is, the
complete list of legal actions, what each seat may see, and the outcome. All
randomness comes from a `random.Random` seeded at construction, so a
(ruleset, options, seed) triple plus the action list replays a game exactly.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

A = TypeVar("A", bound=msgspec.Struct)
Obs = TypeVar("Obs", bound=msgspec.Struct)

_encoder = msgspec.json.Encoder()


def describe(value: Any) -> str:
    """Render an action or event as its JSON form, for error messages and logs."""
    try:
        return _encoder.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(value)


class IllegalAction(ValueError):
    """An action the rules do not allow at this decision; says which and why."""

    def __init__(self, action: Any, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"illegal action {describe(action)}: {reason}")


class GameFinished(RuntimeError):
    """An action was offered to a game that has already ended."""


class Outcome(msgspec.Struct, frozen=True):
    """Final result: raw scores and a rank per seat (1 = best; ties share, next skips)."""

    scores: tuple[int | float, ...]
    ranks: tuple[int, ...]


def ranks_from_scores(scores: Sequence[float], *, higher_is_better: bool) -> tuple[int, ...]:
    """Standard competition ranking (1, 1, 3), as docs/rules.md §1.5 requires."""
    if higher_is_better:
        return tuple(1 + sum(1 for o in scores if o > s) for s in scores)
    return tuple(1 + sum(1 for o in scores if o < s) for s in scores)


Audience = tuple[int, ...] | None  # None: every seat sees the event
Action = msgspec.Struct  # any ruleset's action: each ruleset's action types are Structs


class GameState(ABC, Generic[A, Obs]):
    """One game in progress. Subclasses hold the rules of one ruleset family."""

    #: the union of this family's action Structs (used to decode a bot's reply)
    action_type: ClassVar[Any]
    #: the union of this family's event Structs
    event_type: ClassVar[Any]
    #: the observation Struct type
    observation_type: ClassVar[Any]

    def __init__(self, ruleset: str, players: int, seed: int) -> None:
        self.ruleset = ruleset
        self.players = players
        self.seed = seed
        self.rng = random.Random(seed)
        #: every applied action, in order, as (seat, canonical action)
        self.history: list[tuple[int, A]] = []
        self._log: list[tuple[Audience, msgspec.Struct]] = []

    # -- whose turn, what may be done -------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat to decide now, or None once the game is over."""

    @property
    def is_terminal(self) -> bool:
        return self.current_player is None

    @abstractmethod
    def legal_actions(self) -> list[A]:
        """Every legal action at this decision: no duplicates, stable order."""

    def apply(self, action: A) -> None:
        """Play `action` for the current player; raises IllegalAction with the reason."""
        seat = self.current_player
        if seat is None:
            raise GameFinished(f"the game is over; cannot apply {describe(action)}")
        canonical = self._apply(seat, action)
        self.history.append((seat, canonical))

    @abstractmethod
    def _apply(self, seat: int, action: A) -> A:
        """Check and play `action` for `seat`; return its canonical form."""

    # -- what each seat may see -------------------------------------------
    @abstractmethod
    def observation(self, seat: int) -> Obs:
        """Everything `seat` may see now, and nothing it may not."""

    def _emit(self, event: msgspec.Struct, audience: Audience = None) -> None:
        self._log.append((audience, event))

    @property
    def event_count(self) -> int:
        """Length of the full event log; pass it back as `start` to get only newer events."""
        return len(self._log)

    def events_since(self, start: int = 0) -> list[tuple[Audience, msgspec.Struct]]:
        """Every event from position `start`, with who may see it (for records and replays)."""
        return self._log[start:]

    def events_for(self, seat: int, start: int = 0) -> list[msgspec.Struct]:
        """The events from position `start` of the log that `seat` is allowed to see."""
        return [e for aud, e in self._log[start:] if aud is None or seat in aud]

    def render(self) -> str | None:
        """A plain-text picture of the public table, for people; None when the game has none."""
        return None

    # -- result -----------------------------------------------------------
    @abstractmethod
    def outcome(self) -> Outcome:
        """Scores and ranks; only once the game is over."""

    def _require_terminal(self) -> None:
        if not self.is_terminal:
            raise RuntimeError("the game is not over yet")
