"""What the process benchmarks share: a trivial bot, its hello, and a typical request line."""

from __future__ import annotations

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
