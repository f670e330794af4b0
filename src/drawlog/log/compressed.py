"""Reading gzip and zstd data in chunks, in bounded memory, with an eye on compression bombs.

Shared by :mod:`drawlog.log.reader` (files, standard input) and
:mod:`drawlog.log.remote` (URLs), below both.
"""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..errors import InputError

CHUNK_BYTES = 1 << 16
#: Compressed bytes handed to the zstd decoder at a time. A block of 128 KB can take 4 bytes, so at most
#: about 8 MB come out of one slice: a compression bomb is read in bounded memory.
ZSTD_SLICE_BYTES = 1 << 8
#: A compressed input that inflates more than this many times (and to more than
#: :data:`BOMB_MIN_BYTES`) is reported once: no real log compresses so well.
BOMB_RATIO = 1_000
BOMB_MIN_BYTES = 1 << 26
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: A zstd skippable frame starts with one of 16 magic numbers, 0x184D2A50 to 0x184D2A5F (little-endian).
_SKIPPABLE = re.compile(rb"[\x50-\x5f]\x2a\x4d\x18")


def is_zstd(start: bytes) -> bool:
    """Whether data beginning with ``start`` is zstd: a frame's magic number, or a skippable frame's."""
    return start.startswith(ZSTD_MAGIC) or _SKIPPABLE.match(start) is not None


def decompressed(stream: BinaryIO, kind: str, name: str, on_ratio: Callable[[int], None] | None = None,
                 inflated: list[bool] | None = None) -> Iterator[bytes]:
    """The data of the ``kind`` (``gzip`` or ``zstd``) ``stream``, decompressed in chunks (``inflated`` told so).

    ``on_ratio`` hears, once the stream ends, how many times it inflated when
    that is over :data:`BOMB_RATIO` (and over :data:`BOMB_MIN_BYTES`); the
    compressed bytes are counted as read, so a pipe is measured as a file is.
    """
    if inflated is not None:
        inflated.append(True)
    counted = _Counted(stream)
    unpacked = 0
    if kind == "gzip":
        with gzip.GzipFile(fileobj=counted, mode="rb") as inflating:
            for chunk in read_all(inflating):  # type: ignore[arg-type]
                unpacked += len(chunk)
                yield chunk
    else:
        for chunk in _unzstd(counted, name):  # type: ignore[arg-type]
            unpacked += len(chunk)
            yield chunk
    packed = max(counted.count, 1)
    if on_ratio is not None and unpacked >= BOMB_MIN_BYTES and unpacked > BOMB_RATIO * packed:
        on_ratio(unpacked // packed)


class _Counted(io.RawIOBase):
    """A binary stream read through, counting the bytes read (what a compressed input weighs)."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__()
        self._read = getattr(stream, "read1", stream.read)
        #: Bytes read so far.
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._read(len(buffer))
        buffer[:len(data)] = data
        self.count += len(data)
        return len(data)


def read_all(stream: BinaryIO) -> Iterator[bytes]:
    read = getattr(stream, "read1", stream.read)
    while True:
        data = read(CHUNK_BYTES)
        if not data:
            return
        yield data


def _unzstd(raw: BinaryIO, name: str) -> Iterator[bytes]:
    """Decompress zstd frames one after another, in chunks of :data:`CHUNK_BYTES`; a frame cut short is an error."""
    yield from _in_chunks(_zstd_pieces(raw, name))


def _zstd_pieces(raw: BinaryIO, name: str) -> Iterator[bytes]:
    """The decompressed data of zstd frames, fed to the decoder :data:`ZSTD_SLICE_BYTES` at a time."""
    import zstandard

    context = zstandard.ZstdDecompressor()
    decompressor = context.decompressobj()
    in_frame = False
    while True:
        data = raw.read(CHUNK_BYTES)
        if not data:
            break
        start = 0
        while start < len(data):
            in_frame = True
            piece = data[start:start + ZSTD_SLICE_BYTES]
            start += len(piece)
            out = decompressor.decompress(piece)
            if out:
                yield out
            if decompressor.eof:
                data = decompressor.unused_data + data[start:]
                start = 0
                decompressor = context.decompressobj()
                in_frame = False
    if in_frame:
        raise InputError(name, "compressed stream ends early (truncated file)")


def _in_chunks(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """The data of ``pieces`` again, cut into chunks of exactly :data:`CHUNK_BYTES` (the last one shorter).

    When ``pieces`` fails (a damaged frame further on), what it gave before is
    handed out first, then the error is raised: no line decompressed is lost.
    """
    held: list[bytes | memoryview] = []
    size = 0
    failure: Exception | None = None
    try:
        for piece in pieces:
            if size + len(piece) < CHUNK_BYTES:
                held.append(piece)
                size += len(piece)
                continue
            start = CHUNK_BYTES - size
            held.append(memoryview(piece)[:start])
            yield b"".join(held)
            while len(piece) - start >= CHUNK_BYTES:
                yield piece[start:start + CHUNK_BYTES]
                start += CHUNK_BYTES
            held = [piece[start:]] if start < len(piece) else []
            size = len(piece) - start
    except Exception as error:  # noqa: BLE001 - raised again below, after the data before it
        failure = error
    if size:
        yield b"".join(held)
    if failure is not None:
        raise failure
