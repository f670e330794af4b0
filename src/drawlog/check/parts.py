"""Runs in parts: consecutive inputs replayed on their own, joined in input order as one run reads them.

A *part* is a run of consecutive inputs that one process (a local worker, or
later a cluster's) replays with its own :class:`Validator`. Within a part the
replay is the whole run's; across parts only one thing is shared, the match
ids already started (``Replay._seen``), and it shows in a few places only:

- a match id started in an earlier part is F005 at its first start here
  (naming that first start), and its match counts one error more (not valid);
- an F005 of a later start here names the first start of all, not this part's;
- an event of a match id that is not open says ``which has ended`` (not
  ``which has not started``) when an earlier part started that id.

So a part reports every match id it starts first, with where an F005 would
go among its violations (:class:`Start`), and :class:`CrossFile`, in the
parent, joins the parts in input order and says what to change
(:class:`PartFix`): exactly what one process reports, counts and writes.
Where an F005 would push another violation past ``--max-per-match`` or
``--max-per-line`` (:attr:`Start.crowded`), the part is replayed again
knowing the earlier ids (``Part.seen``), which is exact by construction.

The contract of a part function (:func:`validate_part`, and
:func:`drawlog.tables.parallel.stats_part` for the tables): a top-level,
picklable function of one :class:`Part`, returning a :class:`PartResult`;
it writes its bulk (violations, tables) to ``Part.folder`` and returns only
counts and match ids.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from ..errors import InputError
from ..log.reader import Source, printable
from .bookkeeping import ENDED, NOT_STARTED
from .limits import MAX_OPEN_MATCHES
from .pool import ProgressSender
from .replay import second_start
from .rules import SEVERITY, WARNING
from .table import Table
from .validator import Validator
from .violations import MAX_PER_LINE, MAX_PER_MATCH, Summary, Violation

#: The violations of a validate part, in ``Part.folder``: msgpack frames of up to ``_BATCH`` violations.
VIOLATIONS_FILE = "violations.msgpack"
_BATCH = 4096
_NOT_STARTED = f", {NOT_STARTED}"
_ENDED = f", {ENDED}"


@dataclass(frozen=True)
class PartOptions:
    """How every part validates: what the run's :class:`Validator` was made with."""

    codes: frozenset[str]
    max_per_match: int | None = MAX_PER_MATCH
    max_per_line: int = MAX_PER_LINE
    max_open_matches: int = MAX_OPEN_MATCHES
    #: ``per-file-ignores``: the codes not reported for a file (picklable: a bound method of the settings).
    ignored_in: Callable[[str], frozenset[str]] | None = None

    @classmethod
    def of(cls, validator: Validator) -> PartOptions:
        """The options ``validator`` was made with."""
        return cls(validator.codes, validator.replay.max_per_match, validator.reporter.max_per_line,
                   validator.replay.max_open_matches, validator.ignored_in)

    def validator(self) -> Validator:
        """A fresh validator with these options."""
        return Validator(self.codes, self.max_per_match, self.max_open_matches, self.max_per_line, self.ignored_in)


@dataclass
class Part:
    """One part to replay: the inputs ``indices`` (among all the run's) are ``inputs``; bulk goes to ``folder``."""

    indices: list[int]
    inputs: list[Source | InputError]
    folder: str
    options: PartOptions
    #: Match ids started by earlier parts, ``{id: (file, line)}``: set when a part is replayed again.
    seen: dict[str, tuple[str, int]] | None = None


class Start(msgspec.Struct, array_like=True):
    """A match id started for the first time in a part, and what an F005 there would meet."""

    match: str
    file: str
    line: int
    #: Where an F005 would go among the part's violations (its index, counting every one reported before).
    position: int
    #: Whether an F005 would be reported there (its code is selected for the file).
    reported: bool
    #: Whether the match ended with match_end and no error, so it is counted valid (an F005 would undo it).
    counted_valid: bool
    #: Whether an F005 would push another violation past a cap (per match or per line), or split a line's run.
    crowded: bool


@dataclass
class PartResult:
    """What a part function returns: counts and match ids, never the bulk (that is in ``Part.folder``)."""

    summary: Summary
    starts: list[Start]
    #: ``(name, violations)`` of each input, in order (validate parts).
    files: list[tuple[str, int]] = field(default_factory=list)
    #: Rows of each table written (table parts).
    rows: dict[str, int] = field(default_factory=dict)
    #: ``(violation row, match id, matches rows before)`` of violations whose match's keys were not known (table parts).
    misses: list[tuple[int, str, int]] = field(default_factory=list)


