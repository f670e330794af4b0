"""``drawlog report``: the audit as one self-contained HTML page, from logs or from a statistics folder."""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from ..atomic import atomic_file
from ..errors import OutputError, WriteFailed
from ..views.terminal import shown
from ..views.writers import summary_line
from .app import app, refuse_clobber
from .tables import _write_stats

if TYPE_CHECKING:
    from ..tables.report_data import LogAccess, Spooled


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


def _is_pipe(raw: str) -> bool:
    """Whether the input ``raw`` is standard input, a pipe or a FIFO: data that can be read only once."""
    if raw == "-":
        return True
    try:
        return stat.S_ISFIFO(os.stat(raw).st_mode)
    except (OSError, ValueError):
        return False


def _spool(paths: list[str], folder: Path) -> tuple[list[str], dict[str, Spooled]]:
    """Read each pipe or FIFO among ``paths`` once into a file in ``folder``, counting and hashing its bytes.

    The report replays the copy, draws its boards from it and gives the
    checksum of what was read: a pipe is never opened twice (the second
    open of a FIFO whose writer is gone waits for ever). Returns the paths
    to read (copies in place of pipes) and the copies by the name given.
    """
    from ..log.reader import is_zstd
    from ..tables.report_data import Spooled

    read: list[str] = []
    spooled: dict[str, Spooled] = {}
    for index, raw in enumerate(paths):
        if raw in spooled:  # named twice: the copy, once more (read once, as a file named twice is)
            read.append(str(spooled[raw].path))
            continue
        if not _is_pipe(raw):
            read.append(raw)
            continue
        digest, size, start = hashlib.sha256(), 0, b""
        copy = folder / str(index)
        try:
            with (sys.stdin.buffer if raw == "-" else open(raw, "rb")) as source, open(copy, "wb") as sink:
                while chunk := source.read(1 << 20):
                    digest.update(chunk)
                    size += len(chunk)
                    start = start or chunk[:4]
                    sink.write(chunk)
        except OSError:
            read.append(raw)  # (said as stats says it, when it cannot be read)
            continue
        lowered = raw.lower()
        suffix = (".jsonl.gz" if lowered.endswith(".gz") or start.startswith(b"\x1f\x8b") else
                  ".jsonl.zst" if lowered.endswith(".zst") or is_zstd(start) else ".jsonl")
        copy = copy.rename(copy.with_name(copy.name + suffix))
        spooled[raw] = Spooled(copy, size, digest.hexdigest())
        read.append(str(copy))
    return read, spooled


def _named_back(folder: Path, spooled: dict[str, Spooled]) -> None:
    """In the tables of ``folder``, the name and path of each pipe read through a copy are the pipe's again."""
    import json

    import polars as pl

    from ..tables.generations import hold
    from ..tables.output import MANIFEST

    names = {str(copy.path): raw for raw, copy in spooled.items()}
    paths: dict[str, str | None] = {}
    for raw, copy in spooled.items():
        for stored in (os.path.abspath(copy.path), os.path.realpath(copy.path)):
            paths[stored] = None if raw == "-" else os.path.abspath(raw)
    folder = hold(folder)  # the generation just written (its tables are its own folders, not links)
    for table in folder.glob("*/**/*.parquet"):  # (streamed: a long log's moves are not all held at once)
        frame = pl.scan_parquet(table).with_columns(pl.col("file").replace(names), pl.col("path").replace(paths))
        if "message" in frame.collect_schema():  # ("first at FILE:LINE")
            for name, given in names.items():
                frame = frame.with_columns(pl.col("message").str.replace_all(name, given, literal=True))
        renamed = table.with_name(table.name + ".named")
        frame.sink_parquet(renamed)
        renamed.replace(table)
    manifest = folder / MANIFEST
    held = json.loads(manifest.read_text(encoding="utf-8"))
    held["inputs"] = [names.get(item, item) for item in held.get("inputs") or []]
    manifest.write_text(json.dumps(held, indent=2), encoding="utf-8")


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
                                                help="List at most N violations, shown 50 to a page grouped by "
                                                     "match (the rest are counted).")] = 20_000,
    boards: Annotated[int, typer.Option("--boards", min=0, metavar="N",
                                        help="Draw the board of the first N violations listed.")] = 100,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, metavar="N",
                                      help="Processes replaying files at once.")] = 1,
    logs: Annotated[list[str] | None, typer.Option(
        "--logs", metavar="PATH", help="From a statistics folder: the log files or folders it was made from, "
                                       "which the report may read again for boards and checksums (repeatable; "
                                       "by default none is read).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display, no closing line.")] = False,
    alias: Annotated[str | None, typer.Option("--alias", metavar="FILE", help="Merge players' names (as "
                                              "`drawlog players --alias`; default: [tool.drawlog] aliases).")] = None,
    analyze: Annotated[bool, typer.Option("--analyze", help="When the tables hold no analysis (from "
                                          "`drawlog analyze`), analyse the logs (from a statistics folder: the --logs ones) "
                                          "for the Analysis section, at analyze's defaults (64 deals per decision, "
                                          "seed 0): about a second of CPU per 2-player match; --jobs "
                                          "splits it.")] = False,
) -> None:
    """Write the audit as one HTML page that opens offline: the verdict and the results to correct first, then
    the leaderboard, charts and violations with their boards.

    From logs, the logs are replayed once and the tables written to a temporary folder; from a
    statistics folder (`drawlog stats`/`audit --out`), the tables are read as they are (untrusted:
    nothing in them runs in the page), and the logs they name are read again, for the boards and the
    checksums, only if they are regular files named with --logs or lying under a folder so named.
    When the folder holds the analysis tables (or with --analyze), an Analysis section: accuracy,
    errors, luck and peeking per player, and each match's critical moments with their boards.
    Exit status: 0 the report was written, 2 it could not be (nothing read, a bad folder, output).
    """
    from ..tables.report_data import LogAccess, report_data
    from ..views.report import render_report
    from .views import _aliases

    aliases = _aliases(alias)
    _check_output(output)
    refuse_clobber("-o", output, [*paths, *(logs or [])])
    folder = _statistics_folder(paths)
    if analyze and folder is not None and not logs:
        raise typer.BadParameter("--analyze from a statistics folder analyses the logs named with --logs: give them",
                                 param_hint="--analyze")
    fresh = None
    with tempfile.TemporaryDirectory(prefix="drawlog-report-") as work:
        if folder is None:
            folder = str(Path(work) / "stats")
            (Path(work) / "read").mkdir()
            read, spooled = _spool(paths, Path(work) / "read")
            _write_stats(read, folder, None, "reading", quiet, jobs,
                         nothing_read=f"nothing could be read, so no report is written ({output} is left as it was)")
            if spooled:
                _named_back(Path(folder), spooled)
            access = LogAccess.of([path for path in paths if path not in spooled], spooled)
            if analyze:
                fresh = _analysed(read, {str(copy.path): raw for raw, copy in spooled.items()}, jobs, quiet)
        else:
            access = LogAccess.of(logs or [])
            if analyze and not _holds_analysis(folder):
                fresh = _analysed(list(logs or []), {}, jobs, quiet)
        try:
            data = report_data(folder, title=title, max_violations=max_violations, max_boards=boards,
                               access=access, aliases=aliases)
            data.analysis = _analysis_section(folder, fresh, access, boards)
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="PATH") from None
        page = render_report(data)
    _write_page(page, output)
    if not quiet:
        size = len(page.encode("utf-8")) / 1e6
        console = Console(stderr=True, highlight=False)
        for note in data.notes:
            console.print(Text(f"warning: {shown(folder)}: {note}"), soft_wrap=True)
        console.print(Text(f"wrote {shown(output)} ({size:,.1f} MB): {summary_line(data.summary)}"), soft_wrap=True)


