"""What a line that cannot be read looks like, for its message: hints and quotations.

A file whose lines are not JSON is most often a pretty-printed object or a
JSON array of events (the log needs one object per line), or Python's repr of
dicts (single quotes): the first F001 of such an input says so, once. Nothing
here runs on the hot path: only for lines already found wrong.
"""

from __future__ import annotations

import re

import msgspec

#: What the first F001 of an input adds when the line looks like a piece of a pretty-printed object or of an array.
PRETTY_HINT = "; this looks like pretty-printed JSON or a JSON array: a log needs one object per line"
#: ... and when it starts like a Python dict's repr.
QUOTES_HINT = "; this looks like a Python dict: JSON needs double quotes (json.dumps, not str)"
#: A line of a pretty-printed object: a member (``"type": "pass",``), or a bracket alone.
_MEMBER = re.compile(rb'"(?:[^"\\]|\\.)*"\s*:')
_BRACKETS = frozenset((b"{", b"[", b"}", b"},", b"]", b"],", b"[]", b"{}"))


def not_json_hint(raw: bytes) -> str:
    """What a line that is not JSON seems to be (:data:`PRETTY_HINT`, :data:`QUOTES_HINT`), or ``""``."""
    if looks_pretty(raw):
        return PRETTY_HINT
    if raw.lstrip().startswith(b"{'"):
        return QUOTES_HINT
    return ""


def looks_pretty(raw: bytes) -> bool:
    """Whether a line that is not JSON looks like a piece of pretty-printed JSON, or of a JSON array of events."""
    text = raw.strip()
    return text in _BRACKETS or _MEMBER.match(text) is not None or text.startswith(b"[{") \
        or (text.startswith(b"{") and text.endswith(b"},"))


def shortened(text: str, limit: int = 40) -> str:
    """A logged string as a message quotes it: in JSON, cut after ``limit`` characters."""
    quoted = msgspec.json.encode(text if len(text) <= limit else text[:limit]).decode()
    return quoted if len(text) <= limit else quoted[:-1] + '…"'


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in words: ``an array``, ``a string``, ``null`` …"""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
