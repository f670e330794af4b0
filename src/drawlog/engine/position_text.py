"""The text form of a position (``dp1 …``, ``docs/position.md``): the pieces it is written with, and reading one.

:func:`parse_position` gives the fields of a :class:`~.position.Position`;
every fault raises :class:`~drawlog.errors.PositionError` with the 1-based
column of the token (or the tile within it) at fault. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, Final
from urllib.parse import quote, unquote

from ..errors import PositionError
from .allfives import NO_TILE
from .line import DOWN, LEFT, RIGHT, UP, Line
from .profiles import PROFILES
from .rounds import BLOCKED, DOMINO, TARGET
from .tableau import Tableau
from .tiles import FULL_SET, TILE_ID, TILES, label, members

#: The version tag every position string starts with.
VERSION: Final = "dp1"
#: A placement on the line: the tile's halves (the opening tile as written, any other touching half first) and its end.
Laid = tuple[tuple[int, int], str]
#: The end reasons a position may name.
REASONS: Final = (DOMINO, BLOCKED, TARGET)

_LETTER: Final = {LEFT: "l", RIGHT: "r", UP: "u", DOWN: "d"}
_END_OF: Final = {letter: end for end, letter in _LETTER.items()}
_REQUIRED: Final = ("round", "opener", "line", "ends", "hands", "stock", "turn")
_OPTIONAL: Final = ("passed", "points", "must", "missing", "over")
_RULES: Final = re.compile(r"h(\d{1,2})r(\d{1,2})t(\d{1,6}|-)")
_INT: Final = re.compile(r"-?\d{1,9}")
#: ``_TEXT[id]``: the tile written as its two pips, ``34``.
_TEXT: Final = tuple(f"{low}{high}" for low, high in TILES)


def _line_of(fives: bool, laid: Sequence[Laid]) -> Line:
    """A line (Draw) or tableau (All Fives) with the placements carried out, unchecked."""
    line: Line = Tableau() if fives else Line()
    for index, (halves, end) in enumerate(laid):
        if isinstance(line, Tableau):
            line.place_tile(halves, end)
        else:
            line.place(halves if index == 0 else line.resolve(halves, end))  # type: ignore[arg-type]
    return line


@lru_cache(maxsize=256)
def _name(name: str) -> str:
    """A player's name in the string: percent-encoded (UTF-8) outside letters, digits and ``_.~``; ``-`` too."""
    return quote(name, safe="").replace("-", "%2D") if name else "%"


def _unname(text: str) -> str:
    return "" if text == "%" else unquote(text, errors="strict")


def _tile(tile: int) -> str:
    return _TEXT[tile]


def _tiles(tiles: Iterable[int]) -> str:
    return ".".join(map(_TEXT.__getitem__, tiles)) or "-"


#: ``_CHUNKS[k][bits]``: the tiles ``7k`` to ``7k + 6`` of a bit set's 7 bits ``bits``, written, lowest first.
_CHUNKS: Final = tuple(tuple(tuple(_TEXT[7 * chunk + bit] for bit in range(7) if bits >> bit & 1) for bits in range(128))
                       for chunk in range(4))


def _mask_text(mask: int) -> str:
    """A tile bit set written lowest first (``-``: none)."""
    low, mid, high, top = _CHUNKS
    return ".".join(low[mask & 127] + mid[mask >> 7 & 127] + high[mask >> 14 & 127] + top[mask >> 21 & 127]) or "-"


def _line_text(laid: Sequence[Laid]) -> str:
    return ",".join(f"{a}{b}" + ("" if index == 0 else _LETTER[end])
                    for index, ((a, b), end) in enumerate(laid)) or "-"


def _ends_text(line: Line) -> str:
    if line.is_empty:
        return "-"
    ends = [LEFT, RIGHT, UP, DOWN] if isinstance(line, Tableau) and line.arms_open else [LEFT, RIGHT]
    values = [line.value(end) if isinstance(line, Tableau) else (line.left if end == LEFT else line.right)
              for end in ends]
    return ",".join(str(value) for value in values)


_TILE: Final = re.compile(r"[0-6][0-6]")
_PLACED: Final = re.compile(r"([0-6])([0-6])([lrud])")
#: Players at a table (the contract's limits).
_SEATS: Final = range(2, 5)


def _fail(message: str, column: int) -> PositionError:
    return PositionError(message, column)


def _parts(value: str, column: int, sep: str) -> list[tuple[str, int]]:
    """``value`` split at ``sep``, each part with its column."""
    found, at = [], column
    for part in value.split(sep):
        found.append((part, at))
        at += len(part) + len(sep)
    return found


def _read_tile(text: str, column: int) -> tuple[int, int]:
    if not _TILE.fullmatch(text):
        raise _fail(f"a tile is two pips 0–6 (34 for [3|4]), not {text!r}", column)
    return int(text[0]), int(text[1])


