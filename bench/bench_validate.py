"""On-demand benchmark of ``drawlog validate`` (not part of the test suite).

Usage::

    python bench/bench_validate.py [--events 1000000] [--out bench/data]

1. Generates, once, a deterministic log of at least ``--events`` events with the
   simulator (mixed 2/3/4-player matches, random and greedy bots, stock logged,
   seq numbers on, some matches interleaved), streamed to ``--out`` (cached:
   a second run reuses the file).
2. Measures, in this one process, on that file:
   a. baseline decode: every line through a reused ``msgspec.json.Decoder(AnyEvent)``
      (typed) and through ``msgspec.json.Decoder()`` (untyped); plus a plain
      read of the lines for reference;
   b. the library: ``Validator().validate_paths([file])`` consumed fully;
   c. the CLI end to end: ``drawlog validate FILE --format json`` in a subprocess,
      its wall time and peak RSS (from ``os.wait4``'s rusage of that child).
   (a) and (b) take the best of ``--repeat`` (3) runs.
3. Prints a table and writes the numbers to ``bench/results/validate.json``.

Validation of the generated file must find zero errors (the simulator plays
legal games); anything else is reported with a loud warning.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

import drawlog
from drawlog.check.validator import Validator
from drawlog.log.events import AnyEvent
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave

BENCH_DIR = Path(__file__).resolve().parent
DEFAULT_DATA = BENCH_DIR / "data"
DEFAULT_RESULTS = BENCH_DIR / "results" / "validate.json"
DEFAULT_SEED = 20240601

#: Bump when the generator below changes, so a stale cached log is not reused.
GENERATOR_VERSION = 1

#: Bot line-ups; each match picks one (seat i plays lineup[i % len(lineup)]).
LINEUPS: tuple[tuple[str, ...], ...] = (
    ("random",),
    ("greedy",),
    ("random", "greedy"),
    ("greedy", "random"),
)
#: Chance that a batch of matches is written interleaved rather than one after another.
INTERLEAVE_SHARE = 0.15
#: Size of an interleaved batch (matches open at once).
INTERLEAVE_SIZES = (2, 3, 4)

TARGET_RATIO = 1 / 3  # validate throughput >= 1/3 of the typed decode
TARGET_RSS_MB = 300


# -- generation ------------------------------------------------------------------------------


def log_path(out: Path, events: int, seed: int) -> Path:
    return out / f"validate-{events}-seed{seed}-g{GENERATOR_VERSION}.jsonl"


def _meta_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


def ensure_log(out: Path, events: int, seed: int = DEFAULT_SEED, regenerate: bool = False,
               quiet: bool = False) -> tuple[Path, dict]:
    """The cached log for (events, seed), generated first when missing; returns (path, metadata)."""
    path = log_path(out, events, seed)
    meta_path = _meta_path(path)
    if not regenerate and path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("bytes") == path.stat().st_size and meta.get("generator") == GENERATOR_VERSION:
            if not quiet:
                print(f"using cached log {path} ({meta['events']:,} events, {meta['bytes'] / 1e6:.1f} MB)")
            return path, meta
    out.mkdir(parents=True, exist_ok=True)
    if not quiet:
        print(f"generating {path} (>= {events:,} events, seed {seed}) …", flush=True)
    started = time.perf_counter()
    meta = _generate(path, events, seed)
    meta["generate_seconds"] = round(time.perf_counter() - started, 2)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    if not quiet:
        print(f"  {meta['events']:,} events, {meta['matches']:,} matches "
              f"({meta['interleaved_matches']:,} interleaved), {meta['bytes'] / 1e6:.1f} MB "
              f"in {meta['generate_seconds']:.1f}s")
    return path, meta


def _generate(path: Path, target: int, seed: int) -> dict:
    """Stream matches to ``path`` until at least ``target`` events are written.

    Only the batch being written (at most a few matches) is held in memory.
    """
    rng = random.Random(seed)
    options = {lineup: SimulationOptions(players="mixed", bots=lineup, log_stock=True, log_seq=True)
               for lineup in LINEUPS}
    simulator = Simulator(seed)
    digest = hashlib.sha256()
    counts = {"events": 0, "lines": 0, "matches": 0, "interleaved_matches": 0, "interleaved_batches": 0}
    players = {2: 0, 3: 0, 4: 0}
    lineups = {"/".join(lineup): 0 for lineup in LINEUPS}
    size = 0

    def play_one() -> list:
        lineup = rng.choice(LINEUPS)
        simulator.options = options[lineup]
        counts["matches"] += 1
        events = simulator.match(f"m{counts['matches']:07d}")
        players[len(events[0].players)] += 1
        lineups["/".join(lineup)] += 1
        return events

    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as stream:
        while counts["events"] < target:
            if rng.random() < INTERLEAVE_SHARE:
                batch = [play_one() for _ in range(rng.choice(INTERLEAVE_SIZES))]
                events = interleave(batch, rng)
                counts["interleaved_matches"] += len(batch)
                counts["interleaved_batches"] += 1
            else:
                events = play_one()
            lines = encode_events(events)
            chunk = b"".join(lines)
            stream.write(chunk)
            digest.update(chunk)
            size += len(chunk)
            counts["events"] += len(events)
            counts["lines"] += len(lines)
    os.replace(tmp, path)
    return {
        "generator": GENERATOR_VERSION,
        "seed": seed,
        "target_events": target,
        **counts,
        "players": {str(k): v for k, v in players.items()},
        "lineups": lineups,
        "bytes": size,
        "sha256": digest.hexdigest(),
        "options": {"players": "mixed", "log_stock": True, "log_seq": True,
                    "interleave_share": INTERLEAVE_SHARE, "interleave_sizes": list(INTERLEAVE_SIZES)},
    }


# -- measurements ----------------------------------------------------------------------------


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, object, list[float]]:
    """Run ``run`` ``repeat`` times; (best seconds, last result, all timings)."""
    times: list[float] = []
    result: object = None
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return min(times), result, times


def read_lines(path: Path) -> int:
    count = 0
    with open(path, "rb") as stream:
        for _ in stream:
            count += 1
    return count


def _decode_each_line(path: Path, decoder: msgspec.json.Decoder) -> int:
    decode = decoder.decode
    count = 0
    with open(path, "rb") as stream:
        for line in stream:
            decode(line)
            count += 1
    return count


def decode_typed(path: Path) -> int:
    return _decode_each_line(path, msgspec.json.Decoder(AnyEvent))


def decode_untyped(path: Path) -> int:
    return _decode_each_line(path, msgspec.json.Decoder())


def validate_library(path: Path) -> tuple[int, drawlog.Summary, list]:
    validator = Validator()
    first: list = []
    count = 0
    for violation in validator.validate_paths([str(path)]):
        count += 1
        if len(first) < 5:
            first.append(violation)
    return count, validator.summary, first


def _drawlog_command() -> list[str]:
    script = Path(sys.executable).parent / "drawlog"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-c", "from drawlog.cli import main; main()"]


def validate_cli(path: Path) -> dict:
    """Run ``drawlog validate FILE --format json``; wall time, exit code, peak RSS, summary."""
    command = [*_drawlog_command(), "validate", str(path), "--format", "json"]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        # wait4 gives this child's own rusage (peak RSS of the drawlog process itself).
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    kb = usage.ru_maxrss  # kilobytes on Linux, bytes on macOS
    rss_mb = (kb / 1024 / 1024) if sys.platform == "darwin" else kb / 1024
    try:
        document = json.loads(stdout)
    except ValueError:
        document = None
    return {
        "command": " ".join(["drawlog", "validate", _display(path), "--format", "json"]),
        "seconds": seconds,
        "exit_code": process.returncode,
        "peak_rss_mb": rss_mb,
        "summary": document.get("summary") if isinstance(document, dict) else None,
        "violations": len(document.get("violations", [])) if isinstance(document, dict) else None,
        "stderr": stderr.decode(errors="replace")[-2000:],
    }


def _display(path: Path) -> str:
    """``path`` relative to the repository when inside it (keeps the results file machine-neutral)."""
    try:
        return str(path.resolve().relative_to(BENCH_DIR.parent))
    except ValueError:
        return str(path)


# -- report ----------------------------------------------------------------------------------


def _loud(message: str) -> None:
    bar = "!" * 78
    print(f"\n{bar}\n!! WARNING: {message}\n{bar}\n", file=sys.stderr, flush=True)


def _git_commit() -> str | None:
    try:
        result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH_DIR, capture_output=True,
                                text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=BENCH_DIR.parent,
                               capture_output=True, text=True, check=True).stdout.strip()
        return result.stdout.strip() + ("+dirty-src" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000, help="minimum events in the log")
    parser.add_argument("--out", type=Path, default=DEFAULT_DATA, help="folder of the cached log")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of (a) and (b); best is kept")
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="JSON results file")
    parser.add_argument("--no-results", action="store_true", help="do not write the JSON results")
    parser.add_argument("--regenerate", action="store_true", help="regenerate the log even if cached")
    parser.add_argument("--skip-cli", action="store_true", help="skip the CLI subprocess run")
    args = parser.parse_args(argv)

    path, meta = ensure_log(args.out, args.events, args.seed, args.regenerate)
    events = meta["events"]
    problems: list[str] = []

    rows: dict[str, dict] = {}

    def record(name: str, seconds: float, times: list[float] | None = None) -> None:
        rows[name] = {"seconds": round(seconds, 4), "events_per_s": round(events / seconds),
                      **({"runs": [round(t, 4) for t in times]} if times else {})}

    print(f"measuring (best of {args.repeat}) …", flush=True)
    seconds, count, times = best_of(args.repeat, lambda: read_lines(path))
    record("read lines", seconds, times)
    seconds, count, times = best_of(args.repeat, lambda: decode_typed(path))
    record("decode typed", seconds, times)
    if count != meta["lines"]:
        problems.append(f"typed decode saw {count} lines, the generator wrote {meta['lines']}")
    seconds, count, times = best_of(args.repeat, lambda: decode_untyped(path))
    record("decode untyped", seconds, times)
    seconds, (count, summary, first), times = best_of(args.repeat, lambda: validate_library(path))
    record("validate (library)", seconds, times)
    if summary.errors or summary.warnings or count:
        problems.append(f"library validation found {summary.errors} errors, {summary.warnings} warnings "
                        f"({count} violations); first: {[msgspec.json.encode(v).decode() for v in first]}")
    if summary.events != events or summary.valid_matches != meta["matches"]:
        problems.append(f"library validation read {summary.events} events / {summary.valid_matches} valid "
                        f"matches; the log has {events} / {meta['matches']}")

    cli = None
    if not args.skip_cli:
        print("running the CLI …", flush=True)
        cli = validate_cli(path)
        record("validate (CLI)", cli["seconds"])
        cli_summary = cli["summary"] or {}
        if cli["exit_code"] != 0 or cli_summary.get("errors") or cli_summary.get("warnings"):
            problems.append(f"CLI exit {cli['exit_code']}, summary {cli_summary}, stderr: {cli['stderr'][-500:]}")
        elif cli_summary.get("events") != events:
            problems.append(f"CLI read {cli_summary.get('events')} events; the log has {events}")

    typed = rows["decode typed"]["events_per_s"]
    untyped = rows["decode untyped"]["events_per_s"]
    library = rows["validate (library)"]["events_per_s"]
    ratios = {
        "validate/decode_typed": round(library / typed, 4),
        "validate/decode_untyped": round(library / untyped, 4),
    }
    if cli is not None:
        ratios["cli/decode_typed"] = round(rows["validate (CLI)"]["events_per_s"] / typed, 4)

    print()
    print(f"log: {path.name}  {events:,} events, {meta['matches']:,} matches, {meta['bytes'] / 1e6:.1f} MB; "
          f"drawlog {drawlog.__version__}, {'compiled' if drawlog.COMPILED else 'pure-Python'} engine")
    print(f"{'measurement':<22}{'events':>12}{'seconds':>10}{'events/s':>14}")
    print("-" * 58)
    for name, row in rows.items():
        print(f"{name:<22}{events:>12,}{row['seconds']:>10.3f}{row['events_per_s']:>14,}")
    print("-" * 58)
    ratio_typed = ratios["validate/decode_typed"]
    print(f"validate/decode(typed)   {ratio_typed:6.3f}   target >= {TARGET_RATIO:.3f}  "
          f"{'OK' if ratio_typed >= TARGET_RATIO else 'MISSED'}")
    print(f"validate/decode(untyped) {ratios['validate/decode_untyped']:6.3f}")
    if cli is not None:
        print(f"CLI/decode(typed)        {ratios['cli/decode_typed']:6.3f}")
        print(f"CLI peak RSS             {cli['peak_rss_mb']:6.1f} MB   target < {TARGET_RSS_MB} MB  "
              f"{'OK' if cli['peak_rss_mb'] < TARGET_RSS_MB else 'MISSED'}")

    results = {
        "benchmark": "validate",
        "date": time.strftime("%Y-%m-%d"),
        "drawlog": {"version": drawlog.__version__, "commit": _git_commit(),
                    "engine": "compiled" if drawlog.COMPILED else "pure-Python"},
        "machine": {"python": platform.python_version(), "msgspec": msgspec.__version__,
                    "platform": platform.platform(), "cpu": _cpu_model(), "cpus": os.cpu_count()},
        "log": {k: meta[k] for k in ("events", "lines", "matches", "interleaved_matches", "players",
                                    "lineups", "bytes", "seed", "sha256")},
        "repeat": args.repeat,
        "results": rows,
        "ratios": ratios,
        "cli": None if cli is None else {"command": cli["command"], "exit_code": cli["exit_code"],
                                         "seconds": round(cli["seconds"], 3),
                                         "peak_rss_mb": round(cli["peak_rss_mb"], 1)},
        "targets": {"validate/decode_typed_min": round(TARGET_RATIO, 4), "peak_rss_mb_max": TARGET_RSS_MB,
                    "ratio_met": ratio_typed >= TARGET_RATIO,
                    "rss_met": None if cli is None else cli["peak_rss_mb"] < TARGET_RSS_MB},
        "zero_errors": not problems,
    }
    if not args.no_results:
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(results, indent=2) + "\n")
        print(f"\nwrote {args.results}")

    for problem in problems:
        _loud(f"the generated log should validate cleanly, but: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
