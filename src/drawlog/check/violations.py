"""What a validation run reports: violations and the summary counts."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from .rules import SEVERITY, WARNING


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
    #: Violations found but not reported because the baseline (``--baseline``) holds them.
    baselined: int = 0

    def withdraw(self, violation: Violation) -> None:
        """Take back a violation already counted as reported (it is in a baseline or a per-file ignore)."""
        self.violations -= 1
        if violation.severity == WARNING:
            self.warnings -= 1
        else:
            self.errors -= 1


class Reporter:
    """Collects violations as they are found and counts them as they are handed out.

    ``file`` is the input being read; only ``codes`` are kept (``--select`` /
    ``--ignore``). :meth:`flush` yields what was found since the last call and
    counts it in ``summary``, so a consumer that stops early (``--fail-fast``)
    leaves counts that match what it reported.
    """

    def __init__(self, summary: Summary, codes: frozenset[str]) -> None:
        self.summary = summary
        self.codes = codes
        self.file = ""
        self.found: list[Violation] = []

    def emit(self, code: str, message: str, line: int | None, match: str | None = None,
             round_number: int | None = None, player: str | None = None) -> None:
        """Record one violation in the current file (dropped when its code is not selected)."""
        if code in self.codes:
            self.found.append(Violation(file=self.file, line=line, match=match, round=round_number,
                                        player=player, code=code, severity=SEVERITY[code], message=message))

    def flush(self) -> Iterator[Violation]:
        """Yield what was found, counting each in the summary as it is handed out."""
        found = self.found
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
