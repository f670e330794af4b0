"""Statistics tables from the validating replay: matches, rounds, players, moves, violations.

:class:`StatsRecorder` is a replay :class:`~drawlog.replay.Observer`: it turns
each replayed match, round and move into rows, always from the recomputed
state, never from the log's claims (those get their own ``claimed_*``
columns). Rows are buffered per table and written to Parquet in row groups
as the input streams, so memory does not grow with the input.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import Fault
from .events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from .replay import Table
from .rounds import Round
from .tiles import TILE_COUNT, is_double, label, tile_id
from .violations import Violation

LABELS = tuple(label(tile) for tile in range(TILE_COUNT))
DRAW_CODE: Final = 0
PLAY_CODE: Final = 1
PASS_CODE: Final = 2
#: ``end`` codes are 0 left, 1 right, 2 none; an open end of 7 and a tile of 28 (TILE_COUNT) mean none.
NO_END: Final = 2
#: (name, bits) of the fields of a packed move, lowest bits first (see :class:`MoveSink`).
PACKED_FIELDS: Final = (("applied", 1), ("could_play", 1), ("hand_size", 5), ("stock_left", 5), ("right", 3),
                        ("left", 3), ("end", 2), ("tile", 5), ("action", 2), ("seat", 2), ("ply", 16),
                        ("context", 18))
_ACTION_CODE = {Draw: DRAW_CODE, Play: PLAY_CODE, Pass: PASS_CODE}
_ACTIONS = pa.array(["draw", "play", "pass"])
_TILE_LABELS = pa.array([*LABELS, None], pa.string())
_END_NAMES = pa.array(["left", "right", None], pa.string())

#: Columns copied from the match into every table, so each can be partitioned by them.
MATCH_KEYS = ("tournament", "table_name")

_KEYS = [("tournament", pa.string()), ("table_name", pa.string()), ("file", pa.string())]

SCHEMAS: dict[str, pa.Schema] = {
    "matches": pa.schema([
        ("match", pa.string()), *_KEYS,
        ("players", pa.int8()), ("player_names", pa.list_(pa.string())), ("target", pa.int32()),
        ("rounds", pa.int32()), ("winner", pa.string()), ("drawn", pa.bool_()), ("complete", pa.bool_()),
        ("valid", pa.bool_()), ("errors", pa.int32()), ("replayed", pa.bool_()), ("variant", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")), ("scores", pa.list_(pa.int32())),
        ("claimed_winner", pa.string()), ("claimed_scores", pa.list_(pa.int32())),
        ("first_line", pa.int64()), ("last_line", pa.int64()),
    ]),
    "rounds": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), *_KEYS,
        ("opener", pa.string()), ("reason", pa.string()), ("winner", pa.string()), ("points", pa.int32()),
        ("stock_left", pa.int8()), ("plays", pa.int32()), ("draws", pa.int32()), ("passes", pa.int32()),
        ("voluntary_draws", pa.int32()), ("opening_tile", pa.string()), ("opened_with_double", pa.bool_()),
        ("claimed_reason", pa.string()), ("claimed_winner", pa.string()), ("has_round_end", pa.bool_()),
        ("line", pa.int64()),
    ]),
    "players": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), ("player", pa.string()), ("seat", pa.int8()), *_KEYS,
        ("points", pa.int32()), ("score", pa.int32()), ("pips_left", pa.int32()), ("tiles_left", pa.int8()),
        ("plays", pa.int32()), ("draws", pa.int32()), ("voluntary_draws", pa.int32()), ("passes", pa.int32()),
        ("won", pa.bool_()), ("opener", pa.bool_()), ("claimed_points", pa.int32()),
    ]),
    "moves": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), ("ply", pa.int32()), ("line", pa.int64()),
        ("player", pa.string()), ("action", pa.string()), ("tile", pa.string()), ("end", pa.string()),
        ("left", pa.int8()), ("right", pa.int8()), ("stock_left", pa.int8()), ("hand_size", pa.int8()),
        ("could_play", pa.bool_()), ("applied", pa.bool_()), ("faults", pa.string()), *_KEYS,
    ]),
    "violations": pa.schema([
        ("file", pa.string()), ("line", pa.int64()), ("match", pa.string()), ("round", pa.int32()),
        ("player", pa.string()), ("code", pa.string()), ("severity", pa.string()), ("message", pa.string()),
        ("tournament", pa.string()), ("table_name", pa.string()),
    ]),
}
TABLES = tuple(SCHEMAS)


class TableSink:
    """Rows of one table, buffered column by column and written a row group at a time."""

    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = 65_536, arrow: bool = False) -> None:
        self.path = path
        self.schema = schema
        self.rows_per_group = rows_per_group
        #: One list per column, in the schema's order; a row is one value appended to each.
        self.columns: list[list[Any]] = [[] for _ in schema.names]
        self.rows = 0
        # Arrow IPC (``arrow=True``) is for intermediate parts: cheap to write and to read back.
        self._writer = pa.ipc.new_file(str(path), schema) if arrow else pq.ParquetWriter(path, schema,
                                                                                            compression="zstd")

    def add(self, row: tuple[Any, ...]) -> None:
        """Append one row, its values in the order of the schema's columns."""
        for column, value in zip(self.columns, row):
            column.append(value)
        if len(self.columns[0]) >= self.rows_per_group:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows as one row group."""
        if self.columns[0]:
            arrays = [pa.array(column, type=field.type) for column, field in zip(self.columns, self.schema)]
            self._writer.write(pa.Table.from_arrays(arrays, schema=self.schema))
            self.rows += len(self.columns[0])
            for column in self.columns:
                column.clear()

    def close(self) -> None:
        """Write what is left and close the file."""
        self.flush()
        self._writer.close()


class MoveSink:
    """The moves table, kept compact: per move one packed integer and the line number.

    A move is many small values (seat, tile, ends, stock …); packing them into
    one int keeps the replay fast, and :meth:`flush` unpacks whole columns at
    once with Arrow compute. Per-round values (match, round, names, keys) are
    stored once per round as a *context* that each packed move points to.
    """

    def __init__(self, path: Path, schema: pa.Schema, rows_per_group: int = 65_536, arrow: bool = False) -> None:
        self.path = path
        self.schema = schema
        self.rows_per_group = rows_per_group
        self.rows = 0
        self.packed: list[int] = []
        self.lines: list[int] = []
        self.faults: dict[int, str] = {}
        self.contexts: list[tuple[Any, ...]] = []
        self._writer = pa.ipc.new_file(str(path), schema) if arrow else pq.ParquetWriter(path, schema,
                                                                                            compression="zstd")

    def context(self, values: tuple[Any, ...]) -> int:
        """Register a round's (match, round, tournament, table_name, file, names); its index."""
        self.contexts.append(values)
        return len(self.contexts) - 1

    def add(self, context: int, ply: int, seat: int, action: int, tile: int, end: int, left: int, right: int,
            stock_left: int, hand_size: int, could_play: bool, applied: bool, line: int, faults: str | None) -> None:
        """Append one move (``tile`` 28, ``end`` 2 and ``left``/``right`` 7 mean none)."""
        if faults is not None:
            self.faults[len(self.lines)] = faults
        self.lines.append(line)
        self.packed.append(
            ((((((((((context << 16 | ply) << 2 | seat) << 2 | action) << 5 | tile) << 2 | end) << 3 | left) << 3
               | right) << 5 | stock_left) << 5 | hand_size) << 1 | could_play) << 1 | applied
        )

    def flush(self) -> None:
        """Write the buffered moves as one row group and forget the contexts (register open rounds again)."""
        count = len(self.lines)
        if count:
            self._writer.write(pa.Table.from_arrays(self._columns(), schema=self.schema))
            self.rows += count
            self.packed = []
            self.lines = []
            self.faults = {}
        self.contexts = []

    def _columns(self) -> list[Any]:
        import pyarrow.compute as pc

        packed = pa.array(self.packed, pa.int64())
        fields: dict[str, Any] = {}
        offset = 0
        for name, width in PACKED_FIELDS:
            fields[name] = pc.bit_wise_and(pc.shift_right(packed, offset), (1 << width) - 1)
            offset += width
        context = fields["context"]
        contexts = list(zip(*self.contexts))
        names = [name for row in self.contexts for name in (*row[5], None, None, None, None)[:4]]

        def per_round(index: int, kind: pa.DataType) -> Any:
            return pc.take(pa.array(contexts[index], kind), context)

        def small(name: str, none: int) -> Any:
            values = fields[name].cast(pa.int8())
            return pc.if_else(pc.equal(values, none), pa.scalar(None, pa.int8()), values)

        count = len(self.lines)
        faults = pa.array([self.faults.get(row) for row in range(count)], pa.string()) if self.faults \
            else pa.nulls(count, pa.string())
        return [
            per_round(0, pa.string()), per_round(1, pa.int32()), fields["ply"].cast(pa.int32()),
            pa.array(self.lines, pa.int64()),
            pc.take(pa.array(names, pa.string()), pc.add(pc.multiply(context, 4), fields["seat"])),
            pc.take(_ACTIONS, fields["action"]), pc.take(_TILE_LABELS, fields["tile"]),
            pc.take(_END_NAMES, fields["end"]), small("left", 7), small("right", 7),
            fields["stock_left"].cast(pa.int8()), fields["hand_size"].cast(pa.int8()),
            pc.equal(fields["could_play"], 1), pc.equal(fields["applied"], 1), faults,
            per_round(2, pa.string()), per_round(3, pa.string()), per_round(4, pa.string()),
        ]

    def close(self) -> None:
        """Write what is left and close the file."""
        self.flush()
        self._writer.close()


