"""Issue 24 item 3: head to head, rating history, periods and seats, on constructed tables with numbers worked
by hand, and on simulated seasons where they must agree with the leaderboard and the ratings."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.recording import record
from drawlog.play.simulate import SimulationOptions, Simulator
from drawlog.tables.dataset import open_tables, write_tables
from drawlog.tables.h2h import head_to_head, matrix
from drawlog.tables.history import history_by, rating_history
from drawlog.tables.periods import UNDATED, period, with_period
from drawlog.tables.reports import counted, leaderboard, ratings
from drawlog.tables.seats import by_opener, by_seat

runner = CliRunner()
UTC = timezone.utc


def _matches(rows: list[tuple]) -> pl.LazyFrame:
    """A matches table of (match, names, scores, forfeit, started_at): finished, valid Draw matches."""
    frame = pl.DataFrame(
        [{"file": "season.jsonl", "match": match, "variant": "draw", "player_names": names, "scores": scores,
          "forfeit": forfeit, "started_at": started, "first_line": index * 100 + 1, "players": len(names),
          "winner": None if forfeit is None and scores.count(max(scores)) > 1
          else next(name for name, score in zip(names, scores) if name != forfeit and
                    score == max(s for n, s in zip(names, scores) if n != forfeit)),
          "complete": True, "decided": True, "replayed": True, "valid": True}
         for index, (match, names, scores, forfeit, started) in enumerate(rows)],
        schema_overrides={"started_at": pl.Datetime("us", "UTC"), "forfeit": pl.String})
    return frame.with_columns(pl.col("winner").cast(pl.String), (pl.col("winner").is_null()).alias("drawn")).lazy()


#: A round robin of ann, bob and cat, a tie, a 3-player match and a forfeit.
ROUND_ROBIN = [
    ("m1", ["ann", "bob"], [100, 40], None, datetime(2026, 3, 2, 10, tzinfo=UTC)),
    ("m2", ["bob", "cat"], [100, 20], None, datetime(2026, 3, 3, 10, tzinfo=UTC)),
    ("m3", ["cat", "ann"], [100, 50], None, datetime(2026, 3, 4, 10, tzinfo=UTC)),
    ("m4", ["ann", "bob"], [100, 100], None, datetime(2026, 3, 5, 10, tzinfo=UTC)),  # tied leaders: drawn
    ("m5", ["ann", "bob", "cat"], [61, 30, 30], None, datetime(2026, 3, 8, 23, 59, 59, tzinfo=UTC)),  # a Sunday
    ("m6", ["ann", "cat"], [50, 10], "ann", datetime(2026, 3, 9, 0, 0, 0, tzinfo=UTC)),  # ann forfeits: behind
]


def test_head_to_head_of_a_round_robin_by_hand():
    pairs = head_to_head(_matches(ROUND_ROBIN))
    assert pairs.rows() == [
        ("draw", "ann", "bob", 3, 2, 0, 1, pytest.approx(2.5 / 3)),  # m1 won, m4 tied, m5 won
        ("draw", "ann", "cat", 3, 1, 2, 0, pytest.approx(1 / 3)),  # m3 lost, m5 won, m6 forfeited
        ("draw", "bob", "ann", 3, 0, 2, 1, pytest.approx(0.5 / 3)),
        ("draw", "bob", "cat", 2, 1, 0, 1, 0.75),  # m2 won, m5 tied at 30
        ("draw", "cat", "ann", 3, 2, 1, 0, pytest.approx(2 / 3)),
        ("draw", "cat", "bob", 2, 0, 1, 1, 0.25),
    ]


def test_the_matrix_reads_wins_losses_and_ties_of_the_row_player():
    table = matrix(head_to_head(_matches(ROUND_ROBIN)))
    assert table.columns == ["variant", "player", "ann", "bob", "cat"]
    assert table.rows() == [("draw", "ann", None, "2-0-1", "1-2"),
                            ("draw", "bob", "0-2-1", None, "1-0-1"),
                            ("draw", "cat", "2-1", "0-1-1", None)]


def test_a_player_named_like_a_key_column_keeps_both():
    table = matrix(head_to_head(_matches([("m1", ["player", "variant"], [100, 3], None, None)])))
    assert table.columns == ["variant", "player", "player (opponent)", "variant (opponent)"]
    assert table.rows() == [("draw", "player", None, "1-0"), ("draw", "variant", "0-1", None)]


def test_no_matches_no_rows():
    assert matrix(head_to_head(_matches(ROUND_ROBIN).head(0))).height == 0


def test_week_boundaries_are_monday_midnight_utc_and_no_ts_is_undated():
    moments = pl.DataFrame({"t": [datetime(2026, 3, 8, 23, 59, 59, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC),
                                  datetime(2026, 3, 15, 23, 59, 59, tzinfo=UTC), datetime(2026, 3, 16, tzinfo=UTC),
                                  None]}, schema={"t": pl.Datetime("us", "UTC")})
    assert moments.select(period("t", "week")).to_series().to_list() == [
        "2026-03-02", "2026-03-09", "2026-03-09", "2026-03-16", UNDATED]
    assert moments.select(period("t", "day")).to_series().to_list()[:2] == ["2026-03-08", "2026-03-09"]
    assert moments.select(period("t", "month")).to_series().to_list() == ["2026-03"] * 4 + [UNDATED]
    with pytest.raises(ValueError, match="unknown period"):
        period("t", "fortnight")


def test_rating_history_replays_in_time_order_and_sums_its_changes():
    history = rating_history(_matches(ROUND_ROBIN))
    ann = history.filter(pl.col("player") == "ann")
    assert ann["match"].to_list() == ["m1", "m3", "m4", "m5", "m6"]
    assert ann["rated_matches"].to_list() == [1, 2, 3, 4, 5]
    assert ann["change"].sum() == pytest.approx(ann["ordinal"][-1])  # from a new player's ordinal, 0
    assert ann["change"][0] > 0 and ann["change"][1] < 0 and ann["change"][4] < 0  # won, lost, forfeited
    weekly = history_by(history, "week").filter(pl.col("player") == "ann")
    assert weekly.select("week", "matches", "rated_matches").rows() == [("2026-03-02", 4, 4), ("2026-03-09", 1, 5)]
    assert weekly["ordinal"].to_list() == [ann["ordinal"][3], ann["ordinal"][4]]
    assert weekly["change"].to_list() == pytest.approx([ann["change"][:4].sum(), ann["change"][4]])


def test_undated_matches_are_rated_last_in_their_own_period():
    rows = [("u1", ["ann", "bob"], [100, 0], None, None), *ROUND_ROBIN[:2]]
    history = rating_history(_matches(rows))
    assert history.filter(pl.col("player") == "ann")["match"].to_list() == ["m1", "u1"]
    monthly = history_by(history, "month").filter(pl.col("player") == "ann")
    assert monthly.select("month", "matches").rows() == [("2026-03", 1), (UNDATED, 1)]


def _players(rows: list[tuple]) -> pl.LazyFrame:
    """A players table of (match, round, player, seat, opener, won, points), every round ended by domino."""
    return pl.DataFrame(
        [{"file": "season.jsonl", "match": match, "round": number, "player": player, "seat": seat,
          "opener": opener, "won": won, "points": points, "reason": "domino", "variant": "draw"}
         for match, number, player, seat, opener, won, points in rows],
        schema_overrides={"seat": pl.Int8, "round": pl.Int32}).lazy()


def test_seats_and_openers_by_hand():
    matches = _matches(ROUND_ROBIN[:2])  # m1: ann (seat 1) beats bob; m2: bob (seat 1) beats cat
    players = _players([
        ("m1", 1, "ann", 0, True, True, 30), ("m1", 1, "bob", 1, False, False, 0),
        ("m1", 2, "ann", 0, False, False, 0), ("m1", 2, "bob", 1, True, True, 10),
        ("m2", 1, "bob", 0, False, True, 50), ("m2", 1, "cat", 1, True, False, 0),
    ])
    seats = by_seat(matches, players)
    assert seats.select("players", "seat", "matches", "match_wins", "drawn", "rounds", "round_wins").rows() == [
        (2, 1, 2, 2, 0, 3, 2), (2, 2, 2, 0, 0, 3, 1)]
    assert seats["points_per_round"].to_list() == [pytest.approx(80 / 3), pytest.approx(10 / 3)]
    openers = by_opener(matches, players)
    assert openers.select("role", "rounds", "round_wins", "matches", "match_wins").rows() == [
        ("opener", 3, 2, 2, 1), ("others", 3, 1, 2, 1)]  # round 1 openers: ann (won m1), cat (lost m2)


# -- a simulated season: the views agree with each other and with the leaderboard -------------------------


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("season")
    log = folder / "season.jsonl"
    options = SimulationOptions(players="mixed", bots=("greedy", "random", "tactician"),
                                roster=["ann", "bob", "cat", "dan", "eve"], match_prefix="s-")
    with open(log, "wb") as stream:
        record(Simulator(5, options), 60, stream, timestamps=True, seed=5)
    write_tables([str(log)], folder / "stats")
    return folder / "stats"


def test_pairs_are_mirrored_and_match_the_leaderboard(season: Path):
    tables = open_tables(season)
    pairs = head_to_head(tables["matches"].filter(counted(False)))
    mirror = pairs.join(pairs, left_on=["player", "opponent"], right_on=["opponent", "player"])
    assert (mirror["matches"] == mirror["matches_right"]).all()
    assert (mirror["wins"] == mirror["losses_right"]).all() and (mirror["ties"] == mirror["ties_right"]).all()
    assert set(pairs["player"]) == {"ann", "bob", "cat", "dan", "eve"}
    board = leaderboard(season)
    # a player who won a match was ahead of every opponent in it: at least as many pair wins as opponents met
    seated = tables["matches"].filter(counted(False)).collect()
    for row in board.iter_rows(named=True):
        won = seated.filter(pl.col("winner") == row["player"])
        assert row["match_wins"] == won.height


def test_the_last_row_of_the_history_is_the_rating(season: Path):
    tables = open_tables(season)
    history = rating_history(tables["matches"].filter(counted(False)))
    last = history.group_by("variant", "player").agg(pl.col("ordinal").last(), pl.col("rated_matches").last())
    rated = ratings(season).join(last, on=["variant", "player"])
    assert rated.height == 5
    assert rated["ordinal"].to_list() == pytest.approx(rated["ordinal_right"].to_list())
    assert rated["rated_matches"].to_list() == rated["rated_matches_right"].to_list()


def test_seat_statistics_sum_to_the_totals(season: Path):
    tables = open_tables(season)
    matches = tables["matches"].filter(counted(False))
    seats = by_seat(matches, tables["players"])
    totals = matches.group_by("players").agg(pl.len().alias("n"), pl.col("drawn").sum()).collect()
    for size, n, drawn in totals.iter_rows():
        rows = seats.filter(pl.col("players") == size)
        assert rows.height == size
        assert rows["matches"].to_list() == [n] * size
        assert rows["match_wins"].sum() + drawn == n
        assert rows["drawn"].to_list() == [drawn] * size
    ended = tables["players"].join(matches.select("file", "match"), on=["file", "match"]) \
        .filter(pl.col("reason").is_not_null()).collect()
    assert seats["rounds"].sum() == ended.height
    assert seats["round_wins"].sum() == ended["won"].sum()
    openers = by_opener(matches, tables["players"])
    assert openers["rounds"].sum() == ended.height and openers["round_wins"].sum() == ended["won"].sum()
    assert openers["matches"].sum() == seats["matches"].sum()


def test_every_table_gets_its_matchs_period(season: Path):
    tables = with_period(open_tables(season), "month")
    months = tables["matches"].select("match", "month").collect()
    assert set(months["month"]) <= {f"2026-{month:02d}" for month in range(1, 13)} | {"2027-01"}
    joined = tables["moves"].select("match", "month").unique().collect().join(months, on="match")
    assert (joined["month"] == joined["month_right"]).all()


# -- the command line ------------------------------------------------------------------------------------


def _csv(*args: str) -> pl.DataFrame:
    result = runner.invoke(app, [*args, "-f", "csv"])
    assert result.exit_code == 0, result.output
    import io

    return pl.read_csv(io.StringIO(result.stdout))


def test_h2h_and_seats_on_the_command_line(season: Path):
    table = _csv("h2h", str(season))
    assert table.columns == ["variant", "player", "ann", "bob", "cat", "dan", "eve"]
    pairs = _csv("h2h", str(season), "--pairs")
    assert pairs.columns == ["variant", "player", "opponent", "matches", "wins", "losses", "ties", "win_share"]
    ann_bob = pairs.filter((pl.col("player") == "ann") & (pl.col("opponent") == "bob")).row(0, named=True)
    cell = table.filter(pl.col("player") == "ann")["bob"][0]
    assert cell.split("-")[:2] == [str(ann_bob["wins"]), str(ann_bob["losses"])]
    assert _csv("seats", str(season))["seat"].to_list() == [1, 2, 1, 2, 3, 1, 2, 3, 4]
    assert set(_csv("seats", str(season), "--opener")["role"]) == {"opener", "others"}


def test_players_short_view_and_all(season: Path):
    short = _csv("players", str(season))
    assert short.columns == ["player", "variant", "rank", "matches", "match_wins", "win_share", "rating",
                             "rating_sigma"]
    assert short["rank"].to_list() == [1, 2, 3, 4, 5]
    assert short["rating"].to_list() == sorted(short["rating"].to_list(), reverse=True)
    every = _csv("players", str(season), "--all")
    assert "rounds_won_domino" in every.columns and "rank" not in every.columns
    weekly = _csv("players", str(season), "--by", "week")
    assert weekly["matches"].sum() == short["matches"].sum()
    assert weekly.group_by("variant", "week").agg(pl.col("rank").max() == pl.len())["rank"].all()


def test_ratings_history_on_the_command_line(season: Path):
    history = _csv("ratings", str(season), "--history")
    assert history.columns[:4] == ["variant", "player", "match", "started_at"]
    monthly = _csv("ratings", str(season), "--by", "month")
    assert monthly.group_by("player").agg(pl.col("matches").sum())["matches"].sum() == history.height
    assert runner.invoke(app, ["ratings", str(season), "--by", "fortnight"]).exit_code == 2
    assert runner.invoke(app, ["players", str(season), "--by", "fortnight"]).exit_code == 2


def test_text_tables_group_thousands():
    from drawlog.views.frames import plain_tables

    frame = pl.DataFrame({"player": ["ann"], "matches": [12345], "win_share": [0.5]})
    assert "12,345" in plain_tables(frame, 80, grouped=True)
    assert "12345" in plain_tables(frame, 80)
