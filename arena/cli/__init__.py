"""The command line: the typer commands (`app`) and the rich views (`views`), a thin layer over
the library below. It may import every other layer; none may import it."""

from arena.cli.app import app, main

__all__ = ["app", "main"]
