"""A cheating bot: before answering hello it tries one attack (`argv[1]`), writes what it got
as one JSON line on stderr ({"attack": ..., ...}), then plays at random to the end.

Attacks:
- "stdin": read the standard input of its sibling processes (the other bots, started by the
  same referee) through /proc/<pid>/fd/0, and list the referee's open files (`argv[2]` is
  the referee's pid).
- "read": read every path in $HOSTILE_PATHS (separated by ":"): files, and the files in
  folders (the tournament file, results, another bot's folder).
- "kill": SIGKILL every process it can see that carries $HOSTILE_MARK in its environment (the
  other bots of the game; the mark keeps a broken sandbox from killing anything else), and
  its parent if that is pid 1 (the sandbox's init); probe with signal 0 whether it could
  signal the referee (`argv[2]`).
- "fork": start up to `argv[2]` child processes that sleep (in sessions of their own if
  `argv[3]` is "setsid": out of the bot's process group).
- "net": connect to 127.0.0.1:`argv[2]` and send a line.
- "seeds": collect every number of 6+ digits in what it can reach (its environment, every
  visible command line and environment, $HOSTILE_PATHS, its folder, $HOME, /tmp) and in every
  message; reported at game_over, with the numbers of game_over apart.
- "memory": allocate `argv[2]` MiB; "memory-split": at its first decision, start `argv[3]`
  child processes that each fill `argv[2]` MiB and hold it, and answer once they have;
  "cpu": burn CPU for up to `argv[2]` seconds; "file":
  write `argv[2]` MiB to $HOME/big.
- "late": no attack; sleep `argv[2]` seconds before reading anything (a victim).
"""

import contextlib
import json
import os
import random
import re
import signal
import socket
import sys
import time

ATTACK = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
NUMBER = re.compile(rb"\d{6,}")


def report(**fields: object) -> None:
    print(json.dumps({"attack": ATTACK, **fields}), file=sys.stderr, flush=True)


def pids() -> list[int]:
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit())


def parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def read_bytes(path: str, limit: int = 1 << 20) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(limit)


def steal_stdin() -> None:
    me, stolen, errors, siblings = os.getpid(), "", [], []
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline and not stolen:
        siblings = [p for p in pids() if p != me and parent_of(p) == os.getppid()]
        for pid in siblings:
            try:
                fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
            except OSError as exc:
                errors.append(f"{pid}: {exc}")
                continue
            try:
                stolen += os.read(fd, 65536).decode("utf-8", "replace")
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.02)
    try:
        referee_files = len(os.listdir(f"/proc/{ARG}/fd"))
    except OSError as exc:
        referee_files = str(exc)
    report(siblings=siblings, stolen=stolen, errors=errors[:5], referee_files=referee_files)


def read_paths() -> None:
    got: dict[str, str] = {}
    errors: dict[str, str] = {}
    for path in filter(None, os.environ.get("HOSTILE_PATHS", "").split(":")):
        try:
            if os.path.isdir(path):
                for name in sorted(os.listdir(path)):
                    inner = os.path.join(path, name)
                    if os.path.isfile(inner):
                        got[inner] = read_bytes(inner, 4096).decode("utf-8", "replace")
                got.setdefault(path, "")
            else:
                got[path] = read_bytes(path, 4096).decode("utf-8", "replace")
        except OSError as exc:
            errors[path] = str(exc)
    report(got=got, errors=errors)


def kill_all() -> None:
    me, mark = os.getpid(), os.environ["HOSTILE_MARK"].encode()
    visible, killed, errors = pids(), [], []
    targets = [1] if os.getppid() == 1 else []
    for pid in visible:
        if pid == me:
            continue
        try:
            if mark in read_bytes(f"/proc/{pid}/environ"):
                targets.append(pid)
        except OSError:
            continue
    for pid in targets:
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError as exc:
            errors.append(f"{pid}: {exc}")
    try:
        os.kill(int(ARG), 0)
        referee = "could signal it"
    except OSError as exc:
        referee = str(exc)
    report(visible=len(visible), killed=killed, errors=errors, referee=referee)


