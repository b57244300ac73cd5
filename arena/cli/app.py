"""The `arena` command: the table of its commands, each command's module imported only when
that command runs or shows its own help (so `arena --help`, `arena --version` and `arena
games` start without the referee, the league, trio or numpy), and every mistake on the
command line (an unknown command or option, a missing or malformed value) as one `error:`
line, exit status 2."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup, TyperOption

if TYPE_CHECKING:
    from typer._click import Command, Context, Parameter

__all__ = ["COMMANDS", "app", "main"]

DISTRIBUTION = "arena-referee"  # the name in pyproject.toml, which `arena --version` shows
HELP = "arena: fair games between bot programs, enforced rules and ratings."


class Entry(NamedTuple):
    """A command as `arena --help` lists it, without importing it."""

    module: str  # the module whose import registers the command (`arena.cli.common.command`)
    help: str  # the first paragraph of the command's own help, on one line
    plays: bool = True  # it runs games or bots: the descriptor limit is raised first


# Every command, in the order of `arena --help` (tests/cli/test_startup.py holds this table
# to the commands themselves).
COMMANDS: dict[str, Entry] = {
    "games": Entry(
        "arena.cli.rulesets", "List the rulesets with their player counts and options.", plays=False
    ),
    "demo": Entry(
        "arena.cli.play", "Play one game between random players in process, printed move by move."
    ),
    "play": Entry("arena.cli.play", "Play one game between bots and show it move by move."),
    "replay": Entry(
        "arena.cli.replay",
        "Re-play recorded games through the rules engine, verify them, show them step by step.",
    ),
    "export": Entry(
        "arena.cli.replay",
        "Write recorded games as one readable text log, as PGN is for chess: for each game its "
        "tags, every move in words, the result; every game of the file or folder, or the one "
        "chosen with --game or --line.",
    ),
    "check-bot": Entry(
        "arena.cli.check",
        "Play a bot against random opponents, in every seat, and report every protocol "
        "problem, and whether it works inside the sandbox.",
    ),
    "tournament": Entry(
        "arena.cli.tournament",
        "Run a tournament, from a file or from flags; running it again resumes where it stopped.",
    ),
    "leaderboard": Entry(
        "arena.cli.tournament",
        "Show the standings of a results folder: Elo ± error, score, places, faults; beside "
        "them the Swiss standings, the deal pairs and the crosstable.",
    ),
    "report": Entry(
        "arena.cli.report",
        "Write a tournament's report: one HTML file that opens from disk with no network, "
        "with the leaderboard, rating charts, the crosstable, faults and every game's replay.",
    ),
    "faults": Entry(
        "arena.cli.faults",
        "List every fault: game, bot, decision, reason and the end of the bot's stderr.",
    ),
    "sprt": Entry(
        "arena.cli.sprt",
        "Play paired deals between two bots until an SPRT accepts H0 or H1 (as fishtest); "
        "running it again resumes it. Exit status: 0 H1 accepted, 1 H0 accepted, 4 no "
        "decision.",
    ),
    "ladder": Entry(
        "arena.cli.ladder",
        "Run a ladder: bots submitted at any time by their authors, validated, played "
        "continuously and rated live.",
    ),
    "submit": Entry(
        "arena.cli.submit",
        "Submit a bot's folder to a ladder as a new version, and wait for its verdict. Exit "
        "status: 0 accepted, 1 rejected, 2 an error.",
        plays=False,
    ),
    "protocol": Entry("arena.cli.schema", "The bot protocol.", plays=False),
}


class CommandLineError(Exception):
    """A mistake on the command line, already in words: printed as one `error:` line."""


def _unset_help_is_false(option: TyperOption | None) -> TyperOption | None:
    """The `--help` flag, not given, as False rather than None: typer checks a None flag with
    pydantic, whose import (about half the start-up of `arena games`) a command that takes no
    other value then need not pay."""
    if option is not None and option.default is None:
        option.default = False
    return option


class ArenaCommand(TyperCommand):
    """A command (`arena.cli.common.command` makes them all of this class)."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _unset_help_is_false(super().get_help_option(ctx))


