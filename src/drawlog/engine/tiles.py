"""Tiles of the double-six set, as small integers and bit sets.

A tile is identified by its *id*, 0–27, in the order ``[0|0], [0|1] … [6|6]``.
A set of tiles (a hand, the stock) is an ``int`` bit set: bit ``id`` is set when
the tile is in the set. This keeps the replay loop free of allocations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

HIGHEST_PIP: Final = 6

#: ``TILES[id] == (low, high)``, the halves of each tile, low first.
TILES: Final[tuple[tuple[int, int], ...]] = tuple(
    (low, high) for low in range(HIGHEST_PIP + 1) for high in range(low, HIGHEST_PIP + 1)
)
TILE_COUNT: Final = len(TILES)
FULL_SET: Final = (1 << TILE_COUNT) - 1

#: ``TILE_ID[(a, b)]``: the id of the tile with halves ``a`` and ``b``, in either order.
TILE_ID: Final[dict[tuple[int, int], int]] = {}
for _tile_id, (_low, _high) in enumerate(TILES):
    TILE_ID[(_low, _high)] = _tile_id
    TILE_ID[(_high, _low)] = _tile_id

#: ``PIPS[id]``: both halves counted, ``[6|6]`` is 12 and ``[0|0]`` is 0.
PIPS: Final[tuple[int, ...]] = tuple(low + high for low, high in TILES)

#: ``SUIT[value]``: the bit set of every tile showing ``value`` on a half.
SUIT: Final[tuple[int, ...]] = tuple(
    sum(1 << i for i, (low, high) in enumerate(TILES) if value in (low, high))
    for value in range(HIGHEST_PIP + 1)
)


#: ``TILE_BIT[(a, b)]``: the one-tile bit set of the tile with halves ``a`` and ``b``.
TILE_BIT: Final[dict[tuple[int, int], int]] = {halves: 1 << tile for halves, tile in TILE_ID.items()}

_HALF: Final = TILE_COUNT // 2
_HALF_MASK: Final = (1 << _HALF) - 1


def _subset_sums(values: tuple[int, ...]) -> list[int]:
    """``sums[subset]``: the sum of ``values[i]`` over the bits ``i`` of ``subset``, for every subset.

    Built by doubling (the subsets with bit ``i`` are those without it, plus
    ``values[i]``): a few list comprehensions, quick to import uncompiled too.
    """
    sums = [0]
    for value in values:
        sums += [total + value for total in sums]
    return sums


# Pip totals of every subset of the low 14 and the high 14 tiles, for a two-lookup pip_total.
_PIPS_LOW: Final = _subset_sums(PIPS[:_HALF])
_PIPS_HIGH: Final = _subset_sums(PIPS[_HALF:])


#: ``_COUNT[subset]``: how many tiles a 14-bit subset holds, for a two-lookup tile_count.
_COUNT: Final = _subset_sums((1,) * _HALF)

_ID_BY_CODE: Final[list[int]] = [TILE_ID[(code // 7, code % 7)] for code in range(49)]
_BIT_BY_CODE: Final[list[int]] = [1 << tile for tile in _ID_BY_CODE]


def tile_id(halves: tuple[int, int]) -> int:
    """The id of the tile with these halves (each 0–6), in either order."""
    return _ID_BY_CODE[halves[0] * 7 + halves[1]]


def tile_bit(halves: tuple[int, int]) -> int:
    """The one-tile bit set of the tile with these halves (each 0–6): ``1 << tile_id(halves)``."""
    return _BIT_BY_CODE[halves[0] * 7 + halves[1]]


def is_double(tile: int) -> bool:
    """Whether the tile's halves are equal."""
    low, high = TILES[tile]
    return low == high


def bits(tiles: Iterable[int]) -> int:
    """The bit set of the given tile ids."""
    mask = 0
    for tile in tiles:
        mask |= 1 << tile
    return mask


def members(mask: int) -> Iterator[int]:
    """The tile ids in a bit set, lowest first."""
    while mask:
        low_bit = mask & -mask
        yield low_bit.bit_length() - 1
        mask ^= low_bit


def pip_total(mask: int) -> int:
    """The pips of every tile in a bit set, both halves counted."""
    return _PIPS_LOW[mask & _HALF_MASK] + _PIPS_HIGH[mask >> _HALF]


def tile_count(mask: int) -> int:
    """How many tiles a bit set holds (``int.bit_count``, without a method call in compiled code)."""
    return _COUNT[mask & _HALF_MASK] + _COUNT[mask >> _HALF]


def label(tile: int) -> str:
    """The tile written as ``[low|high]``."""
    low, high = TILES[tile]
    return f"[{low}|{high}]"


def labels(mask: int) -> str:
    """A bit set written as ``[0|1] [2|2] …`` (``nothing`` when empty)."""
    return " ".join(label(tile) for tile in members(mask)) or "nothing"
