"""What every output writer of ``drawlog validate`` shares: the :class:`Writer` interface and the words of the
verdict (:func:`summary_line`, :func:`verdict`, :func:`code_style`).

Below both :mod:`~drawlog.views.writers` (text, json, jsonl, github, statistics) and
:mod:`~drawlog.views.ci_formats` (concise, sarif, junit, gitlab), which build on it.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from ..check.violations import Summary, Violation
from .terminal import shown

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from rich.text import Text


class Writer:
    """Base writer: ``add`` each violation, then ``finish`` with the summary."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def start_file(self, file: str) -> None:
        """An input named ``file`` (as violations name it) is about to be read."""

    def add(self, violation: Violation) -> None:
        """Take one violation (in the order found)."""

    def end_file(self) -> None:
        """The input begun last has been read (or the run stops in it)."""

    def poll(self) -> None:
        """Called now and then while reading (every block of lines): print what waited too long."""

    #: What limited the report (``select: W``), said by the verdict of text and concise output.
    note: str = ""

    def finish(self, summary: Summary) -> None:
        """Write what is left, given the run's summary."""


def quantity(number: int, noun: str, plural: str | None = None) -> str:
    """``1 match``, ``2 matches``: the number with the noun in the right number (``noun + "s"`` unless given)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def _follow_ons(count: int) -> str:
    """``3 follow-ons among the`` before the count of errors; empty when none follows from another."""
    return f"{quantity(count, 'follow-on')} among the " if count else ""


def summary_line(summary: Summary) -> str:
    """One line of counts: files, lines, events, matches, errors, warnings."""
    parts = [
        quantity(summary.files, "file"),
        quantity(summary.lines, "line"),
        quantity(summary.events, "event"),
        f"{quantity(summary.matches, 'match', 'matches')} ({summary.valid_matches:,} valid)",
        _follow_ons(summary.follow_ons) + quantity(summary.errors, "error"),
        quantity(summary.warnings, "warning"),
    ]
    skipped = summary.blank_lines + summary.invalid_lines
    if skipped:
        parts.insert(3, f"{quantity(skipped, 'line')} skipped ({summary.blank_lines:,} blank, "
                        f"{summary.invalid_lines:,} invalid)")
    if summary.unreadable:
        parts.insert(1, f"{summary.unreadable:,} unreadable")
    if summary.decompression:
        more = len(summary.decompression) - 3
        parts.append(f"warning: {', '.join(map(shown, summary.decompression[:3]))}"
                     f"{f' and {more:,} more' if more > 0 else ''} (a compression bomb?)")
    if summary.closed_early:
        parts.append(f"{quantity(summary.closed_early, 'match', 'matches')} closed early (--max-open-matches)")
    if summary.suppressed:
        parts.append(f"{summary.suppressed:,} more not shown (--max-per-match)")
    if summary.suppressed_per_line:
        parts.append(f"{summary.suppressed_per_line:,} more not shown (--max-per-line)")
    if summary.suppressed_errors:
        parts.append(f"{quantity(summary.suppressed_errors, 'error')} among those not shown")
    if summary.baselined:
        parts.append(f"{summary.baselined:,} in the baseline, not shown")
    return ", ".join(parts)


def verdict(summary: Summary, note: str = "") -> Text:
    """The last line of text output: ``no errors`` or ``errors found``, then the counts, coloured by the worst.

    When no error is reported but matches are invalid (their errors not selected,
    or in a baseline), it says ``no errors reported`` and how many are invalid;
    ``note`` says what limited the report (``select: W``).
    """
    from rich.text import Text

    errors = summary.errors or summary.suppressed_errors
    style = "bold red" if errors else ("bold yellow" if summary.warnings else "bold green")
    invalid = summary.matches - summary.valid_matches
    if errors:
        said = "errors found"
    elif invalid > 0:
        said = f"no errors reported{f' ({note})' if note else ''}; {quantity(invalid, 'match', 'matches')} invalid"
    else:
        said = "no errors"
    return Text(f"{said}: {summary_line(summary)}", style=style)


def code_style(violation: Violation) -> str:
    """The SGR parameters of a violation's code in text and concise output: bold yellow (warning) or bold red."""
    return "1;33" if violation.severity == "warning" else "1;31"
