"""Logs at URLs (``s3://``, ``gs://``, ``abfs://``, ``memory://``, ``file://``), read through fsspec.

Only a name that starts with a scheme and ``://`` is a URL (:func:`is_url`);
every other path is read by :mod:`drawlog.log.reader` as before, without
fsspec. fsspec, and the filesystem a scheme needs (s3fs for ``s3://``), come
with ``pip install 'drawlog[cluster]'``. Credentials are the ones fsspec and
the cloud's own configuration find (environment, ``~/.aws``, gcloud, fsspec's
config files), never drawlog's options. A URL's compression is told by its
suffix (``.gz``, ``.zst``) or, failing that, by its first bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InputError
from .compressed import GZIP_MAGIC, decompressed, is_zstd, read_all
from .sources import Source, is_log_name

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]+://")
#: What a URL without fsspec installed says.
NEEDS_FSSPEC = "URLs need fsspec: pip install 'drawlog[cluster]'"


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL (``scheme://…``, a scheme of two letters or more; ``C:\\`` is a path)."""
    return _URL.match(name) is not None


def url_filesystem(url: str) -> tuple[Any, str]:
    """``(fsspec filesystem, path in it)`` of ``url``; ``ImportError`` says what to install."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ImportError(NEEDS_FSSPEC) from None
    return url_to_fs(url)


def local_path_of(url: str) -> str | None:
    """The local path a ``file://`` URL names (None for another scheme, or one fsspec cannot read)."""
    if not url.lower().startswith("file://"):
        return None
    try:
        return str(url_filesystem(url)[1])
    except Exception:  # noqa: BLE001 - expand_url says what is wrong with it
        return None


#: Schemes whose files live in the memory of the process that writes them: gone when a command exits.
PROCESS_MEMORY = ("memory://",)
#: The packages of the cloud clients whose errors (missing or refused credentials, above all) are one line.
_CLOUD_PACKAGES = ("botocore", "boto3", "aiobotocore", "s3fs", "google.auth", "google.cloud", "gcsfs",
                   "azure", "adlfs")


def lost_at_exit(url: str) -> bool:
    """Whether what is written at ``url`` is gone when the process ends (``memory://``: fsspec's in-process store)."""
    return url.lower().startswith(PROCESS_MEMORY)


def cloud_error(error: BaseException) -> str | None:
    """An error raised by a cloud client or fsspec (``NoCredentialsError``, an access denied, …) in a few words on
    one line, or None when ``error`` is not one (an ordinary bug still shows its traceback)."""
    raised_in = ""
    trace = error.__traceback__
    while trace is not None:  # the module of the innermost frame: where it was raised
        raised_in = str(trace.tb_frame.f_globals.get("__name__", ""))
        trace = trace.tb_next
    if any(kind.__module__.startswith(_CLOUD_PACKAGES) for kind in type(error).__mro__) \
            or raised_in.startswith((*_CLOUD_PACKAGES, "fsspec")):
        return f"{type(error).__name__}: {_why(error)}"
    return None


def _why(error: BaseException) -> str:
    """An fsspec or cloud error in a few words, on one line."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, FileNotFoundError):
        return "no such file or folder"
    if isinstance(error, PermissionError):
        return f"permission denied ({text})"
    return text


def expand_url(url: str, seen: set[str]) -> Iterator[Any]:
    """The log files at ``url`` (a file, or a folder searched recursively, sorted) as sources.

    Yields :class:`~drawlog.log.sources.Source` (``url`` set) or an
    :class:`~drawlog.errors.InputError` in place of what cannot be used; a URL
    met twice is read once.
    """
    try:
        fs, path = url_filesystem(url)
        if fs.isdir(path):
            base = path.rstrip("/")
            found = sorted(name for name in fs.find(base) if is_log_name(name))
            if not found:
                yield InputError(url, "folder holds no .jsonl, .jsonl.gz or .jsonl.zst files")
            for name in found:
                full = url.rstrip("/") + name[len(base):] if name.startswith(base + "/") else fs.unstrip_protocol(name)
                if full not in seen:
                    seen.add(full)
                    yield Source(full, url=full)
        elif fs.isfile(path):
            if url not in seen:
                seen.add(url)
                yield Source(url, url=url)
        else:
            yield InputError(url, "no such file or folder")
    except Exception as error:  # noqa: BLE001 - whatever the filesystem raises is this input's problem
        yield InputError(url, _why(error))


def url_chunks(name: str, url: str, on_ratio: Callable[[int], None] | None = None,
               inflated: list[bool] | None = None) -> Iterator[bytes]:
    """The decompressed data of the file at ``url`` in chunks (what :func:`~drawlog.log.reader.read_blocks` reads)."""
    try:
        fs, path = url_filesystem(url)
        raw = fs.open(path, "rb")
    except Exception as error:  # noqa: BLE001 - the input's problem, said in its F007
        raise InputError(name, f"cannot open: {_why(error)}") from None
    with raw:
        head = raw.read(4)
        raw.seek(0)
        lower = path.lower()
        gz = lower.endswith(".gz") or (not lower.endswith(".zst") and head.startswith(GZIP_MAGIC))
        zst = lower.endswith(".zst") or (not gz and is_zstd(head))
        if not (gz or zst):
            yield from read_all(raw)
            return
        yield from decompressed(raw, "gzip" if gz else "zstd", name, on_ratio, inflated)
