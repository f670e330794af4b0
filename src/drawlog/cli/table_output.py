"""How ``query``, ``players`` and ``ratings`` write their tables: ``--format`` and ``-o``, the format an extension
names, and the run they share (compute the table, write it).
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import OutputError
from .app import EXIT_UNUSABLE, Variant, refuse_clobber


class FrameFormat(str, Enum):
    """How ``query``, ``players`` and ``ratings`` print their tables."""

    table = "table"
    csv = "csv"
    json = "json"
    jsonl = "jsonl"
    parquet = "parquet"


#: The format ``-o FILE`` implies by the file's extension (``.txt``: the table as plain text).
FORMAT_OF_EXTENSION = {".csv": FrameFormat.csv, ".json": FrameFormat.json, ".jsonl": FrameFormat.jsonl,
                       ".parquet": FrameFormat.parquet, ".txt": FrameFormat.table}
#: ``--format`` of ``query``, ``players`` and ``ratings``.
FrameFormatOption = Annotated[Optional[FrameFormat], typer.Option(
    "--format", "-f", help="table, csv, json, jsonl or parquet; default: from the extension of -o FILE (.csv, .json, "
                           ".jsonl, .parquet, .txt), else table.")]
#: ``--output`` of ``query``, ``players`` and ``ratings``.
FrameOutputOption = Annotated[Optional[str], typer.Option(
    "--output", "-o", metavar="FILE", help="Write to this file, in the format its extension names.")]
#: ``--include-invalid`` of ``players`` and ``ratings``.
IncludeInvalidOption = Annotated[bool, typer.Option(
    "--include-invalid", help="Count finished matches with errors in results and ratings too (default: only "
                              "valid ones).")]


#: ``--variant`` of ``players`` and ``ratings``: without it every variant has rows of its own.
VariantOption = Annotated[Optional[Variant], typer.Option(
    "--variant", help="Only this game (draw, all-fives); default: each variant on its own rows, never mixed.")]


def _frame_format(fmt: FrameFormat | None, output: str | None) -> FrameFormat:
    """The format to write: ``fmt``, else the one ``output``'s extension names, else a table.

    A ``fmt`` that contradicts the extension is a one-line usage error (exit 2).
    """
    from ..views.terminal import shown

    implied = FORMAT_OF_EXTENSION.get(Path(output).suffix.lower()) if output not in (None, "-") else None
    if output not in (None, "-") and implied is None and fmt is None and not _is_device(output):
        known = ", ".join(FORMAT_OF_EXTENSION)
        typer.echo(f"Error: cannot tell the format of {shown(str(output))} from its extension: use one of {known} "
                   f"(or name the format with --format)", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    if fmt is not None and implied is not None and fmt is not implied:
        typer.echo(f"Error: --format {fmt.value} contradicts the extension of {shown(str(output))} "
                   f"({implied.value}): drop --format or change the name", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    return fmt or implied or FrameFormat.table


def _is_device(output: str) -> bool:
    """Whether ``output`` is a device or a FIFO (``/dev/stdout``), written directly in the table format."""
    import stat

    try:
        return not stat.S_ISREG(os.stat(output).st_mode) and not stat.S_ISDIR(os.stat(output).st_mode)
    except OSError:
        return False


def _frame_command(compute, fmt: FrameFormat | None, output: Optional[str], folder: str,  # noqa: ANN001
                   grouped: bool = False) -> None:
    """Compute a table and write it in ``fmt`` to ``output``; a folder that ``compute`` refuses is a usage error.

    ``grouped``: a text table's whole numbers with thousands separators.
    """
    from rich.console import Console

    from ..views.frames import beyond_calendar, write_frame
    from ..views.terminal import shown

    refuse_clobber("-o", output, [folder])

    fmt = _frame_format(fmt, output)
    if fmt is FrameFormat.parquet and output in (None, "-") and sys.stdout.isatty():
        raise typer.BadParameter("parquet goes to a file: add -o FILE", param_hint="--format")
    try:
        frame = compute()
    except OutputError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="DIR") from None
    frame, notes = beyond_calendar(frame)
    for note in notes:
        typer.echo(f"note: {shown(note)}", err=True)
    write_frame(frame, fmt.value, output, Console(highlight=False, emoji=False), grouped=grouped)
