"""A replay's bookkeeping: its open matches, and reporting violations of them.

:class:`ReplayBookkeeping` is the base of :class:`~drawlog.check.replay.Replay`
(which has the event handlers): it keeps one :class:`Table` per open match, finds
an event's table and checks its ``seq`` (F003), reports events of matches not
open (F004) and matches never ended (F006: at the end of the input, or the oldest
closed past ``--max-open-matches``), notes lines that could not be read, and
emits violations to the :class:`~drawlog.check.violations.Reporter` (capped per
match). Both classes are compiled together: the handlers call these methods directly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any, Final

from ..engine.profiles import GameRules
from ..errors import Fault
from ..log.ids import MAX_ID, bounded_id
from . import follows as _follows
from . import readings as _readings
from .limits import MAX_OPEN_MATCHES
from .observer import Observer
from .rules import SEVERITY, WARNING
from .seen import SeenIds
from .table import Table
from .violations import Reporter

#: The most memory the open matches may hold together (their ids, names and replayed state, as estimated by
#: :attr:`Table.weight`): past it the oldest are closed as past ``--max-open-matches``, however few are open.
MAX_OPEN_BYTES: Final = 32 << 20
#: How F004 ends for an event of a match id not open: started before (in any input read) or never.
ENDED: Final = "which has ended"
NOT_STARTED: Final = "which has not started"


class ReplayBookkeeping:
    """The open matches of a replay and what is reported of them (see the module); the subclass
    :class:`~drawlog.check.replay.Replay` replays the events.

    ``reporter`` gets the violations; ``observer``, when set, is told of every match, round and move as it is
    replayed (here: of a match or round closed unfinished).
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

    def apply_move(self, table: Table, event: Any, line: int, kind: int, may_hold: bool) -> None:
        """Replay a held move of ``table``'s match as a reading of a fault does (the subclass does)."""
        raise NotImplementedError

    # -- the open matches --------------------------------------------------------

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

    def _close_open_round(self, table: Table, what: str, line: int) -> list[Fault]:
        """R307 for a round left without round_end; the observer hears it settled without a claim."""
        state = table.round
        faults = table.match.close_open_round(what)  # type: ignore[union-attr]
        table.round = None
        if faults and self.observer is not None and state is not None:
            self.observer.round_settled(table, state, None, line)
        return faults
