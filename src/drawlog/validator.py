"""Validation: stream log lines, decode events, replay each match, report violations.

:class:`Validator` reads sources line by line, keeps one :class:`Table` per match
open in the current file (matches may interleave), and hands every event to the
rules engine (:mod:`drawlog.match`, :mod:`drawlog.rounds`). Violations are
yielded as they are found, so output can stream and ``--fail-fast`` can stop.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import msgspec

from .errors import Fault, InputError
from .events import KNOWN_FIELDS, AnyEvent, Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from .match import Match, check_players
from .reader import MAX_LINE_BYTES, LongLine, Source, expand_paths, read_blocks
from .rounds import Round
from .rules import SEVERITY, WARNING
from .scoring import default_target
from .violations import Summary, Violation

_DECODER = msgspec.json.Decoder(AnyEvent)
_ANY_DECODER = msgspec.json.Decoder()
# Two JSON objects on one line: the only way a block's event count can match its line count by luck.
_TWO_ON_ONE_LINE = re.compile(rb"\}[ \t\r]*\{")
_BLOCK_LINES = 1024


class Table:
    """A match being replayed: the engine's state plus what the log format adds (seq, lines)."""

    __slots__ = ("id", "match", "seat_of", "round", "last_seq", "last_line", "errors")

    def __init__(self, match_id: str, match: Match | None, line: int) -> None:
        self.id = match_id
        self.match = match
        self.seat_of = match.seat_of if match is not None else {}
        self.round: Round | None = None
        self.last_seq = 0
        self.last_line = line
        self.errors = 0

    def round_number(self) -> int | None:
        """The round in play, or the last one started (None before any)."""
        if self.round is not None:
            return self.round.number
        if self.match is not None and self.match.rounds_started:
            return self.match.rounds_started
        return None


