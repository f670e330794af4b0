"""Replaying matches from their events: one :class:`Table` per open match.

:class:`Replay` turns each event into calls to the rules engine
(:mod:`drawlog.match`, :mod:`drawlog.rounds`) and reports what the engine finds,
plus what only the log format can get wrong: ``seq`` order (F003), events of
matches not started (F004), matches started twice (F005) or never ended (F006).
It knows nothing of files or JSON: :mod:`drawlog.validator` feeds it events.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, Final

from msgspec.structs import astuple
from mypy_extensions import mypyc_attr

from ..engine.match import MAX_PLAYERS, MIN_PLAYERS, check_players
from ..engine.profiles import PROFILES, GameRules, house_rules
from ..engine.rounds import Round
from ..errors import Fault
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from ..log.ids import MAX_ID, bounded_id
from . import follows as _follows
from . import readings as _readings
from .names import bounded_names
from .limits import MAX_OPEN_MATCHES
from .rules import SEVERITY, WARNING
from .seen import SeenIds
from .table import Table
from .violations import Reporter

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

#: The most memory the open matches may hold together (their ids, names and replayed state, as estimated by
#: :attr:`Table.weight`): past it the oldest are closed as past ``--max-open-matches``, however few are open.
MAX_OPEN_BYTES: Final = 32 << 20
#: What an open match's replayed state adds once it has dealt (measured: 1,000,000 matches that start and deal,
#: 50,000 of them open at a time; :data:`~drawlog.check.table.TABLE_BYTES` is what it weighs before).
DEALT_BYTES: Final = 1_600
#: How F004 ends for an event of a match id not open: started before (in any input read) or never.
ENDED: Final = "which has ended"
NOT_STARTED: Final = "which has not started"


def second_start(match_id: str, file: str, line: int) -> str:
    """F005's message: ``match_id`` is started again, first at ``file:line``."""
    return f"match {match_id} is started a second time (first at {file}:{line})"


@mypyc_attr(allow_interpreted_subclasses=True)
class Observer:
    """What a replay tells an observer as it goes (``drawlog.stats`` builds its tables from it).

    Subclass it and override the hooks wanted; here they do nothing. Each hook
    gets the match's :class:`Table` and the line of the event; ``claim`` is the
    log's ``round_end`` / ``match_end``, or ``None`` when the log left it out.
    """

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        """A match began (also a match that is not replayed: ``table.match`` is None)."""

    def round_started(self, table: Table, event: RoundStart, line: int) -> None:
        """A deal was replayed; ``table.round`` is the new round."""

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        """A move was replayed (applied unless a fault says it is impossible)."""

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        """A round's points were added to the match's scores."""

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        """A match ended, or the input ended inside it (``claim`` None)."""


