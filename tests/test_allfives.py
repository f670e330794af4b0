"""All Fives in the engine alone (no logs): LOG-FORMAT.md "Variant all-fives", number by number."""

from __future__ import annotations

import pytest

from drawlog.engine.allfives import FivesRound
from drawlog.engine.match import Match
from drawlog.engine.profiles import ALL_FIVES
from drawlog.engine.scoring import round_to_five, score_fives_round
from drawlog.engine.tableau import Tableau, scored
from drawlog.engine.tiles import FULL_SET, bits, tile_id

NAMES = ("ann", "bob")
ANN, BOB = 0, 1


def hand(*tiles: tuple[int, int]) -> int:
    return bits(tile_id(t) for t in tiles)


def fives_round(ann: list[tuple[int, int]], bob: list[tuple[int, int]], stock: int | None = None,
                opener: int = ANN) -> FivesRound:
    """A 2-player round; the boneyard is every tile not dealt unless ``stock`` is given."""
    hands = [hand(*ann), hand(*bob)]
    return FivesRound(NAMES, opener, hands, FULL_SET & ~(hands[0] | hands[1]) if stock is None else stock)


def codes(faults) -> list[str]:
    return [fault.code for fault in faults]


def play(state: FivesRound, seat: int, halves, end=None) -> tuple[int, int]:
    """Place a tile legally; returns (the count after it, the points it scored)."""
    assert state.try_play(seat, halves, end) == ()
    return state.tableau.count(), state.last_points


# -- the count ---------------------------------------------------------------------


def test_worked_example_count_and_points_step_by_step():
    state = fives_round([(5, 5), (2, 5), (4, 5), (0, 0)], [(5, 3), (5, 1), (6, 6)])
    assert play(state, ANN, (5, 5)) == (10, 10)              # [5|5] leads: 10, scores 10
    assert play(state, BOB, (5, 3), "right") == (13, 0)      # 10 + 3 = 13, nothing
    assert not state.tableau.arms_open
    assert play(state, ANN, (2, 5), "left") == (5, 5)        # 2 + 3, the arms empty: scores 5
    assert state.tableau.arms_open
    assert play(state, BOB, (5, 1), "up") == (6, 0)          # 2 + 3 + 1 = 6
    assert play(state, ANN, (4, 5), "down") == (10, 10)      # 2 + 3 + 1 + 4 = 10, scores 10
    assert state.play_points == [25, 0]
    assert state.check_points(10) is None
    assert codes([state.check_points(5)]) == ["R308"]


def test_a_lone_tile_counts_its_pips():
    for halves, count in (((2, 3), 5), ((5, 5), 10), ((6, 4), 10), ((1, 1), 2), ((0, 0), 0)):
        tableau = Tableau()
        tableau.place_tile(halves, "left")
        assert tableau.count() == count
        assert scored(tableau.count()) == (count if count in (5, 10) else 0)


def test_scored_is_a_positive_multiple_of_five_only():
    assert [scored(n) for n in (0, 3, 5, 6, 10, 25, 26)] == [0, 0, 5, 0, 10, 25, 0]


def test_a_double_on_an_arm_counts_both_halves():
    state = fives_round([(4, 4), (4, 2), (6, 6)], [(4, 1), (4, 6), (0, 0)])
    play(state, ANN, (4, 4))                                  # spinner, lone: 8
    play(state, BOB, (4, 1), "right")                         # 8 + 1 = 9
    assert play(state, ANN, (4, 2), "left") == (3, 0)         # 2 + 1: the spinner counts nothing now
    assert play(state, BOB, (4, 6), "up") == (9, 0)           # 2 + 1 + 6
    assert play(state, ANN, (6, 6), "up") == (15, 15)         # 2 + 1 + 12
    assert (state.tableau.up, state.tableau.down) == (6, 4)


def test_a_double_at_an_end_of_the_line_counts_both_halves():
    state = fives_round([(2, 3), (1, 2)], [(3, 3), (0, 6)])
    play(state, ANN, (2, 3))
    assert play(state, BOB, (3, 3), "right") == (8, 0)        # 2 + 3 + 3
    assert play(state, ANN, (1, 2), "left") == (7, 0)         # 1 + 6


# -- the spinner and its arms ---------------------------------------------------------


