"""What a validation run reports: violations and the summary counts."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from .limits import MAX_PER_LINE, MAX_PER_MATCH  # noqa: F401  (MAX_PER_MATCH: read from here too)
from .rules import SEVERITY, WARNING

#: A match never ended: reported at its last line once the input ends, outside the count per line.
UNFINISHED = "F006"


class Violation(msgspec.Struct, kw_only=True):
    """One broken rule, located in a file. Field order is the JSON output's."""

    file: str
    line: int | None
    match: str | None
    round: int | None
    player: str | None
    code: str
    severity: str
    message: str
    #: The line of the root violation this one follows from (a follow-on: it would not be there but for that
    #: earlier rejected, lost or misplaced event); None for a root. See :mod:`drawlog.check.follows`.
    follows: int | None = None

    def follows_text(self) -> str:
        """`` (follows line N)`` for a follow-on, as the text and concise outputs end its message; else empty."""
        return "" if self.follows is None else f" (follows line {self.follows})"


class Summary(msgspec.Struct, kw_only=True):
    """Counts of a run. Every line read is an event, a blank line or an invalid line.

    ``files`` counts inputs that could be read; ``unreadable`` those that could not.
    ``violations``, ``errors`` and ``warnings`` count what was reported (after
    ``--select`` / ``--ignore``).
    """

    files: int = 0
    lines: int = 0
    events: int = 0
    matches: int = 0
    violations: int = 0
    errors: int = 0
    warnings: int = 0
    blank_lines: int = 0
    invalid_lines: int = 0
    unreadable: int = 0
    #: Compressed inputs that inflate absurdly (a compression bomb?): ``"FILE decompresses 30,000×"``, one each.
    decompression: list[str] = msgspec.field(default_factory=list)
    complete_matches: int = 0
    valid_matches: int = 0
    #: Matches closed (F006) because more than ``--max-open-matches`` were open at once.
    closed_early: int = 0
    #: Violations found but not reported, past ``--max-per-match`` for their match.
    suppressed: int = 0
    #: Violations found but not reported, past ``--max-per-line`` for their line.
    suppressed_per_line: int = 0
    #: Violations found but not reported because the baseline (``--baseline``) holds them.
    baselined: int = 0
    #: Errors among ``suppressed`` and ``suppressed_per_line``: not shown, but they fail the run all the same.
    suppressed_errors: int = 0
    #: Violations among ``violations`` that follow from an earlier one (their ``follows`` is set). They are
    #: counted in ``errors`` and ``warnings`` too, shown or not (``--hide-follow-ons``): a follow-on is still
    #: an error, so a log's exit status does not depend on it.
    follow_ons: int = 0

    def failed(self, strict: bool = False) -> bool:
        """Whether the run found an error (``strict``: or a warning), shown or held back by a cap.

        Violations in a baseline or ignored for a file do not count: they were
        set aside on purpose, not for want of room.
        """
        if self.errors or self.suppressed_errors:
            return True
        held_back = self.suppressed + self.suppressed_per_line
        return strict and (self.warnings > 0 or held_back > 0)

    def withdraw(self, violation: Violation) -> None:
        """Take back a violation already counted as reported (it is in a baseline or a per-file ignore)."""
        self.violations -= 1
        if violation.follows is not None:
            self.follow_ons -= 1
        if violation.severity == WARNING:
            self.warnings -= 1
        else:
            self.errors -= 1


class Reporter:
    """Collects violations as they are found and counts them as they are handed out.

    ``file`` is the input being read; only ``codes`` are kept (``--select`` /
    ``--ignore``), and at most ``max_per_line`` of one line (``--max-per-line``;
    the rest are counted in ``summary.suppressed_per_line``, never held). A full
    line keeps errors before warnings: an error past the cap takes the place of
    a warning of its line not yet handed out, so warnings cannot crowd out an error.
    :meth:`flush` yields what was found since the last call and counts it in
    ``summary``, so a consumer that stops early (``--fail-fast``) leaves counts
    that match what it reported.
    """

    def __init__(self, summary: Summary, codes: frozenset[str], max_per_line: int = MAX_PER_LINE) -> None:
        self.summary = summary
        self.codes = codes
        self.max_per_line = max_per_line
        self._file = ""
        self.found: list[Violation] = []
        #: The line the last violation kept was on, and how many of that line were taken.
        self._line: int | None = None
        self._on_line = 0
        #: Where in ``found`` the warnings of that line are, for an error to take the place of the last.
        self._line_warnings: list[int] = []

    @property
    def file(self) -> str:
        """The input being read, as violations name it (setting it starts the count per line afresh)."""
        return self._file

    @file.setter
    def file(self, name: str) -> None:
        self._file = name
        self._line = None
        self._line_warnings = []

    def admit(self, code: str, line: int | None) -> bool:
        """Whether a violation of ``code`` on ``line`` is reported: selected, and within ``max_per_line``.

        One past the cap is counted in ``summary.suppressed_per_line`` and not
        reported. The cap counts what is found while a line is read (found
        together, so counted as they come); an F006, found when the input ends
        or the match is closed early and at most one a match, is not counted.
        """
        if code not in self.codes:
            return False
        if line is None or code == UNFINISHED:
            return True
        if line != self._line:
            self._line = line
            self._on_line = 1
            self._line_warnings = []
            return True
        self._on_line += 1
        if self._on_line > self.max_per_line:
            summary = self.summary
            summary.suppressed_per_line += 1
            if SEVERITY[code] == WARNING:
                return False
            if self._line_warnings:  # the error is kept, the line's last warning not yet handed out is not
                del self.found[self._line_warnings.pop()]
                return True
            summary.suppressed_errors += 1
            return False
        return True

    def emit(self, code: str, message: str, line: int | None, match: str | None = None,
             round_number: int | None = None, player: str | None = None) -> None:
        """Record one violation in the current file (dropped when its code is not selected or its line is full)."""
        if self.admit(code, line):
            self.record(code, message, line, match, round_number, player)

    def record(self, code: str, message: str, line: int | None, match: str | None = None,
               round_number: int | None = None, player: str | None = None, follows: int | None = None) -> None:
        """Record one violation that :meth:`admit` let through (``follows``: its root's line, for a follow-on)."""
        severity = SEVERITY[code]
        if severity == WARNING and line is not None and line == self._line:
            self._line_warnings.append(len(self.found))
        self.found.append(Violation(file=self._file, line=line, match=match, round=round_number,
                                    player=player, code=code, severity=severity, message=message,
                                    follows=follows))

    def flush(self) -> Iterator[Violation]:
        """Yield what was found, counting each in the summary as it is handed out."""
        found = self.found
        if found:
            batch = found[:]
            found.clear()
            self._line_warnings = []
            summary = self.summary
            for violation in batch:
                summary.violations += 1
                if violation.follows is not None:
                    summary.follow_ons += 1
                if violation.severity == WARNING:
                    summary.warnings += 1
                else:
                    summary.errors += 1
                yield violation
