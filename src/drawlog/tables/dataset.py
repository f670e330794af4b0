"""The statistics folder: writing it in one pass over the logs (here or at a URL), and reading it back.

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
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ..check.pool import is_standard_input
from ..check.validator import Validator
from ..check.violations import Summary
from ..errors import NothingRead, OutputError
from ..log.events import LOG_FORMAT, LOG_FORMAT_CHANGES
from ..log.reader import expand_paths
from ..log.remote import is_url
from .output import MANIFEST, OutputFolder
from .partitions import write_partitioned
from .reading import TABLE_FORMAT, open_local_tables, table_sources
from .sinks import ROWS_PER_GROUP
from .stats import MATCH_KEYS
from .storage import (
    check_remote_out,
    commit,
    local_path,
    open_tables_at_url,
    remove,
    staging_path,
    target,
    upload,
)
from .writing import write_in_one_process

__all__ = ["MANIFEST", "PARTITION_KEYS", "TABLE_CHANGES", "TABLE_FORMAT", "OutputError", "open_tables",
           "table_sources", "write_tables", "write_tables_at_url"]

PARTITION_KEYS = (*MATCH_KEYS, "variant", "file")
#: What each ``table_format`` changed, written into the manifest as ``changes``.
TABLE_CHANGES = {
    2: "All Fives: variant in every table; rounds.spinner; players.play_points and end_points; moves.points, "
       "claimed_points, up and down; moves.end may be up or down",
    3: "names that are not SQL keywords: moves.end, left, right, up, down are placed_end, left_end, right_end, "
       "up_end, down_end; tiles (moves.tile, rounds.opening_tile, rounds.spinner) are lists of two int8, low "
       "first; moves.faults is a list of codes; points, scores and their claims are all int64; a path column "
       "(absolute; null for standard input) beside file (as given) in every table",
    4: "log format 1.2: rounds.reason may be target (All Fives); matches.forfeit and forfeit_reason; "
       "violations.follows (the line of the root violation, null for a root)",
}


def write_tables(
    paths: Sequence[str | Path],
    out: str | Path,
    partition_by: str | None = None,
    validator: Validator | None = None,
    jobs: int = 1,
    rows_per_group: int = ROWS_PER_GROUP,
    codes: frozenset[str] | None = None,
) -> Summary:
    """Validate ``paths`` and write the five tables to ``out`` (replaced all at once).

    Rows are written ``rows_per_group`` at a time (one Parquet row group each).

    With ``jobs`` > 1 the input files are replayed in parts by that many
    processes and joined in input order (:mod:`drawlog.tables.parallel`): the
    same tables, row for row and row group for row group, as one process
    writes. ``codes`` limits the violations reported (in the violations table
    and the summary), as ``validator`` does when given; the replay checks every
    rule. ``validator`` (its ``on_block`` and ``summary.matches``) also hears
    of the workers' reading, for progress displays.
    """
    names, out = [str(path) for path in paths], Path(out)
    if partition_by is not None and partition_by not in PARTITION_KEYS:
        raise OutputError(f"cannot partition by {partition_by!r}: choose one of {', '.join(PARTITION_KEYS)}")
    folder = OutputFolder(out).open()  # locked, put right after a killed run, checked
    staging = folder.staging
    flat = staging / "_flat" if partition_by else staging
    flat.mkdir(parents=True)
    try:
        inputs = list(expand_paths(names))
        done = None
        validator = validator or Validator(codes)
        jobs = min(jobs, len(inputs), os.cpu_count() or 1)  # more processes than inputs or cores gain nothing
        if jobs > 1 and not any(is_standard_input(item) for item in inputs):
            from . import parallel

            done = parallel.write_in_parallel(inputs, flat, jobs, validator, rows_per_group)
        if done is None:
            done = write_in_one_process(inputs, flat, validator, rows_per_group=rows_per_group)
        summary, rows = done
        if summary.files == 0 and summary.unreadable:
            raise NothingRead(str(out), _unreadable(flat))
        if partition_by:
            write_partitioned(flat, staging, partition_by)
            shutil.rmtree(flat)
        _write_manifest(staging, names, partition_by, summary, rows)
        folder.swap_in()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        folder.close()
    return summary


def _unreadable(folder: Path) -> list[tuple[str, int | None, str]]:
    """``(file, line, reason)`` of each unreadable input (F007) in a folder's violations table."""
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "violations.parquet", columns=["file", "line", "code", "message"])
    return [(row["file"], row["line"], row["message"]) for row in table.to_pylist() if row["code"] == "F007"]


def _write_manifest(staging: Path, paths: list[str], partition_by: str | None, summary: Summary,
                    rows: dict[str, int]) -> None:
    import msgspec

    from .. import __version__

    manifest = {
        "drawlog": __version__, "table_format": TABLE_FORMAT,
        "changes": {str(version): change for version, change in TABLE_CHANGES.items()},
        "log_format": LOG_FORMAT, "log_format_changes": LOG_FORMAT_CHANGES,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "inputs": paths, "partition_by": partition_by, "rows": rows,
        "summary": msgspec.to_builtins(summary),
    }
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def open_tables(folder: str | Path):
    """The tables of a statistics folder (a local one, or one at a URL) as polars LazyFrames, by name.

    A folder drawlog did not write, one of an older table format, a table
    missing, or a table file that is not Parquet raises :class:`OutputError`
    naming it.
    """
    if isinstance(folder, str) and is_url(folder):  # s3://…, memory://…: through fsspec
        return open_tables_at_url(folder)
    return open_local_tables(folder)


def write_tables_at_url(paths: Sequence[str], url: str, partition_by: str | None = None,
                        validator: Validator | None = None, jobs: int = 1,
                        codes: frozenset[str] | None = None) -> Summary:
    """:func:`write_tables` to a URL: written locally, uploaded, committed (see :mod:`~drawlog.tables.storage`)."""
    fs, path = target(url)
    local = local_path(fs, path)
    if local is not None:
        return write_tables(paths, local, partition_by, validator=validator, jobs=jobs, codes=codes)
    check_remote_out(fs, path, url)
    scratch = Path(tempfile.mkdtemp(prefix="drawlog-"))
    staging = staging_path(path)
    try:
        summary = write_tables(paths, scratch / "tables", partition_by, validator=validator, jobs=jobs, codes=codes)
        upload(scratch / "tables", fs, staging)
        commit(fs, staging, path)
    except BaseException:
        remove(fs, staging)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return summary
