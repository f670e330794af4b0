"""Calendar periods of matches (``--by day|week|month``), from ``started_at`` (the ``match_start``'s ``ts``).

A period is text that sorts in time order: a day ``2026-03-09``, a week by its
Monday ``2026-03-09`` (ISO weeks, Monday to Sunday, in UTC), a month
``2026-03``. A match without a ``ts`` falls in the period :data:`UNDATED`.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

#: The periods ``--by`` takes besides the matches' columns.
PERIODS = ("day", "week", "month")
#: The period of a match without a ``started_at``.
UNDATED = "undated"
#: The columns a match is known by in every table (match ids may repeat across files).
MATCH_KEY = ("file", "match")


def period(column: str | pl.Expr, by: str) -> pl.Expr:
    """The period (``day``, ``week`` or ``month``) of the datetimes in ``column`` as text; null as :data:`UNDATED`."""
    if by not in PERIODS:
        raise ValueError(f"unknown period {by!r}; choose one of {', '.join(PERIODS)}")
    moment = pl.col(column) if isinstance(column, str) else column
    text = {"day": moment.dt.strftime("%Y-%m-%d"),
            "week": moment.dt.truncate("1w").dt.strftime("%Y-%m-%d"),  # polars' weeks start on Monday
            "month": moment.dt.strftime("%Y-%m")}[by]
    return text.fill_null(UNDATED)


def with_period(tables: Mapping[str, pl.LazyFrame], by: str) -> dict[str, pl.LazyFrame]:
    """Every table with a column named ``by`` (``day``, ``week``, ``month``): its match's period (lazy).

    Rows of no match (a violation of a whole file) are :data:`UNDATED`.
    """
    periods = tables["matches"].select(*MATCH_KEY, period("started_at", by).alias(by)).unique(MATCH_KEY)
    done = {"matches": tables["matches"].with_columns(period("started_at", by).alias(by))}
    for name, frame in tables.items():
        if name != "matches":
            done[name] = frame.join(periods, on=list(MATCH_KEY), how="left", nulls_equal=True) \
                .with_columns(pl.col(by).fill_null(UNDATED))
    return done
