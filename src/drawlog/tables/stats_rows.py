"""What the statistics recorder keeps of each open match and round, and the rows it builds from them.

:class:`~drawlog.tables.stats.StatsRecorder` (the replay's observer) keeps a
:class:`MatchNotes` per open match and a :class:`RoundNotes` for its round in
play; when a round is dealt, settled or its match ends, the functions here add
that deal's, round's, players' or match's rows to the sinks (:mod:`drawlog.tables.sinks`),
always from the recomputed state (the log's claims go to the ``claimed_*`` columns).
Compiled with the recorder: its callbacks call these directly.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import msgspec

from ..check.table import Table
from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tiles import TILE_COUNT, is_double, tile_count, tile_id
from ..log.events import MatchEnd, MatchStart, RoundEnd, RoundStart, timestamp
from ..log.ids import bounded_ids
from .meta import bots_of
from .meta import text as _text
from .shuffle import NO_CHECK, DealCheck, check_logged_deal
from .sinks import DealSink, TableSink

#: The bit set of the doubles.
_DOUBLE_TILES: Final = sum(1 << tile for tile in range(TILE_COUNT) if is_double(tile))


class MatchNotes:
    """What the recorder keeps of an open match: its keys and the round in play."""

    __slots__ = ("tournament", "table_name", "file", "path", "variant", "started_at", "player_names", "first_line",
                 "round", "text_bytes", "meta", "bots", "bot_versions")

    def __init__(self, event: MatchStart, file: str, path: str | None, line: int, replayed: bool = False) -> None:
        meta = event.meta or {}
        self.tournament = _text(meta.get("tournament"))
        self.table_name = _text(meta.get("table"))
        self.file = file
        self.path = path
        self.variant = event.variant
        self.started_at = _timestamp(event.ts)
        #: The players as logged, for a match not replayed (a replayed one has its match's names).
        self.player_names: list[str] | None = list(bounded_ids(event.players)) if not replayed else None
        self.first_line = line
        self.round: RoundNotes | None = None
        #: ``meta`` whole, as JSON (None when the log has none), and the bots it names per seat.
        self.meta = msgspec.json.encode(event.meta).decode() if event.meta is not None else None
        self.bots, self.bot_versions = bots_of(meta, event.players)
        #: About the bytes of text the match's keys (tournament, table) put on each of its rows and hold while kept.
        self.text_bytes = 64 + len(self.tournament or "") + len(self.table_name or "")


class RoundNotes:
    """Per-seat counts of the round in play (plays, draws, voluntary draws, passes) and its moves' context."""

    __slots__ = ("plays", "draws", "voluntary", "passes", "opening", "ply", "line", "values", "context", "fives",
                 "check")

    def __init__(self, players: int, line: int, values: tuple[Any, ...] = (), fives: bool = False) -> None:
        #: (match, round, tournament, table_name, file, names, variant, path): what the round's moves share.
        self.values = values
        self.context = -1
        #: Whether the round is All Fives' (its moves score, and it has arms).
        self.fives = fives
        self.plays = [0] * players
        self.draws = [0] * players
        self.voluntary = [0] * players
        self.passes = [0] * players
        self.opening = -1  # the tile that opened the line, once one did
        self.ply = 0
        self.line = line
        #: What the deal says of the shuffle (:mod:`drawlog.tables.shuffle`).
        self.check = NO_CHECK


def add_deal_rows(deals: DealSink, match_id: str, state: Round, event: RoundStart, line: int,
                  notes: MatchNotes) -> DealCheck:
    """Write the deal's rows (each hand, then the stock when logged); what it says of the shuffle."""
    hands = event.hands
    names = state.names
    number = state.number
    deals.round((match_id, number, line, notes.tournament, notes.table_name, notes.file, notes.path,
                 notes.variant))
    seats: list[int] = []
    logged: list[list[tuple[int, int]]] = []
    for seat in range(len(names)):
        tiles = hands.get(names[seat])
        if tiles is not None:
            seats.append(seat)
            logged.append(tiles)
    ids = deals.tiles()
    check = check_logged_deal(logged, ids, match_id, number)  # (the tiles' ids go on the rows: see DealSink)
    size = notes.text_bytes
    per_hand = check.per_hand
    for index in range(len(seats)):
        seat = seats[index]
        name = names[seat]
        deals.part(0, name, seat, per_hand[index], len(logged[index]), size + len(name))
    stock = event.stock
    if stock is not None:
        order = state.stock_order  # the stock's ids (reversed) and set, the replay's, unless it found it wrong
        if order is not None and len(order) == len(stock):
            ids.extend(reversed(order))
            doubles = tile_count(state.stock & _DOUBLE_TILES)
        else:
            start = len(ids)
            ids.extend([tile_id(tile) for tile in stock])
            doubles = 0
            for index in range(start, len(ids)):
                doubles += is_double(ids[index])
        deals.part(1, None, None, doubles, len(stock), size)
    return check


