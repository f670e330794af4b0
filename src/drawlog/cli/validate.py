"""``drawlog validate``: logs checked, every violation reported (``rule`` and ``schema``: :mod:`.rules`)."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..check.limits import MAX_OPEN_MATCHES, MAX_PER_LINE, MAX_PER_MATCH
from ..errors import ClusterError, InputError, WriteFailed
from ..views.streams import STATISTICS_FORMATS, GuardedStream
from .app import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_UNUSABLE,
    ClusterOption,
    ColorChoice,
    ConfigOption,
    IsolatedOption,
    MaxOpenMatchesOption,
    MaxPerLineOption,
    MaxPerMatchOption,
    OutputFormat,
    _configured_format,
    _screen,
    _selection_note,
    _settings,
    _write_baseline,
    app,
    refuse_clobber,
)

if TYPE_CHECKING:  # the library is imported by the commands that use it, not to list the commands (start-up time)
    from ..atomic import AtomicFile
    from ..check.baseline import Screen
    from ..check.validator import Validator
    from ..check.violations import Summary
    from ..log.sources import Source
    from ..views.progress import ValidateProgress


@app.command()
def validate(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files (.jsonl, .jsonl.gz, "
                                                    ".jsonl.zst), folders, or - for standard input.")],
    output_format: Annotated[Optional[OutputFormat], typer.Option(
        "--format", "-f", metavar="FORMAT", help="Output format: text (the default), concise (path:line: CODE "
                                                 "message), json, jsonl (ends with a summary record), github, "
                                                 "sarif, junit, gitlab.")] = None,
    select: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Report only these codes or prefixes "
                                                        "(M, M20, M205); repeat or comma-separate.")]
    = None,
    ignore: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Do not report these codes or "
                                                                             "prefixes.")] = None,
    extend_select: Annotated[Optional[list[str]], typer.Option(
        "--extend-select", metavar="CODES", help="Report these codes or prefixes too (added to --select).")] = None,
    extend_ignore: Annotated[Optional[list[str]], typer.Option(
        "--extend-ignore", metavar="CODES", help="Do not report these either (added to --ignore).")] = None,
    statistics: Annotated[bool, typer.Option("--statistics", help="Print counts per code instead of each "
                                                                  "violation: a table, count<TAB>code<TAB>name "
                                                                  "lines with --format concise, or JSON "
                                                                  "(--format json or jsonl).")] = False,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first error.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too (exit 1).")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when errors are found "
                                                                "(2 still means nothing could be read).")]
    = False,
    output_file: Annotated[Optional[str], typer.Option(
        "--output", "--output-file", "-o", metavar="FILE",
        help="Write the report to FILE instead of standard output (--output-file: the same).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the violations: no summary line, "
                                                              "no progress bar.")] = False,
    color: Annotated[ColorChoice, typer.Option("--color", metavar="WHEN", help="Colour text and concise output: "
                                                                              "auto (on a terminal), always, "
                                                                              "never.")] = ColorChoice.auto,
    stdin_filename: Annotated[Optional[str], typer.Option(
        "--stdin-filename", metavar="NAME", help="The name that standard input (-) gets in every output.")] = None,
    hide_follow_ons: Annotated[bool, typer.Option(
        "--hide-follow-ons", help="Leave out the violations that only follow from an earlier one (their "
                                  "\"follows\" is set: \"(follows line N)\" in text). They are still counted "
                                  "(summary follow_ons, and errors): the exit status is the same.")] = False,
    show_source: Annotated[bool, typer.Option(
        "--show-source", help="Show the log line under each violation, the field at fault marked (concise "
                              "output; cut to the width on a terminal).")] = False,
    max_per_match: MaxPerMatchOption = None,
    max_per_line: MaxPerLineOption = None,
    max_open_matches: MaxOpenMatchesOption = MAX_OPEN_MATCHES,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", metavar="FILE", help="Report only violations not in this baseline (written by "
                                           "--write-baseline); those in it are counted, not shown.")] = None,
    write_baseline: Annotated[Optional[str], typer.Option(
        "--write-baseline", metavar="FILE", help="Write the violations found to FILE as a baseline (file, code, "
                                                 "match and message, not the line) and exit 0.")] = None,
    jobs: Annotated[Optional[int], typer.Option(
        "--jobs", "-j", metavar="N", min=1, help="Processes validating files at once (default 1); the report is "
                                                 "the same as with one.")] = None,
    config: ConfigOption = None,
    isolated: IsolatedOption = False,
    cluster: ClusterOption = None,
    follow: Annotated[bool, typer.Option(
        "--follow", help="Follow one growing file (or -) as tail -F does: print each violation as its line "
                               "is written, through truncation and rotation; Ctrl-C prints the summary.")] = False,
) -> None:
    """Replay every match of the logs and report each violation with its code, file and line.

    On a terminal, text output shows a progress bar on standard error (files, MB read of the total
    as stored, time left); -q or an output that is not a terminal turns it off.

    Settings come from [tool.drawlog] in pyproject.toml or a drawlog.toml, the nearest from the
    current folder upwards (--config FILE, --isolated); options given here win.

    --cluster replays each file on a Dask cluster: the report is the same, in every format.

    Exit status: 0 no errors, 1 errors found (or warnings with --strict), 2 nothing could be read.
    """
    from ..log.reader import expand_paths
    from ..views.terminal import shown

    if cluster is not None and fail_fast:
        raise typer.BadParameter("--fail-fast stops at the first error, which one process reading in order finds: "
                                 "drop --cluster or --fail-fast", param_hint="--cluster/--fail-fast")
    settings = _settings(config, isolated)
    try:
        codes = settings.codes(select, ignore, extend_select, extend_ignore)
    except ValueError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--select/--ignore") from None
    if show_source and output_format not in (None, OutputFormat.concise):
        raise typer.BadParameter("--show-source shows each violation's line under it in concise output: drop "
                                 f"--format {output_format.value}, or use --format concise",
                                 param_hint="--show-source/--format")
    output_format = OutputFormat.concise if show_source else output_format or _configured_format(settings)
    max_per_match = max_per_match or settings.max_per_match or MAX_PER_MATCH
    max_per_line = max_per_line or settings.max_per_line or MAX_PER_LINE
    jobs = jobs if jobs is not None else settings.jobs or 1
    screen = _screen(settings, baseline, write_baseline is not None)
    if statistics and output_format.value not in STATISTICS_FORMATS:
        raise typer.BadParameter("--statistics prints counts, not annotations: use --format text, json or jsonl, "
                                 "or concise for one line per code", param_hint="--statistics/--format")
    if write_baseline is not None and output_file is not None:
        raise typer.BadParameter("--write-baseline writes the baseline, not a report: drop -o FILE",
                                 param_hint="--write-baseline/--output-file")
    if follow:
        from .following import follow_validate, refusal

        why = refusal(paths, output_format.value, **{"-o": output_file, "--write-baseline": write_baseline,
                                                     "--statistics": statistics, "--cluster": cluster})
        if why is not None:
            raise typer.BadParameter(why, param_hint="--follow")
        summary = follow_validate(
            paths[0], sys.stdout, codes, output_format.value, strict=strict, quiet=quiet, color=color.value,
            max_per_match=max_per_match, max_per_line=max_per_line, max_open_matches=max_open_matches,
            ignored_in=settings.ignored_in if settings.per_file_ignores else None, screen=screen,
            hide_follow_ons=hide_follow_ons, fail_fast=fail_fast, name=stdin_filename if paths[0] == "-" else None,
            note=_selection_note(settings, select, ignore, extend_select, extend_ignore))
        failed = summary.failed(strict) and not exit_zero
        raise typer.Exit(EXIT_UNUSABLE if summary.files == 0 else EXIT_ERRORS if failed else EXIT_CLEAN)
    refuse_clobber("-o", output_file, paths)
    refuse_clobber("--write-baseline", write_baseline, paths)
    inputs = [_named_stdin(item, stdin_filename) for item in expand_paths(paths)]
    report = _open_report(output_file) if output_file else None
    stream = GuardedStream(report.handle, report.path) if report is not None else sys.stdout
    if write_baseline is not None:  # as ruff's --add-noqa: no report, one line once the baseline is written
        stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed with the process
        output_format, statistics = OutputFormat.jsonl, False
    try:
        summary, unread = _validate_inputs(inputs, stream, codes, output_format.value, statistics=statistics,
                                           fail_fast=fail_fast, strict=strict, quiet=quiet, color=color.value,
                                           to_file=output_file is not None, max_per_match=max_per_match,
                                           max_per_line=max_per_line,
                                           ignored_in=settings.ignored_in if settings.per_file_ignores else None,
                                           max_open_matches=max_open_matches, jobs=jobs, cluster=cluster,
                                           screen=screen, hide_follow_ons=hide_follow_ons,
                                           show_source=show_source and not statistics,
                                           note=_selection_note(settings, select, ignore, extend_select,
                                                                extend_ignore))
    except BaseException:
        if report is not None:
            report.discard()  # an interrupted or failed report leaves no file (a previous one stays)
        raise
    if report is not None:
        try:
            report.commit()
        except OSError as error:
            raise WriteFailed(report.path, error) from None
    if summary.files == 0 and not unread:
        raise typer.Exit(EXIT_UNUSABLE)  # nothing could be read (not even left unread by --fail-fast), in any mode
    if write_baseline is not None and screen is not None and screen.recorded is not None:
        _write_baseline(write_baseline, screen.recorded, quiet, summary)
        raise typer.Exit(EXIT_CLEAN)
    failed = summary.failed(strict)
    raise typer.Exit(EXIT_ERRORS if failed and not exit_zero else EXIT_CLEAN)


def _named_stdin(item: Source | InputError, name: str | None) -> Source | InputError:
    """Standard input under ``--stdin-filename``'s name; anything else as it is."""
    from ..log.sources import Source

    if name is not None and isinstance(item, Source) and item.path is None:
        return dataclasses.replace(item, name=name)
    return item


