"""Statistics tables of All Fives: play points, claims, the spinner and its arms, reports per variant."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.tables.dataset import MANIFEST, TABLE_FORMAT, OutputError, open_tables, write_tables
from drawlog.tables.reports import audit_summary, leaderboard, ratings

ROOT = Path(__file__).resolve().parent.parent
DRAW_LOG = ROOT / "tests" / "fixtures" / "codes" / "R303.clean.jsonl"  # Draw: ann goes out, scores 123
runner = CliRunner()


def fives_match(match: str = "f1", claims: tuple[int | None, ...] = (10, None, 5, 0, 10)) -> list[dict]:
    """The contract's worked example as a whole match (3 tiles each, target 20: a W402 warning).

    ``[5|5]`` leads (10), ``[5|3]`` right (13: nothing), ``[2|5]`` left (5), ``[5|1]`` up (6: nothing),
    ``[4|5]`` down (10): ann's last tile takes her to 25, past the target, so the round ends ``target``
    (v1.2), not ``domino``: bob keeps ``[6|6]``, 12 pips, and loses nothing for them.
    """
    plays = [("ann", [5, 5], None), ("bob", [5, 3], "right"), ("ann", [2, 5], "left"), ("bob", [5, 1], "up"),
             ("ann", [4, 5], "down")]
    events: list[dict] = [
        {"type": "match_start", "match": match, "players": ["ann", "bob"], "variant": "all-fives", "target": 20,
         "rules": {"hand": 3}},
        {"type": "round_start", "match": match, "round": 1, "opener": "ann",
         "hands": {"ann": [[5, 5], [2, 5], [4, 5]], "bob": [[5, 3], [5, 1], [6, 6]]}},
    ]
    for (player, tile, end), claim in zip(plays, claims):
        event: dict = {"type": "play", "match": match, "player": player, "tile": tile}
        if end is not None:
            event["end"] = end
        if claim is not None:
            event["points"] = claim
        events.append(event)
    events += [
        {"type": "round_end", "match": match, "round": 1, "reason": "target", "winner": "ann",
         "points": {"ann": 0, "bob": 0}},
        {"type": "match_end", "match": match, "scores": {"ann": 25, "bob": 0}, "winner": "ann"},
    ]
    return events


def write_log(path: Path, events: list[dict]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


def tables_of(paths: list[Path], out: Path, **options) -> dict[str, pl.DataFrame]:
    write_tables([str(path) for path in paths], out, **options)
    return {name: frame.collect() for name, frame in open_tables(out).items()}


@pytest.fixture()
def both(tmp_path: Path) -> list[Path]:
    """A Draw log and an All Fives log, the same two players in each."""
    return [DRAW_LOG, write_log(tmp_path / "fives.jsonl", fives_match())]


def test_the_worked_example_scores_each_play_and_the_round(tmp_path: Path):
    tables = tables_of([write_log(tmp_path / "fives.jsonl", fives_match())], tmp_path / "stats")
    assert tables["violations"]["code"].to_list() == ["W402"]  # the target and the hand, in one warning
    moves = tables["moves"].sort("ply")
    assert moves.select("player", "tile", "placed_end", "points", "claimed_points").rows() == [
        ("ann", [5, 5], None, 10, 10),
        ("bob", [3, 5], "right", 0, None),
        ("ann", [2, 5], "left", 5, 5),
        ("bob", [1, 5], "up", 0, 0),
        ("ann", [4, 5], "down", 10, 10),
    ]
    assert moves.select("left_end", "right_end", "up_end", "down_end").rows() == [
        (5, 5, None, None), (5, 3, None, None), (2, 3, 5, 5), (2, 3, 1, 5), (2, 3, 1, 4)]
    assert set(moves["variant"]) == {"all-fives"}
    players = tables["players"].sort("seat")
    assert players.select("player", "play_points", "end_points", "points", "score", "claimed_points",
                          "pips_left").rows() == [("ann", 25, 0, 25, 25, 0, 0), ("bob", 0, 0, 0, 0, 0, 12)]
    assert tables["rounds"].select("variant", "spinner", "winner", "points", "reason").rows() == [
        ("all-fives", [5, 5], "ann", 25, "target")]
    assert tables["matches"].select("variant", "winner", "drawn", "scores", "valid", "complete").rows() == [
        ("all-fives", "ann", False, [25, 0], True, True)]


def test_a_wrong_claim_is_kept_beside_the_recomputed_points(tmp_path: Path):
    tables = tables_of([write_log(tmp_path / "fives.jsonl", fives_match(claims=(10, 13, None, None, 5)))],
                       tmp_path / "stats")
    moves = tables["moves"].sort("ply")
    assert moves.select("points", "claimed_points", "faults").rows() == [
        (10, 10, None), (0, 13, ["R308"]), (5, None, None), (0, None, None), (10, 5, ["R308"])]
    assert tables["matches"]["valid"].to_list() == [False]


def test_a_round_without_a_double_has_no_spinner_and_closed_arms(tmp_path: Path):
    events = fives_match()
    events[1]["hands"] = {"ann": [[2, 3], [3, 4], [6, 6]], "bob": [[3, 5], [0, 1], [1, 1]]}
    events[2:7] = [{"type": "play", "match": "f1", "player": "ann", "tile": [2, 3], "points": 5},
                   {"type": "play", "match": "f1", "player": "bob", "tile": [3, 5], "end": "right", "points": 0}]
    tables = tables_of([write_log(tmp_path / "fives.jsonl", events[:4])], tmp_path / "stats")
    assert tables["moves"].select("points", "up_end", "down_end").rows() == [(5, None, None), (0, None, None)]
    assert tables["rounds"].select("spinner", "reason").rows() == [(None, None)]
    assert tables["players"].select("player", "play_points", "end_points", "points").rows() == [
        ("ann", 5, 0, 5), ("bob", 0, 0, 0)]


def test_draw_tables_have_no_spinner_and_no_play_points(tmp_path: Path):
    tables = tables_of([DRAW_LOG], tmp_path / "stats")
    assert tables["rounds"].select("variant", "spinner", "points").rows() == [("draw", None, 123)]
    assert tables["players"].select("player", "play_points", "end_points", "points").rows() == [
        ("ann", 0, 123, 123), ("bob", 0, 0, 0)]
    moves = tables["moves"]
    assert moves["points"].to_list() == [0] * moves.height
    assert moves["claimed_points"].null_count() == moves["up_end"].null_count() \
        == moves["down_end"].null_count() == moves.height
    assert set(moves["placed_end"].drop_nulls()) == {"left", "right"}
    assert set(moves["variant"]) == {"draw"} and tables["matches"]["variant"].to_list() == ["draw"]


def test_a_draw_play_claiming_points_is_recorded(tmp_path: Path):
    events = [json.loads(line) for line in DRAW_LOG.read_text(encoding="utf-8").splitlines()]
    events[2]["points"] = 0
    events[15]["points"] = 5
    moves = tables_of([write_log(tmp_path / "draw.jsonl", events)], tmp_path / "stats")["moves"].sort("ply")
    claimed = moves.filter(pl.col("claimed_points").is_not_null())
    assert claimed.select("line", "points", "claimed_points", "faults").rows() == [
        (3, 0, 0, None), (16, 0, 5, ["R308"])]


def test_reports_keep_the_variants_apart(both: list[Path], tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(path) for path in both], out)
    rated = ratings(out)
    assert rated.select("player", "variant", "rated_matches").sort("variant", "player").rows() == [
        ("ann", "all-fives", 1), ("bob", "all-fives", 1), ("ann", "draw", 1), ("bob", "draw", 1)]
    assert set(ratings(out, "all-fives")["variant"]) == {"all-fives"}
    assert ratings(out, "draw").height == 2
    board = leaderboard(out)
    assert board.select("player", "variant", "matches", "match_wins", "points_per_round").sort(
        "variant", "player").rows() == [("ann", "all-fives", 1, 1, 25.0), ("bob", "all-fives", 1, 0, 0.0),
                                        ("ann", "draw", 1, 1, 123.0), ("bob", "draw", 1, 0, 0.0)]
    assert board.select("player", "variant", "rounds", "rounds_won_domino", "rounds_won_target").sort(
        "variant", "player").rows() == [("ann", "all-fives", 1, 0, 1), ("bob", "all-fives", 1, 0, 0),
                                        ("ann", "draw", 1, 1, 0), ("bob", "draw", 1, 0, 0)]
    fives = leaderboard(out, variant="all-fives")
    assert fives.select("player", "variant", "points_per_round").sort("player").rows() == [
        ("ann", "all-fives", 25.0), ("bob", "all-fives", 0.0)]
    assert leaderboard(out, by="variant").equals(board)

    result = runner.invoke(app, ["players", str(out), "--variant", "all-fives", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert {(row["player"], row["variant"]) for row in json.loads(result.output)} == {
        ("ann", "all-fives"), ("bob", "all-fives")}
    result = runner.invoke(app, ["ratings", str(out), "--variant", "draw", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert {(row["player"], row["variant"]) for row in json.loads(result.output)} == {("ann", "draw"), ("bob", "draw")}
    assert runner.invoke(app, ["ratings", str(out), "--variant", "fives"]).exit_code == 2
    assert runner.invoke(app, ["players", str(out), "--sort", "variant"]).exit_code == 0


def test_audit_shows_matches_per_variant_when_there_are_several(both: list[Path], tmp_path: Path):
    result = runner.invoke(app, ["audit", *map(str, both), "--out", str(tmp_path / "stats")])
    assert result.exit_code == 0, result.output
    assert "matches by variant" in result.output
    found = audit_summary(tmp_path / "stats")
    assert found["variants"].select("variant", "matches", "valid").rows() == [("all-fives", 1, 1), ("draw", 1, 1)]
    result = runner.invoke(app, ["audit", str(DRAW_LOG), "--out", str(tmp_path / "draw")])
    assert result.exit_code == 0 and "matches by variant" not in result.output


def test_jobs_and_partitions_write_the_same_tables(both: list[Path], tmp_path: Path):
    one = tables_of(both, tmp_path / "one")
    two = tables_of(both, tmp_path / "two", jobs=2)
    parted = tables_of(both, tmp_path / "parted", partition_by="variant")
    assert (tmp_path / "parted" / "moves" / "variant=all-fives").is_dir()
    for name in one:
        assert one[name].equals(two[name]), name
        key = [column for column in ("match", "round", "ply", "player", "line", "code") if column in one[name].columns]
        assert one[name].sort(key).equals(parted[name].select(one[name].columns).sort(key)), name


def test_the_manifest_names_the_table_format_and_older_folders_are_refused(tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(DRAW_LOG)], out)
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["table_format"] == TABLE_FORMAT == 5
    assert "left_end" in manifest["changes"]["3"]
    assert manifest["log_format"] == "1.2" and "target" in manifest["log_format_changes"]["1.2"]
    del manifest["table_format"]
    (out / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(OutputError, match="format 1"):
        open_tables(out)
    result = runner.invoke(app, ["players", str(out)])
    assert result.exit_code == 2 and "write it again" in result.output
    write_tables([str(DRAW_LOG)], out)  # drawlog wrote the folder: it is replaced
    assert open_tables(out)["matches"].collect().height == 1


def test_simulated_all_fives_tables_agree_with_the_logged_points(tmp_path: Path):
    """Each play's recomputed points are what the simulator logged; they add up to play_points and scores."""
    from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

    simulator = Simulator(5, SimulationOptions(players="mixed", bots=("greedy", "random", "tactician"),
                                               variant="all-fives"))
    log = tmp_path / "fives.jsonl"
    log.write_bytes(b"".join(line for match in simulator.matches(12) for line in encode_events(match)))
    tables = tables_of([log], tmp_path / "stats")
    assert tables["violations"].height == 0 and tables["matches"]["valid"].all()
    moves, players = tables["moves"], tables["players"]
    plays = moves.filter(pl.col("action") == "play")
    assert plays["claimed_points"].null_count() == 0 and (plays["points"] == plays["claimed_points"]).all()
    assert (moves.filter(pl.col("action") != "play")["points"] == 0).all()
    assert (moves["points"] % 5 == 0).all() and moves["points"].sum() > 0
    scored = moves.group_by("match", "round", "player").agg(pl.col("points").sum().alias("scored"))
    joined = players.join(scored, on=["match", "round", "player"], how="left").with_columns(
        pl.col("scored").fill_null(0))
    assert (joined["play_points"] == joined["scored"]).all()
    assert (players["points"] == players["play_points"] + players["end_points"]).all()
    assert (players["end_points"] == players["claimed_points"]).all() and (players["end_points"] <= 0).all()
    finals = players.sort("match", "round").group_by("match", "player").agg(pl.col("points").sum(),
                                                                          pl.col("score").last())
    assert (finals["points"] == finals["score"]).all()
    rounds = tables["rounds"]
    spinners = rounds["spinner"].drop_nulls().to_list()
    assert spinners and all(len(tile) == 2 and tile[0] == tile[1] for tile in spinners)
    assert set(moves["placed_end"].drop_nulls()) <= {"left", "right", "up", "down"}
    arms = moves.filter(pl.col("placed_end").is_in(["up", "down"]))
    assert arms.height > 0 and arms["up_end"].null_count() == 0
    # v1.2: every match ends with a target round (its last), nobody losing pips in it; no match is drawn
    last = rounds.sort("match", "round").group_by("match").agg(pl.col("reason").last(), pl.col("winner").last(),
                                                              pl.col("round").last())
    matches = tables["matches"]
    assert set(last["reason"]) == {"target"} and rounds.filter(pl.col("reason") == "target").height == 12
    assert last.join(matches, on="match").filter(pl.col("winner") != pl.col("winner_right")).height == 0
    assert not matches["drawn"].any() and matches["winner"].null_count() == 0
    in_target = players.join(rounds.filter(pl.col("reason") == "target").select("match", "round"),
                             on=["match", "round"])
    assert in_target.height > 0 and (in_target["end_points"] == 0).all()


def test_an_early_arm_play_is_counted_and_its_arm_shows_once_open(tmp_path: Path):
    """v1.2: [2|5] up before the arms open is M212, applied: it scores 15, and up_end stays null until [5|1]
    left covers the spinner; then up shows the early tile's 2."""
    log = ROOT / "tests" / "fixtures" / "codes" / "M212-applied.jsonl"
    tables = tables_of([log], tmp_path / "stats")
    assert tables["violations"].select("line", "code").rows() == [(5, "M212")]
    moves = tables["moves"].filter(pl.col("round") == 1).sort("ply").head(5)
    assert moves.select("line", "tile", "placed_end", "points", "up_end", "down_end", "faults").rows() == [
        (3, [5, 5], None, 10, None, None, None), (4, [3, 5], "right", 0, None, None, None),
        (5, [2, 5], "up", 15, None, None, ["M212"]), (6, [1, 5], None, 0, 2, 5, None),
        (7, [4, 5], None, 10, 2, 4, None)]
