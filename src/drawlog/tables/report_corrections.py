"""The verdict of ``drawlog report`` and its *results to correct*, from the tables alone.

A result to correct is a match whose log claims a result the replay does not
give: a violation of one of :data:`~drawlog.check.fix.FIXED_CODES` (a round's
winner, points or revealed hands, the match's scores or winner, an All Fives
play's points) — exactly the claims ``drawlog fix`` rewrites. Each row pairs
what the log claimed with what the replay gives (``matches.claimed_winner`` /
``winner``, ``matches.claimed_scores`` / ``scores``), with every error of the
match by code, so a director sees what to change and how (``drawlog fix``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl

from ..check.fix import FIXED_CODES

#: The wrong claims of a match quoted in its row (line, round, the validator's message); the rest are counted.
SHOWN_CLAIMS = 3
#: Rows of the results to correct listed in the page; the rest are counted.
MAX_CORRECTIONS = 2_000


@dataclass
class Verdict:
    """The counts the verdict sentence says: matches, those to correct, those with errors, errors in all."""

    matches: int
    to_correct: int
    with_errors: int
    errors: int


def verdict(tables: dict[str, pl.LazyFrame]) -> Verdict:
    """How many matches there are, how many need a correction of a claimed result, and how many have errors."""
    counts = tables["matches"].select(pl.len().alias("matches"), (~pl.col("valid")).sum().alias("with_errors"),
                                      pl.col("errors").sum().alias("errors")).collect().row(0, named=True)
    to_correct = (tables["violations"].filter(pl.col("code").is_in(FIXED_CODES) & pl.col("match").is_not_null()
                                              & pl.col("file").is_not_null())
                  .select("file", "match").unique().select(pl.len()).collect().item())
    return Verdict(int(counts["matches"] or 0), int(to_correct or 0), int(counts["with_errors"] or 0),
                   int(counts["errors"] or 0))


def corrections(tables: dict[str, pl.LazyFrame], limit: int = MAX_CORRECTIONS) -> tuple[list[dict[str, Any]], int]:
    """The matches whose claims differ from the replay, in the order the violations were found, and how many.

    Each row: ``file``, ``path``, ``match``, ``variant``, ``players`` (names), ``claimed_winner`` and
    ``winner`` (recomputed; None for a draw or a match not finished), ``claimed_scores`` and ``scores``
    (by player, in seat order; None when not logged or not replayed), ``claims`` (the claim codes,
    sorted), ``codes`` (``[(code, count)]`` of every violation of the match, most first), ``errors``
    (the match's error count), ``first_line`` (the first wrong claim's line), ``wrong`` (the first
    :data:`SHOWN_CLAIMS` claim violations: ``line``, ``round``, ``code``, ``message``) and ``wrong_total``.
    """
    # (a violation naming no file or no match names no log to correct: a null in a table drawlog did not write)
    violations = (tables["violations"].filter(pl.col("match").is_not_null() & pl.col("file").is_not_null())
                  .with_row_index("order"))
    claimed = (violations.filter(pl.col("code").is_in(FIXED_CODES)).group_by("file", "match")
               .agg(pl.col("order").min(), pl.col("line").min().alias("claim_line"),
                    pl.col("code").unique().sort().alias("claims")))
    total = claimed.select(pl.len()).collect().item()
    chosen = claimed.sort("order").head(limit)
    codes = (violations.join(chosen.select("file", "match"), on=["file", "match"], how="semi")
             .group_by("file", "match", "code").agg(pl.len().alias("count"),
                                                    (pl.col("severity") == "error").sum().alias("errors")))
    wrong: dict[tuple[str, str], list[dict[str, Any]]] = {}
    listed = (violations.filter(pl.col("code").is_in(FIXED_CODES))
              .join(chosen.select("file", "match"), on=["file", "match"], how="semi")
              .with_columns(pl.int_range(pl.len()).over("file", "match").alias("nth"))
              .filter(pl.col("nth") < SHOWN_CLAIMS).sort("order").collect())
    for item in listed.select("file", "match", "line", "round", "code", "message").iter_rows(named=True):
        wrong.setdefault((item.pop("file"), item.pop("match")), []).append(item)
    counted = {(file, match): count for file, match, count in violations.filter(
        pl.col("code").is_in(FIXED_CODES)).group_by("file", "match").agg(pl.len()).collect().iter_rows()}
    by_match: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for file, match, code, count, _ in codes.sort(["count", "code"], descending=[True, False]).collect().iter_rows():
        by_match.setdefault((file, match), []).append((code, count))
    matches = (tables["matches"].join(chosen.select("file", "match"), on=["file", "match"], how="semi")
               .select("file", "path", "match", "variant", "player_names", "winner", "scores", "claimed_winner",
                        "claimed_scores", "errors", "complete", "forfeit").collect())
    known = {(row["file"], row["match"]): row for row in matches.iter_rows(named=True)}  # (a match restarted: its last)
    rows = []
    for file, match, _, line, claims in chosen.collect().iter_rows():
        row = known.get((file, match)) or {}
        rows.append({
            "file": file, "path": row.get("path"), "match": match, "variant": row.get("variant"),
            "players": list(row.get("player_names") or []), "claimed_winner": row.get("claimed_winner"),
            "winner": row.get("winner"), "complete": bool(row.get("complete")), "forfeit": row.get("forfeit"),
            "claimed_scores": row.get("claimed_scores"), "scores": row.get("scores"),
            "claims": list(claims), "codes": by_match.get((file, match), []),
            "errors": int(row.get("errors") or sum(count for _, count in by_match.get((file, match), []))),
            "first_line": line, "wrong": wrong.get((file, match), []),
            "wrong_total": int(counted.get((file, match), 0)),
        })
    return rows, int(total)
