"""Issue 11, the tables' manners: -o FILE formats, audit's exit status, valid matches in the leaderboard and
ratings, simulated logs that do not collide, SQL-safe columns, per-seat results, error hints that work."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from drawlog.check.validator import validate_paths
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, default_match_prefix, encode_events
from drawlog.tables.dataset import MANIFEST, TABLE_FORMAT, open_tables, write_tables
from drawlog.tables.reports import leaderboard, ratings

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
CLEAN = SAMPLES / "tournament-2p.jsonl"
FAULTY = SAMPLES / "every-violation.jsonl"
runner = CliRunner()

#: Words DuckDB (reserved or type/function-name keywords) or Spark SQL in ANSI mode reserve, that a column
#: might be named.
RESERVED = {"left", "right", "end", "order", "group", "select", "from", "where", "table", "default", "case", "when",
            "then", "else", "cast", "all", "any", "limit", "offset", "join", "on", "using", "natural", "full",
            "cross", "inner", "outer", "window", "both", "leading", "trailing", "array", "user", "in", "is", "not",
            "null", "true", "false", "and", "or", "asc", "desc", "check", "column", "unique", "primary", "to",
            "with", "union", "for", "as", "time", "date", "interval", "timestamp"}


@pytest.fixture(scope="module")
def stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("manners") / "stats"
    write_tables([str(SAMPLES)], out)
    return out


# -- 3. -o FILE takes the format from its extension -------------------------------------------------

SQL = "SELECT code, count(*) AS n FROM violations GROUP BY code ORDER BY code"


@pytest.mark.parametrize(("suffix", "read"), [(".csv", pl.read_csv), (".json", pl.read_json),
                                              (".jsonl", pl.read_ndjson), (".parquet", pl.read_parquet)])
def test_query_output_takes_the_format_from_the_extension(stats: Path, tmp_path: Path, suffix: str, read):
    target = tmp_path / f"out{suffix}"
    result = runner.invoke(app, ["query", str(stats), SQL, "-o", str(target)])
    assert result.exit_code == 0, result.output
    frame = read(target)
    assert frame.columns == ["code", "n"] and frame.height == 34


def test_txt_output_is_the_table_as_plain_text(stats: Path, tmp_path: Path):
    target = tmp_path / "board.txt"
    assert runner.invoke(app, ["players", str(stats), "--all", "-o", str(target)]).exit_code == 0
    text = target.read_text(encoding="utf-8")
    assert "player" in text and "invalid_matches" in text and "\x1b" not in text


@pytest.mark.parametrize("command", [["query", SQL], ["players"], ["ratings"]])
def test_players_and_ratings_take_the_format_from_the_extension_too(stats: Path, tmp_path: Path,
                                                                   command: list[str]):
    target = tmp_path / "out.csv"
    result = runner.invoke(app, [command[0], str(stats), *command[1:], "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert not target.read_text(encoding="utf-8").lstrip().startswith(("┏", "┌", "+")), "a table, not CSV"
    assert pl.read_csv(target).height > 0


@pytest.mark.parametrize(("fmt", "name"), [("csv", "out.json"), ("table", "out.parquet"), ("json", "out.txt")])
def test_a_format_that_contradicts_the_extension_is_a_one_line_usage_error(stats: Path, tmp_path: Path, fmt: str,
                                                                           name: str):
    target = tmp_path / name
    result = runner.invoke(app, ["players", str(stats), "--format", fmt, "-o", str(target)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "--format" in result.output
    assert not target.exists()


def test_a_format_that_agrees_with_the_extension_or_an_unknown_extension_is_fine(stats: Path, tmp_path: Path):
    assert runner.invoke(app, ["ratings", str(stats), "--format", "csv", "-o", str(tmp_path / "r.csv")]).exit_code == 0
    assert runner.invoke(app, ["ratings", str(stats), "--format", "csv", "-o", str(tmp_path / "r.out")]).exit_code == 0
    assert pl.read_csv(tmp_path / "r.out").columns[0] == "player"


# -- 4. audit can fail a CI run ------------------------------------------------------------------------

def _audit(tmp_path: Path, *args: str, log: Path = FAULTY):
    return runner.invoke(app, ["audit", str(log), "--out", str(tmp_path / "stats"), "-q", *args])


def test_audit_exits_as_validate_does(tmp_path: Path):
    assert _audit(tmp_path).exit_code == 1
    assert _audit(tmp_path, "--exit-zero").exit_code == 0
    assert (tmp_path / "stats" / "moves" / "part-00000.parquet").is_file(), "the tables are written whatever the status"
    assert _audit(tmp_path, log=CLEAN).exit_code == 0
    assert runner.invoke(app, ["audit", str(tmp_path / "typo.jsonl"), "--out", str(tmp_path / "s2"),
                               "--exit-zero"]).exit_code == 2


def test_audit_select_and_ignore_filter_what_is_reported_not_what_is_checked(tmp_path: Path):
    everything = validate_paths([str(FAULTY)])[1]
    assert everything.warnings > 0 and everything.errors > 0
    result = _audit(tmp_path, "--select", "W")
    assert result.exit_code == 0, "only warnings are reported"
    assert _audit(tmp_path, "--select", "W", "--strict").exit_code == 1
    _audit(tmp_path, "--ignore", "M,R")
    tables = {name: frame.collect() for name, frame in open_tables(tmp_path / "stats").items()}
    codes = set(tables["violations"]["code"])
    assert codes and not any(code[0] in "MR" for code in codes)
    summary = json.loads((tmp_path / "stats" / MANIFEST).read_text())["summary"]
    assert summary["violations"] == tables["violations"].height
    assert tables["matches"].filter(~pl.col("valid")).height == validate_paths([str(FAULTY)])[1].matches \
        - everything.valid_matches, "the replay still checks every rule: validity is unchanged"


def test_audit_refuses_an_unknown_code(tmp_path: Path):
    result = _audit(tmp_path, "--select", "Q9")
    assert result.exit_code == 2 and "Q9" in result.output


# -- 5. results and ratings count valid finished matches -----------------------------------------------

@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four clean matches and four each given a fault, the same two players."""
    folder = tmp_path_factory.mktemp("mixed")
    clean = Simulator(1, SimulationOptions(match_prefix="clean-", bots=("greedy", "random")))
    faulty = Simulator(2, SimulationOptions(match_prefix="faulty-", bots=("greedy", "random"), fault_rate=1.0))
    for name, simulator in (("clean.jsonl", clean), ("faulty.jsonl", faulty)):
        (folder / name).write_bytes(b"".join(line for match in simulator.matches(4) for line in encode_events(match)))
    write_tables([str(folder / "clean.jsonl"), str(folder / "faulty.jsonl")], folder / "stats")
    return folder / "stats"


