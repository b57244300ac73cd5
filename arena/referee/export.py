"""A game record as a text log for people, the way PGN is for chess (`arena export`).

The log is a header of tags (`[Ruleset "odin"]`: the ruleset, its options, the seed, the game's
id, each seat's bot and command, the result with scores and ranks, the faults), a blank line,
then the game in words: what happened before the first decision (the deal), every move
numbered by its decision (from 0, as in records, faults and the protocol's `act`) with its
seat, its bot, what it did, the bot's think time or the mark of the fallback that played for
a faulted bot, and what followed it; each fault where it happened; the table at the end for
the games that have one; and a result line. The words come from the rules' event texts
(`arena.games.text`), by replaying the record (`arena.referee.replay`), so a record that does
not reproduce is not exported. Everything a bot chose (its name, a fault's reason) and all
the record holds is shown through `plain`: no control character reaches the text.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import msgspec

from arena.games import get_ruleset
from arena.games.base import describe
from arena.games.registry import show_value
from arena.games.text import counted, event_text
from arena.referee.folders import show_command
from arena.referee.records import Fault, GameRecord, Move
from arena.referee.replay import ReplayError, replay
from arena.referee.text import plain

FALLBACK = "(by the fallback)"  # the mark of a move the fallback chose for a faulted bot
#: The verbs of the events that tell an action, when they are not its type's (`play`: plays).
VERBS = {"place": ("place", "override"), "decline": ("does nothing",)}


def export_game(record: GameRecord) -> str:
    """The text log of one recorded game (see the module docstring), ending with a newline.
    ReplayError when the record does not reproduce, GameConfigError when its ruleset or
    options are not arena's."""
    replay(record)  # reproduces exactly, or raises: the words below are the rules' own
    seats = sorted(seat.seat for seat in record.seats)
    if seats != list(range(record.players)) or len(record.ranks) != record.players:
        raise ReplayError(
            f"the record's seats ({seats}) and ranks ({record.ranks}) do not fit its "
            f"{counted(record.players, 'player')}"
        )
    if any(not 0 <= fault.seat < record.players for fault in record.faults):
        raise ReplayError(
            f"the record's faults name seats outside its {counted(record.players, 'player')}"
        )
    lines = [*header(record), "", *body(record), "", result_line(record)]
    return "\n".join(plain(line) for line in lines) + "\n"


def tag(name: str, value: object) -> str:
    """One header line, `[Name "value"]`, the value escaped as PGN does (\\" and \\\\)."""
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def header(record: GameRecord) -> list[str]:
    """The tags: what was played, by whom, and how it ended."""
    options = msgspec.to_builtins(get_ruleset(record.ruleset).options(record.options))
    shown = " ".join(f"{k}={show_value(v)}" for k, v in options.items()) or "none"
    out = [tag("Ruleset", record.ruleset), tag("Options", shown), tag("Seed", record.seed)]
    if record.game:
        out.append(tag("Game", record.game))
    out.append(tag("Players", record.players))
    for seat in record.seats:
        out.append(tag(f"Seat{seat.seat}", seat.bot))
        out.append(tag(f"Seat{seat.seat}Command", show_command(seat.command)))
    sandboxed = [str(s.seat) for s in record.seats if s.sandboxed]
    out.append(tag("Sandboxed", ", ".join(sandboxed) or "none"))
    out.append(tag("Decisions", len(record.moves)))
    out.append(tag("Seconds", f"{record.seconds:.3f}"))
    out.append(tag("Result", result(record)))
    if record.error is None:
        out.append(tag("Scores", " ".join(f"{s:g}" for s in record.scores)))
        out.append(tag("Ranks", " ".join(map(str, record.ranks))))
        if record.game_ranks != record.ranks:  # the fault policy moved a faulted bot down
            out.append(tag("RulesRanks", " ".join(map(str, record.game_ranks))))
    else:
        out.append(tag("Error", record.error))
    if not record.faults:
        out.append(tag("Faults", "none"))
    for fault in record.faults:
        out.append(
            tag("Fault", f"seat {fault.seat}, {fault.kind} {when(fault)}: {fault.sentence()}")
        )
    return out


def when(fault: Fault) -> str:
    """When a fault happened, in words."""
    return "during the handshake" if fault.decision is None else f"at decision {fault.decision}"