def _open_report(target: str) -> AtomicFile:
    """``-o FILE`` opened for writing, in place only once whole; exit 2 with one line when it cannot be."""
    from ..atomic import AtomicFile
    from ..views.terminal import shown

    try:
        return AtomicFile(target, "w", encoding="utf-8")
    except OSError as error:
        typer.echo(f"Error: cannot write {shown(target)}: {error.strerror or error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _validate_inputs(inputs: list[Source | InputError], stream: Any, codes: frozenset[str], fmt: str, *,
                     statistics: bool, fail_fast: bool, strict: bool, quiet: bool, color: str,
                     to_file: bool, max_per_match: int | None = MAX_PER_MATCH, max_per_line: int = MAX_PER_LINE,
                     screen: Screen | None = None, ignored_in: Callable[[str], frozenset[str]] | None = None,
                     note: str = "", max_open_matches: int = MAX_OPEN_MATCHES,
                     jobs: int = 1, cluster: str | None = None,
                     hide_follow_ons: bool = False, show_source: bool = False) -> tuple[Summary, bool]:
    """Validate the inputs one by one into the writer of ``fmt``; the summary, and whether inputs were left unread.

    With ``jobs`` > 1 (and no ``fail_fast``, which stops at the first error) the
    inputs are validated by that many processes, and reported the same; with
    ``cluster`` (``local:N``, ``tcp://HOST:PORT``) by a Dask cluster's workers.

    The progress bar (standard error) is shown on a terminal for text output or
    a report written to a file, unless ``quiet``; text bound for the same
    terminal is printed through the bar's console, above the bar.
    """
    from ..check.validator import Validator
    from ..log.reader import printable
    from ..log.sources import Source
    from ..views.progress import ValidateProgress
    from ..views.terminal import make_console
    from ..views.writers import RootsOnly, make_writer

    errors = make_console(sys.stderr, color)
    bar = not quiet and errors.is_terminal and sys.stderr.isatty() and (fmt == "text" or statistics or to_file)
    console = errors if bar and not to_file and _same_terminal() else make_console(stream, color)
    writer = make_writer(fmt, stream, statistics=statistics, console=console, quiet=quiet, strict=strict)
    writer.note = note
    if show_source:  # (a ConciseWriter: --show-source chose concise)
        writer.sources = {item.name: item for item in inputs if isinstance(item, Source)}  # type: ignore[attr-defined]
    if hide_follow_ons:
        writer = RootsOnly(writer)
    validator = Validator(codes, max_per_match, max_open_matches, max_per_line, ignored_in)
    progress = ValidateProgress(inputs, errors, enabled=bar)

    def on_block(size: int) -> None:
        progress.advance(size)
        writer.poll()

    validator.on_block = on_block
    unread = False
    try:
        with progress:
            jobs = min(jobs, len(inputs), os.cpu_count() or 1)  # more processes than inputs or cores gain nothing
            parts = _parts(inputs, jobs) if jobs > 1 and not fail_fast and cluster is None else []
            parallel = len(parts) > 1 or cluster is not None
            if parallel:
                _validate_in_parallel(inputs, parts, validator, jobs, writer, progress, screen, cluster)
            for index, item in enumerate([] if parallel else inputs):
                writer.start_file(printable(item.name if isinstance(item, Source) else item.path))
                progress.start_file(index)
                stop = False
                found = validator.validate_inputs([item])
                for violation in screen(found, validator.summary) if screen is not None else found:
                    writer.add(violation)
                    # (an unreadable input before any readable one does not stop it: exit 2 must tell
                    # whether anything could be read)
                    if fail_fast and violation.severity == "error" \
                            and not (violation.code == "F007" and validator.summary.files == 0):
                        stop = True
                        break
                getattr(found, "close", lambda: None)()  # a validation left early counts the lines it read now
                writer.end_file()
                progress.end_file()
                if stop:
                    unread = any(isinstance(rest, Source) for rest in inputs[index + 1:])
                    break
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    writer.finish(validator.summary)
    return validator.summary, unread


