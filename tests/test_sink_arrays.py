"""``TableSink`` converts a column its cheap ways (a value repeated, integers through ``array.array``, tile ids
through ``take``) into exactly the array ``pa.array`` makes, and fails the same way where ``pa.array`` fails."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from drawlog.engine.tiles import TILE_COUNT, TILES
from drawlog.tables.sinks import TILE_TYPE, _array

CASES: list[tuple[list[Any], Any]] = [
    (["a", "a", "a"], pa.string()),
    (["a", "b", "a"], pa.string()),
    (["a", "b", "b"], pa.string()),
    ([None, None], pa.string()),
    ([None, "x"], pa.string()),
    (["x", None], pa.string()),
    ([None, None], pa.list_(pa.string())),
    ([[1], [1]], pa.list_(pa.int64())),
    ([7, 7, 7], pa.int64()),
    ([1, 2, 3], pa.int64()),
    ([1, 2, None], pa.int64()),
    ([None, 2, 2], pa.int64()),
    ([2**62, -(2**62)], pa.int64()),
    ([1.0, 2], pa.int64()),
    ([-128, 127, 0], pa.int8()),
    ([5, 5], pa.int8()),
    ([2**31 - 1, -(2**31)], pa.int32()),
    ([3, 3], pa.int32()),
    ([True, False], pa.bool_()),
    ([True, True], pa.bool_()),
    ([None, True], pa.bool_()),
    ([0.5, 0.5], pa.float64()),
    ([0.0, -0.0], pa.float64()),
    ([float("nan"), 1.0], pa.float64()),
    (["é", "é"], pa.string()),
]


@pytest.mark.parametrize(("column", "field_type"), CASES)
def test_same_array_as_pa_array(column: list[Any], field_type: Any) -> None:
    made = _array(column, field_type)
    expected = pa.array(column, type=field_type)
    assert made.type == expected.type
    assert made.to_pylist() == expected.to_pylist() or str(made) == str(expected)  # (NaN != NaN)
    assert made.null_count == expected.null_count
    assert [repr(value) for value in made.to_pylist()] == [repr(value) for value in expected.to_pylist()]


@pytest.mark.parametrize(("column", "field_type"), [
    ([1, 128], pa.int8()), ([128, 128], pa.int8()), ([2**31, 1], pa.int32()), ([2**63, 0], pa.int64()),
    ([1, "a"], pa.int64()), (["a", 1], pa.string()),
])
def test_fails_as_pa_array_fails(column: list[Any], field_type: Any) -> None:
    with pytest.raises(Exception) as expected:
        pa.array(column, type=field_type)
    with pytest.raises(type(expected.value)):
        _array(column, field_type)


@pytest.mark.parametrize("ids", [[0, 5, TILE_COUNT, 27], [TILE_COUNT, TILE_COUNT], [12, 12, 12], [3]])
def test_tile_ids_become_tiles(ids: list[int]) -> None:
    made = _array(ids, TILE_TYPE)
    expected = pa.array([list(TILES[tile]) if tile < TILE_COUNT else None for tile in ids], TILE_TYPE)
    assert made.type == expected.type and made.to_pylist() == expected.to_pylist()
    assert made.null_count == expected.null_count
