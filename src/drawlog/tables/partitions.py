"""``--partition-by``: a folder per exact value, under a name every file system takes.

The folder of a value is ``KEY=NAME``. NAME is the value's UTF-8 bytes with
every byte but ASCII letters, digits, ``-``, ``_`` and ``.`` written ``%XX``
(``/`` is ``%2F``, NUL ``%00``; hive-style readers decode it), and
``__HIVE_DEFAULT_PARTITION__`` for null. A NAME over :data:`LONGEST_NAME`
bytes, or one that would clash with another value's on a file system that
ignores case (``Cup`` and ``cup``), is cut to :data:`KEPT_PREFIX` bytes and ends
with ``~`` and a hash of the exact value (``~`` is always escaped in values,
so only such names hold one). Two different values never share a folder.

Every file keeps the key column itself, so the exact value is read from the
file, whatever its folder is called.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .stats import SCHEMAS, TABLES

#: A null value's folder name, as hive-style writers name it.
NULL_NAME = "__HIVE_DEFAULT_PARTITION__"
#: The longest escaped value kept whole in a folder name, in bytes (a name may be 255).
LONGEST_NAME = 160
#: How much of a longer (or clashing) name is kept before ``~`` and the hash.
KEPT_PREFIX = 96
_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
#: The column that names each row's folder while the tables are written (not kept in the files).
_FOLDER = "__drawlog_folder"


def escaped(value: str) -> str:
    """``value`` with every byte but ASCII letters, digits, ``-``, ``_`` and ``.`` as ``%XX`` (a last ``.`` too)."""
    text = "".join(chr(byte) if byte in _PLAIN else f"%{byte:02X}" for byte in value.encode("utf-8", "surrogatepass"))
    return text[:-1] + "%2E" if text.endswith(".") else text


def _hashed(value: str, name: str) -> str:
    prefix = name[:KEPT_PREFIX]
    cut = prefix.rfind("%", len(prefix) - 2)
    if cut != -1:  # never half an escape
        prefix = prefix[:cut]
    return f"{prefix}~{hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"


def folder_names(values: Iterable[str | None]) -> dict[str | None, str]:
    """The folder name (without ``KEY=``) of each value: distinct for distinct values, ignoring case too."""
    names: dict[str | None, str] = {}
    for value in values:
        if value is None:
            names[value] = NULL_NAME
        else:
            name = escaped(value)
            names[value] = _hashed(value, name) if len(name) > LONGEST_NAME else name
    holders: dict[str, list[str | None]] = {}
    for value, name in names.items():
        holders.setdefault(name.lower(), []).append(value)
    for clashing in holders.values():
        if len(clashing) > 1:
            for value in clashing:
                if value is not None:
                    names[value] = _hashed(value, names[value])
    return names


def _values(source: Any, key: str) -> set[str | None]:
    """Every value of ``key`` in a dataset, read a batch at a time."""
    import pyarrow.compute as pc

    found: set[str | None] = set()
    for batch in source.to_batches(columns=[key]):
        found.update(pc.unique(batch.column(0)).to_pylist())
    return found


def write_partitioned(flat: Path, staging: Path, key: str, generation: int | None = None) -> None:
    """Write each table of the folder ``flat`` into ``staging/TABLE/KEY=NAME/part-GGGGG-N.parquet``, the key kept.

    ``generation`` (GGGGG) tells apart the files of successive runs (see :mod:`~drawlog.tables.incremental`);
    without it the files are ``part-N.parquet`` (a cluster's worker renames them).
    """
    stem = f"part-{generation:05d}-" if generation is not None else "part-"
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    sources = {name: ds.dataset(flat / f"{name}.parquet", format="parquet") for name in TABLES}
    values: set[str | None] = set()
    for source in sources.values():
        values |= _values(source, key)
    names = folder_names(values)
    ordered = list(names)
    value_set = pa.array(ordered, pa.string())
    folders = pa.array([f"{key}={names[value]}" for value in ordered], pa.string())
    partitioning = ds.DirectoryPartitioning(pa.schema([(_FOLDER, pa.string())]), segment_encoding="none")
    for name, source in sources.items():
        if source.count_rows() == 0:  # no partition folder would be written: keep an empty, typed file
            (staging / name).mkdir(exist_ok=True)
            pq.write_table(source.to_table(), staging / name / f"{stem}0.parquet")
            continue
        schema = source.schema.append(pa.field(_FOLDER, pa.string()))
        ds.write_dataset(pa.RecordBatchReader.from_batches(schema, _with_folders(source, key, schema, value_set,
                                                                                  folders)),
                         staging / name, format="parquet", partitioning=partitioning,
                         existing_data_behavior="overwrite_or_ignore",
                         basename_template=stem + "{i}.parquet",
                         max_partitions=len(ordered) + 1, max_open_files=open_files_allowed(),
                         preserve_order=True)


def open_files_allowed() -> int:
    """How many partition files to keep open at once: well under the process's limit of open files.

    Arrow's default, 1,024, is the limit itself on many systems: past it the
    writer failed, or hung for ever, once a run had about 1,000 partitions.
    """
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):  # no such limit here (Windows)
        return 512
    if soft == resource.RLIM_INFINITY:
        return 1024
    return max(16, min(1024, soft // 2 - 64))


def _with_folders(source: Any, key: str, schema: Any, value_set: Any, folders: Any) -> Iterator[Any]:
    """The batches of ``source``, each row given the folder of its ``key`` value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for batch in source.to_batches():
        column = batch.column(key)
        if pa.types.is_dictionary(column.type):
            column = column.cast(pa.string())
        where = pc.index_in(column, value_set=value_set, skip_nulls=False)
        yield pa.RecordBatch.from_arrays([*batch.columns, pc.take(folders, where)], schema=schema)


def keeps_keys(file: Path, table: str) -> bool:
    """Whether a partitioned table's file holds every column, its key too (older drawlogs kept it in folder names only)."""
    import pyarrow.parquet as pq

    return set(SCHEMAS[table].names) <= set(pq.read_schema(file).names)
