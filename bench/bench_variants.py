"""Validate speed per game (Draw, All Fives), paired against block decoding, and engine-only replay.

For each variant a simulated log is generated once (cached in ``bench/data/``).
Then, in one process, the two measurements are taken in turns, A B A B …:

* **decode** — the baseline: the file read by the validator's own reader
  (:func:`drawlog.log.reader.read_blocks`) and every block decoded by the
  validator's typed decoder in one ``decode_lines`` call, nothing else;
* **validate** — ``Validator().validate_paths([file])`` consumed fully;
* **decode lines** — each line through the same typed decoder, one call a
  line (the older, slower baseline the issues' first targets were set against).

The ratio of a pair is decode time ÷ validate time (validate's share of the
decode throughput); the report is the median of the pairs, with their range.

**Engine only** replays the same matches' moves straight through the rules
engine (``Match.start_round`` and each round's ``try_draw`` / ``try_play`` /
``try_pass``), with the events decoded beforehand: moves per second.

    python bench/bench_variants.py                      # 300,000 events per variant, 7 pairs
    python bench/bench_variants.py --events 1000000 --pairs 9
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import msgspec

import drawlog
from drawlog.check.validator import Validator
from drawlog.engine.match import Deal, Match
from drawlog.engine.profiles import PROFILES
from drawlog.engine.tiles import FULL_SET, bits, tile_id
from drawlog.log.events import AnyEvent, Draw, MatchStart, Pass, Play, RoundStart
from drawlog.log.reader import Source, read_blocks
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

HERE = Path(__file__).resolve().parent
GENERATOR = 1
_DECODER = msgspec.json.Decoder(AnyEvent)


def ensure_log(out: Path, variant: str, events: int, seed: int) -> Path:
    """A cached simulated log of at least ``events`` events (mixed 2–4 players, greedy and random bots)."""
    path = out / f"variant-{variant}-{events}-seed{seed}-g{GENERATOR}.jsonl"
    if path.exists():
        return path
    out.mkdir(parents=True, exist_ok=True)
    simulator = Simulator(seed, SimulationOptions(players="mixed", bots=("greedy", "random"), variant=variant))
    written = 0
    partial = path.with_suffix(".partial")
    with partial.open("wb") as handle:
        index = 0
        while written < events:
            index += 1
            lines = encode_events(simulator.match(f"{variant}{index:07d}"))
            handle.writelines(lines)
            written += len(lines)
    partial.rename(path)
    return path


def decode_blocks(path: Path) -> int:
    """The baseline: read the file as the validator does and decode each block in one call."""
    count = 0
    for block in read_blocks(Source(str(path), path)):
        if isinstance(block, bytes):
            count += len(_DECODER.decode_lines(block))
    return count


def decode_lines(path: Path) -> int:
    """The older baseline: each line decoded on its own."""
    decode = _DECODER.decode
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                decode(line)
                count += 1
    return count


def validate(path: Path) -> int:
    """Validate the file; returns the violations found (a simulated log must have none)."""
    validator = Validator()
    return sum(1 for _ in validator.validate_paths([str(path)]))


def timed(run, *args) -> tuple[float, object]:  # noqa: ANN001
    gc.collect()
    start = time.perf_counter()
    result = run(*args)
    return time.perf_counter() - start, result


def paired(path: Path, pairs: int) -> dict:
    """Decode and validate in turns; the median of the pairs' ratios."""
    ratios, line_ratios, decode_times, validate_times = [], [], [], []
    for _ in range(pairs):
        decode_time, events = timed(decode_blocks, path)
        validate_time, violations = timed(validate, path)
        line_time, _ = timed(decode_lines, path)
        line_ratios.append(line_time / validate_time)
        if violations:
            print(f"WARNING: {violations} violations in a simulated log ({path.name})", file=sys.stderr)
        decode_times.append(decode_time)
        validate_times.append(validate_time)
        ratios.append(decode_time / validate_time)
    return {
        "events": events, "pairs": pairs,
        "ratio_median": round(statistics.median(ratios), 3),
        "ratio_range": [round(min(ratios), 3), round(max(ratios), 3)],
        "ratio_to_line_decode_median": round(statistics.median(line_ratios), 3),
        "decode_s_median": round(statistics.median(decode_times), 3),
        "validate_s_median": round(statistics.median(validate_times), 3),
        "validate_events_per_s": round(events / statistics.median(validate_times)),  # type: ignore[operator]
    }


