"""Row buffers that write one statistics table each, a Parquet row group at a time.

:class:`TableSink` keeps rows as tuples and turns them into columns when a
row group is full. :class:`MoveSink` is the moves table's own: a move is
packed into one integer as it is replayed, and whole columns are unpacked at
once with Arrow compute when the row group is written, so the replay builds
no per-move row. Given a :class:`WriterThread`, the sinks encode their row
groups in it, beside the replay.
"""

from __future__ import annotations

import array
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..engine.tiles import TILE_COUNT, TILES

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
#: A row group's values go to the encoders in one batch, not 1,024 at a time: the same file, written in
#: 10 % less CPU time (72 ms against 78 ms for the 277,705 moves of the 300,000-event Draw log).
MOVE_PARQUET: Final[dict[str, Any]] = {
    "use_dictionary": ["match", "player", "action", "tile.list.element", "placed_end", "faults.list.element",
                       "tournament", "table_name", "file", "path", "variant", "left_end", "right_end", "up_end",
                       "down_end", "stock_left", "hand_size", "points"],
    "column_encoding": {"line": "DELTA_BINARY_PACKED"},
    "write_statistics": ["match", "line", "tournament", "table_name", "file", "path"],
    "write_batch_size": 65_536,
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


#: Typecodes of :mod:`array` for Arrow's integer types: an integer column without nulls is copied into an
#: ``array.array`` (one C loop) and handed to Arrow as its buffer, not converted value by value.
_INT_CODES: Final = {pa.int8(): "b", pa.int32(): "i", pa.int64(): "q"}
#: A tile column (``list<int8>``) may be given as tile ids (:data:`~drawlog.engine.tiles.TILE_COUNT` for
#: none), taken from these at once.
TILE_TYPE: Final = pa.list_(pa.int8())


def _array(column: list[Any], field_type: Any) -> Any:
    """``column`` as an Arrow array of ``field_type``: the values ``pa.array(column, type=field_type)`` makes.

    The cheap cases first (measured on the rounds and players of the 300,000-event Draw log, compiled):
    a column of one value over the row group (``file``, ``variant``, null ``tournament``...) is repeated in C,
    not converted per row (about 30 ns a row saved); integers go through ``array.array`` (about 25 → 16–20 ns
    a value); tile ids through one ``take`` (70 → 5 ns a value). Anything else, or a value these refuse (a
    null, an integer out of range), goes the ordinary way, with its ordinary error.
    """
    count = len(column)
    first = column[0]
    # (the last value first: most columns differ there, and count() would compare them all, 10 ns a value;
    # no float checked: -0.0 == 0.0, and count() finds them equal)
    if (first is None or isinstance(first, (str, int))) and column[count - 1] == first \
            and column.count(first) == count:
        if first is None:
            return pa.nulls(count, field_type)
        if field_type == TILE_TYPE:
            return pc.take(_TILE_HALVES, pa.repeat(pa.scalar(first, pa.int8()), count))
        return pa.repeat(pa.scalar(first, field_type), count)
    if field_type == TILE_TYPE and isinstance(first, int):
        return pc.take(_TILE_HALVES, pa.array(column, pa.int8()))
    code = _INT_CODES.get(field_type)
    if code is not None:
        try:
            values = array.array(code, column)
        except (TypeError, OverflowError):
            return pa.array(column, type=field_type)
        return pa.Array.from_buffers(field_type, count, [None, pa.py_buffer(values)])
    return pa.array(column, type=field_type)


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
            arrays = [_array(column, field.type) for column, field in zip(columns, self.schema)]
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
    """The deals table, kept as columns: per round its shared values once, per row (a hand, or the stock) a few
    numbers and its tiles as ids in one flat list; the columns are built a row group at a time.

    A round's rows are given by :meth:`round` (its values), then :meth:`tiles` (every row's tile ids, appended to
    :attr:`ids` in the rows' order), then :meth:`part` for each row. :meth:`add` takes a whole row, as any
    :class:`TableSink`. Measured compiled on the Draw benchmark log (36,265 rows; `bench/README.md`, Issue #24:
    deals): building the columns and writing them 0.53-0.62 decode units before (tuples of 13 values,
    transposed, converted per cell), 0.35 now, of which Parquet's encoding of the nested ``tiles`` about 0.11.
    """

    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = ROWS_PER_GROUP,
                 arrow: bool = False, background: WriterThread | None = None) -> None:
        super().__init__(path, schema, rows_per_group, arrow, background)
        #: Per round: (match, round, line, tournament, table_name, file, path, variant).
        self.rounds: list[tuple[Any, ...]] = []
        #: The tile ids of the pending rows, row after row (and those of rows of the round not added yet).
        self.ids: list[int] = []
        #: Per pending row: its round (index in :attr:`rounds`), part (0 hand, 1 stock), player, seat, doubles,
        #: and where its tiles end in :attr:`ids`.
        self._round_of: list[int] = []
        self._parts: list[int] = []
        self._players: list[str | None] = []
        self._seats: list[int | None] = []
        self._doubles: list[int] = []
        self._ends: list[int] = []

    def round(self, values: tuple[Any, ...]) -> None:
        """Begin a round's rows: (match, round, line, tournament, table_name, file, path, variant)."""
        rounds = self.rounds
        if rounds and (not self._round_of or self._round_of[-1] != len(rounds) - 1):
            rounds[-1] = values  # the round before has no row pending (none, or all written): not kept
        else:
            rounds.append(values)

    def tiles(self) -> list[int]:
        """The list to append the next rows' tile ids to, row after row."""
        return self.ids

    def part(self, part: int, player: str | None, seat: int | None, doubles: int, count: int, size: int) -> None:
        """Add a row of the round begun last: ``part`` 0 a hand, 1 the stock; its ``count`` tiles are the next
        in :attr:`ids`; ``size``: about the bytes of its text."""
        ends = self._ends
        self._round_of.append(len(self.rounds) - 1)
        self._parts.append(part)
        self._players.append(player)
        self._seats.append(seat)
        self._doubles.append(doubles)
        ends.append((ends[-1] if ends else 0) + count)
        self.pending_bytes += size
        if len(ends) >= self.rows_per_group or self.pending_bytes >= BYTES_PER_GROUP:
            self.flush()

    def add(self, row: tuple[Any, ...], size: int = 0) -> None:
        """Append one row, its values in the order of the schema's columns (its tiles as ids)."""
        values = (row[0], row[1], row[7], *row[8:])
        if not self.rounds or self.rounds[-1] != values:
            self.round(values)
        tiles: list[int] = row[5]
        self.ids.extend(tiles)
        self.part(_PART_CODES[row[2]], row[3], row[4], row[6], len(tiles), size)

    def flush(self) -> None:
        """Write the pending rows as one row group (the tiles column built with Arrow compute, not per tile)."""
        ends = self._ends
        if not ends:
            return
        count = len(ends)
        cut = ends[-1]
        ids = self.ids
        rounds = _columns_of(self.rounds, 8)
        round_of = pa.array(self._round_of, pa.int32())
        # (a comprehension, not a nested function: compiled, one and its closure form a cycle, see _per_round)
        shared = [_deal_round_column(values, kind, round_of) for values, kind in zip(rounds, _DEAL_SHARED_TYPES)]
        match, number, line, *keys = shared  # (a round's match, round, line, then its keys and variant)
        offsets = pa.array([0, *ends], pa.int32())
        tiles = pa.ListArray.from_arrays(offsets, _halves_of(bytes(ids[:cut] if len(ids) > cut else ids)),
                                         type=_DEAL_TILES)
        arrays = [match, number, pc.take(_PARTS, _small_ints(self._parts)), pa.array(self._players, pa.string()),
                  pa.array(self._seats, pa.int8()), tiles, pa.array(self._doubles, pa.int8()), line, *keys]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        self._submit(lambda: self._writer.write(table))
        self.rows += count
        self.rounds = self.rounds[-1:]  # (the round begun last may have rows still to come)
        del ids[:cut]  # (in place: the recorder may hold the list, with the tiles of the round's rows to come)
        self._round_of, self._parts, self._players, self._seats, self._doubles, self._ends = [], [], [], [], [], []
        self.pending = []
        self.pending_bytes = 0


