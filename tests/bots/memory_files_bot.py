"""Holds memory in memory files rather than in its own address space: at its first decision
it writes `argv[2]` MiB with write(), in `argv[3]` files (at most 64 MiB each, the sandbox's
file size limit), of a kind `argv[1]` says:
- "memfd": memfd_create files, never mapped;
- "shm": files in /dev/shm (closed once written);
- "mapped": memfd files, mapped, every page of them written through the mapping (what a bot
  sharing memory between its processes does).
It keeps the files, writes {"files": N, "written": MiB} on stderr, waits `argv[4]` seconds,
then plays at random to the end."""

import json
import mmap
import os
import random
import sys
import time

KIND, MIB, FILES, HOLD = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
CHUNK = b"\x01" * (1 << 20)
kept: list[object] = []


def fill() -> int:
    """Write MIB MiB into FILES files of KIND; the MiB written."""
    written = 0
    for i in range(FILES):
        size = MIB // FILES
        if KIND == "shm":
            fd = os.open(f"/dev/shm/hoard-{i}", os.O_WRONLY | os.O_CREAT, 0o600)
        else:
            fd = os.memfd_create(f"hoard-{i}")
        if KIND == "mapped":
            os.ftruncate(fd, size << 20)
            view = mmap.mmap(fd, size << 20)
            for offset in range(0, size << 20, 1 << 20):
                view[offset : offset + (1 << 20)] = CHUNK
            kept.append(view)
            written += size
        else:
            for _ in range(size):
                written += os.write(fd, CHUNK) >> 20
        if KIND == "shm":
            os.close(fd)
        else:
            kept.append(fd)
    return written


rng = random.Random(0)
filled = False
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "memory-files"}), flush=True)
    elif msg["type"] == "act":
        if not filled:
            filled = True
            print(json.dumps({"files": FILES, "written": fill()}), file=sys.stderr, flush=True)
            time.sleep(HOLD)
        index = rng.randrange(len(msg["actions"]))
        print(json.dumps({"type": "action", "index": index}), flush=True)
    elif msg["type"] == "game_over":
        break
