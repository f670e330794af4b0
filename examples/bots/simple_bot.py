#!/usr/bin/env python3
"""A drawlog bot in plain Python (no drawlog needed): plays its heaviest legal tile, else draws or passes.

Run it in an arena:  drawlog arena --bot simple="python3 examples/bots/simple_bot.py" --builtin greedy -o arena/
The protocol: docs/bot-protocol.md. Standard error is kept in arena/bots/simple.stderr.
"""

import json
import sys


def choose(turn):
    """The action for a turn: the legal play with the most pips, else the legal draw or pass."""
    plays = [action for action in turn["legal"] if action["type"] == "play"]
    if plays:
        return max(plays, key=lambda action: sum(action["tile"]))
    return turn["legal"][0]


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            print(f"simple bot: {message['variant']}, {message['players']} players", file=sys.stderr)
            answer = {"type": "ready", "name": "simple"}
        elif kind == "turn":
            answer = choose(message)
        elif kind == "bye":
            break
        else:
            continue  # match_start, round_start, round_end, match_end: nothing to answer
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
