"""The `bested` ruleset's entry: the state class, its factory, and the bound on the
decisions of a game (docs/rules.md §9.4)."""

from __future__ import annotations

from typing import ClassVar

from arena.games.bested.actions import BestedAction
from arena.games.bested.apply import Applying
from arena.games.bested.events import BestedEvent
from arena.games.bested.legal import LegalActions
from arena.games.bested.observation import BestedObservation
from arena.games.bested.options import BestedOptions, Rules, bested_rules
from arena.games.registry import Ruleset


class BestedState(Applying, LegalActions):
    """A game of bested in progress: the table (state.py) with every layer of rules."""

    action_type: ClassVar[object] = BestedAction
    event_type: ClassVar[object] = BestedEvent
    observation_type: ClassVar[object] = BestedObservation


def new_bested(players: int, options: BestedOptions, seed: int) -> BestedState:
    return BestedState(players, bested_rules(players, options), seed)


def max_rounds(players: int, rules: Rules) -> int:
    """The most rounds a game can last: a round sheds out n-1 players, the k-th scoring at
    least 2(n-k)+1, so the totals grow by n²-1 a round at least (docs/rules.md §9.4)."""
    return players * (rules.threshold - 1) // (players * players - 1) + 1


def max_decisions(players: int, options: BestedOptions) -> int:
    """The most decisions a `bested` game can take (docs/rules.md §9.4): a round has at most
    M = dealt + taken - 1 plays and discards, each trick a lead among them, at most n passes
    and n-2 Pass Card resolutions; swaps are bounded by the wilds, `done`s by the melds."""
    rules = bested_rules(players, options)
    dealt = players * rules.hand_size
    taken = 0 if players == 2 else dealt  # each dealt card is taken as a wild once at most
    wilds = 2 if players == 2 else taken  # every wild a round can hold
    choices = 2 if players == 2 else 0  # choose_wild
    melds = dealt + taken - 1
    per_round = choices + wilds + 2 * players * melds
    return max_rounds(players, rules) * per_round


#: the rulesets this module plays (collected by `arena.games`)
RULESETS = (
    Ruleset(
        id="bested",
        title="Bested Another Time",
        summary="Climb with melds of the same type and size; shed out first for points.",
        min_players=2,
        max_players=6,
        options_type=BestedOptions,
        state_type=BestedState,
        factory=new_bested,
        max_decisions=max_decisions,
    ),
)
