"""One base class for the errors a user sees in words, caught once by the CLI; one fault
taxonomy in one module."""

from __future__ import annotations

import typing

import pytest
from typer.testing import CliRunner

from arena.cli.app import app
from arena.games import GameConfigError, GameFinished
from arena.games.errors import ArenaError
from arena.league.config import ConfigError
from arena.referee import faults
from arena.referee.folders import BotSpecError, BuildError
from arena.referee.programs import ProgramError
from arena.referee.records import RecordError, StorageError
from arena.referee.replay import ReplayError
from arena.referee.sandbox import SandboxUnavailable
from arena.referee.spawn import NoResources
from protocol.messages import GameOver


@pytest.mark.parametrize(
    "error",
    [
        GameConfigError,
        BotSpecError,
        BuildError,
        ConfigError,
        ProgramError,
        RecordError,
        StorageError,
        ReplayError,
        SandboxUnavailable,
        NoResources,
    ],
)
def test_every_user_error_is_an_arena_error(error: type[Exception]) -> None:
    assert issubclass(error, ArenaError)


def test_the_rules_end_and_the_protocol_message_have_different_names() -> None:
    assert GameFinished.__name__ != GameOver.__name__
    assert not issubclass(GameFinished, ArenaError)  # a bug if it reaches the user


def test_the_taxonomy_has_a_hint_for_every_kind() -> None:
    assert set(faults.HINTS) == set(faults.FAULT_KINDS) == set(typing.get_args(faults.FaultKind))


def test_a_user_error_in_any_command_is_one_line_and_exit_2(tmp_path: typing.Any) -> None:
    """The commands do not catch these themselves: one wrapper does, for all of them."""
    damaged = tmp_path / "games.jsonl"
    damaged.write_text("not a record\n{}\n")
    runner = CliRunner()
    for args in (
        ["replay", str(damaged)],
        ["protocol", "schema", "--ruleset", "chess"],
        ["demo", "chess"],
        ["tournament", str(tmp_path / "missing.toml")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: "), (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
