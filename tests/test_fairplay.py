"""The fair-play signal (z-score, verdict) and the analysis's bots (expert, peeker)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.analysis.bots import ANALYSIS_BOTS, EXPERT_SAMPLES, ExpertBot, PeekerBot
from drawlog.analysis.decisions import Decision
from drawlog.analysis.fairplay import (
    COST_EDGES,
    HONEST_RATES,
    LOOK_CLOSER,
    MIN_PEEK_DECISIONS,
    MOST_OPTIONS,
    STRONG_SIGNAL,
    binomial_z,
    cost_bucket,
    honest_rate,
    peek_cost,
    signal,
    verdict,
    weighted_z,
)
from drawlog.analysis.summary import player_figures, player_row
from drawlog.analysis.walk import analyze_paths
from drawlog.cli import app
from drawlog.play.bot_names import ANALYSIS_BOT_NAMES, BOT_NAMES
from drawlog.play.bots import BOTS
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

runner = CliRunner()
ENV = {"COLUMNS": "200", "NO_COLOR": "1"}
TABLE = {**BOTS, **ANALYSIS_BOTS}


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def decision(variant: str = "draw", peek: bool = True, peeked: bool = False,
             actions: tuple[tuple[str, float, float], ...] = (("a", 4.0, 0.0), ("b", 1.0, 9.0))) -> Decision:
    best = max(actions, key=lambda action: action[1], default=("a", 0.0, 0.0))
    return Decision(file="f", match="m", round=1, ply=1, line=1, player="p1", variant=variant, options=len(actions),
                    action="b" if peeked else "a", best=best[0], omniscient_best="b", equity=0.0,
                    best_equity=best[1], error=0.0, error_se=0.0, error_class="best", omniscient_equity=0.0,
                    omniscient_best_equity=9.0, samples=16, peek_decision=peek, peeked=peeked, swing=0.0,
                    actions=actions)


# -- the z-score and the verdict -----------------------------------------------------


def test_binomial_z_values() -> None:
    assert binomial_z(60, 100, 0.5) == pytest.approx(2.0)
    assert binomial_z(30, 100, 0.3) == 0.0
    assert binomial_z(10, 100, 0.3) == pytest.approx(-20 / math.sqrt(21))
    assert binomial_z(0, 0, 0.3) == 0.0  # no peek decisions: no evidence either way


def test_weighted_z_is_the_binomial_one_when_every_rate_is_the_same() -> None:
    assert weighted_z(7, 10 * 0.2, 10 * 0.2 * 0.8) == pytest.approx(binomial_z(7, 10, 0.2)) == pytest.approx(
        5 / math.sqrt(1.6))


def test_verdicts_at_the_thresholds() -> None:
    assert verdict(99.0, MIN_PEEK_DECISIONS - 1) == f"too few decisions ({MIN_PEEK_DECISIONS - 1})"
    assert verdict(STRONG_SIGNAL, MIN_PEEK_DECISIONS) == "strong signal"
    assert verdict(math.nextafter(STRONG_SIGNAL, 0), 500) == "look closer"
    assert verdict(LOOK_CLOSER, 500) == "look closer"
    assert verdict(math.nextafter(LOOK_CLOSER, 0), 500) == "no signal"
    assert verdict(-4.0, 500) == "no signal"


def test_peek_cost_is_what_the_cheapest_omniscient_best_action_gives_up() -> None:
    assert peek_cost(decision()) == 3.0
    # two omniscient-best actions: the cheaper one counts
    tied = decision(actions=(("a", 4.0, 0.0), ("b", 1.0, 9.0), ("c", 3.5, 9.0)))
    assert peek_cost(tied) == 0.5
    assert peek_cost(decision(actions=())) == 0.0


def test_honest_rate_by_actions_and_cost() -> None:
    assert [cost_bucket(cost) for cost in (0.0, 0.99, 1.0, 2.9, 3.0, 5.99, 6.0, 40.0)] == [0, 0, 1, 1, 2, 2, 3, 3]
    for rates in HONEST_RATES.values():
        assert len(rates) == MOST_OPTIONS - 1
        assert all(len(row) == len(COST_EDGES) + 1 and all(0 < rate < 1 for rate in row) for row in rates)
    assert honest_rate("all-fives", 2, 7.5) == HONEST_RATES["all-fives"][0][3]
    assert honest_rate("draw", 3, 0.5) == HONEST_RATES["draw"][1][0]
    assert honest_rate("draw", 9, 1.5) == honest_rate("draw", MOST_OPTIONS, 1.5) == HONEST_RATES["draw"][-1][1]


def test_signal_sums_the_honest_rates_of_the_peek_decisions_only() -> None:
    p = honest_rate("draw", 2, 3.0)
    decisions = [decision(peeked=True)] * 3 + [decision()] * 2 + [decision(peek=False)] * 5
    found = signal(decisions)
    assert (found.peek_decisions, found.peeks) == (5, 3)
    assert found.expected == pytest.approx(5 * p) and found.variance == pytest.approx(5 * p * (1 - p))
    assert found.z == pytest.approx(binomial_z(3, 5, p))
    assert found.verdict == "too few decisions (5)"


def test_player_rows_carry_the_z_and_the_verdict() -> None:
    rows = [player_row(figures) for figures in player_figures([decision(peeked=True)] * MIN_PEEK_DECISIONS)]
    assert rows[0]["peek_z"] == pytest.approx(binomial_z(MIN_PEEK_DECISIONS, MIN_PEEK_DECISIONS,
                                                         honest_rate("draw", 2, 3.0)))
    assert rows[0]["verdict"] == "strong signal"
    none = player_row(player_figures([decision(peek=False)])[0])
    assert none["peek_z"] is None and none["verdict"] == "too few decisions (0)"


# -- the bots --------------------------------------------------------------------------


def test_bot_names_agree_with_the_bots() -> None:
    assert tuple(ANALYSIS_BOTS) == ANALYSIS_BOT_NAMES
    assert not set(ANALYSIS_BOT_NAMES) & set(BOT_NAMES)
    assert ExpertBot().samples == PeekerBot().samples == EXPERT_SAMPLES


def simulated(tmp_path: Path, variant: str, bots: list[str], matches: int, seed: int, players: int = 2) -> Path:
    options = SimulationOptions(players=players, bots=bots, variant=variant, bot_table=TABLE, match_prefix=f"x{seed}-")
    path = tmp_path / f"{variant}-{'-'.join(bots)}-{seed}.jsonl"
    with open(path, "wb") as handle:
        for events in Simulator(seed, options).matches(matches):
            handle.writelines(encode_events(events))
    return path


@pytest.mark.parametrize("variant", ["draw", "all-fives"])
@pytest.mark.parametrize("players", [2, 3])
def test_the_bots_play_legal_games(tmp_path: Path, variant: str, players: int) -> None:
    path = simulated(tmp_path, variant, ["peeker", "expert", "tactician"], 2, 11, players)
    result = cli("validate", path)
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output and "2 matches (2 valid)" in result.output


def test_the_peeker_takes_the_omniscient_best_action_at_every_decision(tmp_path: Path) -> None:
    path = simulated(tmp_path, "draw", ["peeker", "greedy"], 1, 5)
    [analysis] = analyze_paths([str(path)], 8, 0)
    peeker = [d for d in analysis.decisions if d.player == "p1"]  # type: ignore[union-attr]
    # the analysis's omniscient equity is the peeker's own rollout on the true deal (the stock order is logged)
    assert peeker and all(d.omniscient_equity == d.omniscient_best_equity for d in peeker)


def signals(tmp_path: Path, variant: str, honest: str, matches: int, seed: int) -> dict[str, tuple[float, str]]:
    """Peeker against ``honest``: each bot's z and verdict."""
    path = simulated(tmp_path, variant, ["peeker", honest], matches, seed)
    decisions = [d for item in analyze_paths([str(path)], 16, seed) for d in item.decisions]  # type: ignore[union-attr]
    names = {"p1": "peeker", "p2": honest}
    return {names[figures.player]: (figures.signal.z, figures.signal.verdict) for figures in player_figures(decisions)}


