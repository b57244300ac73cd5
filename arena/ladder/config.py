"""The ladder's file, `DIR/ladder.toml`: TOML read into typed config, with errors that say
where and what, and written back (`ladder_toml`) as a file whose every key is explained.

The keys, each with a default: the ruleset and its options, the seat counts tables use (one
count, or several with weights, as Halite plays 2 and 4), the clock (a tournament's [time]),
games at once (`jobs`), matchmaking ([matchmaking]: when a faulting bot is suspended, how
many games a settled bot gets), submissions ([submissions]: active bots per author,
submissions per day, the size of an archive) and validation ([validation]: games per seat).
Every problem is one sentence naming the key as written (`[matchmaking] suspend_after`), in
the words of tournament files (`arena.games.convert`), with "did you mean" for a near miss.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from arena.games import GameConfigError, get_ruleset
from arena.games.convert import FieldError, convert, toml_key, toml_value
from arena.games.registry import describe_options
from arena.ladder.matchmaking import SETTLED_SHARE
from arena.league.config import ConfigError, TimeControl, read_toml, write_toml
from arena.referee import clock

#: The ladder's file inside its folder.
LADDER_FILE = "ladder.toml"


class LadderConfigError(ConfigError):
    """A ladder file that cannot be used; the message names the file and the key."""


class Matchmaking(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """How the matchmaker treats bots that fault and bots whose place is settled."""

    suspend_after: Annotated[int, Meta(ge=1)] = 5
    settled_share: Annotated[float, Meta(gt=0, le=1)] = SETTLED_SHARE
    places: list[Annotated[int, Meta(ge=1)]] = msgspec.field(default_factory=list)


class Submissions(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What one author may submit: bots at once, uploads a day, and how large an archive."""

    active_bots: Annotated[int, Meta(ge=1)] = 3
    per_day: Annotated[int, Meta(ge=1)] = 10
    archive_mb: Annotated[float, Meta(gt=0)] = 10.0
    unpacked_mb: Annotated[float, Meta(gt=0)] = 100.0
    files: Annotated[int, Meta(ge=1)] = 2000


