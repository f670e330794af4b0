"""Tables of plain text drawn without rich: the text output's violations and ``query``'s results, fast.

Rich measures, wraps and styles every cell, which costs about a millisecond a
row; a folder of 10,000 logs with one violation each took 22 s to print. When
nothing is to be styled (no colour: a file, a pipe, ``--color never``), box
drawing is encodable and the table fits the width unfolded, :func:`plain_table`
draws the very same characters as rich would, in microseconds a row. In any
other case it returns None and rich draws the table.
``tests/test_plain_table.py`` checks the two agree.
"""

from __future__ import annotations

from rich.cells import cell_len

#: Rich's ``HEAVY_HEAD`` box, as (left, fill, between, right) for the top, header, head rule, rows and bottom.
_TOP = ("┏", "━", "┳", "┓")
_HEAD = ("┃", " ", "┃", "┃")
_HEAD_RULE = ("┡", "━", "╇", "┩")
_ROW = ("│", " ", "│", "│")
_BOTTOM = ("└", "─", "┴", "┘")


class Column:
    """A column: its header, whether its cells are right-aligned, and its least width."""

    __slots__ = ("header", "min_width", "right")

    def __init__(self, header: str, right: bool = False, min_width: int = 0) -> None:
        self.header = header
        self.right = right
        self.min_width = min_width


def plain_table(columns: list[Column], rows: list[list[str]], width: int, title: str | None = None) -> str | None:
    """The table rich draws for ``rows`` (one string per column, lines split at ``\\n``) with no style.

    ``title`` goes above, on the left. None when the table would be wider than
    ``width`` (rich would fold or cut its cells) or a cell holds text whose
    width rich may measure otherwise (see :func:`_plain`).
    """
    if not columns or not all(_plain(column.header) for column in columns):
        return None
    cells = [[cell.split("\n") for cell in row] for row in rows]
    widths = [max(cell_len(column.header), column.min_width) for column in columns]
    for row in cells:
        for index, lines in enumerate(row):
            for line in lines:
                if not _plain(line):
                    return None
                size = len(line) if line.isascii() else cell_len(line)
                widths[index] = max(widths[index], size)
    table_width = sum(widths) + 3 * len(columns) + 1
    if table_width > width:
        return None
    out = []
    if title:  # (rich leaves out an empty title)
        if not _plain(title) or cell_len(title) > table_width:
            return None
        out.append(title + " " * (table_width - cell_len(title)))
    out += [_rule(_TOP, widths), _line(_HEAD, columns, [column.header for column in columns], widths),
           _rule(_HEAD_RULE, widths)]
    for row in cells:
        for number in range(max(len(lines) for lines in row)):
            out.append(_line(_ROW, columns, [lines[number] if number < len(lines) else "" for lines in row], widths))
    out.append(_rule(_BOTTOM, widths))
    out.append("")
    return "\n".join(out)


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


def _line(box: tuple[str, str, str, str], columns: list[Column], texts: list[str], widths: list[int]) -> str:
    left, _, between, right = box
    parts = []
    for column, text, width in zip(columns, texts, widths):
        padding = " " * (width - (len(text) if text.isascii() else cell_len(text)))
        parts.append(f" {padding}{text} " if column.right else f" {text}{padding} ")
    return left + between.join(parts) + right