def add_round_rows(rounds: TableSink, players: TableSink, table: Table, state: Round, claim: RoundEnd | None,
                   line: int) -> None:
    """A settled round's row and one per player (``claim``: the log's round_end, None when it left it out)."""
    match = table.match
    assert match is not None
    notes: MatchNotes = table.observed
    tally = notes.round or RoundNotes(match.players, line)
    notes.round = None
    score = state.score()
    names = match.names
    match_id, number = table.id, state.number
    tournament, table_name, file, path = notes.tournament, notes.table_name, notes.file, notes.path
    variant, size = notes.variant, notes.text_bytes
    # Each value read once, not once a seat (an attribute of the score, a named tuple, is a lookup by name).
    points, play_points, end_points, pips = score.points, score.play_points, score.end_points, score.pips
    plays, draws, voluntary, passes = tally.plays, tally.draws, tally.voluntary, tally.passes
    reason, opener, hands, scores = state.reason, state.opener, state.hands, match.scores
    winner_seat = score.winner
    opening = tally.opening
    check = tally.check
    spinner = state.tableau.spinner if isinstance(state, FivesRound) else -1
    rounds.add((  # (the tiles as ids: see TableSink)
        match_id, number, tournament, table_name, file, path, variant, names[opener], reason,
        names[winner_seat] if winner_seat is not None else None,
        points[winner_seat] if winner_seat is not None else 0, state.stock_left,
        sum(plays), sum(draws), sum(passes), sum(voluntary),
        opening if opening >= 0 else TILE_COUNT, is_double(opening) if opening >= 0 else None,
        spinner if spinner >= 0 else TILE_COUNT, claim.reason if claim is not None else None,
        claim.winner if claim is not None else None, claim is not None, tally.line,
        check.doubles, check.expected, check.doubles_p, check.suits_chi2, check.suits_p,
    ), size)
    claimed = claim.points if claim is not None else None
    for seat in range(len(names)):
        name = names[seat]
        players.add((
            match_id, number, name, seat, tournament, table_name, file, path, variant, points[seat],
            play_points[seat], end_points[seat], scores[seat], pips[seat], tile_count(hands[seat]),
            plays[seat], draws[seat], voluntary[seat], passes[seat], winner_seat == seat, opener == seat,
            claimed.get(name, 0) if claimed is not None else None, reason,
        ), size + len(name))


def add_match_row(matches: Any, table: Table, notes: MatchNotes, claim: MatchEnd | None, line: int) -> None:
    """An ended match's row (``claim``: the log's match_end, None when the input ended inside the match)."""
    match = table.match
    names = list(match.names) if match else notes.player_names or []
    result = match.result if match is not None else None
    complete = claim is not None
    # A forfeit (v1.2) names a player of the match (one not playing is an R306, and no forfeit here).
    forfeit = claim.forfeit if claim is not None else None
    if forfeit is not None and forfeit.player not in names:
        forfeit = None
    # A winner (or a draw) only for a finished match: one the input cut short has neither.
    winner = names[result.winner] if complete and result and result.winner is not None else None
    matches.add((
        table.id, notes.tournament, notes.table_name, notes.file, notes.path, len(names), names,
        match.target if match else None, match.rounds_started if match else 0, winner,
        bool(complete and result and result.drawn), complete, bool(result and result.decided),
        table.errors == 0, table.errors,
        match is not None, notes.variant, notes.started_at, list(match.scores) if match else None,
        claim.winner if claim else None, [claim.scores.get(name, 0) for name in names] if claim else None,
        notes.first_line, line, forfeit.player if forfeit else None, forfeit.reason if forfeit else None,
        notes.meta, notes.bots, notes.bot_versions,
    ), notes.text_bytes + len(table.id) + sum(len(name) for name in names) + len(notes.meta or ""))


def _timestamp(value: datetime | str | None) -> datetime | None:
    """A ``ts`` as decoded (a ``datetime``), or as a string given to the API (read as the decoder reads it), or None."""
    if value is None or isinstance(value, datetime):
        return value
    return timestamp(value) if value else None
