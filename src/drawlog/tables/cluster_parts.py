"""What a cluster's workers do, one input file a task, and how the driver commits the tables they wrote.

A task replays one file as a part (:class:`~drawlog.check.parts.Part`) with
the part functions of a local ``--jobs`` run: :func:`validate_task` runs
:func:`~drawlog.check.parts.validate_part` and hands back its violations;
:func:`write_task` runs :func:`~drawlog.tables.parallel.stats_part` into
Parquet files under a name of its own (``_tmp/TOKEN/`` in the staging folder,
a new token for each attempt), so a task retried after its worker died leaves
nothing twice: only the files of the attempt whose result the driver receives
are committed (:func:`commit_parts`), renamed to ``TABLE/part-INDEX.parquet``
(``TABLE/KEY=NAME/part-INDEX-N.parquet`` with ``--partition-by``), INDEX being
the file's place in the input order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..check.parts import Part, PartResult, read_violations, validate_part
from ..check.violations import Summary, Violation
from ..log.remote import is_url
from .parallel import EndedKeys, stats_part
from .stats import TABLES

#: Where a part is first written, inside the staging folder (removed at the end).
TEMPORARY = "_tmp"
#: Digits of a part's input index in its name: names sort in input order.
INDEX_DIGITS = 8
#: ``(match, tournament, table_name, variant)`` of a match lately ended (:meth:`EndedKeys.kept`).
Kept = tuple[str, str | None, str | None, str]


def validate_task(part: Part) -> tuple[PartResult, list[Violation]]:
    """A task: :func:`~drawlog.check.parts.validate_part` of ``part`` on a worker, with the violations it wrote."""
    folder = tempfile.mkdtemp(prefix="drawlog-part-")
    try:
        result = validate_part(dataclasses.replace(part, folder=folder))
        return result, list(read_violations(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Written:
    """A task's share of the tables: what the driver needs of it, never its rows."""

    #: As :func:`~drawlog.tables.parallel.stats_part` returns it, ``misses`` left out (see ``missed``).
    result: PartResult
    #: ``(table, file under ``where``, partition folder name or None, value)``, one per Parquet file.
    files: list[tuple[str, str, str | None, str | None]]
    where: str
    #: The match ids of violations whose match's keys the part did not know (once each).
    missed: list[str]
    #: The matches the part lately ended, with their keys (:meth:`EndedKeys.kept`): at most ``ENDED_KEPT``.
    ended: list[Kept]
    #: ``(file, line, reason)`` of each unreadable input (F007), when nothing could be read.
    unreadable: list[tuple[str, int | None, str]]


def write_task(part: Part, staging: str, partition_by: str | None, ended: list[Kept] | None = None) -> Written:
    """A task: replay ``part`` and write its tables as Parquet files under ``staging/_tmp/TOKEN``.

    ``ended``: the keys of the matches the inputs before lately ended, for a
    part replayed again knowing them (``part.seen``: the ids they started).
    """
    import pyarrow.parquet as pq

    from .dataset import _unreadable

    token = uuid.uuid4().hex
    remote = is_url(staging)
    where = f"{staging}/{TEMPORARY}/{token}"
    scratch = Path(tempfile.mkdtemp(prefix="drawlog-part-")) if remote else Path(where)
    try:
        flat = scratch / "_flat" if partition_by else scratch
        flat.mkdir(parents=True)
        result = stats_part(dataclasses.replace(part, folder=str(flat)), parquet=True, ended=ended)
        kept = EndedKeys()
        kept.add(pq.read_table(flat / "matches.parquet", columns=["match", "tournament", "table_name", "variant"]))
        missed = sorted({match for _, match, _ in result.misses})
        result.misses = []
        unreadable = _unreadable(flat) if result.summary.files == 0 else []
        files = _part_files(flat, scratch, partition_by, result.rows)
        if remote:
            from .storage import target, upload

            fs, path = target(where)
            upload(scratch, fs, path)
    finally:
        if remote:
            shutil.rmtree(scratch, ignore_errors=True)
    return Written(result, files, where, missed, kept.kept(), unreadable)


def _part_files(flat: Path, scratch: Path, partition_by: str | None, rows: dict[str, int]
                ) -> list[tuple[str, str, str | None, str | None]]:
    """The Parquet files of the tables in ``flat`` (partitioned into ``scratch`` when asked): non-empty tables only."""
    if partition_by is None:
        return [(name, f"{name}.parquet", None, None) for name in TABLES if rows[name]]
    import pyarrow.parquet as pq

    from .partitions import write_partitioned

    write_partitioned(flat, scratch, partition_by)
    shutil.rmtree(flat)
    files = []
    for name in TABLES:
        if not rows[name]:
            continue
        for file in sorted((scratch / name).rglob("*.parquet")):
            folder = file.parent.name.partition("=")[2] if file.parent != scratch / name else None
            value = pq.read_table(file, columns=[partition_by]).column(0)[0].as_py() if folder is not None else None
            files.append((name, file.relative_to(scratch).as_posix(), folder, value))
    return files


