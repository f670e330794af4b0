"""Replaying logs into the six tables in one process: what :func:`~drawlog.tables.dataset.write_tables` does
alone, and what each worker of :mod:`~drawlog.tables.parallel` does with its part.

Below both (they shared it in a circle before).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from ..check.validator import Validator
from ..check.violations import Summary, Violation
from ..errors import InputError
from ..log.sources import Source
from .move_sink import MoveSink
from .sinks import DealSink, TableSink
from .stats import SCHEMAS, StatsRecorder
from .writers import ROWS_PER_GROUP, WriterThread


def write_in_one_process(inputs: Iterable[Source | InputError], folder: Path, validator: Validator,
                         arrow: bool = False, rows_per_group: int = ROWS_PER_GROUP, threaded: bool = True,
                         watch: Callable[[StatsRecorder, Violation], None] | None = None,
                         ended: list[tuple[str, str | None, str | None, str]] | None = None,
                         ) -> tuple[Summary, dict[str, int]]:
    """Replay ``inputs`` once, writing the tables into ``folder``; ``threaded``: encode in a writer thread
    (when this process may run on more than one CPU).

    ``watch`` sees each violation just before the recorder adds it to the violations table.
    ``ended``: the keys of matches lately ended by inputs read before (see
    :meth:`~drawlog.tables.stats.StatsRecorder.ended_before`).
    """
    with _system_memory_pool(), _rarer_collections():
        suffix = "arrow" if arrow else "parquet"
        # On one CPU the thread cannot run beside the replay, only take turns with it: inline, a stats run took
        # 3 % less CPU and 5 % less time (taskset -c 0, 300,000-event Draw log, 11 pairs).
        background = WriterThread() if threaded and _cpus() > 1 else None
        kinds: dict[str, Any] = {"moves": MoveSink, "deals": DealSink}
        sinks = {name: kinds.get(name, TableSink)(folder / f"{name}.{suffix}", schema, rows_per_group, arrow,
                                                  background)
                 for name, schema in SCHEMAS.items()}
        recorder = StatsRecorder(sinks, lambda: validator.reporter.file)
        if ended:
            recorder.ended_before(ended)
        validator.replay.observer = recorder
        try:
            for violation in validator.validate_inputs(inputs):
                if watch is not None:
                    watch(recorder, violation)
                recorder.violation(violation)
        finally:
            try:
                try:
                    for sink in sinks.values():
                        sink.flush()
                finally:
                    if background is not None:
                        background.close()  # every row group written before the files are closed
            finally:
                validator.replay.observer = None  # (the recorder refers to the validator: no cycle left behind)
                for sink in sinks.values():
                    sink.close()
    return validator.summary, {name: sink.rows for name, sink in sinks.items()}


def _cpus() -> int:
    """How many CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on macOS and Windows)
        return os.cpu_count() or 1


@contextmanager
def _system_memory_pool() -> Iterator[None]:
    """Arrow allocates from the C library's malloc meanwhile (unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses).

    Arrow's default, mimalloc, hands freed row groups back to the system and
    takes fresh (huge, zeroed) pages for the next: about 10 % of the CPU time of
    a statistics run on the benchmark log, and 35 MB more memory at its peak.
    """
    import pyarrow as pa

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


@contextmanager
def _rarer_collections(young: int = 200_000) -> Iterator[None]:
    """Python's garbage collector looks at new objects after ``young`` more are kept than freed meanwhile (not 700).

    A collection goes over every container made since the last one and still alive: the pending rows of the
    tables (a tuple each, lists of tiles...) and their values. At the threshold of 50,000 used before,
    the 300,000-event Draw log's ``stats`` spent 42 ms (0.4 of its decoding) in two collections, All Fives'
    79 ms in three. Nothing
    the replay makes refers to itself (tests/test_no_cycles.py: replaying the sample logs leaves no garbage for
    the collector), so fewer collections hold no more memory; the threshold stays as a safety net: a cycle
    made anyway is found after 200,000 containers more. The pending rows count until their row group is
    written: the 300,000-event logs are now written with no collection at all.
    """
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], young), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


class InputTracker:
    """Notes, input by input, each one's share of the summary and the match ids it started first."""

    def __init__(self, validator: Any, starts: bool = True) -> None:
        self.validator = validator
        self.summaries: list[Summary] = []
        self.starts: list[dict[str, int]] = []
        self._before = msgspec.structs.replace(validator.summary, decompression=list(validator.summary.decompression))
        self._current: dict[str, int] = {}
        if starts:  # (a part's worker has its own notes of them: see StartNotes)
            validator.replay.on_first_start = self._started

    def _started(self, table: Any) -> None:
        self._current.setdefault(table.id, table.last_line)

    def inputs(self, items: Iterable[Source | InputError]) -> Iterator[Source | InputError]:
        """``items``, noting each one's share as the next is asked for."""
        for item in items:
            yield item
            self.done()

    def done(self) -> None:
        """The input being read is done: note its share."""
        now = self.validator.summary
        share = Summary()
        for name in Summary.__struct_fields__:
            value, before = getattr(now, name), getattr(self._before, name)
            setattr(share, name, value[len(before):] if isinstance(value, list) else value - before)
        self.summaries.append(share)
        self.starts.append(self._current)
        self._current = {}
        self._before = msgspec.structs.replace(now, decompression=list(now.decompression))