def _parts(inputs: list[Source | InputError], jobs: int) -> list[range]:
    """The parts ``jobs`` processes would validate (none with standard input: one process reads it)."""
    from ..check.pool import is_standard_input, plan_parts

    return [] if any(is_standard_input(item) for item in inputs) else plan_parts(inputs, jobs)


def _validate_in_parallel(inputs: list[Source | InputError], parts: list[range], validator: Validator, jobs: int,
                          writer: Any, progress: ValidateProgress, screen: Screen | None,
                          cluster: str | None = None) -> None:
    """``jobs`` processes (or ``cluster``'s workers) validate the inputs; each is reported in order, counted in ``validator``."""
    from contextlib import closing

    from ..check.parallel import validate_in_parallel
    from ..check.parts import PartOptions
    from ..views.terminal import shown

    summary = validator.summary
    options = PartOptions.of(validator)
    if cluster is not None:
        from ..tables.cluster import validate_on_cluster

        done = (lambda index, part: progress.worker_read(index, 0, part.matches, True)) if progress.enabled else None
        files = validate_on_cluster(inputs, cluster, options, summary, done)
    else:
        files = validate_in_parallel(inputs, options, jobs, summary, progress.worker_read if progress.enabled else None,
                                     parts)
    with closing(files):  # a Ctrl-C here stops the workers (or cancels the cluster's tasks) now
        try:
            for name, found in files:
                writer.start_file(name)
                for violation in screen(found, summary) if screen is not None else found:
                    writer.add(violation)
                writer.end_file()
        except ClusterError as error:  # no dask, a scheduler not reached, standard input (before any file)
            raise typer.BadParameter(shown(str(error)), param_hint="--cluster") from None


def _same_terminal() -> bool:
    """Whether standard output and standard error are the same terminal."""
    try:
        return sys.stdout.isatty() and os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (AttributeError, ValueError, OSError):
        return False
