"""Faults and the exception hierarchy, drawn in one place.

::

    DrawlogError
    ├── IllegalAction      a move or claim the rules forbid (carries the Fault)
    └── InputError         a file or stream that cannot be read at all
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
