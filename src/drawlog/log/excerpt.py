"""Lines of a log read again by number: the source under each violation (``validate --show-source``)."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import InputError
from .reader import LongLine, read_blocks
from .sources import Source


def lines_at(source: Source, wanted: Iterable[int]) -> dict[int, bytes | LongLine]:
    """The lines numbered ``wanted`` (from 1) of a log file, decompressed, without their line ends.

    A line over the reader's limit comes back as its :class:`~drawlog.log.reader.LongLine` (never held in memory).
    Standard input (it cannot be read twice) and a file that can no longer be read give what could be read: an
    empty dict for them. Reading stops after the last line wanted.
    """
    numbers = set(wanted)
    if source.path is None and source.url is None or not numbers:
        return {}
    last, number = max(numbers), 0
    found: dict[int, bytes | LongLine] = {}
    try:
        for block in read_blocks(source):
            if isinstance(block, LongLine):
                number += 1
                if number in numbers:
                    found[number] = block
            else:
                lines = block.split(b"\n")
                if lines[-1] == b"":  # (a block ends with its last line's end, but for a file's unended last line)
                    lines.pop()
                for line in lines:
                    number += 1
                    if number in numbers:
                        found[number] = line
                    if number >= last:
                        return found
            if number >= last:
                return found
    except (InputError, OSError):
        pass
    return found


__all__ = ["lines_at"]
