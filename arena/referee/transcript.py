"""The transcript of a short real game as seat 0 sees it: the example in PROTOCOL.md.

    python -m arena.referee.transcript            # print the markdown block
    python -m arena.referee.transcript --update   # rewrite that block in docs/PROTOCOL.md
    python -m arena.referee.transcript --search   # list short games that show every kind of step

The game is refereed by the real referee (`arena.referee.game.play_game`) between two
in-process bots (`arena.referee.local.play_local`) that still speak JSON lines, so each
line is exactly what a bot process would read and write; only `time_ms` and
`bank_ms` depend on how fast a bot answers. `tests/referee/test_golden.py` checks that
PROTOCOL.md holds the current output.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

import trio

from arena.referee.game import RefereeConfig
from arena.referee.local import Decide, Sender, play_local, random_decider
from arena.referee.records import GameRecord
from protocol.messages import Limits

RULESET = "odin"
OPTIONS: dict[str, Any] = {"rounds": 1}
SEED = 79  # short (13 decisions), and seat 0 meets a lead, a pass, a take and a trick end
LIMITS = Limits(startup_ms=10_000, move_ms=1_000, bank_ms=5_000, increment_ms=100)
NAMES = ("my-bot", "opponent")
PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
BEGIN, END = "<!-- transcript:begin -->", "<!-- transcript:end -->"
ARROWS: dict[Sender, str] = {"referee": "→", "bot": "←"}


def my_bot(seed: int) -> Decide:
    """Random legal actions; every second answer names the action by value, not by index."""
    rng = random.Random(f"transcript:{seed}")
    answers = 0

    def decide(request: dict[str, Any]) -> int | dict[str, Any]:
        nonlocal answers
        answers += 1
        index = rng.randrange(len(request["actions"]))
        return index if answers % 2 else request["actions"][index]

    return decide


async def play(
    ruleset: str = RULESET, options: dict[str, Any] | None = None, seed: int = SEED
) -> tuple[GameRecord, list[tuple[Sender, bytes]]]:
    """Play the example game; return its record and seat 0's lines in order."""
    record, bots = await play_local(
        ruleset,
        [my_bot(seed), random_decider(f"transcript-opponent:{seed}")],
        options=OPTIONS if options is None else options,
        seed=seed,
        config=RefereeConfig(limits=LIMITS),
        names=NAMES,
    )
    return record, bots[0].exchange


def markdown(record: GameRecord, lines: list[tuple[Sender, bytes]]) -> str:
    """The block that PROTOCOL.md shows between its transcript markers."""
    opts = " ".join(f"-o {k}={json.dumps(v)}" for k, v in OPTIONS.items())
    head = (
        f"Ruleset `{record.ruleset}` ({', '.join(f'{k}={v}' for k, v in OPTIONS.items())}), "
        f"2 players, seed {record.seed}, {len(record.moves)} decisions in all, seen from seat 0 "
        f"(`{NAMES[0]}`). Limits: {LIMITS.move_ms} ms per move, a {LIMITS.bank_ms} ms bank, "
        f"{LIMITS.increment_ms} ms increment, as with `arena play {record.ruleset} BOT0 BOT1 "
        f"--seed {record.seed} {opts} --bank {LIMITS.bank_ms / 1000:g} "
        f"--increment {LIMITS.increment_ms / 1000:g}`. `→` is a line the referee sends to the "
        "bot, `←` a line the bot sends back."
    )
    body = "\n".join(f"{ARROWS[sender]} {line.decode()}" for sender, line in lines)
    return f"{head}\n\n```text\n{body}\n```"


def block() -> str:
    return markdown(*trio.run(play))


def splice(document: str, new_block: str) -> str:
    """`document` with the text between the transcript markers replaced by `new_block`."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the transcript markers {BEGIN} ... {END} are missing")
    return f"{document[: start + len(BEGIN)]}\n{new_block}\n{document[end:]}"


def current_block(document: str) -> str:
    """The text between the transcript markers of `document`."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the transcript markers {BEGIN} ... {END} are missing")
    return document[start + len(BEGIN) : end].strip("\n")


def update(path: Path = PROTOCOL_MD) -> bool:
    """Rewrite the transcript in `path`; return whether it changed."""
    old = path.read_text()
    new = splice(old, block())
    if new != old:
        path.write_text(new)
    return new != old


async def search(ruleset: str, options: dict[str, Any], seeds: range) -> list[tuple[int, int]]:
    """(decisions, seed) of games in which seat 0 is asked to take back a card and sees a
    pass and a trick end, shortest first: candidates for SEED."""
    found = []
    for seed in seeds:
        record, lines = await play(ruleset, options, seed)
        text = b"\n".join(line for _, line in lines)
        takes = b'"actions":[{"type":"take"' in text
        if takes and b'"type":"passed"' in text and b'"type":"trick_won"' in text:
            found.append((len(record.moves), seed))
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.referee.transcript", description=__doc__)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--update", action="store_true", help=f"rewrite the block in {PROTOCOL_MD}")
    group.add_argument("--search", action="store_true", help="list short candidate seeds")
    args = parser.parse_args(argv)
    if args.update:
        changed = update()
        print(f"{PROTOCOL_MD}: {'updated' if changed else 'already current'}")
    elif args.search:
        for decisions, seed in trio.run(search, RULESET, OPTIONS, range(300))[:10]:
            print(f"seed {seed}: {decisions} decisions")
    else:
        print(block())
    return 0


if __name__ == "__main__":
    sys.exit(main())
