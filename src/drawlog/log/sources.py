"""What a log source is: a file, standard input or a URL, and which file names are logs.

The piece that :mod:`drawlog.log.reader` (local files, standard input) and
:mod:`drawlog.log.remote` (URLs) share, below both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
STDIN = "-"


@dataclass(frozen=True)
class Source:
    """One input: a log file, standard input (``name == "-"``), or a URL read through fsspec (``url``)."""

    name: str
    path: Path | None = None
    url: str | None = None


def is_log_name(name: str) -> bool:
    """Whether a file name has a log suffix (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``, in any case)."""
    return name.lower().endswith(LOG_SUFFIXES)
