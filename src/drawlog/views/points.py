"""The legal continuation points of a board in the seeds' order, whichever way the log laid the line.

The board model (:mod:`drawlog.engine.board`) keeps its points by end: left,
right, up, down. Which end is "left" depends only on how the log wrote the
opening tile (``[1,4]`` or ``[4,1]``), so a mirrored log (the same tiles on the
opposite ends) would list the same points the other way round. The views list
them in one canonical order instead, the one the seeds use (000 Polish, 002
Turkish, 003 Spanish, each with the same seven worked boards):

* a lone tile lists its own two sides: a plain tile its higher end first, a
  double its side A first (``[1|4] (higher end, 4); [1|4] (lower end, 1)``,
  ``[0|0] (chain side A, 0); [0|0] (chain side B, 0)``);
* otherwise the points go by the value a tile placed there must match,
  lowest first, as the seeds name the free values ("wolne wartości to 1 i 4",
  "Kontynuuj od 3 lub 6", "Wolne wartości łańcucha to 1 i 3"):
  ``[1|1] (chain side B, 1); [1|4] (higher end, 4)`` whichever end [1|1] lies on;
* equal values go by the tile placed first, then (one tile, two points: the
  spinner's arms) up before down.

Nothing here depends on left or right, so the order is the same for a log and
its mirror image (the views' tests replay the seeds' boards both ways).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Of two points on one tile, which comes first: the higher end, side A, the upper arm.
SIDE_RANK = {"high": 0, "A": 0, "up": 0, "low": 1, "B": 1, "down": 1}


def ordered_points(board: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The board's ``open`` points in the seeds' order (see the module's description)."""
    points: Sequence[Mapping[str, Any]] = board.get("open") or ()
    placed = {tile: index for index, tile in enumerate(board.get("tiles") or ())}

    def side(point: Mapping[str, Any]) -> int:
        return SIDE_RANK.get(str(point.get("side")), 2)

    if len({point.get("tile") for point in points}) == 1 and len(placed) <= 1:
        return sorted(points, key=side)  # a lone tile: its higher end (side A) first
    return sorted(points, key=lambda point: (_number(point.get("value")),
                                             placed.get(point.get("tile"), len(placed)), side(point)))


def _number(value: Any) -> float:
    """A point's value for sorting (a value that is not a number, from a hand-made frame, last)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else float("inf")
