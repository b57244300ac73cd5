"""Sends a well-formed but illegal action at its first decision (`argv[1]` says which),
and writes the action it sent to stderr so that the test can find it in the record."""

import json
import sys

MODE = sys.argv[1]


def illegal(request: dict) -> dict:
    obs = request["observation"]
    if MODE == "not-held":
        # a real card of the deck (Odin, four colours for 2 players) held by someone else
        seen = set(obs["hand"]) | set(obs["middle"])
        card = next(f"{n}{c}" for n in range(9, 0, -1) for c in "ROYG" if f"{n}{c}" not in seen)
        return {"type": "action", "action": {"type": "play", "cards": [card]}}
    if MODE == "not-a-card":
        return {"type": "action", "action": {"type": "play", "cards": ["10X"]}}
    if MODE == "index":
        return {"type": "action", "index": len(request["actions"])}
    if MODE == "negative-index":
        return {"type": "action", "index": -1}
    if MODE == "take":
        return {"type": "action", "action": {"type": "take", "card": obs["hand"][0]}}
    raise SystemExit(f"unknown mode {MODE}")


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "illegal"}), flush=True)
    elif msg["type"] == "act":
        reply = illegal(msg)
        shown = reply["action"] if "action" in reply else {"index": reply["index"]}
        print(json.dumps(shown, separators=(",", ":")), file=sys.stderr)
        sys.stderr.flush()
        print(json.dumps(reply), flush=True)
