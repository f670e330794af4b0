"""The board as the seeds describe it: tiles, their connections, and the legal continuation points.

The rules engine keeps only what the rules need (the open values); a
:class:`Board` keeps the physical layout of one round for people to look at:
the chain from its left end to its right end (each tile as drawn, doubles
crosswise), All Fives' spinner arms (a tile played on one early, before the
arms open, is laid there too, as the engine applies it), which side of which
tile touches which, and where play may continue. It is fed the placements the engine carried out
(:meth:`Board.place`) and knows no rules of its own beyond that.

Sides are named as the seeds name them: a plain tile's ``low`` and ``high``
halves; a double's side ``A`` (the one that touched the line first; for the
opening double, the one the next tile touches, the left one while it lies
alone) and ``B``; the spinner's ``up`` and ``down`` arms. Nothing but the
board's own shape names a side or orders the points, so a log and its mirror
image (the same tiles on the opposite ends) are described alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from .line import DOWN, LEFT, RIGHT, UP
from .tiles import TILE_ID, label

#: The ends in the order the board lists them.
ALL_ENDS = (LEFT, RIGHT, UP, DOWN)


@dataclass
class Piece:
    """A tile on the board: ``show`` are its halves as drawn (left→right on the chain, inner→outer on an arm).

    ``side_a`` is which of them is a double's side A: the one that touched the line.
    """

    tile: int
    show: tuple[int, int]
    side_a: int = 0
    spinner: bool = False

    @property
    def double(self) -> bool:
        """Whether the tile is a double (drawn crosswise)."""
        return self.show[0] == self.show[1]

    def side(self, which: int) -> str:
        """The name of the side that shows ``show[which]``: ``low``/``high``, or ``A``/``B`` for a double."""
        a, b = self.show
        if a != b:
            return "low" if self.show[which] < self.show[1 - which] else "high"
        return "A" if which == self.side_a else "B"


@dataclass(frozen=True)
class Connection:
    """``tile``'s ``side`` touches ``to_tile``'s ``to_side`` (``tile`` was placed first)."""

    tile: str
    side: str
    to_tile: str
    to_side: str


#: Of two points on one tile, which the seeds list first: the higher end, side A (the upper arm before the lower).
SIDE_RANK = {"high": 0, "A": 0, "up": 0, "low": 1, "B": 1, "down": 1}


def seed_order(side: str, value: float, placed: int, lone: bool) -> tuple[float, ...]:
    """The sort key of a continuation point in the seeds' order (000, 002, 003 list the same seven boards).

    A lone tile lists its own sides, the higher end (side A) first: ``[1|4]
    (higher end, 4); [1|4] (lower end, 1)``. Otherwise the points go by the
    value a tile placed there must match, lowest first, as the seeds name the
    free values ("wolne wartości to 1 i 4", "Kontynuuj od 3 lub 6"); equal
    values by the tile ``placed`` first, then by side (up before down). Left
    and right play no part, so a log and its mirror image (the same tiles on
    the opposite ends) list the same points in the same order.
    """
    rank = SIDE_RANK.get(side, 2)
    return (rank,) if lone else (value, placed, rank)


@dataclass(frozen=True)
class OpenPoint:
    """A legal continuation point: a tile's free side, the value a tile placed there must match, and the end."""

    tile: str
    side: str
    value: int
    end: str


