"""Validation: read logs, decode their lines, replay every match, report violations.

:class:`Validator` streams each source in blocks of lines, decodes a clean
block in one call (:mod:`.blocks`; line by line when it holds a bad line), reports what the
log format gets wrong (F001, F002, W401, W404, F007), and hands every event to a
:class:`~drawlog.replay.Replay`. Violations are yielded as they are found, so
output can stream and ``--fail-fast`` can stop.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

import msgspec

from ..errors import InputError
from ..log.events import KNOWN_FIELDS, MAX_NESTING, AnyEvent, timestamp
from ..log.ids import bounded_id
from ..log.reader import (
    MAX_LINE_BYTES,
    LongLine,
    Source,
    blocks_of,
    expand_paths,
    printable,
    read_blocks,
    too_deep,
)
from .blocks import BLANK_RUN, as_blocks, blank_runs, decoded_block, split_text
from .hints import json_kind, not_json_hint, shortened
from .limits import MAX_OPEN_MATCHES
from .readings import match_of_line
from .replay import Replay
from .rules import SEVERITY
from .table import Table
from .violations import MAX_PER_LINE, MAX_PER_MATCH, Reporter, Summary, Violation

_DECODER = msgspec.json.Decoder(AnyEvent)
_ANY_DECODER = msgspec.json.Decoder()
# Two JSON objects on one line: the only way a block's event count can match its line count by luck.
#: The event types of a move: a line of one that cannot be read is a move lost (see ``Replay.lost_line``).
MOVE_TYPES = frozenset(("draw", "play", "pass"))
_TOO_DEEP = f"event does not fit the format: nested too deeply (over {MAX_NESTING} levels of arrays and objects)"


class Validator:
    """Replays logs and yields violations; ``summary`` holds the counts so far.

    ``codes`` limits what is reported (all codes by default), and
    ``ignored_in(file)`` the codes left out for one file (``per-file-ignores``);
    the replay itself always checks everything. At most ``max_per_line``
    violations of one line and ``max_per_match`` of one match (None: no limit)
    are reported; the rest are counted in the summary (``suppressed_per_line``,
    ``suppressed``), never held. ``replay.observer``, when set, hears of every
    match, round and move (see :class:`~drawlog.check.observer.Observer`).
    """

    def __init__(self, codes: Iterable[str] | None = None, max_per_match: int | None = MAX_PER_MATCH,
                 max_open_matches: int = MAX_OPEN_MATCHES, max_per_line: int = MAX_PER_LINE,
                 ignored_in: Callable[[str], frozenset[str]] | None = None) -> None:
        self.summary = Summary()
        self.codes = frozenset(codes) if codes is not None else frozenset(SEVERITY)
        self.reporter = Reporter(self.summary, self.codes, max_per_line)
        self.replay = Replay(self.reporter, max_per_match=max_per_match, max_open_matches=max_open_matches)
        #: The codes not reported for a file (``per-file-ignores``), by its name as violations give it.
        self.ignored_in = ignored_in
        #: Called with the byte size of each block of lines read (for progress bars).
        self.on_block: Callable[[int], None] | None = None
        #: Whether the input being read has had its F001 hint (:func:`~drawlog.check.hints.not_json_hint`): one an input.
        self._hinted = False

    # -- inputs ------------------------------------------------------------

    def validate_paths(self, paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Iterator[Violation]:
        """Validate files, folders (recursively) and ``-`` (standard input), in order; one path or several."""
        yield from self.validate_inputs(expand_paths(as_path_list(paths)))

    def validate_inputs(self, inputs: Iterable[Source | InputError]) -> Iterator[Violation]:
        """Validate the inputs :func:`~drawlog.log.reader.expand_paths` found; an error among them is an F007."""
        for item in inputs:
            if isinstance(item, InputError):
                yield from self._unreadable(item)
            else:
                yield from self.validate_source(item)

    def validate_source(self, source: Source) -> Iterator[Violation]:
        """Validate one file or standard input; an unreadable one is reported as F007."""
        try:
            blocks = read_blocks(source, self._inflated)
        except InputError as error:
            yield from self._unreadable(error)
            return
        yield from self._validate_blocks(blocks, source.name)

    def validate_chunks(self, chunks: Iterable[bytes], file: str) -> Iterator[Violation]:
        """Validate one input whose data comes in ``chunks`` while it is written (``drawlog validate --follow``).

        The same validation as :meth:`validate_source`: each chunk's complete
        lines are replayed, and their violations yielded, before the next chunk
        is asked for; a line not ended yet waits for its newline. When the
        chunks end, the input does (``F006`` for the matches still open).
        """
        try:
            blocks = blocks_of(file, iter(chunks))
        except InputError as error:
            yield from self._unreadable(error)
            return
        yield from self._validate_blocks(blocks, file)

    def validate_lines(self, lines: Iterable[bytes | str] | str | bytes, file: str = "<input>") -> Iterator[Violation]:
        """Validate the lines of one log held in memory (bytes or str, newline optional) named ``file``.

        A whole log given as one ``str`` or ``bytes`` is split into its lines (at ``\\n``).
        """
        if isinstance(lines, (str, bytes, bytearray, memoryview)):
            lines = split_text(lines)
        yield from self._validate_blocks(as_blocks(lines), file)

    def validate_events(self, events: Iterable[AnyEvent], file: str = "<events>") -> Iterator[Violation]:
        """Replay events already decoded (a bot in the same process); the n-th event counts as line n."""
        self.start_input(file)
        dispatch, reporter = self.replay.dispatch, self.reporter
        number = 0
        try:
            for number, event in enumerate(events, 1):  # noqa: B007 - read in finally
                dispatch(event, number)
                if reporter.found:
                    yield from reporter.flush()
        finally:
            self.summary.lines += number
            self.summary.events += number
        for _ in self.replay.ending_input():
            yield from reporter.flush()
        yield from reporter.flush()

    def start_input(self, file: str) -> None:
        """Begin an input named ``file`` (for a caller that feeds :meth:`decode_line` and the replay itself)."""
        self._name_input(file)
        self.summary.files += 1
        self._hinted = False

    def _name_input(self, file: str) -> None:
        """Violations from now on are of the input ``file``, with its own per-file ignores."""
        name = self.reporter.file = printable(file)
        if self.ignored_in is not None:
            self.reporter.codes = self.codes - self.ignored_in(name)

    def _inflated(self, ratio: int) -> None:
        """The input being read inflated ``ratio`` times: said once, in the summary."""
        self.summary.decompression.append(f"{self.reporter.file} decompresses {ratio:,}×")

    def _unreadable(self, error: InputError) -> Iterator[Violation]:
        self.summary.unreadable += 1
        self._name_input(error.path)
        self.reporter.emit("F007", error.reason, error.line)
        yield from self.reporter.flush()

    def _validate_blocks(self, blocks: Iterable[bytes | LongLine], file: str) -> Iterator[Violation]:
        """The main loop: decode each block of lines in one call when it is clean, line by line if not."""
        self.start_input(file)
        summary, reporter = self.summary, self.reporter
        skipped_before = summary.blank_lines + summary.invalid_lines
        replay = self.replay
        found = reporter.found
        number = 0
        try:
            for block in blocks:
                if isinstance(block, LongLine):
                    number += 1
                    self._too_long(block.length, number)
                    yield from reporter.flush()
                    continue
                if self.on_block is not None:
                    self.on_block(len(block))
                if block.isspace():  # blank lines only: counted at once
                    blank = block.count(b"\n") + (not block.endswith(b"\n"))
                    number += blank
                    summary.blank_lines += blank
                    continue
                events = None  # the last block's events freed first: decoding reuses their memory while hot
                events = decoded_block(block)
                parts: list[bytes | int] = [block]
                if events is None and BLANK_RUN.search(block) is not None:
                    parts = blank_runs(block)  # runs of blank lines counted at once, the rest decoded
                for part in parts:
                    if isinstance(part, int):
                        number += part
                        summary.blank_lines += part
                        continue
                    if part is not block:
                        events = decoded_block(part)
                    if events is not None:
                        index, count = 0, len(events)
                        while index < count:
                            replayed = replay.feed(events, index, number)
                            number += replayed - index
                            index = replayed
                            if found:
                                yield from reporter.flush()
                        continue
                    for raw in part.split(b"\n")[:part.count(b"\n") + (not part.endswith(b"\n"))]:
                        number += 1
                        decoded = self.decode_line(raw, number)
                        if decoded is not None:
                            replay.dispatch(decoded, number)
                        if found:
                            yield from reporter.flush()
        except InputError as error:
            reporter.emit("F007", f"{error.reason}; stopped after line {number}", number + 1)
        else:
            if number == 0:
                reporter.emit("W404", "empty: no lines to read", None)
        finally:
            summary.lines += number
            summary.events += number - (summary.blank_lines + summary.invalid_lines - skipped_before)
        for _ in self.replay.ending_input():
            yield from reporter.flush()
        yield from reporter.flush()

    # -- decoding a line the fast path refused -------------------------------

    def _invalid(self, code: str, message: str, number: int, match: str | None = None,
                 round_number: int | None = None, player: str | None = None) -> None:
        self.summary.invalid_lines += 1
        self.reporter.emit(code, message, number, match, round_number, player)

    def _too_long(self, length: int, number: int) -> None:
        self._invalid("F001", f"line is {length:,} bytes long; the limit is {MAX_LINE_BYTES:,}", number)

    def decode_line(self, raw: bytes, number: int) -> AnyEvent | None:
        """One line: blank, too long, invalid JSON, off the schema (each reported), or the event."""
        if len(raw) > MAX_LINE_BYTES:
            self._too_long(len(raw), number)
            return None
        if too_deep(raw):
            self._invalid("F002", _TOO_DEEP, number)
            return None
        try:
            return _DECODER.decode(raw)
        except msgspec.ValidationError:
            return self._decode_loosely(raw, number)
        except RecursionError:  # not reached unless the stack is nearly as deep as the recursion limit
            self._invalid("F002", _TOO_DEEP, number)
            return None
        except msgspec.DecodeError as error:
            if not raw or raw.isspace():
                self.summary.blank_lines += 1
            else:
                self._not_json(raw, error, number)
                self.replay.lost_line(match_of_line(raw), number)
            return None

    def _not_json(self, raw: bytes, error: Exception, number: int) -> None:
        """F001 for a line that is not JSON; the input's first one that looks pretty-printed says so."""
        message = f"not valid JSON: {error}"
        if not self._hinted:
            hint = not_json_hint(raw)
            if hint:
                self._hinted = True
                message += hint
        self._invalid("F001", message, number)

    def _decode_loosely(self, raw: bytes, number: int) -> AnyEvent | None:
        """Decode a line the typed decoder refused: warn on unknown fields (W401), report schema faults (F002)."""
        try:
            obj = _ANY_DECODER.decode(raw)
        except msgspec.DecodeError as error:
            self._not_json(raw, error, number)
            self.replay.lost_line(match_of_line(raw), number)
            return None
        except RecursionError:
            self._invalid("F002", _TOO_DEEP, number)
            return None
        if not isinstance(obj, dict):
            if isinstance(obj, list) and obj and all(isinstance(item, dict) for item in obj):
                self._invalid("F002", "expected a JSON object, got an array of objects: a log needs one "
                                      "object per line, not a JSON array", number)
                return None
            self._invalid("F002", f"expected a JSON object, got {json_kind(obj)}", number)
            return None
        match_id = bounded_id(obj["match"]) if isinstance(obj.get("match"), str) else None
        player = bounded_id(obj["player"]) if isinstance(obj.get("player"), str) else None
        table = self.replay.tables.get(match_id) if match_id is not None else None
        kind = obj.get("type")
        round_number = None
        if table is not None:  # a round_start line is about the round it starts
            round_number = table.upcoming_round() if kind == "round_start" else table.round_number()
        known = KNOWN_FIELDS.get(kind) if isinstance(kind, str) else None
        if known is None:
            problem = "missing field `type`" if kind is None else f"unknown event type {kind!r}"
        else:
            for name in [name for name in obj if name not in known]:
                self.reporter.emit("W401", f"unknown field {name!r} in a {kind} event, ignored", number,
                                   match_id, round_number, player)
                del obj[name]
            stamp = obj.get("ts")
            if isinstance(stamp, str):  # (another type is F002 below)
                read = timestamp(stamp)
                if read is None:
                    self.reporter.emit("W405", f"ts {shortened(stamp)} is not an RFC 3339 timestamp "
                                               f"(like 2024-05-01T12:00:00Z), ignored", number,
                                       match_id, round_number, player)
                    del obj["ts"]
                else:
                    obj["ts"] = read
            try:
                return msgspec.convert(obj, AnyEvent)
            except msgspec.ValidationError as error:
                problem = f"{kind} event does not fit the format: {error}"
        if table is not None:
            table.errors += 1
        self._invalid("F002", problem, number, match_id, round_number, player)
        self.replay.invalid_line(match_id, obj.get("seq"), number, round_number)
        if match_id is not None and (known is None or kind in MOVE_TYPES):  # a move lost: read the next with it
            self.replay.lost_line(match_id, number)
        return None


def as_path_list(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """One path or several (``str`` or :class:`~pathlib.Path`) as a list of strings."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    if isinstance(paths, (bytes, bytearray)):
        raise TypeError("give paths as str or pathlib.Path, not bytes")
    return [os.fspath(path) for path in paths]


def validate_lines(lines: Iterable[bytes | str] | str | bytes,
                   file: str = "<input>") -> tuple[list[Violation], Summary]:
    """Validate the lines of one log in memory; returns every violation and the summary.

    ``lines`` is a list (or any iterable) of lines, or the whole log as one ``str``
    or ``bytes``, which is split into lines.
    """
    validator = Validator()
    found = list(validator.validate_lines(lines, file))
    return found, validator.summary


def validate_paths(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
                   ) -> tuple[list[Violation], Summary]:
    """Validate files and folders (one path or several, ``str`` or :class:`~pathlib.Path`); every violation, the summary."""
    validator = Validator()
    found = list(validator.validate_paths(paths))
    return found, validator.summary


__all__ = ["Table", "Validator", "validate_lines", "validate_paths"]
