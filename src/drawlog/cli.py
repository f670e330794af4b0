"""The ``drawlog`` command line: a thin Typer layer over the library."""

from __future__ import annotations

import dataclasses
import io
from collections import Counter
import os
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import msgspec
import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperArgument, TyperGroup

from . import COMPILED, __version__
from .check.baseline import Baseline, BaselineError, Key, Screen
from .check.baseline import write_baseline as write_baseline_file
from .check.config import ConfigError, Settings, resolve_settings
from .check.rules import RULES, Rule, find_rule, select_codes
from .check.replay import MAX_OPEN_MATCHES
from .check.validator import Validator
from .check.violations import Summary
from .errors import InputError, NothingRead, OutputError, WriteFailed
from .log.events import json_schema
from .log.reader import Source, expand_paths, printable
from .play.bots import BOTS
from .play.recording import encode_faults, open_output, record
from .play.simulate import (
    MAX_ROUNDS,
    RULE_KEYS,
    EndlessMatches,
    SimulationOptions,
    Simulator,
    check_options,
    default_match_prefix,
)
from .views.frames import frame_table, write_frame, write_output
from .views.progress import ValidateProgress
from .views.writers import (
    STANDARD_OUTPUT,
    STATISTICS_FORMATS,
    GuardedStream,
    make_console,
    make_writer,
    quantity,
    results_table,
    shown,
    summary_line,
)

EXIT_CLEAN, EXIT_ERRORS, EXIT_UNUSABLE = 0, 1, 2
#: A reader that went away (``drawlog … | head``): 128 + SIGPIPE, what a shell reports for ``cat`` there.
EXIT_BROKEN_PIPE = 141


class DrawlogGroup(TyperGroup):
    """The ``drawlog`` command group, which also stands guard over standard output.

    Every command writes through a :class:`GuardedStream`, flushed before the
    command ends, so a failure to write output is one line naming the target
    and exit 2, and a closed pipe ends the run quietly with exit 141.
    """

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command, its arguments shown in ``--help`` by their metavar alone (``PATH...``)."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _plain_arguments(command)
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command line with standard output guarded."""
        stdout = sys.stdout
        sys.stdout = GuardedStream(stdout)  # type: ignore[assignment]
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                sys.stdout.flush()
        except WriteFailed as failure:
            _exit_on_write_failure(failure)
        finally:
            sys.stdout = stdout


def _plain_arguments(command: Any) -> None:
    """Name each argument with a metavar by it alone in ``--help``: ``PATH...``, not ``{PATH}...`` and ``<list[str]>``."""
    for param in getattr(command, "params", []):
        if isinstance(param, TyperArgument) and param.metavar is not None:
            shown_name = f"{param.metavar}{'...' if param.nargs != 1 else ''}"
            usage = shown_name if param.required else f"[{shown_name}]"
            param.display_type_rich = _no_type_label  # type: ignore[method-assign]
            param._usage_display_name = _constant(usage)  # type: ignore[method-assign]


def _no_type_label(ctx: Any) -> None:
    """No ``<type>`` label after an argument's name in ``--help``."""
    return None


def _constant(text: str) -> Callable[[], str]:
    """A function that returns ``text``."""
    return lambda: text


def _exit_on_write_failure(failure: WriteFailed) -> None:
    """Exit quietly (141) when the reader went away, else print the failure in one line and exit 2."""
    if failure.target == STANDARD_OUTPUT:
        _discard_standard_output()
    if failure.broken_pipe:
        sys.exit(EXIT_BROKEN_PIPE)
    typer.echo(f"Error: {shown(str(failure))}", err=True)
    sys.exit(EXIT_UNUSABLE)


