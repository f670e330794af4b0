"""``drawlog replay --position STRING``: the frame of a position string, for the board views.

The frame has the fields of a ``drawlog replay --format json`` frame (the
README lists them), with ``type`` ``"position"`` and no ``line`` or
``event``: the board, every hand, the stock, the scores, whose turn it is and
the legal moves of the player to move, as the engine rebuilt from the string
(:meth:`~drawlog.engine.position.Position.to_round`) has them.
"""

from __future__ import annotations

from typing import Any

from ..check.walkthrough import legal_moves
from ..engine.allfives import FivesRound
from ..engine.position import Position
from ..engine.tiles import label, members


def position_frame(position: Position) -> dict[str, Any]:
    """The one frame showing ``position`` (its string in ``position``, as written back)."""
    state = position.to_round()
    names = position.names
    board = position.board().as_data()
    board["count"] = state.tableau.count() if isinstance(state, FivesRound) else None
    over = state.reason is not None
    return {
        "line": None, "event": None, "type": "position", "match": None, "round": position.round,
        "variant": position.variant, "violations": [], "board": board,
        "hands": {name: [label(tile) for tile in members(hand)] for name, hand in zip(names, state.hands)},
        "stock_left": state.stock_left, "drawable": max(0, state.stock_left - state.reserve),
        "turn": None if over else names[state.turn], "legal": [] if over else legal_moves(state),
        "scores": dict(zip(names, position.scores)), "over": state.reason, "position": position.to_string(),
    }
