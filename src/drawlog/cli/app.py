"""The ``drawlog`` Typer application: its commands (loaded lazily) and the options commands share."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from .. import __version__
from ..check.limits import MAX_OPEN_MATCHES, MAX_PER_LINE, MAX_PER_MATCH
from ..errors import WriteFailed
from ..log.format import LOG_FORMAT
from .group import (  # noqa: F401 - the exit statuses, imported from here by the commands
    EXIT_BROKEN_PIPE,
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_INTERRUPTED,
    EXIT_UNUSABLE,
    DrawlogGroup,
)

if TYPE_CHECKING:  # the library is imported when a command runs, not to list the commands (start-up time)
    from collections import Counter

    from ..check.baseline import Key, Screen
    from ..check.config import Settings
    from ..check.violations import Summary

#: The modules of the commands, in the order ``--help`` lists their commands.
COMMAND_MODULES = ("validate", "rules", "logs", "replay", "play", "arena", "tables", "views", "report", "analyze",
                   "fix")
#: Which module registers each command: running one imports that module alone (tests/test_startup.py checks it).
COMMANDS = {"validate": "validate", "rule": "rules", "schema": "rules", "filter": "logs", "replay": "replay",
            "simulate": "play", "stats": "tables", "audit": "tables", "query": "tables", "players": "views",
            "ratings": "views", "h2h": "views", "seats": "views", "report": "report", "analyze": "analyze",
            "fix": "fix", "arena": "arena"}
#: The options of ``drawlog`` itself (before a command's name).
_ROOT_OPTIONS = ("--help", "--version", "--install-completion", "--show-completion")


class LazyTyper(typer.Typer):
    """The ``drawlog`` application, whose commands are registered by their modules (``@app.command()``) when
    they are first needed, not when the package is imported.

    Asking for the commands (``registered_commands``: what building the command line, ``--help`` or a test's
    ``CliRunner`` does) imports every command module; :meth:`load` imports some only: ``drawlog validate FILE``
    imports the validate module alone, ``drawlog --version`` none.
    """

    _loading = False
    _loaded = False

    @property  # type: ignore[override]
    def registered_commands(self) -> list[Any]:
        """The commands registered, every command module imported first unless :meth:`load` chose some; in the
        order of :data:`COMMAND_MODULES` whichever module was imported first."""
        if self._loading:
            return self._registered  # (a module registering its commands)
        if not self._loaded:
            self.load(COMMAND_MODULES)
        self._registered.sort(key=_module_order)
        return self._registered

    @registered_commands.setter
    def registered_commands(self, commands: list[Any]) -> None:
        self._registered = commands

    def command(self, *args: Any, **kwargs: Any) -> Any:
        """``@app.command()``: register the command, without importing the other command modules."""
        decorate = super().command(*args, **kwargs)

        def registering(function: Any) -> Any:
            was, self._loading = self._loading, True
            try:
                return decorate(function)
            finally:
                self._loading = was

        return registering

    def load(self, modules: tuple[str, ...] | list[str]) -> None:
        """Import these command modules (they register their commands); the others stay out from now on."""
        import importlib

        self._loading = True
        try:
            for module in modules:
                importlib.import_module(f"{__package__}.{module}")
        finally:
            self._loading = False
        self._loaded = True


def _module_order(info: Any) -> int:
    """Where a registered command's module comes in :data:`COMMAND_MODULES` (the order ``--help`` lists)."""
    module = getattr(info.callback, "__module__", "").rpartition(".")[2]
    return COMMAND_MODULES.index(module) if module in COMMAND_MODULES else len(COMMAND_MODULES)


def modules_for(args: list[str]) -> tuple[str, ...]:
    """The command modules a command line needs: the one of its command, none for ``--version`` alone, every one
    to list them (``--help``, no command, an unknown one, shell completion)."""
    if any(name.startswith("_DRAWLOG_COMPLETE") for name in os.environ):
        return COMMAND_MODULES
    for arg in args:
        if arg == "--version":
            return ()
        if arg.startswith("-"):
            return COMMAND_MODULES
        return (COMMANDS[arg],) if arg in COMMANDS else COMMAND_MODULES
    return COMMAND_MODULES


