"""Golden playthroughs: fixed games whose every protocol line is stored under tests/golden/.

Each game in GAMES is refereed by the real referee between in-process bots whose
decisions are seeded (`arena.referee.local.play_local`; even seats answer by index, odd
seats by value with the cards listed in reverse). For every seat the golden file
holds the exact lines that seat received and sent, in order, then the record's
moves and result. The test plays each game again and compares line by line, so
a rules change, a message change or a leak shows up as a diff, reported as the
first differing line and the JSON path of the first differing value.

A second guard does not trust the golden files: replaying the record, it checks
that no line a seat receives holds another seat's private `dealt` event or a card
that was hidden from that seat at that moment (another seat's unplayed card, or
one set aside).

After a deliberate change to the rules or the protocol, regenerate and review:

    ARENA_UPDATE_GOLDEN=1 .venv/bin/pytest tests/referee/test_golden.py
    git diff --stat tests/golden docs/PROTOCOL.md

That rewrites tests/golden/*.jsonl (deleting files of games no longer listed) and
the transcript in docs/PROTOCOL.md (as `python -m arena.referee.transcript --update`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import pytest
import trio

from arena.games import get_ruleset
from arena.referee import transcript
from arena.referee.local import Decide, LocalBot, Sender, play_local, random_decider
from arena.referee.records import GameRecord
from arena.referee.replay import replay
from tests.helpers.messages import strings
from tests.helpers.paths import GOLDEN

UPDATE = os.environ.get("ARENA_UPDATE_GOLDEN") == "1"


class Game(NamedTuple):
    ruleset: str
    players: int
    options: dict[str, Any]
    seed: int

    @property
    def name(self) -> str:
        opts = "".join(f"-{k}{v}" for k, v in self.options.items())
        return f"{self.ruleset}-{self.players}p{opts}-seed{self.seed}"

    @property
    def path(self) -> Path:
        return GOLDEN / f"{self.name}.jsonl"


# Short games (seeds picked for short playthroughs among the first 40), so that the
# golden files stay small; both override-beta games of each size deal the Cheat Code.
GAMES = [
    Game("odin", 2, {"rounds": 1}, 17),
    Game("odin", 2, {"rounds": 2}, 38),  # a second round: reshuffle, new deal, next leader
    Game("odin", 4, {"rounds": 1}, 25),
    Game("odin", 4, {"rounds": 1}, 26),
    Game("odin-race", 3, {}, 19),
    Game("odin-race", 3, {}, 23),
    Game("override-beta", 2, {"rounds": 1}, 18),
    Game("override-beta", 2, {"rounds": 1}, 21),
    Game("override-beta", 4, {"rounds": 1}, 21),
    Game("override-beta", 4, {"rounds": 1}, 24),
]

Exchange = list[tuple[Sender, bytes]]


# --------------------------------------------------------------------------
# Playing a golden game


def by_value(seed: str) -> Decide:
    """Seeded random choices, answered as the action itself with its cards reversed
    (the referee must accept any order and record the canonical one)."""
    pick = random_decider(seed)

    def decide(request: dict[str, Any]) -> dict[str, Any]:
        action = dict(request["actions"][pick(request)])
        if "cards" in action:
            action["cards"] = action["cards"][::-1]
        return action

    return decide


_played: dict[str, tuple[GameRecord, tuple[LocalBot, ...]]] = {}


def play(game: Game) -> tuple[GameRecord, tuple[LocalBot, ...]]:
    """Play a golden game (once per test session)."""
    if game.name not in _played:
        deciders = [
            (by_value if seat % 2 else random_decider)(f"golden:{game.name}:{seat}")
            for seat in range(game.players)
        ]
        names = [f"{'value' if seat % 2 else 'index'}-{seat}" for seat in range(game.players)]
        record, bots = trio.run(
            lambda: play_local(
                game.ruleset, deciders, options=game.options, seed=game.seed, names=names
            )
        )
        _played[game.name] = record, tuple(bots)
    return _played[game.name]


def golden_lines(game: Game) -> list[bytes]:
    """The golden file's lines: a header, every seat's conversation, the moves, the result.
    Protocol lines are embedded byte for byte; times (which vary) are left out."""
    record, bots = play(game)
    enc = msgspec.json.encode
    out = [enc({"game": game.name, **game._asdict(), "bots": [b.spec.name for b in bots]})]
    for seat, bot in enumerate(bots):
        for sender, line in bot.exchange:
            out.append(b'{"seat":%d,"from":"%s","line":%s}' % (seat, sender.encode(), line))
    for number, move in enumerate(record.moves):
        out.append(enc({"move": number, "seat": move.seat, "by": move.by, "action": move.action}))
    result = {k: getattr(record, k) for k in ("scores", "game_ranks", "ranks", "faults")}
    out.append(enc({"result": result}))
    return out


# --------------------------------------------------------------------------
# Readable differences


def first_difference(old: Any, new: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """The JSON path of the first value that differs, with both values; None if equal."""
    if type(old) is not type(new):
        return path, old, new
    if isinstance(old, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            if key not in old or key not in new:
                return f"{path}.{key}", old.get(key, "<absent>"), new.get(key, "<absent>")
            found = first_difference(old[key], new[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(old, list):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(old) != len(new):
            return f"{path} (length)", len(old), len(new)
        return None
    return None if old == new else (path, old, new)


def describe_line(line: bytes) -> str:
    obj = json.loads(line)
    if "seat" in obj and "line" in obj:
        msg = obj["line"]
        what = msg.get("type", "?")
        if "decision" in msg:
            what += f" for decision {msg['decision']}"
        return f"seat {obj['seat']}, a line from the {obj['from']}: {what}"
    if "move" in obj:
        return f"the record's move {obj['move']}"
    return "the result" if "result" in obj else "the header"


def explain(path: Path, old: list[bytes], new: list[bytes]) -> str | None:
    """Words for the first difference between the stored and the regenerated lines."""
    for number, (a, b) in enumerate(zip(old, new, strict=False), 1):
        if a == b:
            continue
        where = f"{path.name} line {number} ({describe_line(a)})"
        diff = first_difference(json.loads(a), json.loads(b))
        if diff is None:  # the same JSON written differently (key order, number format)
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), 0)
            lo = max(0, at - 40)
            return (
                f"{where}: the same JSON written differently at byte {at}:\n"
                f"  golden: {a[lo : at + 40]!r}\n  now:    {b[lo : at + 40]!r}"
            )
        at, was, now = diff
        return (
            f"{where} differs at {at}:\n"
            f"  golden: {json.dumps(was)[:300]}\n"
            f"  now:    {json.dumps(now)[:300]}"
        )
    if len(old) != len(new):
        n = min(len(old), len(new))
        extra = old[n] if len(old) > n else new[n]
        side = "golden file" if len(old) > n else "regenerated game"
        return (
            f"{path.name}: the {side} has {abs(len(old) - len(new))} more lines, from line "
            f"{n + 1} ({describe_line(extra)}): {extra[:200].decode()}"
        )
    return None


# --------------------------------------------------------------------------
# The leak guard


def hidden_cards(
    game: Game, record: GameRecord
) -> tuple[list[list[dict[int, set[str]]]], dict[int, list[set[str]]]]:
    """Replay the record. For each seat, for each message it received after hello (every
    act, then game_over): the cards hidden from it at that moment, per round so far. A
    seat may know its own deal of a round and every card played face up in it; the rest
    of the deck in play (other hands, cards set aside) is hidden. Also: round -> the
    cards each seat was dealt."""
    ruleset = get_ruleset(game.ruleset)
    state = ruleset.new_game(game.players, game.options, game.seed)
    deck = set(state.rules.deck.table.encode(state.rules.cards))  # type: ignore[attr-defined]
    dealt: dict[int, list[set[str]]] = {}  # round -> each seat's deal
    played: dict[int, set[str]] = {}  # round -> every card played face up so far
    seen, current = 0, 0

    def catch_up() -> None:
        nonlocal seen, current
        for audience, event in state.events_since(seen):
            data = msgspec.to_builtins(event)
            if data["type"] == "dealt":
                assert audience is not None and len(audience) == 1
                current = data["round"]
                dealt.setdefault(current, [set() for _ in range(game.players)])
                dealt[current][audience[0]] = set(data["hand"])
                played.setdefault(current, set())
            elif data["type"] == "played":
                played[current].update(data["cards"])
        seen = state.event_count

    moments: list[list[dict[int, set[str]]]] = [[] for _ in range(game.players)]

    def snapshot(seat: int) -> None:
        moments[seat].append({r: deck - hands[seat] - played[r] for r, hands in dealt.items()})

    catch_up()
    for move in record.moves:
        if move.by == "bot":
            snapshot(move.seat)
        state.apply(msgspec.convert(move.action, ruleset.action_type))
        catch_up()
    for seat in range(game.players):
        snapshot(seat)  # game_over
    return moments, dealt


def leaks(game: Game, record: GameRecord, exchanges: list[Exchange]) -> list[str]:
    """Every hidden card or foreign deal in what the seats received."""
    moments, dealt = hidden_cards(game, record)
    found: list[str] = []
    for seat, exchange in enumerate(exchanges):
        received = [json.loads(line) for sender, line in exchange if sender == "referee"]
        hello, messages = received[0], received[1:]
        asked = [i for i, m in enumerate(record.moves) if m.seat == seat and m.by == "bot"]
        told = [m.get("decision") for m in messages]
        if hello["type"] != "hello" or told != [*asked, None]:
            found.append(f"seat {seat}: its messages do not match the record's moves")
            continue
        round_ = 1  # the round of the seat's last observation: events carry it on
        for msg, hidden in zip(messages, moments[seat], strict=True):
            label = f"seat {seat}, {msg['type']} {msg.get('decision', '')}".rstrip()

            def look(what: str, value: Any, rnd: int, label: str = label, hidden=hidden) -> None:
                bad = set(strings(value)) & hidden[rnd]
                if bad:
                    found.append(f"{label}: {what} shows hidden cards {sorted(bad)}")

            obs = msg.get("observation")
            if obs is not None:
                look("the observation", obs, obs["round"])
                look("the offered actions", msg["actions"], obs["round"])
            for event in msg["events"]:
                round_ = event.get("round", round_)
                if event["type"] == "dealt" and set(event["hand"]) != dealt[round_][seat]:
                    found.append(f"{label}: a dealt event that is not this seat's: {event}")
                look(f"the event {event}", event, round_)
            if obs is not None:
                round_ = obs["round"]
    return found


# --------------------------------------------------------------------------
# The tests


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_golden_playthrough(game: Game) -> None:
    new = golden_lines(game)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        game.path.write_bytes(b"\n".join(new) + b"\n")
        return
    if not game.path.is_file():
        pytest.fail(f"{game.path} is missing; create it with ARENA_UPDATE_GOLDEN=1", False)
    problem = explain(game.path, game.path.read_bytes().splitlines(), new)
    if problem:
        pytest.fail(
            f"{problem}\nIf the change is deliberate, regenerate with ARENA_UPDATE_GOLDEN=1 "
            "and review the diff.",
            pytrace=False,
        )


def test_no_stray_golden_files() -> None:
    stray = sorted(set(GOLDEN.glob("*.jsonl")) - {g.path for g in GAMES})
    if UPDATE:
        for path in stray:
            path.unlink()
        return
    assert not stray, f"golden files of games no longer in GAMES: {[p.name for p in stray]}"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_no_seat_is_told_what_it_may_not_see(game: Game) -> None:
    record, bots = play(game)
    assert not record.faults
    replay(record)  # the record reproduces through the rules engine
    assert leaks(game, record, [b.exchange for b in bots]) == []


def test_the_leak_guard_catches_a_leak() -> None:
    """Slip seat 1's deal into a message to seat 0, or one of its cards into seat 0's view."""
    game = GAMES[0]
    record, bots = play(game)
    seat0, seat1 = (list(b.exchange) for b in bots[:2])
    theirs = next(
        e for _, line in seat1 for e in json.loads(line).get("events", []) if e["type"] == "dealt"
    )
    act = next(i for i, (_, line) in enumerate(seat0) if line.startswith(b'{"type":"act"'))

    def tampered(change: Any) -> Exchange:
        msg = json.loads(seat0[act][1])
        change(msg)
        return [*seat0[:act], ("referee", json.dumps(msg).encode()), *seat0[act + 1 :]]

    foreign = tampered(lambda msg: msg["events"].append(theirs))
    assert any("not this seat's" in p for p in leaks(game, record, [foreign, seat1]))
    peeking = tampered(lambda msg: msg["observation"].update(middle=theirs["hand"][:1]))
    assert any("observation shows hidden" in p for p in leaks(game, record, [peeking, seat1]))
    assert leaks(game, record, [seat0, seat1]) == []


def test_protocol_md_holds_the_current_transcript() -> None:
    if UPDATE:
        transcript.update()
        return
    document = transcript.PROTOCOL_MD.read_text()
    assert transcript.current_block(document) == transcript.block(), (
        "docs/PROTOCOL.md's transcript is out of date: run "
        "`python -m arena.referee.transcript --update` (or ARENA_UPDATE_GOLDEN=1) and review it"
    )
