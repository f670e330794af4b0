"""``drawlog filter`` and ``replay``: picking matches out of logs, and one match move by move."""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, BinaryIO, Optional

import typer

from ..errors import WriteFailed
from .app import (
    EXIT_UNUSABLE,
    app,
    refuse_clobber,
)

if TYPE_CHECKING:
    from ..log.sources import Source


class Variant(str, Enum):
    """The games ``filter --variant`` picks."""

    draw = "draw"
    all_fives = "all-fives"


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
    code: Annotated[Optional[list[str]], typer.Option("--code", metavar="CODES", help="Only matches with a "
                                                      "violation of one of these codes or prefixes, read as "
                                                      "validate --select reads them (R306, M2; comma or "
                                                      "repeat: any).")] = None,
    variant: Annotated[Optional[Variant], typer.Option("--variant", metavar="draw|all-fives", help="Only "
                                                       "matches of this game.")] = None,
    winner: Annotated[Optional[list[str]], typer.Option("--winner", metavar="NAME", help="Only finished matches "
                                                        "the replay says NAME won (not the log's claim; "
                                                        "repeat: any).")] = None,
    claimed_winner: Annotated[Optional[list[str]], typer.Option("--claimed-winner", metavar="NAME", help="Only "
                                                                "matches whose match_end claims NAME won "
                                                                "(repeat: any).")] = None,
    rounds: Annotated[Optional[str], typer.Option("--rounds", metavar="ROUNDS", help="Only matches that played "
                                                  "this many rounds (replayed): N, MIN..MAX, MIN.. or ..MAX, "
                                                  "ends included.")] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN", help="Only matches that started at "
                                                 "or after WHEN: an RFC 3339 date or date-time (UTC when no "
                                                 "offset); the match_start ts, else the match's first ts. "
                                                 "Matches without ts are left out.")] = None,
    until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN", help="Only matches that started "
                                                 "before WHEN (a date: before its end, the day included); "
                                                 "matches without ts are left out.")] = None,
    forfeit: Annotated[Optional[bool], typer.Option("--forfeit/--no-forfeit", help="Only matches that end with "
                                                    "a match_end forfeit (or only those that do not).",
                                                    show_default=False)] = None,
    dedupe: Annotated[bool, typer.Option("--dedupe", help="Keep only the first of matches alike: the same "
                                                          "lines in the same order once match, seq and ts are "
                                                          "left out (a log read twice, one uploaded again "
                                                          "under new ids).")] = False,
    split_by: Annotated[Optional[SplitBy], typer.Option("--split-by", metavar="match|tournament", help="Write one "
                                                        "file per match (ID.jsonl) or per tournament "
                                                        "(T.jsonl; no-tournament.jsonl) into the folder -o.")]
    = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No count of what was written, nor account "
                                                              "of the lines read.")] = False,
) -> None:
    """Write the matches that meet every condition whole, one after another, in the order they started.

    Every line of a chosen match (from its first match_start on) is written, in order, even when
    the log interleaves it with other matches; lines that belong to no match (blank, broken, or
    of no started match) are not written. The logs are read twice: once to validate them, once to
    copy. Standard error then accounts for every line read: kept, dropped by the first condition
    its match failed, outside any match, blank, invalid. Exit status: 0 written (even no
    match), 2 nothing could be read.
    """
    import tempfile

    from rich.console import Console
    from rich.text import Text

    from ..check.extract import MatchFilter, split_names
    from ..check.filters import Criteria, parse_codes, parse_rounds, parse_when
    from ..log.reader import expand_paths
    from ..play.recording import open_output
    from ..views.terminal import shown
    from ..views.writers import quantity

    if valid and invalid:
        raise typer.BadParameter("give --valid or --invalid, not both", param_hint="--valid/--invalid")
    if split_by is not None and output == "-":
        raise typer.BadParameter("--split-by writes a folder of files: name it with -o DIR", param_hint="--split-by")
    refuse_clobber("-o", output, paths, into_folder=split_by is not None)
    try:
        codes = parse_codes(code) if code is not None else frozenset()
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--code") from None
    bounds: dict[str, Any] = {}
    for name, text, parse in (("--rounds", rounds, parse_rounds),
                              ("--since", since, lambda text: parse_when(text, end=False)),
                              ("--until", until, lambda text: parse_when(text, end=True))):
        try:
            bounds[name] = None if text is None else parse(text)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint=name) from None
    criteria = Criteria(valid=True if valid else False if invalid else None, players=frozenset(player or []),
                        matches=frozenset(match or []), tournaments=frozenset(tournament or []), codes=codes,
                        variant=None if variant is None else variant.value, winners=frozenset(winner or []),
                        claimed_winners=frozenset(claimed_winner or []),
                        rounds=bounds["--rounds"] or (None, None), forfeit=forfeit, since=bounds["--since"],
                        until=bounds["--until"], dedupe=dedupe)
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
        if chooser.validator.summary.files == 0:  # nothing could be read: any previous output stays as it was
            raise typer.Exit(EXIT_UNUSABLE)
        spooled = chooser.spool()
        if split_by is None:
            try:
                with open_output(output) as stream:
                    for _, spool in spooled:
                        _copy_into(spool, stream)
            except OSError as error:
                raise WriteFailed(output, error) from None
            files = 1
        else:
            keys = [info.id if split_by is SplitBy.match else info.tournament for info, _ in spooled]
            try:
                names = split_names(keys)  # every name decided, distinct, before anything is written
            except ValueError as error:
                typer.echo(f"Error: {error}", err=True)
                raise typer.Exit(EXIT_UNUSABLE) from None
            groups: dict[str, list[Path]] = {}
            for key, (_, spool) in zip(keys, spooled):
                groups.setdefault(names[key], []).append(spool)
            _write_split(Path(output), groups)
            files = len(groups)
    if not quiet:
        lines = chooser.account.kept_lines
        where = shown(output) if split_by is None else f"{quantity(files, 'file')} in {shown(output)}"
        console.print(Text(f"wrote {quantity(len(spooled), 'match', 'matches')} of {len(chooser.found):,} "
                           f"({quantity(lines, 'line')}) to {where if output != '-' else 'standard output'}"),
                      soft_wrap=True)
        console.print(Text(_account_text(chooser.account)), soft_wrap=True)