class Board:
    """The layout of one round's tiles; ``spinner_rules`` for All Fives (the first double opens arms)."""

    def __init__(self, spinner_rules: bool = False) -> None:
        self.spinner_rules = spinner_rules
        #: The chain from the left end to the right end.
        self.chain: list[Piece] = []
        self.arms: dict[str, list[Piece]] = {UP: [], DOWN: []}
        self.placed: list[int] = []
        self.connections: list[Connection] = []
        self.spinner: Piece | None = None

    # -- placing -------------------------------------------------------------

    def place(self, halves: tuple[int, int], end: str) -> None:
        """Lay a tile the engine placed: on an empty board as written, else on ``end`` (matching its value).

        Raises :class:`ValueError`, the board unchanged, when ``end`` holds no value here (an arm before
        any spinner, a name that is no end): the engine never places a tile there.
        """
        tile = TILE_ID[halves]
        if not self.chain:
            self.placed.append(tile)
            piece = Piece(tile, halves)
            self.chain.append(piece)
            self._maybe_spinner(piece)
            return
        value = None if end not in ALL_ENDS else \
            self.value(end) if end in (LEFT, RIGHT) or self.arms_open else self._arm_end(end)
        if value is None:
            raise ValueError(f"{label(tile)} cannot be laid on {end!r}: that end holds no value on this board")
        self.placed.append(tile)
        outer = halves[1] if halves[0] == value else halves[0]
        if end == RIGHT and len(self.placed) == 2 and self.chain[0].double:
            self.chain[0].side_a = 1  # the opening double's side A is the one first touched, whichever end
        touching = self._end_piece_side(end)
        if end == LEFT:
            piece = Piece(tile, (outer, value), side_a=1)  # type: ignore[arg-type]
            self.chain.insert(0, piece)
            new_side = piece.side(1)
        elif end == RIGHT:
            piece = Piece(tile, (value, outer))  # type: ignore[arg-type]
            self.chain.append(piece)
            new_side = piece.side(0)
        else:
            piece = Piece(tile, (value, outer))  # type: ignore[arg-type]
            self.arms[end].append(piece)
            new_side = piece.side(0)
        self.connections.append(Connection(label(touching[0].tile), touching[1], label(tile), new_side))
        if end in (LEFT, RIGHT):
            self._maybe_spinner(piece)

    def _maybe_spinner(self, piece: Piece) -> None:
        if self.spinner_rules and self.spinner is None and piece.double:
            piece.spinner = True
            self.spinner = piece

    # -- reading ---------------------------------------------------------------

    @property
    def arms_open(self) -> bool:
        """Whether the spinner's arms take tiles (both its sides carry a tile)."""
        spinner = self.spinner
        return spinner is not None and self.chain[0] is not spinner and self.chain[-1] is not spinner

    def _end_piece_side(self, end: str) -> tuple[Piece, str]:
        """The tile at ``end`` and the name of its free side there."""
        if end == LEFT:
            return self.chain[0], self.chain[0].side(0)
        if end == RIGHT:
            return self.chain[-1], self.chain[-1].side(1)
        arm = self.arms[end]
        if not arm:
            return self.spinner, end  # type: ignore[return-value]
        return arm[-1], arm[-1].side(1)

    def _arm_end(self, end: str) -> int | None:
        """The value an arm's next tile matches, open or not (an early play, M212 applied, starts it)."""
        if self.spinner is None:
            return None
        arm = self.arms[end]
        return arm[-1].show[1] if arm else self.spinner.show[0]

    def value(self, end: str) -> int | None:
        """The value a tile placed on ``end`` must match (None when that end is not open)."""
        if not self.chain:
            return None
        if end == LEFT:
            return self.chain[0].show[0]
        if end == RIGHT:
            return self.chain[-1].show[1]
        if not self.arms_open:
            return None
        return self._arm_end(end)

    def open_points(self) -> list[OpenPoint]:
        """Where play may continue, as the seeds list them (:func:`seed_order`), the same for a mirrored log."""
        if not self.chain:
            return []
        points = []
        for end in ALL_ENDS:
            value = self.value(end)
            if value is not None:
                piece, side = self._end_piece_side(end)
                points.append(OpenPoint(label(piece.tile), side, value, end))
        placed = {label(tile): index for index, tile in enumerate(self.placed)}
        lone = len(self.placed) == 1
        return sorted(points, key=lambda point: seed_order(point.side, point.value, placed[point.tile], lone))

    def __repr__(self) -> str:
        def drawn(pieces: list[Piece]) -> str:
            return " ".join(f"[{piece.show[0]}|{piece.show[1]}]" for piece in pieces)

        tiles = drawn(self.chain) or "empty"
        arms = "".join(f", {end}: {drawn(self.arms[end])}" for end in (UP, DOWN) if self.arms[end])
        spinner = f", spinner={label(self.spinner.tile)}" if self.spinner is not None else ""
        return f"Board({tiles}{arms}{spinner})"

    def ends(self) -> dict[str, int | None]:
        """The open value at each end (None where closed)."""
        return {end: self.value(end) for end in ALL_ENDS}

    def as_data(self) -> dict[str, object]:
        """The board as plain data (the ``board`` of a ``drawlog replay --format json`` frame)."""
        def item(piece: Piece) -> dict[str, object]:
            return {"tile": label(piece.tile), "show": list(piece.show), "double": piece.double,
                    "spinner": piece.spinner}

        return {
            "tiles": [label(tile) for tile in self.placed],
            "connections": [vars(connection).copy() for connection in self.connections],
            "open": [vars(point).copy() for point in self.open_points()],
            "chain": [item(piece) for piece in self.chain],
            "arms": {end: [item(piece) for piece in pieces] for end, pieces in self.arms.items()},
            "spinner": label(self.spinner.tile) if self.spinner is not None else None,
            "ends": self.ends(),
        }
