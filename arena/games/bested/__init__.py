"""`bested`: Bested Another Time for 2-6 players (docs/rules.md §5).

A climbing and shedding game: tricks of melds that must be beaten by a meld of the
same type and size, hard passes that earn Pass Cards resolved at the trick's end,
points for shedding out early and for bets on who sheds. The meld rules live in
`melds.py` (shared with `bested-solo`); this package holds the table, turns and scoring.

arena's ruling, the swap step: plays (and discards) are offered with wilds only where no
natural card of the hand could stand; a wild in a natural's place is a follow-up decision
(`Swap`, `Done`) before the meld is final and public. Every legal meld stays reachable,
and the offered lists stay small however many wilds a hand holds.

The files, one idea each: `options` (options, decks, rules), `actions` (the actions and
the Pass Cards), `events`, `observation` (what a seat sees, the phases), `meld_actions`
(melds as actions, shared with `bested-solo`), `state` (the table), `legal` (the legal
actions), `apply` (choose, play, pass), `swap` (the swap step), `pass_cards` (using a
Pass Card), `tricks` (a trick's flow and end), `scoring` (shedding out, round and game
end), `ruleset` (the state class, factory and decision bound).
"""

from __future__ import annotations

from arena.games.bested.actions import (
    LEAD_NEXT,
    PASS_CARDS,
    PASS_NUMBER,
    BestedAction,
    Bet,
    ChooseWild,
    Decline,
    Discard,
    Done,
    Give,
    Pass,
    PassCardName,
    Play,
    Swap,
    TakeWild,
)
from arena.games.bested.events import (
    BestedEvent,
    BetPlaced,
    Dealt,
    Declined,
    Discarded,
    Gave,
    PassCardRemoved,
    Passed,
    Payout,
    Played,
    RoundOver,
    RoundStarted,
    ShedOut,
    TookWild,
    TrickEnded,
    TrickStarted,
    WildChosen,
)
from arena.games.bested.meld_actions import (
    actions_memo,
    checked_meld,
    parse_meld,
    refuse_needless_wild,
    swap_options,
)
from arena.games.bested.observation import (
    CHOOSE,
    LEAD,
    OVER,
    PLAY,
    RESOLVE,
    SWAP,
    BestedObservation,
    BetView,
    PassCardView,
    Phase,
    TablePlay,
    table_play,
)
from arena.games.bested.options import (
    BET_CARDS,
    DECKS,
    THRESHOLDS,
    BestedOptions,
    Rules,
    bested_rules,
)
from arena.games.bested.ruleset import RULESETS, BestedState, max_decisions, max_rounds, new_bested
from arena.games.bested.state import AVAILABLE, HELD, REMOVED

__all__ = [
    "AVAILABLE",
    "BET_CARDS",
    "CHOOSE",
    "DECKS",
    "HELD",
    "LEAD",
    "LEAD_NEXT",
    "OVER",
    "PASS_CARDS",
    "PASS_NUMBER",
    "PLAY",
    "REMOVED",
    "RESOLVE",
    "RULESETS",
    "SWAP",
    "THRESHOLDS",
    "BestedAction",
    "BestedEvent",
    "BestedObservation",
    "BestedOptions",
    "BestedState",
    "Bet",
    "BetPlaced",
    "BetView",
    "ChooseWild",
    "Dealt",
    "Decline",
    "Declined",
    "Discard",
    "Discarded",
    "Done",
    "Gave",
    "Give",
    "Pass",
    "PassCardName",
    "PassCardRemoved",
    "PassCardView",
    "Passed",
    "Payout",
    "Phase",
    "Play",
    "Played",
    "RoundOver",
    "RoundStarted",
    "Rules",
    "ShedOut",
    "Swap",
    "TablePlay",
    "TakeWild",
    "TookWild",
    "TrickEnded",
    "TrickStarted",
    "WildChosen",
    "actions_memo",
    "bested_rules",
    "checked_meld",
    "max_decisions",
    "max_rounds",
    "new_bested",
    "parse_meld",
    "refuse_needless_wild",
    "swap_options",
    "table_play",
]
