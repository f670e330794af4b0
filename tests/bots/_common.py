"""Shared by the misbehaving bots: read messages, answer hello, and play the first legal action."""
import json
import sys


def messages():
    """Each message from the referee, hello answered with ready."""
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            answer({"type": "ready"})
            continue
        yield message


def answer(action, out=None):
    """Write one message."""
    stream = out or sys.stdout
    stream.write(json.dumps(action) + "\n")
    stream.flush()
