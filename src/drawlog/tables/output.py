"""The statistics folder ``--out`` while a run writes it: locked, checked, switched in whole, put right after a kill.

A run holds a lock on ``--out`` for its whole length (``flock`` on ``.NAME.lock``
beside the folder, removed at the end): a second run on the same folder
refuses at once, in one line (:class:`~drawlog.errors.OutputBusy`). Holding
it, the run first puts right what a killed run left (below).

The tables are laid out in generation folders (:mod:`~drawlog.tables.generations`):
a run writes its tables into a new generation folder inside ``--out``
(:attr:`OutputFolder.staging`) and switches to it by one rename of the link
``.gen-current``; readers of the old generation go on reading it, and it is
removed when none holds it any more. A symlinked ``--out`` is written through
(the link's target holds the generations); a mount point needs nothing else.

A folder an older drawlog wrote (its tables directly in it), or a new one, is
written whole beside it in the generation layout (``.NAME.partial-PID``) and
swapped in by two renames: the old folder to ``.NAME.old-PID``, the new one to
its place; the previous tables, set aside when a kill came between the two
renames, are renamed back, and the staging folders of runs no longer alive are
removed. :func:`recover` does the same for a reader (``query``, ``players``,
``ratings``) when no run holds the folder. A mount point cannot be renamed, so
its contents are swapped inside it instead (staging ``.drawlog-partial-PID``,
the old tables set aside in ``.drawlog-old-PID``, then ``.drawlog-retired-PID``,
the lock ``.drawlog.lock``: all inside it), as when renaming the folder fails
with EBUSY, EXDEV, EPERM or EACCES.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
from pathlib import Path

from ..atomic import process_running
from ..errors import OutputBusy, OutputError
from . import generations
from .locks import Lock as _Lock
from .locks import remove as _remove

MANIFEST = "_drawlog.json"
#: The lock of a mount point (or a folder swapped inside), in it.
INSIDE_LOCK = ".drawlog.lock"
#: drawlog's own entries inside a folder whose contents are swapped in place.
_INSIDE = re.compile(r"\.drawlog-(partial|old|retired)-(\d+)")
#: What renaming a folder says when it cannot be renamed, but its contents can be moved.
_CANNOT_RENAME = frozenset({errno.EBUSY, errno.EXDEV, errno.EPERM, errno.EACCES})
#: Left alone in a mount point: the file system's own.
_FILE_SYSTEMS_OWN = frozenset({"lost+found"})


def _beside(target: Path) -> re.Pattern[str]:
    """The names of what a run leaves beside ``target``: ``.NAME.old-PID`` and ``.NAME.partial-PID``."""
    return re.compile(rf"\.{re.escape(_side_name(target))}\.(old|partial)-(\d+)")


def _side_name(target: Path) -> str:
    """``target``'s name as the lock, staging and set-aside entries beside it use it: a long one shortened.

    Those add up to 22 bytes to it, and a file name may hold 255: a name over
    200 bytes keeps its first 64 characters and a digest of the whole.
    """
    name = target.name
    if len(name.encode("utf-8", "surrogateescape")) <= 200:
        return name
    import hashlib

    return f"{name[:64]}~{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


def _works_inside(target: Path) -> bool:
    """Whether a run locks, stages and swaps inside ``target``: a mount point (it cannot be renamed), or a folder
    this process may write in but not beside."""
    if _is_mount(target):
        return True
    return target.is_dir() and not os.access(target.parent, os.W_OK) and os.access(target, os.W_OK)


def _ours_inside(name: str, mount: bool) -> bool:
    """Whether an entry of the folder is drawlog's own bookkeeping (or, in a mount point, the file system's)."""
    return name == INSIDE_LOCK or _INSIDE.fullmatch(name) is not None or (mount and name in _FILE_SYSTEMS_OWN) \
        or generations.is_ours(name) or name == generations.READERS_LOCK


def _is_mount(target: Path) -> bool:
    try:
        return os.path.ismount(target)
    except OSError:
        return False


def _lock_path(target: Path) -> Path:
    return target / INSIDE_LOCK if _works_inside(target) else target.parent / f".{_side_name(target)}.lock"


def check_out_name(out: Path) -> None:
    """Refuse an ``--out`` whose name, or its real path's, is not UTF-8 (Arrow takes only UTF-8 paths), or a loop of
    symbolic links (it would be replaced by a folder, a link left behind)."""
    try:
        os.stat(out)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OutputError(f"{out}: too many levels of symbolic links; choose another --out") from None
    for name in (str(out), os.path.realpath(out)):
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8, which the file system keeps as surrogates
            shown_name = os.fsencode(name).decode("utf-8", "backslashreplace")
            raise OutputError(f"{shown_name} is not a UTF-8 name: Arrow writes tables only under UTF-8 paths; "
                              f"choose another --out") from None


def check_out_dir(out: Path) -> None:
    """Refuse a folder drawlog did not write (or a file) before any work is done."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder")
    if not out.is_dir() or (out / MANIFEST).is_file() or generations.in_generations(out):
        return
    mount = _is_mount(Path(os.path.realpath(out)))
    if any(not _ours_inside(entry.name, mount) for entry in out.iterdir()):
        raise OutputError(f"{out} holds files drawlog did not write (no {MANIFEST}); "
                          f"choose another --out or empty it")