def commit_parts(output: Output, parts: list[Written], partition_by: str | None) -> dict[str, int]:
    """Rename each received part's files to their final names (input index in them); the rows of each table.

    A table no input has rows of gets one empty, typed file.
    """
    from .partitions import folder_names

    fs = output.fs
    names: dict[str | None, str] = {}
    if partition_by is not None:
        names = folder_names({value for part in parts for _, _, folder, value in part.files if folder is not None})
    rows = dict.fromkeys(TABLES, 0)
    for index, part in enumerate(parts):
        for table, file, folder, value in part.files:
            number = file.rsplit("part-", 1)[-1].removesuffix(".parquet") if folder is not None else ""
            final = f"{table}/part-{index:0{INDEX_DIGITS}d}.parquet" if folder is None else \
                f"{table}/{partition_by}={names[value]}/part-{index:0{INDEX_DIGITS}d}-{number}.parquet"
            fs.makedirs(f"{output.base}/{final}".rpartition("/")[0], exist_ok=True)
            fs.mv(f"{part.where}/{file}", f"{output.base}/{final}")
        for table in TABLES:
            rows[table] += part.result.rows[table]
    for table in TABLES:
        if not rows[table]:
            output.write_empty(table)
    with contextlib.suppress(FileNotFoundError):
        fs.rm(f"{output.base}/{TEMPORARY}", recursive=True)
    return rows


class Output:
    """The folder the tables go to: staged, then committed whole (a local folder, or one at a URL)."""

    def __init__(self, out: str) -> None:
        from .storage import local_path, target

        self.out = out
        self.fs, path = target(out if is_url(out) else Path(out).absolute().as_uri())
        local = local_path(self.fs, path)
        self.folder: Any = None
        if local is not None:
            from .output import OutputFolder

            self.folder = OutputFolder(local).open()
            self.base = self.staging = str(self.folder.staging)
            Path(self.staging).mkdir(parents=True)
        else:
            from .storage import check_remote_out, staging_path

            check_remote_out(self.fs, path, out)
            self.path = path
            self.base = staging_path(path)  # the driver's name of the staging folder in ``fs``
            self.fs.makedirs(self.base, exist_ok=True)
            self.staging = self.fs.unstrip_protocol(self.base)  # the workers': a URL

    def write_empty(self, table: str) -> None:
        """An empty, typed file for a table no input has rows of."""
        import pyarrow.parquet as pq

        from .stats import WRITE_SCHEMAS

        with tempfile.TemporaryDirectory() as scratch:
            pq.write_table(WRITE_SCHEMAS[table].empty_table(), f"{scratch}/part.parquet")
            self.fs.makedirs(f"{self.base}/{table}", exist_ok=True)
            self.fs.put_file(f"{scratch}/part.parquet", f"{self.base}/{table}/part-0.parquet")

    def finish(self, names: Sequence[str], partition_by: str | None, summary: Summary, rows: dict[str, int]) -> None:
        """Write the manifest and put the new tables in place of the old ones."""
        from .dataset import MANIFEST, _write_manifest

        if self.folder is not None:
            _write_manifest(Path(self.staging), list(names), partition_by, summary, rows)
            self.folder.swap_in()
            return
        from .storage import commit

        with tempfile.TemporaryDirectory() as scratch:
            _write_manifest(Path(scratch), list(names), partition_by, summary, rows)
            self.fs.put_file(f"{scratch}/{MANIFEST}", f"{self.base}/{MANIFEST}")
        commit(self.fs, self.base, self.path)

    def discard(self) -> None:
        """Remove the staged tables (a failure or Ctrl-C before the commit): the old tables stay."""
        if self.folder is not None:
            self.folder.close()
            return
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm(self.base, recursive=True)


@contextlib.contextmanager
def staged_output(out: str) -> Iterator[Output]:
    """The :class:`Output` for ``out``; anything that ends the run before :meth:`Output.finish` discards it."""
    output = Output(out)
    try:
        yield output
    except BaseException:
        output.discard()
        raise
    if output.folder is not None:
        output.folder.close()


__all__ = ["Output", "Written", "commit_parts", "staged_output", "validate_task", "write_task"]
