"""Reading a local statistics folder back: its tables as polars LazyFrames, and what to say when it cannot be read.

Below :mod:`~drawlog.tables.dataset` (which also reads folders at URLs, through
:mod:`~drawlog.tables.storage`) and :mod:`~drawlog.tables.storage` (which reads a
``file://`` URL as a local folder).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import OutputError
from .generations import hold
from .output import MANIFEST, recover
from .partitions import keeps_keys
from .stats import TABLES

#: The tables ``drawlog analyze --out`` adds to a statistics folder (:mod:`~drawlog.tables.analysis_tables`).
ANALYSIS_TABLES = ("decisions", "analysis_players", "luck")
#: The version of the tables' columns, ``table_format`` in the manifest (a manifest without it is 1).
TABLE_FORMAT = 5


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
        elif (folder / name).is_dir() and any((folder / name).rglob("*.parquet")):
            yield name, folder / name, True


def analysis_sources(folder: Path) -> dict[str, Path]:
    """The analysis tables a local statistics folder holds: their folders, by name."""
    return {name: folder / name for name in ANALYSIS_TABLES
            if (folder / name).is_dir() and any((folder / name).glob("part-*.parquet"))}


def _scanned(path: Path, again: str):
    """A table folder of part files as a LazyFrame, each file's footer checked first."""
    import polars as pl
    import pyarrow.parquet as pq

    files = sorted(path.glob("part-*.parquet"))
    for file in files:
        try:
            pq.read_metadata(file)
        except Exception as error:  # noqa: BLE001 - whatever pyarrow makes of it
            raise OutputError(f"cannot read {file}: {error}; {again}") from None
    return pl.scan_parquet(files, glob=False)


def open_local_tables(folder: str | Path):
    """The tables of a local statistics folder as polars LazyFrames, by name.

    A folder drawlog did not write, one of an older table format, a table
    missing, or a table file that is not Parquet raises :class:`OutputError`
    naming it.

    The frames read the generation current now, whatever runs switch in
    later: this process holds it (:func:`~drawlog.tables.generations.hold`).
    """
    import polars as pl
    import pyarrow.parquet as pq
    folder = Path(folder)
    recover(folder)  # the tables a killed run left aside, put back
    base = hold(folder)  # the current generation, resolved once and kept
    if not (base / MANIFEST).is_file():
        raise OutputError(_not_a_statistics_folder(folder))
    again = f"write it again with `drawlog stats {_inputs_of(base / MANIFEST)} --out {_quoted(folder)}`"
    written = _table_format(base / MANIFEST)
    if written < TABLE_FORMAT:
        held = f"tables of format {written} (this drawlog reads format {TABLE_FORMAT})" if written \
            else f"an unreadable {MANIFEST}"
        raise OutputError(f"{folder} holds {held}; {again}")
    frames = {}
    for name, path, partitioned in table_sources(base):
        files = sorted(path.rglob("*.parquet")) if partitioned else [path]
        for file in files:
            try:
                pq.read_metadata(file)  # the footer only: a damaged or foreign file is named here
            except Exception as error:  # noqa: BLE001 - whatever pyarrow makes of it
                raise OutputError(f"cannot read {file}: {error}; {again}") from None
        # glob=False: a folder named with [, * or ? is a name, not a pattern
        hive = partitioned and bool(files) and not keeps_keys(files[0], name)  # older drawlogs: the key in names only
        frames[name] = pl.scan_parquet(path, hive_partitioning=hive, glob=False)
    analysis = analysis_sources(base)
    for name, path in analysis.items():  # analyze --out's tables (part-*.parquet, never partitioned)
        frames[name] = _scanned(path, again)
    missing = [name for name in TABLES if name not in frames]
    if missing and (len(missing) < len(TABLES) or not analysis):  # (analyze --out alone: its tables only)
        raise OutputError(f"{folder} lacks the {', '.join(missing)} table{'s' if len(missing) > 1 else ''}; {again}")
    return frames
