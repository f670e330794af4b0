"""Hangs: plays one turn, then never answers again."""
import time

from _common import answer, messages

turns = 0
for message in messages():
    if message["type"] == "turn":
        turns += 1
        if turns == 2:
            time.sleep(3600)
        answer(message["legal"][0])
