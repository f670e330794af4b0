"""The ``drawlog`` Typer application: the command group, exit statuses and options shared by commands."""

from __future__ import annotations

import os
import sys
from collections import Counter
from enum import Enum
from typing import Annotated, Any, Callable, Optional

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperArgument, TyperGroup

from .. import COMPILED, __version__
from ..check.baseline import Baseline, BaselineError, Key, Screen
from ..check.baseline import write_baseline as write_baseline_file
from ..check.config import ConfigError, Settings, resolve_settings
from ..check.replay import MAX_OPEN_MATCHES
from ..check.violations import MAX_PER_LINE, MAX_PER_MATCH, Summary
from ..errors import WriteFailed
from ..log.events import LOG_FORMAT
from ..views.terminal import shown
from ..views.writers import (
    STANDARD_OUTPUT,
    GuardedStream,
    quantity,
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
    help="Validate, score and analyse move logs of the domino games Draw and All Fives.",
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
    """How ``rule`` prints explanations: in full (text, json) or one line per rule (concise)."""

    text = "text"
    json = "json"
    concise = "concise"


#: ``--config`` of ``validate`` and ``audit``.
ConfigOption = Annotated[Optional[str], typer.Option(
    "--config", metavar="FILE", help="Read settings from this TOML file (a drawlog.toml, or a pyproject.toml's "
                                     "[tool.drawlog]) instead of the one found from the current folder up.")]
#: ``--isolated`` of ``validate`` and ``audit``.
IsolatedOption = Annotated[bool, typer.Option("--isolated", help="Ignore configuration files.")]
#: ``--max-per-match`` of ``validate``, ``stats`` and ``audit`` (None: the configuration's, else the default).
MaxPerMatchOption = Annotated[Optional[int], typer.Option(
    "--max-per-match", metavar="N", min=1, help=f"Report at most N violations of one match (default "
                                                f"{MAX_PER_MATCH:,}); the rest are counted in the summary.",
    show_default=False)]
#: ``--max-per-line`` of ``validate``, ``stats`` and ``audit``.
MaxPerLineOption = Annotated[Optional[int], typer.Option(
    "--max-per-line", metavar="N", min=1, help=f"Report at most N violations of one line (default "
                                               f"{MAX_PER_LINE}); the rest are counted in the summary.",
    show_default=False)]
#: ``--max-open-matches`` of ``validate``, ``stats`` and ``audit``.
MaxOpenMatchesOption = Annotated[int, typer.Option(
    "--max-open-matches", metavar="N", min=1, help=f"Keep at most N matches open at once (default "
                                                   f"{MAX_OPEN_MATCHES:,}); past it the oldest is closed with F006.")]
#: ``--cluster`` of ``validate``, ``stats`` and ``audit``.
ClusterOption = Annotated[str | None, typer.Option(
    "--cluster", metavar="ADDRESS", help="Replay the files on a Dask cluster: local:N (N worker processes here) or "
                                         "tcp://HOST:8786 (a running scheduler). Needs drawlog[cluster].")]


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
    """The baseline between validator and report (None when none applies); per-file ignores are the validator's."""
    known = None
    if baseline is not None:
        try:
            known = Baseline.load(baseline)
        except BaselineError as error:
            typer.echo(f"Error: {shown(str(error))}", err=True)
            raise typer.Exit(EXIT_UNUSABLE) from None
    if known is None and not record:
        return None
    return Screen(None, known, record)


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


def _write_baseline(target: str, recorded: Counter[Key], quiet: bool, summary: Summary | None = None) -> None:
    """Write the baseline file; one line on standard error says how many it holds and what was read (not with
    -q), the only line ``--write-baseline`` prints."""
    try:
        count = write_baseline_file(target, recorded)
    except OSError as error:
        raise WriteFailed(target, error) from None
    if not quiet:
        read = f" ({summary_line(summary)})" if summary is not None else ""
        Console(stderr=True, highlight=False).print(
            Text(f"wrote {quantity(count, 'violation')} to the baseline {shown(target)}{read}"), soft_wrap=True)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"drawlog {__version__} ({'compiled' if COMPILED else 'pure-Python'} engine; "
                   f"log format {LOG_FORMAT})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True,
                                                    help="Print the version and exit.")] = None,
) -> None:
    """Validate, score and analyse move logs of the domino games Draw and All Fives."""


class Variant(str, Enum):
    """The games: what ``simulate`` plays, what ``players`` and ``ratings`` report on (each on its own)."""

    draw = "draw"
    all_fives = "all-fives"


def main() -> None:
    """Entry point of the ``drawlog`` script."""
    app()
