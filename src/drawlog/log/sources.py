"""What a log source is: a file, standard input or a URL, and which file names are logs.

The piece that :mod:`drawlog.log.reader` (local files, standard input) and
:mod:`drawlog.log.remote` (URLs) share, below both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
STDIN = "-"


@dataclass(frozen=True)
class Source:
    """One input: a log file, standard input (``name == "-"``), or a URL read through fsspec (``url``)."""

    name: str
    path: Path | None = None
    url: str | None = None
    #: Given (an object with ``update(bytes)``), it is fed a local file's bytes as they are read, as stored
    #: (compressed or not): ``stats`` takes the input's content hash so, not by reading it again.
    digest: Any = field(default=None, compare=False, repr=False)


def is_log_name(name: str) -> bool:
    """Whether a file name has a log suffix (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``, in any case)."""
    return name.lower().endswith(LOG_SUFFIXES)