def _discard_standard_output() -> None:
    """Point standard output at the null device, so that the flush at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass  # not a real file (a test runner's stream): nothing is flushed at exit


app = typer.Typer(
    name="drawlog",
    cls=DrawlogGroup,
    help="Validate, score and analyse move logs of the domino game Draw.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


class OutputFormat(str, Enum):
    """How ``validate`` prints violations."""

    text = "text"
    concise = "concise"
    json = "json"
    jsonl = "jsonl"
    github = "github"
    sarif = "sarif"
    junit = "junit"
    gitlab = "gitlab"


class ColorChoice(str, Enum):
    """When ``validate`` colours its text output."""

    auto = "auto"
    always = "always"
    never = "never"


class RuleFormat(str, Enum):
    """How ``rule`` prints explanations."""

    text = "text"
    json = "json"


#: ``--config`` of ``validate`` and ``audit``.
ConfigOption = Annotated[Optional[str], typer.Option(
    "--config", metavar="FILE", help="Read settings from this TOML file (a drawlog.toml, or a pyproject.toml's "
                                     "[tool.drawlog]) instead of the one found from the current folder up.")]
#: ``--isolated`` of ``validate`` and ``audit``.
IsolatedOption = Annotated[bool, typer.Option("--isolated", help="Ignore configuration files.")]


def _settings(config: str | None, isolated: bool) -> Settings:
    """The configuration a command runs with; a bad file or key is one line naming them, exit 2."""
    if config is not None and isolated:
        raise typer.BadParameter("give --config FILE or --isolated, not both", param_hint="--config/--isolated")
    try:
        return resolve_settings(config, isolated)
    except ConfigError as error:
        typer.echo(f"Error: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _configured_format(settings: Settings) -> OutputFormat:
    """The configuration's ``format`` (text when it sets none); a value that is no format exits 2."""
    if settings.format is None:
        return OutputFormat.text
    try:
        return OutputFormat(settings.format)
    except ValueError:
        typer.echo(f"Error: {shown(settings.where('format'))}: {settings.format!r} is not a format "
                   f"({', '.join(item.value for item in OutputFormat)})", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _screen(settings: Settings, baseline: str | None, record: bool) -> Screen | None:
    """Per-file ignores and the baseline between validator and report (None when neither applies)."""
    known = None
    if baseline is not None:
        try:
            known = Baseline.load(baseline)
        except BaselineError as error:
            typer.echo(f"Error: {shown(str(error))}", err=True)
            raise typer.Exit(EXIT_UNUSABLE) from None
    if not settings.per_file_ignores and known is None and not record:
        return None
    return Screen(settings.ignored_in if settings.per_file_ignores else None, known, record)


def _selection_note(settings: Settings, *given: list[str] | None) -> str:
    """What limits the codes reported (``select: W``), for the verdict; empty when everything is reported."""
    select, ignore, extend_select, extend_ignore = given
    chosen = select if select is not None else settings.select
    parts = [f"select: {','.join(chosen)}"] if chosen else []
    dropped = [*(ignore if ignore is not None else settings.ignore or []), *settings.extend_ignore,
               *(extend_ignore or [])]
    if dropped:
        parts.append(f"ignore: {','.join(dropped)}")
    if settings.per_file_ignores:
        parts.append("per-file-ignores")
    return "; ".join(parts)


def _write_baseline(target: str, recorded: Counter[Key], quiet: bool) -> None:
    """Write the baseline file; one line on standard error says how many it holds (not with -q)."""
    try:
        count = write_baseline_file(target, recorded)
    except OSError as error:
        raise WriteFailed(target, error) from None
    if not quiet:
        Console(stderr=True, highlight=False).print(
            Text(f"wrote {quantity(count, 'violation')} to the baseline {shown(target)}"), soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"drawlog {__version__} ({'compiled' if COMPILED else 'pure-Python'} engine)")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                    help="Print the version and exit.")] = None,
) -> None:
    """Validate, score and analyse move logs of the domino game Draw."""


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
                                                                  "lines with --format concise, or JSON with "
                                                                  "--format json or jsonl.")] = False,
    fail_fast: Annotated[bool, typer.Option("--fail-fast", help="Stop at the first error.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too (exit 1).")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when errors are found "
                                                                "(2 still means nothing could be read).")]
    = False,
    output_file: Annotated[Optional[str], typer.Option(
        "--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of standard output.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the violations: no summary line, "
                                                              "no progress bar.")] = False,
    color: Annotated[ColorChoice, typer.Option("--color", metavar="WHEN", help="Colour text and concise output: "
                                                                              "auto (on a terminal), always, "
                                                                              "never.")] = ColorChoice.auto,
    stdin_filename: Annotated[Optional[str], typer.Option(
        "--stdin-filename", metavar="NAME", help="The name that standard input (-) gets in every output.")] = None,
    max_per_match: Annotated[Optional[int], typer.Option(
        "--max-per-match", metavar="N", min=1, help="Report at most N violations of one match; the rest are "
                                                    "counted in the summary.")] = None,
    max_open_matches: Annotated[int, typer.Option(
        "--max-open-matches", metavar="N", min=1, help="Keep at most N matches open at once (default 100,000); "
                                                       "past it the oldest is closed with F006.")] = MAX_OPEN_MATCHES,
    baseline: Annotated[Optional[str], typer.Option(
        "--baseline", metavar="FILE", help="Report only violations not in this baseline (written by "
                                           "--write-baseline); those in it are counted, not shown.")] = None,
    write_baseline: Annotated[Optional[str], typer.Option(
        "--write-baseline", metavar="FILE", help="Write the violations found to FILE as a baseline (file, code, "
                                                 "match and message, not the line) and exit 0.")] = None,
    config: ConfigOption = None,
    isolated: IsolatedOption = False,
) -> None:
    """Replay every match of the logs and report each violation with its code, file and line.

    On a terminal, text output shows a progress bar on standard error (files, MB read of the total
    as stored, time left); -q or an output that is not a terminal turns it off.

    Settings come from [tool.drawlog] in pyproject.toml or a drawlog.toml, the nearest from the
    current folder upwards (--config FILE, --isolated); options given here win.

    Exit status: 0 no errors, 1 errors found (or warnings with --strict), 2 nothing could be read.
    """
    settings = _settings(config, isolated)
    try:
        codes = settings.codes(select, ignore, extend_select, extend_ignore)
    except ValueError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--select/--ignore") from None
    output_format = output_format or _configured_format(settings)
    max_per_match = max_per_match if max_per_match is not None else settings.max_per_match
    screen = _screen(settings, baseline, write_baseline is not None)
    if statistics and output_format.value not in STATISTICS_FORMATS:
        raise typer.BadParameter("--statistics prints counts, not annotations: use --format text, json or jsonl, "
                                 "or concise for one line per code", param_hint="--statistics/--format")
    inputs = [_named_stdin(item, stdin_filename) for item in expand_paths(paths)]
    stream = _open_report(output_file) if output_file else sys.stdout
    try:
        summary, unread = _validate_inputs(inputs, stream, codes, output_format.value, statistics=statistics,
                                           fail_fast=fail_fast, strict=strict, quiet=quiet, color=color.value,
                                           to_file=output_file is not None, max_per_match=max_per_match,
                                           max_open_matches=max_open_matches,
                                           screen=screen, note=_selection_note(settings, select, ignore,
                                                                               extend_select, extend_ignore))
    finally:
        if output_file:
            stream.close()
    if summary.files == 0 and not unread:
        raise typer.Exit(EXIT_UNUSABLE)  # nothing could be read (not even left unread by --fail-fast), in any mode
    if write_baseline is not None and screen is not None and screen.recorded is not None:
        _write_baseline(write_baseline, screen.recorded, quiet)
        raise typer.Exit(EXIT_CLEAN)
    failed = summary.errors > 0 or (strict and summary.warnings > 0)
    raise typer.Exit(EXIT_ERRORS if failed and not exit_zero else EXIT_CLEAN)