#: The types of the values a deal's rows share, as :meth:`DealSink.round` takes them.
_DEAL_SHARED_TYPES: Final = (pa.string(), pa.int32(), pa.int64(), pa.string(), pa.string(), pa.string(), pa.string(),
                             pa.string())


def _deal_round_column(values: list[Any], kind: pa.DataType, round_of: Any) -> Any:
    """A deals column of per-round values (``values``, one a round) taken for each row (``round_of``)."""
    return pc.take(pa.array(values, kind), round_of)


def _halves_of(tiles: bytes) -> Any:
    """The ``[low, high]`` lists of tile ids (each 0-27) given as bytes.

    The halves are the ids' bytes translated, low and high interleaved, and a list of two each: 2.7 ms for the
    180,000 tiles of the Draw benchmark's deals, against 4.0 ms converting the ids to Arrow and taking the pairs.
    """
    halves = bytearray(2 * len(tiles))
    halves[0::2] = tiles.translate(_LOWS)
    halves[1::2] = tiles.translate(_HIGHS)
    values = pa.Array.from_buffers(pa.int8(), len(halves), [None, pa.py_buffer(halves)])
    return pa.FixedSizeListArray.from_arrays(values, 2).cast(_PAIR)


def _small_ints(values: list[int]) -> Any:
    """An int8 array of ``values``, each 0-127: ``bytes()`` of the list is 4 times quicker than ``pa.array``'s
    conversion (1 ms instead of 4 for the 180,000 tile ids of the Draw benchmark's deals)."""
    return pa.Array.from_buffers(pa.int8(), len(values), [None, pa.py_buffer(bytes(values))])


