"""How much of a mirror match's result is luck? (issue #22, "Measured: Luck")

Simulates mirror matches — the same bot in every seat, so no player is better
than another and every difference of results is luck and the bots' own noise —
with :mod:`drawlog.play.simulate` in this process, values their luck with
:mod:`drawlog.analysis.luck` (through :func:`drawlog.analysis.walk.analyze_paths`,
decisions not weighed), and reports, per game, over the per-player-per-match
totals:

* ``explained`` = 1 − var(result − luck) / var(result): the share of the
  results' variance that taking the luck out removes;
* ``r2``: R² of the least-squares line of result on luck (the share a best
  *scaled* luck would explain; ``explained`` ≤ ``r2``);
* ``sd_raw``, ``sd_adjusted``: the spread of results and of luck-adjusted
  results, and their ratio;

each with a bootstrap 95 % interval (matches resampled, since the players of a
match are not independent: in a 2-player match their figures are opposite).

**The bots.** Luck is valued with the analysis's rollout policy, so what it
takes out of a result is exact (up to sampling noise) only when the players
play that policy: ``--bot policy`` (a bot defined here, registered in the
simulator's bot list for this process) is that ceiling; ``greedy`` (heaviest
tile, most points now) is close to it but differs in ends and tie-breaks, and
every such difference is skill-or-noise that luck does not remove.

**Method choice on held-out data.** The one choice is ``K``, the rollouts per
luck valuation (``--luck-samples`` in the analysis; cost grows linearly with
it, noise falls as 1/√K). Each ``K`` of ``--candidates`` is tried on the
tuning seeds; the cheapest whose ``explained`` is within ``--tolerance`` of
the best tried is picked, and only the picked ``K`` is measured on the
held-out seeds — the figures reported.

Run ``python experiments/luck_mirror.py --help``; see ``experiments/README.md``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from drawlog.analysis.rollout import Rollout
from drawlog.analysis.walk import MatchAnalysis, analyze_paths
from drawlog.engine.rounds import Round
from drawlog.engine.tiles import TILES
from drawlog.play.bots import BOTS, DRAW, PASS, Action, Bot
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events


class PolicyBot(Bot):
    """Plays the analysis's rollout policy (:mod:`drawlog.analysis.rollout`): heaviest tile, most points now."""

    name = "policy"
    description = "the analysis's rollout policy"

    def choose(self, state: Round, seat: int, rng: random.Random) -> Action:
        move = Rollout.from_round(state).policy_move()
        if move.tile >= 0:
            return ("play", TILES[move.tile], move.end)
        return DRAW if move.tile == -1 else PASS


BOTS.setdefault(PolicyBot.name, PolicyBot)


@dataclass(frozen=True)
class Row:
    """One player's totals over one match."""

    match: str
    player: str
    result: float
    luck: float


def simulate(folder: Path, variant: str, bot: str, players: int, seed: int, matches: int) -> Path:
    """``matches`` mirror matches of simulation seed ``seed`` written to a log in ``folder``."""
    simulator = Simulator(seed, SimulationOptions(players=players, bots=(bot,), variant=variant,
                                                  match_prefix=f"{variant}-{seed}-"))
    path = folder / f"{variant}-{bot}-{players}p-seed{seed}.jsonl"
    with open(path, "wb") as handle:
        for events in simulator.matches(matches):
            handle.writelines(encode_events(events))
    return path


def rows_of(analyses: list[MatchAnalysis]) -> list[Row]:
    """Per player and match: the sum of round results and of their luck (settled rounds only)."""
    rows = []
    for analysis in analyses:
        settled = {result.round for result in analysis.results}
        for player in analysis.players:
            result = sum(r.result for r in analysis.results if r.player == player)
            luck = sum(v.value for v in analysis.luck if v.player == player and v.round in settled)
            rows.append(Row(analysis.match, player, result, luck))
    return rows


