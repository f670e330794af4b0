"""The board views of ``drawlog replay``: the text view (rich, or plain text without it) and JSON lines.

Each view renders the frames of the board model (one plain dict per log
event, see ``engine/board.py`` and the README): the event and its
violations, the board, the hands, the stock and the legal moves. The words
come from a message catalog (:func:`~drawlog.views.language.catalog`); what
the text view says is :func:`~drawlog.views.frame_parts.frame_pieces`.

Every string that comes from a log (player names, match ids, messages that
quote them) is printed literally as rich :class:`~rich.text.Text`, never as
markup, with control characters shown as escapes (``\\x1b``, as
:func:`~drawlog.views.terminal.shown` does), never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from rich.console import Console
from rich.text import Text

from .frame_parts import (
    BODY,
    ENDS,
    STYLES,
    Catalog,
    Frame,
    Run,
    analysis_runs,
    chain_rows,
    describe,
    event_runs,
    frame_pieces,
    legal_text,
    printable,
)
from .frame_plain import PLAIN_LEAST_WIDTH, write_plain_frames
from .terminal import plain_console

__all__ = ["ENDS", "STYLES", "analysis_lines", "chain_drawing", "describe", "event_text", "frame_lines",
           "frames_json", "legal_text", "printable", "render_frames"]

_encoder = msgspec.json.Encoder()


def frames_json(frames: Iterable[Frame]) -> bytes:
    """The frames as JSON lines: one JSON object per frame, each on its own line (UTF-8)."""
    return b"".join(_encoder.encode(frame) + b"\n" for frame in frames)


# -- the text view -------------------------------------------------------------


def render_frames(frames: Iterable[Frame], catalog: Catalog, console: Console) -> None:
    """Print each frame on ``console``: event, violations, board, description, turn, hands, stock, moves.

    Then the last frame's position string, as one line ``position: dp1 …`` (``docs/position.md``).
    A console that shows plain text (a file, a pipe, no colours) is written
    without rich (:func:`~drawlog.views.frame_plain.write_plain_frames`: the
    same characters, a frame at a time, a hundred times faster).
    """
    if plain_console(console) and console.width >= PLAIN_LEAST_WIDTH:
        write_plain_frames(frames, catalog, console.file, console.width)
        return
    newline = Text("\n")
    position = None
    for index, frame in enumerate(frames):
        text = newline.join(frame_lines(frame, catalog, console.width))
        text.no_wrap, text.overflow = True, "ignore"  # wrapped already
        if index:
            console.print()
        console.print(text)
        position = frame.get("position")
    if position:  # the last frame's, on one line however wide, to copy into ``replay --position``
        console.print()
        console.print(Text(f"position: {printable(position)}", no_wrap=True, overflow="ignore"), soft_wrap=True)


def frame_lines(frame: Frame, catalog: Catalog, width: int = 80) -> list[Text]:
    """One frame of the text view as lines of rich text, none wider than ``width``.

    The drawing of the line of play breaks between tiles; the other lines
    are indented, and wrap under their indentation. The words are the
    catalog's for the frame's variant (:func:`~drawlog.views.language.in_variant`).
    """
    lines: list[Text] = []
    for piece in frame_pieces(frame, catalog):
        if isinstance(piece, tuple):
            lines.extend(_indented([_text(piece[1])], width, piece[0]))
        else:
            lines.extend(_text(runs) for runs in chain_rows(piece, width, indent=BODY))
    return lines


def analysis_lines(analysis: Mapping[str, Any]) -> list[Text]:
    """``replay --analyze``'s table under the board: each action's equities (points), the taken and the best marked."""
    return [_text(runs) for runs in analysis_runs(analysis)]


def event_text(frame: Frame, catalog: Catalog) -> Text:
    """The heading of a frame in the seeds' words: ``line 12  Placed [1|4]  ann  right`` (log strings literal)."""
    return _text(event_runs(frame, catalog))


def chain_drawing(board: Mapping[str, Any], width: int = 78, indent: str = "") -> list[Text]:
    """The line of play from its left end to its right end in three rows, wrapped to ``width``.

    A plain tile lies on the middle row as drawn (``[4|1]``); a double stands
    crosswise, its value above and below a bar.
    """
    return [_text(runs) for runs in chain_rows(board, width, indent)]


def _text(runs: list[Run]) -> Text:
    text = Text()
    for part, style in runs:
        text.append(part, style=style or None)
    return text


_measure: list[Console] = []


def _indented(texts: Iterable[Text], width: int, indent: str = "  ") -> list[Text]:
    """``texts`` wrapped to ``width`` under ``indent``, no line with trailing spaces."""
    if not _measure:
        _measure.append(Console(width=80, color_system=None, legacy_windows=False))
    lines = []
    room = max(width - len(indent), 10)
    for text in texts:
        if "\n" not in text.plain and text.cell_len <= room:
            lines.append(Text(indent, no_wrap=True, overflow="ignore").append_text(text))
            continue
        for part in text.wrap(_measure[0], room):
            part.rstrip()
            line = Text(indent, no_wrap=True, overflow="ignore")
            line.append_text(part)
            lines.append(line)
    return lines