def _text_values(values: Sequence[Any]) -> Any:
    """A small array of strings (None for null), dictionary-encoded: taking from it makes a ``TEXT`` column."""
    return pa.array(values, pa.string()).dictionary_encode()


_ACTIONS = _text_values(["draw", "play", "pass"])
_TILE_HALVES = pa.array([*HALVES, None], pa.list_(pa.int8()))
#: Each tile id's low and high half, as ``bytes.translate`` tables.
_LOWS: Final = bytes([low for low, _ in TILES] + [0] * (256 - len(TILES)))
_HIGHS: Final = bytes([high for _, high in TILES] + [0] * (256 - len(TILES)))
_PAIR: Final = pa.list_(pa.int8())
#: The deals table's ``tiles`` and ``part`` (by its code, :meth:`DealSink.part`).
_DEAL_TILES: Final = pa.list_(pa.list_(pa.int8()))
_PARTS: Final = pa.array(["hand", "stock"], pa.string())
_PART_CODES: Final = {"hand": 0, "stock": 1}
_END_WORDS: Final = pa.array(["left", "right", "up", "down"], pa.string())
#: ``_PAIRS[id]``: a tile's halves as one int16 whose first byte in memory is the low half, the second the high
#: one: the bytes of a column of them are the int8 values of a column of ``[low, high]`` lists (see _tiles).
_PAIRS: Final = pa.array([low | high << 8 if sys.byteorder == "little" else low << 8 | high for low, high in HALVES],
                         pa.int16())


def _int64(value: int) -> Any:
    # Typed scalars: a Python int would be converted (its type inferred) on every call.
    return pa.scalar(value, pa.int64())


def _int32(value: int) -> Any:
    return pa.scalar(value, pa.int32())


def _fields(packed: Any, layout: tuple[tuple[str, int], ...]) -> dict[str, Any]:
    """Each field of a column of packed integers (``layout``: (name, bits) lowest first) as a column.

    The fields within the low 31 bits come from the column cast to int32 (it keeps the low bits), as int32
    columns; the others as int64. Every flush allocates its columns afresh, and the pages of fresh memory
    are each a fault: int32 columns fault half as much (measured in one process, A B A B against main's
    conversion of the Draw log's moves: 1.12 of its CPU time before this, 0.96 with it).
    """
    call = pc.call_function
    low = call("cast", [packed], _AS_INT32)
    fields = {}
    shift = 0
    for name, bits in layout:
        word, scalar = (low, _int32) if shift + bits <= 31 else (packed, _int64)
        shifted = call("shift_right", [word, scalar(shift)]) if shift else word
        fields[name] = call("bit_wise_and", [shifted, scalar((1 << bits) - 1)]) if shift + bits < 63 else shifted
        shift += bits
    return fields


_ONE: Final = _int32(1)
_NO_TILE: Final = _int32(TILE_COUNT)
_NO_PIP32: Final = _int32(NO_PIP)
_NO_END32: Final = _int32(NO_END)
_NO_INT64: Final = pa.scalar(None, pa.int64())
#: (name, bits) of the fields of a move's second packed integer (see :meth:`MoveSink.add`), lowest bits first:
#: what All Fives adds (the arms, what the move scored and claimed) and the line number.
TAIL_FIELDS: Final = (("down", 3), ("up", 3), ("has_claim", 1), ("points", 8), ("claimed", 8), ("line", 39))
_TAIL_WIDTH: Final = dict(TAIL_FIELDS)
#: The most points, or claimed points, and the largest line number a move's packed integers hold (others are
#: kept aside: see MoveSink.add).
POINTS_MAX: Final = (1 << _TAIL_WIDTH["points"]) - 1
LINE_MAX: Final = (1 << _TAIL_WIDTH["line"]) - 1
_SEATS: Final = _int64(4)
_AS_INT8: Final = pc.CastOptions.unsafe(pa.int8())
_AS_INT32: Final = pc.CastOptions.unsafe(pa.int32())
_AS_INT64: Final = pc.CastOptions.safe(pa.int64())
_CODES: Final = pa.list_(pa.string())
_TILE_LIST: Final = pa.list_(pa.int8())
_TWO32: Final = pa.scalar(2, pa.int32())
_ZERO32: Final = pa.scalar(0, pa.int32())
_FIRST_OFFSET: Final = pa.array([0], pa.int32())


