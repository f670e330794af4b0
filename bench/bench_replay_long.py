"""``drawlog replay`` of one huge match against ``drawlog validate`` of the same file: time and peak memory.

The log (#26 item 3) is one match of about ``--lines`` lines, its first round
dealt again and again (``bench/longids_make.py long``), made once and cached
in ``--out``. Each measured command runs in a child process: its CPU time (user
and system: on a shared machine, wall time measures the others too), and its peak RSS (the child's own ``VmHWM``). Commands alternate with
``validate`` — validate, A, validate, A, … — and each is reported as the
median of its ratios to the ``validate`` run just before it, so the load of a
shared machine weighs on both sides alike.

    python bench/bench_replay_long.py                         # 1,000,000 lines, 1 pair each
    python bench/bench_replay_long.py --lines 100000 --pairs 3
    python bench/bench_replay_long.py --results bench/results/replay_long.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from longids_make import long_match

#: Runs ``drawlog ARGS`` and prints its CPU seconds and peak RSS (KB) to standard error last.
_RUN = ("import resource, runpy, sys\n"
        "sys.argv = ['drawlog', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('drawlog', run_name='__main__')\n"
        "except SystemExit as stop:\n    code = stop.code\nelse:\n    code = 0\n"
        "from pathlib import Path\n"
        "peak = [line.split()[1] for line in Path('/proc/self/status').read_text().splitlines()"
        " if line.startswith('VmHWM:')]\n"
        "sys.stdout.flush()\n"
        "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(usage.ru_utime + usage.ru_stime, peak[0] if peak else usage.ru_maxrss, file=sys.stderr)\n"
        "sys.exit(code if isinstance(code, int) else 1)\n")


def measure(args: list[str], cwd: Path) -> tuple[float, int, int]:
    """Run ``drawlog ARGS`` in a child, its standard output drained through a pipe: its CPU seconds (user and
    system: on a busy machine its wall time says more of the others), peak KB, bytes out."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen([sys.executable, "-c", _RUN, *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    written = 0
    while chunk := child.stdout.read(1 << 20):
        written += len(chunk)
    errors = child.stderr.read().decode()
    child.wait()
    if child.returncode not in (0, 1):
        raise SystemExit(f"drawlog {' '.join(args)} failed ({child.returncode}):\n{errors[-2000:]}")
    seconds, peak = errors.strip().splitlines()[-1].split()
    return float(seconds), int(peak), written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "data")
    parser.add_argument("--only", nargs="*", help="measure only these commands (by name)")
    parser.add_argument("--results", type=Path, help="write the numbers as JSON here")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / f"long-match-{args.lines}.jsonl.gz"
    if not log.exists():
        long_match(log, args.lines)
    lines = sum(1 for _ in __import__("gzip").open(log, "rb"))
    commands = {
        "text to a file": ["replay", str(log), "--match", "t2-000001", "-o", str(args.out / "replay-long.txt")],
        "text to a pipe": ["replay", str(log), "--match", "t2-000001"],
        "json to a file": ["replay", str(log), "--match", "t2-000001", "-f", "json", "-o",
                           str(args.out / "replay-long.jsonl")],
        "svg": ["replay", str(log), "--match", "t2-000001", "-f", "svg", "-o", str(args.out / "replay-long.svg")],
    }
    baseline = ["validate", str(log), "--format", "json", "-q"]
    results: dict[str, dict[str, float]] = {}
    print(f"{log.name}: {lines:,} lines, {log.stat().st_size / 1e6:.1f} MB gzipped")
    for name, command in commands.items():
        if args.only and name not in args.only:
            continue
        ratios, memory, runs = [], [], []
        for _ in range(args.pairs):
            base = measure(baseline, args.out)
            run = measure(command, args.out)
            ratios.append(run[0] / base[0])
            memory.append(run[1] / base[1])
            runs.append((base, run))
        base_s = statistics.median(base[0] for base, _ in runs)
        run_s = statistics.median(run[0] for _, run in runs)
        peak = max(run[1] for _, run in runs)
        base_peak = max(base[1] for base, _ in runs)
        size = Path(command[-1]).stat().st_size if "-o" in command else runs[-1][1][2]
        results[name] = {"seconds": run_s, "validate_seconds": base_s, "time_ratio": statistics.median(ratios),
                         "peak_kb": peak, "validate_peak_kb": base_peak, "memory_ratio": statistics.median(memory),
                         "output_bytes": size, "microseconds_per_line": run_s / lines * 1e6}
        print(f"  {name:15} {run_s:8.1f} s CPU ({statistics.median(ratios):5.1f}× validate's {base_s:.1f} s), peak "
              f"{peak / 1024:6.1f} MB ({statistics.median(memory):.2f}× validate's {base_peak / 1024:.1f} MB), "
              f"{size / 1e6:,.0f} MB out, {run_s / lines * 1e6:.0f} µs a line", flush=True)
    if args.results:
        args.results.write_text(json.dumps({"lines": lines, "pairs": args.pairs, "commands": results}, indent=2)
                                + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
