"""On-demand benchmark of ``drawlog stats`` (not part of the test suite).

Usage::

    python bench/bench_stats.py [--files 4] [--matches-per-file 1200]

1. On the validate benchmark's 1M-event file (run ``bench_validate.py`` once to make it):
   the typed-decode baseline and ``write_tables`` in this process (best of 3, taken in
   turns), then ``drawlog stats`` in a subprocess (wall time, CPU time and peak RSS);
   events per second and the ratios to the baseline.
2. On ``--files`` simulated logs with distinct match ids (cached in ``bench/data``):
   ``write_tables`` with ``jobs=1`` against ``jobs=2`` in this process (best of ``--repeat``,
   taken in turns, with the range of the paired runs' speed-ups and the CPU time, which bounds
   the speed-up on two cores), then ``drawlog stats --jobs 1`` against ``--jobs 2``, and whether both
   wrote the same tables.

The in-process figures compare like with like (the decode baseline is in-process too);
the CLI figures add interpreter start-up and imports, about 0.3 s a run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import polars as pl

import drawlog
from drawlog.log.events import AnyEvent
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import open_tables, write_tables

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
VALIDATE_LOG = DATA / "validate-1000000-seed20240601-g1.jsonl"


def drawlog_command() -> list[str]:
    script = Path(sys.executable).parent / "drawlog"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from drawlog.cli import main; main()"]


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, its threads and its reaped children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_stats(inputs: list[Path], out: Path, jobs: int) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, children included) and peak RSS (MB) of ``drawlog stats``."""
    command = [*drawlog_command(), "stats", *map(str, inputs), "--out", str(out), "--quiet", "--jobs", str(jobs)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"drawlog stats failed with status {status}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def decode_and_write_seconds(path: Path, scratch: Path, repeat: int) -> tuple[float, float, int]:
    """Best seconds of the typed decode and of ``write_tables`` on ``path``, taken in turns; the event count."""
    decode = msgspec.json.Decoder(AnyEvent).decode
    best_decode = best_write = float("inf")
    count = 0
    for attempt in range(repeat):
        started = time.perf_counter()
        count = 0
        with open(path, "rb") as stream:
            for line in stream:
                decode(line)
                count += 1
        best_decode = min(best_decode, time.perf_counter() - started)
        started = time.perf_counter()
        write_tables([str(path)], scratch / f"library-{attempt}")
        best_write = min(best_write, time.perf_counter() - started)
    return best_decode, best_write, count


def simulated_files(count: int, matches: int) -> list[Path]:
    files = []
    for index in range(count):
        path = DATA / f"stats-part-{index}-{matches}.jsonl"
        if not path.exists():
            options = SimulationOptions(players="mixed", bots=("greedy", "random", "tactician"), log_seq=True,
                                        match_prefix=f"t{index}-", meta={"tournament": f"cup-{index % 2}"})
            with open(path, "wb") as out:
                for events in Simulator(index, options).matches(matches):
                    out.writelines(encode_events(events))
        files.append(path)
    return files


def same_tables(one: Path, other: Path) -> bool:
    left, right = open_tables(one), open_tables(other)
    return all(left[name].collect().equals(right[name].collect()) for name in left)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--matches-per-file", type=int, default=1200)
    parser.add_argument("--repeat", type=int, default=3, help="in-process runs of each measurement (best taken)")
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        print(f"drawlog {drawlog.__version__}, {'compiled' if drawlog.COMPILED else 'pure-Python'} engine, "
              f"{os.cpu_count()} CPUs")
        if VALIDATE_LOG.exists():
            base, library, events = decode_and_write_seconds(VALIDATE_LOG, Path(scratch), args.repeat)
            seconds, cpu, rss = run_stats([VALIDATE_LOG], Path(scratch) / "one-file", 1)
            print(f"one file: {events:,} events; decode typed {events / base:,.0f}/s ({base:.2f} s); "
                  f"write_tables {events / library:,.0f}/s ({library:.2f} s, ratio {base / library:.3f}, "
                  f"target >= 0.2)")
            print(f"  drawlog stats (CLI, start-up included): {events / seconds:,.0f}/s ({seconds:.2f} s wall, "
                  f"{cpu:.2f} s CPU, ratio {base / seconds:.3f}); peak RSS {rss:.1f} MB (target < 500 MB)")
        else:
            print(f"(no {VALIDATE_LOG.name}: run bench/bench_validate.py first for the one-file figures)")
        files = simulated_files(args.files, args.matches_per_file)
        lines = sum(1 for path in files for _ in open(path, "rb"))
        walls: dict[int, list[float]] = {1: [], 2: []}
        cpus: dict[int, list[float]] = {1: [], 2: []}
        for attempt in range(args.repeat):
            for jobs in (1, 2):
                started, cpu = time.perf_counter(), cpu_seconds()
                write_tables([str(path) for path in files], Path(scratch) / f"library-jobs{jobs}-{attempt}", jobs=jobs)
                walls[jobs].append(time.perf_counter() - started)
                cpus[jobs].append(cpu_seconds() - cpu)
        one, two = min(walls[1]), min(walls[2])
        paired = sorted(single / double for single, double in zip(walls[1], walls[2]))
        bound = 2 * statistics.median(walls[1]) / statistics.median(cpus[1])
        print(f"{len(files)} files, {lines:,} events: write_tables jobs=1 {one:.2f} s ({lines / one:,.0f}/s), "
              f"jobs=2 {two:.2f} s ({lines / two:,.0f}/s): speed-up {one / two:.2f}x (target >= 1.7x); "
              f"paired runs {paired[0]:.2f}-{paired[-1]:.2f}x, median {statistics.median(paired):.2f}x")
        print(f"  CPU seconds (median): jobs=1 {statistics.median(cpus[1]):.2f}, jobs=2 {statistics.median(cpus[2]):.2f}; "
              f"two cores bound the speed-up by 2 x wall / CPU of jobs=1: {bound:.2f}x")
        one, one_cpu, one_rss = run_stats(files, Path(scratch) / "jobs1", 1)
        two, two_cpu, two_rss = run_stats(files, Path(scratch) / "jobs2", 2)
        identical = same_tables(Path(scratch) / "jobs1", Path(scratch) / "jobs2")
        print(f"  drawlog stats (CLI, start-up included): --jobs 1 {one:.2f} s ({one_cpu:.2f} s CPU, {one_rss:.0f} MB); "
              f"--jobs 2 {two:.2f} s ({two_cpu:.2f} s CPU, {two_rss:.0f} MB): speed-up {one / two:.2f}x; "
              f"identical tables: {identical}")
        matches = pl.scan_parquet(Path(scratch) / "jobs2" / "matches.parquet").select(pl.len()).collect().item()
        print(f"matches written: {matches:,}")


if __name__ == "__main__":
    main()
