"""`arena protocol schema`: the JSON Schema of the protocol for one ruleset."""

from __future__ import annotations

from typing import Annotated

import msgspec
import typer

from arena.cli.app import Group
from arena.cli.common import command, registry
from arena.games import get_ruleset
from protocol.messages import schema

protocol_app = typer.Typer(cls=Group, help="The bot protocol.", no_args_is_help=True)
registry.add_typer(protocol_app, name="protocol")


@command("schema", on=protocol_app)
def protocol_schema(
    ruleset: Annotated[
        str, typer.Option("--ruleset", "-r", help="the ruleset whose game types to use")
    ] = "odin",
) -> None:
    """Print the JSON Schema of every protocol message, for one ruleset."""
    st = get_ruleset(ruleset).state_type
    doc = schema(st.observation_type, st.action_type, st.event_type)
    typer.echo(msgspec.json.format(msgspec.json.encode(doc), indent=2).decode())
