"""Writes garbage instead of a move."""
import sys

from _common import messages

for message in messages():
    if message["type"] == "turn":
        sys.stdout.write("I would like to play the double six please\n")
        sys.stdout.flush()
