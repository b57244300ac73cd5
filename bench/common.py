"""What the process benchmarks share: trivial bots (Python and C), the hello, and a typical
request line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from arena.games import new_game
from protocol.messages import Request, encode_line

HELLO = (
    b'{"type":"hello","protocol":1,"ruleset":"odin","options":{},"seat":0,"players":2,'
    b'"limits":{"startup_ms":10000,"move_ms":1000,"bank_ms":0,"increment_ms":0}}\n'
)
#: a bot that always answers the first legal action, through protocol.bot
BOT_SOURCE = """
from protocol.bot import run
run(lambda request: 0, name="first-choice")
"""


#: The trivial C bot: `ready` to hello, the first action to every act (after sleeping the
#: milliseconds of its first argument, if any), and gone at game_over.
C_BOT_SOURCE = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
    long ms = argc > 1 ? atol(argv[1]) : 0;
    struct timespec pause = { ms / 1000, (ms % 1000) * 1000000L };
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) > 0) {
        if (strncmp(line, "{\"type\":\"act\"", 13) == 0) {
            if (ms > 0)
                nanosleep(&pause, NULL);
            fputs("{\"type\":\"action\",\"index\":0}\n", stdout);
        } else if (strncmp(line, "{\"type\":\"hello\"", 15) == 0)
            fputs("{\"type\":\"ready\",\"name\":\"first-choice-c\"}\n", stdout);
        else if (strncmp(line, "{\"type\":\"game_over\"", 19) == 0)
            break;
        else
            continue;
        fflush(stdout);
    }
    return 0;
}
"""


def compile_c_bot(folder: Path, name: str = "first_choice") -> Path | str:
    """The C bot compiled in `folder` as `name` (its source beside it), or why it could not
    be."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return "no C compiler (cc) found"
    source, program = folder / f"{name}.c", folder / name
    source.write_text(C_BOT_SOURCE)
    done = subprocess.run(
        [compiler, "-O2", "-o", str(program), str(source)], capture_output=True, text=True
    )
    if done.returncode != 0:
        return f"{compiler} failed: {done.stderr.strip()[-300:]}"
    return program


def sample_line() -> bytes:
    """A typical mid-game `act` line of odin, 2 players, exactly as the referee builds it."""
    state = new_game("odin", 2, None, 7)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    seat = state.current_player
    assert seat is not None
    request = Request(
        decision=6,
        observation=state.observation(seat),
        actions=state.legal_actions(),
        events=state.events_for(seat),
        time_ms=1000,
        bank_ms=0,
    )
    return encode_line(request)
