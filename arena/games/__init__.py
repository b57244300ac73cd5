"""The games layer: the rulesets arena can referee, behind one game API (`base.GameState`).

Pure, synchronous rules code (each game module declares its own ruleset entry; this package
collects them), plus the plain-text rendering of events and tables (`text`) and a random game
played in process (`random_play`). It imports nothing from the other layers, and no I/O.
"""

from arena.games import bested, bested_solo, odin, override
from arena.games.base import GameFinished, GameState, IllegalAction, Outcome, ranks_from_scores
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
        max_decisions=odin.odin_max_decisions,
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
        max_decisions=odin.odin_race_max_decisions,
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
        max_decisions=odin.override_beta_max_decisions,
    )
)
register(
    Ruleset(
        id="override-classic",
        title="Override Classic",
        summary="Draw and place cards on a 5×5 board, overriding weaker ones; own a line to win.",
        min_players=2,
        max_players=2,
        options_type=override.OverrideClassicOptions,
        state_type=override.OverrideState,
        factory=override.new_override_classic,
        max_decisions=override.max_decisions,
    )
)
register(
    Ruleset(
        id="override-original",
        title="Override Original",
        summary="Override on a board that grows from one card and must fit in a 5×5 box.",
        min_players=2,
        max_players=2,
        options_type=override.OverrideOriginalOptions,
        state_type=override.OverrideState,
        factory=override.new_override_original,
        max_decisions=override.max_decisions,
    )
)
register(
    Ruleset(
        id="bested",
        title="Bested Another Time",
        summary="Climb with melds of the same type and size; shed out first for points.",
        min_players=2,
        max_players=6,
        options_type=bested.BestedOptions,
        state_type=bested.BestedState,
        factory=bested.new_bested,
        max_decisions=bested.max_decisions,
    )
)
register(
    Ruleset(
        id="bested-solo",
        title="Bested Another Time, solo",
        summary="One player climbs over its own melds against a dummy hand; lower score wins.",
        min_players=1,
        max_players=1,
        options_type=bested_solo.SoloOptions,
        state_type=bested_solo.SoloState,
        factory=bested_solo.new_bested_solo,
        max_decisions=bested_solo.max_decisions,
    )
)

__all__ = [
    "GameConfigError",
    "GameFinished",
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
