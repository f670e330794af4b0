"""On-demand benchmark of ``drawlog arena`` (not part of the test suite).

Usage::

    python bench/bench_arena.py [--matches 10000] [--pairs 3] [--skip-duplicate]

Measures, in one run (times are medians of A/B pairs run alternately, A B A B …):

* built-in bots in process: an arena of ``--matches`` two-player Draw matches (greedy against random, one
  table) with ``--jobs 1`` and ``--jobs 2``, against ``Simulator`` + ``record`` writing the same number of
  matches of the same bots to a file (what ``drawlog simulate`` does): the ratio arena / simulate speed;
* bot programs: the referee's own cost per move, excluding the bots' thinking (wall time less the time spent
  waiting for the bots' answers, over every move of two protocol bots playing each other), and matches per
  second of the example Python bot (examples/bots/simple_bot.py) against the built-in greedy;
* duplicate deals: the 95 % interval of a score share (tactician against greedy) with and without
  duplicate deals, from the standings' standard error, and the spread of the estimate measured over
  independent seeds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from drawlog.play.arena import Arena, ArenaSettings, Entrant
from drawlog.play.recording import open_output, record
from drawlog.play.simulate import SimulationOptions, Simulator

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "arena.json"


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def simulate(matches: int, where: Path) -> None:
    simulator = Simulator(0, SimulationOptions(players=2, bots=("greedy", "random"), match_prefix="m"))
    with open_output(str(where / "simulated.jsonl")) as stream:
        record(simulator, matches, stream)


def arena(matches: int, where: Path, jobs: int, entrants: list[Entrant] | None = None, duplicate: bool = True,
          seed: int = 0) -> Arena:
    entrants = entrants or [Entrant("greedy", builtin="greedy"), Entrant("random", builtin="random")]
    contest = Arena(ArenaSettings(entrants, where, matches=matches, jobs=jobs, duplicate=duplicate, seed=seed))
    contest.run()
    return contest


def in_process(matches: int, pairs: int) -> dict[str, float]:
    ratios: dict[int, list[float]] = {1: [], 2: []}
    seconds: dict[str, list[float]] = {"simulate": [], "arena1": [], "arena2": []}
    for _ in range(pairs):
        for jobs in (1, 2):
            with tempfile.TemporaryDirectory() as folder:
                base = timed(lambda: simulate(matches, Path(folder)))
            with tempfile.TemporaryDirectory() as folder:
                took = timed(lambda jobs=jobs: arena(matches, Path(folder), jobs))  # type: ignore[misc]
            seconds["simulate"].append(base)
            seconds[f"arena{jobs}"].append(took)
            ratios[jobs].append(base / took)
    return {"matches": matches, "simulate_matches_per_s": matches / statistics.median(seconds["simulate"]),
            "arena_jobs1_matches_per_s": matches / statistics.median(seconds["arena1"]),
            "arena_jobs2_matches_per_s": matches / statistics.median(seconds["arena2"]),
            "speed_vs_simulate_jobs1": statistics.median(ratios[1]),
            "speed_vs_simulate_jobs2": statistics.median(ratios[2])}


def programs(matches: int) -> dict[str, float]:
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        entrants = [Entrant("a", (python, "-m", "drawlog.bots", "random")),
                    Entrant("b", (python, str(ROOT / "examples" / "bots" / "simple_bot.py")))]
        contest = Arena(ArenaSettings(entrants, Path(folder), matches=matches))
        from drawlog.play import arena as module

        waited: list[float] = []
        original = module.Lineup.close

        def close(self) -> None:
            waited.extend(process.waited for process in self.processes.values())
            original(self)

        module.Lineup.close = close  # type: ignore[method-assign]
        try:
            wall = timed(contest.run)
        finally:
            module.Lineup.close = original  # type: ignore[method-assign]
        moves = sum(1 for path in Path(folder).glob("*-vs-*.jsonl") for line in path.open()
                    if line.startswith(('{"type":"play"', '{"type":"draw"', '{"type":"pass"')))
    with tempfile.TemporaryDirectory() as folder:
        entrants = [Entrant("simple", (python, str(ROOT / "examples" / "bots" / "simple_bot.py"))),
                    Entrant("greedy", builtin="greedy")]
        example = timed(lambda: Arena(ArenaSettings(entrants, Path(folder), matches=matches)).run())
    return {"moves": moves, "referee_ms_per_move": (wall - sum(waited)) / moves * 1000,
            "bots_ms_per_move": sum(waited) / moves * 1000,
            "example_python_bot_matches_per_s": matches / example}


def duplicate(matches: int, seeds: int) -> dict[str, float]:
    entrants = [Entrant("tactician", builtin="tactician"), Entrant("greedy", builtin="greedy")]
    found: dict[str, dict[str, float]] = {}
    for mode in (True, False):
        shares, widths = [], []
        for seed in range(seeds):
            with tempfile.TemporaryDirectory() as folder:
                contest = arena(matches, Path(folder), 2, entrants, duplicate=mode, seed=seed)
            share, error = contest.standings.share("tactician")
            shares.append(share)
            widths.append(1.959964 * error)
        found["duplicate" if mode else "single"] = {"mean_share": statistics.mean(shares),
                                                    "spread_of_share": statistics.stdev(shares),
                                                    "half_width_95": statistics.median(widths)}
    found["interval_ratio_duplicate_over_single"] = \
        found["duplicate"]["half_width_95"] / found["single"]["half_width_95"]  # type: ignore[assignment]
    found["spread_ratio_duplicate_over_single"] = \
        found["duplicate"]["spread_of_share"] / found["single"]["spread_of_share"]  # type: ignore[assignment]
    found["matches_per_run"], found["runs"] = matches, seeds  # type: ignore[assignment]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--program-matches", type=int, default=100)
    parser.add_argument("--duplicate-matches", type=int, default=400)
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--skip-duplicate", action="store_true")
    parser.add_argument("--no-results", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {"in_process": in_process(args.matches, args.pairs)}
    print(json.dumps(results, indent=2), flush=True)
    results["programs"] = programs(args.program_matches)
    print(json.dumps(results["programs"], indent=2), flush=True)
    if not args.skip_duplicate:
        results["duplicate"] = duplicate(args.duplicate_matches, args.seeds)
        print(json.dumps(results["duplicate"], indent=2), flush=True)
    if not args.no_results:
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
