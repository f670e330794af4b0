"""The line of play: a chain of tiles with exactly two open ends.

Draw has no spinner: a double lies crosswise but is extended by its value like
any other tile, so the whole state of the line is its two open values.
"""

from __future__ import annotations

from typing import Final

from .tiles import FULL_SET, SUIT

LEFT: Final = "left"
RIGHT: Final = "right"
#: The spinner's arms, in All Fives only (see :mod:`drawlog.engine.tableau`).
UP: Final = "up"
DOWN: Final = "down"
ENDS: Final = (LEFT, RIGHT)


class Line:
    """The open ends of the line; ``left`` and ``right`` are ``None`` before the opening tile."""

    __slots__ = ("left", "right", "length")

    def __init__(self) -> None:
        self.left: int | None = None
        self.right: int | None = None
        self.length = 0

    @property
    def is_empty(self) -> bool:
        """Whether no tile has been placed yet."""
        return self.length == 0

    def fitting(self) -> int:
        """The bit set of tiles that can be placed now (every tile on an empty line)."""
        left, right = self.left, self.right
        if left is None or right is None:
            return FULL_SET
        return SUIT[left] | SUIT[right]

    def resolve(self, halves: tuple[int, int], end: str | None = None) -> tuple[int, int] | None:
        """The open ends after placing a tile, or ``None`` when it cannot be placed as written.

        A half matches an end of equal value (a blank only a blank). On an empty
        line the tile opens it as written: ``[a,b]`` gives left ``a``, right ``b``.
        With ``end`` left out the tile is placed only when a single line can
        result (it fits one end, or both placements give the same ends).
        """
        left, right = self.left, self.right
        if left is None:
            return halves
        a, b = halves
        if end == LEFT:
            return (b, right) if a == left else ((a, right) if b == left else None)  # type: ignore[return-value]
        if end == RIGHT:
            return (left, b) if a == right else ((left, a) if b == right else None)
        if end is not None:  # up or down: a line without a spinner has no such end
            return None
        on_left = (b, right) if a == left else ((a, right) if b == left else None)
        if a == right or b == right:
            on_right = (left, b) if a == right else (left, a)
            return on_right if on_left is None or on_left == on_right else None
        return on_left  # type: ignore[return-value]

    def extend(self, a: int, b: int, end: str | None) -> bool:
        """Place the tile with halves ``a`` and ``b`` when :meth:`resolve` finds where; whether it was placed.

        The same rule as ``resolve`` then ``place``, without building the ends as a tuple.
        """
        left, right = self.left, self.right
        if left is None or right is None:
            self.left, self.right = a, b
        elif end is None:
            on_left = b if a == left else (a if b == left else -1)
            if a == right or b == right:
                on_right = b if a == right else a
                if on_left >= 0 and (on_left != left or on_right != right):
                    return False  # both ends fit, with different results
                self.right = on_right
            elif on_left >= 0:
                self.left = on_left
            else:
                return False
        elif end == LEFT:
            if a == left:
                self.left = b
            elif b == left:
                self.left = a
            else:
                return False
        elif end == RIGHT:
            if a == right:
                self.right = b
            elif b == right:
                self.right = a
            else:
                return False
        else:  # up or down: a line without a spinner has no such end
            return False
        self.length += 1
        return True

    def placements(self, halves: tuple[int, int]) -> dict[str, tuple[int, int]]:
        """Where a tile can go: end name → the open ends after placing it there."""
        options = {}
        for end in ENDS:
            ends = self.resolve(halves, end)
            if ends is not None:
                options[end] = ends
        return options

    def place(self, ends: tuple[int, int]) -> None:
        """Record a placement, given the open ends it leaves (from :meth:`placements`)."""
        self.left, self.right = ends
        self.length += 1

    def __repr__(self) -> str:
        if self.left is None:
            return "Line(empty)"
        return f"Line(left={self.left}, right={self.right}, length={self.length})"