def _named_stdin(item: Source | InputError, name: str | None) -> Source | InputError:
    """Standard input under ``--stdin-filename``'s name; anything else as it is."""
    if name is not None and isinstance(item, Source) and item.path is None:
        return dataclasses.replace(item, name=name)
    return item


def _open_report(target: str) -> Any:
    """``-o FILE`` opened for writing, guarded (a failure names it); exit 2 with one line when it cannot be."""
    try:
        handle = open(target, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
    except OSError as error:
        typer.echo(f"Error: cannot write {shown(target)}: {error.strerror or error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    return GuardedStream(handle, target)


def _validate_inputs(inputs: list[Source | InputError], stream: Any, codes: frozenset[str], fmt: str, *,
                     statistics: bool, fail_fast: bool, strict: bool, quiet: bool, color: str,
                     to_file: bool, max_per_match: int | None = None, screen: Screen | None = None,
                     note: str = "", max_open_matches: int = MAX_OPEN_MATCHES) -> tuple[Summary, bool]:
    """Validate the inputs one by one into the writer of ``fmt``; the summary, and whether inputs were left unread.

    The progress bar (standard error) is shown on a terminal for text output or
    a report written to a file, unless ``quiet``; text bound for the same
    terminal is printed through the bar's console, above the bar.
    """
    errors = make_console(sys.stderr, color)
    bar = not quiet and errors.is_terminal and sys.stderr.isatty() and (fmt == "text" or statistics or to_file)
    console = errors if bar and not to_file and _same_terminal() else make_console(stream, color)
    writer = make_writer(fmt, stream, statistics=statistics, console=console, quiet=quiet, strict=strict)
    writer.note = note
    validator = Validator(codes, max_per_match, max_open_matches)
    progress = ValidateProgress(inputs, errors, enabled=bar)

    def on_block(size: int) -> None:
        progress.advance(size)
        writer.poll()

    validator.on_block = on_block
    unread = False
    try:
        with progress:
            for index, item in enumerate(inputs):
                writer.start_file(printable(item.name if isinstance(item, Source) else item.path))
                progress.start_file(index)
                stop = False
                found = validator.validate_inputs([item])
                for violation in screen(found, validator.summary) if screen is not None else found:
                    writer.add(violation)
                    if fail_fast and violation.severity == "error":
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


def _same_terminal() -> bool:
    """Whether standard output and standard error are the same terminal."""
    try:
        return sys.stdout.isatty() and os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (AttributeError, ValueError, OSError):
        return False


def _rule_markdown(rule: Rule) -> str:
    return (
        f"# {rule.code} `{rule.name}` ({rule.severity}{', retired' if rule.retired else ''})\n\n"
        f"**What it checks.** {rule.summary}\n\n"
        f"**Why.** {rule.why}\n\n"
        f"**Bad**\n\n```\n{rule.bad}\n```\n\n"
        f"**Good**\n\n```\n{rule.good}\n```\n"
    )


class SplitBy(str, Enum):
    """How ``filter --split-by`` names its files."""

    match = "match"
    tournament = "tournament"


@app.command(name="filter")
def filter_matches(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files (.jsonl, .jsonl.gz, .jsonl.zst), "
                                                                    "folders, or - for standard input.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="OUT", help="The log to write (.jsonl, .jsonl.gz, "
                                        ".jsonl.zst; - for standard output), or with --split-by the folder for "
                                        "one .jsonl file each.")] = "-",
    valid: Annotated[bool, typer.Option("--valid", help="Only matches without errors (finished, every rule "
                                                        "kept).")] = False,
    invalid: Annotated[bool, typer.Option("--invalid", help="Only matches with errors (or unfinished).")] = False,
    player: Annotated[Optional[list[str]], typer.Option("--player", metavar="NAME", help="Only matches this "
                                                        "player sits in (repeat: any of them).")] = None,
    match: Annotated[Optional[list[str]], typer.Option("--match", metavar="ID", help="Only this match (repeat: "
                                                       "any of them).")] = None,
    tournament: Annotated[Optional[list[str]], typer.Option("--tournament", metavar="T", help="Only matches whose "
                                                            "match_start meta.tournament is T (repeat: any).")]
    = None,
    split_by: Annotated[Optional[SplitBy], typer.Option("--split-by", metavar="match|tournament", help="Write one "
                                                        "file per match (ID.jsonl) or per tournament "
                                                        "(T.jsonl; no-tournament.jsonl) into the folder -o.")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No count of what was written.")] = False,
) -> None:
    """Write the matches that meet every condition whole, one after another, in the order they started.

    Every line of a chosen match (from its first match_start on) is written, in order, even when
    the log interleaves it with other matches; lines that belong to no match (blank, broken, or
    of no started match) are not written. The logs are read twice: once to validate them, once to
    copy. Exit status: 0 written (even no match), 2 nothing could be read.
    """
    import tempfile

    from .check.extract import Criteria, MatchFilter, safe_name

    if valid and invalid:
        raise typer.BadParameter("give --valid or --invalid, not both", param_hint="--valid/--invalid")
    if split_by is not None and output == "-":
        raise typer.BadParameter("--split-by writes a folder of files: name it with -o DIR", param_hint="--split-by")
    criteria = Criteria(valid=True if valid else False if invalid else None, players=frozenset(player or []),
                        matches=frozenset(match or []), tournaments=frozenset(tournament or []))
    console = Console(stderr=True, highlight=False)
    with tempfile.TemporaryDirectory(prefix="drawlog-filter-") as work:
        chooser = MatchFilter(criteria, Path(work))
        try:
            for violation in chooser.decide(expand_paths(paths)):
                where = f"{violation.file}:{violation.line}" if violation.line else violation.file
                console.print(Text.assemble(("F007", "red"), f" {shown(where)}: {shown(violation.message)}"),
                              soft_wrap=True)
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        if not chooser.sources:
            raise typer.Exit(EXIT_UNUSABLE)
        spooled = chooser.spool()
        groups: dict[str, list[Path]] = {}
        for info, spool in spooled:
            name = "" if split_by is None else safe_name(info.id if split_by is SplitBy.match
                                                          else info.tournament or "no-tournament")
            groups.setdefault(name, []).append(spool)
        if split_by is None:
            groups.setdefault("", [])
        else:
            try:
                Path(output).mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise WriteFailed(output, error) from None
        for name, spools in groups.items():
            target = output if split_by is None else str(Path(output) / f"{name}.jsonl")
            try:
                with open_output(target) as stream:
                    for spool in spools:
                        with open(spool, "rb") as copied:
                            while chunk := copied.read(1 << 20):
                                stream.write(chunk)
            except OSError as error:
                raise WriteFailed(target, error) from None
    if not quiet:
        lines = sum(info.lines for info, _ in spooled)
        where = shown(output) if split_by is None else f"{quantity(len(groups), 'file')} in {shown(output)}"
        console.print(Text(f"wrote {quantity(len(spooled), 'match', 'matches')} of {len(chooser.found):,} "
                           f"({quantity(lines, 'line')}) to {where if output != '-' else 'standard output'}"),
                      soft_wrap=True)


@app.command()
def rule(
    code: Annotated[Optional[str], typer.Argument(metavar="CODE", help="A code (M205) or name (illegal-draw).")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Explain every rule.")] = False,
    output_format: Annotated[RuleFormat, typer.Option("--format", help="Output format.")] = RuleFormat.text,
) -> None:
    """Explain a rule: its name, severity, what it checks, why, and a bad and a good example."""
    if show_all and code is not None:
        raise typer.BadParameter(f"give a rule code ({code}) or --all, not both", param_hint="CODE/--all")
    if show_all:
        chosen = list(RULES)
    elif code is None:
        raise typer.BadParameter("give a rule code (e.g. M205) or --all", param_hint="CODE")
    else:
        found = find_rule(code)
        if found is None:
            raise typer.BadParameter(f"no rule {code!r}; `drawlog rule --all` lists them", param_hint="CODE")
        chosen = [found]
    if output_format is RuleFormat.json:
        typer.echo(msgspec.json.encode(chosen if show_all else chosen[0]).decode())
        return
    from rich.markdown import Markdown

    console = Console(highlight=False)
    for index, item in enumerate(chosen):
        if index:
            console.rule()
        console.print(Markdown(_rule_markdown(item)))


class Players(str, Enum):
    """Table sizes ``simulate`` can play."""

    two = "2"
    three = "3"
    four = "4"
    mixed = "mixed"


class Variant(str, Enum):
    """The games: what ``simulate`` plays, what ``players`` and ``ratings`` report on (each on its own)."""

    draw = "draw"
    all_fives = "all-fives"


def _house_rules(given: list[str]) -> dict[str, int]:
    """``--rules hand=5,reserve=3`` (repeatable) as a dict; a bad key or value is a usage error."""
    rules: dict[str, int] = {}
    for item in (part.strip() for option in given for part in option.split(",") if part.strip()):
        key, equals, value = item.partition("=")
        key = key.strip()
        value = value.strip()
        if not equals or key not in RULE_KEYS or not (value.isascii() and value.isdigit()):
            raise typer.BadParameter(f"{item!r}: give {' or '.join(f'{name}=N' for name in RULE_KEYS)} "
                                     f"(N a whole number)", param_hint="--rules")
        rules[key] = int(value)
    return rules


@app.command()
def simulate(
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="How many matches.")] = 100,
    players: Annotated[Players, typer.Option(help="Players per match; mixed picks 2, 3 or 4 each time.")]
    = Players.two,
    seed: Annotated[int, typer.Option(help="Random seed: the same seed gives the same bytes.")] = 0,
    output: Annotated[str, typer.Option("--output", "-o", help="Log file (.jsonl, .jsonl.gz, .jsonl.zst) or - "
                                                               "for standard output.")] = "-",
    bots: Annotated[str, typer.Option(help=f"Bots by seat, comma-separated, repeated round the table "
                                           f"({', '.join(BOTS)}).")] = "random",
    stock: Annotated[bool, typer.Option("--stock/--no-stock", help="Log the stock in draw order.")] = True,
    seq: Annotated[bool, typer.Option("--seq", help="Log seq numbers.")] = False,
    timestamps: Annotated[bool, typer.Option("--timestamps", help="Log RFC 3339 timestamps (ts).")] = False,
    reveal_hands: Annotated[bool, typer.Option("--reveal-hands", help="Log the hands left at round_end.")]
    = False,
    tables: Annotated[int, typer.Option(min=1, help="Tables logged at once: their lines interleave.")] = 1,
    faults: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of matches given one known "
                                                                 "violation.")] = 0.0,
    faults_file: Annotated[Optional[str], typer.Option(metavar="FILE", help="Where to list injected faults "
                                                            "(match, line, code): a JSON array in a .json file, "
                                                            "else JSON lines; default: OUTPUT.faults.json.")]
    = None,
    match_prefix: Annotated[Optional[str], typer.Option(metavar="PREFIX", help="Match ids are this and a number "
                                                        "(PREFIX000001, …); default: s, the seed and a hash of "
                                                        "the output's name (s7-3fa2-000001), so runs differ.")]
    = None,
    variant: Annotated[Variant, typer.Option(help="The game: Draw, or All Fives (scoring plays, a spinner).")]
    = Variant.draw,
    rules: Annotated[Optional[list[str]], typer.Option(
        "--rules", metavar="KEY=N", help="House rules, comma-separated or repeated: hand=N (tiles dealt to each player), "
                        "reserve=N (Draw only: stock tiles never drawn).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no results table.")] = False,
) -> None:
    """Play matches with built-in bots on the rules engine and write them in log format v1."""
    lineup = [name.strip() for name in bots.split(",") if name.strip()]
    unknown = [name for name in lineup if name not in BOTS]
    if unknown or not lineup:
        raise typer.BadParameter(f"unknown bot {', '.join(unknown) or '(none)'}; choose from {', '.join(BOTS)}",
                                 param_hint="--bots")
    if faults > 0 and faults_file is None:
        if output == "-":
            raise typer.BadParameter("with --faults and standard output, name the list with --faults-file",
                                     param_hint="--faults-file")
        faults_file = f"{output}.faults.json"
    if faults_file is not None and (faults_file == "-" or Path(faults_file).resolve() == Path(output).resolve()):
        raise typer.BadParameter("the list of faults needs a file of its own, not the log's", param_hint="--faults-file")
    options = SimulationOptions(players=players.value if players is Players.mixed else int(players.value),
                                bots=lineup, log_stock=stock, log_seq=seq, reveal_hands=reveal_hands,
                                fault_rate=faults, variant=variant.value,
                                match_prefix=default_match_prefix(seed, output) if match_prefix is None else match_prefix,
                                rules=_house_rules(rules or []))
    try:
        check_options(options)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--rules") from None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    report = Console(stderr=output == "-")
    progress = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=True,
                        disable=quiet or not Console(stderr=True).is_terminal)
    simulator = Simulator(seed, options)
    try:
        with progress, open_output(output) as stream:
            task = progress.add_task("simulate", total=matches)
            tally = record(simulator, matches, stream, tables=tables, timestamps=timestamps,
                           seed=seed, on_match=lambda: progress.advance(task))
    except OSError as error:
        raise WriteFailed(output, error) from None
    except EndlessMatches as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    if faults_file is not None:
        listed = encode_faults(tally.faults, as_array=faults_file.lower().endswith(".json"))
        write_output(faults_file, lambda listing: listing.write(listed))
    if not quiet:
        report.print(results_table(tally.matches, tally.rows()))
        if simulator.abandoned:
            undecided = quantity(simulator.abandoned, "deal", "deals")
            report.print(Text(f"{undecided} of a match undecided after {MAX_ROUNDS:,} rounds played again from the "
                              f"start (not logged)"), soft_wrap=True)
        if faults_file is not None:
            report.print(Text(f"{quantity(len(tally.faults), 'fault')} injected, listed in {shown(faults_file)}"),
                         soft_wrap=True)


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


