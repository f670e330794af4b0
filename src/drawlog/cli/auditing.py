"""What ``drawlog audit`` does after writing the tables: a baseline over the violations table, its JSON document.

The tables hold every violation found (as ``stats`` writes them); a baseline
(``--baseline FILE``) only screens what ``audit`` reports: the violations it
holds are counted in the summary (``baselined``), left out of its tables and
exit status, as ``validate --baseline`` leaves them out of its report.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from ..check.baseline import Baseline, Key
    from ..check.violations import Summary

#: The columns of the violations table a baseline needs (its key, and what the summary counts).
SCREENED = ("file", "code", "match", "message", "severity", "follows")


class _Row:
    """A violations table row, as :meth:`Summary.withdraw` reads a violation."""

    __slots__ = ("follows", "severity")

    def __init__(self, severity: str, follows: int | None) -> None:
        self.severity, self.follows = severity, follows


def screen_violations(out: str, summary: Summary, baseline: Baseline | None,
                      record: bool) -> tuple[pl.LazyFrame, Counter[Key] | None]:
    """The violations table of ``out`` less those ``baseline`` holds (withdrawn from ``summary``, counted in its
    ``baselined``), and with ``record`` every violation's key counted for a baseline file.

    The rows are taken in the table's order (the order found), so a baseline entry whose
    ``count`` is smaller than the matching rows absorbs the first ones, as in ``validate``.
    """
    import polars as pl

    from ..api import read_stats

    violations = read_stats(out)["violations"]
    if baseline is None and not record:
        return violations, None
    rows = violations.with_row_index("_row").select("_row", *SCREENED).collect()
    recorded: Counter[Key] | None = Counter() if record else None
    kept: list[int] = []
    counts = baseline.counts if baseline is not None else None
    for index, file, code, match, message, severity, follows in rows.iter_rows():
        item = (file, code, match, message)
        if recorded is not None:
            recorded[item] += 1
        if counts is not None and counts.get(item, 0) > 0:
            counts[item] -= 1
            summary.withdraw(_Row(severity, follows))  # type: ignore[arg-type]
            summary.baselined += 1
            continue
        kept.append(index)
    shown = rows.lazy().filter(pl.col("_row").is_in(kept)).select("_row") if counts is not None else None
    if shown is None:
        return violations, recorded
    return violations.with_row_index("_row").join(shown, on="_row", how="semi").drop("_row"), recorded


def audit_document(out: str, summary: Summary, found: dict[str, pl.DataFrame],
                   inputs: dict[str, Any] | None) -> dict[str, Any]:
    """``audit --format json``: validate's summary, the tables written with their rows, and what the text shows."""
    import msgspec
    import polars as pl

    from ..api import read_stats

    written = {name: frame.select(pl.len()).collect().item() for name, frame in read_stats(out).items()}
    document: dict[str, Any] = {"summary": msgspec.to_builtins(summary), "out": out,
                                "tables": {name: {"rows": rows} for name, rows in written.items()}}
    if inputs is not None:
        document["inputs"] = {key: inputs[key] for key in ("reused", "replayed", "dropped", "why_all")
                              if key in inputs}
    for key, frame in found.items():
        document[key] = frame.to_dicts()
    return document
