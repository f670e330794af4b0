"""Row buffers that write one statistics table each, a Parquet row group at a time.

:class:`TableSink` keeps rows as tuples and turns them into columns when a
row group is full. :class:`MoveSink` is the moves table's own: a move is
packed into one integer as it is replayed, and whole columns are unpacked at
once with Arrow compute when the row group is written, so the replay builds
no per-move row. Given a :class:`WriterThread`, the sinks encode their row
groups in it, beside the replay.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..engine.tiles import TILES

#: ``HALVES[id]``: each tile as the tables store it, ``[low, high]``.
HALVES: Final = tuple([low, high] for low, high in TILES)
DRAW_CODE: Final = 0
PLAY_CODE: Final = 1
PASS_CODE: Final = 2
#: ``end`` codes are 0 left, 1 right, 2 up, 3 down, 4 none; an open end of 7 and a tile of 28 (TILE_COUNT)
#: mean none.
LEFT_END: Final = 0
RIGHT_END: Final = 1
UP_END: Final = 2
DOWN_END: Final = 3
NO_END: Final = 4
NO_PIP: Final = 7
#: (name, bits) of the fields of a packed move, lowest bits first (see :meth:`MoveSink.add`).
PACKED_FIELDS: Final = (("applied", 1), ("could_play", 1), ("hand_size", 5), ("stock_left", 5), ("right", 3),
                        ("left", 3), ("end", 3), ("tile", 5), ("action", 2), ("seat", 2), ("ply", 16),
                        ("context", 17))
_WIDTH: Final = dict(PACKED_FIELDS)
#: The largest context index and ply a packed move holds; larger ones are kept aside (see MoveSink.add).
CONTEXT_MAX: Final = (1 << _WIDTH["context"]) - 1
PLY_MAX: Final = (1 << _WIDTH["ply"]) - 1
#: Strings of the moves table are written dictionary-encoded: no string is built, or hashed, per move.
TEXT: Final = pa.dictionary(pa.int32(), pa.string())
#: How the moves table is written: its strings and small numbers as dictionaries, its line numbers
#: delta-encoded, and min/max statistics only on the columns a row group holds few values of (a
#: filter on them skips row groups; every row group has every player, action and tile). Measured on
#: the 1M-event benchmark log: 0.17 s and 3.2 MB against 0.27 s and 5.8 MB with pyarrow's defaults.
#: Compressed with Snappy, not zstd: 13 % less CPU to write them (58 ms against 68 ms on the 300,000-event Draw
#: log), for a file 36 % larger (1.14 MB against 0.84 MB; All Fives 1.63 MB against 1.11 MB). The other tables
#: stay zstd: Snappy bought about 1 ms there.
MOVE_PARQUET: Final[dict[str, Any]] = {
    "compression": "snappy",
    "use_dictionary": ["match", "player", "action", "tile.list.element", "placed_end", "faults.list.element",
                       "tournament", "table_name", "file", "path", "variant", "left_end", "right_end", "up_end",
                       "down_end", "stock_left", "hand_size", "points"],
    "column_encoding": {"line": "DELTA_BINARY_PACKED"},
    "write_statistics": ["match", "line", "tournament", "table_name", "file", "path"],
}
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


def _run_now(job: Callable[[], None]) -> None:
    job()


def _columns_of(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """The columns of ``rows`` (each ``width`` values), one list each.

    Not ``zip(*rows)``: that makes an iterator per row, and so many new objects start garbage collections that
    go over the pending rows again (measured: 75 ms for a row group of 36,000 deals, against 7 ms).
    """
    return [[row[index] for row in rows] for index in range(width)]


class TableSink:
    """Rows of one table, kept as tuples and written a row group at a time."""

    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = ROWS_PER_GROUP,
                 arrow: bool = False, background: WriterThread | None = None) -> None:
        self.path = path
        self.schema = schema
        self.rows_per_group = rows_per_group
        #: Rows written so far.
        self.rows = 0
        self.pending: list[tuple[Any, ...]] = []
        #: About how many bytes of text the pending rows hold (as :meth:`add` is told).
        self.pending_bytes = 0
        self._writer = open_writer(path, schema, arrow)
        self._submit = background.submit if background is not None else _run_now

    def add(self, row: tuple[Any, ...], size: int = 0) -> None:
        """Append one row, its values in the order of the schema's columns; ``size``: about the bytes of its text."""
        self.pending.append(row)
        self.pending_bytes += size
        if len(self.pending) >= self.rows_per_group or self.pending_bytes >= BYTES_PER_GROUP:
            self.flush()

    def flush(self) -> None:
        """Write the pending rows as one row group."""
        rows = self.pending
        if rows:
            columns = _columns_of(rows, len(self.schema))
            arrays = [pa.array(column, type=field.type) for column, field in zip(columns, self.schema)]
            table = pa.Table.from_arrays(arrays, schema=self.schema)
            self._submit(lambda: self._writer.write(table))
            self.rows += len(rows)
            self.pending = []
            self.pending_bytes = 0

    def close(self) -> None:
        """Write what is left and close the file."""
        self.flush()
        self._writer.close()