class StartNotes:
    """Notes, in a part's worker, each match id's first start (``Replay.on_first_start``) and its neighbours.

    Call :meth:`saw` with every violation handed out, in order: it follows the
    run of violations of the start's line (``--max-per-line`` counts a run of
    one line) to tell whether an F005 there would crowd it.
    """

    def __init__(self, validator: Validator) -> None:
        self.validator = validator
        self._open: list[list[object]] = []
        self._notes: list[tuple[Table, list[object]]] = []
        self._count = 0
        self._last: tuple[str, int | None] | None = None
        validator.replay.on_first_start = self._started

    def _started(self, table: Table) -> None:
        reporter = self.validator.reporter
        first = self.validator.summary.violations  # the first violation not yet handed out
        position = first + len(reporter.found)  # after the ones of its line's decoding (W401), before the rest
        file = reporter.file
        before = self._last[1] if self._last is not None and self._last[0] == file else None
        # [file, line, first, position, run, open, before, split]
        note: list[object] = [file, table.last_line, first, position, 0, True, before, False]
        self._notes.append((table, note))
        self._open.append(note)

    def saw(self, violation: Violation) -> None:
        """``violation`` was handed out (the next in the part's order)."""
        index = self._count
        self._count += 1
        self._last = (violation.file, violation.line)
        if not self._open:
            return
        for note in self._open:
            file, line, first, position, _, running, before, _ = note
            if index < first:  # type: ignore[operator]
                continue
            if running:
                if violation.file == file and violation.line == line:
                    note[4] += 1  # type: ignore[operator]
                else:
                    note[5] = False
            if index == position == first and before is not None and violation.file == file \
                    and violation.line == before and violation.line != line:
                note[7] = True  # the F005 would sit inside another line's run
        self._open = [note for note in self._open if note[5] or self._count <= note[3]]  # type: ignore[operator]

    def starts(self) -> list[Start]:
        """The first starts noted, once the part is read."""
        options = self.validator
        cap, per_line = options.replay.max_per_match, options.reporter.max_per_line
        found = []
        for table, (file, line, _, position, run, _, _, split) in self._notes:
            reported = "F005" in self._codes(file)  # type: ignore[arg-type]
            crowded = reported and (bool(split) or run + 2 >= per_line  # type: ignore[operator]
                                    or (cap is not None and table.reported >= cap))
            found.append(Start(table.id, file, line, position, reported,  # type: ignore[arg-type]
                               table.finished and table.errors == 0, crowded))
        return found

    def _codes(self, file: str) -> frozenset[str]:
        validator = self.validator
        return validator.codes - validator.ignored_in(file) if validator.ignored_in is not None else validator.codes


def replay_inputs(part: Part, validator: Validator) -> Iterator[tuple[int, Iterator[Violation]]]:
    """Each input of ``part`` with its violations, as ``validator`` finds them (seeded with ``part.seen``)."""
    if part.seen:
        validator.replay.started_before(part.seen)
    for index, item in zip(part.indices, part.inputs):
        yield index, validator.validate_inputs([item])


def validate_part(part: Part) -> PartResult:
    """A validate worker's share: the violations of ``part``'s inputs, written to ``part.folder``.

    Returns the summary, each input's name and number of violations, and the
    match ids it started first (:class:`Start`). The violations are in
    ``VIOLATIONS_FILE``, read back by :func:`read_violations`.
    """
    validator = part.options.validator()
    notes = StartNotes(validator)
    progress = ProgressSender(lambda: validator.summary.matches)
    validator.on_block = progress.block
    files: list[tuple[str, int]] = []
    batch: list[Violation] = []
    encoder = msgspec.msgpack.Encoder()
    with open(os.path.join(part.folder, VIOLATIONS_FILE), "wb") as out:
        for index, violations in replay_inputs(part, validator):
            progress.start(index)
            item = part.inputs[len(files)]
            count = 0
            for violation in violations:
                notes.saw(violation)
                batch.append(violation)
                count += 1
                if len(batch) == _BATCH:
                    _write_frame(out, encoder.encode(batch))
                    batch = []
            files.append((printable(item.name if isinstance(item, Source) else item.path), count))
            progress.done()
        if batch:
            _write_frame(out, encoder.encode(batch))
    return PartResult(validator.summary, notes.starts(), files=files)