def fault_line(fault: Fault, indent: str) -> str:
    return f"{indent}fault: seat {fault.seat}, {fault.kind} {when(fault)}: {fault.sentence()}"


def body(record: GameRecord) -> list[str]:
    """The game in words: the events before the first decision, then every move numbered by
    decision with the events it led to, each fault where it happened, the final table."""
    ruleset = get_ruleset(record.ruleset)
    state = ruleset.new_game(record.players, record.options, record.seed)
    width = len(str(max(len(record.moves) - 1, 0)))
    indent = " " * (width + 2)
    faults: dict[int | None, list[Fault]] = defaultdict(list)
    for fault in record.faults:
        faults[fault.decision].append(fault)
    names = {seat.seat: seat.bot for seat in record.seats}

    out = [fault_line(f, indent) for f in faults.pop(None, [])]
    out += [indent + event_text(event, audience) for audience, event in state.events_since(0)]
    seen = state.event_count
    for number, move in enumerate(record.moves):
        out += [fault_line(f, indent) for f in faults.pop(number, [])]
        state.apply(msgspec.convert(move.action, ruleset.action_type))
        texts = [event_text(event, audience) for audience, event in state.events_since(seen)]
        seen = state.event_count
        did, texts = what_it_did(move, texts, record.players)
        mark = FALLBACK if move.by == "fallback" else f"({think_time(move.ms)})"
        out.append(f"{number:>{width}}. seat {move.seat} {names[move.seat]}: {did}  {mark}")
        out += [indent + text for text in texts]
    for rest in faults.values():  # after the last decision (a limit broken meanwhile)
        out += [fault_line(f, indent) for f in rest]
    picture = state.render()
    if picture is not None:
        out += ["", "the table at the end:", *(f"    {line}" for line in picture.splitlines())]
    return out


def what_it_did(move: Move, texts: list[str], players: int) -> tuple[str, list[str]]:
    """The move in words, and the other events it led to. The words are those of the event
    in which the seat does what its action says ("seat 1 plays 9O 9G" for a `play`: "plays
    9O 9G"; a solo ruleset says "the bot"), else the action's own (`action_words`)."""
    prefixes = [f"seat {move.seat} ", *(["the bot "] if players == 1 else [])]
    stem = action_words(move.action).split(" ", 1)[0]
    verbs = VERBS.get(stem, (stem,))
    for at, text in enumerate(texts):
        for prefix in prefixes:
            rest = text.removeprefix(prefix)
            if rest != text and rest.startswith(verbs):
                return rest, texts[:at] + texts[at + 1 :]
    return action_words(move.action), texts


def action_words(action: Any) -> str:
    """An action in words from its JSON form: its type, then its values (`play 9O 9G`,
    `take back` is the event's; `place row=2 col=3`, `play run 10D 9D wilds=[11]`)."""
    data = msgspec.json.decode(msgspec.json.encode(action))  # a dict from a Struct or a record
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        return describe(action)
    words = [data["type"].replace("_", " ")]
    for key, value in data.items():
        if key == "type" or value is None or value == []:
            continue
        if isinstance(value, str):
            words.append(value)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            words.extend(value)
        else:
            words.append(f"{key}={describe(value)}")
    return " ".join(words)


def think_time(ms: float) -> str:
    """A bot's time for a decision, to a useful precision: 0.04 ms, 12.3 ms, 1503 ms."""
    if ms < 10:
        return f"{ms:.2f} ms"
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms:.0f} ms"


def ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def result(record: GameRecord) -> str:
    """The outcome in a few words, best first: "1st seat 0 a (score 0); 2nd seat 1 b (score 3,
    faulted: timeout)", or why there is none."""
    if record.error is not None:
        return "none: the referee ended the game (see Error)"
    kinds: dict[int, list[str]] = defaultdict(list)
    for fault in record.faults:
        kinds[fault.seat].append(fault.kind)
    parts: list[str] = []
    for seat in sorted(record.seats, key=lambda s: (record.ranks[s.seat], s.seat)):
        said = f"score {record.scores[seat.seat]:g}"
        if kinds[seat.seat]:
            said += f", faulted: {', '.join(kinds[seat.seat])}"
        parts.append(f"{ordinal(record.ranks[seat.seat])} seat {seat.seat} {seat.bot} ({said})")
    return "; ".join(parts)


def result_line(record: GameRecord) -> str:
    return f"result: {result(record)}"
