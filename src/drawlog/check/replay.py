"""Replaying matches from their events: the event handlers of :class:`Replay`.

:class:`Replay` turns each event into calls to the rules engine
(:mod:`drawlog.match`, :mod:`drawlog.rounds`) and reports what the engine finds,
plus what only the log format can get wrong: ``seq`` order (F003), events of
matches not started (F004), matches started twice (F005) or never ended (F006).
Its base, :class:`~drawlog.check.bookkeeping.ReplayBookkeeping`, keeps the open
matches and reports; what it tells an observer is :class:`~drawlog.check.observer.Observer`
(importable from here too). It knows nothing of files or JSON: :mod:`drawlog.validator` feeds it events.
"""

from __future__ import annotations

from typing import Any, Final

from msgspec.structs import astuple

from ..engine.match import MAX_PLAYERS, MIN_PLAYERS, check_players
from ..engine.profiles import PROFILES, house_rules
from ..engine.rounds import Round
from ..errors import Fault
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.ids import MAX_ID, bounded_id
from . import follows as _follows
from . import readings as _readings
from .bookkeeping import ReplayBookkeeping
from .names import bounded_names
from .observer import Observer
from .table import Table

__all__ = ["DEALT_BYTES", "MOVE_FIELDS", "Observer", "Replay", "second_start"]

# The event classes as compiled constants: a module global would be looked up on every event.
_MATCH_START: Final = MatchStart
_ROUND_START: Final = RoundStart
_DRAW: Final = Draw
_PLAY: Final = Play
_PASS: Final = Pass
_ROUND_END: Final = RoundEnd
_MATCH_END: Final = MatchEnd
#: A struct's fields as a tuple, in one call (an attribute of a msgspec struct costs compiled code a lookup).
_FIELDS: Final = astuple
# Where a move's fields are in that tuple (fields with defaults go last): player, tile, then a play's end and
# points; the match, seq and ts of every event are the last three (MOVE_FIELDS, checked by the tests).
_PLAYER: Final = 0
_TILE: Final = 1
_END: Final = 2
_POINTS: Final = 3
_MATCH_ID: Final = -3
_SEQ: Final = -2
#: The field order the indexes above read: {event type: its fields as ``astuple`` gives them}.
MOVE_FIELDS: Final = {Play: ("player", "tile", "end", "points", "match", "seq", "ts"),
                      Draw: ("player", "tile", "match", "seq", "ts"), Pass: ("player", "match", "seq", "ts")}
_PLAYED: Final = 1
_DREW: Final = 0
_PASSED: Final = 2

#: What an open match's replayed state adds once it has dealt (measured: 1,000,000 matches that start and deal,
#: 50,000 of them open at a time; :data:`~drawlog.check.table.TABLE_BYTES` is what it weighs before).
DEALT_BYTES: Final = 1_600


def second_start(match_id: str, file: str, line: int) -> str:
    """F005's message: ``match_id`` is started again, first at ``file:line``."""
    return f"match {match_id} is started a second time (first at {file}:{line})"



