"""Crashes mid-match: plays two turns, then dies on the third."""
import sys

from _common import answer, messages

turns = 0
for message in messages():
    if message["type"] == "turn":
        turns += 1
        if turns == 3:
            raise SystemExit("crashing on purpose")
        answer(message["legal"][0])
sys.exit(0)
