"""On-demand benchmark of the text outputs drawn without rich against rich (not part of the test suite).

Usage::

    python bench/bench_output.py [--violations 5000] [--rows 10000] [--pairs 7]

Each case writes the same thing twice in turns, A B A B … (``--pairs`` pairs): A by rich (the
writer's mode forced to ``rich``), B as drawlog writes it (``views/plain_table``, ``write_drawn``),
and checks the two outputs are the same. The figure is the median of the pairs' speed-ups (A's time
÷ B's) with their range, and each side's median time per violation (or row):

- the text format's tables and the concise format's lines, ``--violations`` violations of 10 each
  to a file, first to a pipe (no colour: plain text written straight to the file), then to a
  colour terminal (true colours, 150 columns: styled text printed through rich, so a progress bar
  stays below it);
- ``query``'s table of ``--rows`` rows (four columns) written to a file, against rich's plain text.

Results go to stdout and ``bench/results/output.json``.
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import polars as pl
from rich.console import Console

from drawlog import __version__
from drawlog.check.violations import Violation
from drawlog.views import ci_formats, writers
from drawlog.views.ci_formats import ConciseWriter
from drawlog.views.frames import frame_tables, plain_tables, plain_text
from drawlog.views.terminal import RICH, make_console, writing_mode
from drawlog.views.writers import TextWriter

HERE = Path(__file__).resolve().parent


def violations(count: int) -> list[Violation]:
    return [Violation(file=f"logs/round-{index // 10:05d}.jsonl", line=index, match=f"m-{index // 10}",
                      round=index % 5 + 1, player=("ann", "bob", "cy")[index % 3],
                      code=("M207", "M205", "W401")[index % 3], severity="warning" if index % 3 == 2 else "error",
                      message="passes while holding a tile that fits") for index in range(1, count + 1)]


def write(kind: type, rows: list[Violation], terminal: bool, forced: str | None) -> str:
    """What writer ``kind`` writes for ``rows``, its mode ``forced`` (None: its own)."""
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, color_system="truecolor", width=150, highlight=False,
                      emoji=False) if terminal else make_console(stream, "never")
    module = writers if kind is TextWriter else ci_formats
    with mock.patch.object(module, "writing_mode", (lambda console: forced) if forced else writing_mode):
        writer = kind(stream, console=console, quiet=True)
    current = None
    for violation in rows:
        if violation.file != current:
            if current is not None:
                writer.end_file()
            current = violation.file
            writer.start_file(current)
        writer.add(violation)
    writer.end_file()
    return stream.getvalue()


def paired(rich: Callable[[], str], drawn: Callable[[], str], pairs: int, items: int) -> dict:
    """Rich (A) and drawlog (B) in turns; their outputs must be the same."""
    speedups, rich_times, drawn_times = [], [], []
    for _ in range(pairs):
        start = time.perf_counter()
        expected = rich()
        rich_time = time.perf_counter() - start
        start = time.perf_counter()
        got = drawn()
        drawn_time = time.perf_counter() - start
        if got != expected:
            raise SystemExit("WARNING: the outputs differ")
        speedups.append(rich_time / drawn_time)
        rich_times.append(rich_time)
        drawn_times.append(drawn_time)
    return {"speedup_median": round(statistics.median(speedups), 1),
            "speedup_range": [round(min(speedups), 1), round(max(speedups), 1)],
            "rich_us_per_item": round(statistics.median(rich_times) / items * 1e6, 1),
            "drawn_us_per_item": round(statistics.median(drawn_times) / items * 1e6, 1), "items": items}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--violations", type=int, default=5_000)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--results", type=Path, default=HERE / "results" / "output.json")
    args = parser.parse_args(argv)
    rows = violations(args.violations)
    results: dict = {}
    for terminal in (False, True):
        for kind, name in ((TextWriter, "text"), (ConciseWriter, "concise")):
            case = f"{name}, {'colour terminal' if terminal else 'pipe'}"
            results[case] = paired(lambda kind=kind, terminal=terminal: write(kind, rows, terminal, RICH),
                                   lambda kind=kind, terminal=terminal: write(kind, rows, terminal, None),
                                   args.pairs, len(rows))
    frame = pl.DataFrame({"match": [f"m-{index}" for index in range(args.rows)], "seat": [index % 4 for index in
                          range(args.rows)], "player": [f"p{index % 4}" for index in range(args.rows)],
                          "points": [index * 7 % 101 for index in range(args.rows)]})
    results["query table, file"] = paired(lambda: plain_text(frame_tables(frame, 80), 80),
                                          lambda: plain_tables(frame, 80) or "", args.pairs, args.rows)
    for case, result in results.items():
        print(f"{case:28} x{result['speedup_median']} (range {result['speedup_range'][0]}-"
              f"{result['speedup_range'][1]}): rich {result['rich_us_per_item']} us, drawn "
              f"{result['drawn_us_per_item']} us a {'row' if case.startswith('query') else 'violation'}")
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps({"drawlog": __version__, "python": platform.python_version(),
                                        "machine": platform.processor() or platform.machine(),
                                        "pairs": args.pairs, "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
