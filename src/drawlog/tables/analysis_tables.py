"""The analysis tables (``drawlog analyze --out``) in a statistics folder: written beside ``stats``' tables, kept by them.

``decisions``, ``analysis_players`` and ``luck`` are laid out as every table
of the folder is, ``TABLE/part-00000.parquet``, and written as ``stats``
writes its tables (:class:`~drawlog.tables.output.OutputFolder`: locked,
written as a new generation folder, switched in whole): the folder's other entries
(``stats``' tables, its index) are hard-linked into the staging folder
unchanged, and the manifest gains an ``analysis`` entry (inputs, samples,
seed, rows) — a folder without a manifest gets one of its own. A later
``stats --out`` on the folder carries the analysis tables and that entry over
(:func:`keep_analysis`): each command replaces only its own tables.

The columns are :mod:`drawlog.analysis.summary`'s; this module takes the
frames ready made (``tables`` lies below ``analysis``).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from .output import MANIFEST, OutputFolder, _is_mount, _ours_inside
from .reading import ANALYSIS_TABLES, TABLE_FORMAT, analysis_sources

#: The manifest's entry naming what wrote the analysis tables.
ANALYSIS_KEY: Final = "analysis"


def _link_tree(source: Path, target: Path) -> None:
    """``target`` a copy of ``source`` (a file or a folder) made of hard links where the file system allows."""
    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if source.is_dir():
        shutil.copytree(source, target, copy_function=link)
    else:
        link(str(source), str(target))


def _manifest(folder: Path) -> dict[str, Any]:
    """The manifest of ``folder`` as a dict (empty when it has none or it cannot be read)."""
    try:
        held = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return held if isinstance(held, dict) else {}


def write_analysis_tables(frames: Mapping[str, Any], out: str | Path, about: Mapping[str, Any]) -> None:
    """Write the polars ``frames`` (named as :data:`ANALYSIS_TABLES`) into the statistics folder ``out``.

    ``about`` (inputs, samples, seed…) goes into the manifest's ``analysis``
    entry. The folder's other tables are kept as they are; a folder drawlog did
    not write, or one another run holds, raises
    :class:`~drawlog.errors.OutputError` (:class:`~drawlog.errors.OutputBusy`).
    """
    from .. import __version__

    folder = OutputFolder(Path(out)).open()
    staging, old = folder.staging, folder.previous
    try:
        staging.mkdir(parents=True)
        manifest = _manifest(old)
        if old.is_dir():
            mount = _is_mount(old)
            for name in sorted(os.listdir(old)):
                if name in ANALYSIS_TABLES or name == MANIFEST or _ours_inside(name, mount) \
                        or old / name == staging:
                    continue
                _link_tree(old / name, staging / name)
        rows = {}
        for name in ANALYSIS_TABLES:
            (staging / name).mkdir()
            frames[name].write_parquet(staging / name / "part-00000.parquet", compression="zstd")
            rows[name] = frames[name].height
        if not manifest:
            manifest = {"drawlog": __version__, "table_format": TABLE_FORMAT}
        manifest[ANALYSIS_KEY] = {**about, "drawlog": __version__, "rows": rows,
                                  "written": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        folder.swap_in()
    finally:
        folder.close()


def keep_analysis(old: Path, staging: Path) -> None:
    """Carry ``old``'s analysis tables and its manifest's ``analysis`` entry into ``staging`` (its manifest written).

    What ``stats --out`` calls before swapping its new tables in: they do not
    delete what ``analyze --out`` wrote there.
    """
    entry = _manifest(old).get(ANALYSIS_KEY)
    kept = [name for name in ANALYSIS_TABLES if (old / name).is_dir() and not (staging / name).exists()]
    for name in kept:
        _link_tree(old / name, staging / name)
    if kept and entry is not None:
        manifest = _manifest(staging)
        manifest[ANALYSIS_KEY] = entry
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


__all__ = ["ANALYSIS_KEY", "ANALYSIS_TABLES", "analysis_sources", "keep_analysis", "write_analysis_tables"]
