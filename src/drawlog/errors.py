"""Faults and the exception hierarchy, drawn in one place.

::

    DrawlogError
    ├── IllegalAction      a move or claim the rules forbid (carries the Fault)
    ├── InputError         a file or stream that cannot be read at all
    ├── NothingRead        no input of a statistics run could be read (the old tables are kept)
    ├── OutputError        a statistics folder that cannot be written, or read back, as asked
    ├── ClusterError       a Dask cluster that cannot be used as asked
    ├── ClusterFailed      a cluster whose workers died or did not start during a run (the old tables are kept)
    │   └── OutputBusy     another run is writing that folder now
    ├── PositionError      a position string (dp1 …) that cannot be read, with the column
    └── WriteFailed        output (a file, or standard output) that cannot be written
"""

from __future__ import annotations

from typing import NamedTuple


class Fault(NamedTuple):
    """One broken rule, as found by the rules engine.

    ``code`` is the stable violation code (``M205``); ``message`` says what was
    expected and what happened. ``impossible`` is true when the move cannot be
    carried out at all (a tile not held), so a replay must not apply it.
    """

    code: str
    message: str
    impossible: bool = False


class DrawlogError(Exception):
    """Base class of every error drawlog raises on purpose."""


class IllegalAction(DrawlogError):
    """An action the rules forbid; ``faults`` lists every rule it breaks."""

    def __init__(self, faults: list[Fault]) -> None:
        self.faults = faults
        super().__init__("; ".join(f"{fault.code} {fault.message}" for fault in faults))

    @property
    def code(self) -> str:
        """The code of the first rule broken."""
        return self.faults[0].code


class InputError(DrawlogError):
    """A path or stream that cannot be read (missing, binary, corrupt)."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.line = line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, int | None]]:
        """Pickled with its three fields (sent to worker processes)."""
        return InputError, (self.path, self.reason, self.line)


class NothingRead(DrawlogError):
    """No input of a statistics run could be read; ``unreadable`` lists each as ``(file, line, reason)``."""

    def __init__(self, out: str, unreadable: list[tuple[str, int | None, str]]) -> None:
        self.unreadable = unreadable
        super().__init__(f"nothing could be read, so {out} is left as it was")


class OutputError(DrawlogError):
    """A statistics folder that cannot be written (or read back) as asked."""


class OutputBusy(OutputError):
    """Another drawlog run holds the statistics folder (its lock): this run refuses, and leaves it alone."""


class ClusterError(DrawlogError):
    """A Dask cluster that cannot be used as asked (no dask installed, a scheduler not reached, standard input)."""


class ClusterFailed(DrawlogError):
    """A Dask cluster's workers died, or did not start, during a run: the run is given up, the old tables kept."""


class WriteFailed(DrawlogError):
    """Output could not be written to ``target`` (a file name, or ``standard output``)."""

    def __init__(self, target: str, error: OSError) -> None:
        super().__init__(f"cannot write {target}: {error.strerror or error}")
        self.target = target
        self.error = error

    @property
    def broken_pipe(self) -> bool:
        """Whether the reader went away (``drawlog … | head``)."""
        return isinstance(self.error, BrokenPipeError)


class PositionError(DrawlogError):
    """A position string (``dp1 …``, see ``docs/position.md``) that cannot be read; ``column`` is 1-based."""

    def __init__(self, message: str, column: int) -> None:
        self.reason = message
        self.column = column
        super().__init__(f"column {column}: {message}")

    def __reduce__(self) -> tuple[type[PositionError], tuple[str, int]]:
        """Pickled with its two fields."""
        return PositionError, (self.reason, self.column)
