"""Checks of the shuffle an auditor can run: per deal, how doubles and suits fell, and how likely that is.

Under a fair shuffle every deal of the 28 tiles is equally likely. For each
logged deal (``round_start.hands``) the tables keep:

- ``shuffle_doubles``: the doubles dealt into the hands (all hands together),
  and ``shuffle_doubles_expected``, the hypergeometric mean (tiles dealt x 7/28);
  ``deals.doubles`` has them per hand;
- ``shuffle_doubles_p``: the p-value of how the 7 doubles spread over the hands
  and the undealt tiles (a chi-square statistic, Σ (count − expected)² / expected);
- ``shuffle_suits_chi2`` and ``shuffle_suits_p``: the same for the suits, each
  hand's (and the undealt tiles') count of halves of each value 0–6 against
  its expected 2/7 of the halves (a double counts twice for its suit).

The statistics' distributions under a fair shuffle are simulated once per
shape of deal (the hand sizes) with a fixed seed (:data:`NULL_DEALS` deals), so
the p-values are the same on every run and machine. Ties with the simulated
values are broken by a number in [0, 1) derived from the match id and round:
the p-value is then uniform on [0, 1] under a fair shuffle (a randomised
Monte Carlo test), however discrete the statistic. One p-value says little;
over many rounds their distribution should be flat, and a dealer who favours
doubles or keeps suits together shows as a pile-up near 0 (README: *Checking
the shuffle*).
"""

from __future__ import annotations

import bisect
import hashlib
import random
from functools import lru_cache
from typing import Final

from ..engine.tiles import FULL_SET, TILE_COUNT, TILES, tile_count, tile_id

#: How many fair deals are simulated per shape of deal to know the statistics' distributions.
NULL_DEALS: Final = 4000
_DOUBLES: Final = sum(1 for low, high in TILES if low == high)
#: Statistics are rounded so that equal counts give equal values whatever the order of the sums.
_DIGITS: Final = 9


#: Each tile's counts, packed 5 bits a field: its halves of each value 0-6 (a double gives its value 2), then
#: whether it is a double, then 1 (the tile itself). A group's counts are the sum of its tiles' (no field passes
#: 28 < 32, so no field spills into the next), and the undealt tiles' are :data:`_ALL`'s less the hands'.
_BITS: Final = 5
_FIELD: Final = (1 << _BITS) - 1
_DOUBLE_SHIFT: Final = 7 * _BITS
_SIZE_SHIFT: Final = 8 * _BITS
_PACKED: Final[list[int]] = [(1 << (_BITS * low)) + (1 << (_BITS * high)) + (int(low == high) << _DOUBLE_SHIFT)
                             + (1 << _SIZE_SHIFT) for low, high in TILES]
_ALL: Final = sum(_PACKED)
_IS_DOUBLE: Final = tuple(int(low == high) for low, high in TILES)


def _statistics(groups: list[int]) -> tuple[float, float]:
    """(doubles chi-square, suits chi-square) of tiles split into ``groups`` (the hands, then the rest), each
    group given as the sum of its tiles' :data:`_PACKED` counts, rounded to :data:`_DIGITS` digits."""
    doubles_stat, suits_stat = _raw_statistics(groups)
    return round(doubles_stat, _DIGITS), round(suits_stat, _DIGITS)


def _doubles_term(size: int, doubles: int) -> float:
    """A group's part of the doubles chi-square: (doubles - expected)² / expected, ``size`` tiles expecting 1/4."""
    expected = size * _DOUBLES / TILE_COUNT
    return (doubles - expected) ** 2 / expected if size else 0.0


#: ``_DOUBLES_TERMS[size << 5 | doubles]``: :func:`_doubles_term`, the very floats (``** 2`` boxes its floats and
#: calls ``pow`` in compiled code: 0.3 µs a deal).
_DOUBLES_TERMS: Final[list[float]] = [_doubles_term(index >> _BITS, index & _FIELD)
                                      for index in range((TILE_COUNT + 1) << _BITS)]


def _raw_statistics(groups: list[int]) -> tuple[float, float]:
    """:func:`_statistics` before rounding.

    Per group of ``n`` tiles: (doubles - n/4)² / (n/4), and Σ over the values of
    (halves - 2n/7)² / (2n/7), which is (Σ halves² - 4n²/7) / (2n/7).
    """
    doubles_stat = 0.0
    suits_stat = 0.0
    field = _FIELD
    doubles_terms = _DOUBLES_TERMS
    for packed in groups:
        size = packed >> _SIZE_SHIFT
        if not size:
            continue
        doubles = (packed >> _DOUBLE_SHIFT) & field
        suit0, suit1, suit2 = packed & field, (packed >> 5) & field, (packed >> 10) & field
        suit3, suit4, suit5, suit6 = (packed >> 15) & field, (packed >> 20) & field, (packed >> 25) & field, \
            (packed >> 30) & field
        squares = suit0 * suit0 + suit1 * suit1 + suit2 * suit2 + suit3 * suit3 + suit4 * suit4 + suit5 * suit5 \
            + suit6 * suit6
        doubles_stat += doubles_terms[size << _BITS | doubles]
        per_suit = size * 2 / 7
        suits_stat += (squares - 7 * per_suit * per_suit) / per_suit
    return doubles_stat, suits_stat


