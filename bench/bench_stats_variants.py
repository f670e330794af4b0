"""``stats`` speed per game (Draw, All Fives), paired against line-by-line decoding, CPU time; peak memory.

For each variant the simulated log of ``bench_variants.py`` (cached in ``bench/data/``) is
measured in turns, A B A B … in this process:

* **decode lines** — the baseline: each line through the typed decoder, one call a line;
* **stats** — ``write_tables([log], fresh folder)`` (``rebuild``: no index to reuse).

Both in CPU seconds (user + system of the process, threads included): the machine is shared, and
wall time measures the neighbours. The ratio of a pair is decode ÷ stats; the report is the median.
Then ``drawlog stats`` runs in a subprocess on the log and on the log twice over (two copies)
for its peak RSS: flat memory means the same peak for twice the input.

    python bench/bench_stats_variants.py                      # 300,000 events per variant, 5 pairs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import msgspec

from drawlog.log.events import AnyEvent
from drawlog.tables.dataset import write_tables

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_variants import ensure_log


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def decode_lines(path: Path) -> float:
    decode = msgspec.json.Decoder(AnyEvent).decode
    started = cpu()
    with open(path, "rb") as stream:
        for line in stream:
            decode(line)
    return cpu() - started


def stats(path: Path, out: Path) -> float:
    started = cpu()
    write_tables([str(path)], out, rebuild=True)
    return cpu() - started


def peak_rss(paths: list[Path], out: Path) -> float:
    command = [sys.executable, "-c", "from drawlog.cli import main; main()", "stats", *map(str, paths), "--out",
               str(out), "-q"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        raise SystemExit(f"drawlog stats failed ({status})")
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--variants", default="draw,all-fives")
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args()
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="drawlog-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for variant in args.variants.split(","):
            path = ensure_log(HERE / "data", variant, args.events, args.seed)
            ratios, decodes, writes = [], [], []
            for attempt in range(args.pairs):
                decoded = decode_lines(path)
                written = stats(path, scratch / f"{variant}-{attempt}")
                shutil.rmtree(scratch / f"{variant}-{attempt}")
                decodes.append(decoded)
                writes.append(written)
                ratios.append(decoded / written)
            result = {"decode_cpu": statistics.median(decodes), "stats_cpu": statistics.median(writes),
                      "ratio_median": statistics.median(ratios), "ratio_range": [min(ratios), max(ratios)]}
            if not args.no_memory:
                twice = scratch / f"{variant}-copy.jsonl"
                twice.write_bytes(path.read_bytes().replace(b'"match":"', b'"match":"copy-'))
                result["peak_rss_mb"] = peak_rss([path], scratch / "rss-1")
                result["peak_rss_twice_mb"] = peak_rss([path, twice], scratch / "rss-2")
            report[variant] = result
            print(f"{variant:10} stats/decode-lines (CPU) median {result['ratio_median']:.3f} "
                  f"(range {result['ratio_range'][0]:.3f}-{result['ratio_range'][1]:.3f}, {args.pairs} pairs; "
                  f"decode {result['decode_cpu']:.2f} s, stats {result['stats_cpu']:.2f} s)"
                  + (f"; peak RSS {result['peak_rss_mb']:.0f} MB, twice the input {result['peak_rss_twice_mb']:.0f} MB"
                     if "peak_rss_mb" in result else ""))
    (HERE / "results" / "stats_variants.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
