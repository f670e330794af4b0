"""Answers out of turn: every turn gets its move and then a second, unasked one."""
import sys

from _common import messages

for message in messages():
    if message["type"] == "turn":
        action = message["legal"][0]
        import json
        sys.stdout.write(json.dumps(action) + "\n" + json.dumps({"type": "pass"}) + "\n")
        sys.stdout.flush()
