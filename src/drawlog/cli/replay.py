"""``drawlog replay``: one match move by move (text, JSON frames or SVG boards), up to a line or a round."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Optional

import typer

from .app import (
    EXIT_UNUSABLE,
    app,
    refuse_clobber,
)

if TYPE_CHECKING:
    from ..log.sources import Source


def _some_ids(ids: list[str], few: int = 5) -> str:
    """"matches in it: a, b, c, d, e, … (57 in all)": a few of ``ids``, then a count."""
    from ..views.terminal import shown

    if not ids:
        return "it starts no match"
    listed = ", ".join(shown(each) for each in ids[:few])
    return f"matches in it: {listed}" + (f", … ({len(ids):,} in all)" if len(ids) > few else "")


class ReplayFormat(str, Enum):
    """Output formats of ``replay``."""

    text = "text"
    json = "json"
    svg = "svg"


@app.command()
def replay(
    log: Annotated[Optional[str], typer.Argument(metavar="LOG", help="A log file, or FILE:LINE for the match of that "
                                                                     "line, shown up to it.")] = None,
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
    position: Annotated[Optional[str], typer.Option("--position", "-p", metavar="STRING", help="Show the board of a "
                                                    "position string (dp1 …, as replay prints it) instead of a log.")]
    = None,
    analyze: Annotated[bool, typer.Option("--analyze", help="Weigh the move at LINE (or --at) as `drawlog analyze` "
                                          "does: each legal action's information and omniscient equity, the best, "
                                          "the error and its class (hundredths of a second at 64 "
                                          "samples for a 2-player match).")] = False,
    samples: Annotated[int, typer.Option(metavar="N", min=1, max=10_000, help="With --analyze: deals sampled "
                                         "(as analyze --samples).")] = 64,
    seed: Annotated[int, typer.Option(metavar="S", help="With --analyze: the random seed (as analyze --seed).")] = 0,
) -> None:
    """Show one match move by move: the board, hands, stock, legal moves and violations after each event.

    The last board's position string is printed too (text: a last line "position: dp1 …"; json: a
    "position" field in every frame); --position STRING shows that board, its hands and the legal moves.
    """
    import tempfile

    from ..check.walkthrough import split_location
    from ..log.kept import kept_to_read_again
    from ..log.reader import Source
    from ..views.language import UnknownLanguage, catalog

    try:
        words = catalog(lang)
    except UnknownLanguage as error:
        raise typer.BadParameter(str(error), param_hint="--lang") from None
    if position is not None:
        if match is not None or round_number is not None or at is not None:
            raise typer.BadParameter("--match, --round and --at pick from a log: a position string shows one board",
                                     param_hint="--position")
        if analyze:
            raise typer.BadParameter("--analyze weighs a move of a log: a position string has no history",
                                     param_hint="--analyze")
        _replay_position(position, log, words, output_format, output)
        return
    if log is None:
        raise typer.BadParameter("give a log (FILE or FILE:LINE) or --position STRING", param_hint="LOG")
    path, line = split_location(log)
    refuse_clobber("-o", output, [path])
    with tempfile.TemporaryDirectory(prefix="drawlog-replay-") as work:  # standard input or a pipe: read once
        source = kept_to_read_again(Source(path, Path(path)) if path != "-" else Source("-"), Path(work))
        if not analyze and (samples != 64 or seed != 0):
            raise typer.BadParameter("--samples and --seed weigh a move: give --analyze too", param_hint="--analyze")
        if analyze and line is None and at is None:
            raise typer.BadParameter("--analyze weighs the move at a line: give FILE:LINE or --at LINE",
                                     param_hint="--analyze")
        _replay(source, path, line, match, round_number, at, words, output_format, output,
                (samples, seed) if analyze else None)


def _replay(source: Source, path: str, line: int | None, match: str | None, round_number: int | None,
            at: int | None, words: Any, output_format: ReplayFormat, output: str | None,
            weigh: tuple[int, int] | None = None) -> None:
    """``replay`` once its input can be read again (standard input kept in a file)."""
    from rich.console import Console

    from ..check.walkthrough import Selection, frames, match_ids, what_is_at
    from ..errors import InputError
    from ..views.board import frames_json, render_frames
    from ..views.board_svg import board_svg
    from ..views.frames import write_output
    from ..views.terminal import shown

    at = at if at is not None else line
    try:
        if match is None and line is not None:
            match, there = what_is_at(source, line)
            if match is None:
                raise typer.BadParameter(f"line {line:,} of {shown(path)} {there}, so it shows no match: give "
                                         f"the line of one of its events, or --match ID; "
                                         f"{_some_ids(match_ids(source, None))}", param_hint="LOG")
        if match is None:
            ids = match_ids(source, None)
            if len(ids) != 1:
                raise typer.BadParameter(f"{shown(path)} holds {len(ids):,} matches: say which with --match ID "
                                         f"(or give FILE:LINE); {_some_ids(ids)}", param_hint="--match")
            match = ids[0]
        # The frames stream: each is written as it comes, none kept (svg keeps the last board only).
        stream = frames(source, Selection(match, round_number, at),  # text shows the last position only
                        positions={ReplayFormat.json: True, ReplayFormat.svg: False}.get(output_format, "last"))
        first = next(stream, None)
        last_board, last_line = None, 0
        if first is not None and output_format is ReplayFormat.svg:
            last_board, last_line = first["board"], first["line"]
            for frame in stream:
                last_line = frame["line"]
                if frame["board"] is not None:
                    last_board = frame["board"]
    except InputError as error:
        typer.echo(f"Error: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    if first is None and match not in (known := match_ids(source, None)):
        raise typer.BadParameter(f"no match {shown(repr(match))} in {shown(path)}; {_some_ids(known)}",
                                 param_hint="--match")
    if first is None:
        where = f" round {round_number}" if round_number is not None else ""
        raise typer.BadParameter(f"no line of match {shown(repr(match))}{where} in {shown(path)}"
                                 + (f" up to line {at}" if at is not None else ""), param_hint="LOG")
    every: Iterator[dict[str, Any]] = itertools.chain([first], stream)
    if weigh is not None and at is not None:
        every = _weighing_last(every, source, match, at, weigh)
    try:
        if output_format is ReplayFormat.json:
            write_output(output, lambda out: out.writelines(frames_json([frame]) for frame in every))
        elif output_format is ReplayFormat.svg:
            if last_board is None:
                raise typer.BadParameter(f"no board yet at line {last_line}: no round has started", param_hint="--at")
            write_output(output, lambda out: out.write(board_svg(last_board).encode()))
        elif output is None:
            render_frames(every, words, Console(highlight=False, emoji=False))
        else:
            def text(out: IO[bytes]) -> None:
                wrapper = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
                try:
                    render_frames(every, words, Console(file=wrapper, width=100, color_system=None, highlight=False,
                                                        emoji=False))
                finally:
                    wrapper.detach()
            write_output(output, text)
    except InputError as error:  # the input failed part way through the match
        typer.echo(f"Error: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None


def _weighing_last(frames: Iterator[dict[str, Any]], source: Source, match: str, line: int,
                   weigh: tuple[int, int]) -> Iterator[dict[str, Any]]:
    """The frames as they come, the last one (the frame of ``line``, where they stop) given its analysis."""
    previous = None
    for frame in frames:
        if previous is not None:
            yield previous
        previous = frame
    if previous is not None:
        _weigh_last(source, match, line, previous, *weigh)
        yield previous


def _weigh_last(source: Source, match: str, line: int, frame: dict[str, Any], samples: int, seed: int) -> None:
    """Give the frame of ``line`` its ``analysis`` (:mod:`drawlog.analysis.at_line`); another line's frame: why not."""
    from ..analysis.at_line import decision_at

    if frame.get("line") != line:
        frame["analysis"] = {"decision": False, "why": f"line {line:,} is not an event of match {match}"}
        return
    frame["analysis"] = decision_at(source, match, line, samples, seed).as_dict()


