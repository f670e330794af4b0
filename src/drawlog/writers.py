"""Output writers for ``drawlog validate``: text (rich), json, jsonl, github, statistics.

Each writer gets violations one at a time (``add``) and the summary at the end
(``finish``); a writer that can stream prints as it goes.
"""

from __future__ import annotations

from collections import Counter
from typing import IO

import msgspec
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .recording import Tally
from .rules import RULES_BY_CODE
from .violations import Summary, Violation

FORMATS = ("text", "json", "jsonl", "github")

_encoder = msgspec.json.Encoder()


class Writer:
    """Base writer: ``add`` each violation, then ``finish`` with the summary."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def add(self, violation: Violation) -> None:
        """Take one violation (in the order found)."""

    def finish(self, summary: Summary) -> None:
        """Write what is left, given the run's summary."""


class JsonWriter(Writer):
    """The contract's JSON document: ``{"summary": {…}, "violations": […]}``."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self.violations: list[Violation] = []

    def add(self, violation: Violation) -> None:
        self.violations.append(violation)

    def finish(self, summary: Summary) -> None:
        document = {"summary": summary, "violations": self.violations}
        self.stream.write(_encoder.encode(document).decode())
        self.stream.write("\n")


class JsonLinesWriter(Writer):
    """One JSON object per violation, written and flushed as found."""

    def add(self, violation: Violation) -> None:
        self.stream.write(_encoder.encode(violation).decode())
        self.stream.write("\n")
        self.stream.flush()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
        self.stream.write(f"::{level} {','.join(props)}::{_escape_data(where + violation.message)}\n")


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def summary_line(summary: Summary) -> str:
    """One line of counts: files, lines, events, matches, errors, warnings."""
    parts = [
        _count(summary.files, "file"),
        _count(summary.lines, "line"),
        _count(summary.events, "event"),
        f"{_count(summary.matches, 'match', 'matches')} ({summary.valid_matches:,} valid)",
        _count(summary.errors, "error"),
        _count(summary.warnings, "warning"),
    ]
    skipped = summary.blank_lines + summary.invalid_lines
    if skipped:
        parts.insert(3, f"{_count(skipped, 'line')} skipped ({summary.blank_lines:,} blank, "
                        f"{summary.invalid_lines:,} invalid)")
    if summary.unreadable:
        parts.insert(1, f"{summary.unreadable:,} unreadable")
    return ", ".join(parts)


class TextWriter(Writer):
    """A rich table per file for people; each file's table is printed when the next file begins."""

    def __init__(self, stream: IO[str], console: Console | None = None) -> None:
        super().__init__(stream)
        self.console = console or Console(file=stream, highlight=False)
        self._file: str | None = None
        self._rows: list[Violation] = []

    def add(self, violation: Violation) -> None:
        if violation.file != self._file:
            self._print_file()
            self._file = violation.file
        self._rows.append(violation)

    def _print_file(self) -> None:
        if not self._rows:
            return
        self.console.print(Text(self._file or "", style="bold underline"), soft_wrap=True)
        table = Table(expand=False)
        table.add_column("line", justify="right", style="cyan")
        table.add_column("code", style="bold")
        table.add_column("match")
        table.add_column("round", justify="right")
        table.add_column("player")
        table.add_column("message", overflow="fold")
        for v in self._rows:
            style = "yellow" if v.severity == "warning" else "red"
            table.add_row(
                "" if v.line is None else str(v.line),
                Text(v.code, style=style),
                v.match or "",
                "" if v.round is None else str(v.round),
                v.player or "",
                v.message,
            )
        self.console.print(table)
        self._rows = []

    def finish(self, summary: Summary) -> None:
        self._print_file()
        style = "bold red" if summary.errors else ("bold yellow" if summary.warnings else "bold green")
        verdict = "no errors" if not summary.errors else "errors found"
        self.console.print(Text(f"{verdict}: {summary_line(summary)}", style=style), soft_wrap=True)


class StatisticsWriter(Writer):
    """Counts per code (``--statistics``), as a rich table or, with ``as_json``, a JSON list."""

    def __init__(self, stream: IO[str], as_json: bool = False) -> None:
        super().__init__(stream)
        self.as_json = as_json
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
        if self.as_json:
            self.stream.write(_encoder.encode({"summary": summary, "statistics": self.rows()}).decode() + "\n")
            return
        console = Console(file=self.stream, highlight=False)
        table = Table(title="violations by code", title_justify="left")
        table.add_column("count", justify="right")
        table.add_column("code", style="bold")
        table.add_column("name")
        table.add_column("severity")
        for row in self.rows():
            table.add_row(str(row["count"]), str(row["code"]), str(row["name"]), str(row["severity"]))
        console.print(table)
        console.print(summary_line(summary), soft_wrap=True)


