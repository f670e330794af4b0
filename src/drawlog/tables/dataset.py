"""The statistics folder: writing it in one pass over the logs (here or at a URL), and reading it back.

:func:`write_tables` validates the logs once, with a
:class:`~drawlog.stats.StatsRecorder` on the replay, and writes the six
Parquet tables into a new generation folder in ``out``, then switches to it
(:mod:`~drawlog.tables.generations`): a re-run replaces the tables all at once,
never leaving a mix of old and new files, and readers of the old ones go on. A
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
from typing import Any

from ..check.pool import is_standard_input
from ..check.validator import Validator
from ..check.violations import Summary
from ..errors import NothingRead, OutputError
from ..log.events import LOG_FORMAT, LOG_FORMAT_CHANGES
from ..log.reader import expand_paths
from ..log.remote import is_url
from .analysis_tables import keep_analysis
from .generations import current
from .output import MANIFEST, OutputFolder
from .partitions import write_partitioned
from .reading import TABLE_FORMAT, _table_format, open_local_tables, table_sources
from .stats import MATCH_KEYS, TABLES, WRITE_SCHEMAS
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
from .writers import ROWS_PER_GROUP
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
    5: "every table a folder (TABLE/part-GGGGG.parquet, or TABLE/KEY=NAME/part-GGGGG-N.parquet), whatever wrote it; "
       "matches.meta (the whole object, as JSON), bots and bot_versions; a deals table (each hand dealt, the "
       "stock in draw order); rounds.shuffle_doubles, shuffle_doubles_expected, shuffle_doubles_p, "
       "shuffle_suits_chi2, shuffle_suits_p; _inputs.json, the index of the inputs for incremental runs",
}


def write_tables(
    paths: Sequence[str | Path],
    out: str | Path,
    partition_by: str | None = None,
    validator: Validator | None = None,
    jobs: int = 1,
    rows_per_group: int = ROWS_PER_GROUP,
    codes: frozenset[str] | None = None,
    rebuild: bool = False,
) -> Summary:
    """Validate ``paths`` and write the six tables to ``out`` (replaced all at once).

    Rows are written ``rows_per_group`` at a time (one Parquet row group each).
    Each table is a folder, ``TABLE/part-GGGGG.parquet`` (with ``partition_by``:
    ``TABLE/KEY=NAME/part-GGGGG-N.parquet``), whatever wrote it.

    When ``out`` holds tables of the same inputs written before, only the
    inputs new or changed since (and those after them) are replayed
    (:mod:`~drawlog.tables.incremental`; ``rebuild``: all of them): the tables
    are a full rebuild's all the same. The manifest's ``incremental`` says how
    many inputs were reused, replayed and dropped.

    With ``jobs`` > 1 the input files are replayed in parts by that many
    processes and joined in input order (:mod:`drawlog.tables.parallel`): the
    same tables, row for row, as one process writes. ``codes`` limits the
    violations reported (in the violations table and the summary), as
    ``validator`` does when given; the replay checks every rule. ``validator``
    (its ``on_block`` and ``summary.matches``) also hears of the workers'
    reading, for progress displays.
    """
    from .. import __version__
    from . import incremental

    names, out = [str(path) for path in paths], Path(out)
    if partition_by is not None and partition_by not in PARTITION_KEYS:
        raise OutputError(f"cannot partition by {partition_by!r}: choose one of {', '.join(PARTITION_KEYS)}")
    folder = OutputFolder(out).open()  # locked, put right after a killed run, checked
    staging = folder.staging
    flat = staging / "_flat"
    flat.mkdir(parents=True)
    try:
        inputs = list(expand_paths(names))
        validator = validator or Validator(codes)
        options = incremental.options_key(validator, __version__)
        old = folder.previous  # the tables replaced (the current generation)
        index = incremental.read_index(old) if (old / MANIFEST).is_file() and \
            _table_format(old / MANIFEST) == TABLE_FORMAT else None
        plan = incremental.plan(index, inputs, options, partition_by, TABLE_FORMAT, __version__,
                                validator.ignored_in, rebuild)
        seen = ended = None
        if plan.kept:
            incremental.carry_over(old, staging, plan)
            seen, ended = incremental.seen_before(plan), incremental.ended_before(old, plan)
        shares: list[tuple[Summary, dict[str, int]]] = []
        summary = Summary()
        if plan.replay or not plan.kept:
            summary = _replay(plan, flat, validator, jobs, rows_per_group, seen, ended, shares)
        total = incremental.summed(plan.kept, summary)
        if total.files == 0 and total.unreadable:
            raise NothingRead(str(out), _unreadable(flat))
        if plan.replay or not plan.kept:
            _lay_out(flat, staging, partition_by, plan.generation)
        shutil.rmtree(flat)
        _fill_empty(staging, plan.generation)
        if plan.indexed:
            notes = list(plan.kept)
            for item, stats, (share, starts) in zip(plan.replay, plan.stats, shares):
                item_file, item_path = incremental.identity(item) or ("", "")
                found = incremental.hashed(stats)
                size, mtime, checked, digest = found[2:] if found is not None else (-1, -1, 0, "")
                notes.append(incremental.InputNote(
                    file=item_file, path=item_path, size=size, mtime_ns=mtime, checked_ns=checked, hash=digest,
                    generation=plan.generation, starts=starts, summary=share,
                    ignored=sorted(validator.ignored_in(item_file)) if validator.ignored_in is not None else []))
            incremental.write_index(staging, incremental.InputsIndex(
                drawlog=__version__, table_format=TABLE_FORMAT, options=options, partition_by=partition_by,
                inputs=notes))
        counts = {"reused": plan.reused, "replayed": len(plan.replay), "dropped": plan.dropped,
                  "indexed": plan.indexed, "why_all": plan.reason if not plan.kept else None}
        _write_manifest(staging, names, partition_by, total, _rows(staging), counts)
        keep_analysis(old, staging)  # analyze --out's tables stay beside these
        folder.swap_in()
    finally:
        folder.close()  # (the new tables removed, unless they were switched in)
    return total


def _replay(plan: Any, flat: Path, validator: Validator, jobs: int, rows_per_group: int,
            seen: dict[str, tuple[str, int]] | None, ended: list[Any] | None,
            shares: list[tuple[Summary, dict[str, int]]]) -> Summary:
    """Replay the plan's inputs into ``flat`` (going on from ``seen`` and ``ended``); each input's share noted."""
    from .writing import InputTracker

    inputs = plan.replay
    done = None
    jobs = min(jobs, len(inputs), os.cpu_count() or 1)  # more processes than inputs or cores gain nothing
    if jobs > 1 and not any(is_standard_input(item) for item in inputs):
        from . import parallel

        done = parallel.write_in_parallel(inputs, flat, jobs, validator, rows_per_group, seen=seen, ended_keys=ended,
                                          on_input=(lambda share, starts: shares.append((share, starts)))
                                          if plan.indexed else None)
    if done is None:
        if seen:
            validator.replay.started_before(seen)
        tracker = InputTracker(validator) if plan.indexed else None
        done = write_in_one_process(tracker.inputs(inputs) if tracker is not None else inputs, flat, validator,
                                    rows_per_group=rows_per_group, ended=ended)
        if tracker is not None:
            validator.replay.on_first_start = None
            shares.extend(zip(tracker.summaries, tracker.starts))
    return done[0]


def _lay_out(flat: Path, staging: Path, partition_by: str | None, generation: int) -> None:
    """Put the flat tables of this run into their folders as generation ``generation``."""
    if partition_by:
        write_partitioned(flat, staging, partition_by, generation)
        return
    for name in TABLES:
        (staging / name).mkdir(exist_ok=True)
        os.replace(flat / f"{name}.parquet", staging / name / f"part-{generation:05d}.parquet")


def _fill_empty(staging: Path, generation: int) -> None:
    """Give a table left without a file (every row filtered out) an empty one, so that it can be read."""
    import pyarrow.parquet as pq

    for name in TABLES:
        folder = staging / name
        if not any(folder.rglob("*.parquet")) if folder.is_dir() else True:
            folder.mkdir(exist_ok=True)
            pq.write_table(WRITE_SCHEMAS[name].empty_table(), folder / f"part-{generation:05d}.parquet")


def _rows(staging: Path) -> dict[str, int]:
    """Rows of each table in ``staging`` (from the files' footers)."""
    import pyarrow.parquet as pq

    return {name: sum(pq.read_metadata(file).num_rows for file in sorted((staging / name).rglob("*.parquet")))
            for name in TABLES}


def _unreadable(folder: Path) -> list[tuple[str, int | None, str]]:
    """``(file, line, reason)`` of each unreadable input (F007) in a folder's violations table."""
    import pyarrow.parquet as pq

    table = pq.read_table(folder / "violations.parquet", columns=["file", "line", "code", "message"])  # (flat)
    return [(row["file"], row["line"], row["message"]) for row in table.to_pylist() if row["code"] == "F007"]


def _write_manifest(staging: Path, paths: list[str], partition_by: str | None, summary: Summary,
                    rows: dict[str, int], incremental: dict[str, Any] | None = None) -> None:
    import msgspec

    from .. import __version__

    manifest = {
        "drawlog": __version__, "table_format": TABLE_FORMAT,
        "changes": {str(version): change for version, change in TABLE_CHANGES.items()},
        "log_format": LOG_FORMAT, "log_format_changes": LOG_FORMAT_CHANGES,
        "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "inputs": paths, "partition_by": partition_by, "rows": rows,
        "summary": msgspec.to_builtins(summary),
        **({"incremental": incremental} if incremental is not None else {}),
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
        upload(current(scratch / "tables") or scratch / "tables", fs, staging)  # (the generation's files)
        commit(fs, staging, path)
    except BaseException:
        remove(fs, staging)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return summary