def _tiles(tile: Any) -> Any:
    """The ``tile`` column (``[low, high]``, or null) of a column of tile ids (TILE_COUNT: none).

    Built from flat buffers: the pairs of the tiles there are, read as int8 values, the offsets a running sum
    (``take`` from a list array, as before: 0.71 ms a row group of 65,536 moves; this: 0.54 ms).
    """
    call = pc.call_function
    placed = call("not_equal", [tile, _NO_TILE])
    pairs = call("take", [_PAIRS, call("array_filter", [tile, placed])])
    values = pa.Array.from_buffers(pa.int8(), 2 * len(pairs), [None, pairs.buffers()[1]], offset=2 * pairs.offset)
    ends = call("cumulative_sum", [call("if_else", [placed, _TWO32, _ZERO32])])
    return pa.ListArray.from_arrays(pa.concat_arrays([_FIRST_OFFSET, ends]), values, _TILE_LIST,
                                    mask=call("invert", [placed]))


def _nullable(codes: Any, none: Any, kind: Any) -> Any:
    """``codes`` (int64, no nulls) as ``kind``, null where they are ``none``.

    Zero-copy: the bits of a comparison are the validity bitmap (``take`` from a table of values with a null
    cost 0.20 ms a column of 65,536 moves; this, 0.07 ms).
    """
    call = pc.call_function
    valid = call("not_equal", [codes, none])
    values = call("cast", [codes], pc.CastOptions.unsafe(kind))
    return pa.Array.from_buffers(kind, len(codes), [valid.buffers()[1], values.buffers()[1]])


def _patched(column: Any, values: dict[int, Any], kind: Any) -> Any:
    """``column`` with the values of some rows replaced (values kept aside: rare, so done in Python)."""
    python = column.to_pylist()
    for row, value in values.items():
        python[row] = value
    return pa.array(python, kind)


