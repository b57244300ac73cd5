"""A game record as the replay viewer's frames: after every move, what each seat sees and was
told, taken from the rules engine itself.

The frames are built by walking the record through `arena.referee.replay.steps` (so a record
that does not reproduce has none) and asking the game, after every move, for each seat's
`observation(seat)` and the events `events_for(seat)` gives it: exactly what the referee
sends that seat's bot. No frame is read off the full state, so a seat's view cannot hold a
card the rules hide from it; the view of every seat at once is the seats' own views side by
side. The move's action is kept apart (`Replay.actions`): it may name a hidden card (a 2-player
Bested wild, a card given), so the viewer shows it only to the seat that made it and in the
view of all seats, while the others see the events they were told.

Observations repeat most of their fields from one move to the next, so a step holds only
the fields that changed since the step before, once for every seat when they all see the
same value and per seat otherwise; the viewer rebuilds each whole observation by applying
them in order. A game's events are listed once (`Replay.events`), each with the seats it was
told to, and a step names the end of its slice of that list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from arena.games.base import GameState
from arena.games.text import event_text
from arena.referee.export import action_words
from arena.referee.records import Fault, GameRecord
from arena.referee.replay import steps


class Told(msgspec.Struct, frozen=True, array_like=True):
    """One event in words, and the seats it was told to (None: every seat)."""

    text: str
    to: list[int] | None


class Replay(msgspec.Struct, frozen=True):
    """One recorded game as the viewer shows it: who played, the result, the faults, then
    the game step by step, in columns (a column of like values compresses better than a
    list of mixed steps).

    Step 0 is the game before the first move; step k + 1 follows move (decision) k. For
    step k: `ends[k]` is where its events end in `events` (they start where step k - 1's
    end). The fields of the seats' observations that changed since step k - 1 are in
    `shared[k]` when every seat now sees the same value (the public table), else in
    `own[k][s]`, seat s's alone (its hand; `own[k]` is None when no seat has one): seat s's
    observation at step k is its observation at step k - 1 updated with `shared[k]`, then
    with `own[k][s]` (at step 0, every field is there).

    For move m: `seats[m]` made it, `actions[m]` is the move in words (shown only to that
    seat and in the view of every seat), `ms[m]` is the bot's think time; `fallback` lists
    the moves the fallback chose for a faulted bot."""

    ruleset: str
    options: dict[str, Any]
    seed: int
    game: str
    players: int
    bots: list[str]
    scores: list[float]
    ranks: list[int]
    game_ranks: list[int]
    error: str | None
    faults: list[Fault]
    events: list[Told]
    ends: list[int]
    shared: list[dict[str, Any]]
    own: list[list[dict[str, Any]] | None]
    seats: list[int]
    actions: list[str]
    ms: list[float]
    fallback: list[int]


def _told(state: GameState[Any, Any], start: int) -> list[Told]:
    """The events from position `start` of the game's log, each with the seats that
    `events_for` hands it to (a seat's list is a subsequence of the log, in its order)."""
    new = state.events_since(start)
    if not new:
        return []
    seen_by: list[list[int]] = [[] for _ in new]
    for seat in range(state.players):
        mine = state.events_for(seat, start)
        if len(mine) == len(new):  # every event (the usual case: they are all public)
            for seats in seen_by:
                seats.append(seat)
            continue
        at = 0
        for position, (_audience, event) in enumerate(new):
            if at < len(mine) and mine[at] is event:
                seen_by[position].append(seat)
                at += 1
        if at != len(mine):  # the rules' filter gave an event the log does not hold
            raise AssertionError(f"seat {seat}'s events are not a subsequence of the log")
    everyone = list(range(state.players))
    return [
        Told(event_text(event, audience), None if seats == everyone else seats)
        for (audience, event), seats in zip(new, seen_by, strict=True)
    ]


def _views(
    state: GameState[Any, Any], last: list[tuple[Any, ...]] | None
) -> tuple[list[tuple[Any, ...]], dict[str, Any], list[dict[str, Any]]]:
    """Every seat's observation now, field by field (`now[i]`: field i's value in each
    seat's observation), and what changed since `last`: the fields whose new value every
    seat shares, and each seat's own. This runs at every move of every game a report
    shows, so whole rows of values are compared at once and only changed ones converted."""
    observations = [msgspec.structs.astuple(state.observation(s)) for s in range(state.players)]
    names = state.observation_type.__struct_fields__
    now = list(zip(*observations, strict=True))
    if last is None:
        changed: Iterable[int] = range(len(now))
    else:
        changed = [i for i, (new, old) in enumerate(zip(now, last, strict=True)) if new != old]
    shared: dict[str, Any] = {}
    own: list[dict[str, Any]] = [{} for _ in observations]
    seats = len(observations)
    for i in changed:
        values = now[i]
        if values.count(values[0]) == seats:
            shared[names[i]] = msgspec.to_builtins(values[0])
            continue
        for seat, value in enumerate(values):
            if last is None or value != last[i][seat]:
                own[seat][names[i]] = msgspec.to_builtins(value)
    return now, shared, own


def frames(record: GameRecord) -> Replay:
    """The viewer's frames of one record (see the module docstring). ReplayError when the
    record does not reproduce, GameConfigError when its ruleset or options are not arena's."""
    events: list[Told] = []
    ends: list[int] = []
    shared: list[dict[str, Any]] = []
    own: list[list[dict[str, Any]] | None] = []
    last: list[tuple[Any, ...]] | None = None
    seen = 0
    for _number, state in steps(record):
        events.extend(_told(state, seen))
        seen = state.event_count
        last, common, mine = _views(state, last)
        ends.append(len(events))
        shared.append(common)
        own.append(mine if any(mine) else None)
    moves = record.moves
    return Replay(
        ruleset=record.ruleset,
        options=record.options,
        seed=record.seed,
        game=record.game,
        players=record.players,
        bots=[seat.bot for seat in sorted(record.seats, key=lambda s: s.seat)],
        scores=record.scores,
        ranks=record.ranks,
        game_ranks=record.game_ranks,
        error=record.error,
        faults=record.faults,
        events=events,
        ends=ends,
        shared=shared,
        own=own,
        seats=[move.seat for move in moves],
        actions=[action_words(move.action) for move in moves],
        ms=[round(move.ms, 1) for move in moves],
        fallback=[number for number, move in enumerate(moves) if move.by == "fallback"],
    )
