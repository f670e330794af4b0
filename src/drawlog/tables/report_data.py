"""What ``drawlog report`` shows, computed from a statistics folder (polars), in plain data for the views.

Everything comes from the Parquet tables and the validation summary in the
folder's manifest, so a report of a 1 GB log set is as small as one of a
few matches: the violation table is cut at ``max_violations`` rows (the
report says how many more there are), boards are drawn for the first
``max_boards`` of them, the charts take aggregates, and the long tables
(players, leaderboard, ratings) at most :data:`MAX_TABLE_ROWS` rows each.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..check.rules import RULES_BY_CODE
from ..check.violations import Summary
from .dataset import open_tables
from .generations import hold
from .report_boards import Wanted, board_of, frames_at
from .report_charts import chart_data
from .report_corrections import MAX_CORRECTIONS, Verdict, corrections, verdict
from .report_summary import read_summary
from .reports import leaderboard, ratings
from .violations import VIOLATION_COLUMNS

#: Violations listed in the report (a page at a time); the rest are counted.
MAX_VIOLATIONS = 20_000
#: Violations (the first listed) shown with their board.
MAX_BOARDS = 100
#: Rows of the player, leaderboard and ratings tables; the rest are counted.
MAX_TABLE_ROWS = 500
#: The largest log the report opens again (for a checksum or boards); a larger one is said, not read.
MAX_OPEN_BYTES = 16 << 30
#: Seconds the checksum of one log may take; a slower one is said, not finished.
CHECKSUM_SECONDS = 120.0
#: Seconds all the boards may take; boards of the logs not yet read then say so.
BOARDS_SECONDS = 300.0


@dataclass(frozen=True)
class Spooled:
    """A pipe or FIFO the report read once, kept in a scratch file: where, how many bytes, their SHA-256."""

    path: Path
    size: int
    sha256: str


@dataclass(frozen=True)
class LogAccess:
    """Which paths stored in the tables the report may open: nothing in the tables is trusted.

    A stored path is opened only when, links resolved, it is a regular file the
    user named (``files``) or lies under a folder the user named (``folders``);
    ``spooled`` holds the pipes and FIFOs already read, by the ``file`` name the
    tables give them, so they are never opened twice.
    """

    files: frozenset[str] = frozenset()
    folders: tuple[str, ...] = ()
    spooled: Mapping[str, Spooled] = field(default_factory=dict)

    @classmethod
    def of(cls, named: Iterable[str], spooled: Mapping[str, Spooled] | None = None) -> LogAccess:
        """The access the user gave by naming ``named`` (log files and folders; ``-`` and URLs name nothing)."""
        from ..log.remote import is_url

        files, folders = set(), []
        for raw in named:
            if raw == "-" or is_url(raw):
                continue
            real = os.path.realpath(raw)
            if os.path.isdir(real):
                folders.append(real.rstrip(os.sep) + os.sep)
            else:
                files.add(real)
        return cls(frozenset(files), tuple(folders), dict(spooled or {}))

    def check(self, path: str | None) -> Path | str:
        """The real path to open for a stored ``path``, or why it is not opened (a sentence)."""
        if path is None:
            return "the log was read from standard input"
        real = os.path.realpath(path)
        if real not in self.files and not real.startswith(self.folders):
            return (f"{path} is not a log named for this report (name its folder with --logs to read it)"
                    if self.files or self.folders else "no logs were named for this report (--logs)")
        try:
            status = os.stat(real)
        except OSError as error:
            return f"{path} cannot be read now: {error.strerror or error}"
        if not stat.S_ISREG(status.st_mode):
            return f"{path} is not a regular file"
        if status.st_size > MAX_OPEN_BYTES:
            return f"{path} is larger than {MAX_OPEN_BYTES:,} bytes"
        return Path(real)


@dataclass
class Table:
    """Rows of a table in the report, and how many there were before the cut."""

    rows: list[dict[str, Any]]
    total: int


@dataclass
class ReportData:
    """Every section of the report as plain data (strings from the logs unescaped: the view escapes)."""

    title: str
    written: str
    inputs: list[str]
    summary: Summary
    overview: dict[str, int]
    files: list[dict[str, Any]]
    by_code: list[dict[str, Any]]
    rules: list[dict[str, Any]]
    by_player: Table
    violations: Table
    leaderboard: Table
    ratings: Table
    charts: dict[str, Any] = field(default_factory=dict)
    boards_drawn: int = 0
    boards_limit: int = MAX_BOARDS
    verdict: Verdict = field(default_factory=lambda: Verdict(0, 0, 0, 0))
    #: The results to correct (:func:`~drawlog.tables.report_corrections.corrections`), and how many in all.
    corrections: list[dict[str, Any]] = field(default_factory=list)
    corrections_total: int = 0
    #: The Analysis section (:func:`drawlog.analysis.report_section.analysis_section`), None without analysis tables.
    analysis: dict[str, Any] | None = None
    #: What of the folder was not read as it stands (a summary value of another type, say): sentences.
    notes: list[str] = field(default_factory=list)


def report_data(folder: str | Path, title: str | None = None, max_violations: int = MAX_VIOLATIONS,
                max_boards: int = MAX_BOARDS, access: LogAccess | None = None,
                aliases: dict[str, str] | None = None) -> ReportData:
    """The report of a statistics folder (:class:`~drawlog.errors.OutputError` when it cannot be read).

    The folder is untrusted input: its tables must have the columns and types
    ``drawlog stats`` writes, and the logs it names are opened only as
    ``access`` allows (by default, none). ``aliases`` (alias → canonical name) merges players' names.
    """
    from ..log.remote import is_url
    from .storage import read_manifest

    access = access or LogAccess()
    folder = folder if isinstance(folder, str) and is_url(folder) else Path(folder)  # a URL: through fsspec
    shown_folder = folder
    if isinstance(folder, Path):
        folder = hold(folder)  # one generation for the tables and the manifest, whatever runs meanwhile
    tables = open_tables(folder)
    _check_columns(shown_folder, tables)
    if aliases:
        from .aliases import merged

        tables = merged(tables, aliases)
    manifest = read_manifest(folder)
    summary, notes = read_summary(manifest.get("summary"))
    inputs = [str(item) for item in manifest.get("inputs") or []] if isinstance(manifest.get("inputs"), list) else []
    violations = _violations(tables, max_violations)
    to_correct, to_correct_total = corrections(tables, MAX_CORRECTIONS)
    drawn = _add_boards(tables, violations.rows, max_boards, access, _claim_rows(violations.rows, to_correct,
                                                                               max_boards))
    by_code = _by_code(tables["violations"])
    board = leaderboard(folder, tables=tables)
    return ReportData(
        title=title or f"drawlog audit of {', '.join(inputs) or shown_folder}",
        written=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        inputs=inputs,
        summary=summary,
        overview=_overview(tables, summary),
        files=_files(tables, access),
        by_code=by_code,
        rules=[_rule(row["code"]) for row in by_code if row["code"] in RULES_BY_CODE],
        by_player=_by_player(tables),
        violations=violations,
        leaderboard=Table(_rows(board.head(MAX_TABLE_ROWS)), board.height),
        ratings=_cut(ratings(folder, tables=tables)),
        charts=chart_data(tables, board),
        boards_drawn=drawn,
        boards_limit=max_boards,
        verdict=verdict(tables),
        corrections=to_correct,
        corrections_total=to_correct_total,
        notes=notes,
    )


def _check_columns(folder: str | Path, tables: dict[str, pl.LazyFrame]) -> None:
    """Refuse tables whose columns are not those ``drawlog stats`` writes, of the same types."""
    from ..errors import OutputError
    from .stats import SCHEMAS

    for name, schema in SCHEMAS.items():
        if name not in tables:
            raise OutputError(f"{folder} holds no {name} table: write the statistics with `drawlog stats LOGS --out "
                              f"{folder}` (the analysis tables alone make no report)")
        found = tables[name].collect_schema()
        for column, wanted in pl.from_arrow(schema.empty_table()).schema.items():  # type: ignore[union-attr]
            if found.get(column) != wanted:
                held = f"is {found[column]}" if column in found else "is missing"
                raise OutputError(f"{folder} is not a statistics folder drawlog wrote: {name}.{column} {held}, "
                                  f"not {wanted}")


def _rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.to_dicts()


def _cut(frame: pl.DataFrame) -> Table:
    return Table(_rows(frame.head(MAX_TABLE_ROWS)), frame.height)


def _overview(tables: dict[str, pl.LazyFrame], summary: Summary) -> dict[str, int]:
    """The counts of the audit summary: the run's summary, and rounds, moves and players from the tables."""
    matches = tables["matches"].select(
        pl.len().alias("matches"), pl.col("valid").sum().alias("valid"), (~pl.col("valid")).sum().alias("invalid"),
        (~pl.col("complete")).sum().alias("unfinished")).collect().row(0, named=True)
    counts = {
        "rounds": tables["rounds"].select(pl.len()).collect().item(),
        "moves": tables["moves"].select(pl.len()).collect().item(),
        "players": tables["players"].select(pl.col("player").n_unique()).collect().item(),
    }
    keys = ("files", "unreadable", "lines", "events", "blank_lines", "invalid_lines", "violations", "errors",
            "warnings", "suppressed", "closed_early")
    return {**{key: getattr(summary, key) for key in keys},
            **{key: int(value or 0) for key, value in matches.items()}, **counts}


