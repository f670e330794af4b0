"""The legal continuation points of a board in the seeds' order, whichever way the log laid the line.

Which end of the line is "left" depends only on how the log wrote the opening
tile (``[1,4]`` or ``[4,1]``), so a mirrored log (the same tiles on the
opposite ends) would list the same points the other way round if they went by
end. The board model lists them in the seeds' order
(:func:`~drawlog.engine.board.seed_order`: a lone tile its higher end or side A
first, else lowest value first, equal values by the tile placed first); the
views put a frame's points in that order again, so a frame made by hand, or
by another program, reads the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.board import seed_order


def ordered_points(board: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The board's ``open`` points in the seeds' order (:func:`~drawlog.engine.board.seed_order`)."""
    points: Sequence[Mapping[str, Any]] = board.get("open") or ()
    placed = {tile: index for index, tile in enumerate(board.get("tiles") or ())}
    lone = len(placed) <= 1 and len({point.get("tile") for point in points}) == 1
    return sorted(points, key=lambda point: seed_order(str(point.get("side")), _number(point.get("value")),
                                                       placed.get(point.get("tile"), len(placed)), lone))


def _number(value: Any) -> float:
    """A point's value for sorting (a value that is not a number, from a hand-made frame, last)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else float("inf")