class MoveSink:
    """The moves table, kept compact: per move two packed integers.

    The first holds what every move has (see :data:`PACKED_FIELDS`), the
    second the line number and what All Fives adds (:data:`TAIL_FIELDS`).
    Per-round values (match, round, names, keys) are stored once per round as a
    *context* that each packed move points to; :meth:`flush` forgets them, so
    the recorder registers the rounds still open again after it.
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
        self.tails: list[int] = []
        self.faults: dict[int, list[str]] = {}
        #: (context, ply) of the moves whose values do not fit their packed fields, by row.
        self.oversized: dict[int, tuple[int, int]] = {}
        #: (points, claimed_points, line) of the moves whose values do not fit their packed fields, by row.
        self.aside: dict[int, tuple[int, int | None, int]] = {}
        self.contexts: list[tuple[Any, ...]] = []
        self._writer = open_writer(path, self.write_schema, arrow, MOVE_PARQUET)

    def context(self, values: tuple[Any, ...]) -> int:
        """Register a round's (match, round, tournament, table_name, file, names, variant, path); its index."""
        self.contexts.append(values)
        return len(self.contexts) - 1

    def add(self, context: int, ply: int, seat: int, action: int, tile: int, end: int, left: int, right: int,
            stock_left: int, hand_size: int, could_play: bool, applied: bool, line: int, points: int = 0,
            claimed: int | None = None, up: int = NO_PIP, down: int = NO_PIP) -> None:
        """Append one move (``tile`` 28, ``end`` 4 and ``left``/``right``/``up``/``down`` 7 mean none).

        ``points``: what the move scored, ``claimed``: the points the log claims for it. A value too large for
        its packed field (a round of over 65,535 moves, over 131,071 rounds within one row group, points over
        255, a line past 2**39) is kept aside.
        """
        if context > CONTEXT_MAX or ply > PLY_MAX:
            self.oversized[len(self.packed)] = (context, ply)
            context = ply = 0
        has_claim = claimed is not None
        claim = claimed if claimed is not None else 0
        if not (0 <= points <= POINTS_MAX and 0 <= claim <= POINTS_MAX and 0 <= line <= LINE_MAX):
            self.aside[len(self.packed)] = (points, claimed, line)
            points = claim = line = 0
        self.packed.append(
            ((((((((((context << 16 | ply) << 2 | seat) << 2 | action) << 5 | tile) << 3 | end) << 3 | left) << 3
               | right) << 5 | stock_left) << 5 | hand_size) << 1 | could_play) << 1 | applied
        )
        self.tails.append((((line << 8 | claim) << 8 | points) << 1 | has_claim) << 6 | up << 3 | down)

    def add_faults(self, codes: list[str]) -> None:
        """Note the fault codes of the move added last."""
        self.faults[len(self.packed) - 1] = codes

    def full(self) -> bool:
        """Whether a row group's worth of moves is pending."""
        return len(self.packed) >= self.rows_per_group

    def flush(self) -> None:
        """Write the pending moves as one row group and forget the contexts."""
        count = len(self.packed)
        if count:
            table = pa.Table.from_arrays(self._columns(), schema=self.write_schema)
            self._submit(lambda: self._writer.write(table))
            self.rows += count
            self.packed = []
            self.tails = []
            self.faults = {}
            self.oversized = {}
            self.aside = {}
        self.contexts = []

    def _columns(self) -> list[Any]:
        """The pending moves' columns, in the schema's order (unpacked with Arrow compute, a column at a time)."""
        call = pc.call_function
        count = len(self.packed)
        fields = _fields(pa.array(self.packed, pa.int64()), PACKED_FIELDS)
        tail = _fields(pa.array(self.tails, pa.int64()), TAIL_FIELDS)
        if self.oversized:
            fields["context"] = _patched(fields["context"], {row: context for row, (context, _) in
                                                             self.oversized.items()}, pa.int64())
            fields["ply"] = _patched(fields["ply"], {row: ply for row, (_, ply) in self.oversized.items()},
                                     pa.int64())
        points, claimed, line = call("cast", [tail["points"]], _AS_INT64), tail["claimed"], tail["line"]
        claimed = call("if_else", [call("equal", [tail["has_claim"], _ONE]), call("cast", [claimed], _AS_INT64),
                                   _NO_INT64])
        if self.aside:
            points = _patched(points, {row: values[0] for row, values in self.aside.items()}, pa.int64())
            claimed = _patched(claimed, {row: values[1] for row, values in self.aside.items()}, pa.int64())
            line = _patched(line, {row: values[2] for row, values in self.aside.items()}, pa.int64())
        context = fields["context"]
        rounds = self.contexts
        contexts = _columns_of(rounds, 8)
        names = [name for row in rounds for name in (*row[5], None, None, None, None)[:4]]

        faults = pa.array([self.faults.get(row) for row in range(count)], _CODES) \
            if self.faults else pa.nulls(count, _CODES)
        seat = call("add", [call("multiply", [context, _SEATS]), fields["seat"]])
        return [
            _per_round(contexts, 0, context), call("take", [pa.array(contexts[1], pa.int32()), context]),
            call("cast", [fields["ply"]], _AS_INT32), line,
            call("take", [_text_values(names), seat]),
            pa.DictionaryArray.from_arrays(fields["action"], _ACTIONS.dictionary),
            _tiles(fields["tile"]),
            pa.DictionaryArray.from_arrays(_nullable(fields["end"], _NO_END32, pa.int32()), _END_WORDS),
            _nullable(fields["left"], _NO_PIP32, pa.int8()), _nullable(fields["right"], _NO_PIP32, pa.int8()),
            _nullable(tail["up"], _NO_PIP32, pa.int8()), _nullable(tail["down"], _NO_PIP32, pa.int8()),
            _small(fields, "stock_left"), _small(fields, "hand_size"), call("equal", [fields["could_play"], _ONE]),
            call("equal", [fields["applied"], _ONE]), faults, points, claimed,
            *[_per_round(contexts, index, context) for index in (2, 3, 4, 7, 6)],
        ]

    def close(self) -> None:
        """Write what is left and close the file."""
        self.flush()
        self._writer.close()


# (module functions, not nested in MoveSink._columns: compiled, nested functions and their closure refer to
# each other, a cycle that kept each row group's unpacked arrays, about 6 MB, until a garbage collection)
def _per_round(contexts: list[list[Any]], index: int, context: Any) -> Any:
    """A moves column of per-round text: the round's value (``contexts[index]``) taken for each move."""
    return pc.call_function("take", [_text_values(contexts[index]), context])


def _small(fields: dict[str, Any], name: str) -> Any:
    """An unpacked field of the moves as ``int8``."""
    return pc.call_function("cast", [fields[name]], _AS_INT8)
