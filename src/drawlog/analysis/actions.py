"""The actions of a decision: placements (tile × end) and Draw's voluntary draw, told apart up to mirror images."""

from __future__ import annotations

from typing import Final, NamedTuple

from ..engine.allfives import FivesRound
from ..engine.line import LEFT
from ..engine.rounds import Round
from ..engine.tableau import Tableau, scored
from ..engine.tiles import TILE_ID, TILES


class Action(NamedTuple):
    """A legal action at a decision: place ``tile`` on ``end``, or (``tile`` -1) a voluntary draw."""

    tile: int
    end: str

    @property
    def is_draw(self) -> bool:
        """Whether this is a draw."""
        return self.tile < 0

    def label(self) -> str:
        """``[3|5] left`` or ``draw``."""
        if self.tile < 0:
            return "draw"
        low, high = TILES[self.tile]
        return f"[{low}|{high}] {self.end}"


#: A voluntary draw (Draw), or a draw the rollout policy makes.
DRAW_ACTION: Final = Action(-1, "")
#: The rollout policy's pass (never an action of a decision).
PASS_ACTION: Final = Action(-2, "")


def mirror_shape(tableau: Tableau) -> list[tuple[int, bool, bool, bool]]:
    """The open ends as a list that is the same for a tableau and its mirror image (left↔right, up↔down)."""
    sides = sorted([(tableau.left or 0, tableau.left_double, tableau.left_spinner, True),
                    (tableau.right or 0, tableau.right_double, tableau.right_spinner, True)])
    arms = sorted([(tableau.up if tableau.up is not None else -1, tableau.up_double, tableau.up_length > 0, False),
                   (tableau.down if tableau.down is not None else -1, tableau.down_double, tableau.down_length > 0,
                    False)])
    return sides + arms


def placement_key(state: Round, tile: int, end: str | None) -> tuple[object, ...] | None:
    """What placing ``tile`` on ``end`` leaves, the same for a placement and its mirror image; None: cannot.

    ``end`` None: where the engine puts it (the one end it fits).
    """
    halves = TILES[tile]
    if isinstance(state, FivesRound):
        tableau = state.tableau
        if tableau.left is not None:
            if end is None:
                end = tableau.only_end(halves[0], halves[1])
            if end is None or tableau.value(end) not in halves:
                return None
        after = tableau.copy()
        after.place_tile(halves, end or LEFT)
        return (tile, scored(after.count()), *mirror_shape(after))
    ends = state.line.resolve(halves, end)
    return None if ends is None else (tile, *sorted(ends))


def legal_actions(state: Round, seat: int) -> list[Action]:
    """Every different legal action of ``seat`` to move in ``state``: placements (tile × end), and in Draw a draw.

    Placements that leave the same line up to a mirror image (``[1|6]`` on
    either side of ``[6|6]``) are one action, named by its first end (left,
    right, up, down). All Fives never allows a voluntary draw; with nothing to
    place there is no action listed (a forced draw or pass is no decision).
    """
    if state.reason is not None or seat != state.turn:
        return []
    actions: list[Action] = []
    seen = set()
    for halves, end in state.legal_plays(seat):
        tile = TILE_ID[halves]
        key = placement_key(state, tile, end)
        if key not in seen:
            seen.add(key)
            actions.append(Action(tile, end))
    if actions and not isinstance(state, FivesRound) and state.can_draw(seat):
        actions.append(DRAW_ACTION)
    return actions


def find_action(state: Round, actions: list[Action], tile: int, end: str | None) -> int | None:
    """The index in ``actions`` of placing ``tile`` on ``end`` (or its mirror image); None when not among them."""
    key = placement_key(state, tile, end)
    for index, action in enumerate(actions):
        if action.tile == tile and placement_key(state, tile, action.end) == key:
            return index
    return None


__all__ = ["DRAW_ACTION", "PASS_ACTION", "Action", "find_action", "legal_actions", "mirror_shape", "placement_key"]
