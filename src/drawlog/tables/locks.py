"""The lock a run holds on a statistics folder: an ``flock`` on a lock file its holder removes when done.

Below :mod:`~drawlog.tables.output`, which takes it for the length of a run.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from ..errors import OutputBusy

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: runs are not locked
    fcntl = None  # type: ignore[assignment]


#: The descriptors of the locks this process holds: a forked child (a ``--jobs`` worker) closes them at once, so
#: that the lock ends with this process even when a worker outlives it.
_HELD: set[int] = set()


def _forget_locks_in_child() -> None:
    for descriptor in _HELD:
        with contextlib.suppress(OSError):
            os.close(descriptor)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks_in_child)


class Lock:
    """An ``flock`` held on a lock file, which its holder removes when done."""

    def __init__(self, path: Path, descriptor: int | None) -> None:
        self.path = path
        self.descriptor = descriptor

    @classmethod
    def take(cls, path: Path, out: Path) -> Lock:
        """Take the lock now, or raise :class:`OutputBusy` naming ``out`` (and the holder's process id)."""
        if fcntl is None:  # pragma: no cover
            return cls(path, None)
        with contextlib.suppress(FileExistsError):  # a file on the way: opening the lock file says so
            path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(descriptor)
                os.close(descriptor)
                by = f" (process {holder})" if holder else ""
                raise OutputBusy(f"another drawlog run{by} is writing {out}; wait for it to end, "
                                 f"or choose another --out") from None
            except OSError as error:
                os.close(descriptor)
                if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):  # a file system without locks
                    remove(path)
                    return cls(path, None)
                raise
            except BaseException:
                os.close(descriptor)
                raise
            try:
                current = os.path.samestat(os.fstat(descriptor), os.stat(path))
            except FileNotFoundError:
                current = False
            if current:
                break
            os.close(descriptor)  # its holder removed it meanwhile: lock the one at the path now
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        _HELD.add(descriptor)
        return cls(path, descriptor)

    def release(self) -> None:
        """Remove the lock file, then let go (anyone who opened it before sees it gone and opens the new one)."""
        if self.descriptor is not None:
            remove(self.path)
            _HELD.discard(self.descriptor)
            os.close(self.descriptor)
            self.descriptor = None


def _holder(descriptor: int) -> int | None:
    try:
        text = os.pread(descriptor, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def remove(path: Path) -> None:
    """Remove the file at ``path``, if it is there."""
    with contextlib.suppress(OSError):
        os.unlink(path)


__all__ = ["Lock", "remove"]