def test_spinner_placed_on_an_end_has_one_side_covered():
    state = fives_round([(2, 3), (3, 4), (0, 0)], [(3, 3), (3, 6), (1, 1)])
    play(state, ANN, (2, 3))
    play(state, BOB, (3, 3), "right")                         # the first double: the spinner, on the 3 end
    tableau = state.tableau
    assert tableau.spinner == tile_id((3, 3)) and not tableau.arms_open
    assert tableau.open_ends() == ["left", "right"]
    faults = state.try_play(ANN, (0, 0), "up")                # one side still open: no arms yet
    assert codes(faults) == ["M212"] and "1 still open" in faults[0].message
    assert "does not match the arm's 3" in faults[0].message
    assert state.turn == ANN and state.hands[ANN] == hand((3, 4), (0, 0))        # [0|0] ≠ 3: not applied
    assert tableau.length == 2 and tableau.up is None
    assert play(state, ANN, (3, 4), "right") == (6, 0)        # 2 + 4; both sides covered now
    assert tableau.arms_open and (tableau.up, tableau.down) == (3, 3)
    assert tableau.open_ends() == ["left", "right", "up", "down"]
    assert play(state, BOB, (3, 6), "down") == (12, 0)        # 2 + 4 + 6


def test_up_and_down_open_only_once_both_sides_of_a_leading_spinner_are_covered():
    state = fives_round([(5, 5), (0, 1), (2, 5)], [(5, 3), (5, 6), (0, 0)])
    play(state, ANN, (5, 5))
    assert codes(state.try_play(BOB, (0, 0), "down")) == ["M212"]       # nothing covered yet; not applied
    play(state, BOB, (5, 3), "right")
    assert codes(state.try_play(ANN, (0, 1), "up")) == ["M212"]         # one side covered; not applied
    assert not state.tableau.arms_open and state.turn == ANN
    play(state, ANN, (2, 5), "left")
    assert state.tableau.arms_open
    assert codes(state.try_play(BOB, (5, 6), "up")) == []


# -- v1.2: an early play on an arm that matches the spinner is applied -------------------


def test_early_arm_play_matching_the_spinner_is_m212_applied_and_counts():
    """[5|5] leads (10), [5|3] right (13), [2|5] up early: 10 + 3 + 2 = 15, scores 15; [5|1] left covers the
    spinner and the arms open with [2|5] on up: 1 + 3 + 2 = 6; [4|5] down: 1 + 3 + 2 + 4 = 10, scores 10."""
    state = fives_round([(5, 5), (2, 5), (4, 5), (0, 0)], [(5, 3), (5, 1), (6, 6)])
    play(state, ANN, (5, 5))
    play(state, BOB, (5, 3), "right")
    faults = state.try_play(ANN, (2, 5), "up")
    assert codes(faults) == ["M212"] and not faults[0].impossible
    assert "placed there early" in faults[0].message
    tableau = state.tableau
    assert (tableau.count(), state.last_points, state.play_points) == (15, 15, [25, 0])
    assert not tableau.arms_open and tableau.up == 2 and tableau.down is None
    assert tableau.value("up") is None and tableau.open_ends() == ["left", "right"]
    assert state.turn == BOB and state.hands[ANN] == hand((4, 5), (0, 0))
    assert state.check_points(15) is None
    assert play(state, BOB, (5, 1)) == (6, 0)                 # only the left fits: the arms open
    assert tableau.arms_open and (tableau.up, tableau.down) == (2, 5)
    assert play(state, ANN, (4, 5), "down") == (10, 10)
    assert state.play_points == [35, 0]


def test_further_early_play_on_an_arm_must_match_its_end():
    state = fives_round([(5, 5), (2, 5), (5, 4), (0, 0)], [(5, 3), (2, 6), (5, 1)])
    play(state, ANN, (5, 5))
    play(state, BOB, (5, 3), "right")
    assert codes(state.try_play(ANN, (2, 5), "up")) == ["M212"]          # applied: up's end is 2
    faults = state.try_play(BOB, (5, 1), "up")                           # matches the spinner, not the 2
    assert codes(faults) == ["M212"] and faults[0].impossible and "the arm's 2" in faults[0].message
    assert state.turn == BOB and state.tableau.up == 2
    faults = state.try_play(BOB, (2, 6), "up")                           # matches the arm's end: applied
    assert codes(faults) == ["M212"] and not faults[0].impossible
    assert state.tableau.up == 6 and state.tableau.count() == 10 + 3 + 6
    assert codes(state.try_play(ANN, (5, 4), "down")) == ["M212"]        # the other arm: the spinner's 5
    assert state.tableau.down == 4 and state.tableau.count() == 10 + 3 + 6 + 4
    assert state.last_points == 0


