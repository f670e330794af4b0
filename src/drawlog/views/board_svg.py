"""The board of one frame as a self-contained SVG drawing (``drawlog replay --format svg``).

The chain runs left to right, plain tiles lengthwise and doubles crosswise;
All Fives' arms run up and down from the spinner. Each tile is one
``<g class="tile" data-tile="[1|4]">`` with its pips drawn as circles in the
standard patterns; each legal continuation point is marked with an arrow and
the value a tile placed there must match, as the seeds' diagrams mark them.
The drawing needs nothing from outside: no fonts to download (text is
``sans-serif``), no links, no images. A long chain with no spinner bends:
past :data:`ROW_WIDTH` it turns back on a row below, joined to it by a
drawn connector, and runs the other way (each tile still touching the one
placed before it), so the drawing stays readable at the width of a page; a
board with a spinner is scaled to fit: the ``viewBox`` holds the whole board.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .points import ordered_points

#: The side of one half of a tile; a tile is two units long and one unit wide.
UNIT = 30
#: The space between two tiles.
GAP = 4
#: The distance of a pip from the centre of its half, along each axis.
PIP_OFFSET = 8
PIP_RADIUS = 3
#: The widest drawing (in pixels) before the board is scaled down.
MAX_WIDTH = 1200
#: A chain with no spinner wider than this goes on in a further row, below.
ROW_WIDTH = 960
#: The distance between the axes of two rows of a wrapped chain.
ROW_STEP = 2 * UNIT + 6 * GAP
#: How far the connector between two rows of a wrapped chain bulges out beyond their ends.
BEND = 34
MARGIN = 8

#: Pip positions in a half, as multiples of :data:`PIP_OFFSET` from its centre (a half standing upright).
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((0, 0),),
    2: ((1, -1), (-1, 1)),
    3: ((1, -1), (0, 0), (-1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

#: Each end's outward direction.
DIRECTIONS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}


def _n(value: float) -> str:
    return f"{value:g}"


class _Drawing:
    """The parts of the drawing and their bounding box."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.box = [0.0, 0.0, 0.0, 0.0]
        self.empty = True

    def cover(self, x0: float, y0: float, x1: float, y1: float) -> None:
        if self.empty:
            self.box = [x0, y0, x1, y1]
            self.empty = False
            return
        box = self.box
        self.box = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]

    def tile(self, item: Mapping[str, Any], x: float, y: float, upright: bool, halves: tuple[int, int]) -> None:
        """A tile with its top-left corner at ``(x, y)``; ``halves`` left→right, or top→bottom when ``upright``."""
        width, height = (UNIT, 2 * UNIT) if upright else (2 * UNIT, UNIT)
        spinner = bool(item.get("spinner"))
        attributes = f'class="tile" data-tile={quoteattr(str(item["tile"]))}'
        if spinner:
            attributes += ' data-spinner="true"'
        stroke = ("#8e24aa", 2.5) if spinner else ("#222", 1.5)
        out = [f"<g {attributes}>", f"<title>{escape(str(item['tile']))}</title>",
               f'<rect x="{_n(x)}" y="{_n(y)}" width="{width}" height="{height}" rx="4" fill="#fffdf5" '
               + f'stroke="{stroke[0]}" stroke-width="{stroke[1]}"/>']
        if upright:
            out.append(f'<line x1="{_n(x + 4)}" y1="{_n(y + UNIT)}" x2="{_n(x + UNIT - 4)}" y2="{_n(y + UNIT)}" '
                       'stroke="#222" stroke-width="1.5"/>')
            centres = ((x + UNIT / 2, y + UNIT / 2), (x + UNIT / 2, y + 3 * UNIT / 2))
        else:
            out.append(f'<line x1="{_n(x + UNIT)}" y1="{_n(y + 4)}" x2="{_n(x + UNIT)}" y2="{_n(y + UNIT - 4)}" '
                       'stroke="#222" stroke-width="1.5"/>')
            centres = ((x + UNIT / 2, y + UNIT / 2), (x + 3 * UNIT / 2, y + UNIT / 2))
        for value, (cx, cy) in zip(halves, centres):
            for dx, dy in PIPS.get(int(value), ()):
                if not upright:
                    dx, dy = dy, dx
                out.append(f'<circle cx="{_n(cx + dx * PIP_OFFSET)}" cy="{_n(cy + dy * PIP_OFFSET)}" '
                           f'r="{PIP_RADIUS}" fill="#222"/>')
        out.append("</g>")
        self.parts.append("".join(out))
        self.cover(x, y, x + width, y + height)

    def bend(self, x: float, y: float, heading: int) -> None:
        """The connector of a wrapped chain: from the row at ``y`` ending at ``x`` (going ``heading``) round
        to the row below, which starts under it going back."""
        out = x + heading * BEND
        below = y + ROW_STEP
        self.parts.append(
            f'<path class="bend" d="M{_n(x)},{_n(y)} C{_n(out)},{_n(y)} {_n(out)},{_n(below)} {_n(x)},{_n(below)}" '
            'fill="none" stroke="#6d4c41" stroke-width="4" stroke-linecap="round"/>')
        self.cover(min(x, out) - 4, y - 4, max(x, out) + 4, below + 4)

    def marker(self, point: Mapping[str, Any], x: float, y: float, heading: int = 1) -> None:
        """An arrow from ``(x, y)`` outward at the point's end (a right end that a bent chain brought back
        leftward: ``heading`` -1), and the value beyond it."""
        dx, dy = DIRECTIONS[point["end"]]
        if point["end"] == "right":
            dx = heading
        tip = (x + 12 * dx, y + 12 * dy)
        back = (-dy * 6, dx * 6)
        corners = [(x + back[0], y + back[1]), tip, (x - back[0], y - back[1])]
        label = (x + 22 * dx, y + 22 * dy + 5)
        self.parts.append(
            f'<g class="open" data-end={quoteattr(str(point["end"]))} data-tile={quoteattr(str(point["tile"]))} '
            f'data-side={quoteattr(str(point["side"]))} data-value="{int(point["value"])}">'
            f'<polygon points="{" ".join(f"{_n(px)},{_n(py)}" for px, py in corners)}" fill="#d32f2f"/>'
            f'<text x="{_n(label[0])}" y="{_n(label[1])}" text-anchor="middle" font-family="sans-serif" font-size="14" '
            f'font-weight="bold" fill="#d32f2f">{int(point["value"])}</text></g>'
        )
        self.cover(min(x, label[0]) - 8, min(y, label[1] - 14) - 6, max(x, label[0]) + 8, max(y, label[1]) + 6)


