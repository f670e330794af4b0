"""The tables at a URL (``s3://``, ``gs://``, ``abfs://``, ``memory://``, ``file://``), through fsspec.

Writing: the tables are written to a local temporary folder as for a local
``--out``, uploaded beside the target under a hidden name, then committed:
a marker ``_drawlog.committing`` is put in the target, the old manifest and
tables are removed, the new ones moved in, the manifest last, the marker
removed. A reader needs the manifest, so it never sees a mix of old and new
tables; a commit cut short leaves the marker, which says so, and the next
write replaces the folder. Before the commit (a failure, Ctrl-C, nothing
read) the old tables are untouched. A ``file://`` URL is a local folder and
gets the local folder's swap (two renames).

Reading: each table is a pyarrow dataset on the fsspec filesystem, scanned
lazily by polars (filters pushed down to the files).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from ..errors import OutputError
from ..log.remote import url_filesystem
from .generations import READERS_LOCK
from .output import MANIFEST
from .reading import TABLE_FORMAT, open_local_tables
from .stats import TABLES

#: In a folder at a URL while a commit is under way (and after one cut short).
COMMITTING = "_drawlog.committing"


def target(url: str) -> tuple[Any, str]:
    """``(filesystem, path)`` of an output URL; :class:`OutputError` when fsspec or the scheme's package is missing."""
    try:
        return url_filesystem(url)
    except ImportError as error:
        raise OutputError(f"cannot use {url}: {error}") from None
    except ValueError as error:
        raise OutputError(f"cannot write {url}: {error}") from None


def local_path(fs: Any, path: str) -> Path | None:
    """The local folder a ``file://`` URL names (None for any other filesystem)."""
    protocol = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    return Path(path) if "file" in protocol or "local" in protocol else None


def check_remote_out(fs: Any, path: str, url: str) -> None:
    """Refuse a file, or a folder holding files drawlog did not write, before any work is done."""
    if fs.isfile(path):
        raise OutputError(f"{url} exists and is not a folder")
    if fs.isdir(path) and fs.find(path) and not (fs.isfile(f"{path}/{MANIFEST}") or fs.isfile(f"{path}/{COMMITTING}")):
        raise OutputError(f"{url} holds files drawlog did not write (no {MANIFEST}); choose another --out or empty it")


def staging_path(path: str) -> str:
    """A hidden place beside ``path`` for the new tables before they are committed."""
    parent, _, name = path.rstrip("/").rpartition("/")
    return f"{parent}/.{name}.partial-{uuid.uuid4().hex[:12]}" if parent else f".{name}.partial-{uuid.uuid4().hex[:12]}"


def upload(folder: Path, fs: Any, dest: str) -> None:
    """Put every file under the local ``folder`` at ``dest`` (same relative names)."""
    for file in sorted(item for item in folder.rglob("*") if item.is_file() and item.name != READERS_LOCK):
        remote = f"{dest}/{file.relative_to(folder).as_posix()}"
        fs.makedirs(remote.rpartition("/")[0], exist_ok=True)
        fs.put_file(str(file), remote)


def commit(fs: Any, staging: str, path: str) -> None:
    """Move the tables at ``staging`` (manifest included) to ``path``, replacing what is there (see the module)."""
    fs.makedirs(path, exist_ok=True)
    fs.pipe_file(f"{path}/{COMMITTING}", f"tables being moved in from {staging}\n".encode())
    if fs.isfile(f"{path}/{MANIFEST}"):
        fs.rm_file(f"{path}/{MANIFEST}")
    for old in fs.find(path):
        if not old.endswith(f"/{COMMITTING}"):
            fs.rm_file(old)
    base = staging.rstrip("/")
    new = sorted(fs.find(base), key=lambda name: name.endswith(f"/{MANIFEST}"))  # the manifest last
    for name in new:
        moved = f"{path}/{name[len(base) + 1:]}"
        fs.makedirs(moved.rpartition("/")[0], exist_ok=True)
        fs.mv(name, moved)
    fs.rm_file(f"{path}/{COMMITTING}")
    remove(fs, base)


def remove(fs: Any, path: str) -> None:
    """Remove ``path`` and all under it, if it is there."""
    try:
        if fs.exists(path):
            fs.rm(path, recursive=True)
    except FileNotFoundError:
        pass


def open_tables_at_url(url: str) -> dict[str, Any]:
    """The tables at ``url`` as polars LazyFrames (see :func:`~drawlog.tables.reading.open_local_tables`)."""
    import polars as pl
    import pyarrow as pa
    import pyarrow.dataset as ds
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    fs, path = target(url)
    local = local_path(fs, path)
    if local is not None:
        frames: dict[str, Any] = open_local_tables(local)
        return frames
    again = f"write it again with `drawlog stats LOGS --out {url}`"
    if not fs.isfile(f"{path}/{MANIFEST}"):
        if fs.isfile(f"{path}/{COMMITTING}"):
            raise OutputError(f"{url} is being written, or a write was cut short; {again}")
        raise OutputError(f"{url} is not a drawlog statistics folder (no {MANIFEST}); write the tables first: "
                          f"`drawlog stats LOGS --out {url}`")
    manifest = json.loads(fs.cat_file(f"{path}/{MANIFEST}"))
    written = manifest.get("table_format", 1) if isinstance(manifest, dict) else 0
    if not isinstance(written, int) or written < TABLE_FORMAT:
        raise OutputError(f"{url} holds tables of format {written} (this drawlog reads format {TABLE_FORMAT}); {again}")
    key = manifest.get("partition_by")
    filesystem = PyFileSystem(FSSpecHandler(fs))
    frames = {}
    for name in TABLES:
        single, folder = f"{path}/{name}.parquet", f"{path}/{name}"
        if fs.isfile(single):
            dataset = ds.dataset(single, filesystem=filesystem, format="parquet")
        elif fs.isdir(folder):
            dataset = ds.dataset(folder, filesystem=filesystem, format="parquet")
            if isinstance(key, str) and key not in dataset.schema.names:  # the key only in the folder names
                dataset = ds.dataset(folder, filesystem=filesystem, format="parquet",
                                     partitioning=ds.partitioning(pa.schema([(key, pa.string())]), flavor="hive"))
        else:
            raise OutputError(f"{url} lacks the {name} table; {again}")
        frames[name] = pl.scan_pyarrow_dataset(dataset)
    return frames


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The manifest of a statistics folder, a local one or one at a URL (``{}`` when it holds none, or not JSON)."""
    from ..log.remote import is_url

    try:
        if isinstance(folder, str) and is_url(folder):
            fs, path = target(folder)
            text = fs.cat_file(f"{path}/{MANIFEST}")
        else:
            text = (Path(folder) / MANIFEST).read_bytes()
        manifest = json.loads(text)
    except (OSError, ValueError, OutputError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def is_statistics_folder(name: str) -> bool:
    """Whether ``name`` (a path or a URL) is a folder ``drawlog stats`` wrote: it holds the manifest."""
    from ..log.remote import is_url

    if not is_url(name):
        return (Path(name) / MANIFEST).is_file()
    try:
        fs, path = target(name)
        return bool(fs.isfile(f"{path}/{MANIFEST}"))
    except (OSError, ValueError, OutputError):
        return False


def is_remote_folder(out: str) -> bool:
    """Whether ``out`` is a URL of a filesystem that is not local (``file://`` is local)."""
    from ..log.remote import is_url

    if not is_url(out):
        return False
    fs, path = target(out)
    return local_path(fs, path) is None


__all__ = ["COMMITTING", "check_remote_out", "commit", "open_tables_at_url", "upload"]
