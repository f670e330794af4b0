"""Output writers for ``drawlog validate``: text (rich), json, jsonl, github, statistics.

Each writer gets violations one at a time (``add``), hears where each input
begins and ends (``start_file``, ``end_file``) and gets the summary at the end
(``finish``); a writer that can stream prints as it goes. The line and report
formats that CI services read (concise, sarif, junit, gitlab) are in
:mod:`~drawlog.views.ci_formats`. Text that comes from
a log or a path is printed literally (rich ``Text``), never as markup, and
with its control characters escaped (:func:`~drawlog.views.terminal.shown`): a log cannot write escape
sequences to the terminal. JSON keeps the exact strings.
:class:`GuardedStream` turns a failure to write standard output into
:class:`~drawlog.errors.WriteFailed`.
"""

from __future__ import annotations

import shlex
import time
from collections import Counter
from typing import IO, TYPE_CHECKING

import msgspec

from ..check.rules import RULES_BY_CODE
from ..check.violations import Summary, Violation
from .plain_table import Column, Piece, plain_table, styled
from .streams import (
    COLORS,
    FORMATS,
    STANDARD_OUTPUT,
    STATISTICS_FORMATS,
    ClosedOutput,
    GuardedStream,
)
from .terminal import RICH, STYLED, literal, make_console, shown, write_drawn, writing_mode
from .writer_base import Writer, code_style, quantity, summary_line, verdict

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

__all__ = [
    "COLORS",
    "FORMATS",
    "STANDARD_OUTPUT",
    "STATISTICS_FORMATS",
    "ClosedOutput",
    "GuardedStream",
    "RootsOnly",
    "Writer",
    "code_style",
    "make_writer",
    "quantity",
    "summary_line",
    "verdict",
]

#: The most violations one table of the text output holds: a longer file's rows go on in further tables.
ROWS_PER_TABLE = 1_000
#: Rows of the text output held longer than this (seconds) are printed, even in the middle of a file.
FLUSH_SECONDS = 1.0

_encoder = msgspec.json.Encoder()


