"""Rollout speed: moves per second per core of :mod:`drawlog.analysis.rollout`, against a bit-set baseline.

For each game, random round states are dealt once (fixed seed). Then, in one
process, two measurements are taken in turns, A B A B …:

* **rollout** — every state played out with the rollout policy
  (``Rollout.from_round(state).finish()``, a fresh copy each time), counting
  the moves made (plays, draws, passes);
* **baseline** — the same number of legal-move bit-set computations
  (``hand & line.fitting()``, the least a move can cost), and nothing else.

The ratio of a pair is baseline time ÷ rollout time for the same number of moves
(the share of the bare legal-move loop's speed the rollout keeps); the report
is the median of the pairs, with their range, and the rollout's moves per second.

    python bench/bench_rollout.py                 # 2,000 rounds per game, 7 pairs
    python bench/bench_rollout.py --rounds 5000 --pairs 9 --json bench/results/rollout.json
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time

from drawlog.analysis.rollout import Rollout
from drawlog.engine.allfives import FivesRound
from drawlog.engine.rounds import Round


def deals(fives: bool, rounds: int, seed: int) -> list[Round]:
    """``rounds`` fresh 2-player deals (Draw: 7 tiles each; All Fives: 9), stock in a known order."""
    rng = random.Random(seed)
    states: list[Round] = []
    for _ in range(rounds):
        tiles = list(range(28))
        rng.shuffle(tiles)
        hand = 9 if fives else 7
        hands = [sum(1 << t for t in tiles[:hand]), sum(1 << t for t in tiles[hand:2 * hand])]
        order = tiles[2 * hand:]
        stock = sum(1 << t for t in order)
        if fives:
            states.append(FivesRound(("a", "b"), 0, hands, stock, order, 1, 0))
        else:
            states.append(Round(("a", "b"), 0, hands, stock, order, 1, 2))
    return states


def run_rollouts(states: list[Round]) -> tuple[float, int]:
    """Seconds to play every state out, and the moves made."""
    start = time.perf_counter()
    moves = 0
    for state in states:
        game = Rollout.from_round(state)
        game.finish()
        moves += game.moves
    return time.perf_counter() - start, moves


def run_baseline(states: list[Round], moves: int) -> float:
    """Seconds for ``moves`` legal-move bit-set computations (``hand & line.fitting()``) on the states' lines."""
    lines = [Rollout.from_round(state) for state in states]
    per_state = max(1, moves // len(lines))
    start = time.perf_counter()
    found = 0
    for game in lines:
        hands, line = game.hands, game.line
        for step in range(per_state):
            found |= hands[step & 1] & line.fitting()
    return time.perf_counter() - start


def measure(fives: bool, rounds: int, pairs: int, seed: int) -> dict[str, object]:
    """The A B A B pairs for one game; the median ratio and moves per second."""
    states = deals(fives, rounds, seed)
    ratios, speeds = [], []
    for _ in range(pairs):
        gc.collect()
        seconds, moves = run_rollouts(states)
        gc.collect()
        baseline = run_baseline(states, moves)
        ratios.append(baseline / seconds)
        speeds.append(moves / seconds)
    return {"game": "all-fives" if fives else "draw", "rounds": rounds, "moves_per_round": moves / rounds,
            "rollout_moves_per_s": statistics.median(speeds), "baseline_ratio_median": statistics.median(ratios),
            "baseline_ratio_range": [min(ratios), max(ratios)], "pairs": pairs}


def main() -> None:
    """Measure both games and print (or write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    options = parser.parse_args()
    results = [measure(fives, options.rounds, options.pairs, options.seed) for fives in (False, True)]
    for result in results:
        low, high = result["baseline_ratio_range"]  # type: ignore[misc]
        print(f"{result['game']:>9}: {result['rollout_moves_per_s']:,.0f} rollout moves/s per core; "
              f"{result['baseline_ratio_median']:.3f} of the bare legal-move loop's speed "
              f"(pairs {low:.3f}–{high:.3f}); {result['moves_per_round']:.1f} moves a round")
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
