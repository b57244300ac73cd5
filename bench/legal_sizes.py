"""How long can a legal action list get? Random play of bested and bested-solo.

    python bench/legal_sizes.py --games 200

For every player count and variant it plays `--games` random games in process and
reports the decisions per second, the longest legal list met and its JSON size (the
`actions` field of a bot's request). Then it measures hands that hoard wilds: a
random deal plus W wilds, the lead list (the longest kind), because a bot that
collects wilds on purpose can reach positions random play rarely does.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import msgspec

from arena.games import melds as M
from arena.games import new_game
from arena.games.bested import DECKS, BestedOptions, actions_memo, bested_rules

CONFIGS: list[tuple[str, int, dict[str, object]]] = [
    *(("bested", n, v) for n in range(2, 7) for v in ({}, {"gaps": True, "zeros": True})),
    ("bested-solo", 1, {}),
    ("bested-solo", 1, {"rounds": 5, "difficulty": "hard"}),
]


def measure(ruleset: str, players: int, options: dict[str, object], games: int) -> str:
    encode = msgspec.json.Encoder().encode
    decisions = 0
    longest = 0
    longest_bytes = 0
    started = time.perf_counter()
    for seed in range(games):
        state = new_game(ruleset, players, options, seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            state.observation(state.current_player)
            legal = state.legal_actions()
            if len(legal) > longest:
                longest, longest_bytes = len(legal), len(encode(legal))
            state.apply(rng.choice(legal))
            decisions += 1
    seconds = time.perf_counter() - started
    extra = ",".join(f"{k}={v}" for k, v in options.items())
    name = f"{ruleset} {players}p {extra}".strip()
    return (
        f"{name:38} {decisions / seconds:8.0f} decisions/s   longest list {longest:5d}"
        f" actions, {longest_bytes / 1024:7.1f} KiB"
    )


def hoarding(samples: int) -> list[str]:
    """The lead list of a freshly dealt hand plus W wilds (worst over `samples` deals)."""
    encode = msgspec.json.Encoder().encode
    memo = actions_memo()
    rng = random.Random(1)
    cases = [("bested-solo", M.deck_ids(range(2, 14), "SHD"), 14, (M.SET, M.RUN), (2, 4, 6, 7))]
    for players in (4, 6):
        rules = bested_rules(players, BestedOptions(gaps=True))
        name = f"bested {players}p gaps"
        cases.append((name, rules.deck, DECKS[players][2], rules.kinds, (2, 4, 6, 8)))
    out = []
    for name, deck, each, kinds, wild_counts in cases:
        for w in wild_counts:
            worst: list[M.Meld] = []
            for _ in range(samples):
                found = M.all_melds(rng.sample(deck, each), w, kinds)
                if len(found) > len(worst):
                    worst = found
            size = len(encode([memo.play(m) for m in worst]))
            out.append(
                f"{name}: {each} cards + {w} wilds".ljust(38)
                + f" longest lead list {len(worst):5d} actions, {size / 1024:7.1f} KiB"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="random games per row")
    parser.add_argument("--samples", type=int, default=200, help="deals per hoarding row")
    args = parser.parse_args(argv)
    for ruleset, players, options in CONFIGS:
        print(measure(ruleset, players, options, args.games), flush=True)
    for line in hoarding(args.samples):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
