"""Statistics tables: they agree with the simulator row by row, partition cleanly, replace atomically."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.check.validator import validate_paths
from drawlog.cli import app
from drawlog.log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave
from drawlog.tables.dataset import MANIFEST, OutputError, open_tables, write_tables
from drawlog.tables.reports import audit_summary, leaderboard, query, ratings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
runner = CliRunner()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    """A simulated log of 30 mixed matches (two tables at a time) and its events."""
    folder = tmp_path_factory.mktemp("corpus")
    simulator = Simulator(11, SimulationOptions(players="mixed", bots=("greedy", "random", "tactician"),
                                                meta={"tournament": "spring"}))
    import random

    events = interleave(list(simulator.matches(30)), random.Random(3))
    (folder / "log.jsonl").write_bytes(b"".join(encode_events(events)))
    return folder / "log.jsonl", events


@pytest.fixture(scope="module")
def corpus_stats(corpus, tmp_path_factory: pytest.TempPathFactory) -> dict[str, pl.DataFrame]:
    out = tmp_path_factory.mktemp("stats") / "stats"
    write_tables([str(corpus[0])], out)
    return {name: frame.collect() for name, frame in open_tables(out).items()}


def simulator_counts(events: list) -> tuple[dict, dict, dict]:
    """Per (match, round, player): plays, draws, passes and claimed points; per match: final scores."""
    moves: Counter = Counter()
    points: dict = {}
    finals: dict = {}
    round_of: dict = {}
    for event in events:
        if isinstance(event, RoundStart):
            round_of[event.match] = event.round
        elif isinstance(event, (Draw, Play, Pass)):
            moves[(event.match, round_of[event.match], event.player, event.__struct_config__.tag)] += 1
        elif isinstance(event, RoundEnd):
            for player, value in event.points.items():
                points[(event.match, event.round, player)] = value
        elif isinstance(event, MatchEnd):
            finals[event.match] = (event.scores, event.winner)
    return moves, points, finals


def test_players_table_agrees_with_the_simulator_row_by_row(corpus, corpus_stats):
    moves, points, finals = simulator_counts(corpus[1])
    players = corpus_stats["players"]
    assert players.height == len(points)
    for row in players.iter_rows(named=True):
        key = (row["match"], row["round"], row["player"])
        assert row["points"] == points[key] == row["claimed_points"]
        assert row["plays"] == moves[(*key, "play")]
        assert row["draws"] == moves[(*key, "draw")]
        assert row["passes"] == moves[(*key, "pass")]
        assert row["voluntary_draws"] <= row["draws"]
        assert row["tournament"] == "spring"


def test_rounds_and_matches_agree_with_the_simulator(corpus, corpus_stats):
    moves, points, finals = simulator_counts(corpus[1])
    rounds = corpus_stats["rounds"]
    per_round = Counter()
    for (match, number, _player, action), count in moves.items():
        per_round[(match, number, action)] += count
    for row in rounds.iter_rows(named=True):
        key = (row["match"], row["round"])
        assert row["plays"] == per_round[(*key, "play")]
        assert row["draws"] == per_round[(*key, "draw")]
        assert row["passes"] == per_round[(*key, "pass")]
        assert row["reason"] == row["claimed_reason"] and row["winner"] == row["claimed_winner"]
    matches = corpus_stats["matches"]
    assert matches.height == len(finals) == 30
    for row in matches.iter_rows(named=True):
        scores, winner = finals[row["match"]]
        assert dict(zip(row["player_names"], row["scores"])) == scores
        assert row["winner"] == winner and row["complete"] and row["valid"] and row["errors"] == 0
        assert row["rounds"] == rounds.filter(pl.col("match") == row["match"]).height
    assert corpus_stats["moves"].height == sum(moves.values())
    assert corpus_stats["violations"].height == 0


def test_moves_table_records_the_replayed_state(corpus_stats):
    moves = corpus_stats["moves"]
    plays = moves.filter(pl.col("action") == "play")
    assert plays["left_end"].null_count() == 0 and plays["right_end"].null_count() == 0
    assert plays["could_play"].all() and moves["applied"].all()
    draws = moves.filter(pl.col("action") == "draw")
    assert (draws["stock_left"] >= 2).all()
    assert set(moves["action"].unique()) == {"draw", "play", "pass"}


def test_faulty_matches_are_kept_and_marked(tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(SAMPLES / "every-violation.jsonl")], out)
    tables = {name: frame.collect() for name, frame in open_tables(out).items()}
    violations, _ = validate_paths([str(SAMPLES / "every-violation.jsonl")])
    assert tables["violations"].height == len(violations)
    started = set(tables["matches"]["match"])
    invalid = {v.match for v in violations if v.severity == "error" and v.match}
    marked = set(tables["matches"].filter(~pl.col("valid"))["match"])
    assert marked == invalid & started
    assert invalid - started == {"F004-m2"}, "only a match that never started has no row"
    moves = tables["moves"].filter(pl.col("faults").is_not_null())
    assert set(moves["faults"].explode()) >= {"M202", "M205", "M207", "M208"}
    assert not moves.filter(pl.col("faults").list.contains("M202"))["applied"].any()


def test_partitioned_write_reads_back_equal(corpus, tmp_path: Path):
    flat, parted = tmp_path / "flat", tmp_path / "parted"
    write_tables([str(corpus[0]), str(SAMPLES)], flat)
    write_tables([str(corpus[0]), str(SAMPLES)], parted, partition_by="tournament")
    assert (parted / "moves" / "tournament=spring").is_dir()
    one, other = open_tables(flat), open_tables(parted)
    for name in one:
        left = one[name].collect()
        right = other[name].collect().select(left.columns)
        key = [column for column in ("match", "round", "ply", "player", "line", "code") if column in left.columns]
        assert left.sort(key, nulls_last=True).equals(right.sort(key, nulls_last=True)), name


def test_rerun_replaces_the_tables_whole(corpus, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(corpus[0])], out)
    first = json.loads((out / MANIFEST).read_text())
    write_tables([str(SAMPLES / "tournament-2p.jsonl")], out, partition_by="tournament")
    assert json.loads((out / MANIFEST).read_text())["inputs"] != first["inputs"]
    assert not (out / "moves" / "part-00000.parquet").exists(), "an old unpartitioned table was left beside the new ones"
    assert sorted(p.name for p in out.iterdir()) == sorted([MANIFEST, "_inputs.json", "matches", "moves", "players",
                                                           "rounds", "violations", "deals", ".gen-2", ".gen-current"])
    assert not list(tmp_path.glob(".stats.*")), "staging folders were left behind"


def test_a_foreign_folder_is_refused(tmp_path: Path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(OutputError, match="drawlog did not write"):
        write_tables([str(SAMPLES / "tournament-2p.jsonl")], out)
    assert (out / "notes.txt").read_text() == "keep me"
    result = runner.invoke(app, ["stats", str(SAMPLES / "tournament-2p.jsonl"), "--out", str(out)])
    assert result.exit_code == 2 and "did not write" in result.output


def test_unknown_partition_key_is_refused(tmp_path: Path):
    result = runner.invoke(app, ["stats", str(SAMPLES), "--out", str(tmp_path / "s"), "--partition-by", "winner"])
    assert result.exit_code == 2
    assert not (tmp_path / "s").exists()


# -- the README's queries on the sample stats ---------------------------------------

README_QUERIES = re.findall(r"^(SELECT .+)$", (ROOT / "README.md").read_text(encoding="utf-8").split(
    "Six useful queries", 1)[1].split("```sql", 1)[1].split("```", 1)[0], flags=re.M)


@pytest.fixture(scope="module")
def sample_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples") / "stats"
    write_tables([str(SAMPLES)], out)
    return out


def _sample_events(name: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLES / name).read_text().splitlines() if line.strip()]


CLEAN_FILES = ("tournament-2p.jsonl", "tournament-3p.jsonl", "tournament-4p.jsonl", "interleaved.jsonl")


def test_readme_has_at_least_five_queries():
    assert len(README_QUERIES) >= 5


def test_query_who_wins_most(sample_stats):
    result = query(sample_stats, README_QUERIES[0])
    wins = dict(result.iter_rows())
    claimed = Counter(event["winner"] for name in CLEAN_FILES for event in _sample_events(name)
                      if event["type"] == "match_end")
    for player, count in claimed.items():
        assert wins[player] >= count
    assert sum(wins.values()) == query(sample_stats, "SELECT count(*) FROM matches WHERE complete AND winner "
                                                     "IS NOT NULL").item()


def test_query_how_rounds_end(tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(SAMPLES / name) for name in CLEAN_FILES], out)
    result = {row[0]: row[1:] for row in query(out, README_QUERIES[1]).iter_rows()}
    ends = [event for name in CLEAN_FILES for event in _sample_events(name) if event["type"] == "round_end"]
    for reason in ("domino", "blocked"):
        claimed = [sum(event["points"].values()) for event in ends if event["reason"] == reason]
        assert result[reason][0] == len(claimed)
        assert result[reason][1] == pytest.approx(sum(claimed) / len(claimed))


def test_query_voluntary_draws(sample_stats):
    result = query(sample_stats, README_QUERIES[2])
    assert result.columns == ["player", "draws", "voluntary", "voluntary_share"]
    moves = open_tables(sample_stats)["moves"].filter(pl.col("action") == "draw").collect()
    for player, draws, voluntary, share in result.iter_rows():
        mine = moves.filter(pl.col("player") == player)
        assert draws == mine.height and voluntary == mine["could_play"].sum()
        assert isinstance(share, float) and share == pytest.approx(voluntary / draws)


def test_query_illegal_draws_and_passes(sample_stats):
    result = query(sample_stats, README_QUERIES[3])
    violations, _ = validate_paths([str(SAMPLES)])
    expected = Counter((v.player, v.code) for v in violations if v.code in ("M205", "M207", "M208"))
    assert {(player, code): count for player, code, count in result.iter_rows()} == expected


def test_query_opening_doubles(sample_stats):
    result = query(sample_stats, README_QUERIES[4])
    rounds = open_tables(sample_stats)["rounds"].filter(pl.col("reason").is_not_null()).collect()
    assert sum(result["rounds"]) == rounds.height
    first_plays = {}
    for name in CLEAN_FILES:
        current = {}
        for event in _sample_events(name):
            if event["type"] == "round_start":
                current[event["match"]] = event["round"]
            elif event["type"] == "play" and (event["match"], current[event["match"]]) not in first_plays:
                first_plays[(event["match"], current[event["match"]])] = event["tile"][0] == event["tile"][1]
    recorded = {(m, r): d for m, r, d in rounds.select("match", "round", "opened_with_double").iter_rows()}
    for key, double in first_plays.items():
        assert recorded[key] == double


def test_query_invalid_matches_by_file(sample_stats):
    result = {Path(file).name: (matches, invalid) for file, matches, invalid in
              query(sample_stats, README_QUERIES[5]).iter_rows()}
    for name in CLEAN_FILES:
        assert result[name][1] == 0
    violations, _ = validate_paths([str(SAMPLES / "every-violation.jsonl")])
    never_started = {"F004-m2"}
    assert result["every-violation.jsonl"][1] == len({v.match for v in violations if v.severity == "error"
                                                       and v.match} - never_started)


# -- reports and the CLI ---------------------------------------------------------------

def test_leaderboard_and_ratings(corpus, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(corpus[0])], out)
    board = leaderboard(out)
    rated = ratings(out)
    assert set(board["player"]) == set(rated["player"]) == {"p1", "p2", "p3", "p4"}
    assert board["matches"].max() == 30 and board["match_wins"].sum() <= 30
    assert (rated["sigma"] < 25 / 3).all(), "every rated player's uncertainty shrinks below the prior"
    assert board.sort("rating", descending=True)["player"].to_list() == rated["player"].to_list()
    by_tournament = leaderboard(out, by="tournament")
    assert set(by_tournament["tournament"]) == {"spring"}


def test_audit_prints_the_summary_and_writes_the_tables(tmp_path: Path):
    out = tmp_path / "stats"
    result = runner.invoke(app, ["audit", str(SAMPLES), "--out", str(out)])
    assert result.exit_code == 1, result.output  # errors found, as validate
    assert "58 matches read, 29 valid" in result.output
    assert "violations by code" in result.output and "files with most errors" in result.output
    assert (out / "moves" / "part-00000.parquet").is_file()
    found = audit_summary(out)
    assert found["files"]["file"][0].endswith("every-violation.jsonl")


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_query_formats(sample_stats, tmp_path: Path, fmt: str):
    target = tmp_path / f"out.{fmt}"
    result = runner.invoke(app, ["query", str(sample_stats), "SELECT code, count(*) AS n FROM violations "
                                 "GROUP BY code ORDER BY code", "--format", fmt, "-o", str(target)])
    assert result.exit_code == 0, result.output
    frame = {"csv": pl.read_csv, "json": pl.read_json, "parquet": pl.read_parquet}[fmt](target)
    assert frame.columns == ["code", "n"] and frame.height == 34


def test_bad_sql_and_missing_folder_are_usage_errors(sample_stats, tmp_path: Path):
    assert runner.invoke(app, ["query", str(sample_stats), "SELECT nope FROM nowhere"]).exit_code == 2
    assert runner.invoke(app, ["players", str(tmp_path / "missing")]).exit_code == 2
    assert runner.invoke(app, ["players", str(sample_stats), "--sort", "shoe_size"]).exit_code == 2


def _all_tables(folder: Path) -> dict[str, pl.DataFrame]:
    return {name: frame.collect() for name, frame in open_tables(folder).items()}


def test_jobs_write_the_same_tables_as_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from drawlog.check import pool

    monkeypatch.setattr(pool, "SMALLEST_PART", 1)  # the sample logs in several parts
    inputs = [str(SAMPLES / name) for name in sorted(p.name for p in SAMPLES.iterdir() if p.name != "README.md")]
    inputs.append(str(tmp_path / "missing.jsonl"))
    one, two = tmp_path / "one", tmp_path / "two"
    first = write_tables(inputs, one)
    second = write_tables(inputs, two, jobs=2)
    assert first == second
    left, right = _all_tables(one), _all_tables(two)
    for name in left:
        assert left[name].equals(right[name]), name


def test_jobs_join_a_match_that_spans_files_as_one_process_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from drawlog.check import pool

    monkeypatch.setattr(pool, "SMALLEST_PART", 1)  # a part a file
    lines = (SAMPLES / "tournament-2p.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "a.jsonl").write_text("".join(lines[:40]))
    (tmp_path / "b.jsonl").write_text("".join(lines[40:]))
    one, two = tmp_path / "one", tmp_path / "two"
    write_tables([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")], one)
    write_tables([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")], two, jobs=2)
    left, right = _all_tables(one), _all_tables(two)
    for name in left:
        assert left[name].equals(right[name]), name
    assert right["violations"].filter(pl.col("file").str.ends_with("b.jsonl")).height > 0
    ended = right["violations"].filter(pl.col("code") == "F004")
    assert ended.height and ended["message"].str.ends_with(", which has ended").all()
    assert ended["tournament"].null_count() == 0  # the keys of the match ended in a.jsonl


def test_stats_names_unreadable_inputs_and_exits_2_when_nothing_was_read(tmp_path: Path):
    missing = tmp_path / "missing.jsonl"
    result = runner.invoke(app, ["stats", str(missing), str(SAMPLES / "tournament-2p.jsonl"),
                                 "--out", str(tmp_path / "a")])
    assert result.exit_code == 0
    assert f"F007 {missing}: no such file or folder" in result.output
    result = runner.invoke(app, ["stats", str(missing), "--out", str(tmp_path / "a")])
    assert result.exit_code == 2
    assert f"F007 {missing}: no such file or folder" in result.output
    assert "nothing could be read" in result.output and "left as it was" in result.output
    assert open_tables(tmp_path / "a")["matches"].collect().height == 3, "the tables of the first run stay"


def test_a_folder_named_like_a_pattern_is_read_back(tmp_path: Path):
    for partition_by in (None, "tournament"):
        out = tmp_path / f"st[1]*?-{partition_by}"
        write_tables([str(SAMPLES)], out, partition_by)
        assert open_tables(out)["matches"].collect().height == 58


def test_the_writer_thread_writes_the_same_tables_as_the_replay_thread(corpus, tmp_path: Path):
    from drawlog.check.validator import Validator
    from drawlog.log.reader import expand_paths
    from drawlog.tables.writing import write_in_one_process

    inputs = list(expand_paths([str(corpus[0]), str(SAMPLES / "every-violation.jsonl")]))
    folders = [tmp_path / "threaded", tmp_path / "inline"]
    for folder, threaded in zip(folders, (True, False)):
        folder.mkdir()
        write_in_one_process(inputs, folder, Validator(), rows_per_group=50, threaded=threaded)
    for name in ("matches", "rounds", "players", "moves", "violations", "deals"):
        threaded_table = pl.read_parquet(folders[0] / f"{name}.parquet")  # (one process writes flat files)
        assert threaded_table.height > 0, name
        assert threaded_table.equals(pl.read_parquet(folders[1] / f"{name}.parquet")), name


def test_writer_thread_runs_jobs_in_order_and_hands_back_the_first_error():
    from drawlog.tables.writers import WriterThread

    done: list[int] = []
    writer = WriterThread(backlog=1)
    for number in range(5):
        writer.submit(lambda number=number: done.append(number))
    writer.close()
    assert done == [0, 1, 2, 3, 4]

    import threading

    gate = threading.Event()

    def fail() -> None:
        gate.wait()
        raise OSError(28, "No space left on device")

    writer = WriterThread()
    writer.submit(fail)
    writer.submit(lambda: done.append(99))  # skipped: the thread stopped writing at the error
    gate.set()
    with pytest.raises(OSError, match="No space left"):
        writer.close()
    assert 99 not in done
    with pytest.raises(OSError):
        writer.submit(lambda: None)


def test_stats_into_an_unwritable_place_is_a_usage_error(tmp_path: Path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    result = runner.invoke(app, ["stats", str(SAMPLES / "tournament-2p.jsonl"), "--out", str(blocker / "stats")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Not a directory" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_small_row_groups_write_the_same_tables(corpus, tmp_path: Path):
    """Flushing every few rows (moves packed per round context) changes nothing in the tables."""
    inputs = [str(corpus[0]), str(SAMPLES / "every-violation.jsonl")]
    write_tables(inputs, tmp_path / "big")
    write_tables(inputs, tmp_path / "small", rows_per_group=7)
    big, small = _all_tables(tmp_path / "big"), _all_tables(tmp_path / "small")
    for name in big:
        assert big[name].equals(small[name]), name
    assert pl.read_parquet(tmp_path / "small" / "moves" / "part-00000.parquet").height > 7


def test_a_wide_table_is_split_to_fit_repeating_its_key_columns():
    from rich.console import Console

    from drawlog.views.frames import frame_tables

    frame = pl.DataFrame({"player": ["ann", "bob"], "tournament": ["spring", None],
                          **{f"measure_{index}": [float(index), 10.5 * index] for index in range(12)}})
    tables = frame_tables(frame, 80)
    assert len(tables) > 1
    headers = [[str(column.header) for column in table.columns] for table in tables]
    assert all(names[:2] == ["player", "tournament"] for names in headers)
    assert [name for names in headers for name in names[2:]] == frame.columns[2:]
    console = Console(width=80, record=True)
    for table in tables:
        console.print(table)
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 80
    assert "…" not in console.export_text()
    assert any("spring" in line and "ann" in line for line in lines)
    assert len(frame_tables(frame, 1_000)) == 1


def test_tables_read_back_with_the_schemas_columns_and_types(corpus_stats, tmp_path: Path):
    """Moves are written with dictionaries and delta-encoded lines, yet read back as the schema says."""
    import pyarrow.parquet as pq

    from drawlog.tables.stats import SCHEMAS

    out = tmp_path / "stats"
    write_tables([str(SAMPLES / "every-violation.jsonl")], out)
    for name, schema in SCHEMAS.items():
        assert pq.read_schema(out / name / "part-00000.parquet").equals(schema), name
        assert corpus_stats[name].columns == schema.names, name
    assert corpus_stats["moves"].schema["player"] == pl.String
    encodings = pq.ParquetFile(out / "moves" / "part-00000.parquet").metadata.row_group(0)
    line = encodings.column(SCHEMAS["moves"].names.index("line"))
    assert "DELTA_BINARY_PACKED" in line.encodings


def test_a_round_of_over_65535_moves_keeps_its_plies(tmp_path: Path):
    """A ply too large for the packed move is kept aside, not wrapped around."""
    players = ["ann", "bob"]
    lines = [
        {"type": "match_start", "match": "m", "players": players},
        {"type": "round_start", "match": "m", "round": 1, "opener": "ann",
         "hands": {"ann": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [0, 6]],
                   "bob": [[1, 1], [1, 2], [1, 3], [1, 4], [1, 5], [1, 6], [2, 2]]}},
        *({"type": "pass", "match": "m", "player": players[index % 2]} for index in range(70_000)),
    ]
    log = tmp_path / "passes.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    write_tables([str(log)], tmp_path / "stats")
    moves = pl.read_parquet(tmp_path / "stats" / "moves" / "part-00000.parquet")
    assert moves.height == 70_000
    assert moves["ply"].to_list() == list(range(1, 70_001))
    assert moves["line"].to_list() == list(range(3, 70_003))
    assert moves["player"].to_list()[65_535:65_538] == ["bob", "ann", "bob"]
    assert set(moves["match"].to_list()) == {"m"}


def test_a_context_index_too_large_to_pack_is_kept_aside(tmp_path: Path):
    from drawlog.tables.move_sink import CONTEXT_MAX, MoveSink
    from drawlog.tables.stats import SCHEMAS

    sink = MoveSink(tmp_path / "moves.parquet", SCHEMAS["moves"])
    for index in range(CONTEXT_MAX + 3):
        sink.context((f"m{index}", 1, None, None, "log.jsonl", ("ann", "bob"), "draw", "/logs/log.jsonl"))
    sink.add(CONTEXT_MAX + 2, 7, 1, 2, 28, 4, 7, 7, 14, 7, False, True, 99)
    sink.add(5, 1, 0, 2, 28, 4, 7, 7, 14, 7, False, True, 100)
    sink.close()
    moves = pl.read_parquet(tmp_path / "moves.parquet")
    assert moves.select("match", "ply", "player", "line").rows() == [
        (f"m{CONTEXT_MAX + 2}", 7, "bob", 99), ("m5", 1, "ann", 100)]


def test_points_claims_and_lines_too_large_to_pack_are_kept_aside(tmp_path: Path):
    from drawlog.tables.move_sink import LINE_MAX, POINTS_MAX, MoveSink
    from drawlog.tables.stats import SCHEMAS

    sink = MoveSink(tmp_path / "moves.parquet", SCHEMAS["moves"])
    sink.context(("m", 1, None, None, "log.jsonl", ("ann", "bob"), "all-fives", "/logs/log.jsonl"))
    sink.add(0, 1, 0, 1, 27, 0, 6, 6, 14, 6, True, True, LINE_MAX + 1, POINTS_MAX + 1, None, 6, 6)
    sink.add(0, 2, 1, 1, 26, 2, 6, 6, 14, 6, True, True, 5, 10, 2**40, 5, 6)
    sink.add(0, 3, 0, 2, 28, 4, 6, 6, 14, 6, False, True, 6, 0, -5)
    sink.add(0, 4, 1, 1, 20, 1, 5, 6, 14, 5, True, True, 7, POINTS_MAX, POINTS_MAX, 5, 6)
    sink.close()
    moves = pl.read_parquet(tmp_path / "moves.parquet")
    assert moves.select("ply", "line", "points", "claimed_points", "up_end", "down_end", "tile", "placed_end").rows() == [
        (1, LINE_MAX + 1, POINTS_MAX + 1, None, 6, 6, [6, 6], "left"),
        (2, 5, 10, 2**40, 5, 6, [5, 6], "up"),
        (3, 6, 0, -5, None, None, None, None),
        (4, 7, POINTS_MAX, POINTS_MAX, 5, 6, [3, 5], "right")]


@pytest.mark.parametrize("command", [["query", "SELECT 1 AS x", "--format", "csv"], ["players", "--format", "csv"]])
def test_an_unwritable_output_file_is_a_usage_error(sample_stats, tmp_path: Path, command: list[str]):
    (tmp_path / "taken").write_text("a file, not a folder")
    target = tmp_path / "taken" / "out.csv"
    args = [command[0], str(sample_stats), *command[1:], "--output", str(target)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Not a directory" in result.output


def test_an_unfinished_match_has_no_winner_and_its_open_round_a_row(tmp_path: Path):
    codes = ROOT / "tests" / "fixtures" / "codes"
    write_tables([str(codes / "F006.jsonl")], tmp_path / "decided")  # ann reached the target: no match_end
    tables = _all_tables(tmp_path / "decided")
    assert tables["matches"].select("winner", "drawn", "complete", "decided", "valid").rows() == [
        (None, False, False, True, False)]
    write_tables([str(codes / "F006-truncated.jsonl")], tmp_path / "cut")  # cut inside round 1
    tables = _all_tables(tmp_path / "cut")
    assert tables["matches"].select("rounds", "winner", "decided").rows() == [(1, None, False)]
    assert tables["rounds"].select("round", "reason", "winner", "points", "stock_left").rows() == [
        (1, None, None, 0, 2)]
    assert tables["players"].select("player", "points", "score").rows() == [("ann", 0, 0), ("bob", 0, 0)]
    assert tables["moves"]["round"].unique().to_list() == [1]


def test_claims_too_large_for_32_bits_are_kept_and_too_large_for_64_are_schema_faults(tmp_path: Path):
    lines = (ROOT / "tests" / "fixtures" / "codes" / "R303.clean.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    events[-2]["points"] = {"ann": 2**40}
    events[-1]["scores"] = {"ann": -(2**62), "bob": 0}
    events[0]["target"] = 2**33
    log = tmp_path / "big.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    write_tables([str(log)], tmp_path / "stats")
    tables = _all_tables(tmp_path / "stats")
    assert tables["matches"].select("target", "claimed_scores").rows() == [(2**33, [-(2**62), 0])]
    assert tables["players"].filter(pl.col("player") == "ann")["claimed_points"].to_list() == [2**40]
    events[-2]["points"] = {"ann": 2**63}
    log.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    found, _ = validate_paths([str(log)])
    assert (len(events) - 1, "F002") in [(v.line, v.code) for v in found]


def test_nothing_read_leaves_the_old_tables_in_place(tmp_path: Path):
    from drawlog.errors import NothingRead

    out = tmp_path / "stats"
    write_tables([str(SAMPLES / "tournament-2p.jsonl")], out)
    before = _all_tables(out)
    missing = tmp_path / "typo.jsonl"
    with pytest.raises(NothingRead) as raised:
        write_tables([str(missing)], out)
    assert raised.value.unreadable == [(str(missing), None, "no such file or folder")]
    after = _all_tables(out)
    assert all(before[name].equals(after[name]) for name in before)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["stats"], "no staging folder left"


def test_a_damaged_statistics_folder_is_named_not_a_traceback(tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([str(SAMPLES / "tournament-2p.jsonl")], out)
    (out / "matches" / "part-00000.parquet").write_bytes(b"not parquet")
    with pytest.raises(OutputError, match="matches/part-00000.parquet"):
        open_tables(out)
    (out / "matches" / "part-00000.parquet").unlink()
    with pytest.raises(OutputError, match="lacks the matches table"):
        open_tables(out)
    result = runner.invoke(app, ["players", str(out)])
    assert result.exit_code == 2 and "lacks the matches table" in result.output


def test_jobs_are_no_more_than_the_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from drawlog.tables import parallel

    asked: list[int] = []
    real = parallel.write_in_parallel
    monkeypatch.setattr(parallel, "write_in_parallel", lambda inputs, folder, jobs, *rest, **named: asked.append(jobs)
                        or real(inputs, folder, jobs, *rest, **named))
    paths = [str(SAMPLES / "tournament-2p.jsonl"), str(SAMPLES / "tournament-3p.jsonl")]
    write_tables(paths, tmp_path / "stats", jobs=1000)
    assert asked == ([2] if (os.cpu_count() or 1) >= 2 else [])


def test_a_match_of_many_players_is_written(tmp_path: Path):
    log = tmp_path / "crowd.jsonl"
    log.write_text(json.dumps({"type": "match_start", "match": "m", "players": [f"p{i}" for i in range(200)]}) + "\n",
                   encoding="utf-8")
    write_tables([str(log)], tmp_path / "stats")
    matches = _all_tables(tmp_path / "stats")["matches"]
    assert matches.select("players", "valid").rows() == [(200, False)]


def _log_counts(events: list) -> dict[str, Counter]:
    """Per player, counted from the events themselves: rounds ended, rounds won by domino and by block, passes."""
    counts: dict[str, Counter] = {}
    seats: dict[str, list] = {}
    for event in events:
        if isinstance(event, MatchStart):
            seats[event.match] = event.players
        elif isinstance(event, Pass):
            counts.setdefault(event.player, Counter())["passes"] += 1
        elif isinstance(event, RoundEnd):
            for player in seats[event.match]:
                tally = counts.setdefault(player, Counter())
                tally["rounds"] += 1
                tally[f"rounds_won_{event.reason}"] += event.winner == player
    return counts


def test_a_match_id_used_twice_counts_each_round_once(tmp_path: Path):
    first = list(Simulator(3, SimulationOptions(players=2)).matches(4))
    second = list(Simulator(9, SimulationOptions(players=2)).matches(3))  # the same ids, m000001 on: F005
    for name, matches in (("a.jsonl", first), ("b.jsonl", second)):
        (tmp_path / name).write_bytes(b"".join(line for match in matches for line in encode_events(match)))
    write_tables([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")], tmp_path / "stats")
    board = leaderboard(tmp_path / "stats")
    expected = _log_counts([event for match in first + second for event in match])
    for row in board.iter_rows(named=True):
        counted = expected[row["player"]]
        assert (row["rounds"], row["rounds_won_domino"], row["rounds_won_blocked"], row["rounds_won_target"],
                row["passes"]) == (counted["rounds"], counted["rounds_won_domino"], counted["rounds_won_blocked"],
                                   counted["rounds_won_target"], counted["passes"])
    assert board["matches"].sum() == 2 * 4, "b.jsonl's three restarted matches are invalid (F005)"
    assert board["invalid_matches"].sum() == 2 * 3
    assert leaderboard(tmp_path / "stats", include_invalid=True)["matches"].sum() == 2 * (4 + 3)


def test_unfinished_matches_and_rounds_count_as_nothing_and_empty_shares_are_null(tmp_path: Path):
    codes = ROOT / "tests" / "fixtures" / "codes"
    write_tables([str(codes / "F006-truncated.jsonl")], tmp_path / "cut")  # cut inside round 1, no match_end
    board = leaderboard(tmp_path / "cut").sort("player")
    assert board.select("player", "matches", "win_share", "rounds", "points_per_round",
                        "pips_left_per_lost_round").rows() == [("ann", 0, None, 0, None, None),
                                                               ("bob", 0, None, 0, None, None)]
    assert board.filter(pl.col("player") == "ann")["voluntary_draw_share"].to_list() == [None], "ann never drew"
    for column in ("win_share", "draws_per_turn", "voluntary_draw_share", "violations_per_100_moves"):
        assert not board[column].is_nan().any() and not board[column].is_infinite().any()


def test_a_violation_after_its_match_keeps_the_match_s_tournament(tmp_path: Path):
    lines = (SAMPLES / "tournament-2p.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    first = json.loads(lines[0])
    end = next(n for n, line in enumerate(lines) if '"match_end"' in line)
    stray = json.dumps({"type": "pass", "match": first["match"], "player": first["players"][0]}) + "\n"
    log = tmp_path / "late.jsonl"
    log.write_text("".join(lines[: end + 1]) + stray + "".join(lines[end + 1:]), encoding="utf-8")
    write_tables([str(log)], tmp_path / "stats")
    violations = _all_tables(tmp_path / "stats")["violations"]
    assert violations.select("code", "tournament").rows() == [("F004", first["meta"]["tournament"])]
    overall = leaderboard(tmp_path / "stats").filter(pl.col("player") == first["players"][0])
    by_tournament = leaderboard(tmp_path / "stats", by="tournament").filter(pl.col("player") == first["players"][0])
    assert overall["violations"].to_list() == by_tournament["violations"].to_list() == [1]


def test_leaderboard_sorts_by_any_column_either_way_with_keys_breaking_ties(tmp_path: Path):
    write_tables([str(SAMPLES)], tmp_path / "stats")
    by_file = leaderboard(tmp_path / "stats", by="file", sort="rating")
    assert by_file.equals(leaderboard(tmp_path / "stats", by="file", sort="rating")), "the same order every time"
    for column in ("rounds", "passes", "violations", "rating_sigma", "file"):
        board = leaderboard(tmp_path / "stats", by="file", sort=column)
        values = board[column].drop_nulls().to_list()
        ascending = column in ("violations", "rating_sigma", "file")
        assert values == sorted(values, reverse=not ascending), column
        flipped = leaderboard(tmp_path / "stats", by="file", sort=column, reverse=True)[column].drop_nulls().to_list()
        assert flipped == sorted(values, reverse=ascending), column
    result = runner.invoke(app, ["players", str(tmp_path / "stats"), "--sort", "nonsense"])
    assert result.exit_code == 2 and "rounds_won_blocked" in result.output


@pytest.mark.parametrize(("ts", "expected"), [
    ("2024-05-01T12:00:00Z", "2024-05-01T12:00:00+00:00"),
    ("2024-05-01t14:30:00.25+02:30", "2024-05-01T12:00:00.250000+00:00"),
    ("2024-05-01 12:00:00z", "2024-05-01T12:00:00+00:00"),
    ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59+00:00"),
    ("yesterday", None),
    ("2024-02-30T00:00:00Z", None),
])
def test_started_at_reads_rfc_3339_timestamps(tmp_path: Path, ts: str, expected: str | None):
    lines = (ROOT / "tests" / "fixtures" / "codes" / "R303.clean.jsonl").read_text(encoding="utf-8").splitlines()
    start = json.loads(lines[0])
    start["ts"] = ts
    log = tmp_path / "ts.jsonl"
    log.write_text("\n".join([json.dumps(start), *lines[1:]]) + "\n", encoding="utf-8")
    write_tables([str(log)], tmp_path / "stats")
    [started_at] = _all_tables(tmp_path / "stats")["matches"]["started_at"].to_list()
    assert (started_at.isoformat() if started_at else None) == expected


# -- forfeits (format v1.2) ----------------------------------------------------------


def test_a_forfeit_is_named_in_matches_and_counts_as_a_loss(tmp_path: Path) -> None:
    codes = ROOT / "tests" / "fixtures" / "codes"
    log = tmp_path / "forfeits.jsonl"
    # bob times out in seeds' round 3 (ann 15, bob 0, cat 8): ann wins; then ann withdraws from m2
    # before any round: bob and cat tie at 0, so nobody wins
    first = (codes / "forfeit.clean.jsonl").read_text(encoding="utf-8")
    second = (json.dumps({"type": "match_start", "match": "m2", "players": ["ann", "bob", "cat"]}) + "\n"
              + json.dumps({"type": "match_end", "match": "m2", "scores": {"ann": 0, "bob": 0, "cat": 0},
                            "winner": None, "forfeit": {"player": "ann", "reason": "withdrawn"}}) + "\n")
    log.write_text(first + second, encoding="utf-8")
    assert validate_paths(log)[0] == []
    out = tmp_path / "stats"
    write_tables([str(log)], out)
    tables = {name: frame.collect() for name, frame in open_tables(out).items()}
    rows = tables["matches"].sort("match").select("match", "winner", "drawn", "decided", "forfeit",
                                                  "forfeit_reason", "scores").rows()
    assert rows == [("m1", "ann", False, True, "bob", "timeout", [15, 0, 8]),
                    ("m2", None, False, True, "ann", "withdrawn", [0, 0, 0])]
    board = leaderboard(out).select("player", "matches", "match_wins")
    assert dict(zip(board["player"], board["match_wins"])) == {"ann": 1, "bob": 0, "cat": 0}
    assert board["matches"].to_list() == [2, 2, 2]
    rated = ratings(out)
    assert rated["player"].to_list()[-1] == "bob"          # last in m1, tied last but one in m2


def test_a_forfeit_for_an_illegal_move_counts_as_a_loss_though_the_match_is_invalid(tmp_path: Path) -> None:
    """The move that made the referee stop the match must not spare the player the loss (nor the winner the win)."""
    out = tmp_path / "stats"
    write_tables([str(ROOT / "tests" / "fixtures" / "codes" / "M203-forfeit.jsonl")], out)
    [(valid, forfeit)] = open_tables(out)["matches"].select("valid", "forfeit").collect().rows()
    assert (valid, forfeit) == (False, "ann")
    board = leaderboard(out).select("player", "matches", "match_wins", "invalid_matches")
    assert board.sort("player").rows() == [("ann", 1, 0, 1), ("bob", 1, 1, 1)]
    assert ratings(out)["player"].to_list() == ["bob", "ann"]


def test_a_clean_match_has_no_forfeit(corpus_stats) -> None:
    matches = corpus_stats["matches"]
    assert matches["forfeit"].null_count() == matches.height == matches["forfeit_reason"].null_count()


def test_a_ts_that_is_not_rfc_3339_leaves_started_at_null(tmp_path: Path) -> None:
    codes = ROOT / "tests" / "fixtures" / "codes"
    started = {}
    for name in ("W405.jsonl", "W405.clean.jsonl"):
        out = tmp_path / name
        write_tables([str(codes / name)], out)
        started[name] = open_tables(out)["matches"].collect()["started_at"].to_list()
    assert started["W405.jsonl"] == [None]
    assert [str(value) for value in started["W405.clean.jsonl"]] == ["2024-05-01 12:00:00+00:00"]