def _variance(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def figures(rows: list[Row]) -> dict[str, float]:
    """``explained``, ``r2``, ``sd_raw``, ``sd_adjusted`` and ``sd_ratio`` of ``rows``."""
    results = [row.result for row in rows]
    lucks = [row.luck for row in rows]
    adjusted = [row.result - row.luck for row in rows]
    var_result, var_luck = _variance(results), _variance(lucks)
    mean_r, mean_l = sum(results) / len(results), sum(lucks) / len(lucks)
    covariance = sum((r - mean_r) * (v - mean_l) for r, v in zip(results, lucks)) / (len(rows) - 1)
    sd_raw, sd_adjusted = math.sqrt(var_result), math.sqrt(_variance(adjusted))
    return {"explained": 1 - _variance(adjusted) / var_result,
            "r2": covariance ** 2 / (var_result * var_luck) if var_luck else 0.0,
            "slope": covariance / var_luck if var_luck else 0.0,
            "sd_raw": sd_raw, "sd_adjusted": sd_adjusted, "sd_ratio": sd_adjusted / sd_raw}


def bootstrap(rows: list[Row], resamples: int, seed: int) -> dict[str, tuple[float, float]]:
    """Percentile 95 % intervals of :func:`figures`, matches resampled with replacement."""
    by_match: dict[str, list[Row]] = {}
    for row in rows:
        by_match.setdefault(row.match, []).append(row)
    groups = list(by_match.values())
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {}
    for _ in range(resamples):
        sample = [row for _ in groups for row in rng.choice(groups)]
        for name, value in figures(sample).items():
            draws.setdefault(name, []).append(value)
    intervals = {}
    for name, values in draws.items():
        values.sort()
        intervals[name] = (values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1])
    return intervals


def measure(folder: Path, variant: str, bot: str, players: int, seeds: list[int], matches: int,
            luck_samples: int) -> tuple[list[Row], float]:
    """The rows of ``matches`` matches per seed, and the seconds the luck analysis took."""
    rows: list[Row] = []
    spent = 0.0
    for seed in seeds:
        path = simulate(folder, variant, bot, players, seed, matches)
        start = time.perf_counter()
        analyses = [item for item in analyze_paths([str(path)], luck_samples, 0, decisions=False)
                    if isinstance(item, MatchAnalysis)]
        spent += time.perf_counter() - start
        rows += rows_of(analyses)
    return rows, spent


def seeds_of(text: str) -> list[int]:
    """``1-3`` or ``1,2,5``."""
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(part) for part in text.split(",")]


def _line(name: str, value: dict[str, float], interval: dict[str, tuple[float, float]] | None = None) -> str:
    parts = []
    for key in ("explained", "r2", "sd_raw", "sd_adjusted", "sd_ratio"):
        text = f"{key} {value[key]:.2f}"
        if interval is not None:
            low, high = interval[key]
            text += f" [{low:.2f}, {high:.2f}]"
        parts.append(text)
    return f"  {name}: " + ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Run the experiment; print the figures and, with ``--json``, write them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="draw,all-fives", help="draw, all-fives or both (comma-separated)")
    parser.add_argument("--bot", default="greedy", help="the bot in every seat (policy, random, greedy, tactician)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--tune-seeds", default="1-3", help="simulation seeds for picking K (1-3 or 1,2,3)")
    parser.add_argument("--test-seeds", default="101-106", help="held-out simulation seeds for the figures")
    parser.add_argument("--tune-matches", type=int, default=8, help="matches per tuning seed")
    parser.add_argument("--test-matches", type=int, default=15, help="matches per held-out seed")
    parser.add_argument("--candidates", default="8,32", help="K values tried on the tuning seeds")
    parser.add_argument("--tolerance", type=float, default=0.02, help="explained-variance slack for a cheaper K")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    report: dict[str, object] = {"bot": args.bot, "players": args.players, "tune_seeds": args.tune_seeds,
                                 "test_seeds": args.test_seeds, "games": {}}
    with tempfile.TemporaryDirectory(prefix="luck-mirror-") as name:
        folder = Path(name)
        for variant in args.games.split(","):
            print(f"{variant}, {args.players} players, {args.bot} in every seat")
            tried = {}
            for k in (int(value) for value in args.candidates.split(",")):
                rows, spent = measure(folder, variant, args.bot, args.players, seeds_of(args.tune_seeds),
                                      args.tune_matches, k)
                tried[k] = {**figures(rows), "seconds": spent, "rows": len(rows)}
                print(_line(f"tuning K={k} ({len(rows)} player-matches, luck {spent:.1f} s)", tried[k]))
            best = max(value["explained"] for value in tried.values())
            chosen = min(k for k, value in tried.items() if value["explained"] >= best - args.tolerance)
            rows, spent = measure(folder, variant, args.bot, args.players, seeds_of(args.test_seeds),
                                  args.test_matches, chosen)
            held_out, interval = figures(rows), bootstrap(rows, args.bootstrap, 1)
            print(_line(f"held out, K={chosen} ({len(rows)} player-matches, luck {spent:.1f} s)", held_out,
                        interval))
            report["games"][variant] = {  # type: ignore[index]
                "tuning": tried, "chosen_k": chosen,
                "held_out": {**held_out, "rows": len(rows), "seconds": spent,
                             "intervals": {key: list(value) for key, value in interval.items()}}}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
