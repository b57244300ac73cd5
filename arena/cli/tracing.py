"""What `arena play` and `arena check-bot` share for debugging a bot: the --trace options
(every line to and from each bot, `arena.referee.trace`) and the check, before any bot
starts, that a file they are to write can be written."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from arena.referee.records import StorageError, storage_error
from arena.referee.trace import Trace

TraceOption = Annotated[
    bool,
    typer.Option(
        "--trace",
        help="show every line between the referee and each bot, each way, with the seat and "
        "the time in ms since the game started, on stderr",
    ),
]
TraceFile = Annotated[
    Path | None,
    typer.Option(
        "--trace-file",
        help="write the trace (see --trace) to this file instead of stderr (it is replaced)",
    ),
]


def check_writable(path: Path, option: str, *, append: bool) -> None:
    """Raise StorageError, in words naming `option`, unless `path` is a file that can be
    appended to (`append`) or written, in a folder that exists: before a game, rather than
    once it has been played. The file is not changed; one made to find out is removed."""
    if path.is_dir():
        raise StorageError(f"{option} {path}: it is a folder, not a file")
    folder = path.parent
    if not folder.exists():
        raise StorageError(f"{option} {path}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise StorageError(f"{option} {path}: {folder} is a file, not a folder")
    existed = path.exists()
    try:
        with open(path, "ab+" if append else "ab"):
            pass
    except OSError as exc:
        raise StorageError(f"{option}: {storage_error('write', path, exc)}") from None
    if not existed:
        with contextlib.suppress(OSError):
            os.unlink(path)


@contextlib.contextmanager
def opened_trace(trace: bool, trace_file: Path | None) -> Iterator[Trace | None]:
    """The trace asked for: to `trace_file` (checked first, then replaced), else with
    `trace` to stderr, else None."""
    if trace_file is not None:
        check_writable(trace_file, "--trace-file", append=False)
        with open(trace_file, "w", encoding="utf-8") as file:
            yield Trace.to_file(file)
        return
    if trace:
        yield Trace(lambda text: typer.echo(text, err=True))
        return
    yield None
