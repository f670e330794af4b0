"""Rollout speed: moves per second per core of :mod:`drawlog.analysis.rollout`, against other domino engines.

Each measurement plays rounds out from fresh deals, on one core, and counts the
moves each engine makes (drawlog: plays, draws and passes; the others: the
actions they apply), timed in CPU seconds of this process (``time.process_time``:
other work on a shared machine weighs less, though its load still slows each
core). In one process, drawlog's rollout and a baseline are
timed in turns, A B A B …; a pair's ratio is drawlog's moves/s ÷ the
baseline's, and the report is the median of the pairs with their range.

* **drawlog** — ``Rollout.from_round(deal).finish()``: the analysis's rollout
  policy (Draw: 2 players, 7 tiles, reserve 2; All Fives: 2 players, 9 tiles),
  deals made beforehand (fixed seed).
* **dominoes** (PyPI ``dominoes``) — ``Game.new()`` then uniformly random
  ``valid_moves`` until ``result``: 4 players, 7 tiles, no boneyard (it passes
  for a player without a move itself).
* **OpenSpiel** (PyPI ``open_spiel``) — ``python_block_dominoes`` (2 players, 7
  tiles, no drawing; OpenSpiel has no C++ dominoes game): the deal by chance
  actions, then uniformly random ``legal_actions`` until terminal; the moves
  counted are the players' actions.

A baseline not installed is left out (``pip install 'drawlog[bench]'``).

With ``--analysis``, two figures of ``drawlog analyze`` too: the seconds one
2-player Draw match of the samples (``t2-000001``, 116 decisions) takes at the
default 64 samples in this process (CPU seconds; the median of ``--pairs`` runs),
and ``--jobs 2`` against one process on ``sample_logs/`` (58 matches, both
games): A B A B pairs of whole runs in wall-clock time (the workers'
CPU is not this process's), the median speed-up; it needs two idle cores::

    python bench/bench_rollout.py                 # 2,000 drawlog rounds, 300 baseline games, 7 pairs
    python bench/bench_rollout.py --analysis --pairs 5 --json bench/results/rollout.json
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import drawlog
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
    """Seconds to play every state out with the rollout policy, and the moves made."""
    start = time.process_time()
    moves = 0
    for state in states:
        game = Rollout.from_round(state)
        game.finish()
        moves += game.moves
    return time.process_time() - start, moves


def dominoes_baseline() -> Callable[[int, int], tuple[float, int]] | None:
    """Random playouts of PyPI ``dominoes`` (None when it is not installed)."""
    try:
        import dominoes
    except ImportError:
        return None

    def run(games: int, seed: int) -> tuple[float, int]:
        random.seed(seed)  # dominoes deals with the random module's own generator
        choose = random.Random(seed).choice
        start = time.process_time()
        moves = 0
        for _ in range(games):
            game = dominoes.Game.new()
            while game.result is None:
                game.make_move(*choose(game.valid_moves))
                moves += 1
        return time.process_time() - start, moves

    return run


def openspiel_baseline() -> Callable[[int, int], tuple[float, int]] | None:
    """Random playouts of OpenSpiel's ``python_block_dominoes`` (None when it is not installed)."""
    try:
        import pyspiel
        from open_spiel.python.games import block_dominoes  # noqa: F401 - registers the game
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")

    def run(games: int, seed: int) -> tuple[float, int]:
        rng = random.Random(seed)
        start = time.process_time()
        moves = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[rng.randrange(len(actions))])
                    moves += 1
        return time.process_time() - start, moves

    return run


def compare(states: list[Round], baseline: Callable[[int, int], tuple[float, int]], games: int, pairs: int,
            seed: int) -> dict[str, Any]:
    """A B A B pairs of drawlog's Draw rollouts and ``baseline``'s playouts; the ratios of their moves/s."""
    ratios, ours, theirs = [], [], []
    for pair in range(pairs):
        gc.collect()
        seconds, moves = run_rollouts(states)
        gc.collect()
        other_seconds, other_moves = baseline(games, seed + pair)
        ours.append(moves / seconds)
        theirs.append(other_moves / other_seconds)
        ratios.append(ours[-1] / theirs[-1])
    return {"drawlog_moves_per_s": statistics.median(ours), "baseline_moves_per_s": statistics.median(theirs),
            "ratio_median": statistics.median(ratios), "ratio_range": [min(ratios), max(ratios)], "pairs": pairs,
            "baseline_games": games}


