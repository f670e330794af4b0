"""``drawlog report``: the audit as one self-contained HTML page, from logs or from a statistics folder."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from ..atomic import atomic_file
from ..check.violations import Summary
from ..errors import OutputError, WriteFailed
from ..views.terminal import shown
from ..views.writers import summary_line
from .app import app
from .tables import _write_stats


def _statistics_folder(paths: list[str]) -> str | None:
    """The statistics folder given instead of logs, a path or a URL (None for logs); one beside other paths is an error."""
    from ..tables.storage import is_statistics_folder

    folders = [path for path in paths if path != "-" and is_statistics_folder(path)]
    if folders and len(paths) > 1:
        raise typer.BadParameter(f"{shown(folders[0])} is a statistics folder: give it alone, or give logs",
                                 param_hint="PATH")
    return folders[0] if folders else None


def _check_output(output: str) -> None:
    """Refuse, before any work, an output that is a folder or in a folder that does not exist."""
    target = Path(output)
    if target.is_dir():
        raise typer.BadParameter(f"{shown(output)} is a folder: name the HTML file to write", param_hint="--output")
    if not target.parent.is_dir():
        raise typer.BadParameter(f"no folder {shown(str(target.parent))} to write {shown(target.name)} in",
                                 param_hint="--output")


def _write_page(page: str, output: str) -> None:
    """Write the page beside ``output`` and rename it into place: never half a report under that name."""
    target = Path(output)
    try:
        with atomic_file(target, "w", encoding="utf-8") as handle:  # Ctrl-C too leaves nothing behind
            handle.write(page)
    except OSError as error:
        raise WriteFailed(output, error) from None


@app.command()
def report(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files, folders, - for standard input, "
                                                                    "or one folder written by `drawlog stats`.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FILE", help="The HTML file to write.")],
    title: Annotated[str | None, typer.Option(metavar="TITLE", help="The page's title (default: names the "
                                                                   "inputs).")] = None,
    max_violations: Annotated[int, typer.Option("--max-violations", min=0, metavar="N",
                                                help="List at most N violations (the rest are counted).")] = 2_000,
    boards: Annotated[int, typer.Option("--boards", min=0, metavar="N",
                                        help="Draw the board of the first N violations listed.")] = 100,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, metavar="N",
                                      help="Processes replaying files at once.")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display, no closing line.")] = False,
) -> None:
    """Write the audit as one HTML page that opens offline: summary, violations with boards, leaderboard, charts.

    From logs, the logs are replayed once and the tables written to a temporary folder; from a
    statistics folder (`drawlog stats`/`audit --out`), the tables are read as they are, and the logs
    they name are read again only for the boards and the checksums.
    Exit status: 0 the report was written, 2 it could not be (nothing read, a bad folder, output).
    """
    from ..tables.report_data import report_data
    from ..views.report import render_report

    _check_output(output)
    folder = _statistics_folder(paths)
    with tempfile.TemporaryDirectory(prefix="drawlog-report-") as work:
        if folder is None:
            folder = str(Path(work) / "stats")
            _write_stats(paths, folder, None, "reading", quiet, jobs,
                         nothing_read=f"nothing could be read, so no report is written ({output} is left as it was)")
        try:
            data = report_data(folder, title=title, max_violations=max_violations, max_boards=boards)
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="PATH") from None
        page = render_report(data)
    _write_page(page, output)
    if not quiet:
        import msgspec

        size = len(page.encode("utf-8")) / 1e6
        summary = msgspec.convert(data.summary, Summary)
        Console(stderr=True, highlight=False).print(
            Text(f"wrote {shown(output)} ({size:,.1f} MB): {summary_line(summary)}"), soft_wrap=True)
