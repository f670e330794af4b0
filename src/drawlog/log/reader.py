"""Finding and reading logs: files, folders, gzip and zstd files, standard input.

:func:`expand_paths` (:mod:`drawlog.log.paths`) turns command-line paths into sources. :func:`read_blocks`
streams a source as *blocks*: byte strings holding whole lines (newlines
included), so the validator can decode many lines in one call. A line longer
than the limit is not kept in memory: it comes as a :class:`LongLine`.
Problems with a source (missing, binary, empty, corrupt or truncated
compression) raise :class:`InputError`.
"""

from __future__ import annotations

import gzip
import io
import itertools
import os
import re
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InputError
from .compressed import (  # noqa: F401  (BOMB_MIN_BYTES, BOMB_RATIO: read here by their old name too)
    BOMB_MIN_BYTES,
    BOMB_RATIO,
    CHUNK_BYTES,
    GZIP_MAGIC,
    ZSTD_MAGIC,
    decompressed,
    is_zstd,
    read_all,
)
from .events import MAX_NESTING
from .paths import expand_paths  # noqa: F401  (read here by its old name too)
from .remote import url_chunks
from .sources import LOG_SUFFIXES, STDIN, Source, is_log_name  # noqa: F401  (the names readers import from here)

#: Longest line kept; a longer one is skipped and reported.
MAX_LINE_BYTES = 1 << 20
#: What a source with a NUL byte on its first line is.
BINARY = "binary data (NUL bytes), not a JSON Lines log"
#: The UTF-8 byte order mark, dropped from the start of an input.
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class LongLine:
    """A line over :data:`MAX_LINE_BYTES`, skipped; ``length`` counts its bytes."""

    length: int


#: A JSON string, or an unterminated one running to the end of the line: a match wherever a quote starts one, so
#: the search never fails from a quote and rescans what follows (an unclosed string of 500,000 escaped quotes was
#: quadratic: a line of 1 MB took hours).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_OPENING = frozenset(b"[{")


def too_deep(line: bytes, limit: int = MAX_NESTING) -> bool:
    """Whether the JSON text ``line`` nests arrays and objects more than ``limit`` deep (strings aside).

    Linear in the line's length, and quick for a line with few brackets; any
    line, well-formed or not, gets an answer.
    """
    if line.count(b"[") + line.count(b"{") <= limit:
        return False
    depth = 0
    for byte in _JSON_STRING.sub(b"", line).translate(None, _NOT_BRACKETS):
        if byte in _OPENING:
            depth += 1
            if depth > limit:
                return True
        elif depth:
            depth -= 1
    return False


