"""The ``drawlog`` command group: how every command runs (standard output guarded, URLs checked, Ctrl-C and
write failures as one line) and the exit statuses."""

from __future__ import annotations

import os
import sys
from enum import Enum
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup

from ..errors import WriteFailed
from ..views.streams import STANDARD_OUTPUT, GuardedStream

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
