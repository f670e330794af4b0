"""The drawlog bot protocol (``docs/bot-protocol.md``): the messages, as typed structs.

A bot is any program that reads JSON lines on standard input and writes JSON
lines on standard output. The referee sends the messages of
:data:`ToBot` (one per line); the bot answers ``hello`` with ``ready`` and each
``turn`` with one action of :data:`FromBot`. These structs are the one source of
truth: ``schemas/bot-protocol-v1.*.schema.json`` are generated from them
(:func:`json_schema`, ``python -m drawlog.bots --schema to-bot``), and a test fails when they drift apart.

What a bot may not know (the other hands, the stock's order) has no field here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from ..log.events import End, ForfeitReason, Tile

#: The protocol's version: ``hello.protocol``; a change a bot must know of gives a new one.
PROTOCOL_VERSION = 1
#: The longest line a bot may write, in bytes; a longer one is a protocol error.
MAX_LINE = 65536

Name = Annotated[str, msgspec.Meta(description="a player's name (the bot's name in the arena)")]
Count = Annotated[int, msgspec.Meta(ge=0)]


class _Message(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=False):
    """Every message is one JSON object on one line, told apart by ``type``."""


# -- referee to bot ----------------------------------------------------------


class HouseRulesInfo(msgspec.Struct, kw_only=True):
    """The settings every match of the session is played under."""

    hand: Annotated[int, msgspec.Meta(description="tiles dealt to each player")]
    reserve: Annotated[int, msgspec.Meta(description="stock tiles that may never be drawn (0 in All Fives)")]
    target: Annotated[int, msgspec.Meta(description="the score that wins the match")]


class Hello(_Message, tag="hello"):
    """The first message of a session: the bot answers ``ready`` (within the start-up time)."""

    protocol: Annotated[int, msgspec.Meta(description="the protocol version (1)")]
    name: Annotated[str, msgspec.Meta(description="the bot's name in this arena")]
    variant: Literal["draw", "all-fives"]
    players: Annotated[int, msgspec.Meta(ge=2, le=4, description="players at each table")]
    rules: HouseRulesInfo
    time_per_move_ms: Annotated[int, msgspec.Meta(description="the time the bot has to answer a turn")]


class MatchBegins(_Message, tag="match_start"):
    """A match begins: the seats clockwise, and which one is yours."""

    match: str
    players: list[Name]
    you: Name
    seat: Annotated[int, msgspec.Meta(ge=0, description="your index in players")]


class RoundBegins(_Message, tag="round_start"):
    """A deal: your hand only, and how many tiles each player holds."""

    match: str
    round: int
    opener: Name
    hand: list[Tile]
    hand_sizes: dict[str, Count]
    stock: Annotated[int, msgspec.Meta(ge=0, description="tiles in the stock (boneyard)")]
    scores: dict[str, int]


class Seen(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A move as the bot may see it: another player's drawn tile is never shown."""

    action: Literal["play", "draw", "pass"]
    player: Name
    tile: Tile | None = None
    end: End | None = None
    points: int | None = None


class PlayAction(_Message, tag="play"):
    """Place ``tile`` on ``end`` (``end`` is ignored on the opening tile, which opens as written)."""

    tile: Tile
    end: End | None = None


class DrawAction(_Message, tag="draw"):
    """Take the next tile from the stock (the turn stays yours)."""


class PassAction(_Message, tag="pass"):
    """Pass the turn."""


Action = PlayAction | DrawAction | PassAction


class Turn(_Message, tag="turn"):
    """Your move: your view of the table, what happened since your last turn, and the legal actions."""

    match: str
    round: int
    ply: Annotated[int, msgspec.Meta(ge=1, description="the move's number in the round")]
    hand: list[Tile]
    line: Annotated[dict[str, Any], msgspec.Meta(
        description="the board as `drawlog replay --format json` gives it: tiles, chain, arms, spinner, open points")]
    ends: Annotated[dict[str, int], msgspec.Meta(description="open end → the value a tile placed there must match")]
    stock: Count
    drawable: Annotated[int, msgspec.Meta(ge=0, description="how many more tiles may be drawn from the stock")]
    hand_sizes: dict[str, Count]
    scores: Annotated[dict[str, int], msgspec.Meta(description="match scores, this round's play points included")]
    events: list[Seen]
    legal: list[Action]
    must_place: Annotated[Tile | None, msgspec.Meta(
        description="All Fives: the tile you just drew, which fits and must be placed at once")] = None


class RoundOver(_Message, tag="round_end"):
    """A round's result."""

    match: str
    round: int
    reason: Literal["domino", "blocked", "target"]
    winner: Name | None
    points: dict[str, int]
    scores: dict[str, int]
    events: list[Seen]


class ForfeitInfo(msgspec.Struct):
    """Who forfeited the match, and why."""

    player: Name
    reason: ForfeitReason


class MatchOver(_Message, tag="match_end"):
    """A match's result (``forfeit`` when a player forfeited it)."""

    match: str
    scores: dict[str, int]
    winner: Name | None
    forfeit: ForfeitInfo | None = None


class Bye(_Message, tag="bye"):
    """The session is over: the bot should exit."""


ToBot = Hello | MatchBegins | RoundBegins | Turn | RoundOver | MatchOver | Bye


class Ready(_Message, tag="ready"):
    """The answer to ``hello``."""

    name: str | None = None


FromBot = Ready | PlayAction | DrawAction | PassAction

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(FromBot)


def encode(message: ToBot) -> bytes:
    """One message as a JSON line (newline included)."""
    return _encoder.encode(message) + b"\n"


class ProtocolError(ValueError):
    """A line from a bot that is not a message of the protocol."""


def decode(line: bytes) -> Ready | PlayAction | DrawAction | PassAction:
    """A bot's line as its message, or :class:`ProtocolError` saying what is wrong (unknown fields are ignored)."""
    try:
        return _decoder.decode(line)
    except msgspec.DecodeError as error:
        shown = line[:80].decode("utf-8", "backslashreplace")
        raise ProtocolError(f"{error} in {shown!r}{' …' if len(line) > 80 else ''}") from None


def json_schema(direction: str) -> dict[str, Any]:
    """The JSON Schema (2020-12) of one line ``to-bot`` (the referee's messages) or ``from-bot`` (the answers)."""
    union = ToBot if direction == "to-bot" else FromBot
    schema = msgspec.json.schema(union)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"drawlog bot protocol v{PROTOCOL_VERSION}: one line "
                 + ("the referee sends a bot" if direction == "to-bot" else "a bot sends the referee"),
        **schema,
    }