def printable(path: str) -> str:
    """A path as reports show and store it: bytes that are not UTF-8 become ``\\xNN`` escapes."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def read_blocks(source: Source, on_ratio: Callable[[int], None] | None = None) -> Iterator[bytes | LongLine]:
    """The source's lines, decompressed, grouped in blocks of whole lines.

    The first block is read at once, so an unopenable or binary source raises
    :class:`InputError` before anything is yielded; corrupt or truncated
    compression raises it later, after the blocks read before the fault. An
    empty source yields no block. Compressed data is cut into blocks as plain
    data is, in bounded memory whatever it inflates to; ``on_ratio``, when
    given, hears once, at the end, how many times a compressed file inflated
    when that is over :data:`BOMB_RATIO` (and over :data:`BOMB_MIN_BYTES`).
    """
    inflated: list[bool] = []  # (set once the source turns out compressed)
    heard: list[int] = []  # a ratio heard before the first block is handed out waits for it (the reader's file)
    handing_out: list[bool] = []

    def hear(ratio: int) -> None:
        if handing_out and on_ratio is not None:
            on_ratio(ratio)
        else:
            heard.append(ratio)

    chunks = _chunks(source, hear if on_ratio is not None else None, inflated)
    return _handed_out(blocks_of(source.name, chunks, inflated), heard, handing_out, on_ratio)


def blocks_of(name: str, chunks: Iterator[bytes], inflated: list[bool] | None = None) -> Iterator[bytes | LongLine]:
    """The lines of the input ``name`` whose data comes in ``chunks`` (plain), grouped as :func:`read_blocks` does.

    What :func:`read_blocks` does once it has the data: the first line is read
    at once (binary or compressed data raises :class:`InputError` then; a first
    line over the limit is read to its end, not kept); after it, each chunk's
    complete lines are a block as soon as the chunk arrives, and a line not
    ended yet waits for its newline (or for the last chunk).
    ``drawlog validate --follow`` hands in the chunks of a file as it is written.
    ``inflated`` holds an item when the data was decompressed already.
    """
    try:
        first = _first_chunk(chunks)
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - any decoder fault is the file's
        raise InputError(name, _describe(error), 1) from None
    if not first:
        return iter(())
    if first.startswith(GZIP_MAGIC) or is_zstd(first):
        kind, suffix = ("gzip", ".jsonl.gz") if first.startswith(GZIP_MAGIC) else ("zstd", ".jsonl.zst")
        if inflated:  # decompressed once already
            raise InputError(name, f"{kind}-compressed data inside the compressed data: compressed twice?")
        raise InputError(name, f"{kind}-compressed data: name the file {suffix} to read it")
    newline = first.find(b"\n")
    if b"\x00" in (first[:newline] if newline >= 0 else first):
        # A NUL on the first line: binary data. NULs later (padding after a crash) are bad lines (F001).
        raise InputError(name, BINARY)
    if newline < 0 and len(first) > MAX_LINE_BYTES:  # a first line over 1 MiB: read to its end, binary if a NUL
        try:
            length, rest = _rest_of_long_first_line(name, len(first), chunks)
        except InputError:
            raise
        except Exception as error:  # noqa: BLE001 - any decoder fault is the file's
            raise InputError(name, _describe(error), 1) from None
        return itertools.chain([LongLine(length)], _blocks(name, rest, chunks) if rest is not None else ())
    return _blocks(name, first, chunks)


def _handed_out(blocks: Iterator[bytes | LongLine], heard: list[int], handing_out: list[bool],
                on_ratio: Callable[[int], None] | None) -> Iterator[bytes | LongLine]:
    """``blocks``, telling ``on_ratio`` what it was not told yet once the first is asked for."""
    handing_out.append(True)
    if on_ratio is not None:
        for ratio in heard:
            on_ratio(ratio)
    yield from blocks


def _rest_of_long_first_line(name: str, length: int, chunks: Iterator[bytes]) -> tuple[int, bytes | None]:
    """Read past a first line over the limit (not kept): its length, and what follows its end (None: the input
    ends in it); :class:`InputError` when a NUL comes before its end (binary data, however long the line)."""
    for data in chunks:
        end = data.find(b"\n")
        part = data if end < 0 else data[:end]
        if b"\x00" in part:
            raise InputError(name, BINARY)
        length += len(part)
        if end >= 0:
            return length, data[end + 1:]
    return length, None


def _first_chunk(chunks: Iterator[bytes]) -> bytes:
    """The first data, without a UTF-8 byte order mark; b"" for an empty source.

    A producer that flushes the mark on its own (or a first gzip member or zstd
    frame that holds only the mark) sends it in a read of its own, and a pipe
    may give the first line in pieces: reads are joined until the first line is
    whole or over :data:`MAX_LINE_BYTES` long (a NUL anywhere in the first line
    means binary data), so what it is (binary data, compressed data) does not
    depend on how the reads arrive.
    """
    first = b""
    for chunk in chunks:
        first += chunk
        if len(first) <= len(BOM) and BOM.startswith(first):
            continue
        body = first.removeprefix(BOM)
        if b"\n" in chunk or len(body) > MAX_LINE_BYTES:
            break
    return first.removeprefix(BOM)


def _blocks(name: str, first: bytes, chunks: Iterator[bytes]) -> Iterator[bytes | LongLine]:
    pending = first
    skipping = 0  # bytes of an over-long line seen so far, while skipping it
    try:
        for data in _continue(first, chunks):
            if skipping:
                end = data.find(b"\n")
                if end == -1:
                    skipping += len(data)
                    continue
                yield LongLine(skipping + end)
                skipping = 0
                data = data[end + 1:]
                pending = b""
            else:
                data = pending + data if pending else data
            cut = data.rfind(b"\n") + 1
            if cut > MAX_LINE_BYTES:  # the block may hold a line over the limit
                yield from without_long_lines(data[:cut])
            elif cut:
                yield data[:cut]
            pending = data[cut:]
            if len(pending) > MAX_LINE_BYTES:
                skipping, pending = len(pending), b""
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - any decoder fault is the file's
        raise InputError(name, _describe(error)) from None
    if skipping:
        yield LongLine(skipping)
    elif pending:
        yield pending


def without_long_lines(block: bytes) -> Iterator[bytes | LongLine]:
    """A block of whole lines, each line over the limit given as a :class:`LongLine` instead."""
    start = kept = 0
    while start < len(block):
        end = block.index(b"\n", start)
        if end - start > MAX_LINE_BYTES:
            if kept < start:
                yield block[kept:start]
            yield LongLine(end - start)
            kept = end + 1
        start = end + 1
    if kept < len(block):
        yield block[kept:]


def _continue(first: bytes, chunks: Iterator[bytes]) -> Iterator[bytes]:
    yield b""  # the first chunk is already pending
    yield from chunks


def _chunks(source: Source, on_ratio: Callable[[int], None] | None = None,
            inflated: list[bool] | None = None) -> Iterator[bytes]:
    """The source's data in chunks, decompressed; ``inflated`` gets an item when it turns out compressed."""
    if source.url is not None:
        yield from url_chunks(source.name, source.url, on_ratio, inflated)
        return
    if source.path is None:
        yield from _standard_input(source.name, on_ratio, inflated)
        return
    try:
        raw = open(source.path, "rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(source.name, f"cannot open: {error.strerror or error}") from None
    with raw:
        name = source.path.name.lower()
        if name.endswith((".gz", ".zst")):  # (a FIFO so named too: nothing here seeks)
            yield from decompressed(raw, "gzip" if name.endswith(".gz") else "zstd", source.name, on_ratio, inflated)
        elif not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):  # a pipe: named by number, not by its data
            yield from _sniffed(raw, source.name, on_ratio, inflated)
        else:
            yield from read_all(raw)


