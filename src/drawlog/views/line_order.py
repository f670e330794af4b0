"""Violations of one input put in line order before they are written (``concise``: ``file:line`` order).

The replay reports a violation on the line it reads, with a few exceptions
found later: a match the input ends inside (``F006``, on the match's last
line), one closed early. :class:`LineOrder` holds an input's violations until
it ends and gives them back sorted by line, those found first first among
equal lines (those of no line first). Past ``limit`` held, the sorted ones go
to a temporary file, and the files are merged at the end: memory stays
bounded however many violations an input has.
"""

from __future__ import annotations

import heapq
import tempfile
from collections.abc import Iterator
from typing import IO

import msgspec

from ..check.violations import Violation

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Violation)

#: Violations held in memory before a sorted run goes to a temporary file.
LIMIT = 5_000

_Held = tuple[int, int, Violation]


def _key(violation: Violation) -> int:
    return -1 if violation.line is None else violation.line


class LineOrder:
    """Hold violations (:meth:`add`), then give them back in line order (:meth:`drain`)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._held: list[_Held] = []
        self._runs: list[IO[bytes]] = []
        self._count = 0

    def add(self, violation: Violation) -> None:
        """Hold one violation (in the order found)."""
        self._held.append((_key(violation), self._count, violation))
        self._count += 1
        if len(self._held) >= self.limit:
            self._spill()

    def _spill(self) -> None:
        self._held.sort(key=_order)
        run = tempfile.TemporaryFile()  # noqa: SIM115 - closed by drain
        for _, number, violation in self._held:
            run.write(b"%d\t" % number + _encoder.encode(violation) + b"\n")
        run.seek(0)
        self._runs.append(run)
        self._held = []

    def drain(self) -> Iterator[Violation]:
        """Every violation held, in line order; then nothing is held."""
        held, runs = sorted(self._held, key=_order), self._runs
        self._held, self._runs = [], []
        try:
            for _, _, violation in heapq.merge(iter(held), *map(_read, runs), key=_order):
                yield violation
        finally:
            for run in runs:
                run.close()


def _order(item: _Held) -> tuple[int, int]:
    return item[0], item[1]


def _read(run: IO[bytes]) -> Iterator[_Held]:
    for raw in run:
        number, _, encoded = raw.partition(b"\t")
        violation = _decoder.decode(encoded)
        yield _key(violation), int(number), violation