def sha256_of(path: str | Path, seconds: float = CHECKSUM_SECONDS) -> tuple[int, str]:
    """The size and SHA-256 (hex) of a regular file's bytes as stored (compressed files as compressed).

    Opened without blocking or following a link, and only when it is a regular
    file of at most :data:`MAX_OPEN_BYTES`; reading stops after ``seconds``.
    :class:`OSError` says why there is no checksum.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags)
    with open(descriptor, "rb", buffering=0) as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(0, "not a regular file")
        if status.st_size > MAX_OPEN_BYTES:
            raise OSError(0, f"larger than {MAX_OPEN_BYTES:,} bytes")
        digest, size, deadline = hashlib.sha256(), 0, time.monotonic() + seconds
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            if size > MAX_OPEN_BYTES:
                raise OSError(0, f"larger than {MAX_OPEN_BYTES:,} bytes")
            if time.monotonic() > deadline:
                raise OSError(0, f"reading it took over {seconds:g} s")
    return size, digest.hexdigest()


def _files(tables: dict[str, pl.LazyFrame], access: LogAccess) -> list[dict[str, Any]]:
    """Each input file named in the tables, in input order, with its size and SHA-256 as it is now (as
    ``access`` allows; a pipe or FIFO with those of what was read from it)."""
    named = pl.concat([tables[name].select("file", "path").with_row_index("row").filter(
        pl.col("file").is_not_null()).with_columns(
        pl.lit(rank).alias("table")) for rank, name in enumerate(("matches", "violations"))])
    files = (named.group_by("file", "path").agg(pl.col("table").min(), pl.col("row").min())
             .sort("table", "row").collect())
    found = []
    for file, path in files.select("file", "path").iter_rows():
        entry: dict[str, Any] = {"file": file, "path": path, "bytes": None, "sha256": None, "note": None}
        spooled = access.spooled.get(file)
        checked = access.check(path)
        if spooled is not None:
            entry["bytes"], entry["sha256"] = spooled.size, spooled.sha256
        elif path is None:
            entry["note"] = "standard input: no file to checksum"
        elif isinstance(checked, str):
            entry["note"] = f"not checksummed: {checked}"
        else:
            try:
                entry["bytes"], entry["sha256"] = sha256_of(checked)
            except OSError as error:
                entry["note"] = f"not checksummed: {error.strerror or error}"
        found.append(entry)
    return found


def _by_code(violations: pl.LazyFrame) -> list[dict[str, Any]]:
    """Violations per code, most first, with the rule's name and one-sentence summary."""
    counts = (violations.group_by("code", "severity").agg(pl.len().alias("count"))
              .sort(["count", "code"], descending=[True, False]).collect())
    rows = []
    for code, severity, count in counts.iter_rows():
        rule = RULES_BY_CODE.get(code)
        rows.append({"code": code, "severity": severity, "count": count, "name": rule.name if rule else "",
                     "summary": rule.summary if rule else ""})
    return rows


