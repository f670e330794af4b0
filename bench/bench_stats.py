"""On-demand benchmark of ``drawlog stats`` (not part of the test suite).

Usage::

    python bench/bench_stats.py [--files 4] [--matches-per-file 1200]

1. On the validate benchmark's 1M-event file (run ``bench_validate.py`` once to make it):
   the typed-decode baseline, then ``drawlog stats`` in a subprocess (wall time and
   peak RSS), events per second and the ratio to the baseline.
2. On ``--files`` simulated logs with distinct match ids (cached in ``bench/data``):
   ``drawlog stats --jobs 1`` against ``--jobs 2``, and whether both wrote the same tables.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import polars as pl

from drawlog.dataset import open_tables
from drawlog.events import AnyEvent
from drawlog.simulate import SimulationOptions, Simulator, encode_events

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data"
VALIDATE_LOG = DATA / "validate-1000000-seed20240601-g1.jsonl"


def drawlog_command() -> list[str]:
    script = Path(sys.executable).parent / "drawlog"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from drawlog.cli import main; main()"]


def run_stats(inputs: list[Path], out: Path, jobs: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``drawlog stats`` in a child process."""
    command = [*drawlog_command(), "stats", *map(str, inputs), "--out", str(out), "--quiet", "--jobs", str(jobs)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"drawlog stats failed with status {status}")
    return seconds, usage.ru_maxrss / 1024


def decode_seconds(path: Path) -> tuple[float, int]:
    decode = msgspec.json.Decoder(AnyEvent).decode
    best = float("inf")
    count = 0
    for _ in range(3):
        started = time.perf_counter()
        count = 0
        with open(path, "rb") as stream:
            for line in stream:
                decode(line)
                count += 1
        best = min(best, time.perf_counter() - started)
    return best, count


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
    args = parser.parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        if VALIDATE_LOG.exists():
            base, events = decode_seconds(VALIDATE_LOG)
            seconds, rss = run_stats([VALIDATE_LOG], Path(scratch) / "one-file", 1)
            print(f"one file: {events:,} events; decode typed {events / base:,.0f}/s; stats {events / seconds:,.0f}/s "
                  f"({seconds:.2f} s, ratio {base / seconds:.3f}, target >= 0.2); peak RSS {rss:.1f} MB "
                  f"(target < 500 MB)")
        else:
            print(f"(no {VALIDATE_LOG.name}: run bench/bench_validate.py first for the one-file figures)")
        files = simulated_files(args.files, args.matches_per_file)
        lines = sum(1 for path in files for _ in open(path, "rb"))
        one, one_rss = run_stats(files, Path(scratch) / "jobs1", 1)
        two, two_rss = run_stats(files, Path(scratch) / "jobs2", 2)
        identical = same_tables(Path(scratch) / "jobs1", Path(scratch) / "jobs2")
        print(f"{len(files)} files, {lines:,} events: --jobs 1 {one:.2f} s ({lines / one:,.0f}/s, {one_rss:.0f} MB); "
              f"--jobs 2 {two:.2f} s ({lines / two:,.0f}/s, {two_rss:.0f} MB); speed-up {one / two:.2f}x "
              f"(target >= 1.7x); identical tables: {identical}")
        matches = pl.scan_parquet(Path(scratch) / "jobs2" / "matches.parquet").select(pl.len()).collect().item()
        print(f"matches written: {matches:,}")


if __name__ == "__main__":
    main()
