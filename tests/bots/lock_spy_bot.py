"""A cheating bot that talks to its own copies in other games through file locks on the
system's files, which every sandbox shares (one inode under /usr for all of them).

At its first decision it claims a slot, one of SLOTS files under /usr/bin, with `flock`, and
publishes its seat and hand there as byte-range locks, one byte a card: POSIX read locks
(F_SETLK) in one region, open-file-description locks (F_OFD_SETLK) in another. Then, for
`argv[2]` seconds, it reads the other slots with F_GETLK and F_OFD_GETLK and keeps every
hand published there for the other seat that shares no card with its own: among them, what
its copy holds at the same deal in the other seating, which is its opponent's hand here. It
reports one JSON line on stderr ({"attack": "locks", "seat", "hand", "slot", "learned":
[hands], "errors": [the calls refused, with their errors]}) and plays at random to the end,
holding its locks until it exits. Where `flock` is refused it takes the first slot all the
same and still tries the byte locks.

`argv[1]` is a number that places the slots and regions, so that runs on one machine at the
same time do not read each other.
"""

import errno
import fcntl
import json
import os
import random
import struct
import sys
import time
from typing import Any

from protocol.bot import run

TAG = int(sys.argv[1]) if len(sys.argv) > 1 else 0
PATIENCE = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
SLOTS = 8
COLOURS = "ROYGBP"
CARDS = 9 * len(COLOURS)
BASE = (TAG % 100_000) * 1024  # the byte of card 0 of seat 0 in the POSIX region
OFD = 512  # the OFD region, past the POSIX one
FLOCK = "hhqqi4x"  # struct flock on x86_64 and aarch64: type, whence, start, len, pid

rng = random.Random()
state: dict[str, Any] = {"seat": 0, "done": False}
errors: list[str] = []


def card_index(card: str) -> int:
    return (int(card[:-1]) - 1) * len(COLOURS) + COLOURS.index(card[-1])


def card_name(index: int) -> str:
    return f"{index // len(COLOURS) + 1}{COLOURS[index % len(COLOURS)]}"


def slot_files() -> list[str]:
    """SLOTS files under /usr/bin, the same in every sandbox on this machine."""
    names: list[str] = []
    for name in sorted(os.listdir("/usr/bin")):
        path = os.path.realpath(os.path.join("/usr/bin", name))
        if os.path.isfile(path) and os.access(path, os.R_OK) and path not in names:
            names.append(path)
    start = TAG % max(1, len(names) - SLOTS)
    return names[start : start + SLOTS]


def note(what: str, exc: OSError) -> None:
    text = f"{what}: {errno.errorcode.get(exc.errno or 0, exc.errno)}"
    if text not in errors:
        errors.append(text)


def lock(fd: int, command: int, offset: int) -> None:
    fcntl.fcntl(fd, command, struct.pack(FLOCK, fcntl.F_RDLCK, os.SEEK_SET, offset, 1, 0))


def locked(fd: int, command: int, offset: int) -> bool:
    """Whether another holder has a lock on the byte at `offset` (F_GETLK, F_OFD_GETLK)."""
    probe = struct.pack(FLOCK, fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)
    kind: int = struct.unpack(FLOCK, fcntl.fcntl(fd, command, probe))[0]
    return kind != fcntl.F_UNLCK


def publish(files: list[str], seat: int, hand: list[int]) -> int | None:
    """Claim a slot and lock the hand's bytes in it; the slot, or None if every one is taken."""
    for slot, path in enumerate(files):
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):  # another copy's slot
                os.close(fd)
                continue
            note("flock", exc)  # no flock at all: this slot all the same
        state[f"slot-{slot}"] = fd  # held open (and locked) until the bot exits
        for card in hand:
            try:
                lock(fd, fcntl.F_SETLK, BASE + seat * 64 + card)
            except OSError as exc:
                note("F_SETLK", exc)
            ofd = os.open(path, os.O_RDONLY)  # one open file description for the OFD locks
            state[f"ofd-{slot}-{card}"] = ofd
            try:
                lock(ofd, fcntl.F_OFD_SETLK, BASE + OFD + seat * 64 + card)
            except OSError as exc:
                note("F_OFD_SETLK", exc)
        return slot
    return None


def read_slot(path: str, seat: int) -> set[int]:
    """The cards published for `seat` in the slot file at `path` (by either kind of lock)."""
    fd = os.open(path, os.O_RDONLY)
    found: set[int] = set()
    try:
        for card in range(CARDS):
            for command, region in ((fcntl.F_GETLK, 0), (fcntl.F_OFD_GETLK, OFD)):
                try:
                    if locked(fd, command, BASE + region + seat * 64 + card):
                        found.add(card)
                except OSError as exc:
                    note("F_GETLK" if command == fcntl.F_GETLK else "F_OFD_GETLK", exc)
    finally:
        os.close(fd)
    return found


def occupied(path: str) -> bool | None:
    """Whether someone holds the slot's flock (None: flock is refused, so who knows)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            return True
        note("flock", exc)
        return None
    finally:
        os.close(fd)
    return False


def spy(hand: list[str]) -> None:
    seat = state["seat"]
    mine = sorted(card_index(c) for c in hand)
    files = slot_files()
    slot = publish(files, seat, mine)
    learned: list[list[str]] = []
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        for other, path in enumerate(files):
            if other == slot or occupied(path) is False:
                continue
            cards = read_slot(path, 1 - seat)
            names = [card_name(c) for c in sorted(cards)]
            if len(cards) == len(mine) and not cards & set(mine) and names not in learned:
                learned.append(names)
        time.sleep(0.01)
    report = {"attack": "locks", "seat": seat, "hand": [card_name(c) for c in mine]}
    report |= {"slot": slot, "learned": learned, "errors": errors}
    print(json.dumps(report), file=sys.stderr, flush=True)


def hello(msg: dict[str, Any]) -> None:
    state["seat"] = msg["seat"]
    rng.seed(f"lock-spy:{msg['seat']}")


def decide(request: dict[str, Any]) -> int:
    if not state["done"]:
        state["done"] = True
        spy(request["observation"]["hand"])
    return rng.randrange(len(request["actions"]))


if __name__ == "__main__":
    run(decide, name="lock-spy", on_hello=hello)
