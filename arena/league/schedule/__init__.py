"""The tournament schedule: who plays which game, in which seats, on which deal seed.

Everything here is a pure function of its arguments: the tournament seed and, for Swiss,
the standings after the earlier rounds. An interrupted tournament is resumed by deriving
its schedule again and skipping the game ids already played.

- `deals`: fair deals (every deal in every rotation of a table's seating) and deal seeds;
- `tables`: the fixed formats, round robin and gauntlet, with balanced table samples;
- `standings`: points, seats, opponents and byes from finished games;
- `swiss`: Swiss pairing, round by round;
- `formats`: the `Schedule` interface every format implements, and the table of formats.
"""

from arena.league.schedule.deals import (
    Game,
    Table,
    check_field,
    deal_seed,
    game_id,
    rotations,
    solo,
    table_games,
)
from arena.league.schedule.formats import (
    SCHEDULES,
    FixedSchedule,
    Schedule,
    SwissSchedule,
    schedule_for,
)
from arena.league.schedule.standings import (
    Standing,
    bye_value,
    byes_from,
    game_scores,
    standings_from,
)
from arena.league.schedule.swiss import swiss_round
from arena.league.schedule.tables import SEARCH_LIMIT, balanced_tables, gauntlet, round_robin

__all__ = [
    "SCHEDULES",
    "SEARCH_LIMIT",
    "FixedSchedule",
    "Game",
    "Schedule",
    "Standing",
    "SwissSchedule",
    "Table",
    "balanced_tables",
    "bye_value",
    "byes_from",
    "check_field",
    "deal_seed",
    "game_id",
    "game_scores",
    "gauntlet",
    "rotations",
    "round_robin",
    "schedule_for",
    "solo",
    "standings_from",
    "swiss_round",
    "table_games",
]
