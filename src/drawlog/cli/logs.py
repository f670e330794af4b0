"""``drawlog filter``: picking matches out of logs (by player, code, variant, date, …), copied or split."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Optional

import typer

from ..errors import WriteFailed
from .app import (
    EXIT_UNUSABLE,
    app,
    refuse_clobber,
)

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
