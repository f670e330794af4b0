"""``drawlog validate --follow FILE|-``: what it refuses, and the run (the loop itself is :mod:`drawlog.check.follow`).

Imported by ``validate`` only when ``--follow`` is given (start-up time).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

#: The formats written as violations come: the others (json, sarif, junit, gitlab) are one document each.
FOLLOW_FORMATS = ("text", "concise", "jsonl", "github")


def refusal(paths: list[str], fmt: str, **given: object) -> str | None:
    """Why ``--follow`` cannot run with these paths, format and options (``given``: name → value); None if it can."""
    from ..log.remote import is_url
    from ..log.sources import STDIN

    for option, value in given.items():
        if value:
            return f"--follow prints each violation as it is found and a summary when stopped: drop {option}"
    if fmt not in FOLLOW_FORMATS:
        return (f"--format {fmt} is one document, written once the input has ended: with --follow use "
                f"{', '.join(FOLLOW_FORMATS[:-1])} or {FOLLOW_FORMATS[-1]} (jsonl ends with the summary)")
    if len(paths) != 1:
        return "--follow reads one growing file (or - for standard input): give one PATH"
    path = paths[0]
    if path == STDIN:
        return None
    if is_url(path):
        return f"--follow reads a local file, not a URL: {path}"
    if Path(path).is_dir():
        return f"--follow reads one growing file, not a folder: {path}"
    if path.lower().endswith((".gz", ".zst")):
        return f"--follow reads a plain .jsonl file as it is written, not compressed data: {path}"
    return None


def follow_validate(path: str, stream: Any, codes: frozenset[str], fmt: str, *, strict: bool, quiet: bool,
                    color: str, max_per_match: int | None, max_per_line: int, max_open_matches: int,
                    ignored_in: Callable[[str], frozenset[str]] | None, screen: Any, hide_follow_ons: bool,
                    fail_fast: bool, name: str | None, note: str) -> Any:
    """Follow ``path`` into the writer of ``fmt`` until Ctrl-C (or the end of standard input); the summary.

    Truncation, rotation and a file awaited are said on standard error, one
    line each (``drawlog: log.jsonl was truncated: …``).
    """
    from ..check.follow import interrupt_stops, run
    from ..check.validator import Validator
    from ..errors import InputError
    from ..log.reader import printable
    from ..log.tail import Tail
    from ..views.terminal import make_console, shown
    from ..views.writers import RootsOnly, make_writer

    writer = make_writer(fmt, stream, console=make_console(stream, color), quiet=quiet, strict=strict)
    writer.note = note
    if hide_follow_ons:
        writer = RootsOnly(writer)
    validator = Validator(codes, max_per_match, max_open_matches, max_per_line, ignored_in)
    stop = threading.Event()

    def notice(message: str) -> None:
        sys.stderr.write(f"drawlog: {shown(message)}\n")
        sys.stderr.flush()

    tail = Tail(path, name=printable(name if name is not None else path), stop=stop, on_notice=notice)
    try:
        with interrupt_stops(stop):
            summary = run(validator, tail, writer, stream, screen=screen, fail_fast=fail_fast)
    except InputError as error:  # the file cannot be opened (not missing: that is waited for)
        typer.echo(f"Error: {shown(error.path)}: {error.reason}", err=True)
        raise typer.Exit(2) from None
    writer.finish(summary)
    return summary
