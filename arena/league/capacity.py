"""How many games this process can hold at once: its file descriptors.

Each bot costs the referee a few descriptors for the life of its game (its three pipes and a
handle on its exit) and a few more while it starts. Running out mid-start used to charge
`startup` faults to bots that did nothing wrong, so the referee raises its soft limit to the
hard one at start and plays no more games at once than the descriptors allow.
"""

from __future__ import annotations

import os
import resource

from arena.games.text import counted

FDS_PER_BOT = 8  # 3 pipes and a pidfd while it plays; 6 pipe ends and the sandbox's options
FDS_PER_GAME = 2  # the journal while a record is appended
RESERVE = 64  # the interpreter's own, the terminal, the results folder's lock


def raise_fd_limit() -> int:
    """Raise the soft limit on open descriptors to the hard limit; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def open_fds() -> int:
    """How many descriptors this process holds now."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 16


def games_at_once(wanted: int, seats: int) -> tuple[int, str | None]:
    """How many of `wanted` concurrent games of `seats` bots the descriptors allow (at least
    one), and a sentence saying so when that is fewer than wanted."""
    limit = raise_fd_limit()
    room = limit - open_fds() - RESERVE
    fit = max(1, room // (seats * FDS_PER_BOT + FDS_PER_GAME))
    if fit >= wanted:
        return wanted, None
    return fit, (
        f"playing {counted(fit, 'game')} at once, not {wanted}: this process may open {limit} "
        f"files (ulimit -n), and each game of {counted(seats, 'bot')} needs about "
        f"{seats * FDS_PER_BOT + FDS_PER_GAME}"
    )