def _split(order: list[int], sizes: tuple[int, ...]) -> list[int]:
    """The packed counts of ``order`` cut into groups of ``sizes``, then the rest."""
    packed_of = _PACKED
    groups, start = [], 0
    for size in sizes:
        total = 0
        for index in range(start, start + size):
            total += packed_of[order[index]]
        groups.append(total)
        start += size
    groups.append(_ALL - sum(groups))
    return groups


#: ``n.bit_length()`` for the sizes a shuffle of the 28 tiles draws below.
_BIT_LENGTH: Final = [size.bit_length() for size in range(TILE_COUNT + 1)]


def shuffled(rng: random.Random, tiles: list[int]) -> None:
    """``rng.shuffle(tiles)``: the very same permutation, from the same random bits (``random.shuffle``'s
    Fisher-Yates, each index drawn by rejection from ``getrandbits``), without its interpreted loop.

    ``tiles`` holds at most :data:`TILE_COUNT` items. ``tests/test_stats_same_tables.py`` holds it to
    ``random.shuffle`` on the Python it runs on.
    """
    getrandbits = rng.getrandbits
    bit_length = _BIT_LENGTH
    index = len(tiles) - 1
    while index > 0:
        size = index + 1
        width = bit_length[size]
        drawn: int = getrandbits(width)
        while drawn >= size:
            drawn = getrandbits(width)
        tiles[index], tiles[drawn] = tiles[drawn], tiles[index]
        index -= 1


@lru_cache(maxsize=64)
def null_statistics(sizes: tuple[int, ...]) -> tuple[list[float], list[float]]:
    """The sorted doubles and suits statistics of :data:`NULL_DEALS` fair deals of hands of ``sizes``."""
    rng = random.Random(f"drawlog-shuffle-{sizes}")
    tiles = list(range(TILE_COUNT))
    doubles: list[float] = []
    suits: list[float] = []
    for _ in range(NULL_DEALS):
        shuffled(rng, tiles)
        found = _statistics(_split(tiles, sizes))
        doubles.append(found[0])
        suits.append(found[1])
    doubles.sort()
    suits.sort()
    return doubles, suits


#: An empty BLAKE2b of 8-byte digests: copied, it hashes as ``hashlib.blake2b(data, digest_size=8)`` does without
#: parsing the parameters again (0.25 µs a deal less of 0.7).
_TIE_HASH: Final = hashlib.blake2b(digest_size=8)


def tie_breaker(match: str, round_number: int) -> float:
    """A number in [0, 1) fixed by the match id and round (the same on every run): the BLAKE2b digest (8 bytes) of
    ``{match}\\x00{round_number}`` (UTF-8) as a fraction."""
    hashed = _TIE_HASH.copy()
    hashed.update(f"{match}\x00{round_number}".encode("utf-8", "surrogatepass"))
    return int.from_bytes(hashed.digest(), "big") / 2.0 ** 64


def p_value(observed: float, null: list[float], tie: float) -> float:
    """The randomised Monte Carlo p-value of ``observed`` (large is extreme) against sorted ``null`` values."""
    below = bisect.bisect_left(null, observed)
    not_above = bisect.bisect_right(null, observed)
    return _p(len(null) - not_above, not_above - below, tie, len(null))


def _p(greater: int, equal: int, tie: float, count: int) -> float:
    """The p-value of a statistic ``greater`` of ``count`` null values exceed and ``equal`` equal."""
    return (greater + tie * (equal + 1)) / (count + 1)


#: How many values of each statistic a shape of deal remembers (:class:`_Shape`); others are placed each time.
_REMEMBERED: Final = 2048
#: How many shapes of deal are remembered (as :func:`null_statistics` caches); then they are forgotten at once.
_SHAPES_KEPT: Final = 64


class _Shape:
    """The null distributions of one shape of deal (its hand sizes), and where the values seen so far fell in them.

    A deal's statistics take few values: on the 300,000-event benchmark logs 62-70 doubles and 226-743 suits
    values, before rounding, over 9,509-12,158 deals. So each value's rounding and its place among the sorted
    null values (two bisections) are remembered, keyed by the value before rounding: the very numbers computing
    them again would give (bit for bit). Timed from Python: ``round(x, 9)`` 0.4 µs, a bisection of the 4,000
    values 0.25 µs; two of the one and four of the other a deal, against two dictionary look-ups.
    """

    __slots__ = ("doubles", "doubles_null", "suits", "suits_null")

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.doubles_null, self.suits_null = null_statistics(sizes)
        #: ``{value before rounding: (value, null values greater, null values equal)}`` of each statistic.
        self.doubles: dict[float, tuple[float, int, int]] = {}
        self.suits: dict[float, tuple[float, int, int]] = {}


#: The shapes of deal met, by :func:`_checked`'s key of their sizes.
_SHAPES: Final[dict[int, _Shape]] = {}