class OutputFolder:
    """``--out`` for the length of one run: :meth:`open` it, write into :attr:`staging`, :meth:`swap_in`, :meth:`close`.

    :attr:`staging` is the new generation folder; :attr:`previous` the folder
    holding the tables replaced (the current generation, or ``--out`` itself
    when an older drawlog wrote it), which the run may read while it writes.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        #: The folder replaced: ``out``, or the target of a symlinked ``out``.
        self.target = Path(os.path.realpath(out))
        #: Whether the run works inside the folder (a mount point, or a folder whose parent it may not write).
        self.inside = _works_inside(self.target)
        #: Where the new tables go: a new generation folder (see :meth:`open`).
        self.staging = self._whole() / ".gen-1"
        #: Where the tables replaced are.
        self.previous = self.target
        #: The whole new folder swapped in by renames (a folder not yet in generations), or None.
        self._wrapper: Path | None = self._whole()
        self._lock: _Lock | None = None
        self._switched = False

    def _whole(self) -> Path:
        """Where a whole new folder is staged: beside the folder, or inside it."""
        pid = os.getpid()
        return self.target / f".drawlog-partial-{pid}" if self.inside \
            else self.target.parent / f".{_side_name(self.target)}.partial-{pid}"

    def open(self) -> OutputFolder:
        """Lock the folder (:class:`OutputBusy` when another run holds it), put right what a killed run left, check it."""
        check_out_name(self.out)
        self._lock = _Lock.take(_lock_path(self.target), self.out)
        try:
            _recover(self.target)
            check_out_dir(self.out)
            shutil.rmtree(self._whole(), ignore_errors=True)
            previous = generations.current(self.target)
            if previous is not None:  # generation folders: the new one beside the current one
                self.previous, self.staging, self._wrapper = previous, generations.next_generation(self.target), None
                generations.tidy(self.target)  # (numbers never reused: a dead run's partial one counts)
        except BaseException:
            self.close()
            raise
        return self

    def swap_in(self) -> None:
        """Put the tables written in :attr:`staging` in place of the old ones, all at once."""
        if os.path.lexists(self.target):
            _keep_access(self.previous, self.staging)
        if self._wrapper is None:
            generations.switch(self.target, self.staging)
            self._switched = True
            generations.tidy(self.target)  # the old generation removed, unless a reader holds it
            return
        generations.switch(self._wrapper, self.staging)
        if self.inside:
            self._swap_inside()
            self._switched = True
            return
        if not os.path.lexists(self.target):
            os.rename(self._wrapper, self.target)
            self._switched = True
            return
        _keep_access(self.target, self._wrapper)
        retired = self.target.parent / f".{_side_name(self.target)}.old-{os.getpid()}"
        try:
            os.rename(self.target, retired)
        except OSError as error:
            if error.errno not in _CANNOT_RENAME:
                raise
            self._move_staging_inside()
            self._swap_inside()
            self._switched = True
            return
        try:
            os.rename(self._wrapper, self.target)
        except BaseException:
            with contextlib.suppress(OSError):  # else the next run, or a reader, puts it back
                os.rename(retired, self.target)
            raise
        self._switched = True
        shutil.rmtree(retired, ignore_errors=True)

    def _move_staging_inside(self) -> None:
        """Carry the staging folder into the folder, whose contents are then swapped in place."""
        assert self._wrapper is not None
        inside = self.target / f".drawlog-partial-{os.getpid()}"
        shutil.rmtree(inside, ignore_errors=True)
        try:
            os.rename(self._wrapper, inside)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            shutil.copytree(self._wrapper, inside, symlinks=True)
            shutil.rmtree(self._wrapper, ignore_errors=True)
        self.staging, self._wrapper, self.inside = inside / self.staging.name, inside, True

    def _swap_inside(self) -> None:
        """Swap the folder's contents: the old entries aside (manifest first), the new ones in (manifest last)."""
        target, pid = self.target, os.getpid()
        mount = _is_mount(target)
        old = target / f".drawlog-old-{pid}"
        old.mkdir()
        try:
            entries = sorted((name for name in os.listdir(target) if not _ours_inside(name, mount)),
                             key=lambda name: name != MANIFEST)
            for name in entries:
                os.rename(target / name, old / name)
            retired = target / f".drawlog-retired-{pid}"
            os.rename(old, retired)  # every old entry is aside: from here on, undone by taking the new ones out
            assert self._wrapper is not None
            for name in sorted(os.listdir(self._wrapper), key=lambda name: name == MANIFEST):
                os.rename(self._wrapper / name, target / name)
        except BaseException:
            with contextlib.suppress(OSError):  # else the next run, or a reader, undoes it
                _recover_inside(target)
            raise
        shutil.rmtree(retired, ignore_errors=True)
        os.rmdir(self._wrapper)

    def close(self) -> None:
        """Remove what is left of the staging folder (unless switched in) and release the lock."""
        switched = self._switched or (self._wrapper is None and generations.current(self.target) == self.staging)
        if not switched:  # (a Ctrl-C just after the switch's rename, before it was noted, leaves it: it is current)
            shutil.rmtree(self._wrapper or self.staging, ignore_errors=True)
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def _keep_access(old: Path, new: Path) -> None:
    """Give the folder ``new`` the permissions and group of ``old``, which it replaces (a shared folder stays shared).

    What cannot be set (another user's group) is left as it is.
    """
    try:
        status = os.stat(old)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.chown(new, -1, status.st_gid)
    with contextlib.suppress(OSError):
        os.chmod(new, stat.S_IMODE(status.st_mode))