def _write_frame(out: object, data: bytes) -> None:
    out.write(len(data).to_bytes(4, "little"))  # type: ignore[attr-defined]
    out.write(data)  # type: ignore[attr-defined]


def read_violations(folder: str) -> Iterator[Violation]:
    """The violations a validate part wrote, in order."""
    decoder = msgspec.msgpack.Decoder(list[Violation])
    with open(os.path.join(folder, VIOLATIONS_FILE), "rb") as source:
        while True:
            size = source.read(4)
            if len(size) < 4:
                return
            yield from decoder.decode(source.read(int.from_bytes(size, "little")))


@dataclass
class PartFix:
    """What to change in a part so that it reads as one process reads it (see :class:`CrossFile`)."""

    #: ``(position, F005)`` to insert among the part's violations, in order.
    inserted: list[tuple[int, Violation]] = field(default_factory=list)
    #: The F005 message of each match id first started in an earlier part (for the part's own F005s).
    renamed: dict[str, str] = field(default_factory=dict)
    #: The first starts whose match counts one error more: an F005 (reported or not) marks them.
    invalid: list[Start] = field(default_factory=list)
    #: Whether the part must be replayed again knowing the earlier ids (an F005 would crowd a cap).
    again: bool = False

    def __bool__(self) -> bool:
        return bool(self.renamed or self.again)


class CrossFile:
    """The match ids started by the parts joined so far, each with its first start, as one process keeps them."""

    def __init__(self) -> None:
        #: ``{match id: (file, line)}`` of every first start joined so far.
        self.first: dict[str, tuple[str, int]] = {}

    def fix(self, result: PartResult) -> PartFix:
        """What changes in the part of ``result`` (the next in input order) for its ids started before."""
        fix = PartFix()
        first = self.first
        for start in result.starts:
            earlier = first.get(start.match)
            if earlier is None:
                continue
            message = second_start(start.match, *earlier)
            fix.renamed[start.match] = message
            fix.invalid.append(start)
            fix.again = fix.again or start.crowded
            if start.reported:
                fix.inserted.append((start.position, Violation(
                    file=start.file, line=start.line, match=start.match, round=None, player=None, code="F005",
                    severity=SEVERITY["F005"], message=message)))
        return fix

    def started_before(self, match_id: str | None) -> bool:
        """Whether an earlier part started ``match_id``."""
        return match_id is not None and match_id in self.first

    def add(self, result: PartResult) -> None:
        """Take the first starts of a joined part (after :meth:`fix`)."""
        first = self.first
        for start in result.starts:
            if start.match not in first:
                first[start.match] = (start.file, start.line)

    def corrected(self, violation: Violation, fix: PartFix) -> Violation:
        """``violation`` of the part as one process words it (its F005 or F004 naming earlier parts)."""
        code = violation.code
        if code == "F005" and violation.match in fix.renamed:
            return msgspec.structs.replace(violation, message=fix.renamed[violation.match])
        if code == "F004" and violation.message.endswith(_NOT_STARTED) and self.started_before(violation.match):
            return msgspec.structs.replace(violation, message=violation.message[:-len(_NOT_STARTED)] + _ENDED)
        return violation


def fix_summary(summary: Summary, fix: PartFix) -> None:
    """Count in ``summary`` the F005s ``fix`` inserts and the matches it makes invalid."""
    for _, violation in fix.inserted:
        summary.violations += 1
        if violation.severity == WARNING:
            summary.warnings += 1
        else:
            summary.errors += 1
    summary.valid_matches -= sum(start.counted_valid for start in fix.invalid)


def add_summaries(total: Summary, part: Summary) -> None:
    """Add the counts of ``part`` to ``total`` (lists are joined)."""
    for name in Summary.__struct_fields__:
        setattr(total, name, getattr(total, name) + getattr(part, name))


def fixed_violations(violations: Iterable[Violation], fix: PartFix, cross: CrossFile) -> Iterator[Violation]:
    """A part's violations in order, with ``fix``'s F005s inserted and the wording of earlier parts' ids."""
    inserted = fix.inserted
    next_insert = 0
    for index, violation in enumerate(violations):
        while next_insert < len(inserted) and inserted[next_insert][0] == index:
            yield inserted[next_insert][1]
            next_insert += 1
        yield cross.corrected(violation, fix) if fix or violation.code == "F004" else violation
    for _, violation in inserted[next_insert:]:
        yield violation
