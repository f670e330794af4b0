"""How long ``drawlog replay`` takes to show one match of a large file.

A file of about ``--megabytes`` MB is made once (cached in ``bench/data/``):
simulated Draw and All Fives matches, with the matches of ``sample_logs/``
(their ids prefixed ``sample-``) placed at its start, middle and end. Then
each sample match is walked (:func:`drawlog.check.walkthrough.walk`: the file
scanned for the match, its lines replayed, a frame per line) ``--repeat``
times, and the median and worst times are reported beside the time merely to
read the file's blocks (the floor of any scan).

    python bench/bench_replay.py                  # 100 MB
    python bench/bench_replay.py --megabytes 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import drawlog
from drawlog.check.walkthrough import Selection, walk
from drawlog.log.reader import Source, read_blocks
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "sample_logs"


def sample_matches() -> list[list[bytes]]:
    """The clean sample logs' matches, each as its lines, ids prefixed ``sample-``."""
    matches: dict[str, list[bytes]] = {}
    for path in sorted(SAMPLES.glob("*.jsonl")):
        if "violation" in path.name:
            continue
        for raw in path.read_bytes().splitlines():
            if raw.strip():
                event = json.loads(raw)
                event["match"] = f"sample-{event['match']}"
                matches.setdefault(event["match"], []).append(json.dumps(event).encode() + b"\n")
    return list(matches.values())


def ensure_file(out: Path, megabytes: int) -> tuple[Path, list[str]]:
    """The big file and the ids of the sample matches in it."""
    samples = sample_matches()
    ids = [json.loads(lines[0])["match"] for lines in samples]
    path = out / f"replay-{megabytes}mb.jsonl"
    if path.exists():
        return path, ids
    out.mkdir(parents=True, exist_ok=True)
    target = megabytes * 1_000_000
    thirds = [samples[0::3], samples[1::3], samples[2::3]]
    written = 0
    with path.open("wb") as handle:
        for part, chunk in enumerate(thirds):
            for lines in chunk:
                handle.writelines(lines)
            variant = ("draw", "all-fives")[part % 2]
            simulator = Simulator(part, SimulationOptions(players="mixed", bots=("greedy", "random"), variant=variant,
                                                          match_prefix=f"bulk{part}-"))
            index = 0
            while written < target * (part + 1) // 3:
                index += 1
                lines = encode_events(simulator.match(f"bulk{part}-{index:07d}"))
                handle.writelines(lines)
                written += sum(map(len, lines))
    return path, ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "data")
    args = parser.parse_args(argv)
    path, ids = ensure_file(args.out, args.megabytes)
    source = Source(str(path), path)
    reads = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for _block in read_blocks(source):
            pass
        reads.append(time.perf_counter() - start)
    times = {}
    for match_id in ids:
        runs = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            frames = walk(source, Selection(match_id))
            runs.append(time.perf_counter() - start)
        assert frames, match_id
        times[match_id] = (statistics.median(runs), len(frames))
    worst = max(times, key=lambda key: times[key][0])
    print(f"{path.stat().st_size / 1e6:.0f} MB, {'compiled' if drawlog.COMPILED else 'pure Python'}: reading the "
          f"blocks {statistics.median(reads):.3f} s; {len(ids)} sample matches walked, median "
          f"{statistics.median(t for t, _ in times.values()):.3f} s, worst {times[worst][0]:.3f} s "
          f"({worst}, {times[worst][1]} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
