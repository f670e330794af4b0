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
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..check.rules import RULES_BY_CODE
from .dataset import open_tables
from .report_boards import Wanted, board_of, frames_at
from .report_charts import chart_data
from .reports import leaderboard, ratings
from .violations import VIOLATION_COLUMNS

#: Violations listed in the report's table; the rest are counted.
MAX_VIOLATIONS = 2_000
#: Violations (the first listed) shown with their board.
MAX_BOARDS = 100
#: Rows of the player, leaderboard and ratings tables; the rest are counted.
MAX_TABLE_ROWS = 500


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
    summary: dict[str, Any]
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


def report_data(folder: str | Path, title: str | None = None, max_violations: int = MAX_VIOLATIONS,
                max_boards: int = MAX_BOARDS) -> ReportData:
    """The report of a statistics folder (:class:`~drawlog.errors.OutputError` when it cannot be read)."""
    from ..log.remote import is_url
    from .storage import read_manifest

    folder = folder if isinstance(folder, str) and is_url(folder) else Path(folder)  # a URL: through fsspec
    tables = open_tables(folder)
    manifest = read_manifest(folder)
    summary = manifest.get("summary") or {}
    inputs = [str(item) for item in manifest.get("inputs") or []]
    violations = _violations(tables, max_violations)
    drawn = _add_boards(tables, violations.rows, max_boards)
    by_code = _by_code(tables["violations"])
    board = leaderboard(folder)
    return ReportData(
        title=title or f"drawlog audit of {', '.join(inputs) or folder}",
        written=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        inputs=inputs,
        summary=summary,
        overview=_overview(tables, summary),
        files=_files(tables),
        by_code=by_code,
        rules=[_rule(row["code"]) for row in by_code if row["code"] in RULES_BY_CODE],
        by_player=_by_player(tables),
        violations=violations,
        leaderboard=Table(_rows(board.head(MAX_TABLE_ROWS)), board.height),
        ratings=_cut(ratings(folder)),
        charts=chart_data(tables, board),
        boards_drawn=drawn,
        boards_limit=max_boards,
    )


def _rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return frame.to_dicts()


def _cut(frame: pl.DataFrame) -> Table:
    return Table(_rows(frame.head(MAX_TABLE_ROWS)), frame.height)


def _overview(tables: dict[str, pl.LazyFrame], summary: dict[str, Any]) -> dict[str, int]:
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
    return {**{key: int(summary.get(key) or 0) for key in keys},
            **{key: int(value or 0) for key, value in matches.items()}, **counts}


def sha256_of(path: str | Path) -> str:
    """The SHA-256 of a file's bytes as stored (compressed files as compressed), in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _files(tables: dict[str, pl.LazyFrame]) -> list[dict[str, Any]]:
    """Each input file named in the tables, in input order, with its size and SHA-256 as it is now."""
    named = pl.concat([tables[name].select("file", "path").with_row_index("row").with_columns(
        pl.lit(rank).alias("table")) for rank, name in enumerate(("matches", "violations"))])
    files = (named.group_by("file", "path").agg(pl.col("table").min(), pl.col("row").min())
             .sort("table", "row").collect())
    found = []
    for file, path in files.select("file", "path").iter_rows():
        entry: dict[str, Any] = {"file": file, "path": path, "bytes": None, "sha256": None, "note": None}
        if path is None:
            entry["note"] = "standard input: no file to checksum"
        else:
            try:
                entry["bytes"] = Path(path).stat().st_size
                entry["sha256"] = sha256_of(path)
            except OSError as error:
                entry["note"] = f"cannot read it now: {error.strerror or error}"
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


def _add_boards(tables: dict[str, pl.LazyFrame], rows: list[dict[str, Any]], most: int) -> int:
    """Put each of the first ``most`` violations' board (or why none) in its row; how many were drawn."""
    wanted = [Wanted(index, row["file"], row["path"], row["line"], row["match"])
              for index, row in enumerate(rows[:most]) if row["match"] is not None and row["line"] is not None]
    starts = (tables["matches"].group_by("file", "match").agg(pl.col("first_line").min())
              .filter(pl.col("match").is_in([item.match for item in wanted])).collect())
    first_lines = {(file, match): line for file, match, line in starts.iter_rows()}
    frames = frames_at(wanted, first_lines)
    drawn = 0
    for index, row in enumerate(rows):
        if index in frames:
            row["board"] = board_of(frames[index])
            drawn += row["board"]["board"] is not None
        elif index < most:
            row["board"] = {"board": None, "note": "no board: the line belongs to no match"}
        else:
            row["board"] = None
    return drawn
