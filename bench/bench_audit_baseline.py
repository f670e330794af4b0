"""On-demand benchmark of ``drawlog audit --baseline`` and ``--format json`` (not part of the test suite).

Usage::

    python bench/bench_audit_baseline.py [--copies 200] [--pairs 3]

``--copies`` copies of ``sample_logs/every-violation.jsonl`` (38 violations each, in a scratch
folder) are audited in turns (A B A B …, ``--pairs`` pairs), each run a process of its own:

- A: ``drawlog audit LOGS -o DIR --rebuild -q`` (the text summary);
- B: the same with ``--baseline`` (a baseline of every violation, written first, not timed) and
  ``--format json``: every violation read back from the table and screened.

Prints each run's wall seconds and the median of the pairs' ratios B / A (a shared machine makes
the whole runs noisy), then what B adds, timed in this process on B's folder: reading the baseline,
screening the violations table, and the JSON document. Results go to
``bench/results/audit_baseline.json``.
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

BENCH = Path(__file__).resolve().parent
EVERY = BENCH.parent / "sample_logs" / "every-violation.jsonl"


def timed(args: list[str]) -> float:
    """Wall seconds of ``drawlog ARGS`` in a process of its own (exit 0 or 1: errors found)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "drawlog", *args], capture_output=True, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()
    return time.perf_counter() - started


def added(folder: Path, known: Path) -> dict[str, float]:
    """Seconds of each step ``--baseline`` and ``--format json`` add to an audit of ``folder``'s tables."""
    from drawlog.check.baseline import Baseline
    from drawlog.check.violations import Summary
    from drawlog.cli.auditing import audit_document, screen_violations
    from drawlog.tables.reports import audit_summary

    started = time.perf_counter()
    baseline = Baseline.load(known)
    loaded = time.perf_counter()
    summary = Summary(violations=len(baseline), errors=len(baseline))
    violations, _ = screen_violations(str(folder), summary, baseline, False)
    screened = time.perf_counter()
    found = audit_summary(folder, violations=violations)
    counted = time.perf_counter()
    audit_document(str(folder), summary, found, None)
    done = time.perf_counter()
    return {"read the baseline": loaded - started, "screen the table": screened - loaded,
            "count what is shown": counted - screened, "JSON document": done - counted}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=3)
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-audit-"))
    try:
        logs = scratch / "logs"
        logs.mkdir()
        for index in range(options.copies):
            shutil.copyfile(EVERY, logs / f"part-{index:05d}.jsonl")
        known = scratch / "known.json"
        assert timed(["validate", str(logs), "--write-baseline", str(known), "-q"]) > 0
        plain = ["audit", str(logs), "-o", str(scratch / "a"), "--rebuild", "-q"]
        screened = ["audit", str(logs), "-o", str(scratch / "b"), "--rebuild", "-q", "--baseline", str(known),
                    "--format", "json"]
        runs: list[tuple[float, float]] = []
        for pair in range(options.pairs):
            a, b = timed(plain), timed(screened)
            runs.append((a, b))
            print(f"pair {pair + 1}: A {a:.2f} s, B {b:.2f} s, B/A {b / a:.3f}")
        ratio = statistics.median(b / a for a, b in runs)
        parts = added(scratch / "b", known)
        print("added by B: " + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in parts.items()))
        violations = json.loads(known.read_text())["violations"]
        print(f"{options.copies} files, {sum(item['count'] for item in violations):,} violations: "
              f"median B/A {ratio:.3f}")
        results = BENCH / "results"
        results.mkdir(exist_ok=True)
        (results / "audit_baseline.json").write_text(json.dumps(
            {"copies": options.copies, "pairs": [{"a": a, "b": b} for a, b in runs], "median_ratio": ratio,
             "added": parts},
            indent=1) + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
