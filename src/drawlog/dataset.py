"""The statistics folder: writing it in one pass over the logs, and reading it back.

:func:`write_tables` validates the logs once, with a
:class:`~drawlog.stats.StatsRecorder` on the replay, and writes the five
Parquet tables into a fresh folder beside ``out``, then swaps it in: a re-run
replaces the tables all at once, never leaving a mix of old and new files. A
folder drawlog did not write is never replaced. :func:`open_tables` reads the
tables back as polars LazyFrames, partitioned or not.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import DrawlogError
from .stats import MATCH_KEYS, SCHEMAS, TABLES, StatsRecorder, TableSink
from .validator import Validator
from .violations import Summary, Violation

MANIFEST = "_drawlog.json"
PARTITION_KEYS = (*MATCH_KEYS, "file")


class OutputError(DrawlogError):
    """The statistics folder cannot be written (or read) as asked."""


def check_out_dir(out: Path) -> None:
    """Refuse a folder drawlog did not write (or a file) before any work is done."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise OutputError(f"{out} holds files drawlog did not write (no {MANIFEST}); "
                          f"choose another --out or empty it")


def write_tables(
    paths: list[str],
    out: Path,
    partition_by: str | None = None,
    on_violation: Callable[[Violation], None] | None = None,
    validator: Validator | None = None,
) -> Summary:
    """Validate ``paths`` and write the five tables to ``out`` (replaced all at once)."""
    if partition_by is not None and partition_by not in PARTITION_KEYS:
        raise OutputError(f"cannot partition by {partition_by!r}: choose one of {', '.join(PARTITION_KEYS)}")
    check_out_dir(out)
    validator = validator or Validator()
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    flat = staging / "_flat" if partition_by else staging
    flat.mkdir(parents=True)
    try:
        sinks = {name: TableSink(flat / f"{name}.parquet", schema) for name, schema in SCHEMAS.items()}
        recorder = StatsRecorder(sinks, lambda: validator.reporter.file)
        validator.replay.observer = recorder
        try:
            for violation in validator.validate_paths(paths):
                recorder.violation(violation)
                if on_violation is not None:
                    on_violation(violation)
        finally:
            for sink in sinks.values():
                sink.close()
        if partition_by:
            _partition(flat, staging, partition_by)
            shutil.rmtree(flat)
        _write_manifest(staging, paths, partition_by, validator.summary, {n: s.rows for n, s in sinks.items()})
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return validator.summary


def _partition(flat: Path, staging: Path, key: str) -> None:
    import pyarrow.dataset as ds

    import pyarrow.parquet as pq

    for name in TABLES:
        source = ds.dataset(flat / f"{name}.parquet", format="parquet")
        if source.count_rows() == 0:  # no partition folder would be written: keep an empty, typed file
            (staging / name).mkdir()
            pq.write_table(source.to_table(), staging / name / "part-0.parquet")
            continue
        ds.write_dataset(source, staging / name, format="parquet", partitioning=[key],
                         partitioning_flavor="hive", existing_data_behavior="error",
                         basename_template="part-{i}.parquet")


def _write_manifest(staging: Path, paths: list[str], partition_by: str | None, summary: Summary,
                    rows: dict[str, int]) -> None:
    import msgspec

    from . import __version__

    manifest = {
        "drawlog": __version__, "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "inputs": paths, "partition_by": partition_by, "rows": rows,
        "summary": msgspec.to_builtins(summary),
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _swap_in(staging: Path, out: Path) -> None:
    """Put the new folder in place of the old one: two renames, never a mix of old and new tables."""
    if out.exists():
        retired = out.parent / f".{out.name}.old-{os.getpid()}"
        out.rename(retired)
        staging.rename(out)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        staging.rename(out)


def table_sources(folder: Path) -> Iterator[tuple[str, Path, bool]]:
    """``(name, path, partitioned)`` of each table in a statistics folder."""
    for name in TABLES:
        single = folder / f"{name}.parquet"
        if single.is_file():
            yield name, single, False
        elif (folder / name).is_dir():
            yield name, folder / name, True


def open_tables(folder: Path):  # noqa: ANN201 - dict[str, polars.LazyFrame]
    """The tables of a statistics folder as polars LazyFrames, by name."""
    import polars as pl

    if not (folder / MANIFEST).is_file():
        raise OutputError(f"{folder} is not a drawlog statistics folder (no {MANIFEST}); "
                          f"write one with `drawlog stats LOGS --out {folder}`")
    frames = {}
    for name, path, partitioned in table_sources(folder):
        if partitioned:
            frames[name] = pl.scan_parquet(path / "**" / "*.parquet", hive_partitioning=True)
        else:
            frames[name] = pl.scan_parquet(path)
    return frames
