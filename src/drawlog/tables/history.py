"""Rating history: each player's Plackett–Luce rating (openskill) after every match, or at the end of each period.

The replay is the one of :func:`~drawlog.tables.reports.ratings`: counted
matches in time order (``started_at``, those without one last, then file and
first line), the final scores ranking the seats (a player who forfeits last),
each variant rated on its own. So the last row of a player here is their row
of ``drawlog ratings``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .periods import period

#: The columns of :func:`rating_history` (``period`` after ``player`` with a ``by``).
HISTORY_COLUMNS = ("variant", "player", "match", "started_at", "rated_matches", "mu", "sigma", "ordinal", "change")


def rankable() -> pl.Expr:
    """Matches whose names and final scores can rank the seats: one score to a name, two seats or more, no null
    (a table drawlog did not write may hold anything)."""
    names, scores = pl.col("player_names"), pl.col("scores")
    return (scores.is_not_null() & names.is_not_null() & (names.list.len() == scores.list.len())
            & (names.list.len() >= 2) & (names.list.drop_nulls().list.len() == names.list.len())
            & (scores.list.drop_nulls().list.len() == scores.list.len()))


def in_rating_order(matches: pl.LazyFrame) -> pl.LazyFrame:
    """The counted matches with scores, in the order ratings replay them."""
    return (matches.filter(rankable())
            .sort(["started_at", "file", "first_line"], nulls_last=True)
            .select("variant", "match", "started_at", "player_names", "scores", "forfeit"))


def _ranked(names: list[str], scores: list[float], forfeit: str | None) -> list[float]:
    """The scores that rank a match's seats: the player who forfeits below everyone."""
    if forfeit is None or forfeit not in names:
        return scores
    lowest = min(scores) - 1
    return [lowest if name == forfeit else score for name, score in zip(names, scores)]


def rating_history(matches: pl.LazyFrame) -> pl.DataFrame:
    """Per variant and player, a row for each rated match: the rating after it and its ``change`` of ordinal.

    ``matches``: the counted matches (see :func:`in_rating_order`). ``ordinal``
    is ``mu − 3·sigma``; ``change`` is the ordinal's change in that match (from
    a new player's starting ordinal, 0, for their first). Sorted by variant,
    player, then the replay's order.
    """
    from openskill.models import PlackettLuce

    ordered = in_rating_order(matches).collect().with_row_index("order")
    model = PlackettLuce()
    current: dict[tuple[str, str], Any] = {}
    played: dict[tuple[str, str], int] = {}
    columns: dict[str, list[Any]] = {name: [] for name in HISTORY_COLUMNS if name != "started_at"}
    columns["order"] = []
    # started_at stays in polars (a crafted table may hold dates Python cannot: the year 0)
    rows = ordered.select("variant", "match", "player_names", "scores", "forfeit").iter_rows()
    for order, (game, match, names, scores, forfeit) in enumerate(rows):
        teams = [[current.get((name, game)) or model.rating(name=name)] for name in names]
        before = [team[0].ordinal() for team in teams]
        rated = model.rate(teams, scores=_ranked(names, list(scores), forfeit))
        for name, (rating,), previous in zip(names, rated, before):
            key = (name, game)
            if key in current and current[key] is not teams[names.index(name)][0]:
                continue  # the same player in two seats (aliases): rated once, from the first seat
            current[key] = rating
            played[key] = played.get(key, 0) + 1
            ordinal = rating.ordinal()
            for column, value in (("variant", game), ("player", name), ("match", match),
                                  ("rated_matches", played[key]), ("mu", rating.mu), ("sigma", rating.sigma),
                                  ("ordinal", ordinal), ("change", ordinal - previous), ("order", order)):
                columns[column].append(value)
    schema = {"variant": pl.String, "player": pl.String, "match": pl.String, "rated_matches": pl.Int64,
              "mu": pl.Float64, "sigma": pl.Float64, "ordinal": pl.Float64, "change": pl.Float64,
              "order": pl.UInt32}
    found = pl.DataFrame(columns, schema=schema).join(ordered.select("order", "started_at"), on="order", how="left")
    return found.sort("variant", "player", "order").select(HISTORY_COLUMNS)


def history_by(history: pl.DataFrame, by: str) -> pl.DataFrame:
    """:func:`rating_history` per period (``day``, ``week``, ``month``): the rating at each period's end.

    A row per variant, player and period they played in: ``matches`` in the
    period, the rating after its last one, and ``change``, the ordinal's change
    over the period. Matches without a date are the period ``undated`` (rated
    last, as in ``drawlog ratings``).
    """
    dated = history.with_row_index("order").with_columns(period("started_at", by).alias(by))
    return (
        dated.group_by("variant", "player", by, maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("matches"), pl.col("rated_matches").last(), pl.col("mu").last(),
             pl.col("sigma").last(), pl.col("ordinal").last(), pl.col("change").sum(), pl.col("order").last())
        .sort("variant", "player", "order")
        .drop("order")
    )