def _write_stats(paths: list[str], out: str, partition_by: str | None, progress_label: str,
                 quiet: bool, jobs: int, codes: Optional[frozenset[str]] = None) -> Summary:
    """Validate and write the tables; exit 2 when the folder or the key is refused, or nothing could be read.

    ``codes``: the violations reported (in the violations table and the summary); the replay checks every rule.
    """
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from .tables.dataset import open_tables, write_tables

    validator = Validator(codes)
    console = Console(stderr=True)
    progress = Progress(SpinnerColumn(), TextColumn(progress_label), TextColumn("{task.fields[megabytes]:,.1f} MB"),
                        TextColumn("{task.fields[matches]:,} matches"), TextColumn("{task.fields[rate]}"),
                        TimeElapsedColumn(), console=console, transient=True,
                        disable=quiet or not console.is_terminal)
    started = time.perf_counter()
    read = [0]
    with progress:
        task = progress.add_task(progress_label, megabytes=0.0, matches=0, rate="")

        def advance(size: int) -> None:
            read[0] += size
            matches = validator.summary.matches
            elapsed = max(time.perf_counter() - started, 1e-9)
            progress.update(task, megabytes=read[0] / 1e6, matches=matches,
                            rate=f"{matches / elapsed:,.0f} matches/s")

        validator.on_block = advance
        try:
            summary = write_tables(paths, Path(out), partition_by, validator=validator, jobs=jobs, codes=codes)
        except NothingRead as error:
            _print_unreadable(console, error.unreadable)
            console.print(Text(f"Error: {shown(str(error))}"), soft_wrap=True)
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
            unreadable = open_tables(Path(out))["violations"].filter(pl.col("code") == "F007").collect()
        except OutputError as error:
            raise typer.BadParameter(shown(str(error)), param_hint="--out") from None
        _print_unreadable(console, unreadable.select("file", "line", "message").rows())
    return summary


