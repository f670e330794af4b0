"""The data behind the report's charts: small aggregates of the tables, whatever the size of the logs.

Each chart gets a list of records (plain dicts): counts per value or per bin,
shares per player, scores per round. What is cut to keep them small is said
in the chart's ``note``.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any

import polars as pl

#: Players in the per-player charts (those with most rounds); the rest are counted in the note.
MAX_PLAYERS_CHARTED = 40
#: Matches offered in the score-over-time chart (the first ones started).
MAX_MATCHES_CHARTED = 200
#: Bars of the violations-over-time chart at most.
MAX_BINS = 60


def chart_data(tables: dict[str, pl.LazyFrame], board: pl.DataFrame) -> dict[str, Any]:
    """Every chart's records, by chart name; ``board`` is the leaderboard (per player and variant)."""
    order = match_order(tables["matches"])
    return {
        "points": _points_by_ending(tables["rounds"]),
        "stock": _stock_left(tables["rounds"]),
        "voluntary": _player_shares(board, "voluntary_draw_share", "rounds"),
        "wins": _player_shares(board, "win_share", "matches"),
        "scores": _score_lines(tables, order),
        "over_time": _violations_over_time(tables, order),
        "ratings": rating_lines(tables),
    }


def match_order(matches: pl.LazyFrame) -> pl.DataFrame:
    """Matches in the order they started: by input file (as read), then first line; ``number`` from 1."""
    indexed = matches.with_row_index("row")
    ranks = indexed.group_by("file").agg(pl.col("row").min().alias("file_rank"))
    return (indexed.join(ranks, on="file")
            .sort("file_rank", "first_line")
            .select("match", "file", "first_line", "started_at", "player_names", "variant")
            .collect()
            .with_row_index("number", offset=1))


def _ended(rounds: pl.LazyFrame) -> pl.LazyFrame:
    return rounds.filter(pl.col("reason").is_not_null())


def _points_by_ending(rounds: pl.LazyFrame) -> dict[str, Any]:
    """How many rounds scored each number of points, by how they ended and by variant."""
    records = (_ended(rounds).group_by("variant", "reason", "points").agg(pl.len().alias("rounds"))
               .sort("variant", "reason", "points").collect().to_dicts())
    return {"records": records, "note": None}


def _stock_left(rounds: pl.LazyFrame) -> dict[str, Any]:
    """How many rounds ended with each number of tiles in the stock, by how they ended and by variant."""
    records = (_ended(rounds).group_by("variant", "reason", "stock_left").agg(pl.len().alias("rounds"))
               .sort("variant", "reason", "stock_left").collect().to_dicts())
    return {"records": records, "note": None}


def _player_shares(board: pl.DataFrame, share: str, weight: str) -> dict[str, Any]:
    """One share per player (and variant, named beside the player when there are several), most played first."""
    several = board.select(pl.col("variant").n_unique()).item() > 1 if board.height else False
    rows = board.filter(pl.col(share).is_not_null()).sort([weight, "player"], descending=[True, False])
    kept = rows.head(MAX_PLAYERS_CHARTED)
    label = pl.format("{} ({})", pl.col("player"), pl.col("variant")) if several else pl.col("player")
    records = kept.select(label.alias("player"), "variant", pl.col(share).alias("share"), pl.col(weight)).to_dicts()
    note = None
    if rows.height > kept.height:
        note = f"the {kept.height} players with most {weight} of {rows.height}"
    return {"records": records, "note": note}


def _score_lines(tables: dict[str, pl.LazyFrame], order: pl.DataFrame) -> dict[str, Any]:
    """Each player's score after each round (0 before the first) of the first matches started."""
    chosen = order.head(MAX_MATCHES_CHARTED)
    after = (tables["players"].filter(pl.col("match").is_in(chosen["match"].to_list()))
             .select("file", "match", "round", "player", "score").collect())
    after = after.join(chosen.select("file", "match"), on=["file", "match"], how="semi")
    before = after.group_by("file", "match", "player").agg(pl.lit(0, pl.Int32).alias("round"),
                                                           pl.lit(0, pl.Int64).alias("score"))
    lines = pl.concat([before.select(after.columns), after.with_columns(pl.col("round").cast(pl.Int32))])
    keyed = chosen.select("file", "match", "number").join(lines, on=["file", "match"])
    records = (keyed.sort("number", "round", "player")
               .select(pl.col("number").alias("game"), "round", "player", "score").to_dicts())
    options = [{"game": number, "label": f"{match} ({', '.join(names or [])})"}
               for number, match, names in chosen.select("number", "match", "player_names").iter_rows()]
    note = None
    if order.height > chosen.height:
        note = f"the first {chosen.height} matches started, of {order.height}"
    return {"records": records, "matches": options, "note": note}


