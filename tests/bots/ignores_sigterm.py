"""Ignores SIGTERM and hangs on its first turn: only SIGKILL ends it."""
import signal
import time

from _common import messages

signal.signal(signal.SIGTERM, signal.SIG_IGN)
for message in messages():
    if message["type"] == "turn":
        time.sleep(3600)