def test_early_play_with_no_spinner_or_no_match_is_not_applied():
    state = fives_round([(2, 3), (3, 5)], [(3, 6), (2, 2)])
    play(state, ANN, (2, 3))
    assert state.try_play(BOB, (2, 2), "up")[0].impossible                # a double, but no spinner yet
    assert state.tableau.length == 1 and state.turn == BOB and state.tableau.up is None


def test_up_without_a_spinner_is_m212_and_not_applied():
    state = fives_round([(2, 3), (3, 5)], [(3, 6), (0, 0)])
    play(state, ANN, (2, 3))
    faults = state.try_play(BOB, (3, 6), "up")
    assert codes(faults) == ["M212"] and "no spinner" in faults[0].message
    assert state.tableau.length == 1 and state.turn == BOB


def test_only_the_first_double_is_the_spinner():
    state = fives_round([(1, 2), (2, 2)], [(1, 1), (0, 0)])
    play(state, ANN, (1, 2))
    play(state, BOB, (1, 1), "left")
    play(state, ANN, (2, 2), "right")
    assert state.tableau.spinner == tile_id((1, 1))
    assert state.tableau.count() == 2 + 4


def test_end_is_required_whenever_a_tile_fits_two_open_ends():
    state = fives_round([(5, 5), (2, 5), (5, 6)], [(5, 3), (5, 1), (0, 0)])
    play(state, ANN, (5, 5))
    assert codes(state.try_play(BOB, (5, 3))) == ["M204"]     # both sides of the spinner are 5: taken as left
    assert (state.tableau.left, state.tableau.right) == (3, 5)
    assert play(state, ANN, (2, 5)) == (5, 5)                 # only the right end fits: no end needed
    assert codes(state.try_play(BOB, (5, 1))) == ["M204"]     # up and down, both 5: taken as up
    assert state.tableau.up == 1
    assert codes(state.try_play(ANN, (5, 6), "down")) == []


# -- drawing and passing -----------------------------------------------------------


def test_drawing_holding_a_playable_tile_is_m210_and_a_drawn_fit_must_be_placed():
    state = fives_round([(2, 3), (6, 6)], [(0, 1), (0, 4)], stock=hand((1, 6), (0, 2), (4, 4)))
    play(state, ANN, (2, 3))
    assert codes(state.try_draw(BOB, (1, 6))) == []           # nothing fits 2 or 3: a forced draw
    assert codes(state.try_draw(BOB, (0, 2))) == []           # [1|6] did not fit; [0|2] does
    assert codes(state.try_play(BOB, (0, 1))) == ["M211", "M203"]
    assert codes(state.try_draw(BOB, (4, 4))) == ["M211"]
    assert state.stock_left == 0
    state = fives_round([(2, 3), (6, 6)], [(3, 6), (0, 0)])
    play(state, ANN, (2, 3))
    assert codes(state.try_draw(BOB, (1, 1))) == ["M210"]     # [3|6] fits the 3 end


def test_a_draw_before_the_opening_tile_is_m210():
    state = fives_round([(2, 3)], [(0, 0)])
    assert codes(state.try_draw(ANN, (1, 1))) == ["M210"]     # every tile fits the empty tableau


def test_a_draw_from_an_empty_boneyard_is_m205_only():
    state = fives_round([(2, 3), (6, 6)], [(0, 1)], stock=0)
    play(state, ANN, (2, 3))
    assert codes(state.try_draw(BOB, (6, 6))) == ["M205"]     # ann holds it: still no M206
    assert codes(state.try_pass(BOB)) == []


def test_passing_with_tiles_in_the_boneyard_is_m207():
    state = fives_round([(2, 3), (3, 4)], [(0, 1)], stock=hand((6, 6)))
    play(state, ANN, (2, 3))
    assert codes(state.try_pass(BOB)) == ["M207"]
    assert codes(state.try_pass(ANN)) == ["M207", "M208"]


