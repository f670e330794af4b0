"""Blocks of lines, as the validator reads them: a clean block decoded in one call, runs of blank lines counted at
once, and lines held in memory cut into the blocks a file gives (:func:`~drawlog.log.reader.read_blocks`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import msgspec

from ..log.events import AnyEvent
from ..log.reader import BOM, MAX_LINE_BYTES, LongLine, without_long_lines

#: Decodes any event of the format.
DECODER = msgspec.json.Decoder(AnyEvent)
#: Two JSON objects on one line: a block holding it is decoded line by line (F001 for that line).
TWO_ON_ONE_LINE = re.compile(rb"\}[ \t\r]*\{")
#: Lines in a block of lines held in memory.
BLOCK_LINES = 1024
#: A run of blank lines (whitespace only, as :meth:`bytes.isspace` has it), counted at once.
BLANK_RUN = re.compile(rb"(?m)^[ \t\r\n\x0b\x0c]*\n")


def decoded_block(block: bytes) -> list[AnyEvent] | None:
    """The events of a block of lines decoded in one call; None unless every line is one well-formed event."""
    if TWO_ON_ONE_LINE.search(block) is not None:
        return None
    try:
        events: list[AnyEvent] = DECODER.decode_lines(block)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    return events if len(events) == block.count(b"\n") + (not block.endswith(b"\n")) else None


def blank_runs(block: bytes) -> list[bytes | int]:
    """A block cut at its runs of blank lines: the lines between as bytes, each run as its number of lines."""
    parts: list[bytes | int] = []
    start = 0
    for run in BLANK_RUN.finditer(block):
        if run.start() > start:
            parts.append(block[start:run.start()])
        parts.append(block.count(b"\n", run.start(), run.end()))
        start = run.end()
    if start < len(block):
        parts.append(block[start:])
    return parts


def split_text(text: str | bytes | bytearray | memoryview) -> list[bytes]:
    """A whole log held in one string: its lines (a final newline ends the last line, it does not start one)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if not data or data == BOM:  # nothing, or a byte order mark and nothing after it: no lines, as in a file
        return []
    return data[:-1].split(b"\n") if data.endswith(b"\n") else data.split(b"\n")


def as_blocks(lines: Iterable[bytes | str]) -> Iterator[bytes | LongLine]:
    """Group in-memory lines into newline-terminated blocks, as :func:`read_blocks` gives them.

    A line over :data:`MAX_LINE_BYTES` is a :class:`LongLine` (F001), and a UTF-8 byte order mark
    before the first line is dropped, as in a file.
    """
    batch: list[bytes] = []
    first = True
    for line in lines:
        data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        data = data if data.endswith(b"\n") else data + b"\n"
        if first:  # a byte order mark starts the input, as in a file
            data, first = data.removeprefix(BOM), False
        if len(data) > MAX_LINE_BYTES:
            if batch:
                yield b"".join(batch)
                batch = []
            yield from without_long_lines(data)
            continue
        batch.append(data)
        if len(batch) == BLOCK_LINES:
            yield b"".join(batch)
            batch = []
    if batch:
        yield b"".join(batch)
