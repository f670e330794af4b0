"""Issue 24 item 4: simulate --names / --pool, rosters of named players drawn into matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.check.validator import validate_paths
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, check_options, pool_names

runner = CliRunner()


def _starts(path: Path) -> list[dict]:
    return [line for line in map(json.loads, path.read_text().splitlines()) if line["type"] == "match_start"]


def test_names_are_drawn_reproducibly_and_each_keeps_one_bot(tmp_path: Path):
    logs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        logs.append(tmp_path / name / "league.jsonl")
        result = runner.invoke(app, ["simulate", "-n", "40", "--players", "mixed", "--names", "ann,bob,cat,dan,eve",
                                     "--bots", "greedy,random", "--seed", "4", "-o", str(logs[-1])])
        assert result.exit_code == 0, result.output
    assert logs[0].read_bytes() == logs[1].read_bytes()
    starts = _starts(logs[0])
    bot_of: dict[str, set[str]] = {}
    for start in starts:
        for player, bot in zip(start["players"], start["meta"]["bots"]):
            bot_of.setdefault(player, set()).add(bot)
    assert bot_of == {"ann": {"greedy"}, "bob": {"random"}, "cat": {"greedy"}, "dan": {"random"},
                      "eve": {"greedy"}}  # --bots dealt round the roster
    assert {len(start["players"]) for start in starts} == {2, 3, 4}
    assert len({tuple(start["players"]) for start in starts}) > 10  # drawn, not always the same table
    violations, summary = validate_paths([str(logs[0])])
    assert violations == [] and summary.valid_matches == 40


def test_the_results_table_is_per_player(tmp_path: Path):
    result = runner.invoke(app, ["simulate", "-n", "30", "--names", "ann,bob,cat", "--bots", "tactician,random",
                                 "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 0, result.output
    assert "player (bot)" in result.output
    for row in ("ann (tactician)", "bob (random)", "cat (tactician)"):
        assert row in result.output


def test_pool_names():
    assert pool_names(3) == ["ann", "bob", "cat"]
    assert pool_names(28)[-3:] == ["zoe", "ann2", "bob2"]
    assert len(set(pool_names(100))) == 100


def test_pool_draws_generated_names():
    result = runner.invoke(app, ["simulate", "-n", "5", "--pool", "6", "--players", "3", "-q", "--seed", "2"])
    assert result.exit_code == 0
    starts = [json.loads(line) for line in result.stdout.splitlines() if '"match_start"' in line]
    assert all(len(start["players"]) == 3 and set(start["players"]) <= set(pool_names(6)) for start in starts)


@pytest.mark.parametrize(("args", "message"), [
    (["--pool", "3", "--players", "4"], "a roster of 3 cannot fill a table of 4"),
    (["--names", "ann,bob,cat", "--players", "mixed"], "a roster of 3 cannot fill a table of 4"),
    (["--names", "ann,bob,ann"], "the roster names 'ann' twice"),
    (["--names", "ann,bob", "--pool", "4"], "give --names or --pool, not both"),
])
def test_a_roster_that_cannot_fill_the_tables_is_a_usage_error(args: list[str], message: str):
    result = runner.invoke(app, ["simulate", "-n", "2", "-q", *args])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_the_roster_in_the_library():
    with pytest.raises(ValueError, match="cannot fill a table of 2"):
        check_options(SimulationOptions(roster=["ann"]))
    simulator = Simulator(1, SimulationOptions(roster=["ann", "bob", "cat"], bots=("greedy", "random", "tactician")))
    simulator.match("x")
    assert simulator.outcome is not None
    assert all(label in {"ann (greedy)", "bob (random)", "cat (tactician)"} for label in simulator.outcome.bots)
