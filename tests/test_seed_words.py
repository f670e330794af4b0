"""The seeds' words in ``drawlog replay``: continuation points in the seeds' order for a log and its mirror image.

A mirrored log lays the same tiles on the opposite ends (its opening tile
written the other way round, ``[4,1]`` for ``[1,4]``): left and right swap,
and the seeds' sentence must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_board_views import FIVES_BOARD, SEED_SENTENCES
from test_walkthrough import SEED_BOARDS, draw_log, frames_of

from drawlog.views.board import describe
from drawlog.views.language import catalog
from drawlog.views.points import ordered_points

#: The seeds with the worked boards: 000 Polish, 002 Turkish, 003 Spanish (Draw).
SEED_LANGUAGES = ("pl", "tr", "es")
SWAP = {"left": "right", "right": "left"}


def mirrored(plays: list[list[int]], ends: dict[int, str]) -> tuple[list[list[int]], dict[int, str]]:
    """The same plays on the opposite ends: the opening tile written the other way round, left and right swapped."""
    return [list(reversed(plays[0])), *plays[1:]], {index: SWAP.get(end, end) for index, end in ends.items()}


def last_board(tmp_path: Path, plays: list[list[int]], ends: dict[int, str]) -> dict:
    return frames_of(tmp_path, draw_log(plays, ends))[-1]["board"]


@pytest.mark.parametrize("lang", SEED_LANGUAGES)
@pytest.mark.parametrize("index, name", list(enumerate(SEED_BOARDS)))
def test_a_mirrored_seed_board_reads_like_the_seed(tmp_path: Path, lang: str, index: int, name: str):
    """The 21 mirrored boards (7 boards, 3 seeds): the seed's sentence word for word, points in the seed's order."""
    plays, ends, *_ = SEED_BOARDS[name]
    board = last_board(tmp_path, *mirrored(plays, ends))
    original = last_board(tmp_path, plays, ends)
    if len(plays) > 1:  # the log really is mirrored: the chain runs the other way
        assert [item["tile"] for item in board["chain"]] == [item["tile"] for item in reversed(original["chain"])]
    assert describe(board, catalog(lang)) == describe(original, catalog(lang)) == SEED_SENTENCES[lang][index]


@pytest.mark.parametrize("name", SEED_BOARDS)
def test_mirrored_points_are_the_seeds_points_in_english_too(tmp_path: Path, name: str):
    plays, ends, _, _, points = SEED_BOARDS[name]
    for each in (plays, ends), mirrored(plays, ends):
        board = last_board(tmp_path, *each)
        assert [(p["tile"], p["side"], p["value"]) for p in ordered_points(board)] == points
    assert describe(last_board(tmp_path, *mirrored(plays, ends)), catalog("en")) == \
        SEED_SENTENCES["en"][list(SEED_BOARDS).index(name)]


def test_all_fives_points_go_by_value_whichever_way_the_chain_runs():
    flipped = dict(FIVES_BOARD, open=[dict(point, end=SWAP.get(point["end"], point["end"]))
                                      for point in reversed(FIVES_BOARD["open"])])
    expected = [("[1|1]", 1), ("[2|5]", 2), ("[3|5]", 3), ("[4|5]", 4)]
    for board in FIVES_BOARD, flipped:
        assert [(p["tile"], p["value"]) for p in ordered_points(board)] == expected
    assert describe(flipped, catalog("pl")) == describe(FIVES_BOARD, catalog("pl"))


def test_equal_values_go_by_the_tile_placed_first():
    # [2|5] opens, [5|3] right, [3|2] right: both ends are 2; [2|5] was placed first.
    board = {"tiles": ["[2|5]", "[3|5]", "[2|3]"], "open": [
        {"tile": "[2|3]", "side": "low", "value": 2, "end": "right"},
        {"tile": "[2|5]", "side": "low", "value": 2, "end": "left"}]}
    assert [p["tile"] for p in ordered_points(board)] == ["[2|5]", "[2|3]"]
    spinner = {"tiles": ["[5|5]", "[3|5]", "[2|5]"], "open": [
        {"tile": "[2|5]", "side": "low", "value": 2, "end": "left"},
        {"tile": "[3|5]", "side": "low", "value": 3, "end": "right"},
        {"tile": "[5|5]", "side": "down", "value": 5, "end": "down"},
        {"tile": "[5|5]", "side": "up", "value": 5, "end": "up"}]}
    assert [p["end"] for p in ordered_points(spinner)] == ["left", "right", "up", "down"]
