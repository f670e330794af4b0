"""Violations as a polars DataFrame, for notebooks and scripts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..check.violations import Violation

#: The columns of :func:`violations_frame`: the fields of a violation as the JSON output names them.
VIOLATION_COLUMNS = ("file", "line", "match", "round", "player", "code", "severity", "message")


def violations_frame(violations: Iterable[Violation]) -> Any:  # polars.DataFrame (polars imported when called)
    """A polars DataFrame of violations, one row each, with the JSON fields as columns (in that order).

    ``line`` and ``round`` are Int64 (null where unknown); the other columns are strings.
    """
    import polars as pl

    schema = {name: pl.Int64 if name in ("line", "round") else pl.String for name in VIOLATION_COLUMNS}
    rows = [tuple(getattr(violation, name) for name in VIOLATION_COLUMNS) for violation in violations]
    return pl.DataFrame(rows, schema=schema, orient="row")
