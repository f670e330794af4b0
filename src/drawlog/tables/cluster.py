"""``--cluster``: validate and write the tables on a Dask cluster, one input file a task.

``local:N`` starts a ``LocalCluster`` of N worker processes on the loopback
(no dashboard); ``tcp://HOST:8786`` uses a running scheduler; a
``distributed.Client`` is used as it is. Each task replays one file as a part
of a local ``--jobs`` run replays a run of files (:mod:`drawlog.check.parts`),
with the same engine, in a fresh :class:`~drawlog.check.validator.Validator`;
:mod:`drawlog.tables.cluster_parts` has what the workers do.

``validate``: each task hands back its file's violations, and the driver joins
them in input order as a ``--jobs`` run joins its parts
(:func:`~drawlog.check.parallel.join_parts`): an F005 of an id an earlier file
started inserted where one process reports it, F004 worded ``which has ended``,
that match one error more; a file is replayed again (knowing the ids started
before) only where that F005 would crowd ``--max-per-match`` or ``--max-per-line``.

``stats`` and ``audit``: each task writes its file's six tables as Parquet
files, committed under names in input order (``TABLE/part-INDEX.parquet``):
reading the folder gives the rows file by file in input order, each file's rows
in its own order, the same rows in the same order as a local run, whatever the
scheduling. The driver handles only small metadata per file (the summary, the
names of its files, the ids it started first and those of violations whose
match it did not know, the keys of the last ``ENDED_KEPT`` matches it ended),
never rows. So a file that owes earlier files something (an F005 of an id they
started, ``which has ended``, the keys of a match they ended lately) cannot be
corrected in the driver: it is replayed again by a worker, knowing the ids the
files before started and the matches they lately ended (exact by
construction), and its first files are dropped. Such files are rare (the same
id in two files is an error); only they are read twice.

The output folder must be one every worker can write: a URL (``s3://…``) or
a folder they share (always so for ``local:N``). Ctrl-C cancels the tasks and
leaves the previous tables as they were; so do workers that die, or do not
start (:class:`~drawlog.errors.ClusterFailed`, one line on the command line).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from ..check.parallel import join_parts
from ..check.parts import CrossFile, Part, PartOptions, PartResult, add_summaries
from ..check.pool import is_standard_input
from ..check.validator import Validator
from ..check.violations import Summary, Violation
from ..errors import ClusterError, ClusterFailed, InputError, NothingRead, OutputError
from ..log.reader import STDIN, Source, expand_paths
from .cluster_parts import Written, commit_parts, staged_output, validate_task, write_task
from .parallel import EndedKeys

# -- the cluster -----------------------------------------------------------------


@contextlib.contextmanager
def connect(cluster: Any) -> Iterator[Any]:
    """A ``distributed.Client`` for ``cluster``: ``"local:N"``, ``"tcp://HOST:PORT"``, or a Client (kept open).

    Workers killed meanwhile, a worker that does not start, a connection lost
    raise :class:`~drawlog.errors.ClusterFailed`, one line naming what failed
    (dask's own tracebacks and log lines of them silenced for ``local:N``).
    """
    if not isinstance(cluster, str):
        with _failures_said("the cluster"):
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

        loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
        levels = [logger.level for logger in loggers]
        for logger in loggers:  # a killed or restarted worker is ours to report, in one line
            logger.setLevel(logging.CRITICAL + 1)
        with _failures_said(f"--cluster {cluster}"), _levels_restored(loggers, levels):
            with _sigint_blocked():  # the cluster's event loop thread and the workers it starts leave Ctrl-C to us
                # No dashboard; the scheduler's own HTTP server (health routes) on a free local port, not 8787:
                # a second run at once would print "Port 8787 is already in use" otherwise.
                local = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True, host="127.0.0.1",
                                     dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                     silence_logs=logging.CRITICAL + 1)
            try:
                with Client(local) as client:
                    client._drawlog_local = True  # (see _as_completed)
                    yield client
            finally:
                with contextlib.suppress(Exception):  # (closing a cluster whose workers were killed may complain)
                    local.close()
        return
    if not cluster.startswith(("tcp://", "tls://", "ucx://", "inproc://")):
        raise ClusterError(f"--cluster {cluster}: give local:N or a scheduler's address, tcp://HOST:8786")
    try:
        client = Client(cluster, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the scheduler at {cluster}: {error}") from None
    with _failures_said(f"--cluster {cluster}"), client:
        yield client


@contextlib.contextmanager
def _levels_restored(loggers: list[Any], levels: list[int]) -> Iterator[None]:
    """The loggers' levels put back after the block (a notebook's logging is its own again)."""
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


@contextlib.contextmanager
def _failures_said(where: str) -> Iterator[None]:
    """Dask's errors of workers that died or did not start, and of connections lost, as :class:`ClusterFailed`."""
    try:
        yield
    except Exception as error:
        said = _failure(error)
        if said is None and not isinstance(error, ClusterFailed):
            raise
        if isinstance(error, ClusterFailed):
            said = str(error)
        raise ClusterFailed(f"{where}: {said}; the run was given up (the old tables, or -o file, are as they were)") \
            from None


