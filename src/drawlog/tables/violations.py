"""Violations as a polars DataFrame, for notebooks and scripts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..check.violations import Violation

#: The columns of :func:`violations_frame`: the fields of a violation as the JSON output names them.
VIOLATION_COLUMNS = ("file", "line", "match", "round", "player", "code", "severity", "message")
#: The columns of :func:`violations_frame`: those, then ``follows`` (the root's line for a follow-on, else null).
FRAME_COLUMNS = (*VIOLATION_COLUMNS, "follows")


def violations_frame(violations: Iterable[Violation]) -> Any:  # polars.DataFrame (polars imported when called)
    """A polars DataFrame of violations, one row each, with the JSON fields as columns (in that order).

    ``line``, ``round`` and ``follows`` are Int64 (null where unknown, or for a root); the other columns are
    strings.
    """
    import polars as pl

    schema = {name: pl.Int64 if name in ("line", "round", "follows") else pl.String for name in FRAME_COLUMNS}
    rows = [tuple(getattr(violation, name) for name in FRAME_COLUMNS) for violation in violations]
    return pl.DataFrame(rows, schema=schema, orient="row")
