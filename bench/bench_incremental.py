"""On-demand benchmark of an incremental ``drawlog stats`` (not part of the test suite).

Usage::

    python bench/bench_incremental.py [--files 1000] [--matches-per-file 2] [--pairs 3]

A league of ``--files`` small logs (cached in ``bench/data``) has one more file. In turns
(A B A B …, ``--pairs`` pairs), in this process:

- A: the tables of all ``--files`` + 1 logs written from nothing (``rebuild=True``);
- B: the same run on a folder that already holds the first ``--files`` logs' tables (a copy made
  before the run, not timed): only the new file is replayed.

Prints each run's wall and CPU seconds, the median of the pairs' ratios B / A, and whether B's
tables equal A's row for row. Results go to ``bench/results/incremental.json``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import drawlog
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import open_tables, write_tables

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, its threads and its reaped children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def league(files: int, per_file: int) -> tuple[Path, Path]:
    """The folder of ``files`` logs, and one more log beside it (made once, cached)."""
    folder = DATA / f"league-{files}x{per_file}"
    extra = DATA / f"league-{files}x{per_file}-extra.jsonl"
    if not extra.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        simulator = Simulator(2024, SimulationOptions())
        for index in range(files + 1):
            lines = [line for number in range(per_file)
                     for line in encode_events(simulator.match(f"g{index:05d}-{number}"))]
            target = folder / f"day-{index:05d}.jsonl" if index < files else extra
            target.write_bytes(b"".join(lines))
    return folder, extra


def timed(run) -> tuple[float, float]:
    cpu, wall = cpu_seconds(), time.perf_counter()
    run()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--matches-per-file", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1)
    options = parser.parse_args()
    folder, extra = league(options.files, options.matches_per_file)
    size = sum(path.stat().st_size for path in folder.iterdir()) + extra.stat().st_size
    with tempfile.TemporaryDirectory(prefix="drawlog-bench-") as scratch_name:
        scratch = Path(scratch_name)
        logs = scratch / "logs"
        shutil.copytree(folder, logs)
        base = scratch / "base"
        write_tables([logs], base, jobs=options.jobs)  # the league's tables before the new file
        shutil.copy(extra, logs / f"day-{options.files:05d}.jsonl")
        full, again = scratch / "full", scratch / "again"
        pairs = []
        for _ in range(options.pairs):
            a = timed(lambda: write_tables([logs], full, rebuild=True, jobs=options.jobs))
            shutil.rmtree(again, ignore_errors=True)
            shutil.copytree(base, again)
            b = timed(lambda: write_tables([logs], again, jobs=options.jobs))
            manifest = json.loads((again / "_drawlog.json").read_text())["incremental"]
            assert (manifest["reused"], manifest["replayed"]) == (options.files, 1), manifest
            pairs.append((a, b))
            print(f"full {a[0]:.2f} s ({a[1]:.2f} s CPU)   incremental {b[0]:.2f} s ({b[1]:.2f} s CPU)   "
                  f"ratio {b[0] / a[0]:.3f} wall, {b[1] / a[1]:.3f} CPU")
        alone = timed(lambda: write_tables([logs / f"day-{options.files:05d}.jsonl"], scratch / "alone"))
        print(f"the new file alone, from nothing: {alone[0]:.2f} s ({alone[1]:.2f} s CPU)")
        same = all(frame.collect().equals(open_tables(again)[name].collect())
                   for name, frame in open_tables(full).items())
    wall = statistics.median(b[0] / a[0] for a, b in pairs)
    cpu = statistics.median(b[1] / a[1] for a, b in pairs)
    print(f"{options.files:,} files + 1 ({size / 1e6:.1f} MB), jobs {options.jobs}: incremental / full = "
          f"{wall:.3f} wall, {cpu:.3f} CPU (median of {len(pairs)} pairs); same tables row for row: {same}")
    results = BENCH / "results" / "incremental.json"
    results.write_text(json.dumps({
        "drawlog": drawlog.__version__, "files": options.files, "matches_per_file": options.matches_per_file,
        "bytes": size, "jobs": options.jobs,
        "pairs": [{"full_wall": a[0], "full_cpu": a[1], "incremental_wall": b[0], "incremental_cpu": b[1]}
                  for a, b in pairs],
        "ratio_wall": wall, "ratio_cpu": cpu, "same_tables": same, "alone_wall": alone[0], "alone_cpu": alone[1],
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
