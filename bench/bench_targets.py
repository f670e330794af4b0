"""Issue 14's speed and memory targets, measured the way the issue asks.

Speed: every measurement is paired with the baseline, in one process, in turns
(A B A B …); a pair's ratio is baseline time ÷ measured time, and the report is
the median of the pairs with their range. The baseline is the fastest decoding
of the plain log the validator itself does: the file read by
:func:`drawlog.log.reader.read_blocks` and each block decoded by the
validator's typed decoder in one ``decode_lines`` call.

* ``validate`` on the Draw log and on the All Fives log (each against its own
  log's block decode);
* ``validate`` on the Draw log compressed as ``.jsonl.zst`` (against the plain
  log's block decode: what the compression costs is counted);
* ``stats``: :func:`drawlog.tables.dataset.write_tables` on the Draw log (all
  five Parquet tables written), against the same block decode;
* engine only (moves per second), from ``bench_variants.py``.

Memory (``--memory``): peak RSS of ``drawlog validate`` and ``drawlog stats``
run in a child process, each case its own child, as ``/usr/bin/time`` reports it:
the Draw log, a file of about ``--big-mb`` MB (the Draw log repeated under new
match ids), 1,000,000 ``match_start`` lines, the compression bombs of the issue
(zstd and gzip of newlines, one zstd line of gigabytes), a 1 MiB line of
repeated player names, deep nesting, and lines that each break many rules.

    python bench/bench_targets.py                      # speed, 300,000 events per game, 9 pairs
    python bench/bench_targets.py --memory --big-mb 1024
    python bench/bench_targets.py --clock cpu          # process CPU time instead of wall time

Results go to ``bench/results/targets.json``.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import zstandard

import drawlog
from drawlog.tables.dataset import write_tables

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_variants import decode_blocks, engine_only, ensure_log, rounds_of, validate

HERE = Path(__file__).resolve().parent
#: Speed targets of issue 14 (ratio to block decode).
TARGETS = {"validate draw": 0.55, "validate draw .jsonl.zst": 0.45, "stats draw": 0.25}
#: Memory targets of issue 14 (MB of peak RSS).
MEMORY_TARGETS = {"validate": 100, "stats": 400}


def zst_copy(path: Path) -> Path:
    """``path`` compressed as ``.jsonl.zst`` beside it (made once)."""
    packed = path.with_name(path.name.replace(".jsonl", ".jsonl.zst"))
    if not packed.exists():
        with path.open("rb") as source, packed.open("wb") as target:
            zstandard.ZstdCompressor(level=3).copy_stream(source, target)
    return packed


def stats(path: Path) -> int:
    """Write the five tables of ``path`` to a temporary folder; returns the events read."""
    with tempfile.TemporaryDirectory() as out:
        return write_tables([str(path)], Path(out) / "tables").events


def paired(baseline: Callable[[], object], measured: Callable[[], object], pairs: int,
           clock: Callable[[], float]) -> dict:
    """Baseline and measured in turns; the median of the pairs' ratios (baseline time ÷ measured time)."""
    ratios, base_times, times = [], [], []
    for _ in range(pairs):
        gc.collect()
        start = clock()
        baseline()
        base = clock() - start
        gc.collect()
        start = clock()
        measured()
        took = clock() - start
        ratios.append(base / took)
        base_times.append(base)
        times.append(took)
    return {"ratio_median": round(statistics.median(ratios), 3),
            "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
            "baseline_s_median": round(statistics.median(base_times), 3),
            "measured_s_median": round(statistics.median(times), 3)}


def speed(args: argparse.Namespace) -> dict:
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    draw = ensure_log(args.out, "draw", args.events, args.seed)
    fives = ensure_log(args.out, "all-fives", args.events, args.seed)
    draw_zst = zst_copy(draw)
    events = decode_blocks(draw)
    cases = {
        "validate draw": (lambda: decode_blocks(draw), lambda: validate(draw)),
        "validate all-fives": (lambda: decode_blocks(fives), lambda: validate(fives)),
        "validate draw .jsonl.zst": (lambda: decode_blocks(draw), lambda: validate(draw_zst)),
        "validate draw .jsonl.zst (baseline: zst block decode)": (lambda: decode_blocks(draw_zst),
                                                                   lambda: validate(draw_zst)),
        "stats draw": (lambda: decode_blocks(draw), lambda: stats(draw)),
    }
    results: dict = {}
    for name, (baseline, measured) in cases.items():
        result = paired(baseline, measured, args.pairs, clock)
        result["events"] = events if "all-fives" not in name else decode_blocks(fives)
        result["events_per_s"] = round(result["events"] / result["measured_s_median"])
        target = TARGETS.get(name)
        if target is not None:
            result["target"] = target
            result["met"] = result["ratio_median"] >= target
        results[name] = result
        print(f"{name:55} {result['ratio_median']:.3f} (range {result['ratio_range'][0]:.3f}–"
              f"{result['ratio_range'][1]:.3f}), {result['events_per_s']:,} events/s"
              + (f"  target {target}: {'met' if result['met'] else 'MISSED'}" if target is not None else ""),
              flush=True)
    for variant, path in (("draw", draw), ("all-fives", fives)):
        rounds = rounds_of(path)
        runs = [engine_only(rounds) for _ in range(5)]
        moves = runs[0][1]
        results[f"engine only {variant}"] = {"moves": moves,
                                             "moves_per_s": round(moves / statistics.median(t for t, _ in runs))}
        print(f"{'engine only ' + variant:55} {results[f'engine only {variant}']['moves_per_s']:,} moves/s")
    return results


# -- memory ------------------------------------------------------------------

