"""What a validation run reports: violations and the summary counts."""

from __future__ import annotations

import msgspec


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
    complete_matches: int = 0
    valid_matches: int = 0
