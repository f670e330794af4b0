"""Finding and opening logs: files, folders, compressed files and standard input.

:func:`expand_paths` turns command-line paths into sources; :func:`open_lines`
streams a source's physical lines as bytes. Problems with a source (missing,
binary, corrupt compression, empty) are raised as :class:`InputError` with the
file and, where known, the line.
"""

from __future__ import annotations

import gzip
import io
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .errors import InputError

LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
STDIN = "-"
_SNIFF = 8192


@dataclass(frozen=True)
class Source:
    """One input: a log file, or standard input (``name == "-"``)."""

    name: str
    path: Path | None = None


def is_log_name(name: str) -> bool:
    """Whether a file name has a log suffix (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``)."""
    return name.endswith(LOG_SUFFIXES)


def expand_paths(paths: list[str]) -> Iterator[Source | InputError]:
    """Sources for the given paths, in order; folders are searched recursively, sorted.

    A path that cannot be used yields an :class:`InputError` in its place, so the
    caller can report it and go on with the rest.
    """
    for raw in paths:
        if raw == STDIN:
            yield Source(STDIN)
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and is_log_name(p.name))
            if not found:
                yield InputError(raw, "folder holds no .jsonl, .jsonl.gz or .jsonl.zst files")
            for file in found:
                yield Source(str(file), file)
        elif path.is_file():
            yield Source(raw, path)
        elif path.exists():
            yield InputError(raw, "not a regular file or folder")
        else:
            yield InputError(raw, "no such file or folder")


def _open_binary(source: Source) -> BinaryIO:
    if source.path is None:
        return sys.stdin.buffer
    try:
        raw = open(source.path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as error:
        raise InputError(source.name, f"cannot open: {error.strerror or error}") from None
    name = source.path.name
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.BufferedReader(reader, buffer_size=1 << 16)  # type: ignore[arg-type,return-value]
    return raw


def _sniff(stream: BinaryIO, name: str) -> bytes:
    try:
        head = stream.read(_SNIFF)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(name, _describe(error), 1) from None
    except Exception as error:  # zstandard.ZstdError and other decoder errors
        raise InputError(name, _describe(error), 1) from None
    if not head:
        raise InputError(name, "empty: no lines to read")
    if b"\x00" in head:
        raise InputError(name, "binary data (NUL bytes), not a JSON Lines log")
    return head


def open_lines(source: Source) -> Iterator[bytes]:
    """The physical lines of a source as bytes, newline included, decompressed.

    Raises :class:`InputError` at once when the source cannot be opened, is empty
    or binary; while iterating, when its compression turns out corrupt or
    truncated (with the line number reached).
    """
    stream = _open_binary(source)
    try:
        head = _sniff(stream, source.name)
    except InputError:
        if source.path is not None:
            stream.close()
        raise
    return _iterate(source, stream, head)


def _iterate(source: Source, stream: BinaryIO, head: bytes) -> Iterator[bytes]:
    line = 0
    try:
        lines = iter(io.BytesIO(head)) if len(head) < _SNIFF else _chain(head, stream)
        try:
            for text in lines:
                line += 1
                yield text
        except (OSError, EOFError, zlib.error) as error:
            raise InputError(source.name, _describe(error), line + 1) from None
        except Exception as error:  # zstandard.ZstdError
            if type(error).__module__.startswith("zstandard"):
                raise InputError(source.name, _describe(error), line + 1) from None
            raise
    finally:
        if source.path is not None:
            stream.close()


def _chain(head: bytes, stream: BinaryIO) -> Iterator[bytes]:
    first_break = head.rfind(b"\n")
    if first_break == -1:
        rest = stream.readline()
        yield head + rest
    else:
        yield from io.BytesIO(head[: first_break + 1])
        tail = head[first_break + 1 :]
        if tail:
            yield tail + stream.readline()
    yield from stream


def _describe(error: BaseException) -> str:
    if isinstance(error, EOFError):
        return "compressed stream ends early (truncated file)"
    if isinstance(error, gzip.BadGzipFile):
        return f"not a valid gzip file ({error})"
    if isinstance(error, zlib.error):
        return f"corrupt gzip data ({error})"
    if type(error).__module__.startswith("zstandard"):
        return f"corrupt zstd data ({error})"
    if isinstance(error, OSError):
        return f"cannot read: {error.strerror or error}"
    return f"cannot read: {error}"
