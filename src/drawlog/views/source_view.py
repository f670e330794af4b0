"""The log line under a violation, with the field at fault marked (``validate --show-source``), as ruff shows code.

::

    sample_logs/every-violation.jsonl:366: M206 match M206-m1: draws [5|6]; …
         |
     366 | {"type":"draw","match":"M206-m1","player":"ann","tile":[5,6]}
         |                                                  ^^^^^^

The field marked is the one the rule is about (:data:`FIELDS`; for ``F002``
the first field of the path msgspec names, ``$.tile[1]``); a line without it
is shown unmarked. On a terminal a long line is cut to the width around the
mark (``…`` where cut); written to a file or a pipe it is shown whole.
"""

from __future__ import annotations

import re
from typing import Final

from ..check.violations import Violation
from ..log.reader import LongLine
from .terminal import shown

#: The field each rule is about, by code (the first of them the line holds is marked).
FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "F003": ("seq",), "F004": ("match",), "F005": ("match",), "F006": ("type",),
    "S101": ("players",), "S102": ("hands",), "S103": ("stock",), "S104": ("opener",), "S105": ("round",),
    "M201": ("player",), "M202": ("tile",), "M203": ("end", "tile"), "M204": ("tile",), "M205": ("type",),
    "M206": ("tile",), "M207": ("type",), "M208": ("type",), "M209": ("type",), "M210": ("type",),
    "M211": ("tile", "type"), "M212": ("end",), "R301": ("reason", "type"), "R302": ("winner",),
    "R303": ("points",), "R304": ("hands",), "R305": ("type",), "R306": ("scores", "winner"),
    "R307": ("type",), "R308": ("points",), "W402": ("target", "rules"), "W405": ("ts",),
}
_SCHEMA_PATH = re.compile(r"at `\$\.(\w+)")
_ELLIPSIS = "…"


def marked_field(violation: Violation, line: str) -> tuple[int, int] | None:
    """Where in ``line`` the field the violation is about starts, and its key's length (quotes included)."""
    names = FIELDS.get(violation.code, ())
    if violation.code in ("F002", "W401"):
        path = _SCHEMA_PATH.search(violation.message) if violation.code == "F002" else \
            re.search(r"field [`'](\w+)[`']", violation.message)
        names = (path.group(1),) if path else ()
    for name in names:
        start = line.find(f'"{name}":')
        if start == -1:
            start = line.find(f'"{name}" :')
        if start != -1:
            return start, len(name) + 2
    return None


def source_lines(violation: Violation, raw: bytes | LongLine | None, width: int | None) -> list[str]:
    """The lines shown under ``violation``: a gutter, the log line (cut to ``width`` columns when given) and the
    mark; empty for a violation without a line or a line that could not be read again."""
    if violation.line is None or raw is None:
        return []
    number = str(violation.line)
    gutter = " " * (len(number) + 1) + "|"
    if isinstance(raw, LongLine):
        return [gutter, f"{number} | (a line of {raw.length:,} bytes, not shown)"]
    text = shown(raw.decode("utf-8", "replace").rstrip("\r"))
    mark = marked_field(violation, text)
    if width is not None:
        text, mark = _cut(text, mark, max(20, width - len(gutter) - 1))
    lines = [gutter, f"{number} | {text}"]
    if mark is not None:
        lines.append(f"{gutter} {' ' * mark[0]}{'^' * mark[1]}")
    return lines


def _cut(text: str, mark: tuple[int, int] | None, room: int) -> tuple[str, tuple[int, int] | None]:
    """``text`` cut to ``room`` columns around the mark, ``…`` where cut; the mark moved to match."""
    if len(text) <= room:
        return text, mark
    centre = mark[0] if mark is not None else 0
    start = max(0, min(centre - room // 3, len(text) - room))
    end = start + room
    head = _ELLIPSIS if start else ""
    tail = _ELLIPSIS if end < len(text) else ""
    body = text[start + len(head):end - len(tail)]
    if mark is not None:
        column = mark[0] - start
        mark = (column, min(mark[1], len(head) + len(body) - column)) if 0 <= column < len(head) + len(body) else None
    return head + body + tail, mark


__all__ = ["FIELDS", "marked_field", "source_lines"]
