"""The text view of ``drawlog replay`` as plain text, without rich: the same characters, far faster.

Rich builds, wraps and renders a styled ``Text`` per line, about a
millisecond a frame: a match of a million lines took a quarter of an hour to
write to a file. When the output shows no colours (a file, a pipe,
``--color never``), :func:`write_plain_frames` joins the strings of
:func:`~drawlog.views.frame_parts.frame_pieces` and wraps them as rich's
``Text.wrap`` would (its own line divider, ``rich._wrap.divide_line``), a
frame at a time: nothing is kept but the frame in hand.
``tests/test_frame_plain.py`` checks the two views agree character for character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import IO

from rich._wrap import divide_line
from rich.cells import cell_len, set_cell_size

from .frame_parts import BODY, Catalog, Frame, chain_rows, frame_pieces, printable
from .language import in_variant

#: The narrowest console the plain view writes for (rich's own view below it: lines narrower than their indent).
PLAIN_LEAST_WIDTH = 20

_TRAILING_SPACE = re.compile(r"\s+$")
_NARROW: list[frozenset[str]] = []


def _narrow(text: str) -> bool:
    """Whether every character of ``text`` takes one cell as rich measures it (its width is its length)."""
    if text.isascii():
        return text.isprintable()
    if not _NARROW:  # the characters up to the CJK blocks that rich measures one cell wide
        _NARROW.append(frozenset(character for character in map(chr, range(0x20, 0x2E80))
                                 if character.isprintable() and cell_len(character) == 1))
    return _NARROW[0].issuperset(text)


def _divide_narrow(text: str, width: int) -> list[int] | None:
    """Where rich's ``divide_line`` breaks ``text`` (of one-cell characters, its only space ``" "``) to fit
    ``width``, a line at a time; None when a word is longer than a line (rich folds it: its own divider is used)."""
    breaks: list[int] = []
    start, end = 0, len(text.rstrip(" "))
    while end - start > width:
        limit = start + width  # the line's words must end by here
        if text[limit] == " ":  # the word before fits: break before the next
            cut = len(text) - len(text[limit:].lstrip(" "))
        else:  # a word goes past the end of the line: break before it
            cut = text.rfind(" ", start, limit) + 1
        after = text.find(" ", cut)
        if not text[start:cut].strip(" ") or (len(text) if after < 0 else after) - cut > width:
            return None  # the line starts with a word longer than it, or such a word comes next
        breaks.append(cut)
        start = cut
    return breaks


def write_plain_frames(frames: Iterable[Frame], catalog: Catalog, stream: IO[str], width: int) -> None:
    """Write each frame to ``stream`` as :func:`plain_frame` draws it, a blank line between them, then the last
    frame's position string (``position: dp1 …``), as ``render_frames`` prints them on a plain console."""
    position = None
    gap = ""
    variants: dict[object, Catalog] = {}  # the catalog in each variant's words, made once
    for frame in frames:
        variant = frame.get("variant")
        words = variants.get(variant)
        if words is None:
            words = variants[variant] = in_variant(catalog, variant)
        stream.write(gap + plain_frame(frame, words, width, in_its_variant=False) + "\n")
        gap = "\n"
        position = frame.get("position")
    if position:
        stream.write(f"\nposition: {printable(position)}\n")


def plain_frame(frame: Frame, catalog: Catalog, width: int, in_its_variant: bool = True) -> str:
    """One frame of the text view as plain lines no wider than ``width``, joined by newlines (none at the end).

    ``in_its_variant=False``: ``catalog`` holds the words of the frame's variant already.
    """
    lines: list[str] = []
    for piece in frame_pieces(frame, catalog, in_its_variant):
        if isinstance(piece, tuple):
            lines.extend(wrap(piece[0], "".join(part for part, _ in piece[1]), width))
        else:
            lines.extend("".join(part for part, _ in runs) for runs in chain_rows(piece, width, indent=BODY))
    return "\n".join(lines)


def wrap(indent: str, text: str, width: int) -> list[str]:
    """``text`` wrapped to ``width`` under ``indent`` as rich wraps it (``Text.wrap``), no line with trailing spaces."""
    room = max(width - len(indent), 10)
    narrow = _narrow(text)
    if "\n" not in text and (len(text) if narrow else cell_len(text)) <= room:
        return [indent + text]
    lines = []
    for line in text.split("\n"):
        offsets = _divide_narrow(line, room) if narrow else None
        if offsets is None:
            offsets = divide_line(line, room, fold=True)
        for start, end in zip([0, *offsets], [*offsets, len(line)]):
            part = line[start:end]
            if len(part) > room and (space := _TRAILING_SPACE.search(part)):
                part = part[:len(part) - min(len(space.group()), len(part) - room)]
            if cell_len(part) > room:
                part = set_cell_size(part, room)
            lines.append(indent + part.rstrip())
    return lines
