"""The moves table's row buffer: a move packed into two integers as it is replayed, whole columns unpacked at
once with Arrow compute when a row group is written, so the replay builds no per-move row.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from ..engine.tiles import TILE_COUNT
from .sinks import HALVES, columns_of, text_values
from .writers import ROWS_PER_GROUP, WriterThread, open_writer, run_now, text_as_dictionary

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


_ACTIONS = text_values(["draw", "play", "pass"])
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
        self._submit = background.submit if background is not None else run_now
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
        contexts = columns_of(rounds, 8)
        names = [name for row in rounds for name in (*row[5], None, None, None, None)[:4]]

        faults = pa.array([self.faults.get(row) for row in range(count)], _CODES) \
            if self.faults else pa.nulls(count, _CODES)
        seat = call("add", [call("multiply", [context, _SEATS]), fields["seat"]])
        return [
            _per_round(contexts, 0, context), call("take", [pa.array(contexts[1], pa.int32()), context]),
            call("cast", [fields["ply"]], _AS_INT32), line,
            call("take", [text_values(names), seat]),
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
    return pc.call_function("take", [text_values(contexts[index]), context])


def _small(fields: dict[str, Any], name: str) -> Any:
    """An unpacked field of the moves as ``int8``."""
    return pc.call_function("cast", [fields[name]], _AS_INT8)
