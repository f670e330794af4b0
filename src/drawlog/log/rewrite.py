"""Rewriting top-level fields of one JSON line in place: the other fields, their order and spacing, byte for byte.

What ``drawlog fix`` writes a corrected claim with (:mod:`drawlog.check.fix`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["Unreadable", "field_spans", "rewrite"]


class Unreadable(ValueError):
    """A line whose top-level fields could not be found (not reached for a line that decoded)."""


_SPACE: Final = b" \t\r\n"


def _skip_space(raw: bytes, at: int) -> int:
    while at < len(raw) and raw[at] in _SPACE:
        at += 1
    return at


def _string_end(raw: bytes, at: int) -> int:
    """The index after the JSON string starting at ``raw[at]`` (a quote)."""
    at += 1
    while at < len(raw):
        byte = raw[at]
        if byte == 0x5C:  # backslash
            at += 2
            continue
        if byte == 0x22:
            return at + 1
        at += 1
    raise Unreadable("unterminated string")


def _value_end(raw: bytes, at: int) -> int:
    """The index after the JSON value starting at ``raw[at]``."""
    if at >= len(raw):
        raise Unreadable("no value")
    byte = raw[at]
    if byte == 0x22:
        return _string_end(raw, at)
    if byte in b"[{":
        depth = 0
        while at < len(raw):
            byte = raw[at]
            if byte == 0x22:
                at = _string_end(raw, at)
                continue
            if byte in b"[{":
                depth += 1
            elif byte in b"]}":
                depth -= 1
                if depth == 0:
                    return at + 1
            at += 1
        raise Unreadable("unclosed array or object")
    while at < len(raw) and raw[at] not in b",}] \t\r\n":
        at += 1
    return at


def field_spans(raw: bytes) -> list[tuple[str, int, int]]:
    """The top-level fields of the JSON object on ``raw``: ``(name, value start, value end)``, in order."""
    at = _skip_space(raw, 0)
    if at >= len(raw) or raw[at] != 0x7B:
        raise Unreadable("not an object")
    at = _skip_space(raw, at + 1)
    spans: list[tuple[str, int, int]] = []
    if at < len(raw) and raw[at] == 0x7D:
        return spans
    while True:
        if at >= len(raw) or raw[at] != 0x22:
            raise Unreadable("expected a field name")
        end = _string_end(raw, at)
        name = json.loads(raw[at:end])
        at = _skip_space(raw, end)
        if at >= len(raw) or raw[at] != 0x3A:
            raise Unreadable("expected a colon")
        start = _skip_space(raw, at + 1)
        end = _value_end(raw, start)
        spans.append((name, start, end))
        at = _skip_space(raw, end)
        if at < len(raw) and raw[at] == 0x2C:
            at = _skip_space(raw, at + 1)
            continue
        if at < len(raw) and raw[at] == 0x7D:
            return spans
        raise Unreadable("expected a comma or the object's end")


def _encoded(value: Any, spaced: bool) -> bytes:
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(value, ensure_ascii=False, separators=separators).encode("utf-8", "surrogatepass")


def rewrite(raw: bytes, values: Mapping[str, Any]) -> bytes:
    """``raw`` with the values of the top-level fields ``values`` names replaced (every copy of a repeated name);
    a field not there is added before the closing brace. The rest of the line stays byte for byte."""
    spans = field_spans(raw)
    spaced = b'": ' in raw
    out = bytearray()
    done = 0
    found = set()
    for name, start, end in spans:
        if name in values:
            out += raw[done:start]
            out += _encoded(values[name], spaced)
            done = end
            found.add(name)
    rest = raw[done:]
    missing = [name for name in values if name not in found]
    if missing:
        close = rest.rindex(b"}")
        added = b"".join((b", " if spaced else b",") + _encoded(name, spaced) + (b": " if spaced else b":")
                         + _encoded(values[name], spaced) for name in missing)
        if not spans:
            added = added[2 if spaced else 1:]
        rest = rest[:close] + added + rest[close:]
    return bytes(out + rest)