def rounds_of(path: Path) -> list[tuple[Match, Deal, list[tuple[int, int, tuple[int, int], str | None]]]]:
    """Each round's match settings, deal and moves (seat, kind 0 draw / 1 play / 2 pass, tile, end)."""
    matches: dict[str, Match] = {}
    found = []
    moves: list = []
    for block in read_blocks(Source(str(path), path)):
        for event in _DECODER.decode_lines(block):  # type: ignore[arg-type]
            if isinstance(event, MatchStart):
                rules = PROFILES[event.variant].rules_for(len(event.players))
                matches[event.match] = Match(event.players, rules=rules)
            elif isinstance(event, RoundStart):
                match = matches[event.match]
                hands = [bits(tile_id(t) for t in event.hands[name]) for name in match.names]
                dealt = 0
                for hand in hands:
                    dealt |= hand
                order = [tile_id(t) for t in event.stock] if event.stock is not None else None
                moves = []
                found.append((match, Deal(event.round, match.seat_of[event.opener], hands, FULL_SET & ~dealt,
                                          order), moves))
            elif isinstance(event, (Draw, Play, Pass)):
                seat = matches[event.match].seat_of[event.player]
                if isinstance(event, Play):
                    moves.append((seat, 1, event.tile, event.end))
                elif isinstance(event, Draw):
                    moves.append((seat, 0, event.tile, None))
                else:
                    moves.append((seat, 2, (0, 0), None))
    return found


def engine_only(rounds: list) -> tuple[float, int]:
    """Replay every round's moves through the engine alone; (seconds, moves)."""
    count = 0
    gc.collect()
    start = time.perf_counter()
    for match, deal, moves in rounds:
        state = match.start_round(Deal(deal.number, deal.opener, list(deal.hands), deal.stock,
                                       list(deal.stock_order) if deal.stock_order else None))
        for seat, kind, halves, end in moves:
            if kind == 1:
                state.try_play(seat, halves, end)
            elif kind == 0:
                state.try_draw(seat, halves)
            else:
                state.try_pass(seat)
        count += len(moves)
    return time.perf_counter() - start, count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=HERE / "data")
    parser.add_argument("--variants", default="draw,all-fives")
    parser.add_argument("--results", type=Path, default=HERE / "results" / "variants.json")
    args = parser.parse_args(argv)
    report: dict = {"compiled": drawlog.COMPILED, "python": sys.version.split()[0], "variants": {}}
    for variant in args.variants.split(","):
        path = ensure_log(args.out, variant, args.events, args.seed)
        result = paired(path, args.pairs)
        rounds = rounds_of(path)
        engine = [engine_only(rounds) for _ in range(3)]
        seconds = statistics.median(time for time, _ in engine)
        result["engine_moves"] = engine[0][1]
        result["engine_moves_per_s"] = round(engine[0][1] / seconds)
        report["variants"][variant] = result
        print(f"{variant:10} validate/decode median {result['ratio_median']:.3f} "
              f"(range {result['ratio_range'][0]:.3f}–{result['ratio_range'][1]:.3f}, {args.pairs} pairs; "
              f"to line-by-line decode {result['ratio_to_line_decode_median']:.3f}), "
              f"{result['validate_events_per_s']:,} events/s; engine only "
              f"{result['engine_moves_per_s']:,} moves/s ({'compiled' if drawlog.COMPILED else 'pure Python'})")
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
