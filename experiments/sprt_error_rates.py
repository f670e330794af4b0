"""How often the SPRT (``drawlog.play.sprt``) decides right between built-in bots, and how many matches it takes.

Two-player Draw matches are simulated in process (``drawlog.play.simulate``:
the engine plays each move, no log is written or read), bot A in the first
seat (the opener of round 1 is drawn at random, then rotates, so the seats are
alike). After each match A's wins, draws and losses go to ``Sprt(elo0, elo1,
alpha, beta)`` until it decides or ``--cap`` matches are played. Over
``--runs`` seeds per pair it reports the share of runs accepting H1 and H0
(Wilson 95 % intervals), the runs left undecided at the cap, and the mean and
largest number of matches to decide; and, from all the matches played, A's
score and the Elo it means.

Pairs: greedy against random (very different), tactician against greedy, and
each of greedy and random against itself (no difference: H0 holds, so a run
accepting H1 is an error of the first kind, whose rate the test bounds by
``alpha``).

    python experiments/sprt_error_rates.py                       # the README's figures (200 runs, [0, 50])
    python experiments/sprt_error_rates.py --runs 50 --elo1 30   # quicker, another test
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from drawlog.play.simulate import SimulationOptions, Simulator
from drawlog.play.sprt import Sprt

PAIRS = (("greedy", "random"), ("tactician", "greedy"), ("greedy", "greedy"), ("random", "random"))


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95 % for z = 1.96)."""
    if total == 0:
        return 0.0, 1.0
    share = successes / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_run(pair: tuple[str, str], seed: int, test: Sprt, cap: int) -> tuple[str | None, int, tuple[int, int, int]]:
    """Matches of ``pair`` from ``seed`` until ``test`` decides or ``cap``: the decision, the matches, A's W/D/L."""
    simulator = Simulator(seed, SimulationOptions(players=2, bots=pair))
    wins = draws = losses = 0
    for played in range(1, cap + 1):
        simulator.match(f"m{played}")
        outcome = simulator.outcome
        assert outcome is not None
        if outcome.winner is None:
            draws += 1
        elif outcome.winner == 0:
            wins += 1
        else:
            losses += 1
        decision = test.update(wins, draws, losses)
        if decision is not None:
            return decision, played, (wins, draws, losses)
    return None, cap, (wins, draws, losses)


def elo_of(score: float) -> float:
    """The logistic Elo difference an expected score means."""
    score = min(max(score, 1e-9), 1 - 1e-9)
    return -400 * math.log10(1 / score - 1)


def main() -> None:
    """Run every pair over the seeds; print a table, and JSON with ``--json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="seeds per pair (default 200)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--cap", type=int, default=5000, help="matches at most per run (default 5,000)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    options = parser.parse_args()
    rows = []
    print(f"SPRT elo0={options.elo0:g} elo1={options.elo1:g} alpha={options.alpha:g} beta={options.beta:g}, "
          f"{options.runs} runs per pair, at most {options.cap:,} matches each", flush=True)
    print(f"{'A vs B':<20} {'H1 (95% CI)':>22} {'H0 (95% CI)':>22} {'undecided':>9} {'mean':>7} {'max':>6} "
          f"{'A score':>8} {'Elo':>6} {'time':>6}", flush=True)
    for pair in PAIRS:
        started = time.perf_counter()
        counts = {"H1": 0, "H0": 0, None: 0}
        lengths: list[int] = []
        total = [0, 0, 0]
        for run in range(options.runs):
            test = Sprt(options.elo0, options.elo1, options.alpha, options.beta)
            decision, played, results = one_run(pair, options.seed + run, test, options.cap)
            counts[decision] += 1
            lengths.append(played)
            total = [a + b for a, b in zip(total, results)]
        games = sum(total)
        score = (total[0] + total[1] / 2) / games
        row = {
            "a": pair[0], "b": pair[1], "runs": options.runs,
            "h1": counts["H1"], "h0": counts["H0"], "undecided": counts[None],
            "h1_ci": wilson(counts["H1"], options.runs), "h0_ci": wilson(counts["H0"], options.runs),
            "mean_matches": sum(lengths) / len(lengths), "max_matches": max(lengths),
            "score": score, "elo": elo_of(score), "seconds": time.perf_counter() - started,
        }
        rows.append(row)
        share = f"{100 * row['h1'] / options.runs:5.1f} % ({100 * row['h1_ci'][0]:.1f}–{100 * row['h1_ci'][1]:.1f})"
        other = f"{100 * row['h0'] / options.runs:5.1f} % ({100 * row['h0_ci'][0]:.1f}–{100 * row['h0_ci'][1]:.1f})"
        print(f"{pair[0] + ' vs ' + pair[1]:<20} {share:>22} {other:>22} {row['undecided']:>9} "
              f"{row['mean_matches']:>7.1f} {row['max_matches']:>6} {100 * score:>7.1f}% {row['elo']:>+6.0f} "
              f"{row['seconds']:>5.0f}s", flush=True)
    if options.json:
        json.dump({"settings": vars(options), "pairs": rows}, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
