"""On-demand benchmark of the analyst's views (not part of the test suite): ``h2h``, ``ratings --history``, ``seats``.

Usage::

    python bench/bench_views.py [--matches 100000] [--pool 60] [--repeat 5]

Builds the tables once (cached in ``bench/data``): ``--matches`` simulated matches of 2 to 4 players drawn
from a roster of ``--pool`` names (random bots, timestamps on), through ``write_tables``. Then, in this
process, each view against the baseline of reading the same tables (the matches table collected whole, and
for ``seats`` the players table too), taken in turns A B A B ``--repeat`` times: the median seconds of each
and the median of the paired ratios (view / baseline). Writes ``bench/results/views.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import polars as pl

from drawlog.play.recording import record
from drawlog.play.simulate import SimulationOptions, Simulator, pool_names
from drawlog.tables.dataset import open_tables, write_tables
from drawlog.tables.h2h import head_to_head, matrix
from drawlog.tables.history import history_by, rating_history
from drawlog.tables.reports import counted
from drawlog.tables.seats import by_opener, by_seat

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
RESULTS = BENCH / "results" / "views.json"


def build(matches: int, pool: int, seed: int) -> Path:
    """The statistics folder of ``matches`` simulated matches (made once, then reused)."""
    folder = DATA / f"views-{matches}-pool{pool}-seed{seed}"
    stats = folder / "stats"
    if (stats / "manifest.json").is_file() or any(stats.glob("*.parquet")):
        return stats
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "season.jsonl"
    options = SimulationOptions(players="mixed", bots=("random",), roster=pool_names(pool), match_prefix="v")
    started = time.perf_counter()
    with open(log, "wb") as stream:
        record(Simulator(seed, options), matches, stream, timestamps=True, seed=seed)
    print(f"simulated {matches:,} matches in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    started = time.perf_counter()
    write_tables([str(log)], stats)
    print(f"wrote the tables in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    log.unlink()  # the tables are what is measured
    return stats


def timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--pool", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    stats = build(args.matches, args.pool, args.seed)
    tables = open_tables(stats)
    finished = tables["matches"].filter(counted(False))
    count = finished.select(pl.len()).collect().item()

    def read_matches() -> object:
        return open_tables(stats)["matches"].collect()

    def read_matches_and_players() -> object:
        opened = open_tables(stats)
        return opened["matches"].collect(), opened["players"].collect()

    def view(compute: Callable[[dict[str, pl.LazyFrame], pl.LazyFrame], object]) -> Callable[[], object]:
        def run() -> object:
            opened = open_tables(stats)
            return compute(opened, opened["matches"].filter(counted(False)))
        return run

    views = {
        "h2h (matrix)": (view(lambda t, m: matrix(head_to_head(m))), read_matches),
        "h2h --pairs": (view(lambda t, m: head_to_head(m)), read_matches),
        "ratings --history": (view(lambda t, m: rating_history(m)), read_matches),
        "ratings --by week": (view(lambda t, m: history_by(rating_history(m), "week")), read_matches),
        "seats": (view(lambda t, m: by_seat(m, t["players"])), read_matches_and_players),
        "seats --opener": (view(lambda t, m: by_opener(m, t["players"])), read_matches_and_players),
    }
    found = {"matches": count, "pool": args.pool, "repeat": args.repeat, "views": {}}
    print(f"{count:,} finished matches, {args.pool} players; median of {args.repeat} paired runs")
    print(f"{'view':<20} {'seconds':>8} {'baseline':>9} {'ratio':>7}")
    for name, (run, baseline) in views.items():
        seconds, bases, ratios = [], [], []
        run()  # warm: the first read of the files
        for _ in range(args.repeat):
            base = timed(baseline)
            took = timed(run)
            bases.append(base)
            seconds.append(took)
            ratios.append(took / base)
        row = {"seconds": statistics.median(seconds), "baseline": statistics.median(bases),
               "ratio": statistics.median(ratios)}
        found["views"][name] = row
        print(f"{name:<20} {row['seconds']:>8.2f} {row['baseline']:>9.3f} {row['ratio']:>6.1f}x")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
