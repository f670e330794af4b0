"""The deals' quick paths give what the plain ones give: the shuffle check read from logged tiles (values remembered
per shape of deal), and :class:`DealSink`'s columns (a round's values once) against whole rows."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from drawlog.engine.tiles import TILES, tile_id
from drawlog.tables import shuffle
from drawlog.tables.shuffle import (
    _REMEMBERED,
    _SHAPES,
    _split,
    _statistics,
    check_deal,
    check_logged_deal,
    null_statistics,
    p_value,
    tie_breaker,
)
from drawlog.tables.sinks import DealSink
from drawlog.tables.stats import SCHEMAS


def _reference(hands: list[list[int]], match: str, round_number: int) -> tuple:
    """The check as first written (before values were remembered): statistics rounded, then two bisections."""
    if len({tile for hand in hands for tile in hand}) < sum(len(hand) for hand in hands):
        return None, None, None, None, None, [sum(TILES[tile][0] == TILES[tile][1] for tile in hand) for hand in hands]
    order = [tile for hand in hands for tile in hand]
    order += [tile for tile in range(28) if tile not in order]
    sizes = tuple(len(hand) for hand in hands)
    groups = _split(order, sizes)
    per_hand = [(group >> shuffle._DOUBLE_SHIFT) & shuffle._FIELD for group in groups[:-1]]
    if not sum(sizes):
        return None, None, None, None, None, per_hand
    doubles, suits = _statistics(groups)
    null_doubles, null_suits = null_statistics(sizes)
    tie = tie_breaker(match, round_number)
    return (sum(per_hand), sum(sizes) * 7 / 28, p_value(doubles, null_doubles, tie), suits,
            p_value(suits, null_suits, tie), per_hand)


def _values(check: shuffle.DealCheck) -> tuple:
    return check.doubles, check.expected, check.doubles_p, check.suits_chi2, check.suits_p, check.per_hand


def _flipped(tile: int, rng: random.Random) -> tuple[int, int]:
    low, high = TILES[tile]
    return (high, low) if rng.random() < 0.5 else (low, high)


@pytest.mark.parametrize("sizes", [(7, 7), (7, 7, 7), (5, 5, 5, 5), (6, 6, 6, 6), (9, 9), (3, 0), (0, 0)])
def test_the_check_of_logged_tiles_is_the_first_check_bit_for_bit(sizes: tuple[int, ...]):
    rng = random.Random(hash(sizes) & 0xFFFF)
    for index in range(300):
        tiles = list(range(28))
        rng.shuffle(tiles)
        hands, start = [], 0
        for size in sizes:
            hands.append(tiles[start:start + size])
            start += size
        if index % 20 == 9 and sizes[0] > 1:  # a tile dealt twice, to one hand
            hands[0][-1] = hands[0][0]
        if index % 20 == 19 and sizes[0] and sizes[-1]:  # ... or to two
            hands[-1][-1] = hands[0][0]
        logged = [[_flipped(tile, rng) for tile in hand] for hand in hands]
        ids = [99]
        checked = check_logged_deal(logged, ids, f"m{index}", index % 5 + 1)
        assert ids == [99, *[tile for hand in hands for tile in hand]]
        expected = _reference(hands, f"m{index}", index % 5 + 1)
        assert _values(checked) == expected  # (floats compared exactly)
        assert _values(check_deal(hands, f"m{index}", index % 5 + 1)) == expected


def test_a_shape_remembers_a_bounded_number_of_values():
    rng = random.Random(5)
    for index in range(200):
        tiles = list(range(28))
        rng.shuffle(tiles)
        check_logged_deal([[TILES[tile] for tile in tiles[:7]], [TILES[tile] for tile in tiles[7:14]]], [], "m", index)
    assert _SHAPES and all(len(shape.suits) <= _REMEMBERED and len(shape.doubles) <= _REMEMBERED
                           for shape in _SHAPES.values())


def _rows(count: int) -> list[tuple]:
    rng = random.Random(count)
    rows = []
    for number in range(1, count + 1):
        keys = ("t" if number % 3 else None, None, "f.jsonl", "/x/f.jsonl", "draw")
        for seat in range(rng.choice([2, 3])):
            hand = [rng.randrange(28) for _ in range(rng.choice([0, 1, 7]))]
            rows.append((f"m{number // 4}", number, "hand", f"p{seat}", seat, hand, sum(tile % 7 == 0 for tile in hand),
                         number * 10, *keys))
        if number % 2:
            stock = [rng.randrange(28) for _ in range(5)]
            rows.append((f"m{number // 4}", number, "stock", None, None, stock, 1, number * 10, *keys))
    return rows


@pytest.mark.parametrize("rows_per_group", [1, 4, 1000])
def test_a_deal_sink_writes_rows_given_by_round_as_rows_given_whole(tmp_path: Path, rows_per_group: int):
    rows = _rows(40)
    whole = DealSink(tmp_path / "whole.parquet", SCHEMAS["deals"], rows_per_group)
    for row in rows:
        whole.add(row, 10)
    whole.close()
    by_round = DealSink(tmp_path / "by_round.parquet", SCHEMAS["deals"], rows_per_group)
    last = None
    ids: list[int] = []
    for row in rows:
        if row[1] != last:  # as the recorder gives them: every hand's tiles, the hands' rows, the stock's tiles...
            last = row[1]
            by_round.round((row[0], row[1], row[7], *row[8:]))
            ids = by_round.tiles()  # (held while the rows are added: a row group may be written meanwhile)
            ids.extend(tile for later in rows if later[1] == last and later[2] == "hand" for tile in later[5])
        if row[2] == "stock":
            ids.extend(row[5])
        by_round.part(0 if row[2] == "hand" else 1, row[3], row[4], row[6], len(row[5]), 10)
    by_round.close()
    expected = [dict(zip(SCHEMAS["deals"].names, row)) for row in rows]
    for row in expected:
        row["tiles"] = [list(TILES[tile]) for tile in row["tiles"]]
    for path in (tmp_path / "whole.parquet", tmp_path / "by_round.parquet"):
        written = pq.ParquetFile(path)
        assert written.schema_arrow == SCHEMAS["deals"]
        assert written.num_row_groups == -(-len(rows) // rows_per_group)
        assert written.read().to_pylist() == expected


def test_tile_ids_of_the_halves_in_either_order():
    ids: list[int] = []
    check_logged_deal([[(5, 3), (3, 5)], [(6, 6)]], ids, "m", 1)
    assert ids == [tile_id((3, 5)), tile_id((3, 5)), tile_id((6, 6))]
