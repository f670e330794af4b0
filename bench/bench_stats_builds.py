"""``stats`` of two builds against line-by-line decoding, CPU time, each child process measuring three pairs.

Where ``bench_stats_variants.py --against`` measures one decode and one ``stats`` a process, this takes three
(decode, ``stats``) pairs in each child, the builds alternating A B A B … by round, and reports for each build
the median of every pair's ratio (decode ÷ stats) and, by round, the median A ÷ B of ``stats`` CPU time. On a
machine whose speed drifts (decoding alone swung 0.11–0.23 s between processes on 2026-12-02), ratios taken
within one process are the steadier figure.

    pip install --no-deps --target /tmp/site-a .   # in a checkout of each build (compiled with mypyc)
    python bench/bench_stats_builds.py /tmp/site-a /tmp/site-b bench/data/variant-draw-300000-seed11-g1.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_process(path: str, pairs: int) -> list[tuple[float, float]]:
    """``pairs`` (decode, stats) CPU times in this process, after one ``stats`` left out (one-time set-up)."""
    import msgspec

    from drawlog.log.events import AnyEvent
    from drawlog.tables.dataset import write_tables

    found = []
    with tempfile.TemporaryDirectory(prefix="drawlog-bench-") as scratch:
        write_tables([path], Path(scratch) / "warm", rebuild=True)
        for index in range(pairs):
            decode = msgspec.json.Decoder(AnyEvent).decode
            started = _cpu()
            with open(path, "rb") as stream:
                for line in stream:
                    decode(line)
            decoded = _cpu() - started
            started = _cpu()
            write_tables([path], Path(scratch) / f"out{index}", rebuild=True)
            found.append((decoded, _cpu() - started))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="site folder of build A (the baseline)")
    parser.add_argument("b", help="site folder of build B")
    parser.add_argument("log")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=3, help="(decode, stats) pairs in each child process")
    parser.add_argument("--results", help="write the runs here as JSON")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_process(args.log, args.pairs)))
        return
    runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    a_over_b = []
    for _ in range(args.rounds):
        got = {}
        for build, site in (("A", args.a), ("B", args.b)):
            done = subprocess.run([sys.executable, __file__, site, site, args.log, "--one", "--pairs", str(args.pairs)],
                                  env={**os.environ, "PYTHONPATH": site}, capture_output=True, text=True, check=True)
            got[build] = json.loads(done.stdout)
            runs[build].extend(got[build])
        a_over_b.append(statistics.median(s for _, s in got["A"]) / statistics.median(s for _, s in got["B"]))
    for build in "AB":
        ratios = [decoded / written for decoded, written in runs[build]]
        low, _, high = statistics.quantiles(ratios, n=4)
        print(f"{build}: decode/stats median {statistics.median(ratios):.3f} (quartiles {low:.3f}-{high:.3f}); "
              f"stats {statistics.median(s for _, s in runs[build]):.3f} s, "
              f"decode {statistics.median(d for d, _ in runs[build]):.3f} s CPU")
    print(f"A/B of stats CPU by round: median {statistics.median(a_over_b):.3f} "
          f"({min(a_over_b):.2f}-{max(a_over_b):.2f})")
    if args.results:
        Path(args.results).write_text(json.dumps({"runs": runs, "a_over_b": a_over_b}, indent=1) + "\n")


if __name__ == "__main__":
    main()
