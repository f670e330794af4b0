"""The log format v1 as typed events: the one source of truth for the schema.

Every line of a log is one of these structs, told apart by its ``type`` field.
``schemas/drawlog-v1.schema.json`` is generated from them (``drawlog schema``),
and a test fails when the two drift apart.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Union

import msgspec

from .format import FORMAT_MINOR, FORMAT_VERSION, LOG_FORMAT, LOG_FORMAT_CHANGES  # noqa: F401  (read from here too)

Pip = Annotated[int, msgspec.Meta(ge=0, le=6, description="one half of a tile, 0 (blank) to 6")]
Tile = Annotated[
    tuple[Pip, Pip],
    msgspec.Meta(description="a tile as two halves; [1,4] and [4,1] are the same tile"),
]
Player = Annotated[str, msgspec.Meta(description="a player id from match_start.players")]
End = Literal["left", "right", "up", "down"]
#: The integers a log may claim (scores, points, a target): those a 64-bit column holds.
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
Seq = Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1, description="per-match sequence number: 1, 2, 3 …")]
#: An RFC 3339 timestamp with its offset, decoded by msgspec as a ``datetime`` (as quick as a string); a ``ts``
#: that is not one makes the line take the slow path, where it is warned of (W405) and ignored.
Timestamp = Annotated[datetime, msgspec.Meta(tz=True, extra_json_schema={"format": "date-time"})]
#: Why a referee stopped a match (``match_end.forfeit.reason``, format v1.2).
ForfeitReason = Literal["illegal-move", "timeout", "crash", "protocol", "withdrawn"]
#: Deepest nesting of arrays and objects in a line, the event's own object included (a log needs 4).
MAX_NESTING = 64


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether decoded JSON ``value`` nests lists and dicts more than ``limit`` deep (a scalar is 0 deep)."""
    level = [value]
    depth = 0
    while level:
        containers = [item for item in level if isinstance(item, (dict, list))]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = [child for item in containers for child in (item.values() if isinstance(item, dict) else item)]
    return False


def timestamp(text: str) -> datetime | None:
    """``text`` as an RFC 3339 timestamp as the decoder reads one (a leap second read as :59), or None (W405)."""
    try:
        return msgspec.convert(text, Timestamp)
    except msgspec.ValidationError:
        if text[17:19] != "60":  # 2016-12-31T23:59:60Z: Python's datetime has no leap seconds
            return None
    try:
        return msgspec.convert(text[:17] + "59" + text[19:], Timestamp)
    except msgspec.ValidationError:
        return None


class Event(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True, omit_defaults=True,
            gc=False):
    """Fields every event carries."""

    match: str
    seq: Seq | None = None
    ts: Timestamp | None = None

    def __repr__(self) -> str:
        """The fields given, ``match`` first, tiles as ``[a|b]``: ``Play(match='m1', player='ann', tile=[3|4])``."""
        names = ("match", *(name for name in self.__struct_fields__ if name != "match"))
        given = ((name, getattr(self, name)) for name in names)
        fields = ", ".join(f"{name}={_shown(value)}" for name, value in given
                           if value is not None and value is not msgspec.UNSET)
        return f"{type(self).__name__}({fields})"


def _shown(value: Any) -> str:
    """A field's value for an event's repr: a tile (two pips) as ``[a|b]``, in lists and dicts too."""
    if isinstance(value, tuple) and len(value) == 2 and all(type(half) is int for half in value):
        return f"[{value[0]}|{value[1]}]"
    if isinstance(value, list):
        return f"[{', '.join(_shown(item) for item in value)}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {_shown(item)}" for key, item in value.items()) + "}"
    return repr(value)


class HouseRules(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """House rules (format v1.1): every key optional (absent, never null); an unknown key is F002."""

    hand: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1, description="tiles dealt to each player")] \
        | msgspec.UnsetType = msgspec.UNSET
    reserve: Annotated[int, msgspec.Meta(
        ge=0, le=2**63 - 1, description="Draw only: stock tiles that may never be drawn")] \
        | msgspec.UnsetType = msgspec.UNSET

    def given(self) -> tuple[int | None, int | None]:
        """``(hand, reserve)``, each None when the log leaves it to the game's standard."""
        hand, reserve = self.hand, self.reserve
        return (hand if isinstance(hand, int) else None, reserve if isinstance(reserve, int) else None)


class MatchStart(Event, tag="match_start"):
    """A match begins; ``players`` lists the seats clockwise; ``variant`` names the game."""

    players: list[str]
    target: Int64 | None = None
    variant: Literal["draw", "all-fives"] = "draw"
    rules: HouseRules | None = None
    meta: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.meta is not None and nested_deeper_than(self.meta, MAX_NESTING - 1):
            raise ValueError(f"`meta` is nested too deeply (a line may hold {MAX_NESTING} levels of arrays "
                             f"and objects)")
        if self.variant == "all-fives" and self.rules is not None and self.rules.given()[1] is not None:
            raise ValueError("`rules.reserve` is for Draw only: All Fives has no reserve")


class RoundStart(Event, tag="round_start"):
    """A deal: every player's hand and, optionally, the stock in draw order."""

    round: Annotated[int, msgspec.Meta(ge=1)]
    opener: Player
    hands: dict[str, list[Tile]]
    stock: list[Tile] | None = None


class Draw(Event, tag="draw"):
    """A player takes one tile from the stock and keeps the turn."""

    player: Player
    tile: Tile


class Play(Event, tag="play"):
    """A player places a tile; ``end`` may be left out when only one placement is possible.

    ``points`` is what the log claims the play scored (All Fives' count; always 0 in Draw).
    """

    player: Player
    tile: Tile
    end: End | None = None
    points: Int64 | None = None


class Pass(Event, tag="pass"):
    """A player passes the turn."""

    player: Player


class RoundEnd(Event, tag="round_end"):
    """The log's claim of a round's result (checked, never trusted)."""

    round: Annotated[int, msgspec.Meta(ge=1)]
    reason: Literal["domino", "blocked", "target"]
    winner: Player | None
    points: dict[str, Int64]
    hands: dict[str, list[Tile]] | None = None


class Forfeit(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A player who forfeits the match (format v1.2): who, and why; an unknown key is F002."""

    player: Player
    reason: ForfeitReason


class MatchEnd(Event, tag="match_end"):
    """The log's claim of a match's result (checked, never trusted).

    With ``forfeit`` (v1.2) the match stopped early: ``scores`` are those when
    it stopped, ``winner`` the highest among the other players.
    """

    scores: dict[str, Int64]
    winner: Player | None
    forfeit: Forfeit | None = None


AnyEvent = Union[MatchStart, RoundStart, Draw, Play, Pass, RoundEnd, MatchEnd]
EVENT_TYPES: tuple[type[Event], ...] = (MatchStart, RoundStart, Draw, Play, Pass, RoundEnd, MatchEnd)

#: Field names each event type knows, by its ``type`` tag (for the unknown-field warning).
KNOWN_FIELDS: dict[str, frozenset[str]] = {
    str(cls.__struct_config__.tag): frozenset(cls.__struct_fields__) | {"type"}
    for cls in EVENT_TYPES
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of one log line.

    Unknown fields are allowed (the validator warns ``W401``), so the schema does
    not forbid additional properties.
    """
    schema = msgspec.json.schema(AnyEvent)
    for name, definition in schema["$defs"].items():
        if name not in ("HouseRules", "Forfeit"):  # an unknown key in rules or forfeit is F002, not W401
            definition.pop("additionalProperties", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "drawlog log format v1: one line (event) of a JSON Lines match log",
        **schema,
    }
