"""``drawlog validate --follow``: the delay from a line's write to its violation on standard output.

A writer in this process appends to a log that ``drawlog validate --follow
LOG`` (a subprocess) follows: simulated clean matches, and after every few of
their lines one line that is not JSON (F001), ``--lines`` (1,000) of them, one
write each, at random gaps of 5–45 ms (so the writes fall anywhere in the
follower's poll). A reader thread takes each violation off the subprocess's
standard output as it is printed. The delay of a bad line is the time from just
before its write to the moment its violation was read; reported: the median,
the 90th percentile and the worst, per format (``jsonl`` and ``concise``).
Delays are mostly the poll (``drawlog.log.tail.POLL_SECONDS``, 0.1 s): a line
written just after a look waits for the next one.

    python bench/bench_follow.py                    # writes bench/results/follow.json
    python bench/bench_follow.py --lines 200 --no-results
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from drawlog.log.tail import POLL_SECONDS
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "follow.json"


def clean_lines(count: int, seed: int) -> list[bytes]:
    """At least ``count`` lines of legal simulated matches."""
    simulator = Simulator(seed, SimulationOptions(players=2, bots=("greedy", "random")))
    lines: list[bytes] = []
    number = 0
    while len(lines) < count:
        number += 1
        lines += encode_events(simulator.match(f"m{number}"))
    return lines


def line_of(fmt: str, printed: str) -> int | None:
    """The log line a printed violation names (None for other output)."""
    if fmt == "jsonl":
        item = json.loads(printed)
        return item.get("line")
    where, _, rest = printed.partition(": ")
    return int(where.rsplit(":", 1)[1]) if rest.startswith("F001") else None


def measure(fmt: str, bad_lines: int, seed: int) -> list[float]:
    """The delays (seconds) of ``bad_lines`` bad lines followed in ``fmt``."""
    rng = random.Random(seed)
    filler = iter(clean_lines(bad_lines * 6, seed))
    arrived: dict[int, float] = {}
    done = threading.Event()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "live.jsonl"
        log.write_bytes(b"")
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
        process = subprocess.Popen([sys.executable, "-m", "drawlog", "validate", "--follow", str(log), "--format", fmt,
                                    "-q"], stdout=subprocess.PIPE, env=env, bufsize=0)
        assert process.stdout is not None
        stdout = process.stdout

        def read() -> None:
            for raw in iter(stdout.readline, b""):
                seen = time.perf_counter()
                number = line_of(fmt, raw.decode())
                if number is not None:
                    arrived[number] = seen
                    if len(arrived) == bad_lines + 1:
                        done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        written: dict[int, float] = {}
        number = 1
        with open(log, "ab", buffering=0) as handle:
            handle.write(b"not json: the follower is ready once this is out\n")  # (start-up is not measured)
            while 1 not in arrived:
                time.sleep(0.01)
            for _ in range(bad_lines):
                batch = [next(filler) for _ in range(rng.randint(2, 8))]
                number += len(batch)
                handle.write(b"".join(batch))
                time.sleep(rng.uniform(0.005, 0.045))
                number += 1
                written[number] = time.perf_counter()
                handle.write(b"not json %d\n" % number)
                time.sleep(rng.uniform(0.005, 0.045))
        done.wait(60)
        process.send_signal(__import__("signal").SIGINT)
        process.wait(60)
        reader.join(10)
    missing = [line for line in written if line not in arrived]
    if missing:
        raise SystemExit(f"{len(missing)} violations never arrived (first: line {missing[0]})")
    return [arrived[line] - written[line] for line in written]


def main() -> None:
    """Measure each format; print the figures and write them to bench/results/follow.json."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1000, help="bad lines measured per format (default 1,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-results", action="store_true", help="do not write bench/results/follow.json")
    options = parser.parse_args()
    results = {}
    for fmt in ("jsonl", "concise"):
        delays = sorted(measure(fmt, options.lines, options.seed))
        results[fmt] = {
            "lines": len(delays),
            "median_ms": round(1000 * statistics.median(delays), 1),
            "p90_ms": round(1000 * delays[int(0.9 * len(delays))], 1),
            "worst_ms": round(1000 * delays[-1], 1),
            "best_ms": round(1000 * delays[0], 1),
        }
        print(f"{fmt:8} {len(delays):,} lines: median {results[fmt]['median_ms']} ms, 90th percentile "
              f"{results[fmt]['p90_ms']} ms, worst {results[fmt]['worst_ms']} ms (best {results[fmt]['best_ms']} ms)",
              flush=True)
    if not options.no_results:
        RESULTS.write_text(json.dumps({"python": platform.python_version(), "machine": platform.machine(),
                                       "poll_seconds": POLL_SECONDS, "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
