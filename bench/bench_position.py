"""What position strings cost: writing and reading one, and the ``position`` field in every replay frame.

* per position: ``Position.from_match`` + ``to_string`` (what a replay frame adds), ``Position.parse``,
  and ``to_round``, over every ply of simulated Draw and All Fives matches;
* per replay: :func:`drawlog.check.walkthrough.walk` over each match of ``sample_logs/all-fives.jsonl`` and
  ``tournament-4p.jsonl`` with the field (B) and without it (A: ``positions=False``, as ``drawlog report``
  walks), alternating A B A B, reported as the median of the pairs' ratios B/A and the cost per frame.

    python bench/bench_position.py
    python bench/bench_position.py --pairs 11
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from drawlog.check.walkthrough import Selection, match_ids, walk
from drawlog.engine.position import Position
from drawlog.log.reader import Source

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "sample_logs"


def positions() -> list[str]:
    """Every frame's position string of the sample logs' matches (the frames of a replay)."""
    found = []
    for name in ("all-fives.jsonl", "tournament-4p.jsonl", "tournament-2p.jsonl"):
        source = Source(str(SAMPLES / name), SAMPLES / name)
        for match in match_ids(source, None):
            found += [frame["position"] for frame in walk(source, Selection(match)) if frame["position"]]
    return found


def per_position(texts: list[str]) -> dict[str, float]:
    """Microseconds per position to parse, to write again, and to rebuild the round."""
    start = time.perf_counter()
    parsed = [Position.parse(text) for text in texts]
    parse = time.perf_counter() - start
    start = time.perf_counter()
    for position in parsed:
        position.to_string()
    write = time.perf_counter() - start
    start = time.perf_counter()
    for position in parsed:
        position.to_round()
    rebuild = time.perf_counter() - start
    return {name: seconds / len(texts) * 1e6 for name, seconds in
            (("parse", parse), ("to_string", write), ("to_round", rebuild))}


def walk_all(positions: bool) -> tuple[float, int]:
    """Seconds to walk every match of two sample logs, and the frames made."""
    frames = 0
    start = time.perf_counter()
    for name in ("all-fives.jsonl", "tournament-4p.jsonl"):
        source = Source(str(SAMPLES / name), SAMPLES / name)
        for match in match_ids(source, None):
            frames += len(walk(source, Selection(match), positions=positions))
    return time.perf_counter() - start, frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7)
    options = parser.parse_args()
    texts = positions()
    costs = per_position(texts)
    print(f"{len(texts):,} positions, mean length {statistics.mean(map(len, texts)):.0f} characters")
    print("  ".join(f"{name} {micro:.0f} µs" for name, micro in costs.items()))
    ratios, plain, with_field = [], [], []
    frames = 0
    for _ in range(options.pairs):
        a, frames = walk_all(False)
        b, _ = walk_all(True)
        plain.append(a)
        with_field.append(b)
        ratios.append(b / a)
    extra = (statistics.median(with_field) - statistics.median(plain)) / frames * 1e6
    print(f"{frames:,} replay frames without / with the position field: {statistics.median(plain) * 1e3:.0f} ms / "
          f"{statistics.median(with_field) * 1e3:.0f} ms (+{extra:.0f} µs a frame), median ratio "
          f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
