"""On-demand benchmark of generation folders (issue 26, item 6): what they cost ``stats`` and a reader's open.

Usage::

    python bench/bench_generations.py --before /work/main/src [--pairs 6] [--opens 200]

``--before`` is the ``src`` folder of a drawlog without generation folders (the tables swapped
in by renaming the whole folder); this file's own ``src`` is the one with them. In turns
(A B A B …, ``--pairs`` pairs), each in a fresh process:

- ``stats``: a re-run on a folder holding the tables of the same 20 logs (incremental: nothing to
  replay, so the swap is most of the run), and a full re-run (``rebuild=True``), wall seconds each;
- ``open``: the tables opened (``read_stats(DIR)``'s work) ``--opens`` times (with generations: the
  hold let go after each, so each open takes the lock afresh), the median CPU microseconds of one
  (CPU, not wall: a shared machine's wall clock varies more than the difference measured).

Prints each pair and the median of the pairs' ratios B / A; results go to
``bench/results/generations.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OWN_SRC = BENCH.parent / "src"

CHILD = r"""
import json, statistics, sys, time
from pathlib import Path
from drawlog.tables.dataset import write_tables
from drawlog.tables.reading import open_local_tables
try:
    from drawlog.tables.generations import release_all
except ImportError:
    release_all = lambda: None
logs, out, opens = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
inputs = sorted(logs.iterdir())
write_tables(inputs, out)
started = time.perf_counter(); write_tables(inputs, out); incremental = time.perf_counter() - started
started = time.perf_counter(); write_tables(inputs, out, rebuild=True); full = time.perf_counter() - started
times = []
for _ in range(opens):
    started = time.process_time(); open_local_tables(out); times.append(time.process_time() - started)
    release_all()
print(json.dumps({"incremental": incremental, "full": full, "open_cpu_us": statistics.median(times) * 1e6}))
"""


def make_logs(folder: Path, files: int = 20) -> None:
    from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

    folder.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        simulator = Simulator(index, SimulationOptions(match_prefix=f"f{index}-"))
        events = [event for match in simulator.matches(5) for event in match]
        (folder / f"{index:03d}.jsonl").write_bytes(b"".join(encode_events(events)))


def run(src: Path, logs: Path, scratch: Path, opens: int) -> dict[str, float]:
    out = Path(tempfile.mkdtemp(dir=scratch)) / "stats"
    done = subprocess.run([sys.executable, "-c", CHILD, str(logs), str(out), str(opens)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(src)})
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="src folder of a drawlog without generations")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--opens", type=int, default=200)
    options = parser.parse_args()
    sys.path.insert(0, str(OWN_SRC))
    with tempfile.TemporaryDirectory() as name:
        scratch = Path(name)
        make_logs(scratch / "logs")
        pairs = []
        for pair in range(options.pairs):
            before = run(options.before, scratch / "logs", scratch, options.opens)
            after = run(OWN_SRC, scratch / "logs", scratch, options.opens)
            pairs.append((before, after))
            print(f"pair {pair + 1}: " + ", ".join(f"{key} {before[key]:.4g} -> {after[key]:.4g}" for key in before))
    summary = {key: {"before_median": statistics.median(b[key] for b, _ in pairs),
                     "after_median": statistics.median(a[key] for _, a in pairs),
                     "ratio_median": statistics.median(a[key] / b[key] for b, a in pairs)}
               for key in pairs[0][0]}
    for key, value in summary.items():
        print(f"{key}: {value['before_median']:.4g} -> {value['after_median']:.4g} "
              f"(median ratio B/A {value['ratio_median']:.3f})")
    (BENCH / "results").mkdir(exist_ok=True)
    (BENCH / "results" / "generations.json").write_text(json.dumps({"pairs": pairs, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
