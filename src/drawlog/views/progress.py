"""The progress bar of ``drawlog validate``: files, megabytes of the inputs as stored (compressed), ETA.

The bar counts the bytes of the files as they lie on disk. The validator hears
of decompressed bytes, so each file's share is scaled by its ratio where the
file tells it: a plain file is its own size, a gzip file states its size
unpacked in its last four bytes, a zstd frame may state it in its header; a
file that does not tell (or standard input) moves the bar when it ends.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..log.sources import Source

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

_MEGABYTE = 1e6


def stored_size(path: Path) -> tuple[int, int | None]:
    """A regular file's size on disk and, where it tells, its size decompressed (else ``None``); ``(0, None)`` else."""
    try:
        info = os.stat(path)
    except OSError:
        return 0, None
    if not stat.S_ISREG(info.st_mode):
        return 0, None
    size, name = info.st_size, path.name.lower()
    if name.endswith(".gz"):
        return size, _gzip_size(path, size)
    if name.endswith(".zst"):
        return size, _zstd_size(path)
    return size, size


def _gzip_size(path: Path, size: int) -> int | None:
    """The size unpacked that a one-member gzip file states in its trailer (modulo 4 GiB: trusted when not smaller)."""
    try:
        with open(path, "rb") as raw:
            raw.seek(-4, os.SEEK_END)
            stated = int.from_bytes(raw.read(4), "little")
    except OSError:
        return None
    return stated if stated >= size else None


def _zstd_size(path: Path) -> int | None:
    """The content size a zstd frame header states, if it does."""
    import zstandard

    try:
        with open(path, "rb") as raw:
            header = raw.read(18)
        stated = zstandard.frame_content_size(header)
    except (OSError, zstandard.ZstdError):
        return None
    return stated if stated > 0 else None


class ValidateProgress:
    """A transient bar on ``console`` (standard error): files read of all, MB of MB, time left.

    Use as a context manager; :meth:`start_file`, :meth:`advance` (the
    validator's ``on_block``) and :meth:`end_file` move it. When ``enabled``
    is false nothing is shown and every call is cheap.
    """

    def __init__(self, sources: list[Any], console: Console, enabled: bool) -> None:
        self.enabled = enabled
        self.console = console
        self.sizes: dict[int, tuple[int, int | None]] = {}
        if enabled:
            for index, item in enumerate(sources):
                path = item.path if isinstance(item, Source) else None
                self.sizes[index] = stored_size(path) if path is not None else (0, None)
        self.total_files = len(sources)
        total = sum(size for size, _ in self.sizes.values())
        #: The bar (None when not shown: rich's progress is not even imported then, start-up time).
        self.progress: Progress | None = None
        if enabled:
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeRemainingColumn

            self.progress = Progress(
                SpinnerColumn(), TextColumn("validating"), BarColumn(),
                TextColumn("{task.fields[files]:,}/{task.fields[total_files]:,} files"),
                TextColumn("{task.fields[megabytes]:,.1f}/{task.fields[total_megabytes]:,.1f} MB"),
                TimeRemainingColumn(), console=console, transient=True)
            self.task = self.progress.add_task("validating", total=total or None, files=0,
                                               total_files=self.total_files, megabytes=0.0,
                                               total_megabytes=total / _MEGABYTE)
        self._done = 0.0  # bytes of the files already read
        self._file_size = 0
        self._ratio = 0.0  # stored bytes per decompressed byte of the file being read (0: unknown)
        self._file_done = 0.0
        self._files = 0
        self._reading: dict[int, float] = {}  # stored bytes read of each input workers are reading

    def __enter__(self) -> ValidateProgress:
        if self.progress is not None:
            self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.__exit__(None, None, None)

    def start_file(self, index: int) -> None:
        """The ``index``-th input is about to be read."""
        size, unpacked = self.sizes.get(index, (0, None))
        self._file_size, self._file_done = size, 0.0
        self._ratio = size / unpacked if unpacked else 0.0

    def advance(self, decompressed: int) -> None:
        """``decompressed`` more bytes of the current file were read."""
        if not self.enabled or not self._ratio:
            return
        self._file_done = min(self._file_done + decompressed * self._ratio, float(self._file_size))
        self._show()

    def end_file(self) -> None:
        """The current file has been read."""
        if not self.enabled:
            return
        self._done += self._file_size
        self._file_size, self._file_done, self._ratio = 0, 0.0, 0.0
        self._files += 1
        self._show()

    def worker_read(self, index: int, decompressed: int, matches: int, done: bool) -> None:
        """A worker read ``decompressed`` more bytes of the ``index``-th input (``done``: all of it)."""
        if not self.enabled:
            return
        size, unpacked = self.sizes.get(index, (0, None))
        if done:
            self._reading.pop(index, None)
            self._done += size
            self._files += 1
        elif unpacked:
            read = self._reading.get(index, 0.0) + decompressed * size / unpacked
            self._reading[index] = min(read, float(size))
        self._file_done = sum(self._reading.values())
        self._show()

    def _show(self) -> None:
        read = self._done + self._file_done
        assert self.progress is not None  # (called only when enabled)
        self.progress.update(self.task, completed=read, files=self._files, megabytes=read / _MEGABYTE)
