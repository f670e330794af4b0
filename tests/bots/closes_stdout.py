"""Closes its standard output on its first turn, and goes on running."""
import os
import sys
import time

from _common import messages

for message in messages():
    if message["type"] == "turn":
        sys.stdout.flush()
        os.close(1)
        time.sleep(3600)
