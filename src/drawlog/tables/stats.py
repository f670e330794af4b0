"""Statistics tables from the validating replay: matches, rounds, players, moves, violations.

:class:`StatsRecorder` is a replay :class:`~drawlog.check.observer.Observer`: it turns
each replayed match, round and move into rows, always from the recomputed
state, never from the log's claims (those get their own ``claimed_*``
columns). Draw and All Fives share the tables: ``variant`` names the game in
each of them; All Fives fills ``moves.points`` (what a placement scored; 0 for
any other move, and always in Draw), ``moves.up_end``/``down_end`` (the spinner's
arms, null while closed, even when an early play started one), ``rounds.spinner``, ``rounds.reason``
``target`` (a play reached the match target) and ``players.play_points``
(``players.points`` = ``play_points`` + ``end_points``). A match a player
forfeits (format v1.2) names them in ``matches.forfeit`` (and why in
``forfeit_reason``); its ``winner`` is the forfeit's. Rows go to the
sinks of :mod:`drawlog.sinks`, which write them to Parquet in row groups as
the input streams, so memory does not grow with the input. What it keeps of each
open match and round, and the deal, round, player and match rows built from
that, are in :mod:`drawlog.tables.stats_rows`; the moves' rows are built here.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final, cast

import pyarrow as pa
from msgspec.structs import astuple

from ..check.observer import Observer
from ..check.replay import MOVE_FIELDS
from ..check.table import Table
from ..check.violations import Violation
from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tiles import TILE_COUNT, tile_count, tile_id
from ..errors import Fault
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.reader import STDIN
from ..log.remote import is_url
from .move_sink import (
    DOWN_END,
    DRAW_CODE,
    LEFT_END,
    NO_END,
    NO_PIP,
    PASS_CODE,
    PLAY_CODE,
    RIGHT_END,
    UP_END,
    MoveSink,
)
from .sinks import DealSink, TableSink
from .stats_rows import MatchNotes, RoundNotes, add_deal_rows, add_match_row, add_round_rows
from .writers import text_as_dictionary

#: Columns copied from the match into every table, so each can be partitioned by them.
MATCH_KEYS = ("tournament", "table_name")

#: How many matches lately ended (by their last end) keep their keys for violations reported after them.
ENDED_KEPT: Final = 4096
#: ... and at most about this many bytes of their text (a long tournament name each: 4,096 could hold gigabytes).
ENDED_BYTES_KEPT: Final = 16 << 20
_KEYS = [("tournament", pa.string()), ("table_name", pa.string()), ("file", pa.string()), ("path", pa.string())]
#: A tile as two small integers, low first (``[3, 5]``).
TILE = pa.list_(pa.int8())

SCHEMAS: dict[str, pa.Schema] = {
    "matches": pa.schema([
        ("match", pa.string()), *_KEYS,
        ("players", pa.int32()), ("player_names", pa.list_(pa.string())), ("target", pa.int64()),
        ("rounds", pa.int32()), ("winner", pa.string()), ("drawn", pa.bool_()), ("complete", pa.bool_()),
        ("decided", pa.bool_()), ("valid", pa.bool_()), ("errors", pa.int32()), ("replayed", pa.bool_()),
        ("variant", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")), ("scores", pa.list_(pa.int64())),
        ("claimed_winner", pa.string()), ("claimed_scores", pa.list_(pa.int64())),
        ("first_line", pa.int64()), ("last_line", pa.int64()),
        ("forfeit", pa.string()), ("forfeit_reason", pa.string()),
        ("meta", pa.string()), ("bots", pa.list_(pa.string())), ("bot_versions", pa.list_(pa.string())),
    ]),
    "rounds": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), *_KEYS, ("variant", pa.string()),
        ("opener", pa.string()), ("reason", pa.string()), ("winner", pa.string()), ("points", pa.int64()),
        ("stock_left", pa.int8()), ("plays", pa.int32()), ("draws", pa.int32()), ("passes", pa.int32()),
        ("voluntary_draws", pa.int32()), ("opening_tile", TILE), ("opened_with_double", pa.bool_()),
        ("spinner", TILE), ("claimed_reason", pa.string()), ("claimed_winner", pa.string()),
        ("has_round_end", pa.bool_()), ("line", pa.int64()),
        ("shuffle_doubles", pa.int32()), ("shuffle_doubles_expected", pa.float64()),
        ("shuffle_doubles_p", pa.float64()), ("shuffle_suits_chi2", pa.float64()), ("shuffle_suits_p", pa.float64()),
    ]),
    "players": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), ("player", pa.string()), ("seat", pa.int8()), *_KEYS,
        ("variant", pa.string()), ("points", pa.int64()), ("play_points", pa.int64()), ("end_points", pa.int64()),
        ("score", pa.int64()), ("pips_left", pa.int32()), ("tiles_left", pa.int8()),
        ("plays", pa.int32()), ("draws", pa.int32()), ("voluntary_draws", pa.int32()), ("passes", pa.int32()),
        ("won", pa.bool_()), ("opener", pa.bool_()), ("claimed_points", pa.int64()), ("reason", pa.string()),
    ]),
    "moves": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), ("ply", pa.int32()), ("line", pa.int64()),
        ("player", pa.string()), ("action", pa.string()), ("tile", TILE), ("placed_end", pa.string()),
        ("left_end", pa.int8()), ("right_end", pa.int8()), ("up_end", pa.int8()), ("down_end", pa.int8()),
        ("stock_left", pa.int8()), ("hand_size", pa.int8()), ("could_play", pa.bool_()), ("applied", pa.bool_()),
        ("faults", pa.list_(pa.string())), ("points", pa.int64()), ("claimed_points", pa.int64()), *_KEYS,
        ("variant", pa.string()),
    ]),
    "violations": pa.schema([
        ("file", pa.string()), ("path", pa.string()), ("line", pa.int64()), ("match", pa.string()),
        ("round", pa.int32()), ("player", pa.string()), ("code", pa.string()), ("severity", pa.string()),
        ("message", pa.string()), ("tournament", pa.string()), ("table_name", pa.string()), ("variant", pa.string()),
        ("follows", pa.int64()),  # the root's line, for a follow-on (null for a root)
    ]),
    "deals": pa.schema([
        ("match", pa.string()), ("round", pa.int32()), ("part", pa.string()), ("player", pa.string()),
        ("seat", pa.int8()), ("tiles", pa.list_(TILE)), ("doubles", pa.int8()), ("line", pa.int64()), *_KEYS,
        ("variant", pa.string()),
    ]),
}
TABLES = tuple(SCHEMAS)


_DRAW: Final = Draw
_PLAY: Final = Play
#: A struct's fields as a tuple (see :data:`~drawlog.check.replay.MOVE_FIELDS`), and where a play's are in it.
_FIELDS: Final = astuple
_TILE: Final = MOVE_FIELDS[Play].index("tile")
_END: Final = MOVE_FIELDS[Play].index("end")
_POINTS: Final = MOVE_FIELDS[Play].index("points")

#: The schema each table is written with (the moves' strings as dictionaries; they read back as strings).
WRITE_SCHEMAS = {name: text_as_dictionary(schema) if name == "moves" else schema for name, schema in SCHEMAS.items()}


class StatsRecorder(Observer):
    """Builds the six tables from a replay (set it as ``validator.replay.observer``)."""

    def __init__(self, sinks: dict[str, Any], current_file: Callable[[], str]) -> None:
        self.sinks: dict[str, Any] = sinks
        self._moves: MoveSink = sinks["moves"]
        self._rounds: TableSink = sinks["rounds"]
        self._deals: DealSink = sinks["deals"]
        self._players: TableSink = sinks["players"]
        self._current_file = current_file  # the name of the input being read
        self._matches: dict[str, MatchNotes] = {}
        #: Matches lately ended, for the keys of a violation reported after its match (F004 after match_end).
        self._ended: OrderedDict[str, MatchNotes] = OrderedDict()
        self._ended_bytes = 0
        self._paths: dict[str, str | None] = {}

    def path_of(self, file: str) -> str | None:
        """The absolute path of the input named ``file`` (None for standard input; a URL is its own path)."""
        path = self._paths.get(file, "")
        if path == "":
            path = self._paths[file] = None if file == STDIN else file if is_url(file) else os.path.abspath(file)
        return path

    # -- the observer hooks ----------------------------------------------------

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        file = self._current_file()
        notes = MatchNotes(event, file, self.path_of(file), line, table.replayed)
        self._matches[table.id] = notes
        table.observed = notes

    def round_started(self, table: Table, event: RoundStart, line: int) -> None:
        notes: MatchNotes = table.observed
        state = table.round
        assert state is not None
        values = (table.id, state.number, notes.tournament, notes.table_name, notes.file, state.names,
                  notes.variant, notes.path)
        tally = RoundNotes(len(state.names), line, values, isinstance(state, FivesRound))
        tally.context = self._moves.context(values)
        notes.round = tally
        tally.check = add_deal_rows(self._deals, table.id, state, event, line, notes)

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        notes: MatchNotes = table.observed
        tally = notes.round
        assert tally is not None
        tally.ply += 1
        applied = True
        if faults:
            applied = not any(fault.impossible for fault in faults)
        tile, end = TILE_COUNT, NO_END
        claimed: int | None = None
        kind = type(event)  # (the replay takes no subclass of an event class: no isinstance needed)
        if kind is _PLAY:
            fields: tuple[Any, ...] = _FIELDS(event)  # one call, not an attribute lookup each
            action = PLAY_CODE
            tile = tile_id(fields[_TILE])
            logged_end = fields[_END]
            if logged_end is not None:
                end = LEFT_END if logged_end == "left" else RIGHT_END if logged_end == "right" \
                    else UP_END if logged_end == "up" else DOWN_END
            claimed = fields[_POINTS]
            tally.plays[seat] = tally.plays[seat] + 1  # (not +=: compiled code would add generically)
            if tally.opening < 0 and applied:
                tally.opening = tile
        elif kind is _DRAW:
            action = DRAW_CODE
            tile = tile_id(cast(Draw, event).tile)
            tally.draws[seat] = tally.draws[seat] + 1
            if could_play:
                tally.voluntary[seat] = tally.voluntary[seat] + 1
        else:
            action = PASS_CODE
            tally.passes[seat] = tally.passes[seat] + 1
        ends = state.line
        left, right = ends.left, ends.right
        points, up, down = 0, NO_PIP, NO_PIP
        if tally.fives:  # what an All Fives move scored (0 unless a tile was placed), and the arms
            fives = cast(FivesRound, state)
            if action == PLAY_CODE and applied:
                points = fives.last_points
            tableau = fives.tableau
            if tableau.arms_open:
                up = _pip(tableau.up)
                down = _pip(tableau.down)
        moves = self._moves
        moves.add(tally.context, tally.ply, seat, action, tile, end, _pip(left), _pip(right), state.stock_left,
                  tile_count(state.hands[seat]), could_play, applied, line, points, claimed, up, down)
        if faults:
            moves.add_faults([fault.code for fault in faults])
        if moves.full():
            moves.flush()
            for open_match in self._matches.values():
                if open_match.round is not None:
                    open_match.round.context = moves.context(open_match.round.values)

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        add_round_rows(self._rounds, self._players, table, state, claim, line)

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        notes = self._matches.pop(table.id)
        add_match_row(self.sinks["matches"], table, notes, claim, line)
        self._keep_ended(table.id, notes)

    def _keep_ended(self, match_id: str, notes: MatchNotes) -> None:
        """Keep the notes of a match just ended (an id ended again is the latest); the oldest go past the limits."""
        notes.player_names = None  # (an ended match's notes serve only its keys)
        ended = self._ended
        previous = ended.pop(match_id, None)
        if previous is not None:
            self._ended_bytes -= previous.text_bytes
        ended[match_id] = notes
        self._ended_bytes += notes.text_bytes
        while len(ended) > ENDED_KEPT or (self._ended_bytes > ENDED_BYTES_KEPT and len(ended) > 1):
            self._ended_bytes -= ended.popitem(last=False)[1].text_bytes

    def ended_before(self, keys: list[tuple[str, str | None, str | None, str]]) -> None:
        """Take the matches lately ended by inputs another recorder read first, oldest first.

        Each is ``(match, tournament, table_name, variant)``: a violation
        reported later of one of them gets its keys, as if this recorder had
        read those inputs (a part replayed apart, seeded with what came before).
        """
        for match_id, tournament, table_name, variant in keys:
            start = MatchStart(match=match_id, players=[], variant=cast(Any, variant),
                               meta={"tournament": tournament, "table": table_name})
            self._keep_ended(match_id, MatchNotes(start, "", None, 0))

    # -- violations ---------------------------------------------------------------

    def knows(self, match_id: str) -> bool:
        """Whether a violation of ``match_id`` gets its match's keys: the match is open, or lately ended."""
        return match_id in self._matches or match_id in self._ended

    def violation(self, violation: Violation) -> None:
        """Add a reported violation to the violations table (with its match's keys, if known)."""
        match_id = violation.match
        notes = (self._matches.get(match_id) or self._ended.get(match_id)) if match_id is not None else None
        self.sinks["violations"].add((
            violation.file, self.path_of(violation.file), violation.line, violation.match, violation.round, violation.player, violation.code,
            violation.severity, violation.message, notes.tournament if notes else None,
            notes.table_name if notes else None, notes.variant if notes else None, violation.follows,
        ), (notes.text_bytes if notes else 64) + len(violation.message))


def _pip(value: int | None) -> int:
    """An open end's value as a move packs it (NO_PIP: none)."""
    return NO_PIP if value is None else value