def _rule(code: str) -> dict[str, Any]:
    rule = RULES_BY_CODE[code]
    return {"code": rule.code, "name": rule.name, "severity": rule.severity, "summary": rule.summary,
            "why": rule.why, "bad": rule.bad, "good": rule.good}


def _by_player(tables: dict[str, pl.LazyFrame]) -> Table:
    """Per player: moves, the errors and warnings naming them, and errors per 100 of their moves.

    Errors per 100 moves is the leaderboard's ``violations_per_100_moves``, over every variant.
    """
    moves = tables["moves"].group_by("player").agg(pl.len().alias("moves"))
    named = (tables["violations"].filter(pl.col("player").is_not_null()).group_by("player")
             .agg((pl.col("severity") == "error").sum().alias("errors"),
                  (pl.col("severity") != "error").sum().alias("warnings")))
    frame = (moves.join(named, on="player", how="full", coalesce=True)
             .with_columns(pl.col("moves", "errors", "warnings").fill_null(0))
             .with_columns(pl.when(pl.col("moves") > 0).then(100 * pl.col("errors") / pl.col("moves"))
                           .alias("errors_per_100_moves"))
             .sort(["errors_per_100_moves", "errors", "player"], descending=[True, True, False], nulls_last=True)
             .collect())
    return _cut(frame.select("player", "moves", "errors", "warnings", "errors_per_100_moves"))