def fork_many() -> None:
    forked, error = 0, None
    for _ in range(int(ARG)):
        try:
            pid = os.fork()
        except OSError as exc:
            error = str(exc)
            break
        if pid == 0:
            if sys.argv[3:] == ["setsid"]:
                os.setsid()
            time.sleep(60)
            os._exit(0)
        forked += 1
    report(forked=forked, error=error)


def connect() -> None:
    try:
        with socket.create_connection(("127.0.0.1", int(ARG)), timeout=2) as sock:
            sock.sendall(b"the hidden cards are...\n")
        report(connected=True)
    except OSError as exc:
        report(connected=False, error=str(exc))


def reachable_numbers() -> set[int]:
    blobs = [b"\0".join(k.encode() + b"=" + v.encode() for k, v in os.environ.items())]
    for pid in pids():
        for part in ("cmdline", "environ"):
            with contextlib.suppress(OSError):
                blobs.append(read_bytes(f"/proc/{pid}/{part}"))
    roots = [*filter(None, os.environ.get("HOSTILE_PATHS", "").split(":")), os.getcwd()]
    files = []
    for root in roots:
        for folder, _, names in os.walk(root) if os.path.isdir(root) else [("", [], [root])]:
            files += [os.path.join(folder, name) for name in names]
    for path in files[:500]:
        with contextlib.suppress(OSError):
            blobs.append(read_bytes(path))
    return {int(n) for blob in blobs for n in NUMBER.findall(blob)}


def hog_memory() -> None:
    try:
        block = bytearray(int(ARG) << 20)
        report(allocated=len(block) >> 20)
    except MemoryError:
        report(allocated=0, error="MemoryError")


def split_memory() -> None:
    """Fill ARG MiB in each of argv[3] child processes (the memory really used, not only
    reserved), and return once all have."""
    ready = []
    for _ in range(int(sys.argv[3])):
        read, write = os.pipe()
        if os.fork() == 0:
            block = bytearray(b"\x01") * (int(ARG) << 20)
            os.write(write, b"1")
            time.sleep(1000 + len(block) * 0)
            os._exit(0)
        os.close(write)
        ready.append(read)
    for fd in ready:
        os.read(fd, 1)
    report(children=len(ready))


def burn_cpu() -> None:
    start = time.process_time()
    while time.process_time() - start < float(ARG):
        pass
    report(survived=True)


def write_file() -> None:
    path, written, error = os.path.join(os.path.expanduser("~"), "big"), 0, None
    chunk = b"x" * (1 << 20)
    try:
        with open(path, "wb", buffering=0) as fh:
            for _ in range(int(ARG)):
                written += fh.write(chunk)
    except OSError as exc:
        error = str(exc)
    report(written=written, error=error)


ATTACKS = {
    "stdin": steal_stdin,
    "read": read_paths,
    "kill": kill_all,
    "fork": fork_many,
    "net": connect,
    "memory": hog_memory,
    "cpu": burn_cpu,
    "file": write_file,
    "late": lambda: time.sleep(float(ARG)),
}

if ATTACK in ATTACKS:
    ATTACKS[ATTACK]()
found = reachable_numbers() if ATTACK == "seeds" else set()
heard: set[int] = set()
heard_act = False
rng = random.Random(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "game_over":
        if ATTACK == "seeds":
            over = {int(n) for n in NUMBER.findall(line.encode())}
            report(files=sorted(found), messages=sorted(heard), game_over=sorted(over))
        break
    heard |= {int(n) for n in NUMBER.findall(line.encode())}
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "hostile"}), flush=True)
    elif msg["type"] == "act":
        if ATTACK == "memory-split" and not heard_act:
            heard_act = True
            split_memory()
        index = rng.randrange(len(msg["actions"]))
        print(json.dumps({"type": "action", "index": index}), flush=True)
