"""Small settings files read whole (a configuration, a baseline): a size cap and a nesting limit.

Such a file may come from anyone (a ``pyproject.toml`` found upwards, a
baseline in a pull request): :func:`read_capped` reads at most a given number
of bytes (``/dev/zero`` or a FIFO that never ends is refused, not read into
memory), and :func:`json_too_deep` / :func:`toml_too_deep` find the line where
arrays and tables nest deeper than a limit before a recursive parser meets it.
"""

from __future__ import annotations

import os
import re

#: Arrays and objects (tables) nested deeper than this in a configuration or baseline are refused.
MAX_FILE_NESTING = 64


class TooLarge(Exception):
    """A file over its cap; ``limit`` is the cap in bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def read_capped(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the file at ``path``, read in pieces; :class:`TooLarge` past ``limit`` bytes (then nothing more
    is read), :class:`OSError` when it cannot be read."""
    pieces: list[bytes] = []
    size = 0
    with open(path, "rb") as handle:
        while piece := handle.read(min(1 << 20, limit + 1 - size)):
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                raise TooLarge(limit)
    return b"".join(pieces)


def megabytes(limit: int) -> str:
    """``limit`` bytes in words: "1 MiB", "256 MiB"."""
    return f"{limit >> 20:,} MiB"


_JSON_STRING = re.compile(rb'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?')


def json_too_deep(data: bytes, limit: int = MAX_FILE_NESTING) -> int | None:
    """The line (from 1) where the JSON text ``data`` first nests arrays and objects more than ``limit`` deep, or
    None. Strings are skipped (a JSON string never spans lines); linear in the length."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return None
    depth = 0
    for number, line in enumerate(data.split(b"\n"), 1):
        for byte in _JSON_STRING.sub(b"", line):
            if byte in b"[{":
                depth += 1
                if depth > limit:
                    return number
            elif byte in b"]}" and depth:
                depth -= 1
    return None


_TOML_SKIPPED = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*')


def toml_too_deep(text: str, limit: int = MAX_FILE_NESTING) -> int | None:
    """The line (from 1) where the TOML text first nests arrays and inline tables more than ``limit`` deep, or
    None (strings and comments skipped; a ``[table]`` header is not nesting: it closes on its line)."""
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    position = 0
    line = 1
    skipped = [*_TOML_SKIPPED.finditer(text), None]
    for found in skipped:
        for char in text[position:found.start() if found is not None else len(text)]:
            if char == "\n":
                line += 1
            elif char in "[{":
                depth += 1
                if depth > limit:
                    return line
            elif char in "]}" and depth:
                depth -= 1
        if found is not None:
            line += found.group().count("\n")
            position = found.end()
    return None
