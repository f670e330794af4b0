"""``drawlog stats``, ``audit`` and ``query``: the statistics tables (``players``, ``ratings``: :mod:`.views`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..check.limits import MAX_OPEN_MATCHES, MAX_PER_LINE, MAX_PER_MATCH
from ..errors import NothingRead, OutputBusy, OutputError
from .app import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNUSABLE,
    ClusterOption,
    ConfigOption,
    IsolatedOption,
    MaxOpenMatchesOption,
    MaxPerLineOption,
    MaxPerMatchOption,
    _screen,
    _settings,
    _write_baseline,
    app,
    refuse_clobber,
)
from .table_output import FrameFormatOption, FrameOutputOption, _frame_command

if TYPE_CHECKING:  # imported where used, not to list the commands (start-up time)
    from rich.console import Console

    from ..check.violations import Summary


class AuditFormat(str, Enum):
    """What ``audit`` prints on standard output."""

    text = "text"
    json = "json"


#: The logs ``stats`` and ``audit`` read.
LogPaths = Annotated[list[str], typer.Argument(metavar="PATH", help="Log files, folders, or - for standard input.")]
#: ``--out`` of ``stats`` and ``audit``.
OutFolder = Annotated[str, typer.Option("--out", "--output", "-o", metavar="DIR",
                                        help="Folder for the Parquet tables (replaced whole).")]


#: ``--rebuild`` of ``stats`` and ``audit``.
RebuildOption = Annotated[bool, typer.Option("--rebuild", help="Replay every input, even those the folder's tables "
                                                               "already hold unchanged.")]

def _write_stats(paths: list[str], out: str, partition_by: str | None, progress_label: str,
                 quiet: bool, jobs: int, codes: Optional[frozenset[str]] = None,
                 cluster: Optional[str] = None,
                 ignored_in: Optional[Callable[[str], frozenset[str]]] = None, *,
                 max_per_match: int = MAX_PER_MATCH, max_per_line: int = MAX_PER_LINE,
                 max_open_matches: int = MAX_OPEN_MATCHES, nothing_read: str | None = None,
                 rebuild: bool = False) -> Summary:
    """Validate and write the tables; exit 2 when the folder or the key is refused, or nothing could be read.

    ``nothing_read``: what to say when nothing could be read, instead of naming
    ``out`` (a scratch folder the user never named, say).

    ``codes``: the violations reported (in the violations table and the summary), less ``ignored_in(file)``
    for each file (``per-file-ignores``); the replay checks every rule. The caps are ``validate``'s, so
    both report the same violations.
    """
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        SpinnerColumn,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    from ..api import read_stats, write_stats
    from ..check.validator import Validator
    from ..log.clobber import clobbered_input
    from ..views.terminal import shown

    found = clobbered_input(out, paths, into_folder=True)  # an input inside --out would be deleted by the swap
    if found is not None and found[1] != "inside":  # (tables in a folder beside the logs overwrite no log)
        raise typer.BadParameter(f"{shown(found[0])} is inside {shown(out)}, which the run replaces whole: "
                                 f"move it out first", param_hint="--out")
    from ..check.parts import add_summaries
    from ..tables.cluster import ClusterError

    validator = Validator(codes, max_per_match, max_open_matches, max_per_line, ignored_in)
    console = Console(stderr=True)
    disable = quiet or not console.is_terminal
    total = None if disable or cluster is not None else _bytes_to_read(paths)
    megabytes = "{task.fields[megabytes]:,.1f} MB" if total is None \
        else "{task.fields[megabytes]:,.1f}/{task.fields[total_megabytes]:,.1f} MB"
    columns = [SpinnerColumn(), TextColumn(progress_label),
               *([BarColumn(), TaskProgressColumn()] if total is not None else []), TextColumn(megabytes),
               TextColumn("{task.fields[matches]:,} matches"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn()]
    progress = Progress(*columns, console=console, transient=True, disable=disable)
    started = time.perf_counter()
    read = [0]
    with progress:
        task = progress.add_task(progress_label, total=total, megabytes=0.0, matches=0, rate="",
                                 total_megabytes=(total or 0) / 1e6)

        def advance(size: int) -> None:
            read[0] += size
            matches = validator.summary.matches
            elapsed = max(time.perf_counter() - started, 1e-9)
            progress.update(task, completed=min(read[0], total) if total else None, megabytes=read[0] / 1e6,
                            matches=matches, rate=f"{matches / elapsed:,.0f} matches/s")

        def file_done(index: int, part: Summary) -> None:  # --cluster: a file replayed by a worker
            add_summaries(validator.summary, part)
            advance(0)

        validator.on_block = advance if not progress.disable else None  # --jobs: workers report only to a bar
        try:
            summary = write_stats(paths, out, partition_by=partition_by, validator=validator, jobs=jobs,
                                  cluster=cluster, on_file=file_done, rebuild=rebuild)
        except ClusterError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="--cluster") from None
        except NothingRead as error:
            _print_unreadable(console, error.unreadable)
            console.print(Text(f"Error: {shown(nothing_read or str(error))}"), soft_wrap=True)
            raise typer.Exit(EXIT_UNUSABLE) from None
        except OutputBusy as error:  # one line: the other run goes on
            typer.echo(f"Error: {shown(str(error))}", err=True)
            raise typer.Exit(EXIT_UNUSABLE) from None
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="--out/--partition-by") from None
        except OSError as error:
            where = error.filename or out
            raise typer.BadParameter(f"cannot write {shown(str(where))}: {error.strerror or error}",
                                     param_hint="--out") \
                from None
    if summary.unreadable:
        import polars as pl

        try:
            unreadable = read_stats(out)["violations"].filter(pl.col("code") == "F007").collect()
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="--out") from None
        _print_unreadable(console, unreadable.select("file", "line", "message").rows())
    return summary


def _bytes_to_read(paths: list[str]) -> int | None:
    """The bytes the inputs hold decompressed (what the progress counts), or None when some input does not tell
    (standard input, a URL, a FIFO, a compressed file that does not state its size)."""
    from ..errors import InputError
    from ..log.reader import expand_paths
    from ..log.remote import is_url
    from ..views.progress import stored_size

    if any(raw == "-" or is_url(raw) for raw in paths):
        return None
    total = 0
    for item in expand_paths(paths):
        if isinstance(item, InputError):
            continue  # F007: nothing to read
        if item.path is None:
            return None
        unpacked = stored_size(item.path)[1]
        if unpacked is None:
            return None
        total += unpacked
    return total or None


def _print_unreadable(console: Console, unreadable: list[tuple[str, int | None, str]]) -> None:
    """One line per unreadable input (F007): file (and line), and why."""
    from rich.text import Text

    from ..views.terminal import shown

    for file, line, message in unreadable:
        where = f"{file}:{line}" if line else file
        console.print(Text.assemble(("F007", "red"), f" {shown(where)}: {shown(message)}"), soft_wrap=True)


@app.command()
def stats(
    paths: LogPaths,
    out: OutFolder,
    partition_by: Annotated[Optional[str], typer.Option(metavar="COLUMN", help="Write hive-style folders by this "
                                                                               "column: "
                                                             "tournament, table_name, variant or file.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", metavar="N", min=1, help="Processes replaying files at "
                                                                               "once.")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    cluster: ClusterOption = None,
    max_per_match: MaxPerMatchOption = None,
    max_per_line: MaxPerLineOption = None,
    max_open_matches: MaxOpenMatchesOption = MAX_OPEN_MATCHES,
    rebuild: RebuildOption = False,
) -> None:
    """Replay the logs and write matches, rounds, players, moves, violations and deals as Parquet tables.

    Run again on the same --out, only the inputs new or changed since are replayed (and those after them).
    """
    from rich.console import Console
    from rich.text import Text

    from ..views.terminal import shown
    from ..views.writers import summary_line

    summary = _write_stats(paths, out, partition_by, "stats", quiet, jobs, cluster=cluster,
                           max_per_match=max_per_match or MAX_PER_MATCH, max_per_line=max_per_line or MAX_PER_LINE,
                           max_open_matches=max_open_matches, rebuild=rebuild)
    console = Console(stderr=True)
    inputs_line = _inputs_line(out)
    if inputs_line:  # (before the last line, which says what was written)
        console.print(Text(inputs_line), soft_wrap=True)
    console.print(Text(f"wrote {shown(out)}: {summary_line(summary)}"), soft_wrap=True)


def _inputs_line(out: str) -> str | None:
    """What the run reused, replayed and dropped of the folder's inputs (None when the manifest does not say)."""
    from ..tables.storage import read_manifest

    counts = read_manifest(out).get("incremental")
    if not isinstance(counts, dict):
        return None
    line = f"inputs: {counts.get('reused', 0):,} reused, {counts.get('replayed', 0):,} replayed, " \
           f"{counts.get('dropped', 0):,} dropped"
    why = counts.get("why_all")
    if why and counts.get("replayed"):
        line += f" (all replayed: {why})"
    return line