def _violations(tables: dict[str, pl.LazyFrame], limit: int) -> Table:
    """The first ``limit`` violations in the order validate reports them (file by file, line by line)."""
    violations = tables["violations"]
    total = violations.select(pl.len()).collect().item()
    rows = violations.select(*VIOLATION_COLUMNS, "path").head(limit).collect().to_dicts()
    return Table(rows, total)


def _claim_rows(rows: list[dict[str, Any]], to_correct: list[dict[str, Any]], most: int) -> set[int]:
    """The listed violation at the first wrong claim of each of the first ``most`` results to correct."""
    firsts = {(row["file"], row["match"], row["first_line"]) for row in to_correct[:most]}
    return {index for index, row in enumerate(rows) if (row["file"], row["match"], row["line"]) in firsts}


def _add_boards(tables: dict[str, pl.LazyFrame], rows: list[dict[str, Any]], most: int, access: LogAccess,
                also: Iterable[int] = ()) -> int:
    """Put the board (or why none) of each of the first ``most`` violations, and of those ``also`` names, in
    its row; how many were drawn."""
    chosen = set(range(min(most, len(rows)))) | set(also)
    wanted = [Wanted(index, rows[index]["file"], rows[index]["path"], rows[index]["line"], rows[index]["match"])
              for index in sorted(chosen) if rows[index]["match"] is not None and rows[index]["line"] is not None
              and rows[index]["file"] is not None]
    starts = (tables["matches"].group_by("file", "match").agg(pl.col("first_line").min())
              .filter(pl.col("match").is_in([item.match for item in wanted])).collect())
    first_lines = {(file, match): line for file, match, line in starts.iter_rows()}
    frames = frames_at(wanted, first_lines, opened=lambda file, path: to_open(access, file, path),
                       deadline=time.monotonic() + BOARDS_SECONDS)
    drawn = 0
    for index, row in enumerate(rows):
        if index in frames:
            row["board"] = board_of(frames[index])
            drawn += row["board"]["board"] is not None
        elif index in chosen:
            row["board"] = {"board": None, "note": "no board: the line belongs to no match" if row["file"] is not None
                            else "no board: the violation names no file"}
        else:
            row["board"] = None
    return drawn


def to_open(access: LogAccess, file: str, path: str | None) -> Path | str:
    """The file to open for a log the tables name (its spooled copy, or its path as ``access`` allows), or why not."""
    spooled = access.spooled.get(file)
    return spooled.path if spooled is not None else access.check(path)
