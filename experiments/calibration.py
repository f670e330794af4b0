"""Calibration (issue #22): does accuracy order the bots random < greedy < tactician < expert, in both games?

Method. For each game, 2-player matches are simulated (``drawlog.play.simulate``)
in chunks of ``--chunk`` matches; chunk ``c`` seats one of the six pairings of
the four honest bots (random, greedy, tactician, expert), taken in turn, with
simulator seed ``--seed + c``. Every match is analysed (``drawlog analyze``'s
walk, ``--samples`` deals per decision, analysis seed = the chunk's seed), and
each decision is kept as a record (bot, options, error, peek decision, peeked,
the information cost of the omniscient-best action). Records are cached in
``--cache`` (one JSON line per chunk) so an interrupted run resumes and
``experiments/fairplay.py`` can reuse the honest matches.

Report: per game and bot, the decisions, the accuracy (mean of
``100·exp(−error/10)`` over its decisions) with a 95 % bootstrap interval
(resampling *matches*, since the decisions of a match are not independent,
``--boot`` resamples), and whether the four intervals are ordered.

    python experiments/calibration.py --matches 2000 --samples 16          # per game
    python experiments/calibration.py --matches 200 --games draw --json out.json

Run it with the project on the path (``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from drawlog.analysis.bots import ANALYSIS_BOTS
from drawlog.analysis.fairplay import peek_cost
from drawlog.analysis.summary import decision_accuracy
from drawlog.analysis.walk import analyze_paths
from drawlog.play.bots import BOTS
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

HONEST = ("random", "greedy", "tactician", "expert")
PAIRINGS = tuple((a, b) for index, a in enumerate(HONEST) for b in HONEST[index + 1:])
GAMES = ("draw", "all-fives")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "drawlog-experiments"


def chunk_records(variant: str, lineup: Sequence[str], count: int, seed: int, samples: int) -> dict[str, object]:
    """Simulate ``count`` matches of ``lineup`` and analyse them; the decisions as compact records.

    Each record: ``[match number in the chunk, seat, options, error, peek decision, peeked, peek cost]``.
    """
    table = {**BOTS, **ANALYSIS_BOTS}
    options = SimulationOptions(bots=list(lineup), variant=variant, bot_table=table, match_prefix=f"c{seed}-")
    simulator = Simulator(seed, options)
    records: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="drawlog-calibration-") as folder:
        path = os.path.join(folder, "chunk.jsonl")
        with open(path, "wb") as handle:
            for events in simulator.matches(count):
                handle.writelines(encode_events(events))
        for number, analysis in enumerate(analyze_paths([path], samples, seed)):
            assert not isinstance(analysis, Exception), analysis
            assert analysis.stop is None, analysis.stop
            for decision in analysis.decisions:
                seat = analysis.players.index(decision.player)
                records.append([number, seat, decision.options, round(decision.error, 4), decision.peek_decision,
                                decision.peeked, round(peek_cost(decision), 4)])
    return {"variant": variant, "seed": seed, "lineup": list(lineup), "matches": count, "samples": samples,
            "records": records}


def collect(cache: Path, variant: str, lineups: Sequence[Sequence[str]], matches: int, seed: int, samples: int,
            chunk: int, label: str, cached_only: bool = False) -> list[dict[str, object]]:
    """The chunks of ``matches`` matches (lineups in turn, seeds ``seed``, ``seed + 1`` …), from ``cache`` or made.

    ``cached_only``: make none; stop at the first chunk not in the cache (a report on a run cut short).
    """
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"{label}-{variant}-s{samples}.jsonl"
    done: dict[int, dict[str, object]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                item = json.loads(line)
                done[item["seed"]] = item
    chunks = []
    started = time.perf_counter()
    with open(path, "a") as handle:
        for index in range(math.ceil(matches / chunk)):
            count = min(chunk, matches - index * chunk)
            lineup = lineups[index % len(lineups)]
            item = done.get(seed + index)
            if item is None or item["matches"] != count or item["lineup"] != list(lineup):
                if cached_only:
                    break
                item = chunk_records(variant, lineup, count, seed + index, samples)
                handle.write(json.dumps(item) + "\n")
                handle.flush()
                print(f"  {label} {variant}: chunk {index + 1}/{math.ceil(matches / chunk)} "
                      f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
            chunks.append(item)
    return chunks


def matches_of(chunks: Sequence[dict[str, object]]) -> Iterator[tuple[str, list[list[object]]]]:
    """Each (bot, its decision records in one match) of ``chunks``."""
    for item in chunks:
        lineup = item["lineup"]
        groups: dict[tuple[int, int], list[list[object]]] = {}
        for record in item["records"]:  # type: ignore[attr-defined]
            groups.setdefault((record[0], record[1]), []).append(record)
        for (_, seat), records in sorted(groups.items()):
            yield lineup[seat % len(lineup)], records  # type: ignore[index]


def bootstrap_mean(groups: Sequence[tuple[float, int]], rounds: int, rng: random.Random) -> tuple[float, float, float]:
    """The mean of per-decision values given as (sum, count) per match, and its 95 % match-bootstrap interval."""
    total = sum(value for value, _ in groups) / sum(count for _, count in groups)
    means = []
    for _ in range(rounds):
        picked = [groups[rng.randrange(len(groups))] for _ in groups]
        means.append(sum(value for value, _ in picked) / max(1, sum(count for _, count in picked)))
    means.sort()
    return total, means[int(0.025 * rounds)], means[min(rounds - 1, int(0.975 * rounds))]


def accuracy_table(chunks: Sequence[dict[str, object]], rounds: int, seed: int) -> dict[str, dict[str, float]]:
    """Per bot: decisions, matches, accuracy and its interval, mean error."""
    per_bot: dict[str, list[tuple[float, float, int]]] = {}
    for bot, records in matches_of(chunks):
        accuracy = sum(decision_accuracy(float(r[3])) for r in records)  # type: ignore[arg-type]
        error = sum(float(r[3]) for r in records)  # type: ignore[arg-type]
        per_bot.setdefault(bot, []).append((accuracy, error, len(records)))
    table = {}
    rng = random.Random(seed)
    for bot in HONEST:
        groups = per_bot.get(bot, [])
        if not groups:
            continue
        mean, low, high = bootstrap_mean([(a, n) for a, _, n in groups], rounds, rng)
        error = sum(e for _, e, _ in groups) / sum(n for _, _, n in groups)
        table[bot] = {"matches": len(groups), "decisions": sum(n for _, _, n in groups), "accuracy": mean,
                      "low": low, "high": high, "mean_error": error}
    return table


def main(argv: list[str] | None = None) -> int:
    """Run the calibration and print (and optionally save) the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2000, help="matches per game (default 2000)")
    parser.add_argument("--samples", type=int, default=16, help="deals per decision in the analysis (default 16)")
    parser.add_argument("--seed", type=int, default=0, help="first simulator seed (held-out runs: 0)")
    parser.add_argument("--chunk", type=int, default=10, help="matches per chunk (one pairing, one seed)")
    parser.add_argument("--games", default=",".join(GAMES), help="draw, all-fives or both (comma-separated)")
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the decision records are kept")
    parser.add_argument("--cached-only", action="store_true", help="simulate nothing: report on the chunks "
                        "already in the cache (a run cut short), saying how many matches that is")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    results = {}
    for variant in args.games.split(","):
        chunks = collect(args.cache, variant, PAIRINGS, args.matches, args.seed, args.samples, args.chunk, "honest",
                         args.cached_only)
        played = sum(int(item["matches"]) for item in chunks)  # type: ignore[call-overload]
        table = accuracy_table(chunks, args.boot, args.seed)
        ordered = all(table[a]["high"] < table[b]["low"] for a, b in itertools.pairwise(HONEST))
        results[variant] = {"matches": played, "samples": args.samples, "bots": table,
                            "ordered_without_overlap": ordered}
        print(f"{variant}: {played} matches, {args.samples} deals per decision, seeds {args.seed}…")
        for bot, row in table.items():
            print(f"  {bot:<10} {row['matches']:>5} matches {row['decisions']:>7} decisions  accuracy "
                  f"{row['accuracy']:.2f} [{row['low']:.2f}, {row['high']:.2f}]  mean error {row['mean_error']:.2f}")
        print(f"  ordered random < greedy < tactician < expert, intervals apart: {ordered}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