def _finished_invalid(folder: Path) -> int:
    matches = open_tables(folder)["matches"].collect()
    return matches.filter(pl.col("complete") & pl.col("decided") & pl.col("replayed") & ~pl.col("valid")).height


def test_the_leaderboard_counts_valid_finished_matches_and_says_how_many_were_invalid(mixed: Path):
    invalid = _finished_invalid(mixed)
    assert invalid > 0
    board = leaderboard(mixed)
    assert board["matches"].to_list() == [4, 4]
    assert board["invalid_matches"].to_list() == [invalid, invalid]
    assert board["match_wins"].sum() <= 4
    everything = leaderboard(mixed, include_invalid=True)
    assert everything["matches"].to_list() == [4 + invalid] * 2
    assert everything["invalid_matches"].to_list() == [invalid, invalid]


def test_ratings_count_valid_finished_matches(mixed: Path):
    assert ratings(mixed)["rated_matches"].to_list() == [4, 4]
    assert ratings(mixed, include_invalid=True)["rated_matches"].to_list() == [4 + _finished_invalid(mixed)] * 2


def test_include_invalid_on_the_command_line(mixed: Path, tmp_path: Path):
    runner.invoke(app, ["players", str(mixed), "-o", str(tmp_path / "valid.csv")])
    runner.invoke(app, ["players", str(mixed), "--include-invalid", "-o", str(tmp_path / "all.csv")])
    runner.invoke(app, ["ratings", str(mixed), "--include-invalid", "-o", str(tmp_path / "rated.csv")])
    assert pl.read_csv(tmp_path / "valid.csv")["matches"].to_list() == [4, 4]
    assert pl.read_csv(tmp_path / "all.csv")["matches"].to_list() == [4 + _finished_invalid(mixed)] * 2
    assert pl.read_csv(tmp_path / "rated.csv")["rated_matches"].to_list() == [4 + _finished_invalid(mixed)] * 2