class Replay:
    """Replays the events of the matches in one input, reporting violations to ``reporter``.

    :meth:`dispatch` replays one event, :meth:`feed` a decoded block of them;
    call :meth:`end_input` when the input ends, so unfinished matches are reported.
    ``observer``, when set, is told of every match, round and move as it is replayed.
    """

    def __init__(self, reporter: Reporter, observer: Observer | None = None,
                 max_per_match: int | None = None, max_open_matches: int = MAX_OPEN_MATCHES,
                 max_open_bytes: int = MAX_OPEN_BYTES) -> None:
        self.reporter = reporter
        self.observer = observer
        #: Report at most this many violations of one match; the rest are counted in ``summary.suppressed``.
        self.max_per_match = max_per_match
        #: Keep at most this many matches open: past it the oldest is closed (F006, ``summary.closed_early``).
        self.max_open_matches = max_open_matches
        #: Keep the open matches' weight under this many bytes: past it the oldest are closed (F006) too.
        self.max_open_bytes = max_open_bytes
        self.tables: dict[str, Table] = {}
        #: The weight of the open tables together.
        self._open_bytes = 0
        #: Open tables, oldest first, for :meth:`_close_oldest` (may hold tables since ended; rebuilt as needed).
        self._start_order: deque[Table] = deque()
        #: The rules of the match_starts seen, by variant, players, hand, reserve and target (few distinct ones).
        self._rules: dict[tuple[str, int, int | None, int | None, int | None],
                          tuple[list[Fault], GameRules | None]] = {}
        #: Where each match id was first started: an index into ``_files`` and a line (exact, compact).
        self._seen = SeenIds()
        self._files: list[str] = []
        self._file_index: dict[str, int] = {}
        #: Called with the :class:`Table` of each match id started for the first time in this replay, before
        #: anything is reported of it (runs in parts: see :mod:`drawlog.check.parts`).
        self.on_first_start: Callable[[Table], None] | None = None
        #: The table of the last event, tried first (None whenever ``tables`` loses or replaces a table).
        self._last: Table | None = None
        #: For a replay fed some of an input's matches only (``drawlog replay`` follows one): the ids of the matches
        #: open before a line in a replay of the whole input (see :mod:`drawlog.check.opened`); None: ``tables``.
        self.open_in_input: Callable[[int], Collection[str]] | None = None

    def started_before(self, starts: dict[str, tuple[str, int]]) -> None:
        """Take match ids as started by inputs another replay read first: ``{match id: (file, line)}``.

        An id started again here is then F005 naming that first start, and an
        event of one not open says it has ended, as if this replay had read them.
        """
        seen = self._seen
        for match_id, (file, line) in starts.items():
            seen.add(bounded_id(match_id), self._index_of(file), line)

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

    def end_input(self) -> None:
        """F006 for every match still open; the next input starts with none."""
        for _ in self.ending_input():
            pass

    def ending_input(self) -> Iterator[None]:
        """:meth:`end_input` one match at a time: yields after each F006, for the caller to flush the reporter.

        So the violations of many open matches are never all held at once.
        """
        for table in self.tables.values():
            self._unfinished(table, f"input ended inside match {table.id}: no match_end", "the end of the input")
            yield None
        self.tables = {}
        self._open_bytes = 0
        self._last = None
        self._start_order.clear()

    def _unfinished(self, table: Table, message: str, what: str) -> None:
        """F006 for a match closed without match_end; its open round is settled as it stands (F006 says why)."""
        if table.follow is not None:
            _readings.settle(self, table, None)
        self._emit("F006", message, table.last_line, table.id, table.round_number(), None, table)
        if table._match is not None:  # (a match not built has no round open)
            self._close_open_round(table, what, table.last_line)
        if self.observer is not None:
            self.observer.match_ended(table, None, table.last_line)

    def _close_oldest(self) -> None:
        """Past ``max_open_matches``: the match open longest is closed with F006, as if its input ended.

        The tables in start order are looked at from a queue (a dict's first key
        is slow to find once many before it are gone); tables ended meanwhile
        are passed over, and the queue is rebuilt from the open tables when
        mostly stale, so it stays linear in time and in memory.
        """
        queue, tables = self._start_order, self.tables
        if not queue or len(queue) > 2 * len(tables):
            queue.clear()
            queue.extend(tables.values())
        table = queue.popleft()
        while tables.get(table.id) is not table:
            table = queue.popleft()
        del tables[table.id]
        self._open_bytes -= table.weight
        self._last = None
        self.reporter.summary.closed_early += 1
        why = f"more than {self.max_open_matches:,} matches open at once" if len(tables) >= self.max_open_matches \
            else f"the matches open at once hold more than {self.max_open_bytes >> 20:,} MB"
        self._unfinished(table, f"match {table.id} closed: {why} (--max-open-matches)", "too many open matches")

    def invalid_line(self, match_id: str | None, seq: object, line: int, round_number: int | None = None) -> None:
        """Note a line of ``match_id`` that could not be read as an event: its last line, its seq."""
        table = self.tables.get(bounded_id(match_id)) if match_id is not None else None
        if table is not None:
            if table.follow is not None:
                _readings.settle(self, table, None)
            table.last_line = line
            if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1:  # else the line's F002 says it
                self._check_seq(table, seq, line, round_number)

    def lost_line(self, match_id: str | None, line: int) -> None:
        """A line that could not be read (F001, F002) seems to be a move of ``match_id`` (None: of the one match
        open, if only one is: :meth:`only_open`): see :func:`~drawlog.check.readings.lost_line`."""
        table = self.tables.get(bounded_id(match_id)) if match_id is not None else self.only_open(line)
        if table is not None:
            _readings.lost_line(self, table, line)

    def only_open(self, line: int) -> Table | None:
        """The match a line naming none (``line``) is a move of: the one match open then, if only one is.

        Open in the whole input (:attr:`open_in_input`), when this replay follows only some of its matches.
        """
        if not self.tables:
            return None
        open_ids: Collection[str] = self.tables if self.open_in_input is None else self.open_in_input(line)
        if len(open_ids) != 1:
            return None
        return self.tables.get(next(iter(open_ids)))

    def report_root(self, table: Table, code: str, message: str, line: int, player: str | None,
                    follows: int = 0) -> None:
        """Report a reading of a fault (the round's root, or a follow-on of ``follows``) and make it the root."""
        number = table.round_number()
        if not follows and table.round is not None:
            follows = _follows.current_root(table, table.round) or 0
        self._emit(code, message, line, table.id, number, player, table, follows or None)
        _follows.taint(table, follows or line, not follows)

    def _emit(self, code: str, message: str, line: int | None, match: str | None,
              round_number: int | None, player: str | None, table: Table | None = None,
              follows: int | None = None) -> None:
        reporter = self.reporter
        if table is not None and SEVERITY[code] != WARNING:
            table.errors += 1
        if not reporter.admit(code, line):
            return
        if table is not None:
            cap = self.max_per_match
            if cap is not None:
                table.reported += 1
                if table.reported > cap:
                    reporter.summary.suppressed += 1
                    if SEVERITY[code] != WARNING:
                        reporter.summary.suppressed_errors += 1
                    return
        reporter.record(code, message, line, match, round_number, player, follows)

    def _faults(self, faults: Iterable[Fault], line: int, table: Table, player: str | None,
                follows: int | None = None) -> None:
        number = table.round_number()
        for fault in faults:
            self._emit(fault.code, fault.message, line, table.id, number, player, table, follows)


    # -- events ------------------------------------------------------------

    def _table(self, event: Any, line: int, round_number: int | None = None) -> Table | None:
        """The event's match, its seq checked and its last line noted (None: reported F004).

        ``round_number``: the round the event is about, when not the one in play (a round_start).
        """
        return self._located(event.match, event.seq, event, line, round_number)

    def _located(self, match_id: str, seq: int | None, event: Any, line: int,
                 round_number: int | None = None) -> Table | None:
        """:meth:`_table` given the event's match id and seq (a long id is looked up as its bounded key)."""
        if len(match_id) > MAX_ID:
            match_id = bounded_id(match_id)
        table = self._last
        if table is None or table.id != match_id:
            table = self.tables.get(match_id)
            if table is None:
                self._unknown_match(event, line)
                return None
            self._last = table
        if seq is not None:
            if seq == table.last_seq + 1 and seq > table.top_seq:
                table.last_seq = table.top_seq = seq
            else:
                self._check_seq(table, seq, line, round_number)
        table.last_line = line
        return table

    def _index_of(self, file: str) -> int:
        """The index of ``file`` in ``_files``, added when new."""
        index = self._file_index.get(file)
        if index is None:
            index = self._file_index[file] = len(self._files)
            self._files.append(file)
        return index

    def _unknown_match(self, event: Any, line: int) -> None:
        match_id = bounded_id(event.match)
        self._emit("F004", f"{event.__struct_config__.tag} event of match {match_id}, "
                           f"{ENDED if match_id in self._seen else NOT_STARTED}",
                   line, match_id, None, getattr(event, "player", None))

    def _check_seq(self, table: Table, seq: int, line: int, round_number: int | None = None) -> None:
        """F003 unless ``seq`` follows the last seq or the highest.

        So one wrong number is reported once or twice, never on every later event.
        """
        expected = table.last_seq + 1
        if seq != expected and seq != table.top_seq + 1:
            what = "a gap" if seq > expected else ("a repeat" if seq == table.last_seq else "a step back")
            self._emit("F003", f"seq {seq} where {expected} is next ({what})", line, table.id,
                       round_number if round_number is not None else table.round_number(), None, table)
        table.last_seq = seq
        if seq > table.top_seq:
            table.top_seq = seq

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

    def _close_open_round(self, table: Table, what: str, line: int) -> list[Fault]:
        """R307 for a round left without round_end; the observer hears it settled without a claim."""
        state = table.round
        faults = table.match.close_open_round(what)  # type: ignore[union-attr]
        table.round = None
        if faults and self.observer is not None and state is not None:
            self.observer.round_settled(table, state, None, line)
        return faults

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
