"""What valuing luck adds to ``drawlog analyze``: the analysis with luck (B) against without (A), in one run.

Alternates A B A B over ``--pairs`` pairs and reports the median of the B/A
ratios (the machine's load changes between runs; the ratio is the figure to
compare). Run: ``PYTHONPATH=src python bench/bench_luck.py [--samples 64] [--pairs 3] [LOG ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from drawlog.analysis.walk import analyze_paths

ROOT = Path(__file__).resolve().parent.parent


def timed(path: str, samples: int, luck: bool) -> float:
    """Seconds to analyse ``path`` (decisions always, luck when asked)."""
    start = time.perf_counter()
    for _ in analyze_paths([path], samples, 0, luck=luck):
        pass
    return time.perf_counter() - start


def main() -> None:
    """Print, per log, the seconds without and with luck and the median ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="*", default=[str(ROOT / "sample_logs" / "tournament-2p.jsonl"),
                                                    str(ROOT / "sample_logs" / "all-fives.jsonl")])
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    for log in args.logs:
        pairs = [(timed(log, args.samples, False), timed(log, args.samples, True)) for _ in range(args.pairs)]
        ratio = statistics.median(with_luck / without for without, with_luck in pairs)
        print(f"{Path(log).name}: without luck {statistics.median(a for a, _ in pairs):.2f} s, "
              f"with luck {statistics.median(b for _, b in pairs):.2f} s; ratio {ratio:.2f} "
              f"(median of {args.pairs} A B pairs, {args.samples} samples)")


if __name__ == "__main__":
    main()