def measure(fives: bool, rounds: int, pairs: int, seed: int) -> dict[str, Any]:
    """drawlog's rollout moves/s in one game (the median of ``pairs`` runs)."""
    states = deals(fives, rounds, seed)
    speeds = []
    for _ in range(pairs):
        gc.collect()
        seconds, moves = run_rollouts(states)
        speeds.append(moves / seconds)
    return {"game": "all-fives" if fives else "draw", "rounds": rounds, "moves_per_round": moves / rounds,
            "rollout_moves_per_s": statistics.median(speeds), "range": [min(speeds), max(speeds)]}


SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def match_seconds(pairs: int) -> list[float]:
    """Seconds to analyse the 2-player Draw match ``t2-000001`` at the default samples, ``pairs`` times."""
    from drawlog.analysis.walk import analyze_paths

    times = []
    for _ in range(pairs):
        gc.collect()
        start = time.process_time()
        found = list(analyze_paths([str(SAMPLES / "tournament-2p.jsonl")], 64, 0, "t2-000001"))
        times.append(time.process_time() - start)
        assert len(found) == 1 and len(found[0].decisions) == 116  # type: ignore[union-attr]
    return times


def jobs_speedup(pairs: int) -> dict[str, Any]:
    """``analyze --jobs 2`` against ``--jobs 1`` on ``sample_logs/``: whole runs in A B pairs."""
    from drawlog.analysis.parallel import analyze_in_parallel

    log = str(SAMPLES)
    ratios, one, two = [], [], []
    for _ in range(pairs):
        start = time.perf_counter()
        single = list(analyze_in_parallel([log], 64, 0, jobs=1))
        one.append(time.perf_counter() - start)
        start = time.perf_counter()
        double = list(analyze_in_parallel([log], 64, 0, jobs=2))
        two.append(time.perf_counter() - start)
        assert [a.decisions for a in double] == [a.decisions for a in single]  # type: ignore[union-attr]
        ratios.append(one[-1] / two[-1])
    return {"one_process_s": statistics.median(one), "jobs_2_s": statistics.median(two),
            "speedup_median": statistics.median(ratios), "speedup_range": [min(ratios), max(ratios)], "pairs": pairs}


def main() -> None:
    """Measure both games and the baselines; print (or write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2000, help="drawlog rounds a measurement (default 2,000)")
    parser.add_argument("--games", type=int, default=300, help="baseline games a measurement (default 300)")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--analysis", action="store_true", help="also time a match's analysis and --jobs 2")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    options = parser.parse_args()
    engine = "compiled" if drawlog.COMPILED else "pure Python"
    results: dict[str, Any] = {"engine": engine, "games": [], "baselines": {}}
    print(f"drawlog engine: {engine}")
    for fives in (False, True):
        result = measure(fives, options.rounds, options.pairs, options.seed)
        results["games"].append(result)
        print(f"{result['game']:>9}: {result['rollout_moves_per_s']:,.0f} rollout moves/s per core "
              f"({result['moves_per_round']:.1f} moves a round)")
    states = deals(False, options.rounds, options.seed)
    for name, make in (("dominoes", dominoes_baseline), ("open_spiel", openspiel_baseline)):
        baseline = make()
        if baseline is None:
            print(f"{name:>9}: not installed (pip install 'drawlog[bench]'), left out")
            continue
        found = compare(states, baseline, options.games, options.pairs, options.seed)
        results["baselines"][name] = found
        low, high = found["ratio_range"]
        print(f"{name:>9}: {found['baseline_moves_per_s']:,.0f} random-playout moves/s; drawlog Draw is "
              f"{found['ratio_median']:.1f}x as fast (pairs {low:.1f}–{high:.1f})")
    if options.analysis:
        times = match_seconds(options.pairs)
        results["match_t2_000001_s"] = {"median": statistics.median(times), "range": [min(times), max(times)]}
        print(f"    match: t2-000001 (2-player Draw, 116 decisions, 64 samples) in {statistics.median(times):.2f} s "
              f"on one core (runs {min(times):.2f}–{max(times):.2f})")
        found = jobs_speedup(options.pairs)
        results["jobs_2"] = found
        low, high = found["speedup_range"]
        print(f"  --jobs 2: sample_logs/ in {found['jobs_2_s']:.2f} s against {found['one_process_s']:.2f} s: "
              f"{found['speedup_median']:.2f}x (pairs {low:.2f}–{high:.2f})")
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
