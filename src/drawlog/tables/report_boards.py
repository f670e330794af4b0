"""The board at each violation's line, for ``drawlog report``: one scan of a log for several matches.

The violations shown with a board are grouped by log file; each file is read
once, as far as the last line wanted, keeping the lines of the matches
concerned (a byte search for their ids, only in the blocks between a match's
first line and its last wanted one). Each match is then replayed once by
:func:`~drawlog.check.walkthrough.walk`, the same replay as ``drawlog
replay``, and every wanted line takes its frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..check.walkthrough import Frame, Selection, numbered_blocks, walk
from ..errors import InputError
from ..log.reader import Source


@dataclass(frozen=True)
class Wanted:
    """A violation to draw: its log, line and match; ``key`` says where the frame goes."""

    key: int
    file: str
    path: str | None
    line: int
    match: str


@dataclass
class _Match:
    first: int
    last: int
    lines: list[tuple[int, bytes]] = field(default_factory=list)


class _TimeUp(Exception):
    """The time for boards ran out."""


def _as_named(file: str, path: str | None) -> Path | str:
    if path is None:
        return "the log was read from standard input"
    return Path(path) if Path(path).is_file() else f"{path} is not at hand"


def frames_at(wanted: Iterable[Wanted], first_lines: Mapping[tuple[str, str], int] | None = None,
              opened: Callable[[str, str | None], Path | str] = _as_named, deadline: float | None = None
              ) -> dict[int, Frame | str]:
    """The frame after each wanted line (by ``key``), or why there is none (a sentence).

    ``first_lines``: where each ``(file, match)`` starts, so a file's blocks
    before it are not searched for the match. ``opened`` gives the file to read
    for a log's ``file`` and stored ``path``, or why it is not read (a sentence);
    past ``deadline`` (:func:`time.monotonic`), no more is read.
    """
    found: dict[int, Frame | str] = {}
    by_file: dict[tuple[str, str | None], list[Wanted]] = {}
    for item in wanted:
        by_file.setdefault((item.file, item.path), []).append(item)
    for (file, path), items in by_file.items():
        where = opened(file, path)
        if deadline is not None and time.monotonic() > deadline:
            where = "the time for boards ran out"
        if isinstance(where, str):
            found.update((item.key, f"no board: {where}") for item in items)
            continue
        source = Source(file, where)
        matches: dict[str, _Match] = {}
        for item in items:
            start = (first_lines or {}).get((file, item.match), 1)
            known = matches.setdefault(item.match, _Match(min(start, item.line), item.line))
            known.first, known.last = min(known.first, start, item.line), max(known.last, item.line)
        try:
            _collect(source, matches, deadline)
            frames = {match: {frame["line"]: frame for frame in walk(source, Selection(match, at=known.last),
                                                                      lines=known.lines, positions=False)}
                      for match, known in matches.items()}
        except InputError as error:
            found.update((item.key, f"no board: {error}") for item in items)
            continue
        except _TimeUp:
            found.update((item.key, "no board: the time for boards ran out") for item in items)
            continue
        for item in items:
            frame = frames[item.match].get(item.line)
            found[item.key] = frame if frame is not None else f"no board: line {item.line} is not an event of " \
                                                              f"match {item.match}"
    return found


def _collect(source: Source, matches: dict[str, _Match], deadline: float | None = None) -> None:
    """Keep each match's lines between its first and last wanted line, reading the file once, only as far as needed."""
    needles = {match: msgspec.json.encode(match) for match in matches}
    end = max(known.last for known in matches.values())
    for number, block, count in numbered_blocks(source):
        if deadline is not None and time.monotonic() > deadline:
            raise _TimeUp
        split: list[bytes] | None = None
        for match, known in matches.items():
            if known.first >= number + count or known.last < number or needles[match] not in block:
                continue
            split = split if split is not None else block.split(b"\n")
            for offset in range(max(known.first, number) - number, min(known.last, number + count - 1) - number + 1):
                if needles[match] in split[offset]:
                    known.lines.append((number + offset, split[offset]))
        if number + count > end:
            return


def board_of(frame: Frame | str) -> dict[str, Any]:
    """What the report shows of a frame: the board model, the hands, the stock and whose turn (or why none)."""
    if isinstance(frame, str):
        return {"board": None, "note": frame}
    if frame.get("board") is None:
        return {"board": None, "note": "no round in play at this line"}
    return {"board": frame["board"], "hands": frame["hands"], "stock_left": frame["stock_left"],
            "drawable": frame["drawable"], "turn": frame["turn"], "round": frame["round"], "over": frame["over"],
            "note": None}