class _Tally:
    """Per-seat counts of one round: plays, draws, voluntary draws, passes."""

    __slots__ = ("plays", "draws", "voluntary", "passes", "opening", "ply", "line", "values", "context")

    def __init__(self, players: int, line: int, values: tuple[Any, ...] = ()) -> None:
        #: (match, round, tournament, table_name, file, names): what the round's moves share.
        self.values = values
        self.context = -1
        self.plays = [0] * players
        self.draws = [0] * players
        self.voluntary = [0] * players
        self.passes = [0] * players
        self.opening = -1  # the tile that opened the line, once one did
        self.ply = 0
        self.line = line


class StatsRecorder:
    """Builds the five tables from a replay (set it as ``validator.replay.observer``)."""

    def __init__(self, sinks: dict[str, Any], current_file: Callable[[], str]) -> None:
        self.sinks: dict[str, TableSink] = sinks
        self._moves: MoveSink = sinks["moves"]
        self._current_file = current_file  # the name of the input being read
        self._keys: dict[str, dict[str, Any]] = {}
        self._rounds: dict[str, _Tally] = {}

    # -- the observer hooks ----------------------------------------------------

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        meta = event.meta or {}
        self._keys[table.id] = {
            "tournament": _text(meta.get("tournament")), "table_name": _text(meta.get("table")),
            "file": self._current_file(), "variant": event.variant, "started_at": _timestamp(event.ts),
            "player_names": list(event.players), "first_line": line,
        }

    def round_started(self, table: Table, event: RoundStart, line: int) -> None:
        keys = self._keys[table.id]
        assert table.round is not None
        values = (table.id, table.round.number, keys["tournament"], keys["table_name"], keys["file"],
                  table.round.names)
        tally = _Tally(len(table.seat_of), line, values)
        tally.context = self._moves.context(values)
        self._rounds[table.id] = tally

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        tally = self._rounds[table.id]
        tally.ply += 1
        applied = not faults or not any(fault.impossible for fault in faults)
        action = _ACTION_CODE[event.__class__]
        tile, end = TILE_COUNT, NO_END
        if action == PASS_CODE:
            tally.passes[seat] += 1
        else:
            tile = tile_id(event.tile)  # type: ignore[union-attr]
            if action == DRAW_CODE:
                tally.draws[seat] += 1
                tally.voluntary[seat] += could_play
            else:
                logged_end = event.end  # type: ignore[union-attr]
                end = 0 if logged_end == "left" else 1 if logged_end == "right" else end
                tally.plays[seat] += 1
                if tally.opening < 0 and applied:
                    tally.opening = tile
        ends = state.line
        moves = self._moves
        moves.add(tally.context, tally.ply, seat, action, tile, end, 7 if ends.left is None else ends.left,
                  7 if ends.right is None else ends.right, state.stock_left, state.hands[seat].bit_count(),
                  could_play, applied, line, ",".join(fault.code for fault in faults) if faults else None)
        if len(moves.lines) >= moves.rows_per_group:
            moves.flush()
            for open_round in self._rounds.values():
                open_round.context = moves.context(open_round.values)

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        match = table.match
        assert match is not None
        tally = self._rounds.pop(table.id, None) or _Tally(match.players, line)
        score = state.score()
        names = match.names
        keys = self._keys[table.id]
        where = (keys["tournament"], keys["table_name"], keys["file"])
        winner = names[score.winner] if score.winner is not None else None
        opening = tally.opening
        self.sinks["rounds"].add((
            table.id, state.number, *where, names[state.opener], state.reason, winner,
            score.points[score.winner] if score.winner is not None else 0, state.stock_left,
            sum(tally.plays), sum(tally.draws), sum(tally.passes), sum(tally.voluntary),
            LABELS[opening] if opening >= 0 else None, is_double(opening) if opening >= 0 else None,
            claim.reason if claim else None, claim.winner if claim else None, claim is not None, tally.line,
        ))
        players = self.sinks["players"]
        for seat, name in enumerate(names):
            players.add((
                table.id, state.number, name, seat, *where, score.points[seat], match.scores[seat],
                score.pips[seat], state.hands[seat].bit_count(), tally.plays[seat], tally.draws[seat],
                tally.voluntary[seat], tally.passes[seat], score.winner == seat, state.opener == seat,
                claim.points.get(name, 0) if claim else None,
            ))

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        keys = self._keys.pop(table.id)
        self._rounds.pop(table.id, None)
        match = table.match
        names = list(match.names) if match else keys["player_names"]
        winner = None
        if match is not None and match.result.winner is not None:
            winner = match.names[match.result.winner]
        self.sinks["matches"].add((
            table.id, keys["tournament"], keys["table_name"], keys["file"], len(names), names,
            match.target if match else None, match.rounds_started if match else 0, winner,
            bool(match and match.result.drawn), claim is not None, table.errors == 0, table.errors,
            match is not None, keys["variant"], keys["started_at"], list(match.scores) if match else None,
            claim.winner if claim else None, [claim.scores.get(name, 0) for name in names] if claim else None,
            keys["first_line"], line,
        ))

    # -- violations ---------------------------------------------------------------

    def violation(self, violation: Violation) -> None:
        """Add a reported violation to the violations table (with its match's keys, if known)."""
        keys = self._keys.get(violation.match or "", {})
        self.sinks["violations"].add((
            violation.file, violation.line, violation.match, violation.round, violation.player, violation.code,
            violation.severity, violation.message, keys.get("tournament"), keys.get("table_name"),
        ))


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _timestamp(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