def _write_big(draw: Path, target: Path, megabytes: int) -> None:
    """The Draw log repeated under new match ids until the file holds ``megabytes`` MB."""
    data = draw.read_bytes()
    copy = 0
    with target.open("wb") as handle:
        while handle.tell() < megabytes * 1_000_000:
            handle.write(data.replace(b'"match":"draw', b'"match":"c%05d-draw' % copy))
            copy += 1


def _write_zstd(target: Path, piece: bytes, total: int, prefix: bytes = b"") -> None:
    with target.open("wb") as handle, zstandard.ZstdCompressor(level=19).stream_writer(handle) as writer:
        writer.write(prefix)
        block = piece * (max(1, (1 << 20) // len(piece)))
        written = 0
        while written < total:
            writer.write(block)
            written += len(block)


def memory_cases(draw: Path, folder: Path, big_mb: int) -> dict[str, Path]:
    """The inputs of the memory measurements (made once in ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = {"draw log": draw}
    big = folder / f"big-{big_mb}mb.jsonl"
    if not big.exists():
        _write_big(draw, big, big_mb)
    cases[f"{big.stat().st_size / 1e9:.2f} GB log"] = big
    starts = folder / "match-starts-1m.jsonl"
    if not starts.exists():
        with starts.open("wb") as handle:
            for index in range(1_000_000):
                handle.write(b'{"type":"match_start","match":"m%07d","players":["a","b"]}\n' % index)
    cases["1,000,000 match_starts"] = starts
    newlines = folder / "bomb-newlines.jsonl.zst"
    if not newlines.exists():
        _write_zstd(newlines, b"\n", 4 << 30)
    cases["zstd bomb: 4 GiB of newlines"] = newlines
    long_line = folder / "bomb-long-line.jsonl.zst"
    if not long_line.exists():
        _write_zstd(long_line, b"a", 2 << 30, b'{"type":"match_start","match":"')
    cases["zstd bomb: one 2 GiB line"] = long_line
    blank = folder / "bomb-blank.jsonl.gz"
    if not blank.exists():
        with gzip.open(blank, "wb", compresslevel=9) as handle:
            for _ in range(64):
                handle.write(b"\n" * (1 << 20))
    cases["gzip of 64 MiB of blank lines"] = blank
    names = folder / "names-1mib.jsonl"
    if not names.exists():
        players = ",".join(['"p"'] * ((1 << 20) // 4))
        names.write_text(f'{{"type":"match_start","match":"m","players":[{players}]}}\n')
    cases["a 1 MiB line of repeated names"] = names
    deep = folder / "deep.jsonl"
    if not deep.exists():
        deep.write_text('{"type":"match_start","match":"m","players":["a","b"],"meta":{"x":'
                        + "[" * 2000 + "]" * 2000 + "}}\n")
    cases["nesting 2,000 deep"] = deep
    amplified = folder / "violations-10mb.jsonl"
    if not amplified.exists():
        line = ('{"type":"round_start","match":"m","round":1,"opener":"a","hands":{'
                + ",".join(f'"x{i}":[[0,0]]' for i in range(400)) + "}}\n").encode()
        with amplified.open("wb") as handle:
            handle.write(b'{"type":"match_start","match":"m","players":["a","b"]}\n')
            while handle.tell() < 10_000_000:
                handle.write(line)
    cases["10 MB of lines breaking many rules (--format json)"] = amplified
    return cases


def peak_rss(command: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit status) of a command, as ``/usr/bin/time`` reports it.

    Not ``os.wait4`` on a child of this process: a child started by vfork
    inherits, through ``exec``, the peak RSS of the process that started it.
    """
    start = time.perf_counter()
    with tempfile.NamedTemporaryFile("r") as report:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *command],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        kilobytes = int(report.read().split()[-1])
    return kilobytes / 1024, time.perf_counter() - start, done.returncode


def memory(args: argparse.Namespace) -> dict:
    draw = ensure_log(args.out, "draw", args.events, args.seed)
    cases = memory_cases(draw, args.out / "memory", args.big_mb)
    cli = [sys.executable, "-m", "drawlog"]
    results: dict = {}
    with tempfile.TemporaryDirectory() as out:
        for name, path in cases.items():
            row = {"file": path.name, "bytes": path.stat().st_size}
            json_out = ["--format", "json"]
            for command, argv in (("validate", [*cli, "validate", str(path), *json_out, "-o", os.devnull]),
                                  ("stats", [*cli, "stats", str(path), "-q", "--out", str(Path(out) / "t")])):
                rss, seconds, status = peak_rss(argv)
                row[command] = {"peak_rss_mb": round(rss, 1), "seconds": round(seconds, 2), "exit": status,
                                "met": rss < MEMORY_TARGETS[command]}
            results[name] = row
            print(f"{name:52} validate {row['validate']['peak_rss_mb']:7.1f} MB {row['validate']['seconds']:7.1f} s"
                  f" (exit {row['validate']['exit']})   stats {row['stats']['peak_rss_mb']:7.1f} MB "
                  f"{row['stats']['seconds']:7.1f} s (exit {row['stats']['exit']})", flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--out", type=Path, default=HERE / "data")
    parser.add_argument("--memory", action="store_true", help="also measure peak memory (takes minutes)")
    parser.add_argument("--memory-only", action="store_true")
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--results", type=Path, default=HERE / "results" / "targets.json")
    args = parser.parse_args(argv)
    report: dict = {"compiled": drawlog.COMPILED, "python": sys.version.split()[0], "clock": args.clock,
                    "pairs": args.pairs}
    if not args.memory_only:
        report["speed"] = speed(args)
    if args.memory or args.memory_only:
        report["memory"] = memory(args)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
