"""The deals alone (issue #24): ``stats_rows.add_deal_rows`` for every ``round_start`` of a log, then the deals
table's columns built and written (inline), in units of one line-by-line decode of the same log, CPU time.

Each round's state is a :class:`~drawlog.engine.rounds.Round` built from the logged deal (as the replay
makes it); the collector runs every 50,000 allocations, as in ``write_tables``. The median of ``--reps``
runs in this process (after one to warm up the fair-deal simulation), decode the median of three. Run it
with one build and then another, in turns (``PYTHONPATH=/tmp/site-A``, ``/tmp/site-B``), a few times::

    python bench/bench_deals.py bench/data/variant-draw-300000-seed11-g1.jsonl --reps 5
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from drawlog.engine.rounds import Round
from drawlog.engine.tiles import tile_id
from drawlog.log.events import AnyEvent
from drawlog.tables import stats
from drawlog.tables.move_sink import MoveSink
from drawlog.tables.sinks import DealSink, TableSink

try:
    from drawlog.tables.stats_rows import MatchNotes, add_deal_rows
except ImportError:  # a build before tables/stats.py was split: its _MatchNotes and StatsRecorder._deal
    MatchNotes, add_deal_rows = stats._MatchNotes, None  # type: ignore[attr-defined]


def _starts(path: Path) -> list[tuple[Any, int, Round, Any]]:
    decode = msgspec.json.Decoder(AnyEvent).decode
    starts, matches = [], {}
    with open(path, "rb") as stream:
        for line_number, line in enumerate(stream, 1):
            if b'"match_start"' in line:
                event = decode(line)
                matches[event.match] = MatchNotes(event, path.name, str(path), line_number)
            elif b'"round_start"' in line:
                event = decode(line)
                notes = matches[event.match]
                names = tuple(notes.player_names)
                order = [tile_id(tile) for tile in event.stock] if event.stock is not None else None
                starts.append((event, line_number, Round(names, 0, [0] * len(names), 0, order, event.round), notes))
    return starts


def _run(starts: list[tuple[Any, int, Round, Any]], folder: Path) -> tuple[float, float]:
    sinks: dict[str, Any] = {name: (DealSink if name == "deals" else TableSink)(folder / f"{name}.parquet", schema)
                             for name, schema in stats.SCHEMAS.items() if name != "moves"}
    sinks["moves"] = MoveSink(folder / "moves.parquet", stats.SCHEMAS["moves"])
    if add_deal_rows is not None:
        deal = partial(add_deal_rows, sinks["deals"])
    else:
        deal = stats.StatsRecorder(sinks, lambda: "log")._deal
    started = time.process_time()
    try:
        for event, line, state, notes in starts:
            deal(event.match, state, event, line, notes)
    except TypeError:  # a build before the deals work: _deal(match, number, names, event, line, notes)
        for event, line, state, notes in starts:
            deal(event.match, state.number, state.names, event, line, notes)
    recorded = time.process_time()
    sinks["deals"].close()
    return recorded - started, time.process_time() - recorded


def _decode(path: Path) -> float:
    decode = msgspec.json.Decoder(AnyEvent).decode
    started = time.process_time()
    with open(path, "rb") as stream:
        for line in stream:
            decode(line)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--reps", type=int, default=5)
    options = parser.parse_args()
    starts = _starts(options.log)
    gc.set_threshold(50_000, *gc.get_threshold()[1:])
    with tempfile.TemporaryDirectory(prefix="drawlog-deals-") as scratch:
        warm = Path(scratch) / "warm"
        warm.mkdir()
        _run(starts, warm)
        runs = []
        for rep in range(options.reps):
            folder = Path(scratch) / f"run{rep}"
            folder.mkdir()
            runs.append(_run(starts, folder))
    record = statistics.median(run[0] for run in runs)
    write = statistics.median(run[1] for run in runs)
    decode = statistics.median(_decode(options.log) for _ in range(3))
    print(f"{len(starts)} rounds: deals {(record + write) / decode:.3f} decode units (recording "
          f"{record / decode:.3f}, columns and Parquet {write / decode:.3f}); decode {decode * 1000:.0f} ms")


if __name__ == "__main__":
    main()