def _standard_input(name: str, on_ratio: Callable[[int], None] | None = None,
                    inflated: list[bool] | None = None) -> Iterator[bytes]:
    """Standard input, decompressed when it starts like gzip or zstd data."""
    if sys.stdin is None:
        raise InputError(name, "standard input is closed")
    yield from _sniffed(sys.stdin.buffer, name, on_ratio, inflated)


def _sniffed(stream: BinaryIO, name: str, on_ratio: Callable[[int], None] | None = None,
             inflated: list[bool] | None = None) -> Iterator[bytes]:
    """A stream without a telling name (standard input, a pipe), decompressed when it starts like gzip or zstd.

    Its first four bytes are read however many reads they take (a pipe may give
    them one at a time), then handed out again before the rest.
    """
    start = b""
    read = getattr(stream, "read1", stream.read)
    while len(start) < len(ZSTD_MAGIC):
        data = read(len(ZSTD_MAGIC) - len(start))
        if not data:
            break
        start += data
    stream = io.BufferedReader(_Prefixed(start, stream), CHUNK_BYTES)
    if start.startswith(GZIP_MAGIC):
        yield from decompressed(stream, "gzip", name, on_ratio, inflated)
    elif is_zstd(start):
        yield from decompressed(stream, "zstd", name, on_ratio, inflated)
    else:
        yield from read_all(stream)


class _Prefixed(io.RawIOBase):
    """A stream whose first bytes were already read from it: ``prefix``, then the rest of the stream."""

    def __init__(self, prefix: bytes, stream: BinaryIO) -> None:
        super().__init__()
        self._prefix = prefix
        self._read = getattr(stream, "read1", stream.read)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = len(buffer)
        if self._prefix:
            data, self._prefix = self._prefix[:size], self._prefix[size:]
        else:
            data = self._read(size)
        buffer[:len(data)] = data
        return len(data)


def _describe(error: BaseException) -> str:
    if isinstance(error, EOFError):
        return "compressed stream ends early (truncated file)"
    if isinstance(error, gzip.BadGzipFile):
        return f"not a valid gzip file ({error})"
    if isinstance(error, zlib.error):
        return f"corrupt gzip data ({error})"
    if type(error).__module__.startswith("zstandard"):
        if "too much memory" in str(error):  # a window over zstd's default limit (128 MB): refused, not damaged
            return f"zstd data that needs too much memory to decompress (a window over 128 MB), refused ({error})"
        return f"corrupt zstd data ({error})"
    if isinstance(error, OSError):
        return f"cannot read: {error.strerror or error}"
    return f"cannot read: {error}"

