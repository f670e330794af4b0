"""Following a log while it is written, as ``tail -F`` does: the data of each file read under one name.

:class:`Tail` polls (every :data:`POLL_SECONDS`; no inotify) a file named on
the command line, or reads standard input, and hands out the data in chunks as
soon as it is written. :meth:`Tail.files` yields one chunk iterator per file
read under the name: the first from its beginning, then, when the file is
*truncated* (it shrinks below what was read) or *replaced* (the name now
leads to another file: a rotation, ``mv log log.1`` and a new ``log``), the
next from its beginning again. What the old file holds past what was read
when it is replaced is read first. A name not there yet (or gone) is waited
for. Each change is told to ``on_notice`` in one sentence; ``on_idle`` is
called whenever all that was written has been handed out, before waiting.

Standard input is read until it ends (or ``stop`` is set). Following stops
when ``stop`` (a :class:`threading.Event`) is set: the chunk iterator being
read ends once it has handed out what was written before (within a poll).

Limits (those of ``tail -F``): a file truncated and written past the point
read between two polls is not seen to shrink; its new lines are then read from
that point.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import BinaryIO

from ..errors import InputError
from .compressed import CHUNK_BYTES
from .sources import STDIN

#: Seconds between two looks at a file that has nothing new.
POLL_SECONDS = 0.1


def _nothing() -> None:
    """The default ``on_idle``: nothing to do."""


def _quiet(message: str) -> None:
    """The default ``on_notice``: say nothing."""


class Tail:
    """The data written to ``path`` (``-``: standard input), file after file, as it comes.

    ``name`` is how notices name it (the path by default). See the module's
    description for truncation, rotation and stopping.
    """

    def __init__(self, path: str, *, name: str | None = None, poll: float = POLL_SECONDS,
                 stop: threading.Event | None = None, on_idle: Callable[[], None] | None = None,
                 on_notice: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.name = name if name is not None else path
        self.poll = poll
        #: Set it to stop following (from another thread, or a signal handler).
        self.stop = stop if stop is not None else threading.Event()
        #: Called whenever everything written so far has been handed out, before waiting for more.
        self.on_idle: Callable[[], None] = on_idle or _nothing
        #: Told of a truncation, a rotation, a file awaited, in one sentence naming the file.
        self.on_notice: Callable[[str], None] = on_notice or _quiet
        #: Files read under the name so far (the next one's data follows a notice).
        self.generations = 0
        self._next: BinaryIO | None = None

    def files(self) -> Iterator[Iterator[bytes]]:
        """One iterator of chunks per file read under the name, each to be read to its end before the next.

        Raises :class:`~drawlog.errors.InputError` when the first file cannot
        be opened (other than by not being there yet: then it is waited for).
        """
        if self.path == STDIN:
            self.generations = 1
            yield self._standard_input()
            return
        handle = self._first_file()
        while handle is not None and not self.stop.is_set():
            self._next = None
            self.generations += 1
            yield self._chunks(handle)
            handle, self._next = self._next, None  # (None: the iterator was not read to its end, or it stopped)
        if handle is not None:  # (truncated just as following stopped)
            handle.close()

    # -- a file by name -------------------------------------------------------------

    def _first_file(self) -> BinaryIO | None:
        """The file, opened; waited for while it is not there (None: stopped before it came)."""
        said = False
        while not self.stop.is_set():
            try:
                return open(self.path, "rb", buffering=0)  # (closed by _chunks)
            except FileNotFoundError:
                if not said:
                    self.on_notice(f"{self.name} is not there yet: waiting for it to appear")
                    said = True
            except OSError as error:
                raise InputError(self.name, f"cannot open: {error.strerror or error}") from None
            self.on_idle()
            self.stop.wait(self.poll)
        return None

    def _chunks(self, handle: BinaryIO) -> Iterator[bytes]:
        """``handle``'s data from where it stands, until it is truncated, replaced, or following stops.

        Sets ``_next`` to the file to read next (``handle`` again, at its start,
        after a truncation); leaves it None when following stops.
        """
        gone = False
        keep = False  # (after a truncation the file is read again: left open)
        try:
            while True:
                data = handle.read(CHUNK_BYTES)
                if data:
                    yield data
                    continue
                if self.stop.is_set():  # (once what was written before it is read)
                    break
                self.on_idle()
                if self.stop.wait(self.poll):
                    continue
                if os.fstat(handle.fileno()).st_size < handle.tell():
                    self.on_notice(f"{self.name} was truncated: reading it again from its start")
                    handle.seek(0)
                    self._next, keep = handle, True
                    return
                try:
                    named = os.stat(self.path)
                except OSError:  # gone (rotated away, not yet made again): the old file may still grow
                    if not gone:
                        self.on_notice(f"{self.name} has gone: reading the old file until a new one appears")
                        gone = True
                    continue
                held = os.fstat(handle.fileno())
                if (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino):
                    gone = False
                    continue
                try:
                    new = open(self.path, "rb", buffering=0)  # noqa: SIM115 - closed by the next _chunks
                except OSError:
                    continue  # (replaced again meanwhile, or not readable yet: looked at next time)
                yield from iter(partial(handle.read, CHUNK_BYTES), b"")  # what the old file got before the switch
                self.on_notice(f"{self.name} was replaced (rotated): following the new file from its start")
                self._next = new
                return
        finally:
            if not keep:
                handle.close()

    # -- standard input ---------------------------------------------------------------

    def _standard_input(self) -> Iterator[bytes]:
        """Standard input's data as it comes, until it ends or following stops."""
        stream = sys.stdin.buffer if sys.stdin is not None else None
        if stream is None:
            raise InputError(self.name, "standard input is closed")
        try:
            number: int | None = stream.fileno()
        except (OSError, AttributeError, ValueError):
            number = None  # (a stream in memory: a test's)
        read = getattr(stream, "read1", stream.read)
        while True:
            if number is None or not _ready(number, 0):
                if self.stop.is_set():  # (once what was written before it is read)
                    break
                self.on_idle()
                if number is not None:
                    while not self.stop.is_set() and not _ready(number, self.poll):
                        pass
                    continue
            data = os.read(number, CHUNK_BYTES) if number is not None else read(CHUNK_BYTES)
            if not data:
                break
            yield data


def _ready(number: int, timeout: float) -> bool:
    """Whether the file descriptor ``number`` has data (or its end) to read within ``timeout`` seconds."""
    try:
        readable, _, _ = select.select([number], [], [], timeout)
    except (OSError, ValueError):  # (not selectable here, e.g. a file on Windows: a read will not wait long)
        return True
    return bool(readable)
