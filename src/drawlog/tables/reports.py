"""Reports over a statistics folder: SQL queries, the player leaderboard, skill ratings, the audit summary.

Everything here reads the Parquet tables written by :mod:`drawlog.dataset`
with polars; nothing re-reads the logs. Draw and All Fives are different
games: ratings and the leaderboard are per ``variant``, never mixed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..engine.profiles import PROFILES
from .dataset import open_tables
from .history import rankable

#: The games the tables may hold, by their ``variant`` name.
VARIANTS = tuple(PROFILES)

#: The leaderboard's columns after its keys; ``drawlog players --sort`` takes any of them, or a key.
LEADERBOARD_COLUMNS = ("matches", "invalid_matches", "match_wins", "win_share", "rating", "rating_sigma", "rounds", "rounds_won_domino",
                       "rounds_won_blocked", "rounds_won_target", "points_per_round", "pips_left_per_lost_round", "draws_per_turn",
                       "voluntary_draw_share", "passes", "violations", "violations_per_100_moves")
#: Columns sorted smallest first (names, and counts where less is better); the others largest first.
ASCENDING = frozenset({"player", "variant", "tournament", "table_name", "file", "rating_sigma",
                       "pips_left_per_lost_round", "draws_per_turn", "violations", "violations_per_100_moves",
                       "invalid_matches"})

#: A match with a result: it has its match_end, a score reached the target (or a player forfeited: v1.2), and it
#: was replayed.
FINISHED = pl.col("complete") & pl.col("decided") & pl.col("replayed")


def _counted(include_invalid: bool) -> pl.Expr:
    """The matches results count: finished and valid (no error found), or every finished one.

    A forfeited match (format v1.2) counts whatever errors it holds: the referee stopped it, most often for
    the very illegal move that made it invalid, and that move must not spare the player the loss.
    """
    return FINISHED if include_invalid else FINISHED & (pl.col("valid") | pl.col("forfeit").is_not_null())


#: The matches results count (public name of :func:`_counted`, for the views of :mod:`~drawlog.tables.h2h` …).
counted = _counted


def query(folder: str | Path, sql: str) -> pl.DataFrame:
    """Run SQL over the tables by their names (matches, rounds, players, moves, violations)."""
    context = pl.SQLContext(frames=open_tables(folder), eager=False)
    return context.execute(sql).collect()


def _of_variant(frame: pl.LazyFrame, variant: str | None) -> pl.LazyFrame:
    """The rows of one ``variant`` (all of them for None)."""
    return frame if variant is None else frame.filter(pl.col("variant") == variant)


def ratings(folder: str | Path, variant: str | None = None, include_invalid: bool = False,
            tables: dict[str, pl.LazyFrame] | None = None) -> pl.DataFrame:
    """A Plackett–Luce rating per player and variant (openskill) from valid finished matches, in time order.

    Finished: with their match_end, a score at the target, replayed; valid:
    no error found in them (``include_invalid`` counts the invalid ones too). Each
    variant is rated on its own (a Draw rating and an All Fives rating are
    different skills); ``variant`` keeps one. Matches are taken by
    ``started_at`` (those without come last), then file and line; the final
    scores rank the seats, equal scores tie. ``ordinal`` is ``mu − 3·sigma``, a
    conservative estimate. A match a player forfeits (format v1.2) ranks them
    last, whatever the scores: a loss. Sorted by variant, then best ordinal first.
    ``tables``: the folder's tables already opened (with aliases merged, say).
    """
    from openskill.models import PlackettLuce

    tables = tables if tables is not None else open_tables(folder)
    matches = (
        _of_variant(tables["matches"], variant)
        .filter(_counted(include_invalid) & rankable())
        .sort(["started_at", "file", "first_line"], nulls_last=True)
        .select("variant", "player_names", "scores", "forfeit")
        .collect()
    )
    model = PlackettLuce()
    current: dict[tuple[str, str], Any] = {}
    played: dict[tuple[str, str], int] = {}
    for game, names, scores, forfeit in matches.iter_rows():
        teams = [[current.get((name, game)) or model.rating(name=name)] for name in names]
        rated = model.rate(teams, scores=_ranked(names, list(scores), forfeit))
        for name, (rating,) in zip(names, rated):
            current[(name, game)] = rating
            played[(name, game)] = played.get((name, game), 0) + 1
    rows = [
        {"player": name, "variant": game, "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal(),
         "rated_matches": played[(name, game)]}
        for (name, game), rating in current.items()
    ]
    schema = {"player": pl.String, "variant": pl.String, "mu": pl.Float64, "sigma": pl.Float64,
              "ordinal": pl.Float64, "rated_matches": pl.Int64}
    return pl.DataFrame(rows, schema=schema).sort(["variant", "ordinal", "player"],
                                                  descending=[False, True, False])


def leaderboard(folder: str | Path, by: str | None = None, sort: str = "rating", reverse: bool = False,
                variant: str | None = None, include_invalid: bool = False,
                tables: dict[str, pl.LazyFrame] | None = None) -> pl.DataFrame:
    """Per player and variant (and per ``by`` column of the matches, e.g. tournament): results, habits, faults.

    Each variant has rows of its own (``variant`` keeps one). ``matches``,
    ``match_wins``, ``win_share`` and ``rating`` count valid finished matches
    (see :data:`FINISHED`; ``include_invalid`` counts the invalid ones too);
    ``invalid_matches`` is how many of the player's finished matches had an
    error. Round results count the rounds that ended (``rounds_won_target``: the
    All Fives rounds the player ended by a play reaching the target, which won
    the match) and the habits every move,
    in any match. A share whose denominator is 0 is null. ``rating`` is the
    player's overall one in that variant. Sorted by ``sort``, best first
    (:data:`ASCENDING`), or the other way with ``reverse``. ``tables``: the folder's tables already opened.
    """
    opened = tables if tables is not None else open_tables(folder)
    tables = {name: _of_variant(frame, variant) for name, frame in opened.items()}
    if by == "variant":
        by = None
    keys = ["player", "variant"] + ([by] if by else [])
    seated = (
        tables["matches"]
        .select("match", "variant", "player_names", "winner", _counted(include_invalid).alias("counted"),
                (FINISHED & ~pl.col("valid")).alias("invalid"), *([by] if by else []))
        .explode("player_names")
        .rename({"player_names": "player"})
    )
    players = seated.select(keys).unique()
    seats = (
        seated.group_by(keys)
        .agg(pl.col("counted").sum().alias("matches"), pl.col("invalid").sum().alias("invalid_matches"),
             (pl.col("counted") & (pl.col("winner") == pl.col("player"))).sum().alias("match_wins"))
    )
    ended = pl.col("reason").is_not_null()
    per_round = (
        tables["players"]
        .group_by(keys)
        .agg(
            ended.sum().alias("rounds"),
            (pl.col("won") & (pl.col("reason") == "domino")).sum().alias("rounds_won_domino"),
            (pl.col("won") & (pl.col("reason") == "blocked")).sum().alias("rounds_won_blocked"),
            (pl.col("won") & (pl.col("reason") == "target")).sum().alias("rounds_won_target"),
            pl.col("points").filter(ended).mean().alias("points_per_round"),
            pl.col("pips_left").filter(ended & ~pl.col("won")).mean().alias("pips_left_per_lost_round"),
            pl.col("plays").sum().alias("plays"),
            pl.col("draws").sum().alias("draws"),
            pl.col("voluntary_draws").sum().alias("voluntary_draws"),
            pl.col("passes").sum().alias("passes"),
        )
    )
    moves = tables["moves"].group_by(keys).agg(pl.len().alias("moves"))
    faults = (
        tables["violations"]
        .filter(pl.col("player").is_not_null() & (pl.col("severity") == "error"))
        .group_by(keys)
        .agg(pl.len().alias("violations"))
    )
    board = (
        players.join(seats, on=keys, how="left", nulls_equal=True)
        .join(per_round, on=keys, how="left", nulls_equal=True)
        .join(moves, on=keys, how="left", nulls_equal=True)
        .join(faults, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col("matches", "invalid_matches", "match_wins", "rounds", "rounds_won_domino", "rounds_won_blocked",
                             "rounds_won_target", "plays",
                             "draws", "voluntary_draws", "passes", "moves", "violations").fill_null(0))
        .with_columns(
            _share(pl.col("match_wins"), pl.col("matches")).alias("win_share"),
            _share(pl.col("draws"), pl.col("plays") + pl.col("passes")).alias("draws_per_turn"),
            _share(pl.col("voluntary_draws"), pl.col("draws")).alias("voluntary_draw_share"),
            _share(100 * pl.col("violations"), pl.col("moves")).alias("violations_per_100_moves"),
        )
        .collect()
    )
    rated = ratings(folder, variant, include_invalid, opened).select("player", "variant", pl.col("ordinal").alias("rating"),
                                            pl.col("sigma").alias("rating_sigma"))
    board = board.join(rated, on=["player", "variant"], how="left")
    descending = (sort not in ASCENDING) != reverse
    order = [sort, *(key for key in keys if key != sort)]
    return board.select(*keys, *LEADERBOARD_COLUMNS).sort(
        order, descending=[descending] + [False] * (len(order) - 1), nulls_last=True)


def _ranked(names: list[str], scores: list[float], forfeit: str | None) -> list[float]:
    """The scores that rank a match's seats: the player who forfeits (v1.2) below everyone, whatever their score."""
    if forfeit is None or forfeit not in names:
        return scores
    lowest = min(scores) - 1
    return [lowest if name == forfeit else score for name, score in zip(names, scores)]


