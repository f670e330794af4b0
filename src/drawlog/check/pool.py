"""Worker processes for runs with ``--jobs``: Ctrl-C stays the parent's, progress reaches it.

:func:`worker_pool` starts the processes with SIGINT blocked and then
ignored, so a Ctrl-C (sent to every process of the terminal's group) prints no
worker traceback; the parent cancels the work not begun and ends the workers.
:meth:`WorkerPool.in_order` hands out the tasks' results in the order given
while relaying what the workers report through :class:`ProgressSender` (a
queue, only when the parent listens). :func:`plan_parts` cuts the inputs into
runs of consecutive files of about equal size, the parts the workers replay.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager
from typing import Any

from ..errors import InputError
from ..log.reader import Source

#: ``prctl``'s option to be sent a signal when the parent dies (Linux).
_PR_SET_PDEATHSIG = 1

#: Told of a worker's reading: ``(input index, bytes read, matches started, whether the input is done)``.
OnProgress = Callable[[int, int, int, bool], None]

#: In a worker: the queue to the parent's progress display (None: nobody listens).
_progress_queue: Any = None
#: How often a worker reports while reading one input, at most (seconds).
_REPORT_EVERY = 0.1
#: The least a part weighs (bytes of its files): a smaller one costs more (a task, its files) than it gains.
SMALLEST_PART = 1 << 20
#: How many parts each worker gets, about: enough to even out their sizes, few enough to cost nothing.
PARTS_PER_WORKER = 4


def is_standard_input(item: Source | InputError) -> bool:
    """Whether ``item`` is standard input (under any ``--stdin-filename``): only one process can read it."""
    return isinstance(item, Source) and item.path is None and item.url is None


def plan_parts(inputs: Sequence[Source | InputError], jobs: int, smallest: int | None = None) -> list[range]:
    """The inputs cut into runs of consecutive ones, ``PARTS_PER_WORKER`` a worker, each of ``smallest`` bytes or more.

    ``smallest`` is ``SMALLEST_PART`` unless given.
    A file is never cut; one too small to weigh counts as 4 KB (opening a file
    costs something), so ten thousand tiny files make a few parts, not ten
    thousand.
    """
    sizes = [max(_stored_size(item), 4096) for item in inputs]
    target = max(sum(sizes) // (jobs * PARTS_PER_WORKER), SMALLEST_PART if smallest is None else smallest)
    parts: list[range] = []
    start = weight = 0
    for index, size in enumerate(sizes):
        weight += size
        if weight >= target:
            parts.append(range(start, index + 1))
            start, weight = index + 1, 0
    if start < len(sizes):
        parts.append(range(start, len(sizes)))
    return parts


def _stored_size(item: Source | InputError) -> int:
    if not isinstance(item, Source) or item.path is None:
        return 0
    try:
        return os.stat(item.path).st_size
    except OSError:
        return 0


class ProgressSender:
    """In a worker: tells the parent of the bytes read and matches started, ten times a second at most.

    ``block`` is the validator's ``on_block`` (None when nobody listens, so a
    run without a display pays nothing); :meth:`done` says an input ended.
    """

    def __init__(self, matches: Callable[[], int]) -> None:
        self._queue = _progress_queue
        self._matches = matches
        self._index = -1
        self._read = 0
        self._told_matches = 0
        self._last = time.monotonic()
        self.block: Callable[[int], None] | None = self._block if self._queue is not None else None

    def start(self, index: int) -> None:
        """The input ``index`` (among all the run's inputs) is about to be read."""
        self._index = index

    def _block(self, size: int) -> None:
        self._read += size
        now = time.monotonic()
        if now - self._last >= _REPORT_EVERY:
            self._last = now
            self._send(False)

    def done(self) -> None:
        """The input being read has ended."""
        if self._queue is not None:
            self._send(True)

    def _send(self, done: bool) -> None:
        matches = self._matches()
        self._queue.put((self._index, self._read, matches - self._told_matches, done))
        self._read, self._told_matches = 0, matches


def _start_worker(progress: Any, parent: int) -> None:
    """In a worker, first: Ctrl-C is the parent's to handle; progress goes to ``progress`` (a queue or None).

    On Linux the worker also ends when its parent (process ``parent``) dies,
    killed say: an orphan would work on for nothing.
    """
    global _progress_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _progress_queue = progress
    _end_with_parent(parent)


def _end_with_parent(parent: int) -> None:
    """Have the kernel send SIGTERM to this process when its parent dies (Linux ``prctl``; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the worker ends when the pool's pipe closes, as before
        return
    if os.getppid() != parent:  # the parent died before prctl: no signal would come
        os._exit(1)


class WorkerPool:
    """Processes that run tasks; :meth:`in_order` gives their results in the order asked."""

    def __init__(self, executor: Any, progress: Any) -> None:
        self.executor = executor
        self._progress = progress

    def in_order(self, task: Callable[[Any], Any], arguments: Iterable[Any],
                 on_progress: OnProgress | None = None) -> Iterator[Any]:
        """``task(argument)`` for each argument, run by the workers; the results in the arguments' order.

        All are handed to the workers at once, so later ones run while earlier
        results are used; the workers' progress goes to ``on_progress`` meanwhile.
        """
        futures = [self.executor.submit(task, argument) for argument in arguments]
        for future in futures:
            while not future.done():
                wait([future], timeout=_REPORT_EVERY)
                self._relay(on_progress)
            self._relay(on_progress)
            yield future.result()

    def _relay(self, on_progress: OnProgress | None) -> None:
        if self._progress is None:
            return
        while True:
            try:
                report = self._progress.get_nowait()
            except (queue.Empty, OSError, ValueError, EOFError):
                return
            if on_progress is not None:
                on_progress(*report)


@contextmanager
def worker_pool(jobs: int, progress: bool = False) -> Iterator[WorkerPool]:
    """``jobs`` worker processes that leave Ctrl-C to this one, which stops them; ``progress``: they report it.

    When anything (Ctrl-C too) ends the run here, the work not begun is
    cancelled and the workers are ended at once, not waited for.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    reports: Any = multiprocessing.Queue() if progress else None
    masked = hasattr(signal, "pthread_sigmask")
    executor: Any = None
    try:
        if masked:  # a Ctrl-C now waits until the workers exist (they inherit the mask), then comes here
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            executor = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                           initargs=(reports, os.getpid()))
            started: list[Future[int]] = [executor.submit(int) for _ in range(jobs)]  # the workers start
            for future in started:
                future.result()
        finally:
            if masked:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        yield WorkerPool(executor, reports)
        executor.shutdown()  # a Ctrl-C while the workers are told to end ends them too
    except BaseException:
        stop(executor, reports)
        raise
    _close(reports)


def stop(executor: Any, reports: Any = None) -> None:
    """Cancel the work not begun and end the workers now (they ignore Ctrl-C); ``executor`` None: none started."""
    if executor is None:
        _close(reports)
        return
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(5)
    if manager is not None:  # it ends once the workers have; the exit would otherwise race it for its pipe
        manager.join(5)
    _close(reports)


def _close(reports: Any) -> None:
    if reports is not None:
        reports.cancel_join_thread()  # what a stopped worker left in it is not waited for
        reports.close()