# -- the end of a round --------------------------------------------------------------


@pytest.mark.parametrize(("pips", "rounded"), [(7, 5), (8, 10), (2, 0), (3, 5), (0, 0), (12, 10), (13, 15)])
def test_round_to_five(pips, rounded):
    assert round_to_five(pips) == rounded


def test_blocked_round_scores_penalties_only_and_has_no_winner():
    state = fives_round([(1, 4), (6, 6), (0, 2)], [(3, 2), (5, 5)], stock=0)
    assert play(state, ANN, (1, 4)) == (5, 5)
    assert state.try_pass(BOB) == ()                          # nothing fits 1 or 4, the boneyard is empty
    assert state.reason is None
    assert state.try_pass(ANN) == ()
    assert state.reason == "blocked" and state.winner is None
    score = state.score()
    assert score.winner is None
    assert score.pips == (14, 15)
    assert score.end_points == (-15, -15)                     # 14 → 15, 15 → 15
    assert score.play_points == (5, 0)
    assert score.points == (-10, -15)


def test_domino_each_player_loses_the_rounded_pips_left():
    score = score_fives_round([0, hand((3, 4)), hand((1, 1))], "domino", 0, [10, 5, 0])
    assert score.winner == 0
    assert score.end_points == (0, -5, 0)                     # 7 → 5, 2 → 0
    assert score.points == (10, 0, 0)


def test_an_unfinished_round_keeps_its_play_points_only():
    score = score_fives_round([hand((6, 6)), hand((3, 4))], None, None, [15, 0])
    assert score.end_points == (0, 0) and score.points == (15, 0)


# -- the opener --------------------------------------------------------------------------


def one_tile_match() -> Match:
    return Match(NAMES, rules=ALL_FIVES.rules_for(2, hand=1))


def test_the_player_who_went_out_opens_the_next_round():
    match = one_tile_match()
    faults, deal = match.check_deal(1, "bob", {"ann": [(1, 2)], "bob": [(3, 4)]}, None)
    assert faults == []                                       # round 1: anyone
    state = match.start_round(deal)
    play(state, BOB, (3, 4))
    assert state.reason == "domino" and state.winner == BOB
    match.settle_round()
    assert match.scores == [-5, 0]                            # ann's 3 pips → 5
    faults, _ = match.check_deal(2, "ann", {"ann": [(1, 2)], "bob": [(3, 4)]}, None)
    assert codes(faults) == ["S104"] and "bob went out" in faults[0].message
    faults, _ = match.check_deal(2, "bob", {"ann": [(1, 2)], "bob": [(3, 4)]}, None)
    assert faults == []


def test_after_a_blocked_round_anyone_opens():
    match = Match(NAMES, rules=ALL_FIVES.rules_for(2, hand=2))
    faults, deal = match.check_deal(1, "ann", {"ann": [(1, 2), (6, 6)], "bob": [(3, 4), (5, 5)]}, None)
    assert faults == []
    state = match.start_round(deal._replace(stock=0))         # the boneyard drawn empty
    play(state, ANN, (1, 2))
    assert state.try_pass(BOB) == () and state.try_pass(ANN) == ()
    assert state.reason == "blocked"
    match.settle_round()
    for opener in NAMES:
        faults, _ = match.check_deal(2, opener, {"ann": [(1, 2), (6, 6)], "bob": [(3, 4), (5, 5)]}, None)
        assert faults == [], opener


def test_all_fives_standards():
    assert [ALL_FIVES.standard_hand(n) for n in (2, 3, 4)] == [9, 7, 5]
    assert [ALL_FIVES.standard_target(n) for n in (2, 3, 4)] == [250, 200, 200]
    assert ALL_FIVES.reserve == 0


# -- v1.2: the target is checked after every play ----------------------------------------


def target_match(target: int, size: int = 3) -> Match:
    return Match(NAMES, rules=ALL_FIVES.rules_for(2, hand=size, target=target))


