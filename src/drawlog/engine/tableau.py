"""The All Fives tableau: a line with a spinner, up to four open ends, and the count.

Every double lies crosswise; **the first double placed in the round is the
spinner**. Its two sides continue the line (``left`` / ``right``); a spinner
placed on an end already touches a tile on one side. Once both sides carry a
tile, its two other ends open as ``up`` and ``down``, each an arm that grows
like an end of the line. An arm may also be started early (format v1.2: a
play on it before it is open is ``M212`` but applied when the tile matches the
spinner, or the arm's end): its tiles count from then on, and it keeps them
when the arms open.

The count after each placement is what a player scores when it is a positive
multiple of five (:meth:`Tableau.count`).
"""

from __future__ import annotations

from typing import Final

from .line import DOWN, LEFT, RIGHT, UP, Line
from .tiles import FULL_SET, SUIT, TILE_ID, TILES

NO_SPINNER: Final = -1


class Tableau(Line):
    """The open ends of an All Fives tableau.

    ``left`` / ``right`` are the line's open values (as in Draw); ``up`` / ``down``
    the arms' ends (``None`` while an arm is neither open nor started early; the
    spinner's value while an open arm is empty). ``arms_open`` says whether the
    spinner's both sides are covered, so that ``up`` and ``down`` take tiles
    (:meth:`value` gives ``None`` for them before). ``*_double`` says whether the
    tile at that end is a double (it counts both halves).
    """

    __slots__ = ("up", "down", "left_double", "right_double", "up_double", "down_double",
                 "spinner", "left_spinner", "right_spinner", "up_length", "down_length", "arms_open")

    def __init__(self) -> None:
        super().__init__()
        self.up: int | None = None
        self.down: int | None = None
        self.left_double = False
        self.right_double = False
        self.up_double = False
        self.down_double = False
        #: The spinner's tile id (``NO_SPINNER`` before the first double).
        self.spinner = NO_SPINNER
        #: Whether the end tile on the left (right) is the spinner with that side still open.
        self.left_spinner = False
        self.right_spinner = False
        self.up_length = 0
        self.down_length = 0
        #: Whether ``up`` and ``down`` are open (the spinner's both sides are covered).
        self.arms_open = False

    def copy(self) -> Tableau:
        """An independent copy."""
        twin = Tableau()
        twin.left, twin.right, twin.length = self.left, self.right, self.length
        twin.up, twin.down, twin.spinner = self.up, self.down, self.spinner
        twin.left_double, twin.right_double = self.left_double, self.right_double
        twin.up_double, twin.down_double = self.up_double, self.down_double
        twin.left_spinner, twin.right_spinner = self.left_spinner, self.right_spinner
        twin.up_length, twin.down_length = self.up_length, self.down_length
        twin.arms_open = self.arms_open
        return twin

    # -- queries -----------------------------------------------------------

    def fitting(self) -> int:
        """The bit set of tiles that can be placed now (every tile on an empty tableau)."""
        left, right, up, down = self.left, self.right, self.up, self.down
        if left is None or right is None:
            return FULL_SET
        fits = SUIT[left] | SUIT[right]
        if self.arms_open and up is not None and down is not None:
            fits |= SUIT[up] | SUIT[down]
        return fits

    def value(self, end: str) -> int | None:
        """The value an end needs, or ``None`` when that end is not open."""
        if end == LEFT:
            return self.left
        if end == RIGHT:
            return self.right
        if not self.arms_open:
            return None
        if end == UP:
            return self.up
        if end == DOWN:
            return self.down
        return None

    def early_value(self, end: str) -> int | None:
        """The value an early play on the arm ``end`` (before the arms open) must match to be applied.

        The arm's end once a tile was placed on it early, else the spinner's
        value; ``None`` with no spinner (nothing can be placed there).
        """
        if end == UP and self.up is not None:
            return self.up
        if end == DOWN and self.down is not None:
            return self.down
        spinner = self.spinner
        return TILES[spinner][0] if spinner != NO_SPINNER else None

    def open_ends(self) -> list[str]:
        """The ends a tile may go on now, in the order ``left``, ``right``, ``up``, ``down``."""
        if self.left is None:
            return []
        return [LEFT, RIGHT, UP, DOWN] if self.arms_open else [LEFT, RIGHT]

    def ends_for(self, halves: tuple[int, int]) -> list[str]:
        """The open ends the tile matches, in the order of :meth:`open_ends`."""
        a, b = halves
        return [end for end in self.open_ends() if self.value(end) in (a, b)]

    def only_end(self, a: int, b: int) -> str | None:
        """The one open end a tile with halves ``a`` and ``b`` matches; None when it matches none or several."""
        found: str | None = None
        left, right, up, down = self.left, self.right, self.up, self.down
        if left is not None and (left == a or left == b):
            found = LEFT
        if right is not None and (right == a or right == b):
            if found is not None:
                return None
            found = RIGHT
        if not self.arms_open:
            return found
        if up is not None and (up == a or up == b):
            if found is not None:
                return None
            found = UP
        if down is not None and (down == a or down == b):
            if found is not None:
                return None
            found = DOWN
        return found

    def count(self) -> int:
        """The sum of the open ends, as All Fives scores it.

        A lone tile counts its total pips; otherwise ``left`` and ``right`` count
        the exposed half of their end tile (both halves for a double, the spinner
        too while one of its sides is open), and each arm counts nothing while
        empty, then the exposed half of its end tile (both halves for a double),
        an arm started early (before it opened) as well.
        """
        left, right = self.left, self.right
        if left is None or right is None:
            return 0
        if self.length == 1:
            return left + right
        total = (left << 1 if self.left_double else left) + (right << 1 if self.right_double else right)
        up, down = self.up, self.down
        if self.up_length and up is not None:
            total += up << 1 if self.up_double else up
        if self.down_length and down is not None:
            total += down << 1 if self.down_double else down
        return total

    # -- placing -----------------------------------------------------------

    def place_tile(self, halves: tuple[int, int], end: str) -> None:
        """Place a tile that matches ``end`` (any end on an empty tableau: it opens as written).

        An arm not open yet takes a tile that matches :meth:`early_value` (an early play, applied).
        """
        a, b = halves
        double = a == b
        self.length += 1
        if self.left is None:
            self.left, self.right = a, b
            self.left_double = self.right_double = double
            if double:
                self.spinner = TILE_ID[halves]
                self.left_spinner = self.right_spinner = True
            return
        value = self.value(end) if end == LEFT or end == RIGHT or self.arms_open else self.early_value(end)
        exposed = b if value is not None and a == value else a
        new_spinner = double and self.spinner == NO_SPINNER
        if new_spinner:
            self.spinner = TILE_ID[halves]
        if end == LEFT:
            self.left, self.left_double, self.left_spinner = exposed, double, new_spinner
        elif end == RIGHT:
            self.right, self.right_double, self.right_spinner = exposed, double, new_spinner
        elif end == UP:
            self.up, self.up_double = exposed, double
            self.up_length += 1
        else:
            self.down, self.down_double = exposed, double
            self.down_length += 1
        if not self.arms_open and self.spinner != NO_SPINNER and not self.left_spinner and not self.right_spinner:
            self.arms_open = True
            spinner_value = TILES[self.spinner][0]
            if self.up is None:
                self.up = spinner_value
            if self.down is None:
                self.down = spinner_value

    def __repr__(self) -> str:
        if self.left is None:
            return "Tableau(empty)"
        arms = f", up={self.up}, down={self.down}" if self.arms_open else \
            "".join(f", {end}={value} (early)" for end, value in ((UP, self.up), (DOWN, self.down)) if value is not None)
        return f"Tableau(left={self.left}, right={self.right}{arms}, length={self.length})"


def scored(count: int) -> int:
    """The points a count scores: itself when a positive multiple of five, else nothing."""
    return count if count > 0 and count % 5 == 0 else 0
