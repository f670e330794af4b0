"""Seat statistics: results by seat (the order of ``match_start``'s ``players``) and by opener.

Both count the counted matches (finished and valid, or every finished one with
``include_invalid``) and the rounds that ended in them, per variant and table
size (``players``), since seat 3 of a 3-player table is not seat 3 of a
4-player one. Seats are numbered from 1 (the first player listed).
"""

from __future__ import annotations

import polars as pl

from .h2h import seated
from .periods import MATCH_KEY

#: The columns of :func:`by_seat`.
SEAT_COLUMNS = ("variant", "players", "seat", "matches", "match_wins", "drawn", "win_share", "rounds", "round_wins",
                "round_win_share", "points_per_round")
#: The columns of :func:`by_opener`.
OPENER_COLUMNS = ("variant", "players", "role", "rounds", "round_wins", "round_win_share", "points_per_round",
                  "matches", "match_wins", "win_share")


def _ended_rounds(matches: pl.LazyFrame, players: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of ``players`` (a player in a round) of rounds that ended, in the counted ``matches``."""
    sizes = matches.select(*MATCH_KEY, pl.col("players").cast(pl.Int64))
    return (players.filter(pl.col("reason").is_not_null())
            .join(sizes, on=list(MATCH_KEY), how="semi", nulls_equal=True)
            .join(sizes, on=list(MATCH_KEY), nulls_equal=True))


def _share(part: str, whole: str) -> pl.Expr:
    return pl.when(pl.col(whole) > 0).then(pl.col(part) / pl.col(whole))


def by_seat(matches: pl.LazyFrame, players: pl.LazyFrame) -> pl.DataFrame:
    """Per variant, table size and seat: matches, match wins, drawn matches, rounds, round wins, points per round.

    ``matches``: the counted matches; ``players``: the players table. Summed
    over the seats of a table size, ``matches`` is that many matches times the
    table size, ``match_wins`` plus ``drawn`` over the size is the matches, and
    ``round_wins`` the rounds someone won.
    """
    match_rows = (
        seated(matches.select(*MATCH_KEY, "variant", "player_names", "scores", "forfeit", "winner", "drawn",
                              pl.col("players").cast(pl.Int64)))
        .group_by("variant", "players", (pl.col("seat") + 1).cast(pl.Int64).alias("seat"))
        .agg(pl.len().cast(pl.Int64).alias("matches"),
             (pl.col("winner") == pl.col("player")).sum().cast(pl.Int64).alias("match_wins"),
             pl.col("winner").is_null().sum().cast(pl.Int64).alias("drawn"))
    )
    round_rows = (
        _ended_rounds(matches, players)
        .group_by("variant", "players", (pl.col("seat").cast(pl.Int64) + 1).alias("seat"))
        .agg(pl.len().cast(pl.Int64).alias("rounds"), pl.col("won").sum().cast(pl.Int64).alias("round_wins"),
             pl.col("points").mean().alias("points_per_round"))
    )
    return (
        match_rows.join(round_rows, on=["variant", "players", "seat"], how="full", coalesce=True)
        .with_columns(pl.col("matches", "match_wins", "drawn", "rounds", "round_wins").fill_null(0))
        .with_columns(_share("match_wins", "matches").alias("win_share"),
                      _share("round_wins", "rounds").alias("round_win_share"))
        .select(SEAT_COLUMNS).sort("variant", "players", "seat").collect()
    )


def by_opener(matches: pl.LazyFrame, players: pl.LazyFrame) -> pl.DataFrame:
    """Per variant and table size, the opener against the others: rounds, round wins, points; and matches.

    Rounds: each ended round's opener (``role`` ``opener``) and its other players
    (``others``). Matches: the player who opened round 1 (``opener``) and the
    others, with their match wins.
    """
    ended = _ended_rounds(matches, players)
    role = pl.when(pl.col("opener")).then(pl.lit("opener")).otherwise(pl.lit("others")).alias("role")
    round_rows = (
        ended.group_by("variant", "players", role)
        .agg(pl.len().cast(pl.Int64).alias("rounds"), pl.col("won").sum().cast(pl.Int64).alias("round_wins"),
             pl.col("points").mean().alias("points_per_round"))
    )
    winners = matches.select(*MATCH_KEY, "winner")
    match_rows = (
        ended.filter(pl.col("round") == 1)
        .join(winners, on=list(MATCH_KEY), nulls_equal=True)
        .group_by("variant", "players", role)
        .agg(pl.len().cast(pl.Int64).alias("matches"),
             (pl.col("winner") == pl.col("player")).sum().cast(pl.Int64).alias("match_wins"))
    )
    return (
        round_rows.join(match_rows, on=["variant", "players", "role"], how="full", coalesce=True)
        .with_columns(pl.col("rounds", "round_wins", "matches", "match_wins").fill_null(0))
        .with_columns(_share("round_wins", "rounds").alias("round_win_share"),
                      _share("match_wins", "matches").alias("win_share"))
        .select(OPENER_COLUMNS).sort("variant", "players", "role").collect()
    )