def make_writer(fmt: str, stream: IO[str], statistics: bool = False) -> Writer:
    """The writer for ``--format`` (and ``--statistics``)."""
    if statistics:
        return StatisticsWriter(stream, as_json=fmt in ("json", "jsonl"))
    if fmt == "json":
        return JsonWriter(stream)
    if fmt == "jsonl":
        return JsonLinesWriter(stream)
    if fmt == "github":
        return GithubWriter(stream)
    return TextWriter(stream)


def results_table(tally: Tally) -> Table:
    """A simulation's results per bot: matches, wins, win share, draws, mean final score."""
    table = Table(title=f"{tally.matches:,} simulated matches", title_justify="left")
    for column in ("bot", "matches", "seats", "wins", "win share", "drawn", "mean score"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    ranked = sorted(tally.bots.items(), key=lambda item: -item[1].win_share)
    for name, record in ranked:
        table.add_row(name, f"{record.matches:,}", f"{record.seats:,}", f"{record.wins:,}",
                      f"{record.win_share:.1%}", f"{record.drawn:,}",
                      f"{record.points / record.seats:.1f}" if record.seats else "-")
    return table


def frame_table(frame, title: str | None = None) -> Table:  # noqa: ANN001 - polars.DataFrame
    """A polars DataFrame as a rich table (floats to 3 decimals, nulls blank)."""
    table = Table(title=title, title_justify="left")
    for name, dtype in frame.schema.items():
        table.add_column(name, justify="right" if dtype.is_numeric() else "left")
    for row in _cells(frame):
        table.add_row(*row)
    return table


def frame_tables(frame, width: int, title: str | None = None) -> list[Table]:  # noqa: ANN001
    """The frame as rich tables that fit ``width``: columns that do not fit go to further tables.

    Each further table repeats the leading text columns (the player, the
    tournament …), so every row can still be read across; a frame that fits
    is one table.
    """
    names = frame.columns
    cells = list(zip(*_cells(frame))) or [() for _ in names]
    # A column takes its widest cell or header, plus one space each side and a border.
    widths = dict(zip(names, (max([len(name), *map(len, column)]) + 3 for name, column in zip(names, cells))))
    keys: list[str] = []
    for name, dtype in frame.schema.items():
        if dtype.is_numeric() or len(keys) == len(names) - 1:
            break
        keys.append(name)
    keys = keys or names[:1]
    rest = [name for name in names if name not in keys]
    key_width = sum(widths[name] for name in keys) + 1
    if key_width + sum(widths[name] for name in rest) <= width or len(rest) <= 1:
        return [frame_table(frame, title)]
    groups: list[list[str]] = [[]]
    used = key_width
    for name in rest:
        if groups[-1] and used + widths[name] > width:
            groups.append([])
            used = key_width
        groups[-1].append(name)
        used += widths[name]
    return [frame_table(frame.select(*keys, *group), title if index == 0 else None)
            for index, group in enumerate(groups)]


def _cells(frame) -> list[tuple[str, ...]]:  # noqa: ANN001 - polars.DataFrame
    """Each row's values as text: floats to 3 decimals, nulls blank."""
    fractional = [dtype.is_float() or dtype.is_decimal() for dtype in frame.schema.values()]
    return [tuple("" if value is None else f"{float(value):.3f}" if exact else str(value)
                  for value, exact in zip(row, fractional)) for row in frame.iter_rows()]


def write_frame(frame, fmt: str, output: str | None, console: Console) -> None:  # noqa: ANN001
    """Print a DataFrame as a rich table (``table``), or write it as csv, json or parquet to ``output`` or stdout."""
    import sys

    if fmt == "table":
        for table in frame_tables(frame, console.width):
            console.print(table)
        return
    target = sys.stdout.buffer if output in (None, "-") else open(output, "wb")  # noqa: SIM115
    try:
        if fmt == "csv":
            frame.write_csv(target)
        elif fmt == "json":
            frame.write_json(target)
        else:
            frame.write_parquet(target)
    finally:
        if target is not sys.stdout.buffer:
            target.close()
        else:
            target.flush()
