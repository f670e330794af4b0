"""The rules engine alone (no logs): the seeds' worked examples and each action's rules."""

from __future__ import annotations

import pytest

from drawlog import IllegalAction, Match, Round, match_result, score_round
from drawlog.engine.line import Line
from drawlog.engine.match import Deal, hand_size
from drawlog.engine.rounds import _out_of_turn
from drawlog.engine.tiles import FULL_SET, PIPS, TILE_COUNT, TILES, bits, label, pip_total, tile_id

NAMES2 = ("ann", "bob")
NAMES3 = ("ann", "bob", "cy")


def hand(*tiles: tuple[int, int]) -> int:
    return bits(tile_id(t) for t in tiles)


def make_round(hands: list[int], stock_tiles: int | None = None, names=NAMES2, opener: int = 0,
               order: list[int] | None = None) -> Round:
    dealt = 0
    for h in hands:
        dealt |= h
    stock = FULL_SET & ~dealt if stock_tiles is None else stock_tiles
    return Round(names, opener, list(hands), stock, order)


# -- tiles -------------------------------------------------------------------

def test_double_six_set_has_28_tiles_and_168_pips():
    assert TILE_COUNT == 28
    assert sum(PIPS) == 168
    assert PIPS[tile_id((6, 6))] == 12 and PIPS[tile_id((0, 0))] == 0
    assert tile_id((1, 4)) == tile_id((4, 1))
    assert label(tile_id((4, 1))) == "[1|4]"


def test_hand_sizes():
    assert [hand_size(n) for n in (2, 3, 4)] == [7, 7, 6]


# -- the line (seed boards) --------------------------------------------------

def place(line: Line, halves, end=None):
    options = line.placements(halves)
    line.place(options[end] if end else next(iter(options.values())))


def test_seed_board_1_4_then_doubles_then_3_4():
    line = Line()
    place(line, (1, 4))
    assert (line.left, line.right) == (1, 4)
    place(line, (1, 1), "left")
    assert (line.left, line.right) == (1, 4)
    place(line, (4, 4), "right")
    assert (line.left, line.right) == (1, 4)
    place(line, (3, 4), "right")
    assert (line.left, line.right) == (1, 3)


def test_seed_board_double_continues_without_branches():
    line = Line()
    place(line, (3, 6))
    place(line, (6, 6), "right")
    assert sorted(line.placements((6, 2)).keys()) == ["right"]
    assert line.placements((6, 2))["right"] == (3, 2)
    assert line.placements((3, 5)) == {"left": (5, 6)}


def test_blank_matches_only_blank():
    line = Line()
    place(line, (0, 0))
    assert line.placements((0, 5)) == {"left": (5, 0), "right": (0, 5)}
    assert line.placements((1, 5)) == {}


def test_opening_tile_fixes_left_and_right_as_written():
    line = Line()
    place(line, (4, 1))
    assert (line.left, line.right) == (4, 1)


# -- scoring (seed examples) ---------------------------------------------------

def test_domino_scores_all_opponents_pips_zero_zero_counts_as_zero():
    # Opponents holding 0 ([0|0]) and 8 pips give the winner 8.
    hands = [0, hand((0, 0)), hand((2, 6))]
    score = score_round(hands, "domino", 0)
    assert score.points == (8, 0, 0)
    assert score.pips == (0, 0, 8)


def test_blocked_unique_lowest_scores_opponents_minus_own():
    hands = [hand((1, 2)), hand((2, 6)), hand((4, 6))]  # 3, 8, 10
    score = score_round(hands, "blocked", None)
    assert score.winner == 0
    assert score.points == (15, 0, 0)


def test_blocked_tied_lowest_scores_nobody():
    hands = [hand((1, 2)), hand((0, 3)), hand((4, 6))]  # 3, 3, 10
    score = score_round(hands, "blocked", None)
    assert score.winner is None
    assert score.points == (0, 0, 0)