class Replay(ReplayBookkeeping):
    """Replays the events of the matches in one input, reporting violations to ``reporter``.

    :meth:`dispatch` replays one event, :meth:`feed` a decoded block of them;
    call :meth:`end_input` when the input ends, so unfinished matches are reported.
    ``observer``, when set, is told of every match, round and move as it is replayed.
    """

    def dispatch(self, event: Any, line: int) -> None:
        """Replay one decoded event, found on ``line``."""
        kind = type(event)
        if kind is _PLAY:
            self._move(event, line, _PLAYED)
        elif kind is _DRAW:
            self._move(event, line, _DREW)
        elif kind is _PASS:
            self._move(event, line, _PASSED)
        elif kind is _ROUND_START:
            self._round_start(event, line)
        elif kind is _ROUND_END:
            self._round_end(event, line)
        elif kind is _MATCH_START:
            self._match_start(event, line)
        elif kind is _MATCH_END:
            self._match_end(event, line)
        else:
            raise TypeError(f"not a log event: {event!r}")

    def feed(self, events: list[Any], start: int, line: int) -> int:
        """Replay ``events[start:]``, the first on the line after ``line``, until one is reported.

        Returns the index after the last event replayed: ``len(events)`` when all
        were, less when an event left violations in the reporter (flush them, then
        feed the rest), so violations stream out as they are found.
        """
        found = self.reporter.found
        index = start
        count = len(events)
        while index < count:
            event = events[index]
            index += 1
            line += 1
            self.dispatch(event, line)
            if found:
                break
        return index

    # -- events ------------------------------------------------------------

    def _match_start(self, event: MatchStart, line: int) -> None:
        match_id = bounded_id(event.match)  # a long id is held as its bounded key from here on
        first = self._seen.add(match_id, self._index_of(self.reporter.file), line)
        self.reporter.summary.matches += 1
        table = Table(match_id, None, line)
        if first is None and self.on_first_start is not None:
            self.on_first_start(table)
        previous = self.tables.get(match_id)
        if previous is not None:
            if previous.follow is not None:
                _readings.settle(self, previous, None)
            self._open_bytes -= previous.weight
            if self.observer is not None:
                self.observer.match_ended(previous, None, previous.last_line)  # replaced, never finished
        if first is not None:
            self._emit("F005", second_start(match_id, self._files[first[0]], first[1]), line, match_id,
                       None, None, table)
        self.tables[match_id] = table
        self._last = None
        if self._start_order:
            self._start_order.append(table)
        if len(self.tables) > self.max_open_matches:
            self._close_oldest()
        if event.seq is not None:
            self._check_seq(table, event.seq, line)
        faults, seats = check_players(bounded_names(event).players)  # long names as their bounded keys
        self._faults(faults, line, table, None)
        self._set_up(table, event, seats, line)
        if event.meta:  # its text values (a tournament, a table) are what an observer keeps of the match
            table.weight += sum(len(value) for value in event.meta.values() if isinstance(value, str))
        self._open_bytes += table.weight
        while self._open_bytes > self.max_open_bytes and len(self.tables) > 1:  # (never the match just started)
            self._close_oldest()
        if self.observer is not None:
            self.observer.match_started(table, event, line)

    def _set_up(self, table: Table, event: MatchStart, seats: list[str], line: int) -> None:
        """W402 and S101 for the rules, and the :class:`Match` to replay (none when the seats or deal rule it out)."""
        if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
            return
        hand, reserve = event.rules.given() if event.rules is not None else (None, None)
        key = (event.variant, len(seats), hand, reserve, event.target)
        known = self._rules.get(key)
        if known is None:
            known = house_rules(PROFILES[event.variant], len(seats), hand, reserve, event.target)
            if len(self._rules) < 64:  # the same few rules over and over: one GameRules for them all
                self._rules[key] = known
        faults, rules = known
        self._faults(faults, line, table, None)
        if rules is not None:
            table.set_up(seats, rules)
            table.weight += sum(len(name) for name in seats)

    def _round_start(self, event: RoundStart, line: int) -> None:
        event = bounded_names(event)
        table = self.tables.get(bounded_id(event.match))
        table = self._table(event, line, table.upcoming_round() if table is not None else None)
        if table is None or table.match is None:
            return
        if table.follow is not None:
            _readings.settle(self, table, None)
        match = table.match
        if not match.rounds_started:
            table.weight += DEALT_BYTES
            self._open_bytes += DEALT_BYTES
        number = table.round_number()
        if match.round_open:  # (the message is built only when needed)
            self._faults(self._close_open_round(table, f"round_start of round {event.round}", line), line, table,
                         None, _follows.round_follows(table, number or 0))
        else:
            table.round = None
        deal_faults, table.round = match.deal_round(event.round, event.opener, event.hands, event.stock)
        for fault in deal_faults:  # a wrong opener (S104) may follow a fault of the round before, which chose it
            self._emit(fault.code, fault.message, line, table.id, table.round_number(), None, table,
                       _follows.deal_follows(table, number or 0, fault.code))
        if self.observer is not None:
            self.observer.round_started(table, event, line)

    def _unmovable(self, table: Table, event: Draw | Play | Pass, line: int) -> None:
        """Report why a move cannot be replayed: outside a round, or by someone not playing."""
        if table.match is None:
            return
        if table.round is None:
            where = "after round_end" if table.match.rounds_started else "before round_start"
            self._emit("F004", f"{event.__struct_config__.tag} outside a round ({where})",
                       line, table.id, table.round_number(), event.player, table)
        else:
            self._emit("M201", f"{event.player} is not a player of this match", line, table.id,
                       table.round.number, event.player, table)

    def apply_move(self, table: Table, event: Any, line: int, kind: int, may_hold: bool) -> None:
        """Replay a held move of ``table``'s match as a reading of a fault does (``may_hold``: a move out of
        turn may be held for a reading of its own: it comes after those the reading explains)."""
        self._move(event, line, kind, table, may_hold)

    def _move(self, event: Any, line: int, kind: int, held: Table | None = None, may_hold: bool = False) -> None:
        """A draw, play or pass (``kind``): the engine checks it and carries out what is physically possible.

        ``held``: the match of a move held for a reading (:mod:`drawlog.check.readings`), replayed now.
        """
        fields: tuple[Any, ...] = _FIELDS(event)
        if len(fields[_PLAYER]) > MAX_ID:  # a long name is held as its bounded key (see drawlog.check.names)
            event = bounded_names(event)
            fields = _FIELDS(event)
        table = held
        if table is None:
            table = self._located(fields[_MATCH_ID], fields[_SEQ], event, line)
            if table is None:
                return
            follow = table.follow
            if follow is not None and follow.held is not None:  # a move out of turn waits for its round's end
                return _readings.hold(self, table, event, line, kind)
        state = table.round
        player: str = fields[_PLAYER]
        if state is None:
            return self._unmovable(table, event, line)
        seat = state.turn
        if state.names[seat] != player:  # a move out of turn, or by someone not playing
            found = table.seat_of.get(player)
            if found is None:
                return self._unmovable(table, event, line)
            if (held is None or may_hold) and state.reason is None \
                    and _readings.start_hold(table, state, event, line, kind):
                return  # read with the rest of its round
            seat = found
        observer = self.observer
        could_play = observer is not None and state.playable(seat) != 0
        if kind == _PLAYED:
            faults = state.try_play(seat, fields[_TILE], fields[_END])
            points: int | None = fields[_POINTS]
            if points is not None and not (faults and any(fault.impossible for fault in faults)):
                claim = state.check_points(points)
                if claim is not None:
                    faults = (*faults, claim)
        elif kind == _DREW:
            faults = state.try_draw(seat, fields[_TILE])
        else:
            faults = state.try_pass(seat)
        if faults:
            self._move_faults(table, state, seat, fields, kind, faults, line, player)
        elif table.follow is not None:  # back in step after a root, once every player moved cleanly
            _follows.clean_move(table.follow, state.number)
        if observer is not None:
            observer.moved(table, state, seat, event, line, could_play, faults)

    def _move_faults(self, table: Table, state: Round, seat: int, fields: tuple[Any, ...], kind: int,
                     faults: tuple[Fault, ...], line: int, player: str) -> None:
        """Report a move's faults: follow-ons of the round's root, or the root (a fault of the move itself)."""
        self._faults(faults, line, table, player, _follows.move_follows(table, state, faults, line))
        if kind == _PLAYED and fields[_POINTS] is not None:  # what the log claims that the replay does not give
            placed = not any(fault.impossible for fault in faults)
            _follows.note_claim(table, seat, fields[_POINTS] - (state.last_points if placed else 0))

    def _round_end(self, event: RoundEnd, line: int) -> None:
        event = bounded_names(event)
        table = self._table(event, line)
        if table is None or table.match is None:
            return
        if table.follow is not None:
            _readings.settle(self, table, event)
        if table.round is None:
            self._emit("F004", f"round_end of round {event.round} outside a round", line, table.id,
                       table.round_number(), None, table)
            return
        match, state = table.match, table.round
        if not state.is_over:
            _readings.read_round_end(self, table, state, event, line)
        faults = match.check_round_end(event.round, event.reason, event.winner, event.points, event.hands)
        if faults:
            follows = _follows.round_follows(table, state.number) or _follows.score_follows(table, state, event.reason)
            self._faults(faults, line, table, None, follows)
            if follows is None:
                _follows.taint(table, line)
            _follows.note_round_claims(table, state, event.points)
        if table.follow is not None:
            table.follow.lost = 0
        match.settle_round()
        table.round = None
        if self.observer is not None:
            self.observer.round_settled(table, state, event, line)

    def _match_end(self, event: MatchEnd, line: int) -> None:
        event = bounded_names(event)
        table = self._table(event, line)
        if table is None:
            return
        match = table.match
        if table.follow is not None:
            _readings.settle(self, table, None)
        if match is not None:
            forfeit = event.forfeit.player if event.forfeit is not None else None
            number = table.round_number() or 0
            closed = self._close_open_round(table, "match_end", line)
            if forfeit is None:  # a forfeit stops the match where it stands: its open round needs no round_end
                self._faults(closed, line, table, None, _follows.round_follows(table, number))
            for fault in match.check_match_end(event.scores, event.winner, forfeit):
                self._emit(fault.code, fault.message, line, table.id, table.round_number(), None, table,
                           _follows.end_follows(table, fault.code, event.scores, event.winner))
        del self.tables[table.id]
        self._open_bytes -= table.weight
        table.finished = True
        self._last = None
        summary = self.reporter.summary
        summary.complete_matches += 1
        if table.errors == 0:
            summary.valid_matches += 1
        if self.observer is not None:
            self.observer.match_ended(table, event, line)
