"""The rulesets arena can referee, behind one game API (see `base.GameState`)."""

from arena.games import odin
from arena.games.base import GameOver, GameState, IllegalAction, Outcome, ranks_from_scores
from arena.games.registry import (
    GameConfigError,
    Ruleset,
    all_rulesets,
    describe_options,
    get_ruleset,
    new_game,
    register,
)

register(
    Ruleset(
        id="odin",
        title="Odin",
        summary="Shed your cards in sets that beat the middle; lowest total wins.",
        min_players=2,
        max_players=6,
        options_type=odin.OdinOptions,
        state_type=odin.OdinState,
        factory=odin.new_odin,
    )
)
register(
    Ruleset(
        id="odin-race",
        title="Odin, race",
        summary="Odin's play in one round: the first to empty their hand wins.",
        min_players=2,
        max_players=6,
        options_type=odin.OdinRaceOptions,
        state_type=odin.OdinState,
        factory=odin.new_odin_race,
    )
)
register(
    Ruleset(
        id="override-beta",
        title="Override (beta)",
        summary="Odin with a standard deck and the Cheat Code (Joker); lowest total wins.",
        min_players=2,
        max_players=4,
        options_type=odin.OverrideBetaOptions,
        state_type=odin.OdinState,
        factory=odin.new_override_beta,
    )
)

__all__ = [
    "GameConfigError",
    "GameOver",
    "GameState",
    "IllegalAction",
    "Outcome",
    "Ruleset",
    "all_rulesets",
    "describe_options",
    "get_ruleset",
    "new_game",
    "ranks_from_scores",
    "register",
]
