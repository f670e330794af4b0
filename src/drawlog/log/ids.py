"""Bounded keys for long match ids (and player names): what drawlog holds of an id over :data:`MAX_ID`.

A log may give a match an id of half a megabyte; kept whole in every open
match, every id seen (F005), every row of the tables and every match chosen
by ``filter``, a few thousand of them would take gigabytes. So an id longer
than :data:`MAX_ID` characters is held as its *bounded key*: its first
:data:`KEPT` characters, ``…``, and a hash of the whole id (BLAKE2b, 64 bits,
hex). Two ids that differ anywhere, even after the first 200 characters, keep
different keys; messages and tables show the bounded key.
"""

from __future__ import annotations

import hashlib
from typing import Final

#: Ids (and names) up to this many characters are held as they are.
MAX_ID: Final = 256
#: The characters of a longer id kept at the start of its bounded key.
KEPT: Final = 200
#: What separates the kept start from the hash.
MARK: Final = "…"


def bounded_id(text: str) -> str:
    """``text`` itself up to :data:`MAX_ID` characters, else its first :data:`KEPT` characters, ``…`` and a hash.

    The hash (16 hex digits) is of the whole text's UTF-8 bytes (lone surrogates as themselves), so the
    key stays as distinct as the ids it stands for; a key is never longer than :data:`MAX_ID`.
    """
    if len(text) <= MAX_ID:
        return text
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{text[:KEPT]}{MARK}{digest}"


def bounded_ids(texts: list[str]) -> list[str]:
    """:func:`bounded_id` of each text (the list itself when none is long)."""
    if all(len(text) <= MAX_ID for text in texts):
        return texts
    return [bounded_id(text) for text in texts]


__all__ = ["KEPT", "MARK", "MAX_ID", "bounded_id", "bounded_ids"]
