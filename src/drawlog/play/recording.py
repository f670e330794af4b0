"""Writing simulated matches as log files: compression, interleaved tables, timestamps, the fault list.

:func:`record` streams matches from a :class:`~drawlog.simulate.Simulator` to a
binary stream, a few at a time, so memory does not grow with the number of
matches. It returns a :class:`Tally` of results per bot and the injected
faults located by their physical line in the output.
"""

from __future__ import annotations

import contextlib
import gzip
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import BinaryIO

import msgspec

from ..atomic import atomic_file
from .faults import Defective
from .simulate import LogItem, Simulator, encode_item, interleave

_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


@contextlib.contextmanager
def open_output(path: str) -> Iterator[BinaryIO]:
    """A binary stream for ``path``: ``-`` is standard output; ``.gz`` and ``.zst`` are compressed.

    gzip output carries no timestamp, so the same seed gives the same bytes. A file
    is written whole or not at all (:func:`~drawlog.atomic.atomic_file`).
    """
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    if target.name.endswith(".gz"):
        with atomic_file(target) as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
            yield packed  # type: ignore[misc]
    elif target.name.endswith(".zst"):
        import zstandard

        with atomic_file(target) as raw, zstandard.ZstdCompressor().stream_writer(raw) as packed:
            yield packed  # type: ignore[misc]
    else:
        with atomic_file(target) as raw:
            yield raw  # type: ignore[misc]


@dataclass
class BotRecord:
    """One bot's results over the matches it played (a bot in two seats of a match counts once there)."""

    matches: int = 0
    wins: int = 0
    drawn: int = 0
    points: int = 0
    seats: int = 0

    @property
    def win_share(self) -> float:
        """Matches won over matches played."""
        return self.wins / self.matches if self.matches else 0.0


@dataclass
class Tally:
    """Results of a simulation run: per bot and per seat, and the injected faults as (match, line, code)."""

    matches: int = 0
    lines: int = 0
    bots: dict[str, BotRecord] = field(default_factory=dict)
    faults: list[dict[str, object]] = field(default_factory=list)
    #: Results per seat (0 first), whoever sat there.
    seats: dict[int, BotRecord] = field(default_factory=dict)

    def add(self, bots: tuple[str, ...], scores: tuple[int, ...], winner: int | None) -> None:
        """Count one finished match."""
        self.matches += 1
        for name in set(bots):
            record = self.bots.setdefault(name, BotRecord())
            seats = [seat for seat, bot in enumerate(bots) if bot == name]
            record.matches += 1
            record.seats += len(seats)
            record.points += sum(scores[seat] for seat in seats)
            if winner is None:
                record.drawn += 1
            elif winner in seats:
                record.wins += 1
        for seat, score in enumerate(scores):
            record = self.seats.setdefault(seat, BotRecord())
            record.matches += 1
            record.seats += 1
            record.points += score
            if winner is None:
                record.drawn += 1
            elif winner == seat:
                record.wins += 1

    def rows(self) -> list[tuple[str, ...]]:
        """Per bot, best win share first: bot, matches, seats, wins, win share, drawn, mean final score.

        When one bot sat in every seat, per seat instead (``random, seat 1`` …): one row of 100 % says nothing.
        """
        if len(self.bots) == 1:
            [name] = self.bots
            ranked = [(f"{name}, seat {seat + 1}", record) for seat, record in sorted(self.seats.items())]
        else:
            ranked = sorted(self.bots.items(), key=lambda item: -item[1].win_share)
        return [(name, f"{record.matches:,}", f"{record.seats:,}", f"{record.wins:,}", f"{record.win_share:.1%}",
                 f"{record.drawn:,}", f"{record.points / record.seats:.1f}" if record.seats else "-")
                for name, record in ranked]


def encode_faults(faults: list[dict[str, object]], as_array: bool) -> bytes:
    """The fault list: one JSON array with a fault a line (``as_array``, for a ``.json`` file), or JSON lines."""
    lines = [msgspec.json.encode(fault) for fault in faults]
    if as_array:
        return b"[\n" + b",\n".join(lines) + b"\n]\n" if lines else b"[]\n"
    return b"".join(line + b"\n" for line in lines)


class _Clock:
    """RFC 3339 timestamps per match: a start time, then a few seconds per event."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.now: dict[str, datetime] = {}

    def stamp(self, match_id: str) -> str:
        moment = self.now.get(match_id)
        if moment is None:
            moment = _EPOCH + timedelta(seconds=self.rng.randrange(365 * 24 * 3600))
        moment += timedelta(seconds=self.rng.randint(1, 20))
        self.now[match_id] = moment
        return moment.isoformat().replace("+00:00", "Z")

    def forget(self, match_id: str) -> None:
        self.now.pop(match_id, None)


def _match_of(item: LogItem) -> str:
    return item.event.match if isinstance(item, Defective) else item.match


def record(
    simulator: Simulator,
    count: int,
    out: BinaryIO,
    tables: int = 1,
    timestamps: bool = False,
    seed: int = 0,
    on_match: Callable[[], None] | None = None,
) -> Tally:
    """Simulate ``count`` matches and write them to ``out``; ``tables`` > 1 interleaves that many at once."""
    tally = Tally()
    clock = _Clock(seed) if timestamps else None
    mix = random.Random(seed + 1)
    line = 0
    played = 0
    while played < count:
        batch = []
        for _ in range(min(tables, count - played)):
            played += 1
            batch.append(simulator.match(f"{simulator.options.match_prefix}{played:06d}"))
            outcome = simulator.outcome
            tally.add(outcome.bots, outcome.scores, outcome.winner)  # type: ignore[union-attr]
            if on_match is not None:
                on_match()
        faults = {(fault.match, fault.index): fault.code for fault in simulator.injected}
        simulator.injected.clear()
        position: dict[str, int] = {}
        for item in (interleave(batch, mix) if len(batch) > 1 else batch[0]):
            match_id = _match_of(item)
            position[match_id] = index = position.get(match_id, 0) + 1
            line += 1
            code = faults.get((match_id, index))
            if code is not None:
                tally.faults.append({"match": match_id, "line": line, "code": code})
            if clock is not None and not isinstance(item, Defective):
                item = msgspec.structs.replace(item, ts=clock.stamp(match_id))
            out.write(encode_item(item))
        if clock is not None:
            for match_id in position:
                clock.forget(match_id)
    tally.lines = line
    return tally
