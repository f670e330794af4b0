"""Replaying logs into the tables makes no reference cycles: what lets ``stats`` collect garbage rarely.

:func:`~drawlog.tables.writing._rarer_collections` raises the collector's threshold during the replay (issue
#24: its collections took 0.3 of a decoding's time). That holds no more memory only while the replay leaves
nothing that only the collector can free: here every sample log (every violation, interleaved matches, All
Fives, a gzip archive, a missing file) is replayed into the six tables with small row groups (many flushes)
and the collector switched off, and then finds nothing to collect. Run it against the compiled build too
(``PYTHONPATH=<site> python -m pytest tests/test_no_cycles.py``): compiled, a nested function and its closure
refer to each other, which a pure Python run does not show.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from drawlog.check.validator import Validator
from drawlog.log.reader import expand_paths
from drawlog.tables.writing import _rarer_collections, write_in_one_process

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
LOGS = ["tournament-2p.jsonl", "tournament-3p.jsonl", "tournament-4p.jsonl", "all-fives.jsonl",
        "interleaved.jsonl", "every-violation.jsonl", "archive.jsonl.gz"]


@pytest.mark.parametrize(("arrow", "threaded"), [(False, True), (True, False)])
def test_replay_leaves_no_garbage_for_the_collector(tmp_path: Path, arrow: bool, threaded: bool) -> None:
    inputs = [str(SAMPLES / name) for name in LOGS] + [str(tmp_path / "missing.jsonl")]
    validator = Validator()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        summary, rows = write_in_one_process(expand_paths(inputs), tmp_path, validator, arrow=arrow,
                                             rows_per_group=50, threaded=threaded)
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert rows["moves"] > 50 * 20 and rows["violations"] > 0 and summary.matches > 0
    assert found == 0


def test_the_threshold_is_raised_meanwhile_and_given_back() -> None:
    before = gc.get_threshold()
    with _rarer_collections():
        assert gc.get_threshold() == (max(before[0], 200_000), *before[1:])
    assert gc.get_threshold() == before
