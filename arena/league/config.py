"""The tournament file: TOML read into typed config, with errors that say where and what.

A tournament is written as a file, or given as flags of `arena tournament` (which writes the
same file into its results folder): both are read here, as tables (`tournament_from`), and
every problem is one sentence naming the key as it was written (`FileNames`: `[time] move`
in a file; the command line names its flags), with "did you mean" for a key or a bot that
names nothing, and a refusal for a key that the chosen format would ignore.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from arena.games import GameConfigError, get_ruleset
from arena.games.convert import FieldError, Names, convert, toml_key, toml_value
from arena.games.errors import ArenaError
from arena.games.suggest import unknown
from arena.games.text import counted
from arena.referee import clock
from arena.referee.folders import BotSpec, BotSpecError, default_name, load_bot, resolve_command
from arena.referee.game import RefereeConfig
from arena.referee.records import storage_error
from arena.referee.sandbox import Mode, SandboxConfig, SandboxOverride, settings
from protocol.messages import Limits

Format = Literal["round-robin", "swiss", "gauntlet"]


class ConfigError(ArenaError, ValueError):
    """A tournament file that cannot be run; the message names the file and the field."""


class BotEntry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A bot: a folder holding bot.toml (`path`), or a `command` with optional name and cwd."""

    path: str | None = None
    command: list[str] | str | None = None
    name: str | None = None
    cwd: str | None = None
    env: dict[str, str] = msgspec.field(default_factory=dict)
    sandbox: Mode | SandboxOverride | None = None  # this bot's changes to the tournament's


