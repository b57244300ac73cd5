"""Results folders of real games made in process, for the report's size test and
`bash bench/run report`: every record replays exactly, as a tournament's would.

Games are played by random players through the rules engine (not through bot processes, so a
thousand games take seconds) and journaled as `GameRecord`s with round-robin ids, seats
rotating over the bots. A share of the games has a fault: one seat times out at a decision
and the fallback plays its moves from then on (the fallback's moves are random legal ones, as
the referee's are), and the ranks follow the fault policy, as the referee records them.

`codes` and `hidden_cards` serve the golden checks that a seat's view of a replay never
holds a card another seat holds unseen (tests/referee/test_frames.py on the frames,
tests/cli/test_report_browser.py on the page in a browser).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from arena.games import new_game
from arena.games.events import Dealt
from arena.referee.game import ranks_with_faults
from arena.referee.records import Fault, GameRecord, Move, SeatRecord
from arena.referee.replay import steps

BLOCK = 256  # records written at a time
#: a card code anywhere in a text (7R, 12H, 0*)
CODE = re.compile(r"(?<![\w*])(\d{1,2}[SHDCROYGBP*])(?![\w*])")


def codes(value: Any) -> set[str]:
    """Every card code written anywhere in a JSON-able value or text."""
    return set(CODE.findall(msgspec.json.encode(value).decode()))


def random_record(
    ruleset: str,
    bots: Sequence[str],
    seed: int,
    *,
    options: dict[str, Any] | None = None,
    game: str = "",
    fault_at: tuple[int, int] | None = None,
) -> GameRecord:
    """One game between random players, seat i played by `bots[i]`. `fault_at` = (seat,
    decision): that seat times out at its first decision from that one on, and the fallback
    plays for it from then on."""
    players = len(bots)
    state = new_game(ruleset, players, options, seed)
    rng = random.Random(seed ^ 0x5EED)
    moves: list[Move] = []
    faults: list[Fault] = []
    faulted: set[int] = set()
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        decision = len(moves)
        if fault_at is not None and seat == fault_at[0] and decision >= fault_at[1] and not faulted:
            faulted.add(seat)
            reason = "did not answer within 1000 ms"
            faults.append(Fault(seat, bots[seat], "timeout", decision, reason, 12.0))
        action = rng.choice(state.legal_actions())
        state.apply(action)
        by = "fallback" if seat in faulted else "bot"
        ms = 0.0 if by == "fallback" else round(rng.uniform(0.05, 3.0), 3)
        moves.append(Move(seat, msgspec.to_builtins(action), ms, by))
    outcome = state.outcome()
    game_ranks = list(outcome.ranks)
    return GameRecord(
        ruleset=ruleset,
        options=dict(options or {}),
        seed=seed,
        players=players,
        seats=[SeatRecord(i, name, ["{python}", "bot.py"]) for i, name in enumerate(bots)],
        moves=moves,
        faults=faults,
        scores=[float(s) for s in outcome.scores],
        game_ranks=game_ranks,
        ranks=ranks_with_faults(game_ranks, faulted),
        seconds=0.1,
        stderr=["" for _ in bots],
        game=game,
    )


def write_random_results(
    folder: Path,
    games: int,
    *,
    ruleset: str = "odin",
    players: int = 2,
    bots: int = 4,
    options: dict[str, Any] | None = None,
    fault_share: float = 0.02,
    seed: int = 1,
) -> Path:
    """A results folder (`folder`, created) whose games.jsonl holds `games` random games of
    `ruleset` among `bots` bots, `players` at a table, seats rotating; `fault_share` of the
    games have a timeout. Returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    names = [f"bot-{i}" for i in range(bots)]
    rng = random.Random(seed)
    encode = msgspec.json.Encoder().encode
    with open(folder / "games.jsonl", "wb") as out:
        block: list[bytes] = []
        for number in range(games):
            table = number % bots
            seated = [names[(table + k) % bots] for k in range(players)]
            fault_at = None
            if rng.random() < fault_share:
                fault_at = (rng.randrange(players), rng.randrange(1, 30))
            game_id = f"r0-t{table}-d{number // bots}-s0"
            record = random_record(
                ruleset,
                seated,
                rng.randrange(1 << 62),
                options=options,
                game=game_id,
                fault_at=fault_at,
            )
            block.append(encode(record) + b"\n")
            if len(block) == BLOCK:
                out.write(b"".join(block))
                block = []
        out.write(b"".join(block))
    return folder


def hidden_cards(record: GameRecord) -> list[list[set[str]]]:
    """`out[k][o * players + s]`: the cards seat o holds at step k (its hand, wilds, drawn
    card, pending meld) that seat s was not told of since its own last deal (none for
    s == o)."""
    players = record.players
    told_since_deal: list[set[str]] = [set() for _ in range(players)]
    out: list[list[set[str]]] = []
    seen = 0
    for _number, state in steps(record):
        for audience, event in state.events_since(seen):
            for s in range(players):
                if audience is None or s in audience:
                    if isinstance(event, Dealt):
                        told_since_deal[s] = set()
                    told_since_deal[s] |= codes(msgspec.to_builtins(event))
        seen = state.event_count
        row: list[set[str]] = []
        for o in range(players):
            mine = msgspec.to_builtins(state.observation(o))
            held = codes([mine.get(k) for k in ("hand", "wilds", "card", "pending")])
            for s in range(players):
                row.append(set() if s == o else held - told_since_deal[s])
        out.append(row)
    return out