@pytest.mark.parametrize(("scores", "target", "expected"), [
    ([99, 40], 100, (False, None, False)),
    ([100, 40], 100, (True, 0, False)),
    ([104, 120], 100, (True, 1, False)),
    ([61, 10, 5], 61, (True, 0, False)),
    ([70, 70, 3], 61, (True, None, True)),
    ([60, 60, 60, 0], 61, (False, None, False)),
])
def test_target_reached_or_passed_wins_ties_draw(scores, target, expected):
    assert tuple(match_result(scores, target)) == expected


# -- actions -------------------------------------------------------------------

def test_draw_before_opening_tile_is_legal_while_stock_above_two():
    state = make_round([hand((0, 1), (0, 2)), hand((3, 4))])
    assert state.stock_left == 25 and state.line.is_empty
    assert state.can_draw(0)
    stock_tile = next(t for t in range(TILE_COUNT) if state.stock >> t & 1)
    state.draw(0, TILES[stock_tile])
    assert state.turn == 0 and state.stock_left == 24


def test_draw_with_two_left_is_m205_but_physically_possible():
    stock = hand((5, 6), (6, 6))
    state = make_round([hand((0, 1)), hand((2, 3))], stock_tiles=stock)
    assert not state.can_draw(0)
    faults, tile = state.check_draw(0, (5, 6))
    assert [f.code for f in faults] == ["M205"]
    assert "2 tiles left" in faults[0].message
    assert tile == tile_id((5, 6))
    with pytest.raises(IllegalAction) as error:
        state.draw(0, (5, 6))
    assert error.value.code == "M205"


def test_draw_of_a_tile_not_in_stock_is_impossible():
    state = make_round([hand((0, 1)), hand((2, 3))])
    faults, tile = state.check_draw(0, (2, 3))
    assert [f.code for f in faults] == ["M206"] and tile is None
    assert "bob holds it" in faults[0].message


def test_draw_out_of_logged_order_is_m206_but_applied():
    order = [tile_id((5, 5)), tile_id((4, 4)), tile_id((3, 3))]
    state = make_round([hand((0, 1)), hand((2, 3))], stock_tiles=bits(order), order=order)
    faults, tile = state.check_draw(0, (4, 4))
    assert [f.code for f in faults] == ["M206"] and tile == tile_id((4, 4))
    assert "a draw of [5|5] seems to be missing" in faults[0].message
    state.apply_draw(0, tile)
    # [5|5] was drawn, it seems, in a line missing from the log: the order goes on after [4|4]
    assert state.next_stock_tile() == tile_id((3, 3)) and state.stock_left == 1
    assert state.missing == hand((5, 5)) and state.hands[0] == hand((0, 1), (4, 4), (5, 5))  # presumed the drawer's
    assert state.check_draw(1, (5, 5)) == ((_out_of_turn(state, 1, "draws"),), tile_id((5, 5)))
    state.turn = 1
    assert state.check_draw(1, (5, 5)) == ((), tile_id((5, 5)))  # the log draws it after all: no second fault
    state.apply_draw(1, tile_id((5, 5)))
    assert state.hands == [hand((0, 1), (4, 4)), hand((2, 3), (5, 5))] and state.missing == 0


def test_a_draw_far_down_the_logged_order_stops_checking_it():
    order = [tile_id((5, 5)), tile_id((4, 4)), tile_id((3, 3)), tile_id((2, 2))]
    state = make_round([hand((0, 1)), hand((2, 3))], stock_tiles=bits(order), order=order)
    faults, tile = state.check_draw(0, (2, 2))
    assert [f.code for f in faults] == ["M206"] and "no longer checked" in faults[0].message
    state.apply_draw(0, tile)
    assert state.try_draw(0, (4, 4)) == () and state.stock_left == 2


def test_a_tile_of_a_missing_draw_played_by_its_real_holder_is_no_fault():
    order = [tile_id((5, 5)), tile_id((4, 4)), tile_id((3, 3))]
    state = make_round([hand((0, 5), (6, 6)), hand((2, 3), (4, 6))], stock_tiles=bits(order), order=order)
    state.play(0, (0, 5))
    assert [f.code for f in state.try_draw(1, (4, 4))] == ["M206"]  # [5|5] skipped: presumed bob's
    state.turn = 0
    assert state.try_play(0, (5, 5)) == ()  # ann drew it in the missing line after all: no M202
    assert state.hands == [hand((6, 6)), hand((2, 3), (4, 6), (4, 4))] and state.missing == 0


