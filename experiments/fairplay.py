"""Fair play (issue #22): is the peeker flagged, and are honest bots left alone, in sets of 50 matches?

Method. Matches are simulated and analysed as in ``experiments/calibration.py``
(whose decision records and cache this script shares):

* **honest** matches: the six pairings of random, greedy, tactician and expert;
* **peeker** matches: the peeker against each honest bot, on either seat, in turn.

A *set* is one bot's decisions in ``--set-size`` (50) of its matches, taken in
order without overlap; every set gets the peek z-score and verdict of
:mod:`drawlog.analysis.fairplay`. Honest sets come from the honest matches and
from the honest side of the peeker matches; peeker sets from the peeker side.

``--tune`` (tuning seeds, from 1,000,000): prints each honest bot's peek rate
per peek-cost bucket and the highest per bucket, the values of
:data:`~drawlog.analysis.fairplay.HONEST_RATES`, and the z of the tuning sets.
Without it (held-out seeds, from 0): the share of peeker sets flagged
``strong signal`` and of honest sets flagged (false alarms) and sent to ``look
closer``, with 95 % Wilson intervals; and, since disjoint sets are costly, the
same shares over ``--resample`` sets of 50 matches drawn with replacement from
the held-out matches of one bot (a match bootstrap, shared equally among the
honest bots: an estimate, not independent sets).

    python experiments/fairplay.py --tune --peeker-matches 120 --honest-matches 240
    python experiments/fairplay.py --peeker-matches 10000 --honest-matches 10000   # 200 sets each way per game

Run it with the project on the path (``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration import DEFAULT_CACHE, GAMES, HONEST, PAIRINGS, collect, matches_of

from drawlog.analysis.fairplay import (
    COST_EDGES,
    HONEST_RATES,
    LOOK_CLOSER,
    MIN_PEEK_DECISIONS,
    MOST_OPTIONS,
    STRONG_SIGNAL,
    cost_bucket,
    honest_rate,
    verdict,
    weighted_z,
)

#: Peeker against each honest bot, on either seat, in turn.
PEEKER_LINEUPS = tuple(pair for bot in HONEST for pair in (("peeker", bot), (bot, "peeker")))
#: The first simulator seed of the tuning runs (held-out runs start at 0).
TUNING_SEED = 1_000_000

Match = list[list[object]]


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate."""
    if not trials:
        return 0.0, 1.0
    rate = successes / trials
    centre = (rate + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def set_figures(variant: str, matches: Sequence[Match]) -> tuple[int, float, str]:
    """The peek decisions, z and verdict of one set (a bot's records in some matches)."""
    count = peeks = 0
    expected = variance = 0.0
    for records in matches:
        for record in records:
            if not record[4]:
                continue
            rate = honest_rate(variant, int(record[2]), float(record[6]))  # type: ignore[call-overload]
            count += 1
            peeks += bool(record[5])
            expected += rate
            variance += rate * (1 - rate)
    z = weighted_z(peeks, expected, variance)
    return count, z, verdict(z, count)


def by_bot(chunks: Sequence[dict[str, object]]) -> dict[str, list[Match]]:
    """Each bot's matches (its decision records in each), in order."""
    found: dict[str, list[Match]] = {}
    for bot, records in matches_of(chunks):
        found.setdefault(bot, []).append(records)
    return found


def cell(record: list[object]) -> tuple[int, int]:
    """The (actions, cost) cell of a peek decision's record in :data:`HONEST_RATES`."""
    return min(int(record[2]), MOST_OPTIONS) - 2, cost_bucket(float(record[6]))  # type: ignore[call-overload]


def tune(variant: str, honest: dict[str, list[Match]], peeker: dict[str, list[Match]], set_size: int) -> dict:
    """Each bot's peek rate per cell on tuning seeds, and the highest honest rate per cell (the rates to adopt)."""
    rows, columns = MOST_OPTIONS - 1, len(COST_EDGES) + 1
    sides = [*honest.items(), *((bot, matches) for bot, matches in peeker.items() if bot == "peeker")]
    table: dict[str, list[list[list[int]]]] = {}
    for name, matches in sides:
        counts = [[[0, 0] for _ in range(columns)] for _ in range(rows)]
        for records in matches:
            for record in records:
                if record[4]:
                    row, column = cell(record)
                    counts[row][column][0] += 1
                    counts[row][column][1] += bool(record[5])
        table[name] = counts
    highest = [[max((k / n if n else 0.0) for name, counts in table.items() if name != "peeker"
                    for n, k in [counts[row][column]]) for column in range(columns)] for row in range(rows)]
    adopt = tuple(tuple(math.ceil(100 * rate) / 100 for rate in row) for row in highest)
    edges = ["<" + str(COST_EDGES[0])] + [f"{a}-{b}" for a, b in itertools.pairwise(COST_EDGES)] + [
        f">={COST_EDGES[-1]}"]
    print(f"{variant}: peek rate per cell (actions × peek cost, points), tuning seeds")
    for row in range(rows):
        print(f"  {row + 2}{'+' if row == rows - 1 else ' '} actions " + "".join(f"{edge:>18}" for edge in edges))
        for name, counts in table.items():
            print(f"    {name:<10}" + "".join(f"{(k / n if n else 0):>9.3f} of {n:<5}" for n, k in counts[row]))
    print(f"  adopt (highest honest, rounded up): {adopt!r}")
    zs = {}
    for name, matches in [*honest.items(), *peeker.items()]:
        zs[name] = [round(set_figures(variant, matches[i:i + set_size])[1], 2)
                    for i in range(0, len(matches) - set_size + 1, set_size)]
        print(f"  z of {name}'s {set_size}-match sets (the HONEST_RATES in the code): {zs[name]}")
    return {"rates": table, "highest": highest, "adopt": adopt, "set_z": zs}


def evaluate(variant: str, honest: dict[str, list[Match]], peeker_side: dict[str, list[Match]], set_size: int,
             resample: int, seed: int) -> dict:
    """Flag rates over disjoint sets and over match-bootstrap sets, held-out seeds."""
    groups: dict[str, list[tuple[int, float, str]]] = {}
    pools: dict[str, list[Match]] = {}
    for label, source in (("honest", honest), ("vs peeker", peeker_side)):
        for bot, matches in source.items():
            key = "peeker" if bot == "peeker" else "honest"
            name = bot if bot == "peeker" else f"{bot} ({label})"
            pools.setdefault(bot, []).extend(matches)
            sets = [set_figures(variant, matches[i:i + set_size])
                    for i in range(0, len(matches) - set_size + 1, set_size)]
            groups.setdefault(name, []).extend(sets)
    out: dict[str, dict[str, object]] = {}
    for name, sets in sorted(groups.items()):
        strong = sum(v == "strong signal" for _, _, v in sets)
        closer = sum(v == "look closer" for _, _, v in sets)
        few = sum(v.startswith("too few") for _, _, v in sets)
        zs = sorted(z for _, z, _ in sets)
        out[name] = {"sets": len(sets), "strong": strong, "look_closer": closer, "too_few": few,
                     "z_min": zs[0] if zs else None, "z_median": zs[len(zs) // 2] if zs else None,
                     "z_max": zs[-1] if zs else None,
                     "peek_decisions_min": min((n for n, _, _ in sets), default=None)}
    for key in ("peeker", "honest"):
        sets = [s for name, each in groups.items() if (name == "peeker") == (key == "peeker") for s in each]
        strong = sum(v == "strong signal" for _, _, v in sets)
        closer = sum(v != "no signal" and not v.startswith("too few") for _, _, v in sets)
        rng = random.Random(seed)
        bots = [bot for bot in pools if (bot == "peeker") == (key == "peeker")]
        boot = [set_figures(variant, [pool[rng.randrange(len(pool))] for _ in range(set_size)])
                for bot in bots for pool in [pools[bot]] for _ in range(resample // len(bots))]
        boot_strong = sum(v == "strong signal" for _, _, v in boot)
        boot_closer = sum(v != "no signal" and not v.startswith("too few") for _, _, v in boot)
        out[f"all {key}"] = {"sets": len(sets), "strong": strong, "strong_wilson": wilson(strong, len(sets)),
                             "flagged_any": closer, "flagged_any_wilson": wilson(closer, len(sets)),
                             "bootstrap_sets": len(boot), "bootstrap_strong": boot_strong,
                             "bootstrap_strong_wilson": wilson(boot_strong, len(boot)),
                             "bootstrap_flagged_any": boot_closer,
                             "bootstrap_flagged_any_wilson": wilson(boot_closer, len(boot))}
    return out


def main(argv: list[str] | None = None) -> int:
    """Tune, or evaluate on held-out seeds, and print (and optionally save) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tune", action="store_true", help="tuning seeds: print the honest rates to adopt")
    parser.add_argument("--peeker-matches", type=int, default=10_000, help="peeker matches per game")
    parser.add_argument("--honest-matches", type=int, default=2000, help="honest matches per game (the "
                        "calibration's; each bot plays half of them)")
    parser.add_argument("--set-size", type=int, default=50, help="matches per set (default 50)")
    parser.add_argument("--samples", type=int, default=16, help="deals per decision in the analysis (default 16)")
    parser.add_argument("--chunk", type=int, default=10, help="matches per chunk (one lineup, one seed)")
    parser.add_argument("--games", default=",".join(GAMES), help="draw, all-fives or both (comma-separated)")
    parser.add_argument("--resample", type=int, default=2000, help="match-bootstrap sets per side")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the decision records are kept")
    parser.add_argument("--cached-only", action="store_true", help="simulate nothing: report on the chunks "
                        "already in the cache (a run cut short), saying how many matches that is")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    seed = TUNING_SEED if args.tune else 0
    results = {"thresholds": {"look_closer": LOOK_CLOSER, "strong_signal": STRONG_SIGNAL,
                              "min_peek_decisions": MIN_PEEK_DECISIONS, "cost_edges": COST_EDGES,
                              "honest_rates": HONEST_RATES}, "samples": args.samples, "set_size": args.set_size,
               "peeker_matches": args.peeker_matches, "honest_matches": args.honest_matches}
    for variant in args.games.split(","):
        honest_chunks = collect(args.cache, variant, PAIRINGS, args.honest_matches, seed, args.samples, args.chunk,
                                "honest", args.cached_only)
        peeker_chunks = collect(args.cache, variant, PEEKER_LINEUPS, args.peeker_matches, seed, args.samples,
                                args.chunk, "peeker", args.cached_only)
        played = {"honest_matches": sum(int(item["matches"]) for item in honest_chunks),  # type: ignore[call-overload]
                  "peeker_matches": sum(int(item["matches"]) for item in peeker_chunks)}  # type: ignore[call-overload]
        print(f"{variant}: {played['honest_matches']} honest and {played['peeker_matches']} peeker matches")
        honest, peeker = by_bot(honest_chunks), by_bot(peeker_chunks)
        if args.tune:
            results[variant] = {**played, **tune(variant, honest, peeker, args.set_size)}
            continue
        table = evaluate(variant, honest, peeker, args.set_size, args.resample, seed)
        results[variant] = {**played, **table}
        print(f"{variant}: sets of {args.set_size} matches, {args.samples} deals per decision, held-out seeds")
        for name, row in table.items():
            print(f"  {name:<24} " + ", ".join(f"{key} {value if not isinstance(value, float) else round(value, 2)}"
                                               for key, value in row.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