@app.command()
def audit(
    paths: LogPaths,
    out: OutFolder,
    partition_by: Annotated[Optional[str], typer.Option(metavar="COLUMN", help="Write hive-style folders by this "
                                                                               "column.")] = None,
    top: Annotated[int, typer.Option(metavar="N", min=1, help="How many players and files to list.")] = 5,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", metavar="N", min=1,
                                                help="Processes replaying files at once (default 1).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    select: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Report (in the violations table "
                                                        "and the summary) only these codes or prefixes (M, M20, "
                                                        "M205); repeat or comma-separate.")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Do not report these codes or "
                                                        "prefixes.")] = None,
    extend_select: Annotated[Optional[list[str]], typer.Option(
        "--extend-select", metavar="CODES", help="Report these codes or prefixes too (added to --select).")] = None,
    extend_ignore: Annotated[Optional[list[str]], typer.Option(
        "--extend-ignore", metavar="CODES", help="Do not report these either (added to --ignore).")] = None,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", metavar="FILE", help="Leave the violations this baseline holds out of the summary, the "
                                           "tables printed and the exit status (they are counted, and kept in "
                                           "the violations table).")] = None,
    write_baseline: Annotated[Optional[str], typer.Option(
        "--write-baseline", metavar="FILE", help="Write the violations found to FILE as a baseline (as validate's) "
                                                 "and exit 0, printing one line.")] = None,
    output_format: Annotated[AuditFormat, typer.Option(
        "--format", "-f", help="text, or json: one JSON document (validate's summary, the tables written and "
                               "their rows, and what text shows).")] = AuditFormat.text,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too (exit 1).")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when errors are found (2 still "
                                                                "means nothing could be read).")] = False,
    config: ConfigOption = None,
    isolated: IsolatedOption = False,
    cluster: ClusterOption = None,
    max_per_match: MaxPerMatchOption = None,
    max_per_line: MaxPerLineOption = None,
    max_open_matches: MaxOpenMatchesOption = MAX_OPEN_MATCHES,
    rebuild: RebuildOption = False,
) -> None:
    """The main job, in one pass: validate, write the tables, and print what was found.

    Settings (select, ignore, extend-select, extend-ignore, per-file-ignores, jobs, max-per-match,
    max-per-line) come from
    [tool.drawlog] in pyproject.toml or a drawlog.toml, as for validate; options given here win.

    --baseline FILE (validate's baselines) leaves the violations it holds out of what is printed and of the
    exit status; they are counted, and kept in the violations table. --format json prints one JSON
    document: validate's summary, the tables written and their rows, and what the text shows.

    Exit status, as validate's: 0 no errors, 1 errors found (or warnings with --strict), 2 nothing could
    be read. The tables are written in every case but 2.
    """
    from rich.text import Text

    from ..tables.reports import audit_summary
    from ..views.frames import frame_table
    from ..views.terminal import make_console, shown
    from ..views.writers import quantity, summary_line

    settings = _settings(config, isolated)
    try:
        codes = settings.codes(select, ignore, extend_select, extend_ignore)
    except ValueError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--select/--ignore") from None
    jobs = jobs if jobs is not None else settings.jobs or 1
    if write_baseline is not None and output_format is AuditFormat.json:
        raise typer.BadParameter("--write-baseline writes the baseline, not a report: drop --format json",
                                 param_hint="--write-baseline/--format")
    refuse_clobber("--write-baseline", write_baseline, paths)
    screen = _screen(settings, baseline, False)  # (a bad baseline: exit 2 before anything is replayed)
    summary = _write_stats(paths, out, partition_by, "auditing", quiet, jobs, codes, cluster,
                           settings.ignored_in if settings.per_file_ignores else None,
                           max_per_match=max_per_match or settings.max_per_match or MAX_PER_MATCH,
                           max_per_line=max_per_line or settings.max_per_line or MAX_PER_LINE,
                           max_open_matches=max_open_matches, rebuild=rebuild)
    from .auditing import audit_document, screen_violations

    try:
        violations, recorded = screen_violations(out, summary, screen.baseline if screen is not None else None,
                                                 write_baseline is not None)
    except OutputError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--out") from None
    if write_baseline is not None and recorded is not None:  # as validate's: one line, no report
        _write_baseline(write_baseline, recorded, quiet, summary)
        raise typer.Exit(EXIT_CLEAN)
    inputs_line = _inputs_line(out)
    if inputs_line and not quiet:
        typer.echo(inputs_line, err=True)
    failed = summary.failed(strict)
    status = EXIT_ERRORS if failed and not exit_zero else EXIT_CLEAN
    if output_format is AuditFormat.json:
        import json

        from ..tables.storage import read_manifest

        try:
            found = audit_summary(out, top=top, violations=violations)
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="--out") from None
        counts = read_manifest(out).get("incremental")
        document = audit_document(out, summary, found, counts if isinstance(counts, dict) else None)
        typer.echo(json.dumps(document, ensure_ascii=False, default=str))
        raise typer.Exit(status)
    console = make_console(sys.stdout)  # a pipe or a file: as wide as the tables, so no file name is cut
    share = summary.valid_matches / summary.matches if summary.matches else 0.0
    console.print(Text(f"{quantity(summary.matches, 'match', 'matches')} read, {summary.valid_matches:,} valid "
                       f"({share:.1%}), {summary.complete_matches:,} complete", style="bold"), soft_wrap=True)
    console.print(Text(summary_line(summary)), soft_wrap=True)
    try:
        found = audit_summary(out, top=top, violations=violations)
    except OutputError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--out") from None
    for key, title in (("variants", "matches by variant"), ("by_code", "violations by code"),
                       ("players", "players with most errors"), ("files", "files with most errors")):
        if found[key].height > (1 if key == "variants" else 0):
            console.print(frame_table(found[key], title=title))
    import shlex

    example = "SELECT code, count(*) AS n FROM violations GROUP BY code ORDER BY n DESC"
    console.print(Text(f"tables in {shown(out)}: query them with `drawlog query {shown(shlex.quote(out))} "
                       f"\"{example}\"`"), soft_wrap=True)
    raise typer.Exit(status)


@app.command()
def query(
    folder: Annotated[str, typer.Argument(metavar="DIR", help="A folder (or a URL: s3://…, file://…) written by `drawlog stats` or `drawlog audit`.")],
    sql: Annotated[str, typer.Argument(metavar="SQL", help="SQL over the tables matches, rounds, players, moves, "
                                                       "violations.")],
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Run SQL (polars SQL) over the statistics tables."""
    import polars as pl

    from ..tables.reports import query as run_query
    from ..tables.stats import TABLES
    from ..views.terminal import shown

    def compute():  # noqa: ANN202
        try:
            return run_query(folder, sql)
        except (pl.exceptions.PolarsError, pl.exceptions.SQLInterfaceError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise typer.BadParameter(f"the query failed: {shown(first)} (tables: {', '.join(TABLES)})",
                                     param_hint="SQL") from None

    _frame_command(compute, output_format, output, folder)