class JsonWriter(Writer):
    """The contract's JSON document, streamed: ``{"violations": […], "summary": {…}}``.

    Each violation is written as it is found (one a line), and the summary,
    known only at the end, comes last (the order of a JSON object's keys means
    nothing): memory stays the same however many violations there are.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self._written = 0

    def add(self, violation: Violation) -> None:
        self.stream.write('{"violations":[\n' if self._written == 0 else ",\n")
        self._written += 1
        self.stream.write(_encoder.encode(violation).decode())

    def finish(self, summary: Summary) -> None:
        self.stream.write('{"violations":[],' if self._written == 0 else "\n],")
        self.stream.write(f'"summary":{_encoder.encode(summary).decode()}}}\n')


class JsonLinesWriter(Writer):
    """One JSON object per violation, written and flushed as found, then ``{"summary": {…}}`` as the last line."""

    def add(self, violation: Violation) -> None:
        self.stream.write(_encoder.encode(violation).decode())
        self.stream.write("\n")
        self.stream.flush()

    def finish(self, summary: Summary) -> None:
        self.stream.write(_encoder.encode({"summary": summary}).decode())
        self.stream.write("\n")


def _escape_data(text: str) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return shown(text)


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GithubWriter(Writer):
    """GitHub Actions workflow commands: ``::error file=…,line=…,title=CODE name::message``."""

    def add(self, violation: Violation) -> None:
        level = "warning" if violation.severity == "warning" else "error"
        rule = RULES_BY_CODE.get(violation.code)
        title = f"{violation.code} {rule.name}" if rule else violation.code
        props = [f"file={_escape_property(violation.file)}"]
        if violation.line is not None:
            props.append(f"line={violation.line}")
        props.append(f"title={_escape_property(title)}")
        where = f"match {violation.match}: " if violation.match else ""
        text = where + violation.message + violation.follows_text()
        self.stream.write(f"::{level} {','.join(props)}::{_escape_data(text)}\n")


class TextWriter(Writer):
    """Rich tables of violations under each file's name, printed as found.

    Rows are held until ``rows_per_table`` of them fill a table, the file ends,
    or the first of them has waited ``flush_seconds`` (checked at each
    violation and each block of lines read): memory stays bounded however many
    violations a file has, and a slow file shows its rows as it goes. A file's
    rows go on in further tables, each with its header. ``quiet`` leaves out
    the verdict line.
    """

    def __init__(self, stream: IO[str], console: Console | None = None,
                 rows_per_table: int = ROWS_PER_TABLE, flush_seconds: float = FLUSH_SECONDS,
                 quiet: bool = False) -> None:
        super().__init__(stream)
        self.console = console or make_console(stream)
        self.rows_per_table = rows_per_table
        self.flush_seconds = flush_seconds
        self.quiet = quiet
        self._file: str | None = None
        self._titled = False
        self._rows: list[Violation] = []
        self._held_since = 0.0
        #: How tables may be drawn without rich (:func:`~drawlog.views.terminal.writing_mode`), whether through
        #: rich's print (a terminal) and the width they must fit: fixed unless a terminal's (asking is slow).
        self._mode = writing_mode(self.console)
        self._terminal = self.console.is_terminal
        self._width = None if self._terminal else self.console.width

    def add(self, violation: Violation) -> None:
        if violation.file != self._file:
            self._print_rows()
            self._file = violation.file
            self._titled = False
        if not self._rows:
            self._held_since = time.monotonic()
        self._rows.append(violation)
        if len(self._rows) >= self.rows_per_table or time.monotonic() - self._held_since >= self.flush_seconds:
            self._print_rows()

    def end_file(self) -> None:
        self._print_rows()

    def poll(self) -> None:
        if self._rows and time.monotonic() - self._held_since >= self.flush_seconds:
            self._print_rows()

    def _print_rows(self) -> None:
        """Print the rows held (under the file's name, for its first table) and let them go.

        The table is drawn without rich when it can be (see
        :mod:`~drawlog.views.plain_table`): the same characters, far faster.
        """
        if not self._rows:
            return
        console = self.console
        drawn = None
        if self._mode != RICH:
            width = console.width if self._width is None else self._width
            drawn = plain_table(VIOLATION_COLUMNS, [_cells(v) for v in self._rows], width, color=self._mode == STYLED)
        if drawn is not None:
            if not self._titled:  # (printed apart, as rich prints it: a progress bar is drawn again between)
                title = styled(shown(self._file or ""), _TITLE if self._mode == STYLED else "") + "\n"
                write_drawn(console, title, self._terminal)
            write_drawn(console, drawn, self._terminal)
        else:
            if not self._titled:
                console.print(literal(self._file or "", style="bold underline"), soft_wrap=True)
            console.print(violations_table(self._rows))
        self._titled = True
        self._rows = []

    def finish(self, summary: Summary) -> None:
        self._print_rows()
        if not self.quiet:
            self.console.print(verdict(summary, self.note), soft_wrap=True)


def violations_table(violations: list[Violation]) -> Table:
    """The violations as a rich table: line, code (red for errors, yellow for warnings), match, round, player, message."""
    from rich.table import Table

    table = Table(expand=False)
    table.add_column("line", justify="right", style="cyan", overflow="fold")
    table.add_column("code", style="bold", no_wrap=True, min_width=4)
    table.add_column("match", overflow="fold")  # key columns fold, never cut with "…"
    table.add_column("round", justify="right", overflow="fold")
    table.add_column("player", overflow="fold")
    table.add_column("message", overflow="fold")
    for v in violations:
        table.add_row(
            "" if v.line is None else str(v.line),
            literal(v.code, style="yellow" if v.severity == "warning" else "red"),
            literal(v.match or ""),
            "" if v.round is None else str(v.round),
            literal(v.player or ""),
            _message_cell(v),
        )
    return table


#: The columns of :func:`violations_table`, for :func:`~drawlog.views.plain_table.plain_table`: the same
#: styles as SGR parameters (cyan, bold), which ``tests/test_plain_table.py`` holds to rich's.
VIOLATION_COLUMNS = [Column("line", right=True, style="36"), Column("code", min_width=4, style="1"), Column("match"),
                     Column("round", right=True), Column("player"), Column("message")]
#: The styles of :func:`violations_table` as SGR parameters: the replay command (dim), a file's name over its
#: table (bold underline).
_COMMAND, _TITLE = "2", "1;4"


def _cells(violation: Violation) -> list[str | list[Piece]]:
    """The cells of :func:`violations_table`'s row for ``violation``, for :func:`~drawlog.views.plain_table.plain_table`."""
    v = violation
    code = code_style(v)
    message: list[Piece] = [(shown(v.message + v.follows_text()), "", "")]
    command = _replay_command(v)
    if command is not None:
        message.append((shown(command), _COMMAND, ""))
    return ["" if v.line is None else str(v.line), [(shown(v.code), code, code)], shown(v.match or ""),
            "" if v.round is None else str(v.round), shown(v.player or ""), message]


def _message_cell(violation: Violation) -> Text:
    """The message, and for a violation of a match the command that shows its board (``drawlog replay``)."""
    cell = literal(violation.message + violation.follows_text())
    command = _replay_command(violation)
    if command is not None:
        cell.append("\n")
        cell.append_text(literal(command, style="dim"))
    return cell


def _replay_command(violation: Violation) -> str | None:
    """``drawlog replay FILE:LINE`` for a violation of a match at a line (None for others)."""
    if violation.match is None or violation.line is None:
        return None
    return f"drawlog replay {shlex.quote(f'{violation.file}:{violation.line}')}"


class StatisticsWriter(Writer):
    """Counts per code (``--statistics``): a rich table, with ``as_json`` a JSON list, with ``as_lines`` ruff's lines.

    ``as_lines`` prints ``count<TAB>code<TAB>name`` per code; ``quiet`` leaves
    out the summary line of the table and the lines.
    """

    def __init__(self, stream: IO[str], as_json: bool = False, as_lines: bool = False,
                 console: Console | None = None, quiet: bool = False) -> None:
        super().__init__(stream)
        self.as_json = as_json
        self.as_lines = as_lines
        self.console = console
        self.quiet = quiet
        self.counts: Counter[str] = Counter()

    def add(self, violation: Violation) -> None:
        self.counts[violation.code] += 1

    def rows(self) -> list[dict[str, object]]:
        """``{"code", "name", "severity", "count"}`` per code found, most frequent first."""
        return [
            {"code": code, "name": RULES_BY_CODE[code].name, "severity": RULES_BY_CODE[code].severity,
             "count": count}
            for code, count in sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        ]

    def finish(self, summary: Summary) -> None:
        from rich.console import Console
        from rich.table import Table

        if self.as_json:
            self.stream.write(_encoder.encode({"summary": summary, "statistics": self.rows()}).decode() + "\n")
            return
        console = self.console or Console(file=self.stream, highlight=False)
        if self.as_lines:
            for row in self.rows():  # tabs kept: rich would expand them
                self.stream.write(f"{row['count']}\t{row['code']}\t{row['name']}\n")
            if not self.quiet:
                console.print(summary_line(summary), soft_wrap=True)
            return
        table = Table(title="violations by code", title_justify="left")
        table.add_column("count", justify="right")
        table.add_column("code", style="bold")
        table.add_column("name")
        table.add_column("severity")
        for row in self.rows():
            table.add_row(str(row["count"]), str(row["code"]), str(row["name"]), str(row["severity"]))
        console.print(table)
        if not self.quiet:
            console.print(summary_line(summary), soft_wrap=True)


class RootsOnly(Writer):
    """A writer's stand-in that passes on every violation but the follow-ons (``--hide-follow-ons``)."""

    def __init__(self, writer: Writer) -> None:
        super().__init__(writer.stream)
        self.writer = writer

    def start_file(self, file: str) -> None:
        """As the writer does."""
        self.writer.start_file(file)

    def add(self, violation: Violation) -> None:
        """Hand ``violation`` to the writer unless it follows from an earlier one."""
        if violation.follows is None:
            self.writer.add(violation)

    def end_file(self) -> None:
        """As the writer does."""
        self.writer.end_file()

    def poll(self) -> None:
        """As the writer does."""
        self.writer.poll()

    def finish(self, summary: Summary) -> None:
        """As the writer does."""
        self.writer.finish(summary)


def make_writer(fmt: str, stream: IO[str], statistics: bool = False, console: Console | None = None,
                quiet: bool = False, strict: bool = False) -> Writer:
    """The writer for ``--format`` (and ``--statistics``, ``-q``, ``--strict``); ``console`` prints text, concise."""
    if statistics:
        return StatisticsWriter(stream, as_json=fmt in ("json", "jsonl"), as_lines=fmt == "concise",
                                console=console, quiet=quiet)
    if fmt == "json":
        return JsonWriter(stream)
    if fmt == "jsonl":
        return JsonLinesWriter(stream)
    if fmt == "github":
        return GithubWriter(stream)
    if fmt in ("sarif", "junit", "gitlab", "concise"):
        # imported here, not at the top: the CI formats are rare, and xml's import is heavy (start-up time)
        from .ci_formats import ConciseWriter, GitlabWriter, JunitWriter, SarifWriter

        if fmt == "sarif":
            return SarifWriter(stream)
        if fmt == "junit":
            return JunitWriter(stream, strict=strict)
        if fmt == "gitlab":
            return GitlabWriter(stream)
        return ConciseWriter(stream, console, quiet=quiet)
    return TextWriter(stream, console, quiet=quiet)


RESULT_COLUMNS = ("bot", "matches", "seats", "wins", "win share", "drawn", "mean score")


def results_table(matches: int, rows: list[tuple[str, ...]]) -> Table:
    """A simulation's results per bot (rows of :data:`RESULT_COLUMNS`, from ``Tally.rows``)."""
    from rich.table import Table

    table = Table(title=f"{matches:,} simulated matches", title_justify="left")
    for column in RESULT_COLUMNS:
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in rows:
        table.add_row(*map(literal, row))
    return table