def _violations_over_time(tables: dict[str, pl.LazyFrame], order: pl.DataFrame) -> dict[str, Any]:
    """Violations per bin of time (the match's logged ``ts``) when every match has one, else per bin of match order.

    A violation outside any match (a broken line, say) goes with the match
    started last before its line in its file; before any match, with the first.
    """
    violations = tables["violations"].select("file", "line", "match", "severity").collect()
    timed = order.height > 0 and order["started_at"].null_count() == 0
    first_of = order.select("file", "match", "number").unique(["file", "match"], keep="first", maintain_order=True)
    by_match = violations.join(first_of, on=["file", "match"], how="left")  # a match started twice: its first
    loose = (by_match.filter(pl.col("number").is_null())
             .select("file", pl.col("line").fill_null(0), "number", "severity", pl.lit(1).alias("loose")))
    starts = order.select("file", pl.col("first_line").alias("line"), "number", pl.lit(None, pl.String).alias(
        "severity"), pl.lit(0).alias("loose"))
    placed = (pl.concat([starts, loose], how="vertical_relaxed")
              .sort("file", "line", "loose")
              .with_columns(pl.col("number").forward_fill().over("file").fill_null(1))
              .filter(pl.col("loose") == 1))
    numbered = pl.concat([by_match.filter(pl.col("number").is_not_null()).select("number", "severity"),
                          placed.select("number", "severity")], how="vertical_relaxed")
    if order.height == 0:
        return {"mode": "order", "records": [], "note": None}
    if timed:
        stamped = numbered.join(order.select("number", "started_at"), on="number")
        records, note = _time_bins(stamped)
        return {"mode": "time", "records": records, "note": note}
    return {"mode": "order", "records": _order_bins(numbered, order.height), "note": None}


def _order_bins(numbered: pl.DataFrame, matches: int) -> list[dict[str, Any]]:
    width = max(1, math.ceil(matches / MAX_BINS))
    binned = numbered.with_columns(((pl.col("number") - 1) // width * width + 1).alias("start"))
    return (binned.group_by("start", "severity").agg(pl.len().alias("violations"))
            .with_columns((pl.col("start") + width - 1).clip(upper_bound=matches).alias("end"))
            .sort("start", "severity").to_dicts())


#: The calendar the time chart draws (Python's dates, and well within JavaScript's): years 1 to 9999, in
#: microseconds from 1970; a match logged outside it is shown at the nearest end.
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EARLIEST = (datetime(1, 1, 1, tzinfo=timezone.utc) - _EPOCH) // timedelta(microseconds=1)
_LATEST = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc) - _EPOCH) // timedelta(microseconds=1)


def _time_bins(stamped: pl.DataFrame) -> tuple[list[dict[str, Any]], str | None]:
    """Violations per bin of start time, and a note when some matches' times lie outside years 1 to 9999."""
    if stamped.height == 0:
        return [], None
    micros = stamped["started_at"].dt.epoch("us")
    outside = int(((micros < _EARLIEST) | (micros > _LATEST)).sum())
    micros = micros.clip(_EARLIEST, _LATEST)
    first, last = int(micros.min()), int(micros.max())  # type: ignore[arg-type]
    span = max((last - first) / 1e6, 1.0)
    width = span / MAX_BINS if span > MAX_BINS else 1.0
    index = (((micros - first) / 1e6) / width).floor().clip(upper_bound=MAX_BINS - 1).cast(pl.Int64)
    binned = stamped.select("severity", index.alias("bin"))
    counted = binned.group_by("bin", "severity").agg(pl.len().alias("violations")).sort("bin", "severity")
    records = [{"start": _instant(first, row["bin"] * width), "end": _instant(first, (row["bin"] + 1) * width),
                "severity": row["severity"], "violations": row["violations"]} for row in counted.to_dicts()]
    note = (f"{outside:,} violation{'s' if outside > 1 else ''} of matches logged outside the years 1 to 9999, "
            f"counted at the nearest end" if outside else None)
    return records, note


def _instant(first: int, seconds: float) -> str:
    """The time ``seconds`` after ``first`` (microseconds from 1970), within years 1 to 9999, in ISO 8601."""
    micros = min(max(first + round(seconds * 1e6), _EARLIEST), _LATEST)
    return (_EPOCH + timedelta(microseconds=micros)).isoformat()


#: Players in the rating-over-time chart (those with most rated matches), and points a line at most.
MAX_PLAYERS_RATED = 10
MAX_RATING_POINTS = 200


def rating_lines(tables: dict[str, pl.LazyFrame]) -> dict[str, Any]:
    """Each player's rating (ordinal) after each rated match (``drawlog ratings --history``), most played first.

    Against the matches' ``ts`` when every rated match has one (``mode`` ``time``), else against the
    player's count of rated matches; a long line keeps every n-th point and its last.
    """
    from .history import rating_history
    from .reports import counted

    history = rating_history(tables["matches"].filter(counted(False)))
    if history.height == 0:
        return {"records": [], "mode": "count", "note": None}
    timed = history["started_at"].null_count() == 0
    several = history["variant"].n_unique() > 1
    played = history.group_by("variant", "player").agg(pl.len().alias("n")).sort(
        ["n", "variant", "player"], descending=[True, False, False])
    kept = played.head(MAX_PLAYERS_RATED)
    lines = history.join(kept.select("variant", "player", "n"), on=["variant", "player"])
    step = (pl.col("n") // MAX_RATING_POINTS + 1)
    lines = lines.filter((pl.col("rated_matches") % step == 0) | (pl.col("rated_matches") == pl.col("n")))
    label = pl.format("{} ({})", pl.col("player"), pl.col("variant")) if several else pl.col("player")
    records = lines.select(label.alias("player"), "variant", "rated_matches",
                           pl.col("started_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ").alias("at"),
                           pl.col("ordinal").round(3)).to_dicts()
    note = f"the {kept.height} players with most rated matches of {played.height}" \
        if played.height > kept.height else None
    return {"records": records, "mode": "time" if timed else "count", "note": note}
