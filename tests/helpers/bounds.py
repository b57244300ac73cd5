"""Random play that drags games out, for checking each ruleset's decision bound
(docs/rules.md §9): the longer the games, the closer they come to the bound.

`stall` leans, in every family, towards what adds decisions without ending the game:
single cards over single cards and passes in the Odin family; small melds, passes that
take the Wild Pass Card and wilds taken in `bested`; dummy cards, swaps and passes after
two plays in `bested-solo`. Override games last 52 turns at most however they are played.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.bested import BestedState, Decline, Discard, Done, Give, Pass, Play, Swap, TakeWild
from arena.games.bested_solo import SoloState, TakeDummy
from arena.games.odin import OdinState
from arena.games.odin import Pass as OdinPass
from arena.games.odin import Play as OdinPlay
from arena.games.odin import Take as OdinTake

STYLES = ("uniform", "stall")
#: Pass Cards by how much they drag a trick out: a wild taken keeps a card in play
PASS_ORDER = {"wild": 0, "bet_wild": 1, "give_bet": 2, "lead_next": 3, "discard_meld": 4, None: 5}


def _number(code: str) -> int:
    return int(code[:-1])


def _size(action: Play | Discard) -> int:
    return len(action.cards) + len(action.wilds)


def _odin(state: OdinState, actions: list[Any]) -> Any:
    """The lowest single card (lead or beat), else a pass, else take back the highest."""
    singles = [a for a in actions if isinstance(a, OdinPlay) and len(a.cards) == 1]
    if singles:
        return min(singles, key=lambda a: _number(a.cards[0]))
    passes = [a for a in actions if isinstance(a, OdinPass)]
    if passes:
        return passes[0]
    takes = [a for a in actions if isinstance(a, OdinTake)]
    if takes:
        return max(takes, key=lambda a: _number(a.card))
    return actions[0]


def _bested(state: BestedState, actions: list[Any]) -> Any:
    """Lead the smallest meld, pass (taking the Wild Pass Card first), take every wild,
    discard the smallest meld, give a card, and end each swap step at once."""
    passes = [a for a in actions if isinstance(a, Pass)]
    if passes:
        return min(passes, key=lambda a: PASS_ORDER[a.pass_card])
    for kind in (TakeWild, Give, Done):
        found = [a for a in actions if isinstance(a, kind)]
        if found:
            return found[0]
    melds = [a for a in actions if isinstance(a, (Play, Discard))]
    if melds:
        return min(melds, key=_size)
    return next((a for a in actions if not isinstance(a, Decline)), actions[0])


def _solo(state: SoloState, actions: list[Any]) -> Any:
    """Take the dummy's cards, swap while a swap is offered, play the smallest meld and
    pass after two plays (drawing two cards, not three: more tricks from the deck)."""
    for kind in (TakeDummy, Swap):
        found = [a for a in actions if isinstance(a, kind)]
        if found:
            return found[0]
    passes = [a for a in actions if isinstance(a, Pass)]
    if passes and len(state.plays) >= 2:
        return passes[0]
    melds = [a for a in actions if isinstance(a, Play)]
    if melds:
        return min(melds, key=_size)
    return actions[0]


def choose(state: Any, actions: list[Any], rng: random.Random, style: str) -> Any:
    """A legal action: uniformly at random, or (`stall`) mostly the one that drags the
    game out, with a random one one time in ten so that games differ."""
    if style == "uniform" or rng.random() < 0.1:
        return rng.choice(actions)
    if isinstance(state, OdinState):
        return _odin(state, actions)
    if isinstance(state, BestedState):
        return _bested(state, actions)
    if isinstance(state, SoloState):
        return _solo(state, actions)
    return rng.choice(actions)


def play_counting(state: Any, rng: random.Random, style: str, limit: int) -> int:
    """Play until the game ends or `limit` + 1 decisions were taken (a game that passes
    its bound is not played on for ever); return the number of decisions."""
    decisions = 0
    while not state.is_terminal and decisions <= limit:
        state.apply(choose(state, state.legal_actions(), rng, style))
        decisions += 1
    return decisions