def board_svg(board: Mapping[str, Any]) -> str:
    """One frame's ``board`` (the board model's dict) as a standalone SVG document.

    A chain with no spinner wider than :data:`ROW_WIDTH` bends back on a
    further row below (a connector joins the rows) and runs the other way;
    with a spinner the board keeps its cross shape and the whole drawing is
    scaled down instead.
    """
    drawing = _Drawing()
    x: float = 0
    axis: float = 0
    heading = 1  # +1 left to right, -1 right to left (a wrapped chain's odd rows)
    spinner_x: float | None = None
    wrap = not board.get("spinner")
    for item in board.get("chain") or ():
        left, right = item["show"]
        length = UNIT if item.get("double") else 2 * UNIT
        edge = x + heading * length
        if wrap and x and not 0 <= edge <= ROW_WIDTH:  # the chain bends back below, a connector drawn
            drawing.bend(x - heading * GAP, axis, heading)
            heading, axis = -heading, axis + ROW_STEP
            x += heading * GAP  # (the bend's end: the row below starts under where this one stopped)
            edge = x + heading * length
        start = min(x, edge)
        halves = (left, right) if heading > 0 else (right, left)
        if item.get("double"):
            drawing.tile(item, start, axis - UNIT, True, halves)
            if item.get("spinner"):
                spinner_x = start + UNIT / 2
        else:
            drawing.tile(item, start, axis - UNIT / 2, False, halves)
        x = edge + heading * GAP
    chain_end = x - heading * GAP
    arm_ends: dict[str, float] = {"up": -UNIT, "down": UNIT}
    arms = board.get("arms") or {}
    if spinner_x is not None:
        for end, sign in (("up", -1), ("down", 1)):
            y = sign * (UNIT + GAP)
            for item in arms.get(end) or ():
                inner, outer = item["show"]
                length = UNIT if item.get("double") else 2 * UNIT
                top = y if sign > 0 else y - length
                if item.get("double"):
                    drawing.tile(item, spinner_x - UNIT, top, False, (inner, outer))
                else:
                    drawing.tile(item, spinner_x - UNIT / 2, top, True,
                                 (outer, inner) if sign < 0 else (inner, outer))
                arm_ends[end] = y + sign * length
                y += sign * (length + GAP)
    for point in ordered_points(board):  # the marks in the seeds' order, as the text lists them
        where = point.get("end")
        if where == "left":
            drawing.marker(point, -GAP, 0)
        elif where == "right":
            drawing.marker(point, chain_end + heading * GAP, axis, heading)
        elif where in ("up", "down") and spinner_x is not None:
            drawing.marker(point, spinner_x, arm_ends[where] + (GAP if where == "down" else -GAP))
    return _document(drawing)


def _document(drawing: _Drawing) -> str:
    if drawing.empty:
        drawing.cover(0, -UNIT, 4 * UNIT, UNIT)
    x0, y0, x1, y1 = drawing.box
    x0, y0 = x0 - MARGIN, y0 - MARGIN
    width, height = x1 + MARGIN - x0, y1 + MARGIN - y0
    scale = min(1.0, MAX_WIDTH / width)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:g} {y0:g} {width:g} {height:g}" '
        f'width="{width * scale:.0f}" height="{height * scale:.0f}">'
        f'<rect x="{x0:g}" y="{y0:g}" width="{width:g}" height="{height:g}" fill="#2e7d32" fill-opacity="0.12"/>'
        + "".join(drawing.parts)
        + "</svg>\n"
    )
