"""The built-in bots as bot programs: ``python -m drawlog.bots greedy`` speaks the bot protocol.

:func:`serve` reads the referee's messages on standard input and answers each
``turn`` with what the built-in bot chooses on a round rebuilt from the
turn's view (:class:`~drawlog.play.bot_view.SeatMemory`): the same choice it
makes in process, so the protocol is tested by our own bots.
"""

from __future__ import annotations

import random
import sys
from typing import BinaryIO

import msgspec

from .bot_view import SeatMemory
from .bots import BOTS
from .protocol import Bye, Hello, MatchBegins, RoundBegins, RoundOver, ToBot, Turn, json_schema

_decoder = msgspec.json.Decoder(ToBot)
_encoder = msgspec.json.Encoder()


def answer(action: tuple) -> bytes:
    """A built-in bot's action as the protocol's JSON line."""
    if action[0] == "play":
        return _encoder.encode({"type": "play", "tile": action[1], "end": action[2]}) + b"\n"
    return _encoder.encode({"type": action[0]}) + b"\n"


def serve(name: str, seed: int, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Play as the built-in bot ``name`` until ``bye`` or the end of input; the exit status."""
    bot = BOTS[name]()
    memory: SeatMemory | None = None
    rng = random.Random(seed)
    for line in stdin:
        message = _decoder.decode(line)
        if isinstance(message, Hello):
            memory = SeatMemory(message.variant, message.rules)
            stdout.write(_encoder.encode({"type": "ready", "name": f"drawlog {name}"}) + b"\n")
        elif isinstance(message, MatchBegins):
            assert memory is not None
            memory.match(message)
            rng = random.Random(f"{seed}/{message.match}/{message.seat}")
        elif isinstance(message, RoundBegins):
            assert memory is not None
            memory.round(message)
        elif isinstance(message, Turn):
            assert memory is not None
            state = memory.rebuild(message)
            stdout.write(answer(bot.choose(state, memory.seat, rng)))
        elif isinstance(message, (RoundOver,)):
            pass
        elif isinstance(message, Bye):
            break
        stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    """``python -m drawlog.bots NAME [SEED]``; ``--schema to-bot|from-bot`` prints the protocol's JSON Schema."""
    if len(argv) == 2 and argv[0] == "--schema" and argv[1] in ("to-bot", "from-bot"):
        sys.stdout.write(msgspec.json.format(msgspec.json.encode(json_schema(argv[1])), indent=2).decode() + "\n")
        return 0
    if len(argv) not in (1, 2) or argv[0] not in BOTS:
        sys.stderr.write(f"usage: python -m drawlog.bots {{{','.join(BOTS)}}} [SEED]\n"
                         f"       python -m drawlog.bots --schema {{to-bot,from-bot}}\n")
        return 2
    return serve(argv[0], int(argv[1]) if len(argv) > 1 else 0, sys.stdin.buffer, sys.stdout.buffer)
