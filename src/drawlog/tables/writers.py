"""Writing the statistics tables' files: the Parquet options of each table, and a writer thread.

:func:`open_writer` opens one table's Parquet file (or an Arrow stream for an
intermediate part) with :func:`parquet_options`: statistics only on the
columns readers filter on, no dictionary for columns of unique values.
:class:`WriterThread` encodes row groups beside the replay.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

#: Strings of the moves table are written dictionary-encoded: no string is built, or hashed, per move.
TEXT: Final = pa.dictionary(pa.int32(), pa.string())
ROWS_PER_GROUP: Final = 65_536
#: A table's pending rows are written as soon as the text they hold comes to about this much, however few
#: (a tournament name of 300 KB on every row kept 1,000 matches' worth in memory, then again in Arrow).
BYTES_PER_GROUP: Final = 16 << 20




def text_as_dictionary(schema: pa.Schema) -> pa.Schema:
    """``schema`` with its string columns dictionary-typed (``TEXT``), as :class:`MoveSink` writes them."""
    return pa.schema([(field.name, TEXT if field.type == pa.string() else field.type) for field in schema])


#: The columns readers filter on (a match, a round, a player, a file, a line): only they get min/max statistics,
#: which let a filter skip row groups. On the others (scores, counts, tiles, JSON text) they were computed for
#: every page and seldom skip anything: every row group holds the whole range of them. Writing the rounds,
#: players and deals took 12 % less CPU without them.
FILTER_COLUMNS: Final = frozenset({"match", "round", "player", "line", "first_line", "last_line", "started_at",
                                   "file", "path", "tournament", "table_name", "variant", "code"})
#: Columns holding (nearly) a new value on every row: written plain (or delta-encoded, the line numbers), not
#: dictionary-encoded, which hashed every value into a dictionary as long as the column.
UNIQUE_COLUMNS: Final = frozenset({"line", "first_line", "last_line", "meta", "shuffle_doubles_p", "shuffle_suits_p",
                                   "shuffle_suits_chi2"})
#: Rows Parquet encodes at a time (pyarrow's default: 1,024). Each batch costs a fixed amount per column (for
#: a dictionary-typed column, a search of the values its indices use, for statistics); in batches of 8,192
#: writing the moves took about 8 % less CPU. A page still ends once it holds about 1 MB, checked after each
#: batch (and a row group holds at most BYTES_PER_GROUP of text).
WRITE_BATCH_ROWS: Final = 8_192


def parquet_options(schema: pa.Schema) -> dict[str, Any]:
    """``ParquetWriter`` options for a table of ``schema``: statistics on :data:`FILTER_COLUMNS` only, and
    :data:`UNIQUE_COLUMNS` not dictionary-encoded (the line numbers delta-encoded)."""
    names = [field.name for field in schema]
    return {
        "write_statistics": [name for name in names if name in FILTER_COLUMNS],
        "use_dictionary": [leaf for field in schema if field.name not in UNIQUE_COLUMNS
                           for leaf in _leaves(field.name, field.type)],
        "column_encoding": {name: "DELTA_BINARY_PACKED" for name in names
                            if name in UNIQUE_COLUMNS and pa.types.is_integer(schema.field(name).type)},
        "write_batch_size": WRITE_BATCH_ROWS,
    }


def _leaves(name: str, kind: pa.DataType) -> list[str]:
    """The Parquet column paths of an Arrow column (``tiles.list.element.list.element`` for a list of lists)."""
    if pa.types.is_list(kind):
        return _leaves(f"{name}.list.element", kind.value_type)
    if pa.types.is_struct(kind):
        return [leaf for child in kind for leaf in _leaves(f"{name}.{child.name}", child.type)]
    return [name]


def open_writer(path: Path, schema: pa.Schema, arrow: bool = False, options: dict[str, Any] | None = None) -> Any:
    """A Parquet writer for one table, or an Arrow IPC stream (``arrow``).

    ``options`` for ``ParquetWriter`` replace those of :func:`parquet_options`.
    An Arrow stream is for an intermediate part: cheap to write and to read
    back, and each row group may bring its own dictionaries. Dictionary-typed
    (``TEXT``) columns become Parquet's dictionary-encoded strings and read back
    as plain strings: their Arrow schema is not stored.
    """
    if arrow:
        return pa.ipc.new_stream(str(path), schema)
    store_schema = not any(field.type == TEXT for field in schema)
    return pq.ParquetWriter(path, schema, store_schema=store_schema,
                            **{"compression": "zstd", **parquet_options(schema), **(options or {})})


class WriterThread:
    """Writes row groups in a background thread, beside the replay.

    Parquet encoding and compression run without the GIL, so on a second core
    they cost the replay little (the columns are built before, in the
    replay's thread: in a second thread every call would wait for the GIL). Jobs run in the order given;
    the first error is raised again by :meth:`submit` or :meth:`close`. After
    :meth:`close`, jobs run at once in the caller's thread.
    """

    def __init__(self, backlog: int = 2) -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue(maxsize=backlog)
        self._error: BaseException | None = None
        self._closed = False
        #: Set when the thread has ended (an interrupted Thread.join leaves is_alive() wrong on Python 3.11).
        self._ended = threading.Event()
        self._worker = threading.Thread(target=self._run, name="drawlog-writer", daemon=True)
        self._worker.start()

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job`` after the jobs already given (waits while the backlog is full)."""
        self._raise()
        if self._closed:
            job()
        else:
            self._jobs.put(job)

    def close(self) -> None:
        """Wait for every job to be done; interrupted (Ctrl-C), still wait for them, then let the interruption go on.

        So no file is closed while a row group is written into it.
        """
        if not self._closed:
            self._closed = True
            try:
                self._jobs.put(None)
                self._ended.wait()
            except BaseException:
                while not self._ended.is_set():  # the None may not be in: another one is harmless
                    try:
                        self._jobs.put(None, timeout=0.1)
                    except queue.Full:
                        pass
                    self._ended.wait(0.1)
                raise
        self._raise()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        try:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                if self._error is None:
                    try:
                        job()
                    except BaseException as error:  # noqa: BLE001 - handed to the replay's thread
                        self._error = error
        finally:
            self._ended.set()


def run_now(job: Callable[[], None]) -> None:
    job()
