"""Inputs read more than once (``filter``, ``replay``): standard input or a pipe kept in a file first."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from .compressed import CHUNK_BYTES, GZIP_MAGIC, ZSTD_MAGIC, is_zstd
from .sources import Source


def kept_to_read_again(source: Source, folder: Path, number: int = 0) -> Source:
    """A source that can be read more than once: standard input or a pipe is first copied into ``folder``.

    A regular file, a URL, or a path that cannot be looked at (reading it will
    say why) is returned as it is. The copy (``input-NUMBER.jsonl``, ``.gz`` or
    ``.zst`` by its first bytes, so it is read as the stream would be) keeps the
    source's name for every message.
    """
    if source.url is not None:
        return source
    if source.path is not None:
        try:
            if stat.S_ISREG(os.stat(source.path).st_mode):
                return source
        except OSError:
            return source
    try:
        stream: BinaryIO = sys.stdin.buffer if source.path is None else open(source.path, "rb")  # noqa: SIM115
    except (OSError, AttributeError):
        return source
    try:
        head = b""
        while len(head) < len(ZSTD_MAGIC) and (data := stream.read(len(ZSTD_MAGIC) - len(head))):
            head += data
        suffix = ".jsonl.gz" if head.startswith(GZIP_MAGIC) else ".jsonl.zst" if is_zstd(head) else ".jsonl"
        kept = folder / f"input-{number}{suffix}"
        with open(kept, "wb") as copy:
            copy.write(head)
            while data := stream.read(CHUNK_BYTES):
                copy.write(data)
    finally:
        if source.path is not None:
            stream.close()
    return Source(source.name, kept)
