"""The line of play: a chain of tiles with exactly two open ends.

Draw has no spinner: a double lies crosswise but is extended by its value like
any other tile, so the whole state of the line is its two open values.
"""

from __future__ import annotations

from .tiles import FULL_SET, SUIT

LEFT = "left"
RIGHT = "right"
ENDS = (LEFT, RIGHT)


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
        if self.left is None:
            return FULL_SET
        return SUIT[self.left] | SUIT[self.right]  # type: ignore[index]

    def placements(self, halves: tuple[int, int]) -> dict[str, tuple[int, int]]:
        """Where a tile can go: end name → the open ends after placing it there.

        On an empty line the tile opens it as written, ``[a,b]`` giving left ``a``
        and right ``b``; both end names are then accepted.
        """
        a, b = halves
        if self.left is None:
            return {LEFT: (a, b), RIGHT: (a, b)}
        left, right = self.left, self.right
        options: dict[str, tuple[int, int]] = {}
        if a == left:
            options[LEFT] = (b, right)  # type: ignore[assignment]
        elif b == left:
            options[LEFT] = (a, right)  # type: ignore[assignment]
        if a == right:
            options[RIGHT] = (left, b)  # type: ignore[assignment]
        elif b == right:
            options[RIGHT] = (left, a)  # type: ignore[assignment]
        return options

    def place(self, ends: tuple[int, int]) -> None:
        """Record a placement, given the open ends it leaves (from :meth:`placements`)."""
        self.left, self.right = ends
        self.length += 1

    def __repr__(self) -> str:
        if self.left is None:
            return "Line(empty)"
        return f"Line(left={self.left}, right={self.right}, length={self.length})"
