"""`drawlog simulate`: reproducible logs, every option validates clean, faults listed where they are."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.check.validator import validate_paths
from drawlog.cli import app
from drawlog.play.faults import FIVES_KINDS, KINDS
from drawlog.play.recording import record
from drawlog.play.simulate import SimulationOptions, Simulator

runner = CliRunner()


def simulate(*args: str):
    result = runner.invoke(app, ["simulate", "--quiet", *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("name", ["log.jsonl", "log.jsonl.gz", "log.jsonl.zst"])
def test_same_seed_same_bytes(tmp_path: Path, name: str):
    first, second = tmp_path / "a" / name, tmp_path / "b" / name
    first.parent.mkdir()
    second.parent.mkdir()
    for target in (first, second):
        simulate("-n", "5", "--players", "mixed", "--seed", "42", "--seq", "--timestamps", "-o", str(target))
    assert first.read_bytes() == second.read_bytes()
    other = tmp_path / name
    simulate("-n", "5", "--players", "mixed", "--seed", "43", "--seq", "--timestamps", "-o", str(other))
    assert other.read_bytes() != first.read_bytes()


def test_standard_output_is_the_log():
    result = runner.invoke(app, ["simulate", "-n", "2", "--seed", "3", "--quiet"])
    lines = result.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "match_start"
    assert json.loads(lines[-1])["type"] == "match_end"


def test_every_option_together_validates_clean(tmp_path: Path):
    target = tmp_path / "night.jsonl.gz"
    simulate("-n", "12", "--players", "mixed", "--bots", "tactician,greedy,random", "--seed", "9", "--seq",
             "--timestamps", "--reveal-hands", "--no-stock", "--tables", "4", "-o", str(target))
    violations, summary = validate_paths([str(target)])
    assert violations == []
    assert summary.matches == summary.valid_matches == 12
    lines = [json.loads(line) for line in gzip.decompress(target.read_bytes()).splitlines()]
    assert all("ts" in line and "seq" in line for line in lines)
    assert all("stock" not in line for line in lines if line["type"] == "round_start")
    ids = [line["match"] for line in lines]
    assert ids != sorted(ids), "four tables at once should interleave"


def test_injected_faults_are_first_violations_on_their_listed_lines(tmp_path: Path):
    target = tmp_path / "faulty.jsonl"
    simulate("-n", "80", "--players", "mixed", "--bots", "random,greedy,tactician", "--seed", "5", "--seq",
             "--faults", "1", "--tables", "2", "-o", str(target))
    listed = json.loads((tmp_path / "faulty.jsonl.faults.json").read_text())
    assert len(listed) >= 60
    violations, _ = validate_paths([str(target)])
    first: dict[str, tuple[int, str]] = {}
    for violation in violations:
        first.setdefault(violation.match, (violation.line, violation.code))
    assert first == {fault["match"]: (fault["line"], fault["code"]) for fault in listed}
    assert {fault["code"] for fault in listed} == set(KINDS)


def test_faults_to_standard_output_need_a_list_file():
    result = runner.invoke(app, ["simulate", "-n", "1", "--faults", "0.5"])
    assert result.exit_code == 2
    assert "--faults-file" in result.output


@pytest.mark.parametrize("bots", ["greedy,wizard", ","])
def test_unknown_bot_is_a_usage_error(bots: str):
    result = runner.invoke(app, ["simulate", "-n", "1", "--bots", bots])
    assert result.exit_code == 2


def test_greedy_beats_random_by_a_clear_margin(tmp_path: Path):
    with open(tmp_path / "duel.jsonl", "wb") as out:
        tally = record(Simulator(1, SimulationOptions(bots=("greedy", "random"))), 300, out)
    greedy, random_bot = tally.bots["greedy"], tally.bots["random"]
    assert greedy.matches == random_bot.matches == 300
    assert greedy.wins + random_bot.wins + greedy.drawn == 300
    assert greedy.win_share > random_bot.win_share + 0.5


def test_results_table_is_printed(tmp_path: Path):
    result = runner.invoke(app, ["simulate", "-n", "20", "--bots", "greedy,random", "--seed", "2",
                                 "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 0
    assert "win share" in result.stdout and "greedy" in result.stdout and "random" in result.stdout


def test_match_prefix_keeps_two_simulations_apart(tmp_path: Path):
    simulate("-n", "3", "--seed", "1", "-o", str(tmp_path / "a.jsonl"))
    simulate("-n", "3", "--seed", "2", "-o", str(tmp_path / "b.jsonl"), "--match-prefix", "b-")
    violations, summary = validate_paths([str(tmp_path)])
    assert violations == [] and summary.matches == 6
    first = json.loads((tmp_path / "b.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["match"] == "b-000001"


@pytest.mark.parametrize("listing", ["same", "-"])
def test_the_fault_list_cannot_take_the_log_s_place(tmp_path: Path, listing: str):
    log = tmp_path / "log.jsonl"
    result = runner.invoke(app, ["simulate", "-n", "3", "--faults", "1", "-o", str(log),
                                 "--faults-file", str(log) if listing == "same" else "-"])
    assert result.exit_code == 2 and "file of its own" in result.output
    assert not log.exists()


def test_all_fives_with_a_house_deal_validates_with_only_the_house_rules_warning(tmp_path: Path):
    target = tmp_path / "fives.jsonl"
    simulate("-n", "6", "--players", "mixed", "--variant", "all-fives", "--rules", "hand=5",
             "--bots", "tactician,greedy,random", "--seed", "4", "--seq", "--reveal-hands", "-o", str(target))
    violations, summary = validate_paths([str(target)])
    assert summary.errors == 0 and summary.valid_matches == 6
    assert {(violation.line, violation.code) for violation in violations} <= {
        (line, "W402") for line in range(1, summary.lines + 1)}
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    starts = [line for line in lines if line["type"] == "match_start"]
    assert all(start["variant"] == "all-fives" for start in starts)
    assert all(("rules" in start) == (len(start["players"]) < 4) for start in starts)
    assert all("points" in line for line in lines if line["type"] == "play")


def test_draw_house_rules_are_logged(tmp_path: Path):
    target = tmp_path / "house.jsonl"
    simulate("-n", "2", "--rules", "hand=5", "--rules", "reserve=3", "--seed", "1", "-o", str(target))
    start = json.loads(target.read_text().splitlines()[0])
    assert start["rules"] == {"hand": 5, "reserve": 3} and "variant" not in start
    violations, summary = validate_paths([str(target)])
    assert summary.errors == 0 and {violation.code for violation in violations} == {"W402"}


@pytest.mark.parametrize("rules", ["hand=x", "size=3", "hand", "hand=-1", "hand=0", "hand=10", "reserve=1"])
def test_bad_house_rules_are_a_one_line_usage_error(rules: str):
    result = runner.invoke(app, ["simulate", "-n", "1", "--players", "3", "--variant", "all-fives",
                                 "--rules", rules])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if "Error" in line or "--rules" in line]
    assert len(errors) == 1 and "--rules" in errors[0]


def test_unknown_variant_is_a_usage_error():
    result = runner.invoke(app, ["simulate", "-n", "1", "--variant", "cutthroat"])
    assert result.exit_code == 2


def test_all_fives_faults_are_first_violations_on_their_listed_lines(tmp_path: Path):
    target = tmp_path / "faulty.jsonl"
    simulate("-n", "40", "--players", "mixed", "--variant", "all-fives", "--bots", "random,greedy", "--seed", "6",
             "--seq", "--faults", "1", "--tables", "2", "-o", str(target))  # (v1.2's shorter matches: seed 5 drew no M211/M212)
    listed = json.loads((tmp_path / "faulty.jsonl.faults.json").read_text())
    assert len(listed) >= 30
    violations, _ = validate_paths([str(target)])
    first: dict[str, tuple[int, str]] = {}
    for violation in violations:
        first.setdefault(violation.match, (violation.line, violation.code))
    assert first == {fault["match"]: (fault["line"], fault["code"]) for fault in listed}
    assert {fault["code"] for fault in listed} <= set(FIVES_KINDS)
    assert {"M210", "M211", "M212", "R308"} <= {fault["code"] for fault in listed}


def test_all_fives_bots_rank_tactician_greedy_random(tmp_path: Path):
    with open(tmp_path / "duel.jsonl", "wb") as out:
        duel = record(Simulator(1, SimulationOptions(bots=("greedy", "random"), variant="all-fives")), 100, out)
        assert duel.bots["greedy"].win_share > duel.bots["random"].win_share + 0.5
        duel = record(Simulator(2, SimulationOptions(bots=("tactician", "greedy"), variant="all-fives")), 60, out)
        assert duel.bots["tactician"].win_share > duel.bots["greedy"].win_share


def test_matches_that_never_reach_the_target_are_a_one_line_error(tmp_path: Path):
    result = runner.invoke(app, ["simulate", "-n", "1", "--players", "3", "--variant", "all-fives",
                                 "--rules", "hand=2", "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2
    assert [line for line in result.output.splitlines() if line.startswith("Error")] == [
        line for line in result.output.splitlines() if line.strip()]
