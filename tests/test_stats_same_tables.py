"""Issue #24: ``stats`` made faster writes the very same tables, row for row, value for value.

The digests in ``fixtures/stats_tables.json`` were taken from the tables the code wrote before the speed work
(main at 22f9f15, compiled engine) for the sample logs, every table's rows in order; a change meant to alter
the tables must write them again::

    PYTHONPATH=src python tests/test_stats_same_tables.py --write
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
DIGESTS = ROOT / "tests" / "fixtures" / "stats_tables.json"
#: The sample logs, as given to ``stats`` from their folder (``file`` is kept as given; ``path`` is left out).
LOGS = ["tournament-2p.jsonl", "tournament-3p.jsonl", "tournament-4p.jsonl", "all-fives.jsonl",
        "interleaved.jsonl", "every-violation.jsonl", "archive.jsonl.gz"]


def _canonical(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value)  # every bit of a p-value counts
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    return value if value is None or isinstance(value, (str, int, bool)) else str(value)


def table_digests(out: Path) -> dict[str, dict[str, Any]]:
    """Each table's row count, columns and SHA-256 of its rows in order (the ``path`` column left out)."""
    from drawlog.tables.dataset import open_tables

    found = {}
    for name, frame in sorted(open_tables(out).items()):
        table = frame.collect()
        table = table.drop("path") if "path" in table.columns else table
        digest = hashlib.sha256()
        for row in table.iter_rows():
            digest.update(json.dumps(_canonical(list(row)), ensure_ascii=False).encode("utf-8", "surrogatepass"))
            digest.update(b"\n")
        found[name] = {"rows": table.height, "columns": table.columns, "sha256": digest.hexdigest()}
    return found


def write_samples(out: Path) -> dict[str, dict[str, Any]]:
    """Write the sample logs' tables to ``out`` (one process, one pass) and digest them."""
    from drawlog.tables.dataset import write_tables

    here = Path.cwd()
    os.chdir(SAMPLES)
    try:
        write_tables(LOGS, out, rebuild=True)
    finally:
        os.chdir(here)
    return table_digests(out)


def test_the_sample_logs_tables_are_those_written_before_the_speed_work(tmp_path: Path) -> None:
    expected = json.loads(DIGESTS.read_text())
    found = write_samples(tmp_path / "stats")
    assert sorted(found) == sorted(expected)
    for name in expected:
        assert found[name]["rows"] == expected[name]["rows"], name
        assert found[name]["columns"] == expected[name]["columns"], name
        assert found[name]["sha256"] == expected[name]["sha256"], f"the {name} table changed"


def test_the_shuffle_of_the_fair_deals_is_random_shuffle() -> None:
    """The null distributions' deals are drawn as ``random.shuffle`` draws them (so the p-values stay put)."""
    import random

    from drawlog.tables.shuffle import shuffled

    for seed in ("drawlog-shuffle-(7, 7)", "drawlog-shuffle-(9, 9, 9)", 3):
        ours, theirs = random.Random(seed), random.Random(seed)
        tiles, expected = list(range(28)), list(range(28))
        for _ in range(500):
            shuffled(ours, tiles)
            theirs.shuffle(expected)
            assert tiles == expected
        assert ours.random() == theirs.random()  # the same random bits used, no more
    short = [5, 9]
    shuffled(random.Random(1), short)
    assert sorted(short) == [5, 9]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(__doc__)
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        DIGESTS.write_text(json.dumps(write_samples(Path(scratch) / "stats"), indent=1) + "\n")