def _print_unreadable(console: Console, unreadable: list[tuple[str, int | None, str]]) -> None:
    """One line per unreadable input (F007): file (and line), and why."""
    for file, line, message in unreadable:
        where = f"{file}:{line}" if line else file
        console.print(Text.assemble(("F007", "red"), f" {shown(where)}: {shown(message)}"), soft_wrap=True)


@app.command()
def stats(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files, folders, or - for standard input.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Folder for the Parquet tables (replaced whole).")],
    partition_by: Annotated[Optional[str], typer.Option(help="Write hive-style folders by this column: "
                                                             "tournament, table_name, variant or file.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Processes replaying files at once.")] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
) -> None:
    """Replay the logs and write matches, rounds, players, moves and violations as Parquet tables."""
    summary = _write_stats(paths, out, partition_by, "stats", quiet, jobs)
    Console(stderr=True).print(Text(f"wrote {shown(out)}: {summary_line(summary)}"), soft_wrap=True)


@app.command()
def audit(
    paths: Annotated[list[str], typer.Argument(metavar="PATH", help="Log files, folders, or - for standard input.")],
    out: Annotated[str, typer.Option("--out", "-o", help="Folder for the Parquet tables (replaced whole).")],
    partition_by: Annotated[Optional[str], typer.Option(help="Write hive-style folders by this column.")] = None,
    top: Annotated[int, typer.Option(min=1, help="How many players and files to list.")] = 5,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", metavar="N", min=1,
                                                help="Processes replaying files at once (default 1).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    select: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Report (in the violations table "
                                                        "and the summary) only these codes or prefixes (M, M20, "
                                                        "M205); repeat or comma-separate.")] = None,
    ignore: Annotated[Optional[list[str]], typer.Option(metavar="CODES", help="Do not report these codes or "
                                                        "prefixes.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the run too (exit 1).")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when errors are found (2 still "
                                                                "means nothing could be read).")] = False,
    config: ConfigOption = None,
    isolated: IsolatedOption = False,
) -> None:
    """The main job, in one pass: validate, write the tables, and print what was found.

    Settings (select, ignore, extend-select, extend-ignore, jobs) come from [tool.drawlog] in
    pyproject.toml or a drawlog.toml, as for validate; options given here win.

    Exit status, as validate's: 0 no errors, 1 errors found (or warnings with --strict), 2 nothing could
    be read. The tables are written in every case but 2.
    """
    from .tables.reports import audit_summary

    settings = _settings(config, isolated)
    try:
        codes = settings.codes(select, ignore, None, None)
    except ValueError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="--select/--ignore") from None
    jobs = jobs if jobs is not None else settings.jobs or 1
    summary = _write_stats(paths, out, partition_by, "auditing", quiet, jobs, codes)
    console = Console(highlight=False, emoji=False)
    share = summary.valid_matches / summary.matches if summary.matches else 0.0
    console.print(Text(f"{quantity(summary.matches, 'match', 'matches')} read, {summary.valid_matches:,} valid "
                       f"({share:.1%}), {summary.complete_matches:,} complete", style="bold"), soft_wrap=True)
    console.print(Text(summary_line(summary)), soft_wrap=True)
    try:
        found = audit_summary(Path(out), top=top)
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
    failed = summary.errors > 0 or (strict and summary.warnings > 0)
    raise typer.Exit(EXIT_ERRORS if failed and not exit_zero else EXIT_CLEAN)


