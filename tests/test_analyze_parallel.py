"""``drawlog analyze --jobs N`` and ``--cluster``, ``drawlog.analyze()``, and the fast rollout against its reference.

Parallel runs and the Python API must give the tables one process writes,
frame for frame; the rollout's one-loop play-out (``finish``) and its All Fives
choice must make the moves of the plain step-by-step policy. These tests run
on both engines (compiled and pure Python) in CI, with the same pinned figures.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from shared_logs import SAMPLES
from test_analyze import RULES, apply_move, random_move, random_round
from typer.testing import CliRunner

import drawlog
from drawlog.analysis.actions import mirror_shape
from drawlog.analysis.parallel import analyze_in_parallel, match_weights, plan_parts
from drawlog.analysis.rollout import Rollout, count_after
from drawlog.cli import app
from drawlog.engine.line import DOWN, LEFT, RIGHT, UP
from drawlog.engine.tableau import Tableau, scored
from drawlog.engine.tiles import PIPS, TILES, members
from drawlog.errors import InputError
from drawlog.log.reader import Source, expand_paths

runner = CliRunner()
TABLES = ("decisions", "analysis_players", "luck")
#: Logs with several matches, stops at errors (every-violation), interleaved matches and unfinished ones.
LOGS = [SAMPLES / name for name in ("tournament-2p.jsonl", "interleaved.jsonl", "every-violation.jsonl",
                                    "all-fives.jsonl")]


def analyze_to(out: Path, *args: object) -> str:
    """Run ``drawlog analyze`` at 1 deal a decision with ``--out out`` (json output); its standard output."""
    result = runner.invoke(app, ["analyze", *map(str, args), "--samples", "1", "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.stdout


def tables(folder: Path) -> dict[str, pl.DataFrame]:
    return {name: pl.read_parquet(folder / name) for name in TABLES}


def assert_same_tables(one: dict[str, pl.DataFrame], other: dict[str, pl.DataFrame]) -> None:
    assert set(one) == set(other) == set(TABLES)
    for name in TABLES:
        assert_frame_equal(one[name], other[name])


# -- --jobs and --cluster -----------------------------------------------------------


def test_jobs_give_the_tables_of_one_process(tmp_path: Path) -> None:
    single = analyze_to(tmp_path / "one", *LOGS)
    double = analyze_to(tmp_path / "two", *LOGS, "--jobs", "2")
    assert double == single  # the same document: matches, stops and decisions in the same order
    assert_same_tables(tables(tmp_path / "one"), tables(tmp_path / "two"))
    decisions = tables(tmp_path / "one")["decisions"]
    assert decisions["file"].n_unique() == len(LOGS) and decisions.height > 500


def test_the_order_is_one_process_order_when_matches_end_out_of_start_order(tmp_path: Path) -> None:
    """Interleaved matches end in another order than they start, some never: each group's results are put back."""
    log = SAMPLES / "interleaved.jsonl"
    inputs = list(expand_paths([str(log)]))
    parts = plan_parts(inputs, 4, 2, 0)
    assert len(parts) == len(match_weights(inputs[0])) == 4  # one match a part: the hardest case to put back
    one = [(a.match, a.finished, a.stop) for a in analyze_in_parallel([str(log)], 2, 0) if not isinstance(a, InputError)]
    four = [(a.match, a.finished, a.stop) for a in analyze_in_parallel([str(log)], 2, 0, jobs=4)
            if not isinstance(a, InputError)]
    assert four == one and len(one) == 4


def test_jobs_with_unreadable_inputs_and_a_match(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"not gzip at all")
    args = [LOGS[0], missing, broken, LOGS[1]]
    single = runner.invoke(app, ["analyze", *map(str, args), "--samples", "1"])
    double = runner.invoke(app, ["analyze", *map(str, args), "--samples", "1", "-j", "2"])
    assert (double.exit_code, double.stdout, double.stderr) == (single.exit_code, single.stdout, single.stderr)
    assert single.exit_code == 0 and "missing.jsonl" in single.stderr and "broken.jsonl.gz" in single.stderr
    only = runner.invoke(app, ["analyze", str(LOGS[0]), "--samples", "1", "--match", "t2-000002", "-j", "2"])
    assert only.exit_code == 0 and only.stdout.startswith("1 match, ")
    assert only.stdout == runner.invoke(app, ["analyze", str(LOGS[0]), "--samples", "1", "--match",
                                              "t2-000002"]).stdout


def test_jobs_read_standard_input_in_one_process() -> None:
    log = LOGS[0]
    piped = runner.invoke(app, ["analyze", "-", "--samples", "1", "-j", "2"], input=log.read_bytes())
    assert piped.exit_code == 0
    assert piped.stdout == runner.invoke(app, ["analyze", "-", "--samples", "1"], input=log.read_bytes()).stdout


def test_jobs_and_cluster_are_one_or_the_other() -> None:
    result = runner.invoke(app, ["analyze", str(LOGS[0]), "--jobs", "2", "--cluster", "local:2"])
    assert result.exit_code == 2 and "give --jobs or --cluster, not both" in result.output
    result = runner.invoke(app, ["analyze", str(LOGS[0]), "--cluster", "nowhere:1"])
    assert result.exit_code == 2 and "give local:N or a scheduler's address" in result.output