def _share(part: pl.Expr, whole: pl.Expr) -> pl.Expr:
    """``part / whole``, null where ``whole`` is 0 (never NaN or infinity)."""
    return pl.when(whole > 0).then(part / whole)


def audit_summary(folder: str | Path, top: int = 5,
                  violations: pl.LazyFrame | None = None) -> dict[str, pl.DataFrame]:
    """What an audit prints: matches by variant, violations by code, and the players and files with most errors.

    ``violations``: the violations to count instead of the folder's table (those a baseline leaves).
    """
    tables = open_tables(folder)
    violations = tables["violations"] if violations is None else violations
    errors = violations.filter(pl.col("severity") == "error")
    return {
        "variants": tables["matches"].group_by("variant")
        .agg(pl.len().alias("matches"), pl.col("valid").sum().alias("valid"),
             pl.col("complete").sum().alias("complete"), pl.col("rounds").sum().alias("rounds"))
        .sort("variant").collect(),
        "by_code": violations.group_by("code", "severity").agg(pl.len().alias("count"))
        .sort(["count", "code"], descending=[True, False]).collect(),
        "players": errors.filter(pl.col("player").is_not_null()).group_by("player")
        .agg(pl.len().alias("errors")).sort(["errors", "player"], descending=[True, False]).head(top).collect(),
        "files": errors.group_by("file").agg(pl.len().alias("errors"))
        .sort(["errors", "file"], descending=[True, False]).head(top).collect(),
    }
