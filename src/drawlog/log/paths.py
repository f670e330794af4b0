"""From the paths a command names to the sources to read: :func:`expand_paths`.

Folders are searched recursively (sorted, linked folders followed once), a file
met twice is read once, URLs are expanded (:mod:`drawlog.log.remote`), and a
path that cannot be used is an :class:`InputError` in its place.
:mod:`drawlog.log.reader` reads each source (and still offers ``expand_paths``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from .remote import expand_url, is_url, local_path_of
from .sources import STDIN, Source, is_log_name


def expand_paths(paths: list[str]) -> Iterator[Source | InputError]:
    """Sources for the given paths, in order; folders are searched recursively, sorted.

    A path that cannot be used yields an :class:`InputError` in its place, so the
    caller can report it and go on with the rest. A file reached twice (named
    twice, through a link, or as a path and a ``file://`` URL) is read once,
    under the name it was first reached by. A FIFO, socket or device found in a folder is not opened (it could block
    for ever) but reported; named on the command line (``<(zcat log.gz)``), it
    is read like a file.
    """
    seen: set[tuple[int, int]] = set()
    urls: set[str] = set()
    for raw in paths:
        if raw == STDIN:
            yield Source(STDIN)
            continue
        if is_url(raw):
            for found in expand_url(raw, urls):  # a file:// URL and a path of the same file: read once
                local = local_path_of(found.url) if isinstance(found, Source) and found.url is not None else None
                if local is None or _first_time(_status(Path(local)), seen):
                    yield found
            continue
        path = Path(raw)
        if path.is_dir():
            found = _logs_in(path)
            if not found:
                yield InputError(raw, "folder holds no .jsonl, .jsonl.gz or .jsonl.zst files")
            for file in found:
                if isinstance(file, InputError):  # a folder that cannot be listed
                    yield file
                    continue
                status = _status(file)
                if status is None or stat.S_ISREG(status.st_mode):
                    if _first_time(status, seen):
                        yield Source(str(file), file)
                else:
                    kind = stat.S_IFMT(status.st_mode)
                    yield InputError(str(file), f"not a regular file ({_KINDS.get(kind, 'special file')}) "
                                                f"found in a folder: skipped; name it to read it")
        elif path.exists():
            if _first_time(_status(path), seen):
                yield Source(raw, path)
        else:
            yield InputError(raw, "no such file or folder")


_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def _status(path: Path) -> os.stat_result | None:
    """``path``'s status (links followed), or None when it cannot be looked at (opening will tell)."""
    try:
        return os.stat(path)
    except OSError:
        return None


def _first_time(status: os.stat_result | None, seen: set[tuple[int, int]]) -> bool:
    """Whether a regular file of ``status`` is met for the first time (by device and inode); other files always are."""
    if status is None or not stat.S_ISREG(status.st_mode):
        return True
    key = (status.st_dev, status.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True


def _logs_in(folder: Path) -> list[Path | InputError]:
    """The log files under ``folder``, sorted as paths sort (part by part); linked folders are followed (each real
    folder once). A folder that cannot be listed (no permission) is an :class:`InputError` in its place."""
    found: list[tuple[list[str], Path | InputError]] = []
    visited = set()

    def unlisted(error: OSError) -> None:
        where = Path(error.filename) if error.filename is not None else folder
        found.append(([os.path.normcase(part) for part in where.parts],
                      InputError(str(where), f"cannot read the folder: {error.strerror or error}")))

    for top, folders, files in os.walk(folder, onerror=unlisted, followlinks=True):
        real = os.path.realpath(top)
        if real in visited:
            folders.clear()
            continue
        visited.add(real)
        names = [name for name in files if is_log_name(name)]
        if names:
            here = Path(top)
            parts = [os.path.normcase(part) for part in here.parts]
            found += [([*parts, os.path.normcase(name)], here / name) for name in names]
    found.sort(key=_first)
    return [path for _, path in found]


def _first(pair: tuple[list[str], Path | InputError]) -> list[str]:
    return pair[0]
