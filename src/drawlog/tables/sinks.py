"""Row buffers that write one statistics table each, a Parquet row group at a time.

:class:`TableSink` keeps rows as tuples and turns them into columns when a
row group is full; :class:`DealSink` keeps the deals as columns. The moves
table has its own, :class:`~drawlog.tables.move_sink.MoveSink`. Given a
:class:`~drawlog.tables.writers.WriterThread`, the sinks encode their row
groups in it, beside the replay.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from ..engine.tiles import TILES
from .writers import BYTES_PER_GROUP, ROWS_PER_GROUP, WriterThread, open_writer, run_now

#: ``HALVES[id]``: each tile as the tables store it, ``[low, high]``.
HALVES: Final = tuple([low, high] for low, high in TILES)


def columns_of(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
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
        self._submit = background.submit if background is not None else run_now

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
            columns = columns_of(rows, len(self.schema))
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
        rounds = columns_of(self.rounds, 8)
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


def text_values(values: Sequence[Any]) -> Any:
    """A small array of strings (None for null), dictionary-encoded: taking from it makes a ``TEXT`` column."""
    return pa.array(values, pa.string()).dictionary_encode()


_TILE_HALVES = pa.array([*HALVES, None], pa.list_(pa.int8()))
#: Each tile id's low and high half, as ``bytes.translate`` tables.
_LOWS: Final = bytes([low for low, _ in TILES] + [0] * (256 - len(TILES)))
_HIGHS: Final = bytes([high for _, high in TILES] + [0] * (256 - len(TILES)))
_PAIR: Final = pa.list_(pa.int8())
#: The deals table's ``tiles`` and ``part`` (by its code, :meth:`DealSink.part`).
_DEAL_TILES: Final = pa.list_(pa.list_(pa.int8()))
_PARTS: Final = pa.array(["hand", "stock"], pa.string())
_PART_CODES: Final = {"hand": 0, "stock": 1}
