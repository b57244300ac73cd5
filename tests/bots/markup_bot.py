"""Writes Rich markup and terminal control sequences wherever a bot can. On stderr, a line with
`[/]` and escape sequences; then, with $MARKUP_BOT "answer" (the default): a valid ready, and
an action whose type holds `[/]` and escape sequences (the referee's reason quotes it); with
"exit": 15 numbered lines of stderr, then exit with status 1 before answering hello. (Its
name is its file's, so the mode is not an argument.)"""

import json
import os
import sys

sys.stderr.write("[/] stderr \x1b[31mred\x1b[0m [bold]not bold \x1b]0;title\x07\n")
if os.environ.get("MARKUP_BOT", "answer") == "exit":
    sys.stderr.write("".join(f"line {n} [/]\x1b[2K\n" for n in range(1, 16)))
    sys.exit(1)
sys.stderr.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "[/]\x1b[2J"}), flush=True)
    elif msg["type"] == "act":
        action = {"type": "[/]\x1b[2J\x9b[31m"}
        print(json.dumps({"type": "action", "action": action}), flush=True)
