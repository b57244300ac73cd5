"""Exact behaviour of `bested` and `bested-solo` pinned by digests of seeded random games.

Every decision of many seeded random games (every player count, every variant, both solo
options, and games whose hands start rich in wilds, where the legal lists are longest)
is folded into one SHA-256 per game configuration: the legal action list as JSON (its
order included), every seat's observation as JSON, and at the end the canonical history
and the whole event log with its audiences. The stored digests were recorded with the
engine before its speed work (issue "Scale"), so any change to a legal list, an
observation, an event or a canonical action, however small, fails here: making the rules
faster must not change what they do.

Some actions are applied as a bot would send them (decoded from their JSON, not the
engine's own Struct objects), so the path a referee takes is pinned as well.

After a deliberate rule change, print the new digests with
`.venv/bin/python -m tests.games.test_bested_digests` and update `DIGESTS`.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import msgspec
import pytest

from arena.games import new_game

_encode = msgspec.json.Encoder().encode

VARIANTS: list[dict[str, Any]] = [
    {},
    {"gaps": True},
    {"zeros": True},
    {"gaps": True, "zeros": True},
]
#: (name, ruleset, players, options, seed, wilds each seat starts with, decision cap)
Case = tuple[str, str, int, dict[str, Any], int, int, int | None]


def _cases() -> list[Case]:
    out: list[Case] = []
    for players in range(2, 7):
        for variant in VARIANTS:
            tag = "".join(f"-{k}" for k in variant)
            for seed in (1, 2):
                name = f"bested-{players}p{tag}-seed{seed}"
                out.append((name, "bested", players, variant, seed, 0, None))
        for wilds in (2, 4):
            name = f"bested-{players}p-gaps-zeros-{wilds}wilds"
            opts = {"gaps": True, "zeros": True}
            out.append((name, "bested", players, opts, 3, wilds, 400))
    for opts in ({}, {"rounds": 3}, {"rounds": 5, "difficulty": "hard"}):
        tag = "".join(f"-{k}{v}" for k, v in opts.items())
        out.append((f"bested-solo{tag}", "bested-solo", 1, opts, 4, 0, None))
    for wilds in (3, 7):
        out.append((f"bested-solo-{wilds}wilds", "bested-solo", 1, {}, 5, wilds, None))
    # Hands holding many wilds, in more seats and over more rounds: the longest lists.
    for players in (3, 6):
        opts = {"gaps": True, "zeros": True}
        name = f"bested-{players}p-gaps-zeros-6wilds"
        out.append((name, "bested", players, opts, 7, 6, 300))
    out.append(("bested-solo-rounds3-5wilds", "bested-solo", 1, {"rounds": 3}, 6, 5, None))
    return out


CASES = _cases()


def _rich_in_wilds(state: Any, wilds: int) -> None:
    """Turn `wilds` cards of every hand into wilds (solo: take them from the dummy), so
    the lists reach the lengths that hoarding bots meet."""
    if state.ruleset == "bested-solo":
        state.wilds, state.dummy = state.dummy[:wilds], state.dummy[wilds:]
        return
    for seat in range(state.players):
        hand = state.hands[seat]
        state.wilds[seat] = sorted(state.wilds[seat] + hand[-wilds:])
        del hand[-wilds:]


def digest(case: Case) -> str:
    """Play the case's random games (eight of each solo case, one otherwise) and hash
    everything the engine shows or records."""
    name, ruleset, players, options, seed, wilds, cap = case
    h = hashlib.sha256()
    games = 8 if ruleset == "bested-solo" else 1
    for game in range(games):
        state = new_game(ruleset, players, options, seed * 100 + game)
        rng = random.Random(f"{name}/{game}")
        decisions = 0
        while state.current_player is not None:
            if wilds and decisions == 0:
                _rich_in_wilds(state, wilds)
            for s in range(players):
                h.update(_encode(state.observation(s)))
            legal = state.legal_actions()
            h.update(_encode(legal))
            action = legal[rng.randrange(len(legal))]
            if decisions % 3 == 0:  # as a bot sends it: a Struct of its own
                action = msgspec.json.decode(_encode(action), type=state.action_type)
            state.apply(action)
            decisions += 1
            if cap is not None and decisions >= cap:
                break
        h.update(_encode([[s, a] for s, a in state.history]))
        h.update(_encode([[aud, e] for aud, e in state.events_since(0)]))
        if state.is_terminal:
            h.update(_encode(state.outcome()))
    return h.hexdigest()[:24]


#: recorded with the engine before the speed work (see the module's docstring)
DIGESTS: dict[str, str] = {
    "bested-2p-seed1": "3a45fde45896855994527c0e",
    "bested-2p-seed2": "b700152f26b285718d644323",
    "bested-2p-gaps-seed1": "cbd8f206921e3dd78522ecde",
    "bested-2p-gaps-seed2": "f55de448a89fe649ce69c12e",
    "bested-2p-zeros-seed1": "ecfbbdd89b033f5f0c9b0187",
    "bested-2p-zeros-seed2": "b2acf293d97643cce2465aa6",
    "bested-2p-gaps-zeros-seed1": "a52a9673bd28a65994ac1efe",
    "bested-2p-gaps-zeros-seed2": "a5506a9c830e8afe2c3f5114",
    "bested-2p-gaps-zeros-2wilds": "a8d03e5ca8d42cd46e3d3a4c",
    "bested-2p-gaps-zeros-4wilds": "14aa97f5e261ba2c668fb163",
    "bested-3p-seed1": "305d54331d1a778ad8e392c8",
    "bested-3p-seed2": "77ed1926cc90cbc10520dbb6",
    "bested-3p-gaps-seed1": "b8afc1182ccef7b32a230cd1",
    "bested-3p-gaps-seed2": "1aa0baeeba0147b10dccf082",
    "bested-3p-zeros-seed1": "8b3fc4aa2b938489a8681a23",
    "bested-3p-zeros-seed2": "1b4a1894b77d3355749acb5c",
    "bested-3p-gaps-zeros-seed1": "68d26ab682abd8290bd0b1c1",
    "bested-3p-gaps-zeros-seed2": "d53bbb1b1bdd6e8f50886c7a",
    "bested-3p-gaps-zeros-2wilds": "d46524e8d2edbca88a1c651c",
    "bested-3p-gaps-zeros-4wilds": "83ad123464d62ac989fb46c3",
    "bested-4p-seed1": "bf4e8cf840442f8bc42c7ecc",
    "bested-4p-seed2": "98c1691be7e85409fc889944",
    "bested-4p-gaps-seed1": "c3d832c0bdea94a83154f2f0",
    "bested-4p-gaps-seed2": "f7d3ce441c0400444cca7086",
    "bested-4p-zeros-seed1": "81f4b6ca9f98b16a48ba6a4a",
    "bested-4p-zeros-seed2": "38875c07c0fb506492cc482e",
    "bested-4p-gaps-zeros-seed1": "f80b9d5d758ea8a7e9a933eb",
    "bested-4p-gaps-zeros-seed2": "f75d80e29486b81e4f206c92",
    "bested-4p-gaps-zeros-2wilds": "6e917b6eabe5bdae8e8d9b95",
    "bested-4p-gaps-zeros-4wilds": "a2e683bbc9eef730d3b7201f",
    "bested-5p-seed1": "91c0218d71ffee437cb1705d",
    "bested-5p-seed2": "69084b991ea29a6866220a8c",
    "bested-5p-gaps-seed1": "adbf713d9ec6707a058ddb41",
    "bested-5p-gaps-seed2": "90dfd72c990cd0f119610485",
    "bested-5p-zeros-seed1": "fbb5a9d5964909fc965ec585",
    "bested-5p-zeros-seed2": "101a42cd5eb2b938759a7f21",
    "bested-5p-gaps-zeros-seed1": "0a944c5b5f573fc628830174",
    "bested-5p-gaps-zeros-seed2": "539ca0ad5c91a1638fb94e77",
    "bested-5p-gaps-zeros-2wilds": "0d0536638f682be3c1dc7f40",
    "bested-5p-gaps-zeros-4wilds": "d59c69640036cfda82c7cc2b",
    "bested-6p-seed1": "387abefe20c27f7046f579e3",
    "bested-6p-seed2": "bc033c659d1c515212c7a0db",
    "bested-6p-gaps-seed1": "ff52ee68c81c062dab742305",
    "bested-6p-gaps-seed2": "4172490241472aee536f6185",
    "bested-6p-zeros-seed1": "e05f959cc0b8d078718fb170",
    "bested-6p-zeros-seed2": "7b4988fc7b252e9d80a4b07a",
    "bested-6p-gaps-zeros-seed1": "daef32a0eb6b57b4a8d16744",
    "bested-6p-gaps-zeros-seed2": "4ef58ea9e6191a2d2b65ab37",
    "bested-6p-gaps-zeros-2wilds": "4a6fedc11dc6284a02f1aedc",
    "bested-6p-gaps-zeros-4wilds": "28cf48ec46377aa05ba2f017",
    "bested-solo": "ea7a39fcb29a86d946107142",
    "bested-solo-rounds3": "89135a7fcf9be5ebd2e5f011",
    "bested-solo-rounds5-difficultyhard": "15c8e5b5802fb1db292359d0",
    "bested-solo-3wilds": "2f3a4fc18c817c7c27db67ff",
    "bested-solo-7wilds": "8d5f89b84e5c265341729af1",
    "bested-3p-gaps-zeros-6wilds": "2c94a20c9a6fc077ebb782c0",
    "bested-6p-gaps-zeros-6wilds": "5998c5d2a0b3bf0d0bcf112a",
    "bested-solo-rounds3-5wilds": "688a9b4bcf022fc89caa82ef",
}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_random_games_match_their_recorded_digest(case: Case) -> None:
    assert digest(case) == DIGESTS[case[0]]


def test_every_case_has_a_digest_and_the_cases_are_distinct() -> None:
    assert sorted(DIGESTS) == sorted(c[0] for c in CASES)
    assert len(set(DIGESTS.values())) == len(DIGESTS)


if __name__ == "__main__":
    for case in CASES:
        print(f'    "{case[0]}": "{digest(case)}",')
