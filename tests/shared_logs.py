"""Logs whose match ids meet across files, for the tests of runs in parts (``--jobs``) and on a cluster.

Not a test module: imported by ``test_parallel`` and ``test_cluster`` (pytest puts this folder on the path).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def sample_lines(name: str) -> list[str]:
    """The lines of a sample log, each with its newline."""
    return (SAMPLES / name).read_text(encoding="utf-8").splitlines(keepends=True)


def write_shared_ids(logs: Path, copies: Sequence[str] = ("a", "b", "c"), cut: int = 120,
                     samples: Sequence[str] = ("every-violation.jsonl", "interleaved.jsonl", "all-fives.jsonl")) -> Path:
    """Write into ``logs``: copies of a log (every match of the later ones started first in the first), a log
    cut every ``cut`` lines (F006 in one file, F004 'which has ended' in the next), a match started twice in one
    file, the ``samples`` and every-violation.jsonl again (faulty matches again)."""
    logs.mkdir(parents=True, exist_ok=True)
    two = sample_lines("tournament-2p.jsonl")
    for name in copies:
        (logs / f"{name}-copy.jsonl").write_text("".join(two), encoding="utf-8")
    three = sample_lines("tournament-3p.jsonl")
    for index in range(0, len(three), cut):
        (logs / f"d-cut-{index:05d}.jsonl").write_text("".join(three[index:index + cut]), encoding="utf-8")
    first = two[:two.index(next(line for line in two[1:] if '"match_start"' in line))]
    (logs / "e-twice.jsonl").write_text("".join(first + first), encoding="utf-8")  # F005 within the file too
    for name in samples:
        shutil.copy(SAMPLES / name, logs / f"f-{name}")
    shutil.copy(SAMPLES / "every-violation.jsonl", logs / "g-every-violation-again.jsonl")
    return logs
