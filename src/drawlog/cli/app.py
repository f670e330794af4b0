"""The ``drawlog`` Typer application: the command group, exit statuses and options shared by commands."""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Callable, Optional

import typer
from typer.core import TyperArgument, TyperGroup

from .. import __version__
from ..check.limits import MAX_OPEN_MATCHES, MAX_PER_LINE, MAX_PER_MATCH
from ..errors import WriteFailed
from ..log.format import LOG_FORMAT
from ..views.streams import STANDARD_OUTPUT, GuardedStream

if TYPE_CHECKING:  # the library is imported when a command runs, not to list the commands (start-up time)
    from collections import Counter

    from ..check.baseline import Key, Screen
    from ..check.config import Settings
    from ..check.violations import Summary

EXIT_CLEAN, EXIT_ERRORS, EXIT_UNUSABLE = 0, 1, 2
#: A reader that went away (``drawlog … | head``): 128 + SIGPIPE, what a shell reports for ``cat`` there.
EXIT_BROKEN_PIPE = 141
#: 128 + SIGINT: what a shell reports for a command that Ctrl-C ended (as ``drawlog.__main__`` does at start-up).
EXIT_INTERRUPTED = 130


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
            _guard_urls(command)
            help_option = command.get_help_option(ctx) if hasattr(command, "get_help_option") else None
            _quick_coercion([*getattr(command, "params", []), *([help_option] if help_option is not None else [])])
        return command

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse the options of ``drawlog`` itself, coerced by :class:`QuickCoercion` where they can be."""
        _quick_coercion(self.get_params(ctx))
        return super().parse_args(ctx, args)  # type: ignore[no-any-return]

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a Ctrl-C that the command does not handle itself (while it imports what it needs,
        say) is one line and exit 130, not click's "Aborted!" and exit 1."""
        from ..errors import ClusterFailed
        from ..tables.generations import scoped

        try:
            with scoped():  # the tables a command reads are let go when it ends (tables/generations.py)
                return super().invoke(ctx)
        except KeyboardInterrupt:
            sys.stderr.write("drawlog: interrupted\n")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except ClusterFailed as error:  # workers killed, a nanny that did not start: one line, not dask's traceback
            sys.stderr.write(f"Error: {error}\n")
            raise typer.Exit(EXIT_UNUSABLE) from None

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


#: The options that name where a command writes: a ``memory://`` URL there would be gone when drawlog exits.
_OUTPUT_OPTIONS = frozenset({"-o", "--out", "--output", "--output-file", "--write-baseline", "--changes",
                             "--faults-file"})


def _guard_urls(command: Any) -> None:
    """Refuse a ``memory://`` output (it lives in this process: gone at exit) before the command runs, and make an
    error of a cloud client (no credentials, access denied) one line naming the URLs given, exit 2."""
    if getattr(command, "_urls_guarded", False):
        return
    command._urls_guarded = True
    run = command.invoke

    def invoke(ctx: Any) -> Any:
        from ..log.remote import cloud_error, is_url, lost_at_exit

        for param in command.params:
            value = ctx.params.get(param.name)
            if _OUTPUT_OPTIONS.intersection(getattr(param, "opts", ())) and isinstance(value, str) \
                    and lost_at_exit(value):
                typer.echo(f"Error: {param.opts[0]} {value}: memory:// lives in this process's memory, gone when "
                           f"drawlog exits: write to a folder or a lasting URL (memory:// is for the Python API)",
                           err=True)
                raise typer.Exit(EXIT_UNUSABLE)
        try:
            return run(ctx)
        except Exception as error:
            said = cloud_error(error)
            if said is None:
                raise
            given = [item for value in ctx.params.values()
                     for item in (value if isinstance(value, (list, tuple)) else [value])
                     if isinstance(item, str) and is_url(item)]
            typer.echo(f"Error: {', '.join(dict.fromkeys(given)) or 'a URL'}: {said} (credentials come from the "
                       f"environment, ~/.aws, gcloud: see README, Larger than one machine)", err=True)
            raise typer.Exit(EXIT_UNUSABLE) from None

    command.invoke = invoke


def _plain_arguments(command: Any) -> None:
    """Name each argument with a metavar by it alone in ``--help``: ``PATH...``, not ``{PATH}...`` and ``<list[str]>``."""
    for param in getattr(command, "params", []):
        if isinstance(param, TyperArgument) and param.metavar is not None:
            shown_name = f"{param.metavar}{'...' if param.nargs != 1 else ''}"
            usage = shown_name if param.required else f"[{shown_name}]"
            param.display_type_rich = _no_type_label  # type: ignore[method-assign]
            param._usage_display_name = _constant(usage)  # type: ignore[method-assign]


def _quick_coercion(params: list[Any]) -> None:
    """Give each of ``params`` a :class:`QuickCoercion` (in the typer versions that coerce through pydantic)."""
    for param in params:
        if getattr(param, "_runtime_param", False) is None and hasattr(param, "type_descriptor"):
            param._runtime_param = QuickCoercion(param.type_descriptor)


#: What :func:`_plain_value` answers when the value is not a plain case.
_NOT_PLAIN = object()


class QuickCoercion:
    """A parameter's coercion that answers the plain cases itself, and hands the others to typer's own.

    Recent typer versions coerce every parameter through a pydantic ``TypeAdapter``
    built for it when the command runs: importing pydantic and building the
    adapters took longer than the rest of ``drawlog validate`` on an empty file.
    The plain cases (nothing given; a string for a ``str``; a default already of
    its type, in range; strings for a ``list[str]``) come out of pydantic as they
    went in, so they are answered here; any other value, and every error message,
    is typer's.
    """

    def __init__(self, descriptor: Any) -> None:
        self.descriptor = descriptor
        self.full: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """``value`` coerced for ``param``, as typer would."""
        plain = _plain_value(self.descriptor, value, param.multiple or param.nargs == -1)
        if plain is not _NOT_PLAIN:
            return plain
        if self.full is None:
            from typer._coercion import build_runtime_param

            self.full = build_runtime_param(self.descriptor)
        return self.full.coerce(value, param=param, ctx=ctx)


def _plain_value(descriptor: Any, value: Any, multiple: bool) -> Any:
    """``value`` as typer's coercion gives it back, for the plain cases; :data:`_NOT_PLAIN` for the others."""
    info, annotation = descriptor.parameter_info, descriptor.annotation
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None \
            or descriptor.file_annotation is not None:
        return _NOT_PLAIN
    if value is None:
        return () if multiple else None
    if multiple:
        if getattr(annotation, "__origin__", None) is list and annotation.__args__ == (str,) \
                and isinstance(value, (list, tuple)) and all(type(item) is str for item in value):
            return list(value)
        return _NOT_PLAIN
    if annotation in (str, bool) and type(value) is annotation:
        return value
    if annotation is int and type(value) is int and not getattr(info, "clamp", False) \
            and (info.min is None or value >= info.min) and (info.max is None or value <= info.max):
        return value
    if isinstance(annotation, type) and issubclass(annotation, Enum) and isinstance(value, annotation):
        return value
    return _NOT_PLAIN


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
    from ..views.terminal import shown

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


#: The modules of the commands, in the order ``--help`` lists their commands.
COMMAND_MODULES = ("validate", "rules", "logs", "play", "arena", "tables", "views", "report", "analyze", "fix")
#: Which module registers each command: running one imports that module alone (tests/test_startup.py checks it).
COMMANDS = {"validate": "validate", "rule": "rules", "schema": "rules", "filter": "logs", "replay": "logs",
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
