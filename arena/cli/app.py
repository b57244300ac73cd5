"""The `arena` command: a thin layer over the library API, one module per command group."""

from __future__ import annotations

# Importing a command module registers its commands, in this order in `arena --help`.
# isort: off
from arena.cli import play, replay, check, tournament, report, faults, sprt, schema  # noqa: F401

# isort: on
from arena.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    app()
