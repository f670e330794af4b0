"""For the tests of runs in parts (``--jobs``) and on a cluster: logs whose match ids meet across files, Ctrl-C.

Not a test module: imported by ``test_parallel`` and ``test_cluster`` (pytest puts this folder on the path).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
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


def interrupted(args: Sequence[str], ready: Callable[[], bool], env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``drawlog ARGS`` in a session of its own and, once ``ready()``, send SIGINT to its whole process group
    (what Ctrl-C does: workers too); its exit status and standard error."""
    command = [sys.executable, "-c", "from drawlog.cli import main; main()", *args]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not ready():
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr.decode()