class DealSink(TableSink):
    """The deals table: its ``tiles`` are given as tile ids and become ``[low, high]`` pairs a row group at a time."""

    def flush(self) -> None:
        """Write the pending rows as one row group (the tiles column built with Arrow compute, not per tile)."""
        rows = self.pending
        if not rows:
            return
        columns = _columns_of(rows, len(self.schema))
        arrays = []
        for column, field in zip(columns, self.schema):
            if field.name == "tiles":  # (one flat array of ids and the offsets: no Python list converted per row)
                flat: list[int] = []
                offsets = [0]
                for tiles in column:
                    flat.extend(tiles)
                    offsets.append(len(flat))
                pairs = pc.take(_TILE_HALVES, pa.array(flat, pa.int8()))
                arrays.append(pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pairs, type=field.type))
            else:
                arrays.append(pa.array(column, type=field.type))
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        self._submit(lambda: self._writer.write(table))
        self.rows += len(rows)
        self.pending = []
        self.pending_bytes = 0


def _text_values(values: Sequence[Any]) -> Any:
    """A small array of strings (None for null), dictionary-encoded: taking from it makes a ``TEXT`` column."""
    return pa.array(values, pa.string()).dictionary_encode()


_ACTIONS = _text_values(["draw", "play", "pass"])
_TILE_HALVES = pa.array([*HALVES, None], pa.list_(pa.int8()))
_END_NAMES = _text_values(["left", "right", "up", "down", None])
_PIPS = pa.array([0, 1, 2, 3, 4, 5, 6, None], pa.int8())
_ZERO_POINTS = pa.scalar(0, pa.int64())


def _int64(value: int) -> Any:
    # Typed scalars: a Python int would be converted (its type inferred) on every call.
    return pa.scalar(value, pa.int64())


#: (name, shift, mask) of each field of a packed move, as Arrow scalars.
_UNPACK: Final = [(name, _int64(sum(width for _, width in PACKED_FIELDS[:index])), _int64((1 << bits) - 1))
                  for index, (name, bits) in enumerate(PACKED_FIELDS)]
_ONE: Final = _int64(1)
_NO_INT64: Final = pa.scalar(None, pa.int64())
#: (name, bits) of the fields of a move's packed extras (:meth:`MoveSink.add_extras`), lowest bits first.
EXTRA_FIELDS: Final = (("down", 3), ("up", 3), ("has_claim", 1), ("points", 20), ("claimed", 20))
_POINTS_BITS: Final = 20
#: The most points, or claimed points, a packed move's extras hold (more are kept aside).
EXTRA_POINTS_MAX: Final = (1 << _POINTS_BITS) - 1
#: A move's packed extras when it has none: 0 points, no claim, both arms closed (7).
NO_EXTRAS: Final = 7 << 3 | 7
_UNPACK_EXTRAS: Final = [(name, _int64(sum(width for _, width in EXTRA_FIELDS[:index])), _int64((1 << bits) - 1))
                         for index, (name, bits) in enumerate(EXTRA_FIELDS)]
