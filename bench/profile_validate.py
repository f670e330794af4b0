"""Profile the library validation of the benchmark log under cProfile (on demand).

Usage::

    python bench/profile_validate.py [--events 1000000] [--out bench/data] [--top 25]
                                     [--sort tottime] [--save validate.prof]

Uses (and, if missing, generates) the same cached log as ``bench_validate.py``,
runs ``Validator().validate_paths([file])`` to the end under cProfile and prints
the top functions (by ``tottime`` unless ``--sort`` says otherwise). cProfile
slows pure-Python code several times over: read the shares, not the seconds.
``--save`` writes the raw stats (for snakeviz, ``python -m pstats``, …).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_validate import DEFAULT_DATA, DEFAULT_SEED, ensure_log  # noqa: E402

from drawlog.check.validator import Validator  # noqa: E402


def run(path: Path) -> tuple[int, object]:
    validator = Validator()
    count = 0
    for _ in validator.validate_paths([str(path)]):
        count += 1
    return count, validator.summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="minimum events in the log")
    parser.add_argument("--out", type=Path, default=DEFAULT_DATA, help="folder of the cached log")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--top", type=int, default=25, help="how many functions to print")
    parser.add_argument("--sort", default="tottime", help="pstats sort key: tottime, cumulative, ncalls …")
    parser.add_argument("--save", type=Path, help="also write the raw profile to this file")
    args = parser.parse_args(argv)

    path, meta = ensure_log(args.out, args.events, args.seed)
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    violations, summary = run(path)
    profiler.disable()
    seconds = time.perf_counter() - started
    print(f"validated {summary.events:,} events in {seconds:.2f}s under cProfile "  # type: ignore[attr-defined]
          f"({summary.events / seconds:,.0f} events/s, profiled); {violations} violations")  # type: ignore[attr-defined]
    if violations:
        print(f"WARNING: the benchmark log should validate cleanly, but {violations} violations were found",
              file=sys.stderr)
    if args.save:
        profiler.dump_stats(args.save)
        print(f"raw profile written to {args.save}")

    buffer = io.StringIO()
    stats = pstats.Stats(profiler, stream=buffer)
    stats.sort_stats(args.sort).print_stats(args.top)
    # Trim the long absolute paths so the table stays readable.
    text = buffer.getvalue()
    for prefix in sorted({str(Path(p).parent) + "/" for p in sys.path if p}, key=len, reverse=True):
        text = text.replace(prefix, "")
    print(text)
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
