"""On-demand benchmark of ``--jobs 2`` against ``--jobs 1`` (issue 14; not part of the test suite).

Usage::

    python bench/bench_parallel.py [--pairs 3] [--small 10000] [--large 4] [--skip-small] [--skip-large]

On (a) a folder of ``--small`` small files (the first 25 lines of as many simulated matches: one
match started and cut short in each, cached in ``bench/data/parallel-small-N``) and (b) ``--large``
simulated logs of 1,200 matches each (``bench_stats.py``'s, cached in ``bench/data``):

- ``drawlog stats DIR --out OUT -q --jobs 1`` (A) and ``--jobs 2`` (B), and ``drawlog validate DIR
  --format json --jobs 1`` (A) and ``--jobs 2`` (B), each in a fresh process, taken in turns A B A B
  (``--pairs`` pairs); the figure is the median of the pairs' speed-ups (A's wall ÷ B's) with their
  range, so a machine busy with something else slows both runs of a pair alike;
- the baseline: the fastest decode the validator itself uses, ``decode_lines`` on each file's
  bytes in this process (events per second), and each run's events per second against it;
- the tables of both runs compared as polars frames, and the ``matches`` file's row groups and size;
- each run's CPU time (its workers' included): on a machine shared with other work the wall times
  say little about two cores, and ``--jobs 2``'s CPU over ``--jobs 1``'s says what the parts cost.

Results go to stdout and ``bench/results/parallel.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import pyarrow.parquet as pq

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
RESULTS = BENCH / "results" / "parallel.json"


def drawlog_command() -> list[str]:
    script = Path(sys.executable).parent / "drawlog"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from drawlog.cli import main; main()"]


def small_files(count: int) -> Path:
    """``count`` small logs (25 lines each: a match started, cut short), in folders of 1,000, cached."""
    from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

    folder = DATA / f"parallel-small-{count}"
    if (folder / "done").is_file():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    options = SimulationOptions(players=2, bots=("greedy", "random"), match_prefix="small-")
    simulator = Simulator(14, options)
    for index in range(count):
        events = simulator.match(f"small-{index:06d}")
        target = folder / f"{index // 1000:03d}" / f"{index:06d}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"".join(encode_events(events)[:25]))  # type: ignore[arg-type]
    (folder / "done").write_text("")
    return folder


def large_files(count: int) -> list[Path]:
    sys.path.insert(0, str(BENCH))
    from bench_stats import simulated_files

    return simulated_files(count, 1200)


def decode_baseline(paths: list[Path]) -> tuple[float, int]:
    """Seconds of ``decode_lines`` over each file's bytes (best of 3), and the events decoded."""
    from drawlog.log.events import AnyEvent

    decoder = msgspec.json.Decoder(AnyEvent)
    best, events = float("inf"), 0
    for _ in range(3):
        started = time.perf_counter()
        events = 0
        for path in paths:
            events += len(decoder.decode_lines(path.read_bytes()))
        best = min(best, time.perf_counter() - started)
    return best, events


