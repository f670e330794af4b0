"""Regenerate sample_logs/ from fixed seeds (a test checks the files are current).

Usage: python scripts/make_sample_logs.py [OUT_DIR]   (default: sample_logs/)
"""

from __future__ import annotations

import gzip
import io
import json
import random
import re
import sys
from pathlib import Path

from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "codes"


def _tournament(seed: int, players: int, matches: int, name: str) -> list[bytes]:
    options = SimulationOptions(players=players, bots=("greedy", "random"), log_seq=True, reveal_hands=True,
                                match_prefix=f"{name}-", meta={"tournament": "sample-cup", "table": name})
    lines: list[bytes] = []
    for events in Simulator(seed, options).matches(matches):
        lines += encode_events(events)
    return lines


def _interleaved(seed: int) -> list[bytes]:
    options = SimulationOptions(players="mixed", bots=("random", "greedy"), log_seq=True,
                                match_prefix="night-", meta={"tournament": "night-league"})
    simulator = Simulator(seed, options)
    return encode_events(interleave(list(simulator.matches(4)), random.Random(seed)))


def _all_fives(seed: int) -> list[bytes]:
    """An All Fives table: 2, 3 and 4 players, then 2 players on the seed's house deal of 7 tiles each."""
    lines: list[bytes] = []
    for number, (players, rules) in enumerate(((2, None), (3, None), (4, None), (2, {"hand": 7})), 1):
        options = SimulationOptions(players=players, bots=("tactician", "greedy", "random"), variant="all-fives",
                                    rules=rules, log_seq=True, reveal_hands=True,
                                    meta={"tournament": "fives-open", "table": "af"})
        lines += encode_events(Simulator(seed + number, options).match(f"af-{number:06d}"))
    return lines


def _every_violation() -> list[bytes]:
    """The trigger fixtures of every code, one after another, match ids made unique per fixture."""
    expected = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
    lines: list[bytes] = []
    for name in sorted(expected):
        path = FIXTURES / name
        if not re.fullmatch(r"[A-Z]\d{3}\.jsonl", name) or name.startswith(("F007", "W404")):
            continue  # variants and clean twins stay in the tests; unreadable or empty input cannot live in a log
        prefix = name.removesuffix(".jsonl").encode()
        for line in path.read_bytes().splitlines(keepends=True):
            lines.append(line.replace(b'"match":"', b'"match":"' + prefix + b"-"))
    return lines


def build() -> dict[str, bytes]:
    """File name → content of every sample log (gzip written with a fixed timestamp)."""
    files = {
        "tournament-2p.jsonl": b"".join(_tournament(2002, 2, 3, "t2")),
        "tournament-3p.jsonl": b"".join(_tournament(3003, 3, 3, "t3")),
        "tournament-4p.jsonl": b"".join(_tournament(4004, 4, 3, "t4")),
        "interleaved.jsonl": b"".join(_interleaved(5005)),
        "all-fives.jsonl": b"".join(_all_fives(7007)),
        "every-violation.jsonl": b"".join(_every_violation()),
    }
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0) as archive:
        archive.write(b"".join(_tournament(6006, 3, 5, "gz")))
    files["archive.jsonl.gz"] = packed.getvalue()
    return files


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, content in build().items():
        (out / name).write_bytes(content)
        print(f"wrote {out / name} ({len(content):,} bytes)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "sample_logs")
