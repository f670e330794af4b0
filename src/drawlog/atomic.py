"""Output files written whole or not at all (``-o FILE`` of every command), their missing folders made.

:func:`atomic_file` writes to a temporary name in the target's folder
(``.NAME.PID.XXXXXXXX.tmp``) and renames it over the target only when the
writing ended well: an error, a full disk or an interrupt (Ctrl-C) removes the
temporary file and leaves a previous file as it was, never a 0-byte or half
file. What a killed run left (its process gone) is removed by the next run
that writes the same file. A symlink is written through (its target is replaced, the link stays); a
device, FIFO or other file that is not a regular one (``/dev/null``,
``/dev/stdout``) is written directly, as it cannot be replaced; so is a file in
a folder where no other file can be made.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from typing import IO, Any


class AtomicFile:
    """An output file being written: :attr:`handle` to write, then :meth:`commit` or :meth:`discard`."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "wb", encoding: str | None = None) -> None:
        self.path = os.fspath(path)
        self.target = os.path.realpath(self.path)  # a symlink is written through
        self.temporary: str | None = None
        folder = os.path.dirname(self.target)
        if folder and not os.path.isdir(folder):  # -o new/x.jsonl: the folders are made, as ruff's --output-file
            try:
                os.makedirs(folder, exist_ok=True)
            except FileExistsError:  # a file where the folder should be
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder) from None
        if _replaceable(self.target):
            folder, name = os.path.split(self.target)
            try:
                descriptor, self.temporary = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}.", suffix=".tmp",
                                                              dir=folder)
            except OSError:
                self.temporary = None  # no file can be made there: write the target itself
            else:
                try:
                    os.fchmod(descriptor, _mode_for(self.target))
                    self.handle: IO[Any] = os.fdopen(descriptor, mode, encoding=encoding)
                except BaseException:
                    os.close(descriptor)
                    self._remove_temporary()
                    raise
                return
        self.handle = open(self.path, mode, encoding=encoding)  # noqa: SIM115 - closed by commit or discard

    def commit(self) -> None:
        """Close the file and put it in place (an error on the way discards it and is raised)."""
        try:
            self.handle.close()
            if self.temporary is not None:
                os.replace(self.temporary, self.target)
                self.temporary = None
                _remove_left_behind(self.target)
        except BaseException:
            self.discard()
            raise

    def discard(self) -> None:
        """Close the file and remove what was written (a direct write cannot be taken back)."""
        with contextlib.suppress(OSError):
            self.handle.close()
        self._remove_temporary()

    def _remove_temporary(self) -> None:
        if self.temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.temporary)
            self.temporary = None


def _remove_left_behind(target: str) -> None:
    """Remove the temporary files of ``target`` that runs killed while writing it left (their process is gone)."""
    folder, name = os.path.split(target)
    left = re.compile(rf"\.{re.escape(name)}\.(\d+)\.[a-z0-9_]{{8}}\.tmp")
    with contextlib.suppress(OSError), os.scandir(folder or ".") as entries:
        for entry in entries:
            found = left.fullmatch(entry.name)
            if found is not None and int(found.group(1)) != os.getpid() and not process_running(int(found.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user's counts; a number no process can have does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, OverflowError):
        return False
    return True


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "wb", encoding: str | None = None) -> Iterator[IO[Any]]:
    """A file opened for writing at ``path``, put in place when the block ends well, removed when it raises."""
    output = AtomicFile(path, mode, encoding)
    try:
        yield output.handle
    except BaseException:
        output.discard()
        raise
    output.commit()


def _replaceable(target: str) -> bool:
    """Whether ``target`` is a regular file or nothing yet: a file that a rename can replace."""
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _mode_for(target: str) -> int:
    """The permissions a new file gets: the replaced file's, else what ``open`` would give (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask
