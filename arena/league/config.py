"""The tournament file: TOML read into typed config, with errors that say where and what."""

from __future__ import annotations

import os
import shlex
import shutil
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from arena.games import GameConfigError, get_ruleset
from arena.games.errors import ArenaError
from arena.referee import clock
from arena.referee.folders import BotSpec, BotSpecError, default_name, load_bot, resolve_command
from arena.referee.game import RefereeConfig
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

    name: Annotated[str, Meta(min_length=1, pattern=r"^[A-Za-z0-9._-]+$")]
    ruleset: str
    bots: list[BotEntry]
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
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    time: TimeControl = TimeControl()
    sandbox: Mode | SandboxConfig = "auto"
    # seat unsandboxed bots with sandboxed ones (they could read those bots' hidden hands)
    allow_mixed_sandbox: bool = False

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
        return self.config.jobs or os.cpu_count() or 1


def _bot(entry: BotEntry, base: Path, index: int, sandbox: SandboxConfig) -> BotSpec:
    where = f"bots[{index}]"
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


def load_tournament(path: str | os.PathLike[str]) -> Tournament:
    """Read and check a tournament file; every problem is a ConfigError naming the field."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"no tournament file at {file}")
    try:
        config = msgspec.toml.decode(file.read_bytes(), type=TournamentConfig)
    except msgspec.ValidationError as exc:
        text = str(exc)
        if text.endswith("`$.format`"):
            text += f"; formats: {', '.join(typing.get_args(Format))}"
        if text.endswith("sandbox`"):
            text += f"; sandbox: {', '.join(typing.get_args(Mode))} or a table of limits"
            text += f" ({', '.join(SandboxConfig.__struct_fields__)})"
        raise ConfigError(f"{file}: {text}") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    if config.deal_file is not None:
        if config.deal_seeds is not None:
            raise ConfigError(f"{file}: give deal_file or deal_seeds, not both")
        seeds = read_deal_file(file.parent / config.deal_file)
        config = msgspec.structs.replace(config, deal_seeds=seeds)
    if config.deal_seeds is not None and not config.deal_seeds:
        raise ConfigError(f"{file}: deal_seeds is empty")
    try:
        ruleset = get_ruleset(config.ruleset)
        ruleset.options(config.options)
        ruleset.check_players(config.seats)
    except GameConfigError as exc:
        raise ConfigError(f"{file}: {exc}") from None
    try:
        bots = [
            _bot(entry, file.parent, i, config.sandbox_for(entry))
            for i, entry in enumerate(config.bots)
        ]
    except ConfigError as exc:
        raise ConfigError(f"{file}: {exc}") from None
    for i, bot in enumerate(bots):
        if (why := bot.refusal(config.ruleset)) is not None:
            raise ConfigError(f"{file}: bots[{i}]: {why}")
    names = [b.name for b in bots]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"{file}: bot names must differ; repeated: {', '.join(duplicates)}")
    if config.seats == 1 and config.format != "round-robin":
        raise ConfigError(
            f'{file}: a solo ruleset (seats = 1) plays format = "round-robin": '
            "every bot plays the same deals"
        )
    if len(bots) < config.seats:
        raise ConfigError(f"{file}: {config.seats} seats per table need at least that many bots")
    if config.format == "gauntlet":
        if config.challenger is None:
            raise ConfigError(f"{file}: a gauntlet needs challenger = one of the bots' names")
        if config.challenger not in names:
            raise ConfigError(
                f"{file}: challenger {config.challenger!r} is not a bot; bots: {', '.join(names)}"
            )
    return Tournament(config, bots, str(file.resolve()))