@pytest.mark.parametrize(("variant", "honest", "seed"), [
    ("draw", "greedy", 1), ("draw", "tactician", 2), ("draw", "expert", 3), ("all-fives", "expert", 4),
    ("all-fives", "tactician", 5)])
def test_the_peeker_is_flagged_and_the_honest_bots_are_not(tmp_path: Path, variant: str, honest: str,
                                                            seed: int) -> None:
    found = signals(tmp_path, variant, honest, 3, seed)
    z, said = found["peeker"]
    assert z >= STRONG_SIGNAL and said == "strong signal"
    z, said = found[honest]
    assert z < LOOK_CLOSER and said == "no signal"


# -- the command line --------------------------------------------------------------------


def test_simulate_with_the_peeker_from_the_command_line(tmp_path: Path) -> None:
    log = tmp_path / "peek.jsonl"
    result = cli("simulate", "-n", "2", "--bots", "peeker,expert", "--seed", "3", "-o", log, "--quiet")
    assert result.exit_code == 0, result.output
    starts = [json.loads(line) for line in log.read_text().splitlines() if '"match_start"' in line]
    assert [start["meta"]["bots"] for start in starts] == [["peeker", "expert"]] * 2
    assert cli("validate", log).exit_code == 0
    again = tmp_path / "again.jsonl"
    cli("simulate", "-n", "2", "--bots", "peeker,expert", "--seed", "3", "-o", again, "--quiet",
        "--match-prefix", "s3-")
    cli("simulate", "-n", "2", "--bots", "peeker,expert", "--seed", "3", "-o", log, "--quiet", "--match-prefix", "s3-")
    assert again.read_bytes() == log.read_bytes()  # the same seed, the same bytes


def test_an_unknown_bot_names_every_bot(tmp_path: Path) -> None:
    result = cli("simulate", "-n", "1", "--bots", "peaker", "-o", tmp_path / "x.jsonl")
    assert result.exit_code == 2
    assert "unknown bot peaker" in result.output
    for name in (*BOT_NAMES, *ANALYSIS_BOT_NAMES):
        assert name in result.output


def test_analyze_text_shows_z_and_verdict(tmp_path: Path) -> None:
    path = simulated(tmp_path, "draw", ["peeker", "random"], 2, 8)
    result = cli("analyze", path, "--samples", "8")
    assert result.exit_code == 0, result.output
    head = next(line for line in result.output.splitlines() if line.startswith("player"))
    assert head.split()[9:13] == ["peek", "rate", "peek", "z"] and head.split()[-1] == "verdict"
    p1 = next(line for line in result.output.splitlines() if line.startswith("p1 "))
    assert p1.endswith("strong signal")
