"""Which matches a log holds open before a line, as ``drawlog validate`` reads it; read only when asked.

A line that cannot be read and names no match is, for ``validate``, a lost move
of the one match open then, if only one is
(:meth:`~drawlog.check.bookkeeping.ReplayBookkeeping.only_open`). A walkthrough replays one
match (:mod:`drawlog.check.walkthrough`), so it needs the others open at that
line too, though not their moves: :class:`OpenMatches` reads the log's
``match_start`` and ``match_end`` lines (a byte search, block by block) up to
the line asked about and replays them through a
:class:`~drawlog.check.validator.Validator` of its own — the same decoding and
the same replay of starts and ends as ``validate``'s, so the same matches open.
Nothing is read until a line is asked about, and each line once however many
are. (Not followed: a match ``validate`` closes early, as past
``--max-open-matches`` or its memory limit, which counts the rounds dealt; the
walkthrough does not close its own match so either.)
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from ..log.events import MatchEnd, MatchStart
from ..log.reader import Source
from .locate import numbered_blocks
from .validator import Validator

#: What a line that may start or end a match holds: its type, or a backslash (an escape may spell the type).
_WORDS = (b"match_start", b"match_end", b"\\")


class OpenMatches:
    """The ids of the matches open in ``source`` before a line (:meth:`before`), read on as far as asked."""

    def __init__(self, source: Source) -> None:
        self._validator = Validator(codes=())  # (it reports nothing: what it finds of those lines is validate's)
        self._validator.start_input(source.name)
        self._lines = _starts_and_ends(source)
        #: The next line read and not replayed yet (it is at or past the line last asked about).
        self._next: tuple[int, bytes] | None = None

    def before(self, line: int) -> Collection[str]:
        """The (bounded) ids of the matches open once the lines before ``line`` are read; lines are asked in order."""
        validator = self._validator
        replay = validator.replay
        while True:
            if self._next is None:
                self._next = next(self._lines, None)
                if self._next is None:
                    break
            number, raw = self._next
            if number >= line:
                break
            self._next = None
            event = validator.decode_line(raw, number)
            if isinstance(event, (MatchStart, MatchEnd)):
                replay.dispatch(event, number)
        return replay.tables.keys()


def _starts_and_ends(source: Source) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of the lines that may be a ``match_start`` or a ``match_end``, found by a byte
    search for each word (the other lines of a block are not split off)."""
    for first, block, _ in numbered_blocks(source):
        number, counted, at = first, 0, 0  # the number of the line that starts at ``counted``; searched from ``at``
        found = [block.find(word) for word in _WORDS]  # the next place of each word (-1: none left)
        while True:
            for index, place in enumerate(found):
                if 0 <= place < at:
                    found[index] = block.find(_WORDS[index], at)
            hit = min((place for place in found if place >= 0), default=-1)
            if hit < 0:
                break
            start = block.rfind(b"\n", 0, hit) + 1
            end = block.find(b"\n", hit)
            at = len(block) if end < 0 else end
            number += block.count(b"\n", counted, start)
            counted = start
            yield number, block[start:at]


__all__ = ["OpenMatches"]