def _placed(raw: float, null: list[float], known: dict[float, tuple[float, int, int]]) -> tuple[float, int, int]:
    """(``raw`` rounded, how many ``null`` values are greater, how many equal), remembered in ``known``."""
    found = known.get(raw)
    if found is not None:
        return found
    observed = round(raw, _DIGITS)
    below = bisect.bisect_left(null, observed)
    not_above = bisect.bisect_right(null, observed)
    found = (observed, len(null) - not_above, not_above - below)
    if len(known) < _REMEMBERED:
        known[raw] = found
    return found


class DealCheck:
    """What one deal says of the shuffle (see the module); ``valid`` is False when the deal is not a deal."""

    __slots__ = ("doubles", "doubles_p", "expected", "per_hand", "suits_chi2", "suits_p")

    def __init__(self, doubles: int | None = None, expected: float | None = None, doubles_p: float | None = None,
                 suits_chi2: float | None = None, suits_p: float | None = None,
                 per_hand: list[int] | None = None) -> None:
        self.doubles = doubles
        self.expected = expected
        self.doubles_p = doubles_p
        self.suits_chi2 = suits_chi2
        self.suits_p = suits_p
        #: The doubles of each hand, in the order given.
        self.per_hand = per_hand or []


NO_CHECK: Final = DealCheck()


def check_deal(hands: list[list[int]], match: str, round_number: int) -> DealCheck:
    """The shuffle check of a deal of ``hands`` (tile ids; each hand's doubles even when the deal is not valid).

    A deal that repeats a tile, or deals no tile, gets only its per-hand counts.
    """
    packed_of = _PACKED
    groups: list[int] = []
    seen = 0
    for hand in hands:
        total = 0
        for tile in hand:
            bit = 1 << tile
            if seen & bit:  # a tile dealt twice: no statistics (and counts that could overflow their fields)
                return DealCheck(per_hand=[sum([_IS_DOUBLE[one] for one in tiles]) for tiles in hands])
            seen |= bit
            total += packed_of[tile]
        groups.append(total)
    return _checked(groups, match, round_number)


def check_logged_deal(hands: list[list[tuple[int, int]]], ids: list[int], match: str,
                      round_number: int) -> DealCheck:
    """:func:`check_deal` of ``hands`` as logged (each tile its halves), appending their tile ids to ``ids`` on the
    way, hand after hand: one pass over the tiles gives the deals table its ids and the check its counts."""
    packed_of = _PACKED
    groups: list[int] = []
    seen = 0
    clean = True
    for tiles in hands:
        bits = 0  # the tiles' bit set while no tile repeats (a repeated one carries: fewer bits than tiles)
        total = 0
        for halves in tiles:
            tile = tile_id(halves)
            ids.append(tile)
            bits += 1 << tile
            total += packed_of[tile]
        if bits > FULL_SET or tile_count(bits) != len(tiles) or bits & seen:
            clean = False  # a tile dealt twice: no statistics (and counts that could overflow their fields)
        seen |= bits
        groups.append(total)
    if not clean:
        per_hand: list[int] = []
        start = len(ids) - sum([len(tiles) for tiles in hands])
        for tiles in hands:
            end = start + len(tiles)
            per_hand.append(sum([_IS_DOUBLE[one] for one in ids[start:end]]))
            start = end
        return DealCheck(per_hand=per_hand)
    return _checked(groups, match, round_number)


def _checked(groups: list[int], match: str, round_number: int) -> DealCheck:
    """The check of a deal no tile of which repeats, its hands given as their :data:`_PACKED` counts (``groups``,
    to which the undealt tiles' are added)."""
    field = _FIELD
    per_hand: list[int] = []
    dealt = 0
    shape = 1  # the hand sizes, 5 bits each (a deal repeating no tile deals at most 28 tiles a hand)
    for packed in groups:
        per_hand.append((packed >> _DOUBLE_SHIFT) & field)
        size = packed >> _SIZE_SHIFT
        dealt += size
        shape = shape << _BITS | size
    if not dealt:
        return DealCheck(per_hand=per_hand)
    known = _SHAPES.get(shape)
    if known is None:
        if len(_SHAPES) >= _SHAPES_KEPT:
            _SHAPES.clear()
        known = _SHAPES[shape] = _Shape(tuple([packed >> _SIZE_SHIFT for packed in groups]))
    groups.append(_ALL - sum(groups))
    doubles_raw, suits_raw = _raw_statistics(groups)
    _, doubles_greater, doubles_equal = _placed(doubles_raw, known.doubles_null, known.doubles)
    suits_stat, suits_greater, suits_equal = _placed(suits_raw, known.suits_null, known.suits)
    tie = tie_breaker(match, round_number)
    return DealCheck(sum(per_hand), dealt * _DOUBLES / TILE_COUNT,
                     _p(doubles_greater, doubles_equal, tie, len(known.doubles_null)), suits_stat,
                     _p(suits_greater, suits_equal, tie, len(known.suits_null)), per_hand)
