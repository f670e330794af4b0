"""``drawlog filter --split-by match``: time against the number of matches (issue 26: it was quadratic).

Writes N one-line matches (N = 5,000 and 20,000), splits them into a fresh folder,
alternating the sizes (A B A B …), and prints the median time of each and their
ratio: about 4 when the split is linear in the number of matches (it was about
10 when each file written listed the output folder).

    PYTHONPATH=src python bench/bench_split.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (5_000, 20_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="bench-split-") as work:
        logs = {}
        for size in SIZES:
            logs[size] = Path(work) / f"m{size}.jsonl"
            logs[size].write_text("".join(json.dumps({"type": "match_start", "match": f"m{n}", "players": ["a", "b"]})
                                          + "\n" for n in range(size)), encoding="utf-8")
        times: dict[int, list[float]] = {size: [] for size in SIZES}
        for _ in range(rounds):
            for size in SIZES:
                out = Path(work) / "out"
                shutil.rmtree(out, ignore_errors=True)
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "drawlog", "filter", str(logs[size]), "--split-by", "match",
                                "-o", str(out), "-q"], check=True)
                times[size].append(time.perf_counter() - start)
        small, large = (statistics.median(times[size]) for size in SIZES)
        for size in SIZES:
            print(f"{size:>6,} matches: median {statistics.median(times[size]):.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in times[size])})")
        print(f"ratio {SIZES[1] // SIZES[0]}x the matches: {large / small:.2f}x the time (linear: about 4)")


if __name__ == "__main__":
    main()