class Validation(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The games a new version plays before it is accepted."""

    games_per_seat: Annotated[int, Meta(ge=1)] = 2


#: `seats`: one count, or a table of weights by count ({ 2 = 3, 4 = 1 }), checked by
#: `LadderConfig.seat_weights` (msgspec's own errors about a table's values name no key).
Seats = Annotated[
    int | dict[str, Any],
    Meta(description="a seat count (a whole number), or a table of weights by seat count"),
]


class LadderConfig(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Everything that defines a ladder; the defaults are what `arena ladder init` writes."""

    ruleset: Annotated[str, Meta(description="a ruleset id (`arena games` lists them)")]
    seats: Seats = 2
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    # Games at once (default: the number of cores); `arena ladder serve --jobs` overrides it.
    jobs: Annotated[int, Meta(ge=1)] | None = None
    time: TimeControl = TimeControl()
    matchmaking: Matchmaking = Matchmaking()
    submissions: Submissions = Submissions()
    validation: Validation = Validation()

    def seat_weights(self) -> dict[int, float]:
        """The seat counts tables use, each with its share of the tables (weights summing to
        1): {2: 1.0} for `seats = 2`, {2: 0.75, 4: 0.25} for `seats = { 2 = 3, 4 = 1 }`.
        The config was checked as it was read, so every count is a whole number of seats."""
        if isinstance(self.seats, int):
            return {self.seats: 1.0}
        weights = {int(k): float(v) for k, v in self.seats.items()}
        total = sum(weights.values())
        return {k: w / total for k, w in sorted(weights.items())}


def ladder_from(raw: Mapping[str, Any], source: Path) -> LadderConfig:
    """The ladder config of `raw` (the tables of the file at `source`), checked: its keys and
    their types, the clock, the seat counts against the ruleset, the ruleset's options. Every
    problem is a LadderConfigError starting with the file's name."""
    where = f"{source}: "
    try:
        time = raw.get("time")
        for field in TimeControl.__struct_fields__:  # named as written, before msgspec
            value = time.get(field) if isinstance(time, dict) else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                clock.check(field, value, f"`[time] {field}`")
        config = convert(dict(raw), LadderConfig)
    except (FieldError, clock.ClockError) as exc:
        raise LadderConfigError(where + str(exc)) from None
    try:
        ruleset = get_ruleset(config.ruleset)
        ruleset.options(config.options)
        for count in _seat_counts(config.seats):
            ruleset.check_players(count)
    except (GameConfigError, ValueError) as exc:
        raise LadderConfigError(where + str(exc)) from None
    return config


def _seat_counts(seats: int | dict[str, Any]) -> list[int]:
    """The seat counts `seats` names, each checked (1 to 6 seats, a weight above 0); a
    ValueError in words otherwise."""
    if isinstance(seats, int):
        if not 1 <= seats <= 6:
            raise ValueError(f"`seats` must be from 1 to 6, not {seats}")
        return [seats]
    if not seats:
        raise ValueError("`seats` is an empty table: give a count (seats = 2) or weights")
    counts = []
    for key, weight in seats.items():
        if not key.isdigit() or not 1 <= int(key) <= 6:
            raise ValueError(
                f"`seats`: {toml_key(key)} is not a seat count (a whole number from 1 to 6); "
                "write the weights by seat count, as seats = { 2 = 3, 4 = 1 }"
            )
        ok = isinstance(weight, int | float) and not isinstance(weight, bool) and weight > 0
        if not ok or weight != weight or weight == float("inf"):
            raise ValueError(
                f"`seats`: the weight of {key} seats must be a number more than 0, "
                f"not {toml_value(weight)}"
            )
        counts.append(int(key))
    return counts


def load_ladder_config(folder: str | Path) -> LadderConfig:
    """Read and check `folder/ladder.toml`; every problem is a LadderConfigError naming the
    file and the key."""
    file = Path(folder) / LADDER_FILE
    if not file.is_file():
        raise LadderConfigError(
            f"{folder} is not a ladder folder (no {LADDER_FILE}): make one with "
            f"arena ladder init {folder} --ruleset RULESET"
        )
    return ladder_from(read_toml(file, "ladder file", LadderConfigError), file)


# -- the file written back ------------------------------------------------------------------

#: What each key means, as the written file explains it (in the order it is written).
EXPLAINED: dict[str, str] = {
    "ruleset": "The game every table plays (`arena games` lists the rulesets).",
    "seats": (
        "How many seats a table has: one count (seats = 2), or several with weights, each "
        "count's share of the tables (seats = { 2 = 3, 4 = 1 }: three tables of 2 for each "
        "table of 4). Every count must be one the ruleset takes."
    ),
    "jobs": (
        "Games played at once. Default: the number of cores; `arena ladder serve --jobs N` "
        "overrides it."
    ),
    "options": "The ruleset's options (`arena games` lists them with their defaults).",
    "time": "The clock, in seconds, as a tournament's [time].",
    "time.move": "Seconds per decision.",
    "time.startup": "Seconds to answer hello.",
    "time.bank": "A time bank drawn on past the move time (0: none).",
    "time.increment": "Seconds added to the bank after each decision.",
    "time.margin": (
        "Seconds past a decision's allowance within which an answer read is still taken."
    ),
    "matchmaking": "How tables are chosen.",
    "matchmaking.suspend_after": (
        "A version that faults in this many games in a row is suspended (it plays no more "
        "games), and its author is told why."
    ),
    "matchmaking.settled_share": (
        "A bot whose place is settled (separated from its neighbours above and below at 95%) "
        "gets this share of the games of a bot whose place is not (above 0, up to 1; 1: no "
        "difference)."
    ),
    "matchmaking.places": (
        "The places whose lines matter, as [20] for the line under the top 20: a bot is then "
        "settled once it is separated at 95% from the bots just across the nearest lines above "
        "and below it. Empty: every place is a line (each bot against its neighbours)."
    ),
    "submissions": "What each author may submit.",
    "submissions.active_bots": "Bots an author may have playing at once.",
    "submissions.per_day": "Versions an author may submit in 24 hours.",
    "submissions.archive_mb": "The largest archive (.tar.gz or .zip) accepted, in MiB.",
    "submissions.unpacked_mb": "The most an archive's files may hold together, unpacked, in MiB.",
    "submissions.files": "The most entries (files and folders) an archive may hold.",
    "validation": (
        "The games a new version plays, against copies of itself and the examples, before it "
        "is accepted: one that faults is rejected, with a report its author can read."
    ),
    "validation.games_per_seat": "Games the new version plays in each seat.",
}


def _comment(text: str, indent: str = "") -> list[str]:
    """`text` as comment lines of at most about 92 characters."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(indent) + 2 + len(line) + 1 + len(word) > 92:
            lines.append(f"{indent}# {line}")
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(f"{indent}# {line}")
    return lines


def ladder_toml(config: LadderConfig, heading: str = "") -> str:
    """`config` as the text of a ladder file: `heading` (comment lines) on top, then every
    key with the comment that explains it, its value as set (a key left at None, `jobs`,
    written commented out). `load_ladder_config` reads it back as `config`."""
    data = msgspec.to_builtins(config)
    out = [f"# {line}".rstrip() for line in heading.splitlines()]
    if out:
        out.append("")

    def key(name: str, value: Any, path: str) -> None:
        out.extend(_comment(EXPLAINED[path]))
        if value is None:
            out.append(f"# {toml_key(name)} = 4")
        else:
            out.append(f"{toml_key(name)} = {toml_value(value)}")

    key("ruleset", data["ruleset"], "ruleset")
    out.append("")
    key("seats", data["seats"], "seats")
    out.append("")
    key("jobs", data["jobs"], "jobs")
    for table in ("options", "time", "matchmaking", "submissions", "validation"):
        out.append("")
        out.extend(_comment(EXPLAINED[table]))
        out.append(f"[{table}]")
        if table == "options":
            out.extend(_options_lines(config.ruleset, data["options"]))
            continue
        for name, value in data[table].items():
            key(name, value, f"{table}.{name}")
    return "\n".join(out) + "\n"


def _options_lines(ruleset: str, given: dict[str, Any]) -> list[str]:
    """The [options] table: the options set, then each other option of the ruleset as a
    comment with its allowed values and default."""
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in given.items()]
    try:
        infos = describe_options(get_ruleset(ruleset).options_type)
    except GameConfigError:
        return lines
    for info in infos:
        if info.name in given:
            continue
        default = "" if info.default is None else f" = {toml_value(info.default)}"
        help_text = f": {info.help}" if info.help else ""
        lines.append(f"# {toml_key(info.name)}{default}  ({info.allowed}{help_text})")
    return lines


def write_ladder_config(folder: Path, config: LadderConfig, heading: str = "") -> Path:
    """Write `folder/ladder.toml` whole or not at all; the path written."""
    file = folder / LADDER_FILE
    write_toml(file, ladder_toml(config, heading))
    return file
