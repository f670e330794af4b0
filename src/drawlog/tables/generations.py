"""Generation folders: each run's tables in a folder of their own, switched in by one rename, kept while read.

A statistics folder ``DIR`` holds each run's tables (and manifest, and index)
in a *generation folder* ``DIR/.gen-N``; ``DIR/.gen-current`` is a relative
symbolic link to the current one, and every name a reader knows
(``DIR/matches``, ``DIR/_drawlog.json`` …) is a relative link through it,
``DIR/matches -> .gen-current/matches``. A run writes ``.gen-N+1`` beside the
current generation and switches by renaming a new link over
``.gen-current``: one ``rename(2)``, so every table and the manifest change
at once.

A reader of drawlog (:func:`hold`) resolves ``.gen-current`` once, when it
opens the tables, and reads the files of that generation only, by their paths
in it; it holds a shared ``flock`` on the generation's ``.readers.lock`` for as
long as the process lives (a command of the command line, for as long as it
runs: :func:`scoped`). A run removes an old generation only when it can
take that lock exclusively (no reader holds it); otherwise it leaves it, and
the next run collects it. A run killed at any moment leaves ``.gen-current``
naming a whole generation: the old one, or the new one; what it left half
written is collected by the next run.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no locks, generations removed at once
    fcntl = None  # type: ignore[assignment]

#: The link to the current generation, in the statistics folder.
CURRENT = ".gen-current"
#: In each generation folder: the file readers hold a shared lock on.
READERS_LOCK = ".readers.lock"
#: The names of generation folders, and of a link on its way to replace :data:`CURRENT`.
GENERATION = re.compile(r"\.gen-(\d+)")
_NEW_LINK = re.compile(r"\.gen-current\.new-\d+")
#: A link a killed run left on its way to replace a name (``matches.new-PID``).
_ON_ITS_WAY = re.compile(r".+\.new-\d+")

class _Held:
    """A generation this process holds: the lock's descriptor, and who needs it."""

    def __init__(self, descriptor: int | None) -> None:
        self.descriptor = descriptor
        #: Held to the end of the process (frames handed out); else while ``scopes`` > 0.
        self.forever = False
        self.scopes = 0


#: The generations this process holds a shared lock on, by real path.
_HELD: dict[str, _Held] = {}
_HELD_GUARD = threading.Lock()
#: The generations held by the :func:`scoped` block running (None: outside one, held to the end of the process).
_SCOPE: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("drawlog_generation_scope", default=None)


@contextlib.contextmanager
def scoped() -> Iterator[None]:
    """Generations first held within the block are let go at its end, unless held outside one too.

    For a command that reads the tables and is done with them when it returns
    (``drawlog query``): the frames must not be read after the block.
    """
    token = _SCOPE.set([])
    try:
        yield
    finally:
        keys = _SCOPE.get() or []
        _SCOPE.reset(token)
        with _HELD_GUARD:
            for key in keys:
                entry = _HELD.get(key)
                if entry is None:
                    continue
                entry.scopes -= 1
                if entry.scopes <= 0 and not entry.forever:
                    del _HELD[key]
                    if entry.descriptor is not None:
                        with contextlib.suppress(OSError):
                            os.close(entry.descriptor)


def _note(key: str, descriptor: int | None) -> None:
    """Note ``key`` held (``descriptor``: its lock, taken now; None when it cannot be locked)."""
    with _HELD_GUARD:
        entry = _HELD.get(key)
        if entry is None:
            entry = _HELD[key] = _Held(descriptor)
        elif descriptor is not None:
            os.close(descriptor)  # another thread took it meanwhile
        _count(entry, key)


def _held_already(key: str) -> bool:
    """Whether this process holds ``key`` already (then noted once more), in one step."""
    with _HELD_GUARD:
        entry = _HELD.get(key)
        if entry is not None:
            _count(entry, key)
        return entry is not None


def _count(entry: _Held, key: str) -> None:
    """One more user of ``entry``: the process (outside a :func:`scoped` block) or the block running."""
    scope = _SCOPE.get()
    if scope is None:
        entry.forever = True
    else:
        entry.scopes += 1
        scope.append(key)


def is_ours(name: str) -> bool:
    """Whether an entry of a statistics folder is a generation folder, the link to the current one, or one on its way."""
    return name == CURRENT or GENERATION.fullmatch(name) is not None or _NEW_LINK.fullmatch(name) is not None


def in_generations(folder: Path) -> bool:
    """Whether ``folder`` is laid out in generation folders (it has the link to the current one)."""
    return os.path.islink(folder / CURRENT)


def current(folder: Path) -> Path | None:
    """The current generation folder of ``folder`` (None: not laid out in generations)."""
    try:
        name = os.readlink(folder / CURRENT)
    except OSError:
        return None
    return folder / name if GENERATION.fullmatch(name) else None


