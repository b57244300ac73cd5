"""The command line, a thin layer over the library below: the `arena` command and its table of
commands (`app`, which imports a command's module only when that command runs), what every
command shares (`common`), reading bots and options from arguments (`inputs`), one module per
command group (`play`, `replay`, `check`, `tournament`, `report`, `faults`, `sprt`, `schema`)
and the rich views (`views`). It may import every other layer; none may import it."""

from arena.cli.app import app, main

__all__ = ["app", "main"]
