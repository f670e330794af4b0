"""The validation summary in a statistics folder's manifest, read for ``drawlog report`` as untrusted input.

``drawlog stats`` writes the summary of its run (a
:class:`~drawlog.check.violations.Summary`) into ``_drawlog.json``; a report
of a folder it did not write may find anything there. :func:`read_summary`
reads it field by field into a ``Summary``: a count that is not a whole number
from 0 to 2**63 - 1 is read as 0, a warning that is not text is left out, and
each value not read is said in a sentence (the report shows them); nothing
in it raises.
"""

from __future__ import annotations

from typing import Any

from ..check.violations import Summary

#: The largest count read (an int64, as the tables count); a larger one is read as 0.
MOST = 2**63 - 1
#: The warnings of ``decompression`` kept (one per compressed input: more is not a summary drawlog wrote).
MOST_WARNINGS = 1000


def _kind(value: Any) -> str:
    """What a JSON value is, in a few words (never the value itself: it is untrusted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a negative number" if value < 0 else "a number over 2**63 - 1" if value > MOST else "a number"
    if isinstance(value, float):
        return "a fraction"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST


def read_summary(raw: Any) -> tuple[Summary, list[str]]:
    """The manifest's ``summary`` value as a :class:`Summary`, and what of it was not read (sentences).

    Missing counts are 0, said only when the whole summary is missing; keys
    drawlog does not write are ignored.
    """
    if raw is None:
        return Summary(), ["the folder's manifest holds no validation summary: its counts are shown as 0"]
    if not isinstance(raw, dict):
        return Summary(), [f"the manifest's summary is {_kind(raw)}, not an object: its counts are shown as 0"]
    values: dict[str, Any] = {}
    notes: list[str] = []
    for name in Summary.__struct_fields__:
        if name not in raw:
            continue
        value = raw[name]
        if name != "decompression":
            if _count(value):
                values[name] = value
            else:
                notes.append(f"the manifest's summary.{name} is {_kind(value)}, not a count: shown as 0")
        elif not isinstance(value, list):
            notes.append(f"the manifest's summary.decompression is {_kind(value)}, not a list of warnings: "
                         "none shown")
        else:
            kept = [item for item in value if isinstance(item, str)]
            if len(kept) < len(value):
                notes.append(f"{len(value) - len(kept):,} of the manifest's summary.decompression warnings are "
                             "not text: left out")
            if len(kept) > MOST_WARNINGS:
                notes.append(f"the manifest's summary.decompression holds {len(kept):,} warnings: the first "
                             f"{MOST_WARNINGS:,} shown")
            values[name] = kept[:MOST_WARNINGS]
    return Summary(**values), notes