class Group(TyperGroup):
    """A group of commands whose unknown command is one error line naming its near misses."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        return _unset_help_is_false(super().get_help_option(ctx))

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        name = args[0]
        if not name.startswith("-") and self.get_command(ctx, name) is None:
            commands = self.list_commands(ctx)
            raise CommandLineError(unknown_command(ctx.command_path, name, commands))
        return super().resolve_command(ctx, args)


class LazyGroup(Group):
    """The `arena` group: it lists its commands from `COMMANDS` and imports a command's module
    only to run that command or to show that command's own help. Every mistake on the command
    line ends here, printed as one `error:` line, exit status 2 (a command's own errors are
    printed where they are raised: `arena.cli.common.command`)."""

    listing = False  # while the group's own help is written: commands from the table only

    def list_commands(self, ctx: Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        if self.listing:
            return TyperCommand(cmd_name, short_help=entry.help)
        if cmd_name not in self.commands:
            importlib.import_module(entry.module)
            from arena.cli.common import registry

            group = typer.main.get_group(registry)
            if cmd_name not in group.commands:
                raise LookupError(f"{entry.module} registers no command {cmd_name!r}")
            self.commands[cmd_name] = group.commands[cmd_name]
        return self.commands[cmd_name]

    def format_help(self, ctx: Context, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:  # a caller that handles errors and exit codes itself
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        message: str | None = None
        try:
            result = super().main(
                args, prog_name, complete_var, False, windows_expand_args, **extra
            )
            code = result if isinstance(result, int) else 0
        except CommandLineError as exc:
            message, code = str(exc), 2
        except typer.TyperException as exc:  # the parser's: a usage error
            code = exc.exit_code
            if type(exc).__name__ != "NoArgsIsHelpError":  # (its help is already shown)
                message = usage_message(exc)
        except typer.Abort:
            message, code = "aborted", 1
        if message is not None:
            from arena.cli.common import fail

            fail(message)
        sys.exit(code)


def _version(asked: bool) -> None:
    """`arena --version`: the distribution's name and installed version, then exit."""
    if not asked:
        return
    import importlib.metadata

    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "(not installed: pip install -e . to give it a version)"
    typer.echo(f"{DISTRIBUTION} {version}")
    raise typer.Exit()


app = typer.Typer(
    cls=LazyGroup, name="arena", help=HELP, no_args_is_help=True, add_completion=False
)


