"""``drawlog fix``: a copy of a log with its claims rewritten from the replay (see :mod:`drawlog.check.fix`)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import WriteFailed
from ..views.terminal import shown
from .app import EXIT_CLEAN, EXIT_ERRORS, EXIT_UNUSABLE, app, refuse_clobber

if TYPE_CHECKING:
    from rich.console import Console

    from ..check.fix import FixResult

#: What to do about the errors fix leaves alone, by the first letter of their code.
HINTS = {
    "F": "lines or events that do not fit the format: mend them by hand",
    "S": "deals and seating: mend them by hand",
    "M": "illegal moves: the log says what was played, fix does not guess another move",
    "R": "round and match structure (R301, R305, R307): a round_end or match_end missing, early or late",
}


class FixFormat(str, Enum):
    """How ``fix`` prints what it changed."""

    text = "text"
    json = "json"


@app.command()
def fix(
    log: Annotated[str, typer.Argument(metavar="LOG", help="The log to fix (.jsonl, .jsonl.gz, .jsonl.zst, or - "
                                                           "for standard input); it is never written.")],
    output: Annotated[str, typer.Option("--output", "-o", metavar="FIXED", help="The fixed copy to write (.jsonl, "
                                        ".jsonl.gz, .jsonl.zst; - for standard output). Never the log itself.")],
    changes: Annotated[Optional[str], typer.Option("--changes", metavar="FILE", help="Also write the list of "
                                                   "changes to FILE, as JSON (FILE.json).")] = None,
    output_format: Annotated[FixFormat, typer.Option("--format", "-f", help="text (a line per change) or json "
                                                     "(one document: changes, left alone, summary).")]
    = FixFormat.text,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors (the changes still go to "
                                                              "--changes).")] = False,
) -> None:
    """Write a copy of LOG whose claims agree with the replay, like pgn-extract's --fixresulttag.

    Rewritten: a round_end's winner, points and revealed hands (R302, R303, R304), a match_end's
    scores and winner (R306), an All Fives play's points (R308). Only the wrong values change: the
    line keeps its other fields, their order and spacing (seq, ts, unknown fields); every other line
    (blank, broken, of another match) is copied byte for byte. Moves and structure (R301, R305,
    R307, F, S and M codes) are left alone and counted. Exit status: 0 nothing to fix or fixed, 1 a
    claim that cannot be put right is left (a forfeit naming someone not playing), 2 the command
    could not run (unreadable log, -o naming the log itself).
    """
    from rich.console import Console
    from rich.text import Text

    from ..log.clobber import same_file
    from ..check.fix import CannotFix, fix_lines, read_log
    from ..errors import InputError
    from ..log.reader import Source, expand_paths
    from ..play.recording import open_output

    error = Console(stderr=True, highlight=False)

    def cannot(message: str) -> typer.Exit:
        error.print(Text(f"Error: {message}"), soft_wrap=True)
        return typer.Exit(EXIT_UNUSABLE)

    if output_format is FixFormat.json and output == "-":
        raise typer.BadParameter("the fixed log and the JSON report cannot both go to standard output: name the "
                                 "fixed log with -o FIXED", param_hint="--format")
    refuse_clobber("-o", output, [log])
    refuse_clobber("--changes", changes, [log])
    if changes is not None and changes != "-" and same_file(changes, output):
        raise cannot(f"--changes {shown(changes)} names the fixed copy")
    if log != "-" and Path(log).is_dir():
        raise cannot(f"{shown(log)} is a folder: fix reads one log file")
    found = list(expand_paths([log]))
    source = found[0] if found else None
    if not isinstance(source, Source):
        raise cannot(f"cannot read {shown(log)}: {shown(source.reason) if source is not None else 'nothing found'}")
    try:
        text = read_log(source)
        result = fix_lines(text.lines, source.name)
        with open_output(output) as stream:  # written whole or not at all
            for piece in text.data(result.lines):
                stream.write(piece)
    except InputError as problem:
        raise cannot(f"cannot read {shown(str(problem))}") from None
    except CannotFix as problem:
        raise cannot(shown(str(problem))) from None
    except OSError as failure:
        raise WriteFailed(output, failure) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    document = _document(result, source.name, output, len(text.lines))
    if changes is not None:
        from ..views.frames import write_output

        write_output(changes, lambda stream: stream.write(json.dumps(document, ensure_ascii=False, indent=2)
                                                          .encode() + b"\n"))
    if output_format is FixFormat.json:
        typer.echo(json.dumps(document, ensure_ascii=False))
    elif not quiet:
        console = Console(stderr=output == "-", highlight=False, soft_wrap=True)
        _print_text(console, result, source.name, output, len(text.lines))
    raise typer.Exit(EXIT_ERRORS if result.unfixed_claims else EXIT_CLEAN)


def _document(result: FixResult, file: str, output: str, lines: int) -> dict[str, Any]:
    """What ``--format json`` prints and ``--changes`` writes."""
    left = result.left_alone
    return {
        "summary": {"file": file, "output": output, "lines": lines, "changes": len(result.changes),
                    "lines_changed": len({change.line for change in result.changes}),
                    "left_alone": sum(left.values()), "unfixed_claims": sum(result.unfixed_claims.values())},
        "changes": [change.as_dict() for change in result.changes],
        "left_alone": dict(sorted(left.items())),
        "unfixed_claims": dict(sorted(result.unfixed_claims.items())),
    }


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _print_text(console: Console, result: FixResult, file: str, output: str, lines: int) -> None:
    """A line per change, then what was left alone (with hints) and a summary line."""
    from rich.text import Text

    for change in result.changes:
        where = f"round {change.round} " if change.round is not None and change.event == "round_end" else ""
        console.print(Text.assemble(f"{shown(change.file)}:{change.line}: ", (change.code, "yellow"),
                                    f" match {shown(change.match)} {where}{change.event} {change.field}: "
                                    f"{shown(_value(change.claimed))} -> {shown(_value(change.recomputed))}"))
    target = "standard output" if output == "-" else shown(output)
    changed = len({change.line for change in result.changes})
    if result.changes:
        console.print(Text(f"fixed {len(result.changes):,} claim{'s' if len(result.changes) != 1 else ''} on "
                           f"{changed:,} line{'s' if changed != 1 else ''} of {lines:,}; the other lines are copied "
                           f"unchanged to {target}"))
    else:
        console.print(Text(f"nothing to fix: {lines:,} line{'s' if lines != 1 else ''} copied unchanged to {target}"))
    left = result.left_alone
    if left:
        counts = ", ".join(f"{code} ×{count:,}" for code, count in sorted(left.items()))
        console.print(Text(f"left alone (not claims): {counts}"))
        for letter in sorted({code[0] for code in left}):
            if letter in HINTS:
                console.print(Text(f"  {letter}…: {HINTS[letter]}"))
        console.print(Text(f"  see them with: drawlog validate {target if output != '-' else shown(file)}"))
    unfixed = result.unfixed_claims
    if unfixed:
        counts = ", ".join(f"{code} ×{count:,}" for code, count in sorted(unfixed.items()))
        console.print(Text(f"claims that cannot be put right (a forfeit naming someone not playing): {counts}",
                           style="red"))
