"""An exact record of the match ids started, and where each was first started, compact for millions of ids.

A replay must know every match id ever started (F005 names the first start;
F004 says whether a match has ended or never started). A ``dict`` of them costs
about 130 bytes an id; :class:`SeenIds` keeps them in a few flat columns instead,
about 17 bytes an id beside the id's own UTF-8 bytes, and stays exact: a hash
only says where to look, and a hit is confirmed by comparing the id's bytes.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Final

#: An id as bytes: UTF-8, lone surrogates (a JSON string may hold them) encoded as themselves.
_ERRORS: Final = "surrogatepass"
#: Slots in the index at first (4 KB); it doubles when more than half full.
_FIRST_SLOTS: Final = 1024
#: Bits of an index slot that hold a few bits of its id's hash (the rest hold the entry): in 32-bit slots,
#: then in 64-bit slots once there are too many entries for 32.
_TAG_BITS: Final = 8
_WIDE_TAG_BITS: Final = 32


def _key(match_id: str) -> bytes:
    return match_id.encode("utf-8", _ERRORS)


def _widened(column: array, value: int) -> array:
    """``column``, copied as 64-bit columns when ``value`` does not fit its item type (else itself)."""
    if value >> (8 * column.itemsize) == 0:
        return column
    return array("Q", column)


class SeenIds:
    """Match ids, each with the file (an index) and line where it was first started.

    The ids' bytes are stored one after another in one ``bytearray``; entry
    ``n`` holds the end of its bytes, its line and its file index in ``array``
    columns (32-bit or less, widened to 64 bits once a value needs it). An
    open-addressing index (linear probing, at most half full) maps the hash of
    an id's bytes to its entry; each slot holds the entry and the top bits of
    the hash, so an id's bytes are compared only when those match. Exact
    whatever the hashes: two ids are the same only when their bytes are.
    ``hash_of`` hashes an id's bytes (``hash`` unless a test forces collisions);
    ``tag_bits``: the hash's bits in a 32-bit slot (fewer entries fit; for tests).
    """

    def __init__(self, hash_of: Callable[[bytes], int] = hash, tag_bits: int = _TAG_BITS) -> None:
        self._hash_of = hash_of
        self._data = bytearray()
        self._ends = array("I")
        self._lines = array("I")
        self._files = array("B")
        #: ``(entry + 1) << tag bits | the hash's top tag bits`` in each slot, 0 in an empty one.
        self._slots = array("I", [0]) * _FIRST_SLOTS
        self._mask = _FIRST_SLOTS - 1
        self._narrow_tag_bits = self._tag_bits = tag_bits

    def __len__(self) -> int:
        return len(self._lines)

    def __contains__(self, match_id: object) -> bool:
        return isinstance(match_id, str) and self._find(_key(match_id))[0] >= 0

    def location(self, match_id: str) -> tuple[int, int] | None:
        """Where ``match_id`` was first started: ``(file index, line)``, or None if it never was."""
        entry = self._find(_key(match_id))[0]
        return self._location(entry) if entry >= 0 else None

    def add(self, match_id: str, file_index: int, line: int) -> tuple[int, int] | None:
        """Note ``match_id`` started at ``file_index``, ``line``; if it was already, keep that and return it."""
        key = _key(match_id)
        entry, slot, hashed = self._find(key)
        if entry >= 0:
            return self._location(entry)
        entry = len(self._lines)
        self._data += key
        end = len(self._data)
        if end > 0xFFFFFFFF or line > 0xFFFFFFFF or file_index > 0xFF:  # (rare: each column checked only then)
            self._ends = _widened(self._ends, end)
            self._lines = _widened(self._lines, line)
            self._files = _widened(self._files, file_index)
        self._ends.append(end)
        self._lines.append(line)
        self._files.append(file_index)
        count, bits = self._mask + 1, self._tag_bits
        if 2 * (entry + 1) <= count and (entry + 1) >> (8 * self._slots.itemsize - bits) == 0:
            self._slots[slot] = (entry + 1) << bits | _tag(hashed, bits)
            return None
        # More than half full, or too many entries for 32-bit slots: a new index places them all, this one too.
        self._reindex(count if 2 * (entry + 1) <= count else 2 * count)
        return None

    @property
    def nbytes(self) -> int:
        """The bytes the record holds (its columns and index; not Python's object headers)."""
        return (len(self._data) + len(self._ends) * self._ends.itemsize + len(self._lines) * self._lines.itemsize
                + len(self._files) * self._files.itemsize + len(self._slots) * self._slots.itemsize)

    def _location(self, entry: int) -> tuple[int, int]:
        return self._files[entry], self._lines[entry]

    def _find(self, key: bytes) -> tuple[int, int, int]:
        """``(entry, slot, hash)``: the key's entry (-1 if absent), the slot it is in or would go in, its hash."""
        hashed = self._hash_of(key)
        slots, ends, data, mask, bits = self._slots, self._ends, self._data, self._mask, self._tag_bits
        tag = _tag(hashed, bits)
        tags = (1 << bits) - 1
        size = len(key)
        slot = hashed & mask
        while True:
            held = slots[slot]
            if held == 0:
                return -1, slot, hashed
            if held & tags == tag:
                entry = (held >> bits) - 1
                end = ends[entry]
                start = ends[entry - 1] if entry else 0
                if end - start == size and data[start:end] == key:
                    return entry, slot, hashed
            slot = (slot + 1) & mask

    def _reindex(self, count: int) -> None:
        """A new index of ``count`` slots (a power of two), every entry placed again by its id's hash.

        Its slots are 32-bit while they can hold the entries, else 64-bit with more bits of the hash.
        """
        entries = len(self._lines)
        bits = self._narrow_tag_bits
        slots = array("I", [0]) * count
        if entries >> (32 - bits):
            bits = _WIDE_TAG_BITS
            slots = array("Q", [0]) * count
        mask = count - 1
        ends, data, hash_of = self._ends, self._data, self._hash_of
        start = 0
        for entry in range(entries):
            end = ends[entry]
            hashed = hash_of(bytes(data[start:end]))
            start = end
            slot = hashed & mask
            while slots[slot]:
                slot = (slot + 1) & mask
            slots[slot] = (entry + 1) << bits | _tag(hashed, bits)
        self._slots, self._mask, self._tag_bits = slots, mask, bits


def _tag(hashed: int, bits: int) -> int:
    """The top ``bits`` of a 64-bit hash (the low ones place it in the index)."""
    return (hashed >> (64 - bits)) & ((1 << bits) - 1)