_SEATS: Final = _int64(4)
_AS_INT8: Final = pc.CastOptions.unsafe(pa.int8())
_AS_INT32: Final = pc.CastOptions.unsafe(pa.int32())
_CODES: Final = pa.list_(pa.string())


class MoveSink:
    """The moves table, kept compact: per move one packed integer and the line number.

    Per-round values (match, round, names, keys) are stored once per round as a
    *context* that each packed move points to; :meth:`flush` forgets them, so
    the recorder registers the rounds still open again after it. What All Fives
    adds (points, a claim, the arms) is kept aside, only for the moves that have
    it (:meth:`add_extras`): a Draw move packs as before.
    """

    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = ROWS_PER_GROUP,
                 arrow: bool = False, background: WriterThread | None = None) -> None:
        self.path = path
        self.schema = schema
        self.write_schema = text_as_dictionary(schema)
        self._submit = background.submit if background is not None else _run_now
        self.rows_per_group = rows_per_group
        #: Rows written so far.
        self.rows = 0
        self.packed: list[int] = []
        self.lines: list[int] = []
        self.faults: dict[int, list[str]] = {}
        #: Per move, its points, claimed points and arms packed as :meth:`add_extras` says (:data:`NO_EXTRAS`:
        #: none of them), and whether any move of the row group has some.
        self.extras: list[int] = []
        self.any_extras = False
        #: (points, claimed_points) of the moves whose values do not fit their packed fields, by row.
        self.extras_aside: dict[int, tuple[int, int | None]] = {}
        #: (context, ply) of the moves whose values do not fit their packed fields, by row.
        self.oversized: dict[int, tuple[int, int]] = {}
        self.contexts: list[tuple[Any, ...]] = []
        self._writer = open_writer(path, self.write_schema, arrow, MOVE_PARQUET)

    def context(self, values: tuple[Any, ...]) -> int:
        """Register a round's (match, round, tournament, table_name, file, names, variant, path); its index."""
        self.contexts.append(values)
        return len(self.contexts) - 1

    def add(self, context: int, ply: int, seat: int, action: int, tile: int, end: int, left: int, right: int,
            stock_left: int, hand_size: int, could_play: bool, applied: bool, line: int) -> None:
        """Append one move (``tile`` 28, ``end`` 4 and ``left``/``right`` 7 mean none).

        A context or ply too large for its packed field (a round of over 65,535
        moves, or over 131,071 rounds within one row group) is kept aside.
        """
        if context > CONTEXT_MAX or ply > PLY_MAX:
            self.oversized[len(self.lines)] = (context, ply)
            context = ply = 0
        self.lines.append(line)
        self.extras.append(NO_EXTRAS)
        self.packed.append(
            ((((((((((context << 16 | ply) << 2 | seat) << 2 | action) << 5 | tile) << 3 | end) << 3 | left) << 3
               | right) << 5 | stock_left) << 5 | hand_size) << 1 | could_play) << 1 | applied
        )

    def add_extras(self, points: int, claimed: int | None, up: int, down: int) -> None:
        """Note what the move added last scored, claimed and left on the arms (``up``/``down`` 7: closed).

        Moves without a note read 0 points, no claim and closed arms. The four are packed into one integer
        (see :data:`EXTRA_FIELDS`); points or a claim out of their fields' range are kept aside.
        """
        self.any_extras = True
        if not 0 <= points <= EXTRA_POINTS_MAX or (claimed is not None and not 0 <= claimed <= EXTRA_POINTS_MAX):
            self.extras_aside[len(self.lines) - 1] = (points, claimed)
            points, claimed = 0, None
        self.extras[len(self.extras) - 1] = (((claimed if claimed is not None else 0) << _POINTS_BITS | points)
                                             << 1 | (claimed is not None)) << 6 | up << 3 | down

    def add_faults(self, codes: list[str]) -> None:
        """Note the fault codes of the move added last."""
        self.faults[len(self.lines) - 1] = codes

    def full(self) -> bool:
        """Whether a row group's worth of moves is pending."""
        return len(self.lines) >= self.rows_per_group

    def flush(self) -> None:
        """Write the pending moves as one row group and forget the contexts."""
        count = len(self.lines)
        if count:
            columns = self._columns(self.packed, self.lines, self.faults, self.contexts, self.oversized)
            table = pa.Table.from_arrays(columns, schema=self.write_schema)
            self._submit(lambda: self._writer.write(table))
            self.rows += count
            self.packed = []
            self.lines = []
            self.faults = {}
            self.extras = []
            self.any_extras = False
            self.extras_aside = {}
            self.oversized = {}
        self.contexts = []

    def _columns(self, packed_moves: list[int], lines: list[int], faults_by_row: dict[int, list[str]],
                 rounds: list[tuple[Any, ...]], oversized: dict[int, tuple[int, int]]) -> list[Any]:
        call = pc.call_function
        packed = pa.array(packed_moves, pa.int64())
        fields = {name: call("bit_wise_and", [call("shift_right", [packed, shift]), mask])
                  for name, shift, mask in _UNPACK}
        if oversized:
            context_column, ply_column = fields["context"].to_pylist(), fields["ply"].to_pylist()
            for row, (context_index, ply) in oversized.items():
                context_column[row], ply_column[row] = context_index, ply
            fields["context"] = pa.array(context_column, pa.int64())
            fields["ply"] = pa.array(ply_column, pa.int64())
        context = fields["context"]
        contexts = _columns_of(rounds, 8)
        names = [name for row in rounds for name in (*row[5], None, None, None, None)[:4]]

        def per_round(index: int) -> Any:
            return call("take", [_text_values(contexts[index]), context])

        def small(name: str) -> Any:
            return call("cast", [fields[name]], _AS_INT8)

        count = len(lines)
        faults = pa.array([faults_by_row.get(row) for row in range(count)], _CODES) \
            if faults_by_row else pa.nulls(count, _CODES)
        seat = call("add", [call("multiply", [context, _SEATS]), fields["seat"]])
        points, claimed, up, down = self._extra_columns(count)
        return [
            per_round(0), call("take", [pa.array(contexts[1], pa.int32()), context]),
            call("cast", [fields["ply"]], _AS_INT32), pa.array(lines, pa.int64()),
            call("take", [_text_values(names), seat]), call("take", [_ACTIONS, fields["action"]]),
            call("take", [_TILE_HALVES, fields["tile"]]), call("take", [_END_NAMES, fields["end"]]),
            call("take", [_PIPS, fields["left"]]), call("take", [_PIPS, fields["right"]]), up, down,
            small("stock_left"), small("hand_size"), call("equal", [fields["could_play"], _ONE]),
            call("equal", [fields["applied"], _ONE]), faults, points, claimed,
            per_round(2), per_round(3), per_round(4), per_round(7), per_round(6),
        ]

    def _extra_columns(self, count: int) -> tuple[Any, Any, Any, Any]:
        """The ``points``, ``claimed_points``, ``up`` and ``down`` columns of the ``count`` moves pending."""
        if not self.any_extras:
            return (pa.repeat(_ZERO_POINTS, count), pa.nulls(count, pa.int64()), pa.nulls(count, pa.int8()),
                    pa.nulls(count, pa.int8()))
        call = pc.call_function
        packed = pa.array(self.extras, pa.int64())
        fields = {name: call("bit_wise_and", [call("shift_right", [packed, shift]), mask])
                  for name, shift, mask in _UNPACK_EXTRAS}
        points, claimed = fields["points"], fields["claimed"]
        claimed = call("if_else", [call("equal", [fields["has_claim"], _ONE]), claimed, _NO_INT64])
        if self.extras_aside:
            point_values, claimed_values = points.to_pylist(), claimed.to_pylist()
            for row, (scored, claim) in self.extras_aside.items():
                point_values[row], claimed_values[row] = scored, claim
            points, claimed = pa.array(point_values, pa.int64()), pa.array(claimed_values, pa.int64())
        return points, claimed, call("take", [_PIPS, fields["up"]]), call("take", [_PIPS, fields["down"]])

    def close(self) -> None:
        """Write what is left and close the file."""
        self.flush()
        self._writer.close()