def _failure(error: BaseException) -> str | None:
    """What a dask error of a dead worker or a lost connection says, in a few words (None: another error)."""
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    if isinstance(error, KilledWorker):
        task = error.args[0] if error.args else "a task"
        return f"the workers died (KilledWorker: the workers running {task} died, and dask gave it up)"
    if isinstance(error, CommClosedError):
        return f"the connection to a worker or the scheduler was lost (CommClosedError: {error})"
    if isinstance(error, RuntimeError) and "failed to start" in str(error):
        return f"a worker did not start ({str(error).rstrip('.')}: its process was killed or could not run)"
    if isinstance(error, (asyncio.TimeoutError, TimeoutError, OSError)) and "worker" in str(error).lower():
        return f"the workers did not answer ({type(error).__name__}: {error})"
    return None


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile: threads and processes started meanwhile keep it blocked.

    So a Ctrl-C (sent to every process of the terminal's group) reaches the
    main thread only, which cancels the tasks and closes the cluster; a
    ``local:N`` worker prints no traceback of its own.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # started later, in the loop thread, it would unblock SIGINT there
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _in_input_order(client: Any, futures: list[Any], on_done: Callable[[int, Any], None] | None = None
                    ) -> Iterator[tuple[int, Any]]:
    """``(index, result)`` of each task in input order, as soon as it and those before it are done.

    ``on_done`` hears of each result as it comes (for a progress bar). Leaving
    early (an error, Ctrl-C) cancels every task not done.
    """
    index_of = {future.key: index for index, future in enumerate(futures)}
    held: dict[int, Any] = {}
    following = 0
    try:
        for future in _as_completed(client, futures):
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


#: How long a ``local:N`` cluster may be without a worker (all killed, none restarted) before the run is given up.
NO_WORKERS_S = 10.0


def _as_completed(client: Any, futures: list[Any]) -> Iterator[Any]:
    """Each future as it is done; a ``local:N`` cluster left without workers for :data:`NO_WORKERS_S` raises
    :class:`ClusterFailed` (a cluster elsewhere may gain workers later: it is waited for)."""
    from distributed import as_completed

    if not getattr(client, "_drawlog_local", False):
        yield from as_completed(futures)
        return
    stop, failed = threading.Event(), threading.Event()

    def watch() -> None:
        alone_since: float | None = None
        while not stop.wait(0.5):
            try:
                workers = client.scheduler_info().get("workers")
            except Exception:  # noqa: BLE001 - the client closing: nothing to watch
                return
            if workers:
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > NO_WORKERS_S:
                failed.set()
                with contextlib.suppress(Exception):
                    client.cancel(futures)  # the driver wakes up
                return

    watcher = threading.Thread(target=watch, name="drawlog-cluster-watch", daemon=True)
    watcher.start()
    try:
        for future in as_completed(futures):
            if failed.is_set():
                raise ClusterFailed("every worker died and none was restarted")
            yield future
    finally:
        stop.set()


def _keys(kind: str, count: int) -> list[str]:
    run = uuid.uuid4().hex[:8]
    return [f"drawlog-{kind}-{index}-{run}" for index in range(count)]


# -- the drivers ---------------------------------------------------------------------


def cluster_inputs(names: Sequence[str]) -> list[Source | InputError]:
    """The files the names stand for, in input order, as a worker anywhere reads them (see :func:`for_cluster`)."""
    if STDIN in names:
        raise ClusterError("--cluster reads files, folders and URLs, not standard input (-)")
    return for_cluster(list(expand_paths(list(names))))


def for_cluster(inputs: Sequence[Source | InputError]) -> list[Source | InputError]:
    """``inputs`` as a worker elsewhere reads them: a path made absolute (its name kept); standard input refused."""
    if any(is_standard_input(item) for item in inputs):
        raise ClusterError("--cluster reads files, folders and URLs, not standard input (-)")
    return [dataclasses.replace(item, path=item.path.absolute()) if isinstance(item, Source) and item.path is not None
            else item for item in inputs]


def validate_on_cluster(inputs: Sequence[Source | InputError], cluster: Any, options: PartOptions, summary: Summary,
                        on_done: Callable[[int, Summary], None] | None = None
                        ) -> Generator[tuple[str, Iterator[Violation]], None, None]:
    """Each input's name and violations, in input order, replayed on ``cluster``; counts go to ``summary``.

    The violations and counts are those one process reports, joined as a
    local ``--jobs`` run joins its parts (:func:`~drawlog.check.parallel.join_parts`).
    ``on_done(index, summary)`` hears of each file as its task ends (for a
    progress bar). Read each input's violations before asking for the next.
    """
    inputs = for_cluster(inputs)
    with connect(cluster) as client:
        parts = [Part([index], [item], "", options) for index, item in enumerate(inputs)]
        futures = client.map(validate_task, parts, key=_keys("validate", len(parts)), pure=False)
        heard = (lambda index, answer: on_done(index, answer[0].summary)) if on_done is not None else None
        done = ((parts[index], result, found) for index, (result, found) in _in_input_order(client, futures, heard))

        def again(part: Part) -> tuple[PartResult, list[Violation]]:
            answer: tuple[PartResult, list[Violation]] = \
                client.submit(validate_task, part, key=_keys("again", 1)[0], pure=False).result()
            return answer

        yield from join_parts(done, again, summary)


def write_tables_on_cluster(names: Sequence[str], out: str, cluster: Any, partition_by: str | None = None,
                            validator: Validator | None = None,
                            on_file: Callable[[int, Summary], None] | None = None) -> Summary:
    """:func:`~drawlog.tables.dataset.write_tables` on a Dask cluster: the same tables, written by the workers.

    ``validator`` gives the options (codes, caps, ``per-file-ignores``);
    ``on_file(index, summary)`` hears of each file as its task ends.
    """
    from .dataset import PARTITION_KEYS

    if partition_by is not None and partition_by not in PARTITION_KEYS:
        raise OutputError(f"cannot partition by {partition_by!r}: choose one of {', '.join(PARTITION_KEYS)}")
    inputs = cluster_inputs(names)
    options = PartOptions.of(validator or Validator())
    with staged_output(out) as output:
        with connect(cluster) as client:
            parts = [Part([index], [item], "", options) for index, item in enumerate(inputs)]
            futures = client.map(write_task, parts, staging=output.staging, partition_by=partition_by,
                                 key=_keys("stats", len(parts)), pure=False)
            heard = (lambda index, written: on_file(index, written.result.summary)) if on_file is not None else None
            written: list[Written] = []
            again: dict[int, Any] = {}
            cross, ended = CrossFile(), EndedKeys()
            for index, part in _in_input_order(client, futures, heard):
                seen = earlier_starts(cross, part)
                if seen is not None:  # replayed again, knowing what the files before started and ended
                    again[index] = client.submit(write_task, dataclasses.replace(parts[index], seen=seen),
                                                 output.staging, partition_by, ended.kept(),
                                                 key=_keys("again", 1)[0], pure=False)
                cross.add(part.result)
                ended.take(part.ended)
                written.append(part)
            indexes = list(again)
            for place, part in _in_input_order(client, list(again.values())):
                written[indexes[place]] = part
        summary = Summary()
        for part in written:
            add_summaries(summary, part.result.summary)
        if summary.files == 0 and summary.unreadable:
            raise NothingRead(out, [entry for part in written for entry in part.unreadable])
        rows = commit_parts(output, written, partition_by)
        output.finish(names, partition_by, summary, rows)
    return summary


def earlier_starts(cross: CrossFile, part: Written) -> dict[str, tuple[str, int]] | None:
    """The ids ``part`` mentions that files before it started (None: it owes them nothing; replay it again else).

    A part owes the files before it an F005 (an id it starts was started
    before), the wording of an F004 (``which has ended``) or the keys of a
    violation of a match one of them ended: each mentions such an id.
    """
    mentioned = {start.match for start in part.result.starts}.union(part.missed)
    seen = {match_id: cross.first[match_id] for match_id in mentioned if cross.started_before(match_id)}
    return seen or None


__all__ = ["ClusterError", "ClusterFailed", "cluster_inputs", "connect", "validate_on_cluster", "write_tables_on_cluster"]
