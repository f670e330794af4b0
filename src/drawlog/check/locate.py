"""Where a match is in a log, without replaying it: its lines, the ids started in it, what is on a line.

:func:`match_lines` finds a match's lines by a byte search for its id, block by
block; :func:`match_ids` lists the matches started; :func:`what_is_at` tells
whose event a line is, or what is there instead. ``drawlog replay`` uses them
(:mod:`drawlog.check.walkthrough` replays what they find).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from ..log.events import MAX_NESTING
from ..log.reader import LongLine, Source, read_blocks, too_deep
from .readings import match_of_line

#: A backslash: a line holding one may write a string with escapes, so a byte search cannot rule it out.
_ESCAPE = b"\\"


def match_lines(source: Source, match_id: str,
                is_open: Callable[[], bool] | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of the lines that may belong to ``match_id`` (its id appears on them).

    Blocks without the id are counted and skipped unread, so a large file is
    scanned at the speed of a byte search. A line with a backslash is always a
    candidate: its strings may write the id with escapes (``"caf\\u00e9"``).
    While ``is_open()`` says the match is open, a line that names no match at
    all is one too: ``drawlog validate`` reads one that cannot be decoded as a
    move of the one match open (lost), if no other is open then (the replay
    asks :mod:`drawlog.check.opened`).
    """
    needle = msgspec.json.encode(match_id)
    for first, block, count in numbered_blocks(source):
        watch = is_open is not None and is_open()
        if watch or needle in block or _ESCAPE in block:
            for number, raw in enumerate(block.split(b"\n")[:count], first):
                if needle in raw or _ESCAPE in raw or (is_open is not None and raw.strip() and is_open()
                                                       and match_of_line(raw) is None):
                    yield number, raw


def numbered_blocks(source: Source) -> Iterator[tuple[int, bytes, int]]:
    """``(number of its first line, block, lines in it)`` for each block of lines (a line too long is skipped)."""
    number = 1
    for block in read_blocks(source):
        if isinstance(block, LongLine):
            number += 1
            continue
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        yield number, block, count
        number += count


def split_location(argument: str) -> tuple[str, int | None]:
    """``FILE`` or ``FILE:LINE`` (when ``FILE:LINE`` is not itself a file): the path and the line."""
    path, colon, line = argument.rpartition(":")
    if colon and line.isdigit() and not Path(argument).exists() and Path(path).exists():
        return path, int(line)
    return argument, None


def what_is_at(source: Source, line: int) -> tuple[str | None, str]:
    """The id of the match the event on ``line`` belongs to, or None and what is there instead.

    The words complete "line N of FILE …": ``is blank``, ``is not valid JSON``, ``is a
    round_start event that names no match``, ``is longer than 1 MiB``, or (past the end)
    ``is past the end: the file has N lines``.
    """
    number = 1
    for block in read_blocks(source):
        if isinstance(block, LongLine):
            if number == line:
                return None, "is longer than 1 MiB (not read)"
            number += 1
            continue
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        if number + count <= line:
            number += count
            continue
        raw = block.split(b"\n")[line - number]
        if not raw.strip():
            return None, "is blank"
        if too_deep(raw):
            return None, f"nests arrays and objects more than {MAX_NESTING} deep"
        try:
            found = msgspec.json.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            return None, "is not valid JSON"
        if isinstance(found, dict) and isinstance(found.get("match"), str):
            return found["match"], ""
        kind = found.get("type") if isinstance(found, dict) else None
        what = f"an event of type {kind!r}" if isinstance(kind, str) and kind.isidentifier() else "an event"
        return None, f"is {what} that names no match" if isinstance(found, dict) else "is not a JSON object"
    lines = number - 1
    return None, f"is past the end: the file has {lines:,} line{'s' if lines != 1 else ''}"


def match_ids(source: Source, most: int | None = 20) -> list[str]:
    """The ids of the first ``most`` matches started in the source (from its ``match_start`` lines; None: all)."""
    found: list[str] = []
    for block in read_blocks(source):
        if isinstance(block, LongLine) or (b"match_start" not in block and _ESCAPE not in block):
            continue
        for raw in block.split(b"\n"):
            if (b"match_start" in raw or _ESCAPE in raw) and not too_deep(raw):  # (F002 there: no match started)
                try:
                    event = msgspec.json.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    continue
                if isinstance(event, dict) and event.get("type") == "match_start" \
                        and isinstance(event.get("match"), str) and event["match"] not in found:
                    found.append(event["match"])
                    if len(found) == most:
                        return found
    return found