# -- 7. simulated logs do not collide --------------------------------------------------------------------

def _simulate(*args: str):
    result = runner.invoke(app, ["simulate", "--quiet", *args])
    assert result.exit_code == 0, result.output
    return result


def test_default_match_ids_differ_by_seed_and_output_name(tmp_path: Path):
    _simulate("-n", "5", "-o", str(tmp_path / "games.jsonl"))
    _simulate("-n", "5", "--seed", "7", "-o", str(tmp_path / "games7.jsonl"))
    _simulate("-n", "5", "-o", str(tmp_path / "duel.jsonl"))
    violations, summary = validate_paths([str(tmp_path)])
    assert summary.matches == 15 and not [v for v in violations if v.code == "F005"]
    first = json.loads((tmp_path / "games7.jsonl").read_text(encoding="utf-8").splitlines()[0])["match"]
    assert re.fullmatch(r"s7-[0-9a-f]{4}-000001", first)
    assert first == f"{default_match_prefix(7, 'games7.jsonl')}000001"


def test_an_explicit_match_prefix_is_kept(tmp_path: Path):
    _simulate("-n", "2", "--match-prefix", "m", "-o", str(tmp_path / "a.jsonl"))
    assert json.loads((tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()[0])["match"] == "m000001"


def test_f005_names_where_the_match_first_started(tmp_path: Path):
    for name in ("a.jsonl", "b.jsonl"):
        _simulate("-n", "1", "--match-prefix", "m", "-o", str(tmp_path / name))
    violations, _ = validate_paths([str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")])
    [restarted] = [v for v in violations if v.code == "F005"]
    assert restarted.file.endswith("b.jsonl") and restarted.line == 1
    assert f"first at {tmp_path / 'a.jsonl'}:1" in restarted.message


def test_the_fault_list_is_not_read_as_a_log(tmp_path: Path):
    _simulate("-n", "4", "--faults", "1", "-o", str(tmp_path / "faulty.jsonl"))
    listing = tmp_path / "faulty.jsonl.faults.json"
    faults = json.loads(listing.read_text(encoding="utf-8"))
    assert faults and set(faults[0]) == {"match", "line", "code"}
    _, summary = validate_paths([str(tmp_path)])
    assert summary.files == 1
    _simulate("-n", "2", "--faults", "1", "-o", str(tmp_path / "x.jsonl"), "--faults-file", str(tmp_path / "f.txt"))
    assert [json.loads(line) for line in (tmp_path / "f.txt").read_text(encoding="utf-8").splitlines()]


# -- 8. SQL names and types --------------------------------------------------------------------------------

def test_no_column_is_an_sql_keyword_and_the_moves_ends_are_renamed(stats: Path):
    tables = open_tables(stats)
    for name, frame in tables.items():
        columns = frame.collect_schema().names()
        assert not RESERVED & set(columns), (name, RESERVED & set(columns))
    moves = tables["moves"].collect_schema().names()
    assert {"left_end", "right_end", "placed_end", "up_end", "down_end"} <= set(moves)


def test_computed_and_claimed_columns_share_their_types(stats: Path):
    schemas = {name: frame.collect_schema() for name, frame in open_tables(stats).items()}
    assert schemas["moves"]["points"] == schemas["moves"]["claimed_points"] == pl.Int64
    assert schemas["players"]["points"] == schemas["players"]["claimed_points"] == pl.Int64
    assert schemas["matches"]["scores"] == schemas["matches"]["claimed_scores"] == pl.List(pl.Int64)
    assert schemas["moves"]["tile"] == pl.List(pl.Int8)
    assert schemas["moves"]["faults"] == pl.List(pl.String)


def test_tiles_are_two_small_integers_low_first_and_faults_a_list(stats: Path):
    moves = open_tables(stats)["moves"]
    tiles = moves.filter(pl.col("action") != "pass").select("tile").collect()["tile"].to_list()
    assert tiles and all(len(tile) == 2 and 0 <= tile[0] <= tile[1] <= 6 for tile in tiles)
    passes = moves.filter(pl.col("action") == "pass").select("tile").collect()["tile"]
    assert passes.null_count() == passes.len()
    faults = moves.filter(pl.col("faults").is_not_null()).select("faults").collect()["faults"].to_list()
    assert faults and all(isinstance(codes, list) and all(re.fullmatch(r"[A-Z]\d{3}", c) for c in codes)
                          for codes in faults)


def test_file_is_as_given_and_path_absolute(tmp_path: Path):
    os.chdir(ROOT)
    write_tables([os.path.relpath(CLEAN, ROOT)], tmp_path / "stats")
    for name, frame in open_tables(tmp_path / "stats").items():
        rows = frame.select("file", "path").unique().collect().rows()
        if name != "violations":
            assert rows == [(os.path.relpath(CLEAN, ROOT), str(CLEAN))], name


def test_sql_over_the_renamed_columns_works(stats: Path):
    result = runner.invoke(app, ["query", str(stats), "SELECT left_end, right_end, placed_end, tile[1] AS low "
                                 "FROM moves WHERE action = 'play' LIMIT 3", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "left_end,right_end,placed_end,low"


def test_the_manifest_names_the_table_format_and_what_changed(stats: Path):
    manifest = json.loads((stats / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["table_format"] == TABLE_FORMAT == 5
    assert "left_end" in manifest["changes"]["3"] and "path" in manifest["changes"]["3"]
    assert "forfeit" in manifest["changes"]["4"] and "follows" in manifest["changes"]["4"]
    assert pq.read_schema(stats / "moves" / "part-00000.parquet").field("tile").type.value_type.bit_width == 8


# -- 9. per-seat results; error hints that work ----------------------------------------------------------------

def test_one_bot_in_every_seat_gets_per_seat_results(tmp_path: Path):
    result = runner.invoke(app, ["simulate", "-n", "20", "--bots", "random", "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 0, result.output
    assert "seat 1" in result.stdout and "seat 2" in result.stdout
    assert "100.0%" not in result.stdout


def test_two_bots_still_get_a_row_each(tmp_path: Path):
    result = runner.invoke(app, ["simulate", "-n", "10", "--bots", "greedy,random", "-o", str(tmp_path / "x.jsonl")])
    assert "seat 1" not in result.stdout and "greedy" in result.stdout


def _suggested(output: str) -> list[str]:
    """The drawlog command the message suggests (between backticks), as arguments."""
    [command] = re.findall(r"`drawlog ([^`]+)`", " ".join(output.split()))
    return shlex.split(command)


def test_an_old_folder_suggests_a_command_that_works(tmp_path: Path):
    out = tmp_path / "old"
    write_tables([str(CLEAN)], out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["table_format"] = 2
    (out / MANIFEST).write_text(json.dumps(manifest))
    result = runner.invoke(app, ["query", str(out), "SELECT 1 AS x"])
    assert result.exit_code == 2
    again = runner.invoke(app, _suggested(result.output))
    assert again.exit_code == 0, again.output
    assert runner.invoke(app, ["query", str(out), "SELECT 1 AS x"]).exit_code == 0


def test_a_table_file_given_for_the_folder_names_the_folder(stats: Path):
    result = runner.invoke(app, ["query", str(stats / "moves" / "part-00000.parquet"), "SELECT 1 AS x"])
    assert result.exit_code == 2
    assert "drawlog stats" not in result.output and "give the folder" in result.output


def test_a_foreign_folder_does_not_suggest_writing_into_it(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["players", str(tmp_path)])
    assert result.exit_code == 2 and "--out" in result.output
    assert f"--out {tmp_path}" not in " ".join(result.output.split())


def test_a_failed_query_is_one_readable_line_naming_the_tables(stats: Path):
    result = runner.invoke(app, ["query", str(stats), "SELECT left FROM moves"])
    assert result.exit_code == 2
    message = " ".join(result.output.split("Error:", 1)[1].split())
    assert "Resolved plan" not in message and "\\n" not in message and "moves" in message


def test_the_audit_s_query_hint_runs(tmp_path: Path):
    result = _audit(tmp_path, log=CLEAN)
    assert runner.invoke(app, _suggested(result.output.split("tables in", 1)[1])).exit_code == 0
