"""The replay viewer's frames (`arena.referee.frames`): every seat's view at every step is
exactly what the rules give that seat (its observation, the events it was told), and the
data a seat's view is drawn from never holds another seat's hidden card.

The golden check replays each record independently here, with the full state, and works
out which cards each seat holds that another seat was never told of since its last deal: a
card code of those may appear nowhere in that other seat's view (its rebuilt observation,
the events it was told, the actions it made)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from arena.games.text import event_text
from arena.league.report.replays import frame_record
from arena.referee.frames import Replay, frames
from arena.referee.records import GameRecord
from arena.referee.replay import steps
from tests.helpers.reports import codes, hidden_cards, random_record

#: (ruleset, players, options): every family, the 2-player Bested wild chosen in secret and
#: the 6-player Bested whose Pass Card gives a card to one seat in front of another
GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("odin", 3, {"rounds": 2}),
    ("odin-race", 2, {}),
    ("override-beta", 4, {"rounds": 1}),
    ("override-classic", 2, {}),
    ("override-original", 2, {}),
    ("bested", 2, {}),
    ("bested", 6, {}),
    ("bested-solo", 1, {"rounds": 3}),
]


def record_of(ruleset: str, players: int, options: dict[str, Any], seed: int) -> GameRecord:
    bots = [f"bot-{i}" for i in range(players)]
    return random_record(ruleset, bots, seed, options=options, fault_at=(0, 5), game="g")


def observed(state: Any, seat: int) -> dict[str, Any]:
    """A seat's observation as JSON, without its type tag (which the frames leave out: the
    viewer knows the game from the ruleset)."""
    out: dict[str, Any] = msgspec.to_builtins(state.observation(seat))
    out.pop("type", None)
    return out


def told_to(replay: Replay, k: int, seat: int) -> list[str]:
    """The events of step k told to `seat`, in words."""
    start = replay.ends[k - 1] if k else 0
    return [t.text for t in replay.events[start : replay.ends[k]] if t.to is None or seat in t.to]


def rebuilt(replay: Replay) -> list[list[dict[str, Any]]]:
    """Each seat's whole observation at each step, as the viewer rebuilds it."""
    out: list[list[dict[str, Any]]] = []
    now: list[dict[str, Any]] = [{} for _ in range(replay.players)]
    for k in range(len(replay.ends)):
        own = replay.own[k] or [{} for _ in range(replay.players)]
        now = [{**now[s], **replay.shared[k], **own[s]} for s in range(replay.players)]
        out.append(now)
    return out


@pytest.mark.parametrize(("ruleset", "players", "options"), GAMES)
@pytest.mark.parametrize("seed", [3, 11])
def test_each_seat_sees_at_each_step_what_the_rules_give_it(
    ruleset: str, players: int, options: dict[str, Any], seed: int
) -> None:
    record = record_of(ruleset, players, options, seed)
    replay = frames(record)
    views = rebuilt(replay)
    assert len(views) == len(record.moves) + 1 == len(replay.ends)
    seen = 0
    for k, (_number, state) in enumerate(steps(record)):
        for seat in range(players):
            assert views[k][seat] == observed(state, seat), (k, seat)
            told = told_to(replay, k, seat)
            assert len(told) == len(state.events_for(seat, seen)), (k, seat)
            assert told == [
                event_text(event, audience)
                for audience, event in state.events_since(seen)
                if audience is None or seat in audience
            ], (k, seat)
        seen = state.event_count
    assert replay.seats == [m.seat for m in record.moves]
    assert replay.fallback == [n for n, m in enumerate(record.moves) if m.by == "fallback"]
    assert replay.fallback, "the record has a fault: the fallback's moves are listed"
    assert replay.scores == record.scores and replay.ranks == record.ranks


@pytest.mark.parametrize(("ruleset", "players", "options"), [g for g in GAMES if g[1] > 1])
@pytest.mark.parametrize("seed", [5, 8, 13])
def test_a_seats_view_never_holds_another_seats_hidden_card(
    ruleset: str, players: int, options: dict[str, Any], seed: int
) -> None:
    record = record_of(ruleset, players, options, seed)
    replay = frames(record)
    views = rebuilt(replay)
    hidden = hidden_cards(record)
    leaks_checked = 0
    for k in range(len(views)):
        for s in range(players):
            told = told_to(replay, k, s)
            deals = [i for i, text in enumerate(told) if text.startswith(f"seat {s} is dealt")]
            own_action = [replay.actions[k - 1]] if k and replay.seats[k - 1] == s else []
            if deals:  # a new deal: the move and what went before it are the last round's
                told, own_action = told[deals[-1] :], []
            shown = codes([views[k][s], told, own_action])
            for o in range(players):
                secret = hidden[k][o * players + s]
                leaks_checked += len(secret)
                assert not shown & secret, f"step {k}: seat {s} sees seat {o}'s {shown & secret}"
    assert leaks_checked  # the check had hidden cards to look for


def test_a_record_that_does_not_reproduce_has_no_frames() -> None:
    record = record_of("odin", 2, {"rounds": 1}, 4)
    bad = msgspec.structs.replace(record, moves=record.moves[:-3])
    why = frame_record(bad)
    assert isinstance(why, str) and "does not reproduce" in why
    assert isinstance(frame_record(record), bytes)
