"""On-demand benchmark of simulation and engine-only replay (not part of the test suite).

Usage::

    python bench/bench_simulate.py [--matches 2000] [--seed 7]

Measures in one process, best of ``--repeat`` runs:

* simulation: ``Simulator.match`` with greedy/random/tactician bots, moves per second
  (a move is a draw, play or pass);
* engine-only replay: the same matches' events already in memory, replayed through
  ``Validator.validate_events`` (every rule checked), moves and events per second;
* the decode baseline of the validate benchmark: the same events as JSON lines
  decoded one by one with a reused typed ``msgspec.json.Decoder``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import msgspec

from drawlog.check.validator import Validator
from drawlog.log.events import AnyEvent, Draw, Pass, Play
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    options = SimulationOptions(players="mixed", bots=("greedy", "random", "tactician"))

    def simulate() -> list:
        return [event for events in Simulator(args.seed, options).matches(args.matches) for event in events]

    sim_seconds, events = best_of(args.repeat, simulate)
    moves = sum(isinstance(event, (Draw, Play, Pass)) for event in events)  # type: ignore[union-attr]
    lines = encode_events(events)  # type: ignore[arg-type]
    decoder = msgspec.json.Decoder(AnyEvent)

    def decode() -> int:
        for line in lines:
            decoder.decode(line)
        return len(lines)

    def replay() -> int:
        validator = Validator()
        found = list(validator.validate_events(events))  # type: ignore[arg-type]
        assert not found, found[:3]
        return validator.summary.events

    decode_seconds, _ = best_of(args.repeat, decode)
    replay_seconds, _ = best_of(args.repeat, replay)
    count = len(events)  # type: ignore[arg-type]
    print(f"{args.matches:,} matches, {count:,} events, {moves:,} moves (seed {args.seed})")
    print(f"{'measurement':28s} {'seconds':>8s} {'moves/s':>12s} {'events/s':>12s}")
    for name, seconds in (("simulate (3 bots)", sim_seconds), ("engine-only replay", replay_seconds),
                          ("decode baseline (typed)", decode_seconds)):
        print(f"{name:28s} {seconds:8.3f} {moves / seconds:12,.0f} {count / seconds:12,.0f}")
    print(f"replay / decode: {decode_seconds / replay_seconds:.3f}")


if __name__ == "__main__":
    main()
