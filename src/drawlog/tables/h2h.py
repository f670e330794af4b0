"""Head to head: how each player fared against each other player they sat at a table with.

Every counted match (finished and valid, or every finished one with
``include_invalid``; see :func:`~drawlog.tables.reports.counted`) sets each
pair of its players against each other: the one with the higher final score
is ahead (a player who forfeits is behind everyone), equal scores tie. In a
3- or 4-player match each player meets each other one, so a match counts once
for every pair. Draw and All Fives are kept apart (a ``variant`` column).
"""

from __future__ import annotations

import polars as pl

from .periods import MATCH_KEY

#: The columns of :func:`head_to_head`.
PAIR_COLUMNS = ("variant", "player", "opponent", "matches", "wins", "losses", "ties", "win_share")


def seated(matches: pl.LazyFrame) -> pl.LazyFrame:
    """One row per player of each match: the match's columns, ``player``, ``seat`` (0 first) and ``standing``.

    ``standing`` ranks the seats: the final score, or minus infinity for the
    player who forfeits (format v1.2).
    """
    return (
        matches
        .with_columns(pl.int_ranges(pl.col("player_names").list.len()).alias("seat"))
        .explode("player_names", "scores", "seat")
        .rename({"player_names": "player"})
        .with_columns(pl.when(pl.col("player") == pl.col("forfeit")).then(float("-inf"))
                      .otherwise(pl.col("scores").cast(pl.Float64)).alias("standing"))
    )


def head_to_head(matches: pl.LazyFrame) -> pl.DataFrame:
    """Per variant, player and opponent: matches met, wins (ahead), losses, ties and the win share.

    ``matches``: the matches to count, with ``file``, ``match``, ``variant``,
    ``player_names``, ``scores`` and ``forfeit`` (already filtered to the
    counted ones). ``win_share`` is wins over matches, a tie counting half.
    Sorted by variant, player, opponent.
    """
    seats = seated(matches.filter(pl.col("scores").is_not_null())
                   .select(*MATCH_KEY, "variant", "player_names", "scores", "forfeit")) \
        .select(*MATCH_KEY, "variant", "player", "standing")
    pairs = (
        seats.join(seats.select(*MATCH_KEY, pl.col("player").alias("opponent"),
                                pl.col("standing").alias("against")), on=list(MATCH_KEY), nulls_equal=True)
        .filter(pl.col("player") != pl.col("opponent"))
        .group_by("variant", "player", "opponent")
        .agg(pl.len().cast(pl.Int64).alias("matches"),
             (pl.col("standing") > pl.col("against")).sum().cast(pl.Int64).alias("wins"),
             (pl.col("standing") < pl.col("against")).sum().cast(pl.Int64).alias("losses"),
             (pl.col("standing") == pl.col("against")).sum().cast(pl.Int64).alias("ties"))
        .with_columns(((pl.col("wins") + pl.col("ties") / 2) / pl.col("matches")).alias("win_share"))
    )
    return pairs.sort("variant", "player", "opponent").collect().select(PAIR_COLUMNS)


def matrix(pairs: pl.DataFrame) -> pl.DataFrame:
    """:func:`head_to_head` as a matrix: a row per variant and player, a column per opponent, cells ``W-L``.

    A cell reads the row player's wins and losses against the column's
    (``W-L-T`` when some matches tied); blank where they never met.
    """
    if pairs.height == 0:
        return pl.DataFrame(schema={"variant": pl.String, "player": pl.String})
    cells = pairs.with_columns(
        pl.format("{}-{}", "wins", "losses").alias("cell")
    ).with_columns(pl.when(pl.col("ties") > 0).then(pl.format("{}-{}", "cell", "ties"))
                   .otherwise(pl.col("cell")).alias("cell"))
    opponents = sorted(set(pairs["opponent"].to_list()))
    # Opponents' columns keyed apart while pivoting: a player may be named "player" or "variant".
    wide = cells.with_columns(pl.concat_str(pl.lit("\x00"), "opponent").alias("opponent")) \
        .pivot(on="opponent", index=["variant", "player"], values="cell", aggregate_function="first")
    columns = [pl.col(f"\x00{name}") if f"\x00{name}" in wide.columns else pl.lit(None, pl.String)
               for name in opponents]
    names = [name if name not in ("variant", "player") else f"{name} (opponent)" for name in opponents]
    return wide.select("variant", "player", *(column.alias(name) for column, name in zip(columns, names))) \
        .sort("variant", "player")
