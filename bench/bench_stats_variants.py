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
    python bench/bench_stats_variants.py --against /tmp/main-site --pairs 7   # and against another build

With ``--against DIR`` (a folder holding another build's ``drawlog`` package, e.g. ``pip install --target DIR
--no-deps .`` of an older commit), each pair of runs is two child processes in turns, this build (B) and the
one in ``DIR`` (A), A B A B …, each measuring one decode and one ``stats`` on the same log: the report adds
each build's median ratio and the median of the pairs' B ÷ A (CPU time of ``stats``).
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
from typing import Any

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


def one_pair(path: Path) -> dict[str, float]:
    """One decode and one stats on ``path`` in this process (after a first stats, so one-time set-up is left out)."""
    with tempfile.TemporaryDirectory(prefix="drawlog-bench-") as scratch:
        stats(path, Path(scratch) / "warm")
        decoded = decode_lines(path)
        written = stats(path, Path(scratch) / "out")
    return {"decode_cpu": decoded, "stats_cpu": written}


def against(path: Path, other: str, pairs: int) -> dict[str, Any]:
    """Pairs of child processes in turns, the build in ``other`` (A) then this one (B); their figures."""
    runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    import drawlog

    here = str(Path(drawlog.__file__).resolve().parent.parent)  # the build running this benchmark
    for _ in range(pairs):
        for build, site in (("A", other), ("B", here)):
            env = {**os.environ, "PYTHONPATH": site}
            done = subprocess.run([sys.executable, __file__, "--one", str(path)], env=env, capture_output=True,
                                  text=True, check=True)
            runs[build].append(json.loads(done.stdout.splitlines()[-1]))
    ratio = {build: [run["decode_cpu"] / run["stats_cpu"] for run in found] for build, found in runs.items()}
    speed = [a["stats_cpu"] / b["stats_cpu"] for a, b in zip(runs["A"], runs["B"])]
    return {"runs": runs, "ratio_median": {build: statistics.median(values) for build, values in ratio.items()},
            "ratio_range": {build: [min(values), max(values)] for build, values in ratio.items()},
            "stats_cpu_median": {build: statistics.median([run["stats_cpu"] for run in found])
                                 for build, found in runs.items()},
            "speedup_median": statistics.median(speed), "speedup_range": [min(speed), max(speed)]}


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
    parser.add_argument("--against", metavar="DIR", help="another build's site folder to compare with, A B A B")
    parser.add_argument("--one", metavar="LOG", help=argparse.SUPPRESS)
    parser.add_argument("--results", default=str(HERE / "results" / "stats_variants.json"))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_pair(Path(args.one))))
        return
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="drawlog-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for variant in args.variants.split(","):
            path = ensure_log(HERE / "data", variant, args.events, args.seed)
            if args.against:
                found = report[variant] = against(path, args.against, args.pairs)
                print(f"{variant:10} stats/decode-lines (CPU), median of {args.pairs} pairs: "
                      f"A {found['ratio_median']['A']:.3f}, B {found['ratio_median']['B']:.3f}; "
                      f"stats CPU A {found['stats_cpu_median']['A']:.3f} s, B {found['stats_cpu_median']['B']:.3f} s; "
                      f"A/B {found['speedup_median']:.2f} ({found['speedup_range'][0]:.2f}-"
                      f"{found['speedup_range'][1]:.2f})")
                continue
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
    report["machine"] = {"load_average": os.getloadavg(), "cpus": os.cpu_count(), "python": sys.version.split()[0],
                         "compiled": _compiled()}
    Path(args.results).write_text(json.dumps(report, indent=2) + "\n")


def _compiled() -> bool:
    import drawlog

    return bool(drawlog.COMPILED)


if __name__ == "__main__":
    main()