@app.callback()
def _start(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="show the version and exit", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """arena: fair games between bot programs, enforced rules and ratings."""
    entry = COMMANDS.get(ctx.invoked_subcommand or "")
    if entry is None or entry.plays:
        from arena.league.capacity import raise_fd_limit

        raise_fd_limit()  # each bot costs the referee a few descriptors: use all allowed


def main() -> None:
    app()


# -- mistakes on the command line, in words --------------------------------------------------


def unknown_command(path: str, name: str, commands: Sequence[str]) -> str:
    """`name` is not a command of `path` ("arena", "arena protocol"): its near misses, and
    the commands."""
    from arena.games.suggest import unknown

    within = path if " " in path else ""
    return unknown("command", name, commands, within=within)


def option_name(param: Parameter) -> str:
    """How a user names a parameter: its long option (`--jobs`), or an argument's metavar."""
    opts: list[str] = list(getattr(param, "opts", None) or [])
    if getattr(param, "param_type_name", "") == "option" and opts:
        return max(opts, key=len)
    return (param.name or "ARGUMENT").upper()


def usage(ctx: Context | None) -> str:
    """A command's usage line in the project's spelling: `arena sprt [OPTIONS] BOT_A BOT_B`."""
    if ctx is None:
        return "arena [OPTIONS] COMMAND"
    words = [ctx.command_path, "[OPTIONS]"]
    for param in ctx.command.params:
        if getattr(param, "param_type_name", "") != "argument":
            continue
        word = option_name(param) + ("..." if param.nargs == -1 else "")
        words.append(word if param.required else f"[{word}]")
    if isinstance(ctx.command, TyperGroup):
        words.append("COMMAND")
    return " ".join(words)


def _bad_value(exc: typer.BadParameter) -> str:
    """Why a value was refused, in words. The parser checks values with pydantic: its first
    error (`errors()`: type, input, ctx) says what was wrong with which input."""
    errors = getattr(exc.__cause__, "errors", None)
    if not callable(errors):  # a refusal already in words (a command's own check)
        return _sentence(exc.message)
    found = errors()
    if not found:
        return _sentence(exc.message)
    error = found[0]
    kind, given, limits = error.get("type", ""), error.get("input"), error.get("ctx") or {}
    shown = repr(given) if isinstance(given, str) else str(given)
    if kind.startswith("int_"):
        return f"{shown} is not a whole number"
    if kind.startswith("float_") or kind == "finite_number":
        return f"{shown} is not a number"
    if kind == "bool_parsing":
        return f"{shown} is not true or false"
    bounds = {
        "greater_than_equal": ("too small", "at least", "ge"),
        "greater_than": ("too small", "more than", "gt"),
        "less_than_equal": ("too large", "at most", "le"),
        "less_than": ("too large", "less than", "lt"),
    }
    if kind in bounds:
        what, relation, key = bounds[kind]
        return f"{given} is {what}: it must be {relation} {limits.get(key)}"
    if kind in ("enum", "literal_error") and "expected" in limits:
        return f"{shown} is not one of {limits['expected']}"
    if kind == "value_error" and "error" in limits:
        return _sentence(str(limits["error"]))
    return f"{shown} is not a value it takes"


def _sentence(text: str) -> str:
    """A message as part of an `error:` line: no closing period, a capital only where the
    word is all capitals ("Path 'x' does not exist." -> "path 'x' does not exist")."""
    text = text.strip().rstrip(".")
    if text[:1].isupper() and text[1:2].islower():
        text = text[:1].lower() + text[1:]
    return text


def usage_message(exc: typer.TyperException) -> str:
    """A usage error of the parser as one line in the project's words, naming the option or
    argument (`--jobs: 'abc' is not a whole number`)."""
    ctx: Context | None = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "arena"
    see = f" (see {path} --help)"
    kind = type(exc).__name__
    param: Parameter | None = getattr(exc, "param", None)
    hint = getattr(exc, "param_hint", None)
    if isinstance(hint, str):
        name = hint
    elif hint:
        name = max(hint, key=len)
    elif param is not None:
        name = option_name(param)
    else:
        name = ""
    if kind == "MissingParameter" and name:
        what = "option" if getattr(param, "param_type_name", "") == "option" else "argument"
        return f"{path}: missing {what} {name} (usage: {usage(ctx)})"
    if isinstance(exc, typer.BadParameter):
        return f"{name}: {_bad_value(exc)}" if name else _bad_value(exc)
    text = _sentence(exc.format_message() if kind != "NoSuchOption" else exc.message)
    option: str | None = getattr(exc, "option_name", None)
    if kind == "NoSuchOption" and option is not None:
        known = [o for p in (ctx.command.params if ctx else []) for o in getattr(p, "opts", [])]
        from arena.games.suggest import did_you_mean

        hint = did_you_mean(option, [o for o in known if o.startswith("--")] or known)
        return f"unknown option `{option}` of {path}" + (f": {hint}" if hint else see)
    if option is not None and "requires" in text:
        return f"{option}: needs a value"
    if option is not None and "does not take a value" in text:
        return f"{option}: takes no value"
    if extra := re.fullmatch(r"got unexpected extra argument(?:s|\(s\))? \((.*)\)", text):
        words = extra.group(1).split(" ")
        given = ", ".join(repr(w) for w in words)
        takes = ctx is not None and any(
            getattr(p, "param_type_name", "") == "argument" for p in ctx.command.params
        )
        if not takes:
            return f"{path} takes no arguments, not {given}"
        plural = "s" if len(words) > 1 else ""
        return f"{path}: unexpected argument{plural} {given} (usage: {usage(ctx)})"
    return f"{path}: {text}{see}"