class TimeControl(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Seconds: to answer hello, per decision, and an optional bank with increment, and the
    margin past a decision's allowance within which an answer read is still taken; each
    checked as the file is read (`arena.referee.clock.check`: a move time of 0 cannot work)."""

    move: float = 1.0
    startup: float = 10.0
    bank: float = 0.0
    increment: float = 0.0
    margin: float = clock.MARGIN_MS / 1000

    def __post_init__(self) -> None:
        for field in self.__struct_fields__:
            clock.check(field, getattr(self, field), f"time.{field}")

    def limits(self) -> Limits:
        return clock.limits(
            move=self.move, startup=self.startup, bank=self.bank, increment=self.increment
        )

    def margin_ms(self) -> int:
        return round(self.margin * 1000)


class TournamentConfig(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Everything that defines a tournament; the schedule derives from it and the seed."""

    name: Annotated[
        str,
        Meta(
            min_length=1,
            pattern=r"^[A-Za-z0-9._-]+$",
            description="a name of letters, digits, '.', '_' and '-' (it names the results folder)",
        ),
    ]
    ruleset: Annotated[str, Meta(description="a ruleset id (`arena games` lists them)")]
    bots: Annotated[
        list[BotEntry],
        Meta(description="[[bots]] tables, each with path (a bot folder) or command"),
    ]
    format: Format = "round-robin"
    seats: Annotated[int, Meta(ge=1, le=6)] = 2
    deals: Annotated[int, Meta(ge=1)] = 1
    rounds: Annotated[int, Meta(ge=1)] = 5
    challenger: str | None = None
    max_tables: Annotated[int, Meta(ge=1)] | None = None
    seed: int = 1
    # A deal file (one seed per line): deal d of every table is played on seed d of the list,
    # so two tournaments can be played on exactly the same deals. Read into `deal_seeds`.
    deal_file: str | None = None
    deal_seeds: list[Annotated[int, Meta(ge=0, le=2**63 - 1)]] | None = None
    jobs: Annotated[int, Meta(ge=1)] | None = None
    # Where games run: worker processes on this machine, or a Dask cluster's scheduler
    # ("tcp://HOST:8786"); neither: in the arena process (arena.league.executors).
    workers: Annotated[int, Meta(ge=1)] | None = None
    cluster: str | None = None
    # On a cluster, the first game waits until it has `wait_workers` workers (default 1), for
    # `wait_timeout` seconds at most (default: as long as it takes).
    wait_workers: Annotated[int, Meta(ge=1)] | None = None
    wait_timeout: Annotated[float, Meta(gt=0)] | None = None
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    time: TimeControl = TimeControl()
    sandbox: Mode | SandboxConfig = "auto"
    # seat unsandboxed bots with sandboxed ones (they could read those bots' hidden hands)
    allow_mixed_sandbox: bool = False
    # The folder the bots' paths, commands and cwd and the deal file are read from
    # (default: the tournament file's own folder); the file written from flags names the
    # folder they were given in.
    base: str | None = None

    def referee_config(self) -> RefereeConfig:
        return RefereeConfig(limits=self.time.limits(), margin_ms=self.time.margin_ms())

    def sandbox_for(self, entry: BotEntry) -> SandboxConfig:
        """The sandbox of one bot: the tournament's, changed by the bot's own entry."""
        base = settings(self.sandbox)
        if entry.sandbox is None:
            return base
        if isinstance(entry.sandbox, str):
            return msgspec.structs.replace(base, mode=entry.sandbox)
        return entry.sandbox.apply(base)


class Tournament(msgspec.Struct, frozen=True):
    """A checked tournament file: its config, the bots resolved to specs, its location."""

    config: TournamentConfig
    bots: list[BotSpec]
    source: str

    @property
    def jobs(self) -> int:
        return jobs_or_cores(self.config.jobs)


def jobs_or_cores(jobs: int | None) -> int:
    """Games at once as asked, or by default one per core of this machine."""
    return jobs or os.cpu_count() or 1


def _bot(entry: BotEntry, base: Path, where: str, sandbox: SandboxConfig) -> BotSpec:
    """The bot of one [[bots]] table (`where` names it in errors), its paths read from
    `base`."""
    if (entry.path is None) == (entry.command is None):
        raise ConfigError(f"{where}: give either path (a bot folder) or command")
    if entry.path is not None:
        try:
            spec = load_bot(str((base / entry.path).resolve()))
        except BotSpecError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        name = entry.name or spec.name
        env = {**spec.env, **entry.env}
        return msgspec.structs.replace(spec, name=name, env=env, sandbox=sandbox)
    assert entry.command is not None
    command = shlex.split(entry.command) if isinstance(entry.command, str) else entry.command
    if not command:
        raise ConfigError(f"{where}: the command is empty")
    cwd = (base / entry.cwd).resolve() if entry.cwd else base.resolve()
    if not cwd.is_dir():
        raise ConfigError(f"{where}: cwd {cwd} is not a folder")
    exe = command[0]
    if exe != "{python}" and shutil.which(exe) is None and not (cwd / exe).is_file():
        raise ConfigError(f"{where}: {exe!r} was not found (cwd {cwd})")
    try:  # a bare name is the file in cwd when there is one (as a folder's); scripts exist
        command = resolve_command(list(command), str(cwd), entry.env, where=where)
    except BotSpecError as exc:
        raise ConfigError(str(exc)) from None
    name = entry.name or default_name(command)
    # An explicit cwd is the bot's own folder; the tournament's folder is not.
    folder = str(cwd) if entry.cwd else None
    return BotSpec(name, list(command), str(cwd), entry.env, folder=folder, sandbox=sandbox)


def read_deal_file(path: Path) -> list[int]:
    """The seeds of a deal file: one integer (0 to 2**63-1) per line; blank lines and text
    after `#` are ignored. Every problem is a ConfigError naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the deal file {path}: {exc}") from None
    seeds = []
    for number, line in enumerate(text.splitlines(), 1):
        word = line.split("#", 1)[0].strip()
        if not word:
            continue
        try:
            seed = int(word)
        except ValueError:
            why = f"{word!r} is not a deal seed (an integer)"
            raise ConfigError(f"{path}:{number}: {why}") from None
        if not 0 <= seed < 2**63:
            raise ConfigError(f"{path}:{number}: a deal seed is from 0 to 2**63-1, not {seed}")
        seeds.append(seed)
    if not seeds:
        raise ConfigError(f"the deal file {path} holds no seeds")
    return seeds


#: The tournament file `arena tournament` writes into the results folder of a tournament given
#: as flags; `arena tournament FOLDER` runs it again.
TOML_FILE = "tournament.toml"


class FileNames(Names):
    """Keys as a tournament file spells them (`seats`, `[time] move`, bots[1])."""

    #: how to tell two bots of one name apart
    rename = "give each a name = in its [[bots]] table"


FILE_NAMES = FileNames()

#: "rounds = 2" said in words, where "2 times" reads badly
_ROUNDS_TIMES = {2: "twice"}


def load_tournament(path: str | os.PathLike[str]) -> Tournament:
    """Read and check a tournament file (or the one in a results folder made from flags);
    every problem is a ConfigError naming the file and the key."""
    file = Path(path)
    if file.is_dir():
        if not (file / TOML_FILE).is_file():
            raise ConfigError(
                f"{file} is a folder without {TOML_FILE}: give a tournament file, or the "
                "results folder of a tournament given as flags"
            )
        file = file / TOML_FILE
    if not file.is_file():
        raise ConfigError(f"no tournament file at {file}")
    return tournament_from(read_toml(file, "tournament file"), file)


def read_toml(file: Path, what: str, error: type[ConfigError] = ConfigError) -> dict[str, Any]:
    """The TOML file `file` (a `what`: "tournament file") as a table; `error` in words when
    it cannot be read or is not TOML (file:line:column: what)."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read the {what} {file}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise error(_toml_error(file, str(exc))) from None


def _toml_error(file: Path, text: str) -> str:
    """A TOML syntax error as file:line:column: what."""
    found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", text)
    if found is None:
        return f"{file}: not valid TOML ({text})"
    what = found[1][:1].lower() + found[1][1:]
    return f"{file}:{found[2]}:{found[3]}: not valid TOML ({what})"


def tournament_from(
    raw: Mapping[str, Any],
    source: Path,
    *,
    names: FileNames = FILE_NAMES,
    prefix: str | None = None,
) -> Tournament:
    """The tournament of `raw`, the tables of a tournament file (or of flags) at `source`:
    checked, its bots loaded. Every problem is a ConfigError starting with `prefix` (default:
    the file's name), naming keys with `names`."""
    where = f"{source}: " if prefix is None else prefix

    def refuse(message: str) -> ConfigError:
        return ConfigError(where + message)

    try:
        for field in TimeControl.__struct_fields__:  # named here as written, before msgspec
            value = raw.get("time", {}).get(field) if isinstance(raw.get("time"), dict) else None
            if isinstance(value, int | float) and not isinstance(value, bool):
                clock.check(field, value, names.key(("time", field)))
        config = convert(dict(raw), TournamentConfig, names=names)
    except (FieldError, clock.ClockError) as exc:
        raise refuse(str(exc)) from None
    base = source.parent / config.base if config.base is not None else source.parent
    if not base.is_dir():
        raise refuse(f"{names.key(('base',))}: {base} is not a folder")
    if config.deal_file is not None:
        if config.deal_seeds is not None:
            key = names.key
            raise refuse(f"give {key(('deal_file',))} or {key(('deal_seeds',))}, not both")
        seeds = read_deal_file(base / config.deal_file)
        config = msgspec.structs.replace(config, deal_seeds=seeds)
    if config.deal_seeds is not None and not config.deal_seeds:
        raise refuse(f"{names.key(('deal_seeds',))} is empty")
    if config.workers is not None and config.cluster is not None:
        key = names.key
        raise refuse(
            f"give {key(('workers',))} (processes on this machine) or {key(('cluster',))} "
            "(a Dask scheduler), not both"
        )
    try:
        ruleset = get_ruleset(config.ruleset)
        ruleset.options(config.options)
        ruleset.check_players(config.seats)
    except GameConfigError as exc:
        raise refuse(str(exc)) from None
    _refuse_other_formats(config, set(raw), names, refuse)
    bots = []
    for i, entry in enumerate(config.bots):
        try:
            bots.append(_bot(entry, base, names.table(("bots", i)), config.sandbox_for(entry)))
        except ConfigError as exc:
            raise refuse(str(exc)) from None
    for i, bot in enumerate(bots):
        if (why := bot.refusal(config.ruleset)) is not None:
            raise refuse(f"{names.table(('bots', i))}: {why}")
    bot_names = [b.name for b in bots]
    duplicates = sorted({n for n in bot_names if bot_names.count(n) > 1})
    if duplicates:
        raise refuse(f"bot names must differ; repeated: {', '.join(duplicates)} ({names.rename})")
    if len(bots) < config.seats:
        have = counted(len(bots), "bot")
        raise refuse(f"{config.seats} seats per table need at least that many bots, not {have}")
    if config.format == "gauntlet":
        challenger = names.key(("challenger",))
        if config.challenger is None:
            raise refuse(
                f"a gauntlet needs {challenger}: the bot that plays all the others; "
                f"bots: {', '.join(bot_names)}"
            )
        if config.challenger not in bot_names:
            raise refuse(unknown("bot", config.challenger, bot_names, within=challenger))
    return Tournament(config, bots, str(source.resolve()))


def _refuse_other_formats(
    config: TournamentConfig,
    given: set[str],
    names: Names,
    refuse: Callable[[str], ConfigError],
) -> None:
    """Refuse a key given that the chosen format does without (it would be ignored): each
    refusal says what the format does instead."""
    key, setting = names.key, names.setting
    kind = {"round-robin": "round robin", "gauntlet": "gauntlet", "swiss": "swiss"}
    solo = config.seats == 1
    if solo and config.format != "round-robin":
        raise refuse(
            f"a solo ruleset ({setting(('seats',), 1)}) plays "
            f"{setting(('format',), 'round-robin')}: every bot plays the same deals"
        )
    if "rounds" in given and config.format != "swiss":
        times = config.rounds
        instead = (
            "leave it out"
            if times == 1
            else f"use {setting(('deals',), config.deals * times)} to play "
            f"{_ROUNDS_TIMES.get(times, f'{times} times')} as many games"
        )
        plays = (
            "every bot plays the same deals once"
            if solo
            else f"a {kind[config.format]} plays each of its tables once"
        )
        raise refuse(
            f"{key(('rounds',))} applies to the swiss format only; {plays}, on "
            f"{key(('deals',))} deals (here {config.deals}): {instead}"
        )
    if "challenger" in given and config.format != "gauntlet":
        raise refuse(
            f"{key(('challenger',))} applies to the gauntlet format only (one bot against all "
            f"the others); this is a {kind[config.format]}: leave it out, or set "
            f"{setting(('format',), 'gauntlet')}"
        )
    if "max_tables" in given and config.format == "swiss":
        raise refuse(
            f"{key(('max_tables',))} applies to the round-robin and gauntlet formats (it "
            "samples their tables); a swiss round seats every bot once, by the standings: "
            "leave it out"
        )
    if "max_tables" in given and solo:
        raise refuse(
            f"{key(('max_tables',))} does not apply to a solo ruleset "
            f"({setting(('seats',), 1)}): every bot plays the deals alone, at no table"
        )


def tournament_toml(raw: Mapping[str, Any], comment: str = "") -> str:
    """`raw` (tables as `tournament_from` reads them) as a TOML file, `comment` on top:
    plain keys first, then each table, then each array of tables."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]

    def pairs(table: Mapping[str, Any]) -> list[str]:
        return [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]

    def is_tables(value: Any) -> bool:
        return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)

    plain = {k: v for k, v in raw.items() if not isinstance(v, dict) and not is_tables(v)}
    lines += pairs(plain)
    for k, v in raw.items():
        if isinstance(v, dict):
            lines += ["", f"[{toml_key(k)}]", *pairs(v)]
    for k, v in raw.items():
        if is_tables(v):
            for table in v:
                lines += ["", f"[[{toml_key(k)}]]", *pairs(table)]
    return "\n".join(lines) + "\n"


def write_toml(path: Path, text: str) -> None:
    """Write a tournament file whole or not at all (a torn file would stop every later run)."""
    new = path.with_name(f".{path.name}.new")
    try:
        new.write_text(text, encoding="utf-8")
        os.replace(new, path)
    except OSError as exc:
        raise storage_error("write", path, exc) from None