def _frame_format(fmt: FrameFormat | None, output: str | None) -> FrameFormat:
    """The format to write: ``fmt``, else the one ``output``'s extension names, else a table.

    A ``fmt`` that contradicts the extension is a one-line usage error (exit 2).
    """
    implied = FORMAT_OF_EXTENSION.get(Path(output).suffix.lower()) if output not in (None, "-") else None
    if fmt is not None and implied is not None and fmt is not implied:
        typer.echo(f"Error: --format {fmt.value} contradicts the extension of {shown(str(output))} "
                   f"({implied.value}): drop --format or change the name", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    return fmt or implied or FrameFormat.table


def _frame_command(compute, fmt: FrameFormat | None, output: Optional[str]) -> None:  # noqa: ANN001
    """Compute a table and write it in ``fmt`` to ``output``; a folder that ``compute`` refuses is a usage error."""
    fmt = _frame_format(fmt, output)
    if fmt is FrameFormat.parquet and output in (None, "-") and sys.stdout.isatty():
        raise typer.BadParameter("parquet goes to a file: add -o FILE", param_hint="--format")
    try:
        frame = compute()
    except OutputError as error:
        raise typer.BadParameter(shown(str(error)), param_hint="DIR") from None
    write_frame(frame, fmt.value, output, Console(highlight=False, emoji=False))


@app.command()
def query(
    folder: Annotated[str, typer.Argument(metavar="DIR", help="A folder written by `drawlog stats` or `drawlog audit`.")],
    sql: Annotated[str, typer.Argument(metavar="SQL", help="SQL over the tables matches, rounds, players, moves, "
                                                       "violations.")],
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Run SQL (polars SQL) over the statistics tables."""
    import polars as pl

    from .tables.reports import query as run_query
    from .tables.stats import TABLES

    def compute():  # noqa: ANN202
        try:
            return run_query(Path(folder), sql)
        except (pl.exceptions.PolarsError, pl.exceptions.SQLInterfaceError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise typer.BadParameter(f"the query failed: {shown(first)} (tables: {', '.join(TABLES)})",
                                     param_hint="SQL") from None

    _frame_command(compute, output_format, output)


@app.command()
def players(
    folder: Annotated[str, typer.Argument(metavar="DIR", help="A folder written by `drawlog stats` or `drawlog audit`.")],
    by: Annotated[Optional[str], typer.Option(help="Also group by this matches column (tournament, "
                                                   "table_name, file).")] = None,
    sort: Annotated[str, typer.Option(help="Sort by this column, best first (names A to Z).")] = "rating",
    reverse: Annotated[bool, typer.Option("--reverse", help="Sort the other way.")] = False,
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """A leaderboard per player and variant: results, rating, how they win, draw and break rules.

    Results and ratings count valid finished matches (--include-invalid: the invalid ones too);
    invalid_matches says how many of the player's finished matches had errors.
    """
    from .tables.dataset import PARTITION_KEYS
    from .tables.reports import LEADERBOARD_COLUMNS, leaderboard

    if by is not None and by not in PARTITION_KEYS:
        raise typer.BadParameter(f"choose one of {', '.join(PARTITION_KEYS)}", param_hint="--by")
    sorts = ["player", "variant", *([by] if by and by != "variant" else []), *LEADERBOARD_COLUMNS]
    if sort not in sorts:
        raise typer.BadParameter(f"choose one of {', '.join(sorts)}", param_hint="--sort")
    game = variant.value if variant is not None else None
    _frame_command(lambda: leaderboard(Path(folder), by=by, sort=sort, reverse=reverse, variant=game,
                                       include_invalid=include_invalid), output_format, output)


@app.command()
def ratings(
    folder: Annotated[str, typer.Argument(metavar="DIR", help="A folder written by `drawlog stats` or `drawlog audit`.")],
    variant: VariantOption = None,
    include_invalid: IncludeInvalidOption = False,
    output_format: FrameFormatOption = None,
    output: FrameOutputOption = None,
) -> None:
    """Plackett–Luce skill ratings (openskill) per variant from valid finished matches in time order, with uncertainty."""
    from .tables.reports import ratings as compute_ratings

    game = variant.value if variant is not None else None
    _frame_command(lambda: compute_ratings(Path(folder), game, include_invalid), output_format, output)


class ReplayFormat(str, Enum):
    """Output formats of ``replay``."""

    text = "text"
    json = "json"
    svg = "svg"


@app.command()
def replay(
    log: Annotated[str, typer.Argument(metavar="LOG", help="A log file, or FILE:LINE for the match of that line, "
                                                           "shown up to it.")],
    match: Annotated[Optional[str], typer.Option("--match", "-m", metavar="ID", help="The match to show (needed "
                                                 "when the file holds several and no LINE is given).")] = None,
    round_number: Annotated[Optional[int], typer.Option("--round", "-r", metavar="N", min=1,
                                                        help="Only this round.")] = None,
    at: Annotated[Optional[int], typer.Option("--at", metavar="LINE", min=1, help="Stop after this line of the "
                                              "file (the SVG shows the board there).")] = None,
    lang: Annotated[str, typer.Option("--lang", metavar="en|pl|tr|es", help="The language of the board's terms "
                                      "(the seeds' own words).")] = "en",
    output_format: Annotated[ReplayFormat, typer.Option("--format", "-f", help="text (the board drawn), json "
                                                        "(one frame object per line), svg (the board at the end).")]
    = ReplayFormat.text,
    output: Annotated[Optional[str], typer.Option("--output", "-o", metavar="FILE", help="Write to this file.")]
    = None,
) -> None:
    """Show one match move by move: the board, hands, stock, legal moves and violations after each event."""
    from .check.walkthrough import Selection, match_at, match_ids, split_location, walk
    from .errors import InputError
    from .log.reader import Source
    from .views.board import frames_json, render_frames
    from .views.board_svg import board_svg
    from .views.language import UnknownLanguage, catalog

    try:
        words = catalog(lang)
    except UnknownLanguage as error:
        raise typer.BadParameter(str(error), param_hint="--lang") from None
    path, line = split_location(log)
    source = Source(path, Path(path)) if path != "-" else Source("-")
    at = at if at is not None else line
    try:
        if match is None and line is not None:
            match = match_at(source, line)
        if match is None:
            ids = match_ids(source)
            if len(ids) != 1:
                listed = ", ".join(ids[:10]) + (", …" if len(ids) > 10 else "") if ids else "none found"
                raise typer.BadParameter(f"say which match with --match ID (or give FILE:LINE); matches in "
                                         f"{path}: {listed}", param_hint="--match")
            match = ids[0]
        frames = walk(source, Selection(match, round_number, at))
    except InputError as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    if not frames:
        where = f" round {round_number}" if round_number is not None else ""
        raise typer.BadParameter(f"no line of match {match!r}{where} in {path}"
                                 + (f" up to line {at}" if at is not None else ""), param_hint="LOG")
    if output_format is ReplayFormat.json:
        write_output(output, lambda stream: stream.write(frames_json(frames)))
    elif output_format is ReplayFormat.svg:
        board = next((frame["board"] for frame in reversed(frames) if frame["board"] is not None), None)
        if board is None:
            raise typer.BadParameter(f"no board yet at line {frames[-1]['line']}: no round has started", param_hint="--at")
        write_output(output, lambda stream: stream.write(board_svg(board).encode()))
    elif output is None:
        render_frames(frames, words, Console(highlight=False, emoji=False))
    else:
        text = io.StringIO()
        render_frames(frames, words, Console(file=text, width=100, color_system=None, highlight=False, emoji=False))
        write_output(output, lambda stream: stream.write(text.getvalue().encode()))


@app.command()
def schema() -> None:
    """Print the JSON Schema of one log line (format v1)."""
    typer.echo(msgspec.json.format(msgspec.json.encode(json_schema()), indent=2).decode())


def main() -> None:
    """Entry point of the ``drawlog`` script."""
    app()
