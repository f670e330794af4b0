"""The tables of ``query``, ``players`` and ``ratings``: rich tables on screen; csv, json, jsonl, parquet or text files.

Names and values are printed literally, never as rich markup, their control
characters escaped (:func:`~drawlog.views.terminal.shown`). A failure to
write a file raises :class:`~drawlog.errors.WriteFailed` naming it.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import IO, Any

from rich.console import Console
from rich.table import Table

from ..atomic import atomic_file
from ..errors import WriteFailed
from .plain_table import Column, plain_table
from .terminal import literal, plain_console, shown, write_drawn


def frame_table(frame, title: str | None = None, grouped: bool = False) -> Table:  # noqa: ANN001 - polars.DataFrame
    """A polars DataFrame as a rich table (floats to 3 decimals, nulls blank), its names and values literal.

    ``grouped``: whole numbers with thousands separators (``12,345``).
    """
    table = Table(title=title, title_justify="left")
    for name, dtype in frame.schema.items():
        table.add_column(literal(name), justify="right" if dtype.is_numeric() else "left")
    for row in _cells(frame, grouped):
        table.add_row(*map(literal, row))
    return table


def frame_tables(frame, width: int, title: str | None = None,  # noqa: ANN001
                 grouped: bool = False) -> list[Table]:
    """The frame as rich tables that fit ``width``: columns that do not fit go to further tables.

    Each further table repeats the leading text columns (the player, the
    tournament …), so every row can still be read across; a frame that fits
    is one table.
    """
    groups = _column_groups(frame, _cells(frame, grouped), width)
    return [frame_table(frame if len(groups) == 1 else _columns(frame, group), title if index == 0 else None,
                        grouped)
            for index, group in enumerate(groups)]


def plain_tables(frame, width: int, title: str | None = None,  # noqa: ANN001
                 grouped: bool = False) -> str | None:
    """:func:`frame_tables` as the plain text rich would print, drawn without rich (None when only rich can)."""
    if title is not None and (shown(title) != title or "[" in title):
        return None  # rich reads a title as markup
    cells = _cells(frame, grouped)
    schema = list(frame.schema.items())
    drawn = []
    for index, group in enumerate(_column_groups(frame, cells, width)):
        columns = [Column(shown(schema[at][0]), right=schema[at][1].is_numeric()) for at in group]
        text = plain_table(columns, [[row[at] for at in group] for row in cells], width, title if index == 0 else None)
        if text is None:
            return None
        drawn.append(text)
    return "".join(drawn)


def _column_groups(frame, cells: list[tuple[str, ...]], width: int) -> list[list[int]]:  # noqa: ANN001
    """The frame's columns (by position) in one group when they fit ``width``; else the key columns and as many
    more as fit, group after group."""
    names = frame.columns
    # A column takes its widest cell or header, plus one space each side and a border.
    widths = [max([len(shown(name)), *(len(row[at]) for row in cells)]) + 3 for at, name in enumerate(names)]
    keys: list[int] = []
    for at, dtype in enumerate(frame.schema.values()):
        if dtype.is_numeric() or len(keys) == len(names) - 1:
            break
        keys.append(at)
    keys = keys or [0]
    rest = [at for at in range(len(names)) if at not in keys]
    key_width = sum(widths[at] for at in keys) + 1
    if key_width + sum(widths[at] for at in rest) <= width or len(rest) <= 1:
        return [list(range(len(names)))]
    groups: list[list[int]] = [[]]
    used = key_width
    for at in rest:
        if groups[-1] and used + widths[at] > width:
            groups.append([])
            used = key_width
        groups[-1].append(at)
        used += widths[at]
    return [[*keys, *group] for group in groups]


def _columns(frame, positions: list[int]):  # noqa: ANN001, ANN202 - polars.DataFrame
    """The columns at ``positions``, taken by place: a name is never read as a pattern (``*``, ``^a.*$``)."""
    import polars as pl

    return frame.select(pl.nth(*positions))


def _cells(frame, grouped: bool = False) -> list[tuple[str, ...]]:  # noqa: ANN001 - polars.DataFrame
    """Each row's values as text: floats to 3 decimals, nulls blank, control characters escaped; ``grouped``:
    whole numbers with thousands separators."""
    fractional = [dtype.is_float() or dtype.is_decimal() for dtype in frame.schema.values()]
    whole = [grouped and dtype.is_integer() for dtype in frame.schema.values()]
    return [tuple("" if value is None else f"{float(value):.3f}" if exact else f"{value:,}" if integer
                  else shown(str(value)) for value, exact, integer in zip(row, fractional, whole))
            for row in _python_rows(frame)]


def _python_rows(frame) -> list[tuple[Any, ...]]:  # noqa: ANN001 - polars.DataFrame
    """The frame's rows as Python values; dates Python cannot hold (the year 10000) as polars writes them."""
    try:
        return frame.rows()
    except (OverflowError, ValueError):
        import polars as pl

        dates = [name for name, dtype in frame.schema.items() if isinstance(dtype, (pl.Datetime, pl.Date))]
        return frame.with_columns(pl.col(dates).cast(pl.String)).rows()


