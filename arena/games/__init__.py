"""The games layer: the rulesets arena can referee, behind one game API (`base.GameState`).

Pure, synchronous rules code (each game module declares its own ruleset entry; this package
collects them), plus the plain-text rendering of events and tables (`text`) and a random game
played in process (`random_play`). It imports nothing from the other layers, and no I/O.
"""

from arena.games import bested, bested_solo, odin, override
from arena.games.base import GameFinished, GameState, IllegalAction, Outcome, ranks_from_scores
from arena.games.registry import (
    GameConfigError,
    OptionsInput,
    Ruleset,
    all_rulesets,
    describe_options,
    get_ruleset,
    new_game,
    register,
)

# Each game module declares its rulesets; the registry keeps them in this order.
for _module in (odin, override, bested, bested_solo):
    for _ruleset in _module.RULESETS:
        register(_ruleset)

__all__ = [
    "GameConfigError",
    "GameFinished",
    "GameState",
    "IllegalAction",
    "OptionsInput",
    "Outcome",
    "Ruleset",
    "all_rulesets",
    "describe_options",
    "get_ruleset",
    "new_game",
    "ranks_from_scores",
    "register",
]
