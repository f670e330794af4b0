"""Writes megabytes on one line."""
import sys

from _common import messages

for message in messages():
    if message["type"] == "turn":
        sys.stdout.write('{"type": "pass", "padding": "' + "x" * 5_000_000 + '"}\n')
        sys.stdout.flush()