class Validator:
    """Replays logs and yields violations; ``summary`` holds the counts so far.

    ``codes`` limits what is reported (all codes by default); the replay itself
    always checks everything.
    """

    def __init__(self, codes: Iterable[str] | None = None) -> None:
        self.summary = Summary()
        self.codes = frozenset(codes) if codes is not None else frozenset(SEVERITY)
        self.on_match_end: Callable[[Table], None] | None = None
        self._seen: set[str] = set()
        self._found: list[Violation] = []
        self._file = ""
        self._tables: dict[str, Table] = {}
        self._handlers: dict[type, Callable[[Any, int], None]] = {
            MatchStart: self._match_start,
            RoundStart: self._round_start,
            Draw: self._draw,
            Play: self._play,
            Pass: self._pass,
            RoundEnd: self._round_end,
            MatchEnd: self._match_end,
        }

    # -- inputs ------------------------------------------------------------

    def validate_paths(self, paths: list[str]) -> Iterator[Violation]:
        """Validate files, folders (recursively) and ``-`` (standard input), in order."""
        for item in expand_paths(paths):
            if isinstance(item, InputError):
                self.summary.unreadable += 1
                self._file = item.path
                self._emit("F007", item.reason, item.line, None, None, None)
                yield from self._flush()
            else:
                yield from self.validate_source(item)

    def validate_source(self, source: Source) -> Iterator[Violation]:
        """Validate one file or standard input; an unreadable one is reported as F007."""
        try:
            blocks = read_blocks(source)
        except InputError as error:
            self.summary.unreadable += 1
            self._file = source.name
            self._emit("F007", error.reason, error.line, None, None, None)
            yield from self._flush()
            return
        yield from self._validate_blocks(blocks, source.name)

    def validate_lines(self, lines: Iterable[bytes | str], file: str = "<input>") -> Iterator[Violation]:
        """Validate the lines of one log held in memory (bytes or str, newline optional) named ``file``."""
        yield from self._validate_blocks(_as_blocks(lines), file)

    def validate_events(self, events: Iterable[AnyEvent], file: str = "<events>") -> Iterator[Violation]:
        """Replay events already decoded (a bot in the same process); the n-th event counts as line n."""
        self._file = file
        self._tables = {}
        self.summary.files += 1
        handlers = self._handlers
        number = 0
        try:
            for number, event in enumerate(events, 1):  # noqa: B007 - read in finally
                handlers[event.__class__](event, number)
                if self._found:
                    yield from self._flush()
        finally:
            self.summary.lines += number
            self.summary.events += number
        self._close_file()
        yield from self._flush()

    def _validate_blocks(self, blocks: Iterable[bytes | LongLine], file: str) -> Iterator[Violation]:
        """The replay loop: decode each block of lines in one call when it is clean, line by line if not."""
        self._file = file
        self._tables = {}
        summary = self.summary
        summary.files += 1
        skipped_before = summary.blank_lines + summary.invalid_lines
        decode_lines = _DECODER.decode_lines
        handlers = self._handlers
        found = self._found
        number = 0
        try:
            for block in blocks:
                if block.__class__ is LongLine:
                    number += 1
                    summary.invalid_lines += 1
                    self._emit("F001", f"line is {block.length:,} bytes long; the limit is "  # type: ignore[union-attr]
                                       f"{MAX_LINE_BYTES:,}", number, None, None, None)
                    yield from self._flush()
                    continue
                count = block.count(b"\n") + (not block.endswith(b"\n"))  # type: ignore[union-attr]
                events = None
                if _TWO_ON_ONE_LINE.search(block) is None:  # type: ignore[arg-type]
                    try:
                        events = decode_lines(block)
                    except (msgspec.ValidationError, msgspec.DecodeError):
                        pass
                if events is not None and len(events) == count:
                    for event in events:
                        number += 1
                        handlers[event.__class__](event, number)
                        if found:
                            yield from self._flush()
                    continue
                for raw in block.split(b"\n")[:count]:  # type: ignore[union-attr]
                    number += 1
                    event = self._decode_line(raw, number)
                    if event is not None:
                        handlers[event.__class__](event, number)
                    if found:
                        yield from self._flush()
        except InputError as error:
            self._emit("F007", f"{error.reason}; stopped after line {number}", number + 1, None, None, None)
        finally:
            summary.lines += number
            summary.events += number - (summary.blank_lines + summary.invalid_lines - skipped_before)
        self._close_file()
        yield from self._flush()

    def _decode_line(self, raw: bytes, number: int) -> AnyEvent | None:
        """Decode one line on the slow path: blank, too long, invalid JSON, or off the schema."""
        summary = self.summary
        if len(raw) > MAX_LINE_BYTES:
            summary.invalid_lines += 1
            self._emit("F001", f"line is {len(raw):,} bytes long; the limit is {MAX_LINE_BYTES:,}",
                       number, None, None, None)
            return None
        try:
            return _DECODER.decode(raw)
        except msgspec.ValidationError:
            return self._decode_slowly(raw, number)
        except msgspec.DecodeError as error:
            if not raw or raw.isspace():
                summary.blank_lines += 1
            else:
                summary.invalid_lines += 1
                self._emit("F001", f"not valid JSON: {error}", number, None, None, None)
            return None

    def _close_file(self) -> None:
        for table in self._tables.values():
            self._emit("F006", f"input ended inside match {table.id}: no match_end", table.last_line,
                       table.id, table.round_number(), None, table)
        self._tables = {}

    def _decode_slowly(self, raw: bytes, number: int) -> AnyEvent | None:
        """Decode a line the typed decoder refused: warn on unknown fields, report schema faults."""
        try:
            obj = _ANY_DECODER.decode(raw)
        except msgspec.DecodeError as error:
            self.summary.invalid_lines += 1
            self._emit("F001", f"not valid JSON: {error}", number, None, None, None)
            return None
        if not isinstance(obj, dict):
            self.summary.invalid_lines += 1
            self._emit("F002", f"expected a JSON object, got {_json_kind(obj)}", number, None, None, None)
            return None
        match_id = obj.get("match") if isinstance(obj.get("match"), str) else None
        kind = obj.get("type")
        known = KNOWN_FIELDS.get(kind) if isinstance(kind, str) else None
        table = self._tables.get(match_id) if match_id is not None else None
        number_in_play = table.round_number() if table is not None else None
        player = obj.get("player") if isinstance(obj.get("player"), str) else None
        problem = None
        if known is None:
            problem = "missing field `type`" if kind is None else f"unknown event type {kind!r}"
        else:
            for name in [name for name in obj if name not in known]:
                self._emit("W401", f"unknown field {name!r} in a {kind} event, ignored", number, match_id,
                           number_in_play, player)
                del obj[name]
            try:
                return msgspec.convert(obj, AnyEvent)
            except msgspec.ValidationError as error:
                problem = f"{kind} event does not fit the format: {error}"
        self.summary.invalid_lines += 1
        self._emit("F002", problem, number, match_id, number_in_play, player, table)
        if table is not None:
            table.last_line = number
            seq = obj.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                self._check_seq(table, seq, number)
        return None

    # -- reporting ---------------------------------------------------------

    def _emit(self, code: str, message: str, line: int | None, match: str | None,
              round_number: int | None, player: str | None, table: Table | None = None) -> None:
        severity = SEVERITY[code]
        if table is not None and severity != WARNING:
            table.errors += 1
        if code not in self.codes:
            return
        self._found.append(Violation(file=self._file, line=line, match=match, round=round_number,
                                     player=player, code=code, severity=severity, message=message))

    def _faults(self, faults: Iterable[Fault], line: int, table: Table, player: str | None) -> None:
        number = table.round_number()
        for fault in faults:
            self._emit(fault.code, fault.message, line, table.id, number, player, table)

    def _flush(self) -> Iterator[Violation]:
        """Yield what was found, counting each in the summary as it is handed out."""
        found = self._found
        if found:
            batch = found[:]
            found.clear()
            summary = self.summary
            for violation in batch:
                summary.violations += 1
                if violation.severity == WARNING:
                    summary.warnings += 1
                else:
                    summary.errors += 1
                yield violation

    # -- events ------------------------------------------------------------

    def _table(self, event: Any, line: int) -> Table | None:
        """The event's match, its seq checked and its last line noted (None: reported F004)."""
        table = self._tables.get(event.match)
        if table is None:
            return self._unknown_match(event, line)
        seq = event.seq
        if seq is not None and seq != table.last_seq + 1:
            self._check_seq(table, seq, line)
        elif seq is not None:
            table.last_seq = seq
        table.last_line = line
        return table

    def _unknown_match(self, event: Any, line: int) -> None:
        self._emit("F004", f"{event.__struct_config__.tag} event of match {event.match}, which has not "
                           f"started{' or has ended' if event.match in self._seen else ''}",
                   line, event.match, None, getattr(event, "player", None))

    def _check_seq(self, table: Table, seq: int, line: int) -> None:
        expected = table.last_seq + 1
        if seq != expected:
            what = "a gap" if seq > expected else ("a repeat" if seq == table.last_seq else "a step back")
            self._emit("F003", f"seq {seq} where {expected} is next ({what})", line, table.id,
                       table.round_number(), None, table)
        if seq > table.last_seq:
            table.last_seq = seq

    def _match_start(self, event: MatchStart, line: int) -> None:
        match_id = event.match
        first_time = match_id not in self._seen
        self._seen.add(match_id)
        self.summary.matches += 1
        table = Table(match_id, None, line)
        if not first_time:
            self._emit("F005", f"match {match_id} is started a second time", line, match_id, None, None, table)
        self._tables[match_id] = table
        if event.seq is not None:
            self._check_seq(table, event.seq, line)
        faults, seats = check_players(event.players)
        self._faults(faults, line, table, None)
        if event.variant != "draw":
            self._emit("W403", f"variant {event.variant!r} is not replayed: its events are read, not checked",
                       line, match_id, None, None, table)
            return
        if not 2 <= len(seats) <= 4:
            return
        standard = default_target(len(seats))
        if event.target is not None and event.target != standard:
            self._emit("W402", f"target {event.target}; the standard with {len(seats)} players is {standard}",
                       line, match_id, None, None, table)
        table.match = Match(seats, event.target)
        table.seat_of = table.match.seat_of

    def _round_start(self, event: RoundStart, line: int) -> None:
        table = self._table(event, line)
        if table is None or table.match is None:
            return
        match = table.match
        faults = match.close_open_round(f"round_start of round {event.round}")
        deal_faults, deal = match.check_deal(event.round, event.opener, event.hands, event.stock)
        table.round = match.start_round(deal)
        self._faults(faults + deal_faults, line, table, None)

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

    def _draw(self, event: Draw, line: int) -> None:
        table = self._table(event, line)
        if table is not None:
            state, seat = table.round, table.seat_of.get(event.player)
            if state is None or seat is None:
                return self._unmovable(table, event, line)
            faults = state.try_draw(seat, event.tile)
            if faults:
                self._faults(faults, line, table, event.player)

    def _play(self, event: Play, line: int) -> None:
        table = self._table(event, line)
        if table is not None:
            state, seat = table.round, table.seat_of.get(event.player)
            if state is None or seat is None:
                return self._unmovable(table, event, line)
            faults = state.try_play(seat, event.tile, event.end)
            if faults:
                self._faults(faults, line, table, event.player)

    def _pass(self, event: Pass, line: int) -> None:
        table = self._table(event, line)
        if table is not None:
            state, seat = table.round, table.seat_of.get(event.player)
            if state is None or seat is None:
                return self._unmovable(table, event, line)
            faults = state.try_pass(seat)
            if faults:
                self._faults(faults, line, table, event.player)

    def _round_end(self, event: RoundEnd, line: int) -> None:
        table = self._table(event, line)
        if table is None or table.match is None:
            return
        if table.round is None:
            self._emit("F004", f"round_end of round {event.round} outside a round", line, table.id,
                       table.round_number(), None, table)
            return
        match = table.match
        faults = match.check_round_end(event.round, event.reason, event.winner, event.points, event.hands)
        self._faults(faults, line, table, None)
        match.settle_round()
        table.round = None

    def _match_end(self, event: MatchEnd, line: int) -> None:
        table = self._table(event, line)
        if table is None:
            return
        match = table.match
        if match is not None:
            faults = match.close_open_round("match_end")
            table.round = None
            faults += match.check_match_end(event.scores, event.winner)
            self._faults(faults, line, table, None)
        del self._tables[table.id]
        self.summary.complete_matches += 1
        if table.errors == 0:
            self.summary.valid_matches += 1
        if self.on_match_end is not None:
            self.on_match_end(table)


def _as_blocks(lines: Iterable[bytes | str]) -> Iterator[bytes]:
    """Group in-memory lines into newline-terminated blocks, as :func:`read_blocks` gives them."""
    batch: list[bytes] = []
    for line in lines:
        data = line.encode() if isinstance(line, str) else line
        batch.append(data if data.endswith(b"\n") else data + b"\n")
        if len(batch) == _BLOCK_LINES:
            yield b"".join(batch)
            batch = []
    if batch:
        yield b"".join(batch)


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def validate_lines(lines: Iterable[bytes | str], file: str = "<input>") -> tuple[list[Violation], Summary]:
    """Validate the lines of one log in memory; returns every violation and the summary."""
    validator = Validator()
    found = list(validator.validate_lines(lines, file))
    return found, validator.summary


def validate_paths(paths: list[str]) -> tuple[list[Violation], Summary]:
    """Validate files and folders; returns every violation and the summary."""
    validator = Validator()
    found = list(validator.validate_paths(paths))
    return found, validator.summary