def _tile_list(value: str, column: int) -> list[tuple[int, int]]:
    """``34.56`` (``-``: none): each tile with its column."""
    if value == "-":
        return []
    found = []
    for part, at in _parts(value, column, "."):
        found.append((TILE_ID[_read_tile(part, at)], at))
    return found  # type: ignore[return-value]


def _int(text: str, column: int, what: str, least: int | None = None) -> int:
    if not _INT.fullmatch(text):
        raise _fail(f"{what} is a whole number, not {text!r}", column)
    number = int(text)
    if least is not None and number < least:
        raise _fail(f"{what} is at least {least}, not {number}", column)
    return number


class _Reader:
    """The parse of one string: its seats (for names), and the tiles seen so far (for duplicates)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.seen: dict[int, str] = {}

    def seat(self, text: str, column: int, what: str) -> int:
        try:
            name = _unname(text)
        except UnicodeDecodeError:
            raise _fail(f"{what} {text!r} is not percent-encoded UTF-8", column) from None
        if name not in self.names:
            raise _fail(f"{what} {name!r} is not at the table ({', '.join(self.names)})", column)
        return self.names.index(name)

    def take(self, tile: int, column: int, where: str) -> None:
        if tile in self.seen:
            raise _fail(f"{label(tile)} is {where} and {self.seen[tile]} too", column)
        self.seen[tile] = where


def parse_position(text: str) -> dict[str, Any]:
    """The fields of the :class:`~.position.Position` a string writes; :class:`PositionError` at the first fault."""
    tokens = [(match.group(), match.start() + 1) for match in re.finditer(r"\S+", text)]
    end_column = len(text.rstrip()) + 1
    if not tokens or tokens[0][0] != VERSION:
        found = repr(tokens[0][0]) if tokens else "nothing"
        raise _fail(f"a position string starts with {VERSION!r}, not {found}", tokens[0][1] if tokens else 1)
    if len(tokens) < 4:
        raise _fail("expected the variant, the rules (h7r2t100) and the seats (ann:0,bob:0) after dp1", end_column)
    (variant, variant_at), (rules, rules_at), (seats, seats_at) = tokens[1:4]
    if variant not in PROFILES:
        raise _fail(f"unknown variant {variant!r}; one of {', '.join(PROFILES)}", variant_at)
    fives = variant == "all-fives"
    matched = _RULES.fullmatch(rules)
    if matched is None:
        raise _fail(f"the rules are h<hand>r<reserve>t<target or ->, like h7r2t100, not {rules!r}", rules_at)
    hand, reserve = int(matched.group(1)), int(matched.group(2))
    target = None if matched.group(3) == "-" else int(matched.group(3))
    if fives and reserve:
        raise _fail(f"All Fives has no reserve (r0), not r{reserve}", rules_at + len(matched.group(1)) + 1)
    reader = _Reader()
    scores = []
    for part, at in _parts(seats, seats_at, ","):
        name, colon, score = part.rpartition(":")
        if not colon or not name:
            raise _fail(f"a seat is name:score, not {part!r}", at)
        try:
            decoded = _unname(name)
        except UnicodeDecodeError:
            raise _fail(f"the name {name!r} is not percent-encoded UTF-8", at) from None
        if decoded in reader.names:
            raise _fail(f"{decoded!r} is seated twice", at)
        reader.names.append(decoded)
        scores.append(_int(score, at + len(name) + 1, "a score"))
    if len(reader.names) not in _SEATS:
        raise _fail(f"a table seats 2 to 4 players, not {len(reader.names)}", seats_at)
    fields: dict[str, tuple[str, int]] = {}
    for token, at in tokens[4:]:
        key, equals, value = token.partition("=")
        if not equals or key not in _REQUIRED + _OPTIONAL:
            raise _fail(f"expected key=value with a key of {', '.join(_REQUIRED + _OPTIONAL)}, not {token!r}", at)
        if key in fields:
            raise _fail(f"{key}= is given twice", at)
        fields[key] = (value, at + len(key) + 1)

    def need(key: str) -> tuple[str, int]:
        if key not in fields:
            raise _fail(f"{key}= is missing", end_column)
        return fields[key]

    players = len(reader.names)
    number = _int(*need("round"), "the round", 1)
    opener = reader.seat(*need("opener"), "the opener")
    line, built = _read_line(reader, fives, *need("line"))
    ends, ends_at = need("ends")
    if ends != _ends_text(built):
        raise _fail(f"the line's open ends are {_ends_text(built)}, not {ends}", ends_at)
    hands_text, hands_at = need("hands")
    hand_parts = _parts(hands_text, hands_at, "/")
    if len(hand_parts) != players:
        raise _fail(f"{len(hand_parts)} hands for {players} players (one per seat, split by /)", hands_at)
    hands = []
    for seat, (part, at) in enumerate(hand_parts):
        mask = 0
        for tile, tile_at in _tile_list(part, at):  # type: ignore[misc]
            reader.take(tile, tile_at, f"in {reader.names[seat]}'s hand")
            mask |= 1 << tile
        hands.append(mask)
    stock_text, stock_at = need("stock")
    kind, colon, listed = stock_text.partition(":")
    if stock_text == "-":
        kind, listed = "set", "-"
    elif not colon or kind not in ("order", "set"):
        raise _fail(f"the stock is order:TILES (next first), set:TILES or -, not {stock_text!r}", stock_at)
    stock = []
    for tile, tile_at in _tile_list(listed, stock_at + len(kind) + 1):  # type: ignore[misc]
        reader.take(tile, tile_at, "in the stock")
        stock.append(tile)
    if kind == "set":
        stock.sort()
    held = FULL_SET & ~sum(1 << tile for tile in reader.seen)
    if held:
        raise _fail(f"{' '.join(label(tile) for tile in members(held))} "
                    f"{'is' if held & (held - 1) == 0 else 'are'} nowhere: every tile is on the line, "
                    f"in a hand or in the stock", stock_at)
    turn = reader.seat(*need("turn"), "the turn")
    passed = 0
    if "passed" in fields:
        for part, at in _parts(*fields["passed"], ","):
            passed |= 1 << reader.seat(part, at, "a player who passed")
    points: tuple[int, ...] = ()
    if "points" in fields:
        if not fives:
            raise _fail("points= is All Fives' only: placing a tile never scores in Draw", fields["points"][1] - 7)
        parts = _parts(*fields["points"], ",")
        if len(parts) != players:
            raise _fail(f"{len(parts)} points for {players} players", fields["points"][1])
        points = tuple(_int(part, at, "points") for part, at in parts)
    elif fives:
        points = (0,) * players
    must = NO_TILE
    if "must" in fields:
        must_text, must_at = fields["must"]
        must = TILE_ID[_read_tile(must_text, must_at)]
        if not fives:
            raise _fail("must= is All Fives' only (a drawn tile that fits is placed at once)", must_at)
        if not hands[turn] >> must & 1:
            raise _fail(f"{label(must)} must be placed, but {reader.names[turn]} does not hold it", must_at)
    missing = 0
    if "missing" in fields:
        for tile, tile_at in _tile_list(*fields["missing"]):  # type: ignore[misc]
            if not any(hand >> tile & 1 for hand in hands):
                raise _fail(f"{label(tile)} is missing (drawn off the log), so it is in a hand", tile_at)
            missing |= 1 << tile
    over, winner = None, None
    if "over" in fields:
        over_text, over_at = fields["over"]
        over, colon, who = over_text.partition(":")
        if over not in REASONS:
            raise _fail(f"the round ends {', '.join(REASONS)}, not {over!r}", over_at)
        winner = reader.seat(who, over_at + len(over) + 1, "the winner") if colon else None
    return {"variant": variant, "hand": hand, "reserve": reserve, "target": target, "names": tuple(reader.names),
            "scores": tuple(scores), "round": number, "opener": opener, "line": line, "hands": tuple(hands),
            "stock": tuple(stock), "stock_ordered": kind == "order" and bool(stock), "turn": turn, "passed": passed,
            "points": points, "must_place": must, "missing": missing, "over": over, "winner": winner}


def _read_line(reader: _Reader, fives: bool, value: str, column: int) -> tuple[tuple[Laid, ...], Line]:
    """The placements of ``line=`` (each checked against the ends so far), and the line they build."""
    line: Line = Tableau() if fives else Line()
    if value == "-":
        return (), line
    laid: list[Laid] = []
    for index, (part, at) in enumerate(_parts(value, column, ",")):
        if index == 0:
            halves = _read_tile(part, at)
            end = LEFT
        else:
            matched = _PLACED.fullmatch(part)
            if matched is None:
                raise _fail(f"a tile placed is its pips and its end (45r: [4|5] on the right; l, r, u, d), "
                            f"not {part!r}", at)
            halves, end = (int(matched.group(1)), int(matched.group(2))), _END_OF[matched.group(3)]
        tile = TILE_ID[halves]
        reader.take(tile, at, "on the line")
        if index:
            if isinstance(line, Tableau):
                value_there = line.value(end) if end in (LEFT, RIGHT) or line.arms_open else line.early_value(end)
            else:
                value_there = line.left if end == LEFT else line.right if end == RIGHT else None
            if value_there is None or value_there not in halves:
                where = "Draw has no up or down end" if value_there is None and not fives else \
                    f"the {end} end is {'closed' if value_there is None else value_there}"
                raise _fail(f"{label(tile)} cannot go {end}: {where}", at)
            if halves[0] != value_there:
                halves = (halves[1], halves[0])
        laid.append((halves, end))
        if isinstance(line, Tableau):
            line.place_tile(halves, end)
        else:
            line.place(halves if index == 0 else line.resolve(halves, end))  # type: ignore[arg-type]
    return tuple(laid), line