def test_cluster_gives_the_tables_of_one_process(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    logs = LOGS[:2]
    single = analyze_to(tmp_path / "one", *logs)
    clustered = analyze_to(tmp_path / "cluster", *logs, "--cluster", "local:2")
    assert clustered == single
    assert_same_tables(tables(tmp_path / "one"), tables(tmp_path / "cluster"))


# -- the Python API -------------------------------------------------------------------


def test_the_api_returns_the_frames_the_command_writes(tmp_path: Path) -> None:
    analyze_to(tmp_path / "cli", *LOGS[:2], "--seed", "7")
    frames = drawlog.analyze([str(log) for log in LOGS[:2]], samples=1, seed=7)
    assert isinstance(frames["decisions"], pl.DataFrame)
    assert_same_tables(frames, tables(tmp_path / "cli"))
    in_two = drawlog.analyze(LOGS[:2], samples=1, seed=7, jobs=2)
    assert_same_tables(in_two, frames)
    one = drawlog.analyze(LOGS[0], samples=1, seed=7, match="t2-000001")
    assert one["decisions"]["match"].unique().to_list() == ["t2-000001"]
    assert_frame_equal(one["decisions"], frames["decisions"].filter(pl.col("match") == "t2-000001"))


def test_the_api_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing.jsonl"):
        drawlog.analyze(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="no match 'nope'"):
        drawlog.analyze(LOGS[0], samples=1, match="nope")
    with pytest.raises(ValueError, match="samples must be 1 or more"):
        drawlog.analyze(LOGS[0], samples=0)
    assert "analyze" in dir(drawlog) and drawlog.analyze.__doc__


def test_the_api_takes_a_folder(tmp_path: Path) -> None:
    shutil.copy(LOGS[0], tmp_path / "a.jsonl")
    frames = drawlog.analyze(tmp_path, samples=1)
    assert frames["decisions"]["file"].str.ends_with("a.jsonl").all()
    assert frames["analysis_players"]["player"].to_list() == ["p1", "p2"]


# -- the same figures on both engines -------------------------------------------------


def test_pinned_figures() -> None:
    """Figures worked out once: the compiled and the pure engine must both give them (CI runs both)."""
    frames = drawlog.analyze(LOGS[0], samples=8, seed=3, match="t2-000001")
    decisions = frames["decisions"]
    assert decisions.height == 116
    first = decisions.row(0, named=True)
    assert (first["round"], first["ply"], first["action"], first["best"]) == PINNED_FIRST[:4]
    assert first["equity"] == pytest.approx(PINNED_FIRST[4]) and first["best_equity"] == pytest.approx(PINNED_FIRST[5])
    assert round(decisions["error"].sum(), 6) == pytest.approx(PINNED_ERROR_SUM)
    rng = random.Random(11)
    points = []
    for fives in (False, True):
        for _ in range(20):
            points.append(Rollout.from_round(random_round(rng, fives, 2, 9 if fives else 7, 2)).finish())
    assert sum(sum(each) for each in points) == PINNED_POINTS


PINNED_FIRST = (1, 1, "[6|6] left", "[0|2] left", -6.625, 16.375)
PINNED_ERROR_SUM = 505.5
PINNED_POINTS = 1512


# -- the fast rollout against the step-by-step policy ----------------------------------


def reference_fives_choice(tableau: Tableau, playable: int) -> tuple[int, str]:
    """All Fives' policy written plainly: every (tile, end), the best key, ties of ends by the ends left."""
    options: list[tuple[int, str]] = []
    for tile in members(playable):
        if tableau.left is None:
            options.append((tile, LEFT))
            continue
        for end in (LEFT, RIGHT, UP, DOWN):
            if tableau.value(end) in TILES[tile]:
                options.append((tile, end))
    best_key = max((scored(count_after(tableau, tile, end)), PIPS[tile], -tile) for tile, end in options)
    tied = [(tile, end) for tile, end in options
            if (scored(count_after(tableau, tile, end)), PIPS[tile], -tile) == best_key]
    chosen = tied[0]
    for tile, end in tied[1:]:
        if mirror_shape(placed(tableau, *chosen)) < mirror_shape(placed(tableau, tile, end)):
            chosen = (tile, end)
    return chosen


def placed(tableau: Tableau, tile: int, end: str) -> Tableau:
    after = tableau.copy()
    after.place_tile(TILES[tile], end)
    return after


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), rules=RULES, moves=st.integers(0, 30))
def test_finish_makes_the_moves_of_the_step_by_step_policy(seed: int, rules: tuple[bool, int, int, int],
                                                           moves: int) -> None:
    rng = random.Random(seed)
    fives, players, hand, reserve = rules
    state = random_round(rng, fives, players, hand, reserve)
    for _ in range(moves):
        if state.is_over:
            return
        apply_move(state, random_move(state, rng))
    fast = Rollout.from_round(state)
    slow = fast.clone()
    points = fast.finish()
    while slow.reason is None:
        if slow.fives:
            playable = slow.hands[slow.turn] & slow.line.fitting()
            if playable:
                assert isinstance(slow.line, Tableau)
                assert slow.policy_move() == reference_fives_choice(slow.line, playable)
        slow.step()
    assert points == slow.points()
    assert (fast.reason, fast.winner, fast.turn, fast.passed, fast.moves) == \
        (slow.reason, slow.winner, slow.turn, slow.passed, slow.moves)
    assert fast.hands == slow.hands and fast.stock == slow.stock
    assert (fast.line.left, fast.line.right, fast.line.length) == (slow.line.left, slow.line.right, slow.line.length)


def test_part_plan_keeps_files_whole_when_it_cannot_scan_them(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00garbage")
    inputs = list(expand_paths([str(broken), str(LOGS[0])]))
    parts = plan_parts(inputs, 2, 1, 0)
    assert parts[0].index == 0 and parts[0].matches is None
    assert [part.matches for part in parts[1:]] == [("t2-000001",), ("t2-000002",), ("t2-000003",)]
    assert isinstance(inputs[1], Source)
