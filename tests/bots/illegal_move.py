"""Writes an illegal move: plays a tile it does not hold (nor on the line)."""
from _common import answer, messages

for message in messages():
    if message["type"] == "turn":
        mine = {tuple(sorted(tile)) for tile in message["hand"]} | {tuple(sorted(map(int, label.strip("[]").split("|"))))
                                                                   for label in message["line"]["tiles"]}
        tile = next((a, b) for a in range(7) for b in range(a, 7) if (a, b) not in mine)
        answer({"type": "play", "tile": list(tile), "end": "left"})
