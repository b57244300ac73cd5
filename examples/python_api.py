"""Play a game from Python: a function of yours, the built-in random player and a bot
program, at one table.

    python examples/python_api.py

`arena.play` returns the game record (what `arena play --record` writes), which the
rules engine replays to check it.
"""

from pathlib import Path
from typing import Any

import arena
from arena.referee.replay import replay

RANDOM_BOT = Path(__file__).resolve().parent / "bots" / "random-py"


def most_cards(request: dict[str, Any]) -> int:
    """Play the set with the most cards (the lowest such set), else the first choice: the
    request is the `act` message a bot receives, the answer an index into its actions."""
    actions = request["actions"]
    sizes = [len(a["cards"]) if a["type"] == "play" else 0 for a in actions]
    return sizes.index(max(sizes))


def main() -> None:
    record = arena.play(
        "odin",
        [most_cards, "random", RANDOM_BOT],
        seed=7,
        options={"rounds": 1},
        move_time=2.0,
    )
    for seat in record.seats:
        print(
            f"seat {seat.seat}: {seat.bot:<10} "
            f"score {record.scores[seat.seat]:g}, rank {record.ranks[seat.seat]}"
        )
    print(f"{len(record.moves)} moves, {len(record.faults)} faults")
    replay(record)  # raises if the rules engine does not reproduce the game
    print("the record replays")


if __name__ == "__main__":
    main()