def test_pass_rules():
    stock2 = hand((5, 6), (6, 6))
    # Stock at two, no playable tile: legal.
    state = make_round([hand((0, 1), (5, 5)), hand((2, 3))], stock_tiles=stock2)
    state.play(0, (0, 1))
    assert state.can_pass(1)
    # Stock above two: M207 even when stuck.
    state = make_round([hand((0, 1), (5, 5)), hand((2, 3))])
    state.play(0, (0, 1))
    assert [f.code for f in state.check_pass(1)] == ["M207"]
    # Holding a playable tile with the stock at two: M208.
    state = make_round([hand((0, 1), (4, 5)), hand((1, 3), (2, 2))], stock_tiles=stock2)
    state.play(0, (0, 1))
    assert [f.code for f in state.check_pass(1)] == ["M208"]


def test_play_rules_and_turns():
    state = make_round([hand((1, 4), (4, 5)), hand((1, 2), (4, 6), (1, 6))])
    assert [f.code for f in state.check_play(1, (1, 2))[0]] == ["M201"]
    state.play(0, (1, 4))
    assert state.turn == 1
    assert [f.code for f in state.check_play(1, (5, 5), "left")[0]] == ["M202", "M203"]
    assert [f.code for f in state.check_play(1, (1, 2), "right")[0]] == ["M203"]
    state.play(1, (1, 2))  # fits the left end only: end may be left out
    assert (state.line.left, state.line.right) == (2, 4)


def test_end_may_be_left_out_when_the_tile_fits_one_end_only():
    state = make_round([hand((2, 6), (0, 0)), hand((2, 4), (4, 6), (1, 1))])
    state.play(0, (2, 6))
    faults, placement = state.check_play(1, (2, 4))
    assert faults == () and placement.end == "left" and placement.ends == (4, 6)


def test_up_or_down_in_draw_is_m212_and_not_applied():
    state = make_round([hand((2, 6), (0, 0)), hand((2, 4), (4, 6), (1, 1))])
    state.play(0, (2, 6), "up")  # the opening tile: its end is ignored
    assert (state.line.left, state.line.right) == (2, 6)
    for end in ("up", "down"):
        assert [f.code for f in state.try_play(1, (2, 4), end)] == ["M212"]
    assert (state.line.left, state.line.right, state.line.length) == (2, 6, 1)
    assert state.hands[1] == hand((2, 4), (4, 6), (1, 1)) and state.turn == 1


def test_m204_end_missing_where_both_ends_fit_differently_placed_left():
    state = make_round([hand((3, 3), (1, 1)), hand((3, 5), (0, 5))])
    state.play(0, (3, 3))
    faults, placement = state.check_play(1, (3, 5))
    assert [f.code for f in faults] == ["M204"]
    assert placement.end == "left" and placement.ends == (5, 3)
    assert state.check_play(1, (3, 5), "right")[0] == ()


def test_a_double_on_equal_ends_gives_the_same_line_either_way():
    state = make_round([hand((3, 3), (1, 1)), hand((3, 6), (0, 5))])
    state.play(0, (3, 3))
    line = state.line
    options = line.placements((3, 6))
    assert options == {"left": (6, 3), "right": (3, 6)}
    line2 = Line()
    place(line2, (3, 5))
    place(line2, (5, 3), "right")  # ends 3 and 3
    assert line2.placements((3, 3)) == {"left": (3, 3), "right": (3, 3)}


def test_domino_ends_round_and_further_moves_are_m209():
    state = make_round([hand((1, 4)), hand((4, 5), (0, 0))])
    state.play(0, (1, 4))
    assert state.is_over and state.reason == "domino" and state.winner == 0
    assert [f.code for f in state.check_pass(1)] == ["M209"]
    assert state.score().points == (9, 0)


