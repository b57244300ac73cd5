"""The command line, a thin layer over the library below: the typer app and what every command
shares (`common`), reading bots and options from arguments (`inputs`), one module per command
group (`play`, `replay`, `check`, `tournament`, `faults`, `sprt`, `schema`) and the rich views
(`views`). It may import every other layer; none may import it."""

from arena.cli.app import app, main

__all__ = ["app", "main"]