def _account_text(account: Any) -> str:
    """"1,606 lines read: 1,599 in 36 matches, 0 kept, 1,599 dropped (--valid 29 matches, 1,300 lines; …), 0 outside
    any match, 5 blank, 2 invalid": every line read, once."""
    from ..check.filters import ORDER
    from ..views.writers import quantity

    dropped = [f"{reason} {quantity(account.dropped[reason][0], 'match', 'matches')}, "
               f"{quantity(account.dropped[reason][1], 'line')}" for reason in ORDER if reason in account.dropped]
    in_matches = account.kept_lines + sum(lines for _, lines in account.dropped.values())
    return (f"{quantity(account.lines, 'line')} read: {in_matches:,} in "
            f"{quantity(account.matches(), 'match', 'matches')} ({account.kept_lines:,} kept"
            + (f"; dropped: {'; '.join(dropped)}" if dropped else "")
            + f"), {account.outside:,} outside any match, {account.blank:,} blank, {account.invalid:,} invalid")


def _copy_into(spool: Path, stream: BinaryIO) -> None:
    with open(spool, "rb") as copied:
        while chunk := copied.read(1 << 20):
            stream.write(chunk)


def _write_split(folder: Path, groups: dict[str, list[Path]]) -> None:
    """Write each group's spools to ``folder/NAME.jsonl``: all into a hidden folder there first, then each renamed
    into place (time linear in the number of files: no listing of the folder per file); on a failure nothing is
    left but what was there and the files already renamed."""
    import shutil
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".drawlog-split-", dir=folder))
    except OSError as error:
        raise WriteFailed(str(folder), error) from None
    try:
        for name, spools in groups.items():
            target = staging / f"{name}.jsonl"
            if len(spools) == 1:
                try:
                    os.replace(spools[0], target)  # the spool itself, when on the same file system
                    continue
                except OSError:
                    pass
            try:
                with open(target, "wb") as stream:
                    for spool in spools:
                        _copy_into(spool, stream)
            except OSError as error:
                raise WriteFailed(str(folder / target.name), error) from None
        for name in groups:
            try:
                os.replace(staging / f"{name}.jsonl", folder / f"{name}.jsonl")
            except OSError as error:
                raise WriteFailed(str(folder / f"{name}.jsonl"), error) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


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