def test_blocked_after_every_player_passes_in_a_row():
    stock2 = hand((5, 6), (6, 6))
    state = make_round([hand((0, 1), (2, 2)), hand((3, 3), (4, 4)), hand((1, 2), (0, 3))],
                       stock_tiles=stock2, names=NAMES3)
    state.play(0, (0, 1))  # ends 0 and 1
    # bob holds [3|3] [4|4]: stuck.
    state.pass_turn(1)
    # cy holds [1|2] [0|3]: can play.
    assert not state.can_pass(2)
    state.play(2, (1, 2), "right")  # ends 0 and 2
    state.play(0, (2, 2), "right")  # ann out: domino
    assert state.reason == "domino"


def test_blocked_round_scores_unique_lowest():
    stock2 = hand((5, 6), (6, 6))
    state = make_round([hand((0, 1), (1, 2)), hand((2, 6), (3, 3)), hand((4, 6), (4, 4))],
                       stock_tiles=stock2, names=NAMES3)
    state.play(0, (0, 1), "left")  # ends 0 and 1
    state.pass_turn(1)  # bob: [2|6] [3|3] stuck
    state.pass_turn(2)  # cy: [4|6] [4|4] stuck
    assert not state.is_over
    # ann holds [1|2] which fits the 1 end
    assert not state.can_pass(0)
    state.play(0, (1, 2), "right")  # ends 0 and 2 -> ann out
    assert state.reason == "domino"

    state = make_round([hand((0, 1), (5, 5)), hand((2, 6), (3, 3)), hand((4, 6), (4, 4))],
                       stock_tiles=stock2, names=NAMES3)
    state.play(0, (0, 1))
    for seat in (1, 2, 0):
        state.pass_turn(seat)
    assert state.reason == "blocked"
    score = state.score()
    # ann 10, bob 14, cy 18: ann lowest -> 14 + 18 - 10 = 22
    assert score.pips == (10, 14, 18) and score.winner == 0 and score.points == (22, 0, 0)


# -- the match -----------------------------------------------------------------

def test_opener_rotates_from_previous_opener_not_winner():
    match = Match(NAMES3)
    assert match.expected_opener() is None
    first = match.start_round(Deal(1, 2, [hand((1, 1)), hand((2, 2)), hand((3, 3))],
                                   FULL_SET & ~hand((1, 1), (2, 2), (3, 3)), None))
    first.play(2, (3, 3))  # cy (the opener) goes out and wins
    match.settle_round()
    assert match.expected_opener() == 0  # the seat after cy, whoever won


def test_match_decided_only_after_round_settled():
    match = Match(NAMES2)
    assert match.target == 100
    match.scores = [95, 10]
    state = match.start_round(Deal(1, 0, [hand((0, 1)), hand((6, 6))], FULL_SET & ~hand((0, 1), (6, 6)), None))
    state.play(0, (0, 1))
    assert not match.result.decided
    score = match.settle_round()
    assert score.points == (12, 0)
    assert match.scores == [107, 10]
    assert match.result.decided and match.result.winner == 0


def test_pip_total():
    assert pip_total(hand((6, 6), (0, 0), (1, 2))) == 15


def test_copy_is_independent():
    state = make_round([hand((1, 4), (4, 5)), hand((1, 2), (4, 6))])
    twin = state.copy()
    twin.play(0, (1, 4))
    assert state.line.is_empty and state.turn == 0 and state.hands[0] == hand((1, 4), (4, 5))
    assert (twin.line.left, twin.line.right) == (1, 4) and twin.turn == 1


def test_passes_with_drawing_still_possible_never_block():
    state = make_round([hand((0, 1), (5, 5)), hand((2, 3), (3, 4))])
    state.play(0, (0, 1))
    for seat in (1, 0, 1, 0):
        assert [f.code for f in state.try_pass(seat)][:1] == ["M207"]
    assert not state.is_over


def test_tile_count_counts_every_set_of_tiles():
    from drawlog.engine.tiles import FULL_SET, tile_count

    rng = __import__("random").Random(5)
    for mask in [0, FULL_SET, 1, 1 << 27, *(rng.getrandbits(28) for _ in range(500))]:
        assert tile_count(mask) == mask.bit_count()
