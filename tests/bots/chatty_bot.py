"""Writes an extra action line after a proper answer, in the same write. By `argv[1]`:
"always" after every answer; "before-take" only once, when it beats a set of two or more
cards (so that its very next decision is its own take-back), and plays at random otherwise."""

import json
import random
import sys

MODE = sys.argv[1]
rng = random.Random(0)
done = False
EXTRA = json.dumps({"type": "action", "index": 0})

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "chatty"}), flush=True)
        continue
    if msg["type"] != "act":
        continue
    obs, actions = msg["observation"], msg["actions"]
    index, extra = rng.randrange(len(actions)), MODE == "always"
    if MODE == "before-take" and not done and obs["phase"] == "play" and len(obs["middle"]) > 1:
        beats = [
            i
            for i, a in enumerate(actions)
            if a["type"] == "play" and len(a["cards"]) < len(obs["hand"])
        ]
        if beats:
            index, extra, done = beats[0], True, True
    out = json.dumps({"type": "action", "index": index}) + "\n"
    if extra:
        out += EXTRA + "\n"
    sys.stdout.write(out)
    sys.stdout.flush()
