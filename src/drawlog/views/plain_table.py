"""Tables drawn without rich: the text output's violations and ``query``'s results, fast.

Rich measures, wraps and styles every cell, which costs about a millisecond a
row; a folder of 10,000 logs with one violation each took 22 s to print. When
box drawing is encodable and the table fits the width unfolded,
:func:`plain_table` draws the very characters rich would, in microseconds a
row: plain text, or (``color``) with the ANSI styles rich writes to a terminal
of the standard, 256 or true colours. In any other case it returns None and
rich draws the table. ``tests/test_plain_table.py`` checks the two agree.
"""

from __future__ import annotations

from rich.cells import cell_len

#: Rich's ``HEAVY_HEAD`` box, as (left, fill, between, right) for the top, header, head rule, rows and bottom.
_TOP = ("┏", "━", "┳", "┓")
_HEAD = ("┃", " ", "┃", "┃")
_HEAD_RULE = ("┡", "━", "╇", "┩")
_ROW = ("│", " ", "│", "│")
_BOTTOM = ("└", "─", "┴", "┘")


#: Rich's default style of a table's header row (bold), as SGR parameters.
HEADER_STYLE = "1"

#: One line of a cell: its text, the SGR parameters of the text, and those of the spaces that align it.
Piece = tuple[str, str, str]


class Column:
    """A column: its header, whether its cells are right-aligned, its least width, its style (SGR parameters)."""

    __slots__ = ("header", "min_width", "right", "style")

    def __init__(self, header: str, right: bool = False, min_width: int = 0, style: str = "") -> None:
        self.header = header
        self.right = right
        self.min_width = min_width
        self.style = style


def plain_table(columns: list[Column], rows: list[list[str | list[Piece]]], width: int, title: str | None = None,
                color: bool = False) -> str | None:
    """The table rich draws for ``rows``, with no style or (``color``) with the ANSI styles rich writes.

    A cell is a string (its lines split at ``\\n``, in the column's style) or
    its lines as :data:`Piece` s. ``title`` goes above, on the left. None when
    the table would be wider than ``width`` (rich would fold or cut its cells)
    or a cell holds text whose width rich may measure otherwise (see
    :func:`_plain`).
    """
    if not columns or not all(_plain(column.header) for column in columns):
        return None
    cells = [[_pieces(cell, column.style) for cell, column in zip(row, columns)] for row in rows]
    widths = [max(cell_len(column.header), column.min_width) for column in columns]
    for row in cells:
        for index, lines in enumerate(row):
            for text, _, _ in lines:
                if not _plain(text):
                    return None
                widths[index] = max(widths[index], _width(text))
    table_width = sum(widths) + 3 * len(columns) + 1
    if table_width > width:
        return None
    out = []
    if title:  # (rich leaves out an empty title)
        if color or not _plain(title) or cell_len(title) > table_width:
            return None
        out.append(title + " " * (table_width - cell_len(title)))
    header: list[Piece | None] = [(column.header, HEADER_STYLE, HEADER_STYLE) for column in columns]
    out += [_rule(_TOP, widths), _line(_HEAD, columns, header, widths, color, HEADER_STYLE),
            _rule(_HEAD_RULE, widths)]
    for row in cells:
        for number in range(max(len(lines) for lines in row)):
            out.append(_line(_ROW, columns, [lines[number] if number < len(lines) else None for lines in row],
                             widths, color))
    out.append(_rule(_BOTTOM, widths))
    out.append("")
    return "\n".join(out)


def styled(text: str, sgr: str) -> str:
    """``text`` in the style of the SGR parameters ``sgr`` (``1;31``: bold red), as rich writes a segment."""
    return f"\x1b[{sgr}m{text}\x1b[0m" if sgr and text else text


def _pieces(cell: str | list[Piece], style: str) -> list[Piece]:
    return [(line, style, style) for line in cell.split("\n")] if isinstance(cell, str) else cell


def _width(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


def _plain(text: str) -> bool:
    """Whether rich shows ``text`` unchanged in a cell: no space at either end, nothing of no width."""
    if text != text.strip():
        return False
    if text.isascii():
        return text.isprintable()
    return all(cell_len(character) > 0 for character in text)


def _rule(box: tuple[str, str, str, str], widths: list[int]) -> str:
    left, fill, between, right = box
    return left + between.join(fill * (width + 2) for width in widths) + right


def _line(box: tuple[str, str, str, str], columns: list[Column], pieces: list[Piece | None], widths: list[int],
          color: bool, edge_style: str | None = None) -> str:
    """One line of the table: each cell's piece (None: a blank line of a taller row) aligned, between borders."""
    left, _, between, right = box
    parts = []
    for column, piece, width in zip(columns, pieces, widths):
        text, sgr, fill_sgr = piece if piece is not None else ("", column.style, column.style)
        padding = " " * (width - _width(text))
        if not color:
            parts.append(f" {padding}{text} " if column.right else f" {text}{padding} ")
            continue
        edge = column.style if edge_style is None else edge_style
        if piece is None:
            parts.append(styled(" " * (width + 2), edge))
        elif sgr == fill_sgr:
            body = padding + text if column.right else text + padding
            parts.append(styled(" ", edge) + styled(body, sgr) + styled(" ", edge))
        else:
            body = styled(padding, fill_sgr) + styled(text, sgr) if column.right \
                else styled(text, sgr) + styled(padding, fill_sgr)
            parts.append(styled(" ", edge) + body + styled(" ", edge))
    return left + between.join(parts) + right