def _alive(pid: int) -> bool:
    """Whether another process ``pid`` runs (this process's own leftovers are dead: it holds the lock now)."""
    return pid != os.getpid() and process_running(pid)


def _recover(target: Path) -> None:
    """Under the lock: put back the previous tables a killed run left aside; remove dead runs' staging folders."""
    _recover_inside(target)
    if not target.parent.is_dir():
        return
    found = _beside(target)
    olds: list[Path] = []
    for entry in os.scandir(target.parent):
        match = found.fullmatch(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        if match.group(1) == "old":
            olds.append(Path(entry.path))
        elif not _alive(int(match.group(2))):
            shutil.rmtree(entry.path, ignore_errors=True)
    if olds and _vacant(target):
        olds.sort(key=lambda path: ((path / MANIFEST).is_file(), path.stat().st_mtime))
        previous = olds.pop()
        if os.path.isdir(target):
            os.rmdir(target)
        os.rename(previous, target)
    for old in olds:
        shutil.rmtree(old, ignore_errors=True)


def _vacant(target: Path) -> bool:
    """Whether ``target`` is missing, or an empty folder (not a mount point): a place the previous tables can go back to."""
    if not os.path.lexists(target):
        return True
    return target.is_dir() and not target.is_symlink() and not _is_mount(target) and not any(target.iterdir())


def _recover_inside(target: Path) -> None:
    """Undo a swap inside ``target`` that a kill stopped (see :meth:`OutputFolder._swap_inside`)."""
    if not target.is_dir():
        return
    mount = _is_mount(target)
    for entry in sorted(os.listdir(target)):
        match = _INSIDE.fullmatch(entry)
        if match is None:
            continue
        kind, pid = match.group(1), int(match.group(2))
        aside = target / entry
        if kind == "partial":
            if not _alive(pid):
                shutil.rmtree(aside, ignore_errors=True)
            continue
        if kind == "retired" and (target / MANIFEST).is_file():
            shutil.rmtree(aside, ignore_errors=True)  # the new tables were all in: only the clean-up was left
            continue
        if kind == "retired":  # the new tables were coming in: take them out again
            for name in os.listdir(target):
                if not _ours_inside(name, mount) or generations.is_ours(name):
                    _remove_entry(target / name)
        for name in os.listdir(aside):
            os.rename(aside / name, target / name)
        os.rmdir(aside)


def _remove_entry(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        _remove(path)


def _interrupted(target: Path) -> bool:
    """Whether a killed run may have left ``target``'s previous tables aside (cheap: read-only looks)."""
    if target.is_dir():
        try:
            if any(_INSIDE.fullmatch(name) and not name.startswith(".drawlog-partial-") for name in os.listdir(target)):
                return True
        except OSError:
            return False
    if not _vacant(target) or not target.parent.is_dir():
        return False
    found = _beside(target)
    try:
        return any((match := found.fullmatch(name)) is not None and match.group(1) == "old"
                   for name in os.listdir(target.parent))
    except OSError:
        return False


def recover(folder: Path) -> None:
    """For a reader: put back the tables a killed run left aside, unless a run holds the folder now. Never raises."""
    target = Path(os.path.realpath(folder))
    if not _interrupted(target):
        return
    try:
        lock = _Lock.take(_lock_path(target), folder)
    except (OutputBusy, OSError):
        return
    try:
        with contextlib.suppress(OSError):
            _recover(target)
    finally:
        lock.release()