def _holds_analysis(folder: str) -> bool:
    """Whether a local statistics folder holds the analysis tables (a folder at a URL: never read for them)."""
    from ..log.remote import is_url
    from ..tables.analysis_tables import analysis_sources

    return not is_url(folder) and len(analysis_sources(Path(folder))) == 3


def _analysed(paths: list[str], names: dict[str, str], jobs: int, quiet: bool) -> dict[str, object]:
    """The analysis tables of ``paths`` (``report --analyze``), the copies of pipes named as given (``names``)."""
    import polars as pl

    from ..analysis.defaults import DEFAULT_SAMPLES
    from ..analysis.parallel import analyze_in_parallel
    from ..analysis.summary import frames
    from ..errors import InputError

    if not quiet:
        Console(stderr=True, highlight=False).print(Text(f"analysing {len(paths):,} input(s) at "
                                                         f"{DEFAULT_SAMPLES} deals per decision…"))
    matches = [item for item in analyze_in_parallel(paths, DEFAULT_SAMPLES, 0, None, jobs)
               if not isinstance(item, InputError)]  # (an unreadable input: the summary says so already)
    tables = frames([d for a in matches for d in a.decisions], [v for a in matches for v in a.luck],
                    [r for a in matches for r in a.results])
    if names:
        tables = {name: frame.with_columns(pl.col("file").replace(names)) if "file" in frame.columns else frame
                  for name, frame in tables.items()}
    return tables


def _analysis_section(folder: str, fresh: dict[str, object] | None, access: LogAccess, boards: int,
                      ) -> dict[str, object] | None:
    """The Analysis section's data (None when there is no analysis to show), the first ``boards`` moments drawn."""
    import time

    from ..analysis.report_section import analysis_section
    from ..tables.dataset import open_tables
    from ..tables.report_boards import Wanted, board_of, frames_at
    from ..tables.report_data import BOARDS_SECONDS, to_open

    tables = open_tables(folder)
    if fresh is None:
        if not all(name in tables for name in ("decisions", "analysis_players", "luck")):
            return None
        fresh = {name: tables[name] for name in ("decisions", "analysis_players", "luck")}
    section = analysis_section(fresh)
    paths = {(file, match): path for file, match, path in
             tables["matches"].select("file", "match", "path").unique().collect().iter_rows()}
    rows = [row for each in section["moments"] for row in each["moments"]][:boards]
    wanted = [Wanted(index, row["file"], paths.get((row["file"], row["match"])), row["line"], row["match"])
              for index, row in enumerate(rows)]
    frames = frames_at(wanted, opened=lambda file, path: to_open(access, file, path),
                       deadline=time.monotonic() + BOARDS_SECONDS) if wanted else {}
    for index, row in enumerate(rows):
        row["board"] = board_of(frames[index]) if index in frames else None
    section["boards"] = sum(row["board"] is not None and row["board"]["board"] is not None for row in rows)
    return section
