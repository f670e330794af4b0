"""``drawlog filter`` options (issue 24 item 6): what ``--dedupe`` and ``--code`` cost next to ``--valid``.

Simulates a log (``--matches``, 30% of them with a fault), then runs, alternating
(A B C A B C …): ``filter --valid`` (the baseline), ``filter --dedupe`` (every line
of every match hashed) and ``filter --invalid --code R,M --rounds 1..`` (every
violation gathered, no cap per match). Prints the median time of each and the
median of the ratios to the baseline in the same round.

    PYTHONPATH=src python bench/bench_filter_options.py [--matches 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = {
    "--valid": ["--valid"],
    "--dedupe": ["--dedupe"],
    "--invalid --code R,M --rounds 1..": ["--invalid", "--code", "R,M", "--rounds", "1.."],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-filter-") as work:
        log = Path(work) / "sim.jsonl"
        subprocess.run([sys.executable, "-m", "drawlog", "simulate", "-n", str(options.matches), "--seed", "5",
                        "--faults", "0.3", "-o", str(log)], check=True, capture_output=True)
        lines = log.read_bytes().count(b"\n")
        times: dict[str, list[float]] = {name: [] for name in RUNS}
        for _ in range(options.rounds):
            for name, args in RUNS.items():
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "drawlog", "filter", str(log), "-o", str(Path(work) / "o.jsonl"),
                                "-q", *args], check=True)
                times[name].append(time.perf_counter() - started)
        base = times["--valid"]
        print(f"{options.matches:,} matches, {lines:,} lines; medians of {options.rounds} rounds")
        for name, measured in times.items():
            ratio = statistics.median(a / b for a, b in zip(measured, base))
            print(f"  filter {name:<36} {statistics.median(measured):6.2f} s   × {ratio:.2f} of --valid")


if __name__ == "__main__":
    main()