def run(args: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, its workers included) of ``drawlog ARGS`` in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen([*drawlog_command(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"drawlog {' '.join(args)} failed with status {status}")
    return seconds, usage.ru_utime + usage.ru_stime


def paired(command: str, inputs: list[Path], pairs: int, scratch: Path) -> dict[str, object]:
    """``drawlog COMMAND`` with --jobs 1 (A) and 2 (B) in turns; walls, pair speed-ups, their median."""
    walls: dict[int, list[float]] = {1: [], 2: []}
    cpus: dict[int, list[float]] = {1: [], 2: []}
    for attempt in range(pairs):
        for jobs in (1, 2):
            if command == "stats":
                out = scratch / f"stats-jobs{jobs}"
                shutil.rmtree(out, ignore_errors=True)
                args = ["stats", *map(str, inputs), "--out", str(out), "-q", "--jobs", str(jobs)]
            else:
                args = ["validate", *map(str, inputs), "--format", "json", "-q", "--jobs", str(jobs)]
            wall, cpu = run(args)
            walls[jobs].append(wall)
            cpus[jobs].append(cpu)
        print(f"  {command} pair {attempt + 1}: --jobs 1 {walls[1][-1]:.2f} s ({cpus[1][-1]:.2f} s CPU), "
              f"--jobs 2 {walls[2][-1]:.2f} s ({cpus[2][-1]:.2f} s CPU), load {os.getloadavg()[0]:.1f}", flush=True)
    ratios = sorted(one / two for one, two in zip(walls[1], walls[2]))
    return {"jobs1": walls[1], "jobs2": walls[2], "cpu_jobs1": cpus[1], "cpu_jobs2": cpus[2], "speedups": ratios,
            "median_speedup": statistics.median(ratios),
            "cpu_ratio": statistics.median(two / one for one, two in zip(cpus[1], cpus[2]))}


def compare_tables(scratch: Path) -> dict[str, object]:
    from drawlog.tables.dataset import open_tables

    one, two = scratch / "stats-jobs1", scratch / "stats-jobs2"
    left, right = open_tables(one), open_tables(two)
    same = all(left[name].collect().equals(right[name].collect()) for name in left)
    shape = {jobs: {"row_groups": pq.ParquetFile(folder / "matches.parquet").num_row_groups,
                    "bytes": (folder / "matches.parquet").stat().st_size}
             for jobs, folder in (("jobs1", one), ("jobs2", two))}
    return {"identical_frames": same, "matches_parquet": shape}


def case(name: str, inputs: list[Path], files: list[Path], pairs: int, scratch: Path) -> dict[str, object]:
    base, events = decode_baseline(files)
    size = sum(path.stat().st_size for path in files)
    print(f"{name}: {len(files):,} files, {size / 1e6:,.1f} MB, {events:,} events; "
          f"decode_lines {events / base:,.0f} events/s", flush=True)
    found: dict[str, object] = {"files": len(files), "megabytes": size / 1e6, "events": events,
                                "decode_events_per_second": events / base}
    for command in ("stats", "validate"):
        result = paired(command, inputs, pairs, scratch)
        one, two = statistics.median(result["jobs1"]), statistics.median(result["jobs2"])  # type: ignore[arg-type]
        result["ratio_to_decode"] = {"jobs1": base / one, "jobs2": base / two}
        if command == "stats":
            result.update(compare_tables(scratch))
        found[command] = result
        print(f"  {command}: median of pair speed-ups {result['median_speedup']:.2f}x "
              f"(range {min(result['speedups']):.2f}-{max(result['speedups']):.2f}); "  # type: ignore[arg-type]
              f"medians --jobs 1 {one:.2f} s, --jobs 2 {two:.2f} s; "
              f"against decode {base / one:.3f} and {base / two:.3f}; CPU --jobs 2 / --jobs 1 "
              f"{result['cpu_ratio']:.2f}", flush=True)
        if command == "stats":
            print(f"  tables identical: {result['identical_frames']}; matches.parquet {result['matches_parquet']}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=4)
    parser.add_argument("--skip-small", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--no-results", action="store_true")
    args = parser.parse_args()
    import drawlog

    DATA.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {
        "drawlog": drawlog.__version__, "compiled": drawlog.COMPILED, "cpus": os.cpu_count(),
        "python": platform.python_version(), "load_average_before": os.getloadavg(), "pairs": args.pairs}
    print(f"drawlog {drawlog.__version__}, {'compiled' if drawlog.COMPILED else 'pure-Python'} engine, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        if not args.skip_small:
            folder = small_files(args.small)
            files = sorted(folder.rglob("*.jsonl"))
            report["small"] = case("small files", [folder], files, args.pairs, Path(scratch))
        if not args.skip_large:
            files = large_files(args.large)
            report["large"] = case("large files", files, files, args.pairs, Path(scratch))
    report["load_average_after"] = os.getloadavg()
    if not args.no_results:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