def test_a_play_that_reaches_the_target_ends_the_round_and_wins_the_match():
    match = target_match(15)
    faults, deal = match.check_deal(1, "ann", {"ann": [(5, 5), (2, 5), (6, 6)], "bob": [(5, 3), (5, 1), (0, 0)]},
                                    None)
    state = match.start_round(deal)
    assert state.to_win == [15, 15]
    play(state, ANN, (5, 5))                                  # 10: ann 10
    play(state, BOB, (5, 3), "right")                         # 13
    assert state.reason is None and not match.result.decided
    assert play(state, ANN, (2, 5), "left") == (5, 5)         # ann 15: the target, at once
    assert (state.reason, state.winner) == ("target", ANN)
    score = state.score()
    assert (score.winner, score.end_points, score.points) == (ANN, (0, 0), (15, 0))   # ann's [6|6] costs nothing
    faults = state.try_play(BOB, (5, 1), "up")
    assert codes(faults) == ["M209"]
    assert faults[0].message == "plays after the round ended (target: ann reached 15)"
    assert codes(state.try_draw(BOB, (1, 1))) == ["M209"] and codes(state.try_pass(BOB)) == ["M209"]
    assert codes(match.check_round_end(1, "domino", "ann", {"ann": 0, "bob": 0}, None)) == ["R301"]
    faults = match.check_round_end(1, "target", "ann", {"ann": -10}, None)
    assert codes(faults) == ["R303"] and faults[0].message == (
        "claims -10 points for ann; ann reached the target (15): nobody takes end-of-round points, 0")
    faults = match.check_round_end(1, "target", "bob", {}, None)                 # left out: 0 each
    assert codes(faults) == ["R302"] and "ann reached the target (15)" in faults[0].message
    assert match.check_round_end(1, "target", "ann", {"ann": 0, "bob": 0}, None) == []
    match.settle_round()
    assert match.scores == [15, 0]
    assert (match.result.decided, match.result.winner, match.result.drawn) == (True, ANN, False)
    faults, _ = match.check_deal(2, "bob", {"ann": [(1, 2), (1, 3), (1, 4)], "bob": [(2, 3), (2, 4), (3, 4)]}, None)
    assert codes(faults) == ["R305"] and faults[0].message.startswith("a new round after the match was decided")
    assert match.check_match_end({"ann": 15, "bob": 0}, "ann") == []
    assert codes(match.check_match_end({"ann": 15, "bob": 0}, None)) == ["R306"]


def test_the_target_reached_with_the_last_tile_is_target_not_domino():
    match = target_match(5, size=1)
    _, deal = match.check_deal(1, "ann", {"ann": [(2, 3)], "bob": [(6, 6)]}, None)
    state = match.start_round(deal)
    assert play(state, ANN, (2, 3)) == (5, 5)                 # a lone tile: 5, ann's last
    assert (state.reason, state.winner) == ("target", ANN)
    assert state.score().end_points == (0, 0)                 # bob's 12 pips are not taken off
    assert match.check_round_end(1, "target", "ann", {"ann": 0, "bob": 0}, None) == []
    assert codes(match.check_round_end(1, "domino", "ann", {"ann": 0, "bob": -10}, None)) == ["R301", "R303"]
    match.settle_round()
    assert match.scores == [5, 0] and match.result.winner == ANN


def test_what_a_seat_needs_follows_the_match_scores():
    match = target_match(20, size=1)
    _, deal = match.check_deal(1, "ann", {"ann": [(5, 5)], "bob": [(2, 3)]}, None)
    state = match.start_round(deal)
    assert play(state, ANN, (5, 5)) == (10, 10)               # 10 of 20: out, by domino
    assert state.reason == "domino"
    match.settle_round()
    assert match.scores == [10, -5] and not match.result.decided
    _, deal = match.check_deal(2, "ann", {"ann": [(4, 6)], "bob": [(2, 3)]}, None)
    state = match.start_round(deal)
    assert state.to_win == [10, 25]
    play(state, ANN, (4, 6))                                  # a lone 10: ann 20
    assert (state.reason, state.winner) == ("target", ANN)


def test_settling_a_round_never_decides_an_all_fives_match():
    match = target_match(0, size=1)                           # every score is at the target from the start
    _, deal = match.check_deal(1, "ann", {"ann": [(1, 2)], "bob": [(3, 4)]}, None)
    state = match.start_round(deal)
    play(state, ANN, (1, 2))                                  # scores nothing: no play reached the target
    assert state.reason == "domino"
    match.settle_round()
    assert match.scores == [0, -5] and not match.result.decided
    assert codes(match.check_match_end({"ann": 0, "bob": -5}, "ann")) == ["R305"]