def _replay_position(text: str, log: str | None, words: dict[str, str], output_format: ReplayFormat,
                     output: str | None) -> None:
    """``replay --position STRING``: that board in the chosen format; a bad string is one line naming the column."""
    from rich.console import Console

    from ..engine.position import Position
    from ..errors import PositionError
    from ..views.board import frames_json, render_frames
    from ..views.board_svg import board_svg
    from ..views.frames import write_output
    from ..views.position_view import position_frame
    from ..views.terminal import shown

    if log is not None:
        raise typer.BadParameter("give a log or --position, not both", param_hint="--position")
    try:
        frame = position_frame(Position.parse(text))
    except PositionError as error:
        typer.echo(f"Error: --position: {shown(str(error))}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    if output_format is ReplayFormat.json:
        write_output(output, lambda stream: stream.write(frames_json([frame])))
    elif output_format is ReplayFormat.svg:
        write_output(output, lambda stream: stream.write(board_svg(frame["board"]).encode()))
    elif output is None:
        render_frames([frame], words, Console(highlight=False, emoji=False))
    else:
        buffer = io.StringIO()
        render_frames([frame], words, Console(file=buffer, width=100, color_system=None, highlight=False, emoji=False))
        write_output(output, lambda stream: stream.write(buffer.getvalue().encode()))
