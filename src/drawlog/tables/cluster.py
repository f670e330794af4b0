"""``--cluster``: validate and write the tables on a Dask cluster, one input file per task.

``local:N`` starts a ``LocalCluster`` of N worker processes on the loopback
(no dashboard); ``tcp://HOST:8786`` uses a running scheduler; a
``distributed.Client`` is used as it is. Each task replays one file with the
same engine as a local run, in a fresh :class:`~drawlog.check.validator.Validator`.

For the tables, a task writes its file's five tables as Parquet parts under a
name of its own (``_tmp/TOKEN/`` in the staging folder, a new token for each
attempt), so a task retried after its worker died leaves nothing twice: only
the parts of the attempt whose result the driver receives are committed,
renamed to ``TABLE/part-INDEX.parquet`` (``TABLE/KEY=NAME/part-INDEX-N.parquet``
with ``--partition-by``), INDEX being the file's place in the input order.
Reading the folder gives the rows file by file in input order, each file's
rows in its own order: the same rows, in the same order, as a local run,
whatever the scheduling. The driver handles only small metadata per file (the
summary, the names of the parts, the match ids the file mentions), never rows.

A match id started in one file and mentioned in a later one (``F005``, or an
event of a match that ended in another file) needs what the earlier files
started: those later files are replayed again, each with the earlier starts
of the ids it mentions, and their first parts are dropped.

The output folder must be one every worker can write: a URL (``s3://…``) or
a folder they share (always so for ``local:N``). Ctrl-C cancels the tasks and
leaves the previous tables as they were.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..check.validator import Validator
from ..check.violations import Summary, Violation
from ..errors import DrawlogError, InputError, NothingRead, OutputError
from ..log.reader import STDIN, Source, expand_paths
from ..log.remote import is_url
from .stats import TABLES

#: Where a part is first written, inside the staging folder (removed at the end).
TEMPORARY = "_tmp"
#: Digits of a part's input index in its name: names sort in input order.
INDEX_DIGITS = 8


class ClusterError(DrawlogError):
    """The cluster cannot be used (no dask, a scheduler not reached, standard input)."""


# -- the cluster -----------------------------------------------------------------


@contextlib.contextmanager
def connect(cluster: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``cluster``: ``"local:N"``, ``"tcp://HOST:PORT"``, or a Client (kept open)."""
    if not isinstance(cluster, str):
        yield cluster
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--cluster needs dask and distributed: pip install 'drawlog[cluster]'") from None
    if cluster.startswith("local:"):
        count = cluster.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {cluster}: give local:N with N workers, N ≥ 1 (local:4)")
        import logging

        logging.getLogger("distributed").setLevel(logging.ERROR)  # a restarted worker is ours to report, not its
        local = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True, host="127.0.0.1",
                             dashboard_address=None, silence_logs=logging.ERROR)
        try:
            with Client(local) as client:
                yield client
        finally:
            local.close()
        return
    if not cluster.startswith(("tcp://", "tls://", "ucx://", "inproc://")):
        raise ClusterError(f"--cluster {cluster}: give local:N or a scheduler's address, tcp://HOST:8786")
    try:
        client = Client(cluster, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the scheduler at {cluster}: {error}") from None
    with client:
        yield client


def _inputs(names: Sequence[str]) -> list[Source | InputError]:
    """The files the names stand for, in input order; standard input cannot go to a cluster."""
    if STDIN in names:
        raise ClusterError("--cluster reads files, folders and URLs, not standard input (-)")
    inputs = list(expand_paths(list(names)))
    # A worker elsewhere may have another working folder: it reads the absolute path, under the name given.
    return [Source(item.name, item.path.absolute()) if isinstance(item, Source) and item.path is not None else item
            for item in inputs]


def _in_input_order(client: Any, futures: list[Any], on_done: Callable[[int, Any], None] | None = None
                    ) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` of each task in input order, as soon as it and those before it are done.

    ``on_done`` hears of each result as it comes (for a progress bar). Leaving
    early (an error, Ctrl-C) cancels every task not done.
    """
    from distributed import as_completed

    index_of = {future.key: index for index, future in enumerate(futures)}
    held: dict[int, Any] = {}
    following = 0
    try:
        for future in as_completed(futures):
            index = index_of[future.key]
            held[index] = future.result()
            future.release()
            if on_done is not None:
                on_done(index, held[index])
            while following in held:
                yield following, held.pop(following)
                following += 1
    finally:
        if following < len(futures):
            client.cancel(futures[following:])


def _keys(kind: str, count: int) -> list[str]:
    run = uuid.uuid4().hex[:8]
    return [f"drawlog-{kind}-{index}-{run}" for index in range(count)]


# -- what a worker does ------------------------------------------------------------


@dataclass
class Starts:
    """The match ids one file mentions, and where it first starts each one (line; 0: mentioned, not started)."""

    file: str = ""
    lines: dict[str, int] = field(default_factory=dict)


def _seeded(validator: Validator, earlier: dict[str, tuple[str, int]]) -> Validator:
    """``validator`` told of the matches earlier files started: ``{id: (file, line)}`` (what one process knows)."""
    replay = validator.replay
    for match_id, (file, line) in earlier.items():
        replay._seen[match_id] = line << 32 | replay._index_of(file)
    return validator


def _starts(validator: Validator, file: str, mentioned: set[str]) -> Starts:
    """What :class:`Starts` says of the file just replayed by ``validator``."""
    seen = validator.replay._seen
    here = {match_id: value >> 32 for match_id, value in seen.items()
            if validator.replay._files[value & 0xFFFFFFFF] == file}
    return Starts(file, {**dict.fromkeys(mentioned, 0), **here})


def validate_file(item: Source | InputError, codes: frozenset[str] | None, max_per_match: int | None,
                  max_open_matches: int, earlier: dict[str, tuple[str, int]] | None = None
                  ) -> tuple[list[Violation], Summary, Starts]:
    """A task: the violations and summary of one input, and the match ids it mentions."""
    validator = _seeded(Validator(codes, max_per_match, max_open_matches), earlier or {})
    found = list(validator.validate_inputs([item]))
    mentioned = {violation.match for violation in found if violation.match is not None}
    return found, validator.summary, _starts(validator, validator.reporter.file, mentioned)


@dataclass
class Part:
    """A task's share of the tables: its summary, rows, the files it wrote and the ids it mentions."""

    summary: Summary
    rows: dict[str, int]
    #: ``(table, file under the attempt's folder, partition folder name or None, value)``, one per Parquet part.
    files: list[tuple[str, str, str | None, str | None]]
    where: str
    starts: Starts
    unreadable: list[tuple[str, int | None, str]]


def write_file(item: Source | InputError, staging: str, codes: frozenset[str] | None, partition_by: str | None,
               earlier: dict[str, tuple[str, int]] | None = None,
               ignored_in: Callable[[str], frozenset[str]] | None = None) -> Part:
    """A task: replay one input and write its tables as Parquet parts under ``staging/_tmp/TOKEN``.

    ``ignored_in(file)``: the codes not reported for the file (``per-file-ignores``).
    """
    import pyarrow.parquet as pq

    from .dataset import _write_in_one_process

    token = uuid.uuid4().hex
    remote = is_url(staging)
    where = f"{staging}/{TEMPORARY}/{token}"
    scratch = Path(tempfile.mkdtemp(prefix="drawlog-part-")) if remote else Path(where)
    try:
        flat = scratch / "_flat" if partition_by else scratch
        flat.mkdir(parents=True)
        validator = _seeded(Validator(codes, ignored_in=ignored_in), earlier or {})
        summary, rows = _write_in_one_process([item], flat, validator, threaded=False)
        matches = pq.read_table(flat / "matches.parquet", columns=["match"]).column(0).to_pylist()
        violations = pq.read_table(flat / "violations.parquet", columns=["file", "line", "match", "code", "message"])
        mentioned = {match for match in [*matches, *violations.column("match").to_pylist()] if match is not None}
        unreadable = [(row["file"], row["line"], row["message"]) for row in violations.to_pylist()
                      if row["code"] == "F007"]
        files = _part_files(flat, scratch, partition_by, rows)
        if remote:
            from .storage import target, upload

            fs, path = target(where)
            upload(scratch, fs, path)
    finally:
        if remote:
            shutil.rmtree(scratch, ignore_errors=True)
    return Part(summary, rows, files, where, _starts(validator, validator.reporter.file, mentioned), unreadable)


def _part_files(flat: Path, scratch: Path, partition_by: str | None, rows: dict[str, int]
                ) -> list[tuple[str, str, str | None, str | None]]:
    """The Parquet parts of the tables in ``flat`` (partitioned into ``scratch`` when asked): non-empty tables only."""
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


# -- what the driver does ------------------------------------------------------------


def _earlier_starts(starts: list[Starts]) -> dict[int, dict[str, tuple[str, int]]]:
    """For each file that mentions an id started in an earlier file: those ids and where they first started."""
    first: dict[str, tuple[str, int]] = {}
    again: dict[int, dict[str, tuple[str, int]]] = {}
    for index, found in enumerate(starts):
        for match_id, line in found.lines.items():
            if match_id in first:
                again.setdefault(index, {})[match_id] = first[match_id]
        for match_id, line in found.lines.items():
            if line and match_id not in first:
                first[match_id] = (found.file, line)
    return again


def add_up(total: Summary, part: Summary) -> None:
    """Add a file's counts to the run's."""
    for name in total.__struct_fields__:
        value = getattr(part, name)
        setattr(total, name, getattr(total, name) + (list(value) if isinstance(value, list) else value))


def validate_on_cluster(names: Sequence[str], cluster: Any, codes: frozenset[str] | None, summary: Summary,
                        max_per_match: int | None = None, max_open_matches: int = 100_000,
                        on_done: Callable[[int, Summary], None] | None = None
                        ) -> Iterator[tuple[int, list[Violation], Summary]]:
    """``(index, violations, summary)`` of each input in input order, replayed on ``cluster``; ``summary`` adds up.

    The violations are those a local run reports, in the same order (files
    that mention a match an earlier file started are replayed again, knowing it).
    """
    inputs = _inputs(names)
    with connect(cluster) as client:
        futures = client.map(validate_file, inputs, codes=codes, max_per_match=max_per_match,
                             max_open_matches=max_open_matches, key=_keys("validate", len(inputs)), pure=False)
        results = [result for _, result in _in_input_order(
            client, futures, (lambda index, result: on_done(index, result[1])) if on_done else None)]
        again = _earlier_starts([starts for _, _, starts in results])
        if again:
            indexes = sorted(again)
            count = len(indexes)
            redone = client.map(validate_file, [inputs[index] for index in indexes], [codes] * count,
                                [max_per_match] * count, [max_open_matches] * count,
                                [again[index] for index in indexes], key=_keys("again", count), pure=False)
            for place, result in _in_input_order(client, redone):
                results[indexes[place]] = result
    for index, (found, part, _) in enumerate(results):
        add_up(summary, part)
        yield index, found, part


def write_tables_on_cluster(names: Sequence[str], out: str, cluster: Any, partition_by: str | None = None,
                            codes: frozenset[str] | None = None,
                            on_file: Callable[[int, Summary], None] | None = None,
                            ignored_in: Callable[[str], frozenset[str]] | None = None) -> Summary:
    """:func:`~drawlog.tables.dataset.write_tables` on a Dask cluster: the same tables, written by the workers."""
    from .dataset import PARTITION_KEYS

    if partition_by is not None and partition_by not in PARTITION_KEYS:
        raise OutputError(f"cannot partition by {partition_by!r}: choose one of {', '.join(PARTITION_KEYS)}")
    inputs = _inputs(names)
    with _output(out) as output:
        with connect(cluster) as client:
            futures = client.map(write_file, inputs, staging=output.staging, codes=codes, partition_by=partition_by,
                                 ignored_in=ignored_in, key=_keys("stats", len(inputs)), pure=False)
            parts = [part for _, part in _in_input_order(
                client, futures, (lambda index, part: on_file(index, part.summary)) if on_file else None)]
            again = _earlier_starts([part.starts for part in parts])
            if again:
                indexes = sorted(again)
                count = len(indexes)
                redone = client.map(write_file, [inputs[index] for index in indexes], [output.staging] * count,
                                    [codes] * count, [partition_by] * count, [again[index] for index in indexes],
                                    [ignored_in] * count, key=_keys("again", count), pure=False)
                for place, part in _in_input_order(client, redone):
                    parts[indexes[place]] = part
        summary = Summary()
        for part in parts:
            add_up(summary, part.summary)
        if summary.files == 0 and summary.unreadable:
            raise NothingRead(out, [entry for part in parts for entry in part.unreadable])
        rows = _commit_parts(output, parts, partition_by)
        output.finish(names, partition_by, summary, rows)
    return summary


def _commit_parts(output: Any, parts: list[Part], partition_by: str | None) -> dict[str, int]:
    """Rename each received part to its final name (input index in it); an empty table gets one empty typed file."""
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
            rows[table] += part.rows[table]
    for table in TABLES:
        if not rows[table]:
            output.write_empty(table)
    with contextlib.suppress(FileNotFoundError):
        fs.rm(f"{output.base}/{TEMPORARY}", recursive=True)
    return rows


class _Output:
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
        from .dataset import _write_manifest

        if self.folder is not None:
            _write_manifest(Path(self.staging), list(names), partition_by, summary, rows)
            self.folder.swap_in()
            return
        from .storage import commit

        with tempfile.TemporaryDirectory() as scratch:
            _write_manifest(Path(scratch), list(names), partition_by, summary, rows)
            from .dataset import MANIFEST

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
def _output(out: str) -> Iterator[_Output]:
    output = _Output(out)
    try:
        yield output
    except BaseException:
        output.discard()
        raise
    if output.folder is not None:
        output.folder.close()


__all__ = ["ClusterError", "connect", "validate_on_cluster", "write_tables_on_cluster"]
