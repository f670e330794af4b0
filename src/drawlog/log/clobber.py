"""Outputs that would overwrite an input: the one check every command that writes a file makes first.

An output is refused when it is one of the inputs (compared by device and inode, links followed:
a symlink or a hard link to the log counts) or lies inside an input folder (a path not existing
yet too); for an output folder written into (``filter --split-by``, ``stats --out``), also when it
holds an input. Standard input (``-``) and URLs are not files and are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .remote import is_url


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (device and inode, links followed); False when either is missing."""
    try:
        one, other = os.stat(first), os.stat(second)
    except (OSError, ValueError):
        return False
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


def _identity(path: str) -> tuple[int, int] | None:
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def _folders_holding(path: str) -> set[tuple[int, int]]:
    """The (device, inode) of every folder ``path`` lies in, links resolved (``path`` itself not included)."""
    found: set[tuple[int, int]] = set()
    folder = os.path.dirname(os.path.realpath(path))
    while True:
        identity = _identity(folder)
        if identity is not None:
            found.add(identity)
        parent = os.path.dirname(folder)
        if parent == folder:
            return found
        folder = parent


def clobbered_input(output: str, inputs: Iterable[str], *, into_folder: bool = False) -> tuple[str, str] | None:
    """``(input, how)`` when writing ``output`` would overwrite or lie among ``inputs``, else None.

    ``how`` is ``"is"`` (the same file: links and hard links count) or ``"inside"`` (``output`` lies in
    an input folder; a path not existing yet too). With ``into_folder`` (``output`` is a folder written
    into) an input inside ``output`` is ``"holds"``. Standard input ``-`` and URLs are not files: skipped.
    """
    if output in ("", "-") or is_url(output):
        return None
    wanted = _identity(output)
    holding = _folders_holding(output)
    for name in inputs:
        if name in ("", "-") or is_url(name):
            continue
        identity = _identity(name)
        if identity is None:
            continue
        if wanted is not None and identity == wanted:
            return name, "is"
        if identity in holding:
            return name, "inside"
        if into_folder and wanted is not None and wanted in _folders_holding(name):
            return name, "holds"
    return None