app = LazyTyper(
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
    from ..check.config import ConfigError, resolve_settings
    from ..views.terminal import shown

    if config is not None and isolated:
        raise typer.BadParameter("give --config FILE or --isolated, not both", param_hint="--config/--isolated")
    try:
        return resolve_settings(config, isolated)
    except ConfigError as error:
        typer.echo(f"Error: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _configured_format(settings: Settings) -> OutputFormat:
    """The configuration's ``format`` (text when it sets none); a value that is no format exits 2."""
    from ..views.terminal import shown

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
    if baseline is None and not record:
        return None
    from ..check.baseline import Baseline, BaselineError, Screen
    from ..views.terminal import shown

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
    from ..check.config import selects_nothing

    select, ignore, extend_select, extend_ignore = given
    chosen = select if select is not None else settings.select
    parts = [f"select: {','.join(chosen)}"] if chosen and not selects_nothing(chosen) else []
    if chosen is not None and selects_nothing(chosen):  # --select '' or select = []: nothing (ruff's reading)
        parts = [f"select: {','.join(extend_select or settings.extend_select) or 'nothing'}"]
    named = [*(ignore if ignore is not None else settings.ignore or []), *settings.extend_ignore, *(extend_ignore or [])]
    dropped = list(dict.fromkeys(part.strip() for value in named for part in value.split(",") if part.strip()))
    if dropped:
        parts.append(f"ignore: {','.join(dropped)}")
    if settings.per_file_ignores:
        parts.append("per-file-ignores")
    return "; ".join(parts)


def _write_baseline(target: str, recorded: Counter[Key], quiet: bool, summary: Summary | None = None) -> None:
    """Write the baseline file; one line on standard error says how many it holds and what was read (not with
    -q), the only line ``--write-baseline`` prints."""
    from rich.console import Console
    from rich.text import Text

    from ..check.baseline import write_baseline as write_baseline_file
    from ..views.terminal import shown
    from ..views.writers import quantity, summary_line

    try:
        count = write_baseline_file(target, recorded)
    except OSError as error:
        raise WriteFailed(target, error) from None
    if not quiet:
        read = f" ({summary_line(summary)})" if summary is not None else ""
        Console(stderr=True, highlight=False).print(
            Text(f"wrote {quantity(count, 'violation')} to the baseline {shown(target)}{read}"), soft_wrap=True)


def refuse_clobber(option: str, output: str | None, inputs: list[str], *, into_folder: bool = False) -> None:
    """Exit 2 with one line, before anything is written, when ``output`` is one of ``inputs`` or lies in an input
    folder (see :func:`drawlog.log.clobber.clobbered_input`: device and inode, links resolved)."""
    if output is None:
        return
    from ..log.clobber import clobbered_input

    found = clobbered_input(output, inputs, into_folder=into_folder)
    if found is None:
        return
    from ..views.terminal import shown

    name, how = found
    where = {"is": f"is an input ({shown(name)}), the log itself",
             "inside": f"is inside the input folder {shown(name)}",
             "holds": f"holds the input {shown(name)}"}[how]
    typer.echo(f"Error: {option} {shown(output)} {where}: drawlog never overwrites its input; name another file",
               err=True)
    raise typer.Exit(EXIT_UNUSABLE)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"drawlog {__version__} ({'compiled' if _engine_compiled() else 'pure-Python'} engine; "
                   f"log format {LOG_FORMAT})")
        raise typer.Exit()


def _engine_compiled() -> bool:
    """Whether the rules engine is compiled (mypyc): told from the file its module loads from, without loading it.

    The same answer as :data:`drawlog.COMPILED`, which imports the engine to ask it.
    """
    import importlib.util

    spec = importlib.util.find_spec("drawlog.engine.rounds")
    return spec is not None and spec.origin is not None and not spec.origin.endswith(".py")


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
    """Run the command line (``sys.argv``), importing only the command module it needs (start-up time)."""
    app.load(modules_for(sys.argv[1:]))
    app()
