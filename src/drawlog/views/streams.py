"""Standard output guarded (:class:`GuardedStream`: a failed write is :class:`~drawlog.errors.WriteFailed`,
naming its target) and the names of the output formats: what every command needs before it runs, without the
writers themselves (rich, msgspec, the rules).
"""

from __future__ import annotations

import errno
import io
from typing import Any

from ..errors import WriteFailed

FORMATS = ("text", "concise", "json", "jsonl", "github", "sarif", "junit", "gitlab")
#: The formats ``--statistics`` prints counts in; the others are annotations or reports, which counts do not fit.
STATISTICS_FORMATS = ("text", "concise", "json", "jsonl")
COLORS = ("auto", "always", "never")

#: How :class:`WriteFailed` names standard output.
STANDARD_OUTPUT = "standard output"


class ClosedOutput(io.TextIOBase):
    """Standard output when the process was started without one (``drawlog … >&-``): writing fails.

    Python leaves ``sys.stdout`` None then; this stands in, so that a command
    whose output goes to a file runs as usual and one that writes to standard
    output fails like any other write (one line, exit 2), as ``cat`` does.
    """

    def write(self, data: Any) -> int:
        """Fail: there is nowhere to write."""
        raise OSError(errno.EBADF, "standard output is closed")

    def isatty(self) -> bool:
        """Not a terminal."""
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """UTF-8, as drawlog writes."""
        return "utf-8"

    @property
    def buffer(self) -> ClosedOutput:
        """Itself: the binary stream fails the same way."""
        return self


class GuardedStream:
    """A stream whose failed writes and flushes raise :class:`WriteFailed` naming ``target``.

    Everything else is the wrapped stream's; ``buffer`` (the binary stream under
    a text stream) is guarded too. A missing stream (None: closed when the
    process began) is a :class:`ClosedOutput`.
    """

    def __init__(self, wrapped: Any, target: str = STANDARD_OUTPUT) -> None:
        self.wrapped = wrapped if wrapped is not None else ClosedOutput()
        self.target = target

    def write(self, data: Any) -> int:
        """Write ``data`` to the wrapped stream."""
        try:
            return self.wrapped.write(data)
        except OSError as error:
            raise WriteFailed(self.target, error) from error

    def flush(self) -> None:
        """Flush the wrapped stream."""
        try:
            self.wrapped.flush()
        except OSError as error:
            raise WriteFailed(self.target, error) from error

    @property
    def buffer(self) -> GuardedStream:
        """The wrapped text stream's binary stream, guarded."""
        return GuardedStream(self.wrapped.buffer, self.target)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)