def next_generation(folder: Path) -> Path:
    """A generation folder of ``folder`` numbered after every one there (none made yet)."""
    numbers = [int(match.group(1)) for name in _listing(folder) if (match := GENERATION.fullmatch(name))]
    return folder / f".gen-{max(numbers, default=0) + 1}"


def _listing(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def hold(folder: Path) -> Path:
    """The generation folder a reader of ``folder`` reads now, held (shared lock) for the rest of the process.

    ``folder`` itself when it is not laid out in generations (tables of an
    older drawlog, or no tables at all: the caller says what it lacks).
    """
    for _ in range(1000):
        generation = current(folder)
        if generation is None:
            return folder
        key = os.path.realpath(generation)
        if _held_already(key):
            return generation
        if fcntl is None:  # pragma: no cover
            _note(key, None)
            return generation
        try:
            descriptor = os.open(generation / READERS_LOCK, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            if current(folder) == generation:  # not switched meanwhile: a generation without a lock file
                _note(key, None)
                return generation
            continue  # switched, and the old one collected: the new one
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH)
        except OSError as error:
            os.close(descriptor)
            if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF):  # no locks here
                _note(key, None)
                return generation
            raise
        try:
            kept = os.path.samestat(os.fstat(descriptor), os.stat(generation / READERS_LOCK))
        except FileNotFoundError:
            kept = False
        if not kept:  # a run collected it while this process waited for the lock: the current one now
            os.close(descriptor)
            continue
        _note(key, descriptor)
        return generation
    return folder  # pragma: no cover - a thousand runs switched while this reader looked


def release_all() -> None:
    """Let go of every generation this process holds (its tables opened before must no longer be read)."""
    with _HELD_GUARD:
        for entry in _HELD.values():
            if entry.descriptor is not None:
                with contextlib.suppress(OSError):
                    os.close(entry.descriptor)
        _HELD.clear()


def _link(path: Path, pointing_to: str) -> None:
    """Make ``path`` a symbolic link to ``pointing_to``, replacing a link there in one rename."""
    try:
        if os.readlink(path) == pointing_to:
            return
    except FileNotFoundError:
        os.symlink(pointing_to, path)  # a new name: nothing to replace
        return
    except OSError:
        pass
    temporary = path.with_name(f"{path.name}.new-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
    os.symlink(pointing_to, temporary)
    os.rename(temporary, path)


def link_names(folder: Path, generation: Path) -> None:
    """Give each entry of ``generation`` a name in ``folder`` through :data:`CURRENT` (before the switch)."""
    for name in sorted(os.listdir(generation)):
        if name.startswith("."):
            continue
        place = folder / name
        if os.path.lexists(place) and not os.path.islink(place):
            continue  # something of the user's own: left alone
        _link(place, f"{CURRENT}/{name}")


def switch(folder: Path, generation: Path) -> None:
    """Make ``generation`` (complete, in ``folder``) the current one: its names linked, then one rename."""
    (generation / READERS_LOCK).touch()
    link_names(folder, generation)
    _link(folder / CURRENT, generation.name)


def tidy(folder: Path) -> None:
    """After a switch, or before a run: remove the names no longer in the current generation, and every other
    generation no reader holds. Never raises (what cannot be removed now, the next run removes)."""
    now = current(folder)
    if now is None:
        return
    for name in _listing(folder):
        path = folder / name
        if _NEW_LINK.fullmatch(name) or (_ON_ITS_WAY.fullmatch(name) and _points_to_current(path)):
            with contextlib.suppress(OSError):
                os.unlink(path)
            continue
        if GENERATION.fullmatch(name) and name != now.name:
            collect(path)
            continue
        with contextlib.suppress(OSError):
            if os.readlink(path).startswith(f"{CURRENT}/") and not os.path.lexists(now / name):
                os.unlink(path)


def _points_to_current(path: Path) -> bool:
    try:
        return os.readlink(path).startswith(f"{CURRENT}/")
    except OSError:
        return False


def collect(generation: Path) -> bool:
    """Remove a generation folder no reader holds (True), or leave it (False)."""
    if fcntl is not None:
        try:
            descriptor = os.open(generation / READERS_LOCK, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            descriptor = None  # never current, or half removed: no reader can hold it
        except OSError:
            return False
        if descriptor is not None:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(descriptor)
                if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                    return False  # a reader holds it: the next run collects it
                descriptor = None
        try:
            with contextlib.suppress(OSError):
                os.unlink(generation / READERS_LOCK)  # a reader waiting for it sees it gone, and looks again
            shutil.rmtree(generation, ignore_errors=True)
        finally:
            if descriptor is not None:
                os.close(descriptor)
        return not os.path.lexists(generation)
    shutil.rmtree(generation, ignore_errors=True)  # pragma: no cover
    return True


__all__ = ["CURRENT", "READERS_LOCK", "collect", "current", "hold", "in_generations", "is_ours", "link_names",
           "next_generation", "release_all", "scoped", "switch", "tidy"]