#: How far from 1970 a date may lie for polars to write it, in seconds (its calendar ends in the year 262,143).
CALENDAR_SECONDS = 8_000_000_000_000
_PER_SECOND = {"ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_UNIT_NAMES = {"ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


def beyond_calendar(frame):  # noqa: ANN001, ANN201 - polars.DataFrame
    """``frame`` with each date or datetime column that holds a value past polars' calendar as its number.

    Such a value (the year 5,000,000; a timestamp of 2^63 microseconds) makes
    polars panic when it writes it in any form but Parquet. The column then
    holds the days or the unit since 1970-01-01 instead; returns the frame and
    one note per column changed.
    """
    import polars as pl

    changed, notes = [], []
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Datetime):
            limit, unit = CALENDAR_SECONDS * _PER_SECOND[dtype.time_unit or "us"], _UNIT_NAMES[dtype.time_unit or "us"]
        elif isinstance(dtype, pl.Date):
            limit, unit = CALENDAR_SECONDS // 86_400, "days"
        else:
            continue
        if limit >= 2**63:
            continue
        low, high = frame.select(pl.col(name).to_physical().min().alias("low"),
                                 pl.col(name).to_physical().max().alias("high")).row(0)
        if (low is not None and low < -limit) or (high is not None and high > limit):
            changed.append(pl.col(name).to_physical())
            notes.append(f"{name} holds a date more than 250,000 years from 1970, which polars cannot write: "
                         f"the column is written as {unit} since 1970-01-01")
    return (frame.with_columns(changed) if changed else frame), notes


def write_frame(frame, fmt: str, output: str | None, console: Console,  # noqa: ANN001
                grouped: bool = False) -> None:
    """Write a DataFrame as rich tables (``table``), csv, json, jsonl or parquet to ``output``, or to standard output.

    On ``console`` when ``table`` goes to standard output; in a file, the
    tables are plain text as wide as ``console``. A failure to write raises
    :class:`WriteFailed` naming the file (or standard output). ``grouped``: the
    table's whole numbers with thousands separators (the other formats keep numbers).
    """
    if fmt == "table" and output in (None, "-"):
        if not console.is_terminal:  # a pipe or a file: no terminal to fit, so no key is ever cut
            console.width = max(console.width, natural_width(frame, grouped))
        drawn = plain_tables(frame, console.width, grouped=grouped) if plain_console(console) else None
        if drawn is not None:
            write_drawn(console, drawn, console.is_terminal)
            return
        for table in frame_tables(frame, console.width, grouped=grouped):
            console.print(table)
        return
    if fmt == "table":
        width = max(console.width, natural_width(frame, grouped))  # a file: every cell whole
        text = plain_tables(frame, width, grouped=grouped)
        if text is None:
            text = plain_text(frame_tables(frame, width, grouped=grouped), width)
        write_output(output, lambda stream: stream.write(text.encode("utf-8")))
    else:
        write_output(output, lambda stream: _encode_frame(frame, fmt, stream))


def natural_width(frame, grouped: bool = False) -> int:  # noqa: ANN001 - polars.DataFrame
    """How wide the frame's table is drawn with no cell cut or folded (its widest cell, header or line per column)."""
    from rich.cells import cell_len

    cells = _cells(frame, grouped)
    widths = [max([cell_len(shown(name)), *(cell_len(line) for row in cells for line in row[at].split("\n"))])
              for at, name in enumerate(frame.columns)]
    return sum(widths) + 3 * len(widths) + 1


def plain_text(renderables: list[Table], width: int) -> str:
    """What ``renderables`` print as at ``width`` columns, without colours or styles."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False, highlight=False,
                      emoji=False, legacy_windows=False)
    for renderable in renderables:
        console.print(renderable)
    return buffer.getvalue()


def write_output(output: str | None, write: Callable[[IO[bytes]], object]) -> None:
    """Call ``write`` with a binary stream to the file ``output`` (or standard output for None or ``-``), then flush it.

    A file that cannot be opened, written or closed raises :class:`WriteFailed`
    naming it; standard output is guarded by the command line
    (:class:`GuardedStream`).
    """
    if output in (None, "-"):
        write(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return
    try:
        with atomic_file(output) as handle:  # written whole or not at all
            write(handle)
    except OSError as error:
        raise WriteFailed(output, error) from None


class _CheckedSink(io.RawIOBase):
    """A binary stream for polars' writers that passes on to ``target`` and keeps the first error it raised.

    polars drops some write errors (``write_json``) and wraps others in its own
    exceptions (``write_parquet``); the kept error is raised again instead.
    """

    def __init__(self, target: IO[bytes]) -> None:
        super().__init__()
        self.target = target
        self.error: Exception | None = None

    def writable(self) -> bool:
        """Always: this stream is for writing."""
        return True

    def write(self, data: Any) -> int:
        """Pass ``data`` on whole, keeping the first error the target raises."""
        try:
            self.target.write(data)
        except Exception as error:
            self.error = self.error or error
            raise
        return memoryview(data).nbytes


def _encode_frame(frame, fmt: str, target: IO[bytes]) -> None:  # noqa: ANN001 - polars.DataFrame
    """Write ``frame`` as csv (nested columns as JSON text), json, jsonl (a JSON object a line) or parquet to ``target``."""
    sink = _CheckedSink(target)
    try:
        if fmt == "csv":
            nested_as_json(frame).write_csv(sink)
        elif fmt == "json":
            frame.write_json(sink)
        elif fmt == "jsonl":
            frame.write_ndjson(sink)
        else:
            frame.write_parquet(sink)
    except Exception:
        if sink.error is not None:
            raise sink.error from None
        raise
    if sink.error is not None:
        raise sink.error


def nested_as_json(frame):  # noqa: ANN001, ANN201 - polars.DataFrame
    """``frame`` with its list, array and struct columns as JSON text (``[3,5]``, ``{"a":1}``), nulls kept."""
    import polars as pl

    def as_json(name: str) -> pl.Expr:
        wrapped = pl.struct(pl.col(name).alias("v")).struct.json_encode()  # {"v":…}: polars encodes structs only
        return pl.when(pl.col(name).is_null()).then(None).otherwise(
            wrapped.str.slice(len('{"v":')).str.strip_suffix("}")).alias(name)

    return frame.with_columns(as_json(name) for name, dtype in frame.schema.items() if dtype.is_nested())
