"""The statistics folder: writing it in one pass over the logs, and reading it back.

:func:`write_tables` validates the logs once, with a
:class:`~drawlog.stats.StatsRecorder` on the replay, and writes the five
Parquet tables into a fresh folder beside ``out``, then swaps it in: a re-run
replaces the tables all at once, never leaving a mix of old and new files. A
folder drawlog did not write is never replaced. :func:`open_tables` reads the
tables back as polars LazyFrames, partitioned or not.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..check.pool import is_standard_input
from ..check.validator import Validator
from ..check.violations import Summary, Violation
from ..errors import InputError, NothingRead, OutputError
from ..log.events import LOG_FORMAT, LOG_FORMAT_CHANGES
from ..log.reader import Source, expand_paths
from .output import MANIFEST, OutputFolder, recover
from .partitions import keeps_keys, write_partitioned
from .sinks import ROWS_PER_GROUP, MoveSink, TableSink, WriterThread
from .stats import MATCH_KEYS, SCHEMAS, TABLES, StatsRecorder

PARTITION_KEYS = (*MATCH_KEYS, "variant", "file")
#: The version of the tables' columns, ``table_format`` in the manifest (a manifest without it is 1).
TABLE_FORMAT = 4
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
            done = _write_in_one_process(inputs, flat, validator, rows_per_group=rows_per_group)
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


def _write_in_one_process(inputs: Iterable[Source | InputError], folder: Path, validator: Validator,
                          arrow: bool = False, rows_per_group: int = ROWS_PER_GROUP, threaded: bool = True,
                          watch: Callable[[StatsRecorder, Violation], None] | None = None,
                          ended: list[tuple[str, str | None, str | None, str]] | None = None,
                          ) -> tuple[Summary, dict[str, int]]:
    """Replay ``inputs`` once, writing the tables into ``folder``; ``threaded``: encode in a writer thread.

    ``watch`` sees each violation just before the recorder adds it to the violations table.
    ``ended``: the keys of matches lately ended by inputs read before (see
    :meth:`~drawlog.tables.stats.StatsRecorder.ended_before`).
    """
    with _system_memory_pool(), _rarer_collections():
        suffix = "arrow" if arrow else "parquet"
        background = WriterThread() if threaded else None
        sinks = {name: (MoveSink if name == "moves" else TableSink)(folder / f"{name}.{suffix}", schema,
                                                                    rows_per_group, arrow, background)
                 for name, schema in SCHEMAS.items()}
        recorder = StatsRecorder(sinks, lambda: validator.reporter.file)
        if ended:
            recorder.ended_before(ended)
        validator.replay.observer = recorder
        try:
            for violation in validator.validate_inputs(inputs):
                if watch is not None:
                    watch(recorder, violation)
                recorder.violation(violation)
        finally:
            try:
                try:
                    for sink in sinks.values():
                        sink.flush()
                finally:
                    if background is not None:
                        background.close()  # every row group written before the files are closed
            finally:
                validator.replay.observer = None  # (the recorder refers to the validator: no cycle left behind)
                for sink in sinks.values():
                    sink.close()
    return validator.summary, {name: sink.rows for name, sink in sinks.items()}


@contextmanager
def _system_memory_pool() -> Iterator[None]:
    """Arrow allocates from the C library's malloc meanwhile (unless ``ARROW_DEFAULT_MEMORY_POOL`` chooses).

    Arrow's default, mimalloc, hands freed row groups back to the system and
    takes fresh (huge, zeroed) pages for the next: about 10 % of the CPU time of
    a statistics run on the benchmark log, and 35 MB more memory at its peak.
    """
    import pyarrow as pa

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


@contextmanager
def _rarer_collections(young: int = 50_000) -> Iterator[None]:
    """Python's garbage collector looks at new objects after every ``young`` allocations meanwhile (not 700).

    The buffered rows of the tables are many small containers that live until
    their row group is written, and the collector went over them again and
    again: about 7 % of a statistics run's time on the benchmark log. The
    replay makes no reference cycles, so collecting less often holds no more memory.
    """
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], young), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


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


def _table_format(manifest: Path) -> int:
    """The ``table_format`` a manifest names (1 when it names none, 0 when it cannot be read)."""
    try:
        written = json.loads(manifest.read_text(encoding="utf-8")).get("table_format", 1)
    except (OSError, ValueError, AttributeError):
        return 0
    return written if isinstance(written, int) else 0


def _quoted(path: Path | str) -> str:
    import shlex

    return shlex.quote(str(path))


def _inputs_of(manifest: Path) -> str:
    """The logs a manifest says the tables came from, quoted for a shell (``LOGS`` when it names none)."""
    try:
        inputs = json.loads(manifest.read_text(encoding="utf-8")).get("inputs")
    except (OSError, ValueError, AttributeError):
        inputs = None
    if not isinstance(inputs, list) or not inputs or not all(isinstance(item, str) for item in inputs):
        return "LOGS"
    return " ".join(_quoted(item) for item in inputs)


def _not_a_statistics_folder(folder: Path) -> str:
    """Why ``folder`` cannot be read as tables, and what to do that works."""
    if not folder.exists():
        return f"no folder {folder}; write the tables first: `drawlog stats LOGS --out {_quoted(folder)}` " \
               f"(LOGS: your log files or folders)"
    if not folder.is_dir():
        parent = folder.parent
        if (parent / MANIFEST).is_file() or (parent.parent / MANIFEST).is_file():
            found = parent if (parent / MANIFEST).is_file() else parent.parent
            return f"{folder} is a file of the statistics folder {found}: give the folder"
        return f"{folder} is a file, not a folder of tables written by `drawlog stats`"
    if any(folder.iterdir()):
        return f"{folder} is not a drawlog statistics folder (no {MANIFEST}): give the folder that " \
               f"`drawlog stats --out` or `drawlog audit --out` wrote"
    return f"{folder} is empty; write the tables first: `drawlog stats LOGS --out {_quoted(folder)}` " \
           f"(LOGS: your log files or folders)"


def table_sources(folder: Path) -> Iterator[tuple[str, Path, bool]]:
    """``(name, path, partitioned)`` of each table in a statistics folder."""
    for name in TABLES:
        single = folder / f"{name}.parquet"
        if single.is_file():
            yield name, single, False
        elif (folder / name).is_dir():
            yield name, folder / name, True


def open_tables(folder: str | Path):  # noqa: ANN201 - dict[str, polars.LazyFrame]
    """The tables of a statistics folder as polars LazyFrames, by name.

    A folder drawlog did not write, one of an older table format, a table
    missing, or a table file that is not Parquet raises :class:`OutputError`
    naming it.
    """
    import polars as pl
    import pyarrow.parquet as pq

    from ..log.remote import is_url

    if isinstance(folder, str) and is_url(folder):  # s3://…, memory://…: through fsspec
        from .storage import open_tables_at_url

        return open_tables_at_url(folder)
    folder = Path(folder)
    recover(folder)  # the tables a killed run left aside, put back
    if not (folder / MANIFEST).is_file():
        raise OutputError(_not_a_statistics_folder(folder))
    again = f"write it again with `drawlog stats {_inputs_of(folder / MANIFEST)} --out {_quoted(folder)}`"
    written = _table_format(folder / MANIFEST)
    if written < TABLE_FORMAT:
        held = f"tables of format {written} (this drawlog reads format {TABLE_FORMAT})" if written \
            else f"an unreadable {MANIFEST}"
        raise OutputError(f"{folder} holds {held}; {again}")
    frames = {}
    for name, path, partitioned in table_sources(folder):
        files = sorted(path.rglob("*.parquet")) if partitioned else [path]
        for file in files:
            try:
                pq.read_metadata(file)  # the footer only: a damaged or foreign file is named here
            except Exception as error:  # noqa: BLE001 - whatever pyarrow makes of it
                raise OutputError(f"cannot read {file}: {error}; {again}") from None
        # glob=False: a folder named with [, * or ? is a name, not a pattern
        hive = partitioned and bool(files) and not keeps_keys(files[0], name)  # older drawlogs: the key in names only
        frames[name] = pl.scan_parquet(path, hive_partitioning=hive, glob=False)
    missing = [name for name in TABLES if name not in frames]
    if missing:
        raise OutputError(f"{folder} lacks the {', '.join(missing)} table{'s' if len(missing) > 1 else ''}; {again}")
    return frames
