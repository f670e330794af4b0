"""``drawlog analyze``: the sampler, the rollout engine, the equities, the command.

Positions are built on the engine alone; the command runs on ``sample_logs``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drawlog.analysis.actions import DRAW_ACTION, PASS_ACTION, Action, find_action, legal_actions
from drawlog.analysis.decisions import decision_seed, error_class, weigh
from drawlog.analysis.equity import DEFAULT_SAMPLES, evaluate, information_bases, rollout_equities
from drawlog.analysis.rollout import Rollout, count_after
from drawlog.analysis.sampler import DealSampler, Knowledge, VoidTracker
from drawlog.analysis.summary import decision_accuracy
from drawlog.cli import app
from drawlog.engine.allfives import FivesRound
from drawlog.engine.line import LEFT, RIGHT
from drawlog.engine.rounds import Round
from drawlog.engine.tiles import FULL_SET, TILE_ID, TILES, members, tile_count

# -- random positions ------------------------------------------------------------------


def random_round(rng: random.Random, fives: bool, players: int, hand: int, reserve: int,
                 target: int | None = None) -> Round:
    """A fresh deal under the given rules (the stock in a logged draw order)."""
    tiles = list(range(28))
    rng.shuffle(tiles)
    hands = [0] * players
    for seat in range(players):
        for tile in tiles[seat * hand:(seat + 1) * hand]:
            hands[seat] |= 1 << tile
    order = tiles[players * hand:]
    stock = sum(1 << tile for tile in order)
    names = tuple(f"p{seat}" for seat in range(players))
    opener = rng.randrange(players)
    if fives:
        scores = [rng.randrange(0, 200) for _ in range(players)] if target else None
        return FivesRound(names, opener, hands, stock, order, 1, 0, scores, target)
    return Round(names, opener, hands, stock, order, 1, reserve)


def random_move(state: Round, rng: random.Random) -> tuple[str, tuple[int, int] | None, str | None]:
    """A uniformly random legal move for the seat to move (voluntary draws included in Draw)."""
    seat = state.turn
    moves: list[tuple[str, tuple[int, int] | None, str | None]] = [
        ("play", halves, end) for halves, end in state.legal_plays(seat)]
    if state.can_draw(seat):
        moves.append(("draw", None, None))
    if not moves:
        moves.append(("pass", None, None))
    return rng.choice(moves)


def apply_move(state: Round, move: tuple[str, tuple[int, int] | None, str | None]) -> None:
    """Carry out a move on the validating engine, which must find it legal."""
    kind, halves, end = move
    seat = state.turn
    if kind == "play":
        assert halves is not None
        faults = state.try_play(seat, halves, end)
    elif kind == "draw":
        faults = state.try_draw(seat, TILES[state.next_stock_tile()])  # type: ignore[index]
    else:
        faults = state.try_pass(seat)
    assert faults == (), faults


RULES = st.sampled_from([(False, 2, 7, 2), (False, 3, 7, 2), (False, 4, 6, 2), (False, 2, 5, 0), (False, 3, 6, 4),
                         (True, 2, 9, 0), (True, 3, 7, 0), (True, 4, 5, 0), (True, 2, 7, 0), (True, 3, 5, 0)])


def mid_round(seed: int, rules: tuple[bool, int, int, int], moves: int) -> tuple[Round, VoidTracker]:
    """A round after up to ``moves`` random legal moves, with the voids learned along the way."""
    rng = random.Random(seed)
    fives, players, hand, reserve = rules
    state = random_round(rng, fives, players, hand, reserve)
    voids = VoidTracker(players)
    for _ in range(moves):
        if state.is_over:
            break
        move = random_move(state, rng)
        voids.before_move(state, state.turn, move[0])
        apply_move(state, move)
    return state, voids


# -- the sampler ---------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), rules=RULES, moves=st.integers(0, 60))
def test_sampler_deals_only_what_the_viewer_could_not_see(seed: int, rules: tuple[bool, int, int, int],
                                                          moves: int) -> None:
    state, voids = mid_round(seed, rules, moves)
    if state.is_over:
        return
    viewer = state.turn
    knowledge = Knowledge.of(state, viewer, voids.excluded)
    # the voids are facts: the true deal respects them
    for seat, hand in enumerate(state.hands):
        assert not hand & knowledge.excluded[seat]
    sampler = DealSampler(knowledge)
    placed = state.on_line()
    rng = random.Random(seed)
    for _ in range(5):
        hands, stock = sampler.deal(rng)
        assert hands[viewer] == state.hands[viewer]
        assert len(stock) == state.stock_left == len(set(stock))
        dealt = sum(1 << tile for tile in stock)
        for seat, hand in enumerate(hands):
            assert tile_count(hand) == tile_count(state.hands[seat])
            assert not hand & dealt
            dealt |= hand
            if seat != viewer:
                assert not hand & placed and not hand & state.hands[viewer]
                assert not hand & voids.excluded[seat]
        assert dealt | placed == FULL_SET and not dealt & placed


def test_sampler_is_uniform_with_two_players() -> None:
    """With one other hand, every consistent deal is as likely: each allowed tile lands in it equally often."""
    rng = random.Random(5)
    state = random_round(rng, False, 2, 7, 2)
    viewer, other = state.turn, 1 - state.turn
    excluded = [0, 0]
    excluded[other] = sum(1 << tile for tile in members(state.stock))  # the other holds only its own tiles + none
    allowed = (FULL_SET & ~state.hands[viewer]) & ~excluded[other]
    assert allowed == state.hands[other]
    knowledge = Knowledge.of(state, viewer, excluded)
    hands, _ = DealSampler(knowledge).deal(rng)
    assert hands[other] == state.hands[other]  # the voids leave one possible hand
    free = Knowledge.of(state, viewer)
    counts = dict.fromkeys(members(free.unseen), 0)
    sampler = DealSampler(free)
    for _ in range(2000):
        hands, _ = sampler.deal(rng)
        for tile in members(hands[other]):
            counts[tile] += 1
    share = [count / 2000 for count in counts.values()]
    assert all(abs(value - 7 / 21) < 0.05 for value in share)


# -- the rollout engine against the validating engine --------------------------------


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), rules=RULES, moves=st.integers(0, 30), target=st.booleans())
def test_rollout_plays_by_the_engine_rules(seed: int, rules: tuple[bool, int, int, int], moves: int,
                                           target: bool) -> None:
    """Every policy move is legal for the engine, and the round ends as the engine ends it, with its points."""
    rng = random.Random(seed)
    fives, players, hand, reserve = rules
    state = random_round(rng, fives, players, hand, reserve, 250 if target and fives else None)
    for _ in range(moves):
        if state.is_over:
            return
        apply_move(state, random_move(state, rng))
    if state.is_over:
        return
    game = Rollout.from_round(state)
    while not state.is_over:
        assert game.reason is None
        action = game.policy_move()
        seat = state.turn
        if action == DRAW_ACTION:
            assert state.can_draw(seat)
            apply_move(state, ("draw", None, None))
        elif action == PASS_ACTION:
            apply_move(state, ("pass", None, None))
        else:
            assert (TILES[action.tile], action.end) in state.legal_plays(seat) or not isinstance(state, FivesRound)
            apply_move(state, ("play", TILES[action.tile], action.end))
        game.apply(action)
        assert game.hands == state.hands and game.turn == state.turn
        assert (game.line.left, game.line.right) == (state.line.left, state.line.right)
    assert (game.reason, game.winner) == (state.reason, state.winner)
    assert game.points() == state.score().points


def test_legal_actions_offer_the_draw_only_in_draw() -> None:
    rng = random.Random(3)
    draw_round = random_round(rng, False, 2, 7, 2)
    actions = legal_actions(draw_round, draw_round.turn)
    assert actions[-1] == DRAW_ACTION and len(actions) == 8  # seven tiles to lead, or a draw
    fives_round = random_round(rng, True, 2, 9, 0)
    assert all(not action.is_draw for action in legal_actions(fives_round, fives_round.turn))
    assert Action(27, "left").label() == "[6|6] left"


# -- constructed positions with a known answer ---------------------------------------

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def ids(*tiles: tuple[int, int]) -> list[int]:
    return [TILE_ID[tile] for tile in tiles]


def bitset(*tiles: tuple[int, int]) -> int:
    return sum(1 << tile for tile in ids(*tiles))


def draw_position(mine: list[tuple[int, int]], theirs: list[tuple[int, int]], stock: list[tuple[int, int]],
                  ends: tuple[int, int], reserve: int = 2) -> Round:
    """A 2-player Draw round, seat 0 to move on a line with these open ends; every other tile is placed."""
    state = Round(("me", "you"), 0, [bitset(*mine), bitset(*theirs)], bitset(*stock), ids(*stock), 1, reserve)
    state.line.left, state.line.right, state.line.length = ends[0], ends[1], 28 - len(mine) - len(theirs) - len(stock)
    return state


def fives_position(mine: list[tuple[int, int]], theirs: list[tuple[int, int]], stock: list[tuple[int, int]],
                   placed: list[tuple[tuple[int, int], str]]) -> FivesRound:
    """A 2-player All Fives round, seat 0 to move after the given placements (laid by the engine's tableau)."""
    state = FivesRound(("me", "you"), 0, [bitset(*mine), bitset(*theirs)], bitset(*stock), ids(*stock))
    for halves, end in placed:
        state.tableau.place_tile(halves, end)
    assert bitset(*mine, *theirs, *stock, *(halves for halves, _ in placed)) == FULL_SET
    return state


def equities(state: Round, actions: list[Action], seed: int = 7, samples: int = DEFAULT_SAMPLES):
    return evaluate(state, 0, actions, Knowledge.of(state, 0), samples, random.Random(seed))


def test_going_out_beats_a_draw_that_can_only_lose() -> None:
    """Draw: the last tile goes out; drawing the last drawable tile instead can never do better, in any deal."""
    state = draw_position([(2, 5)], [(6, 6), (4, 6), (1, 1)], [(0, 0), (0, 1), (3, 3)], (5, 3))
    actions = legal_actions(state, 0)
    assert actions == [Action(TILE_ID[(2, 5)], LEFT), DRAW_ACTION]
    result = equities(state, actions)
    assert result.information[0] > result.information[1]
    assert result.omniscient[0] == 24.0  # the opponent's pips: 12 + 10 + 2
    assert result.omniscient[1] <= 24.0
    for base in information_bases(state, Knowledge.of(state, 0), DEFAULT_SAMPLES, random.Random(3))[0]:
        play, draw = rollout_equities([base], 0, actions)
        assert draw <= play
    figures, _ = weigh(state, 0, actions, 1, [0, 0], DEFAULT_SAMPLES, random.Random(7))
    assert figures["best"] == "[2|5] left" and figures["error"] > 0 and figures["action"] == "draw"


def test_covering_the_end_the_opponent_needs_beats_letting_it_go_out() -> None:
    """Draw: the opponent's last tile fits a 2: a play leaving a 2 open lets it go out, the other does not."""
    state = draw_position([(2, 5), (6, 6)], [(0, 2)], [(0, 0), (0, 1), (3, 3), (4, 4)], (5, 2))
    actions = legal_actions(state, 0)
    result = equities(state, actions)
    # [2|5] on either end leaves [6|6]; the opponent's [0|2] fits the 2 end only: playing on the 2 blocks it
    labels = [action.label() for action in actions]
    assert labels == ["[2|5] left", "[2|5] right", "draw"]
    best = max(range(len(actions)), key=lambda index: result.information[index])
    assert labels[best] == "[2|5] right"  # covers the 2: the opponent must draw, and [6|6] may go out next
    assert result.omniscient[0] < result.omniscient[1]  # the truth: letting it out loses 12, the block 9


def test_all_fives_a_play_scoring_15_beats_one_scoring_0() -> None:
    """The same last tile on two ends: 15 on the left, 0 on the right, nothing else different."""
    placed = [((3, 3), LEFT), ((3, 0), LEFT), ((3, 6), RIGHT), ((3, 2), "up"), ((3, 1), "down")]
    state = fives_position([(0, 6)], [(4, 4), (5, 5), (2, 2)],
                           [tile for tile in TILES if TILE_ID[tile] not in ids((0, 6), (4, 4), (5, 5), (2, 2),
                                                                                   *(h for h, _ in placed))],
                           placed)
    assert state.tableau.count() == 9
    actions = legal_actions(state, 0)
    assert [action.label() for action in actions] == ["[0|6] left", "[0|6] right"]
    result = equities(state, actions)
    assert result.information[0] - result.information[1] == 15.0
    assert result.omniscient[0] - result.omniscient[1] == 15.0


def test_all_fives_scoring_now_ranks_first_when_play_goes_on() -> None:
    """Not the last tile: 15 now against 0 now, the rest of the round played out; still ranked first."""
    placed = [((3, 3), LEFT), ((3, 0), LEFT), ((3, 6), RIGHT), ((3, 2), "up"), ((3, 1), "down")]
    mine = [(0, 6), (1, 1)]
    theirs = [(4, 4), (5, 5), (2, 2)]
    used = ids(*mine, *theirs, *(h for h, _ in placed))
    state = fives_position(mine, theirs, [tile for tile in TILES if TILE_ID[tile] not in used], placed)
    actions = legal_actions(state, 0)
    assert [action.label() for action in actions][:2] == ["[0|6] left", "[0|6] right"]
    result = equities(state, actions)
    assert result.information[0] > result.information[1] + 5


def test_symmetric_actions_have_the_same_equity() -> None:
    state = draw_position([(1, 6), (2, 4), (0, 3)], [(5, 5), (4, 5), (1, 2)], [(0, 0), (0, 1), (3, 3), (2, 3)],
                          (6, 6))
    mirror = [Action(TILE_ID[(1, 6)], LEFT), Action(TILE_ID[(1, 6)], RIGHT), DRAW_ACTION]
    result = equities(state, mirror)
    assert result.information[0] == result.information[1] and result.omniscient[0] == result.omniscient[1]
    assert [action.label() for action in legal_actions(state, 0)] == ["[1|6] left", "draw"]  # one action
    assert find_action(state, legal_actions(state, 0), TILE_ID[(1, 6)], RIGHT) == 0
    fives = fives_position([(3, 5), (1, 2), (0, 4)], [(6, 6), (2, 6), (1, 4)],
                           [tile for tile in TILES if TILE_ID[tile] not in ids(
                               (3, 5), (1, 2), (0, 4), (6, 6), (2, 6), (1, 4), (3, 3))], [((3, 3), LEFT)])
    mirror = [Action(TILE_ID[(3, 5)], LEFT), Action(TILE_ID[(3, 5)], RIGHT)]
    result = equities(fives, mirror)
    assert result.information[0] == result.information[1]
    assert len(legal_actions(fives, 0)) == 1


def test_equities_are_deterministic_for_a_seed() -> None:
    state = draw_position([(1, 6), (2, 4), (0, 3)], [(5, 5), (4, 5), (1, 2)], [(0, 0), (0, 1), (3, 3), (2, 3)],
                          (6, 3))
    actions = legal_actions(state, 0)
    assert equities(state, actions, seed=11) == equities(state, actions, seed=11)
    assert equities(state, actions, seed=11).information != equities(state, actions, seed=12).information
    assert decision_seed(1, "m", 2, 3).random() == decision_seed(1, "m", 2, 3).random()


@pytest.mark.parametrize("fives", [False, True])
def test_with_the_deal_revealed_information_and_omniscient_equity_agree(fives: bool) -> None:
    """Two players and an empty stock: the unseen tiles are the opponent's hand, so every sample is the truth."""
    checked = 0
    for seed in range(80):
        rng = random.Random(seed)
        state = random_round(rng, fives, 2, 9 if fives else 7, 0)
        while not state.is_over and (state.stock_left or len(legal_actions(state, state.turn)) < 2):
            apply_move(state, random_move(state, rng))
        if state.is_over:
            continue
        seat = state.turn
        actions = legal_actions(state, seat)
        result = evaluate(state, seat, actions, Knowledge.of(state, seat), 16, random.Random(1))
        assert result.information == result.omniscient
        checked += 1
    assert checked >= 4


def test_error_classes_and_accuracy() -> None:
    assert [error_class(e) for e in (0.0, 1.0, 2.0, 4.99, 5.0, 9.9, 10.0, 30.0)] == [
        "best", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert decision_accuracy(0.0) == 100.0 and round(decision_accuracy(10.0), 1) == 36.8


# -- the command ---------------------------------------------------------------------

runner = CliRunner()
ENV = {"COLUMNS": "200", "NO_COLOR": "1"}


def analyze(*args: object):
    result = runner.invoke(app, ["analyze", *[str(arg) for arg in args]], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def test_analyze_a_two_player_match(tmp_path: Path) -> None:
    log = SAMPLES / "tournament-2p.jsonl"
    first = analyze(log, "--match", "t2-000001", "--out", tmp_path / "tables")
    assert first.exit_code == 0, first.output
    assert "1 match, 116 decisions" in first.output and "p1" in first.output and "p2" in first.output
    again = analyze(log, "--match", "t2-000001")
    assert again.output == first.output
    decisions = pl.read_parquet(tmp_path / "tables" / "decisions.parquet")
    assert decisions.height == 116 and decisions.schema["error"] == pl.Float64 and decisions.schema["round"] == pl.Int32
    assert (decisions["error"] >= 0).all() and set(decisions["class"]) <= {"best", "good", "inaccuracy", "mistake",
                                                                          "blunder"}
    players = pl.read_parquet(tmp_path / "tables" / "analysis_players.parquet")
    assert players["player"].to_list() == ["p1", "p2"] and players["decisions"].sum() == 116
    assert players.schema["peek_z"] == pl.Float64 and players["verdict"].to_list() == ["too few decisions (15)", "no signal"]


def test_analyze_json_and_another_seed() -> None:
    result = analyze(SAMPLES / "all-fives.jsonl", "--match", "af-000001", "--format", "json", "--samples", "8",
                     "--seed", "3")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["samples"] == 8 and document["matches"][0]["finished"]
    decision = document["decisions"][0]
    assert decision["variant"] == "all-fives" and len(decision["actions"]) == decision["options"] >= 2


def test_analyze_stops_at_the_first_error() -> None:
    result = analyze(SAMPLES / "every-violation.jsonl", "--match", "M202-m1", "--samples", "4")
    assert result.exit_code == 0
    assert "stopped at " in result.output and "every-violation.jsonl:253 (M202" in result.output


@pytest.mark.parametrize("args, words", [
    (["--samples", "0"], "--samples"), (["--samples", "1000000"], "--samples"), (["--samples", "-3"], "--samples"),
    (["--samples", "many"], "--samples"), (["--match", "nope"], "no match"), (["--format", "xml"], "--format"),
])
def test_analyze_bad_arguments(args: list[str], words: str) -> None:
    result = analyze(SAMPLES / "tournament-2p.jsonl", *args)
    assert result.exit_code == 2 and words in result.output


def test_analyze_unreadable_input(tmp_path: Path) -> None:
    result = analyze(tmp_path / "missing.jsonl")
    assert result.exit_code == 2
    (tmp_path / "file").write_text("")
    result = analyze(SAMPLES / "tournament-2p.jsonl", "--match", "t2-000001", "--samples", "2", "--out",
                     tmp_path / "file")
    assert result.exit_code == 2 and "--out" in result.output


def test_analyze_standard_input_reads_like_the_file() -> None:
    log = SAMPLES / "tournament-2p.jsonl"
    from_file = analyze(log, "--match", "t2-000001", "--samples", "4")
    result = runner.invoke(app, ["analyze", "-", "--match", "t2-000001", "--samples", "4"], env=ENV,
                           input=log.read_bytes())
    # the critical moments' replay commands need a file: standard input has none
    assert result.exit_code == 0 and "drawlog replay" in from_file.output
    assert result.output.splitlines() == [line for line in from_file.output.splitlines() if "drawlog replay" not in line]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**9), moves=st.integers(0, 25))
def test_count_after_is_the_tableau_count(seed: int, moves: int) -> None:
    """The rollout's count of a placement, unplaced, against the engine's tableau placing it and counting."""
    state, _ = mid_round(seed, (True, 2, 9, 0), moves)
    tableau = state.tableau  # type: ignore[attr-defined]
    for tile in range(28):
        halves = TILES[tile]
        ends = ["left"] if tableau.left is None else tableau.ends_for(halves)
        for end in ends:
            after = tableau.copy()
            after.place_tile(halves, end)
            assert count_after(tableau, tile, end) == after.count()


def test_sampler_is_uniform_over_consistent_deals_with_voids_on_two_seats() -> None:
    """Three players, voids on both others: every consistent deal comes about as often (rejection is exact)."""
    unseen = bitset((0, 1), (0, 2), (1, 2), (3, 4), (3, 5), (4, 5))
    excluded = (0, bitset((0, 1), (0, 2)), bitset((3, 4)))  # seat 1 holds no 0, seat 2 not [3|4]
    knowledge = Knowledge(0, bitset((6, 6)), unseen, (1, 2, 2), 2, excluded)
    sampler = DealSampler(knowledge)
    rng = random.Random(9)
    counts: dict[tuple[int, int], int] = {}
    draws = 6000
    for _ in range(draws):
        hands, _ = sampler.deal(rng)
        assert not hands[1] & excluded[1] and not hands[2] & excluded[2]
        counts[(hands[1], hands[2])] = counts.get((hands[1], hands[2]), 0) + 1
    tiles = list(members(unseen))
    consistent = {(a, b) for a in (1 << x | 1 << y for x in tiles for y in tiles if x < y)
                  for b in (1 << x | 1 << y for x in tiles for y in tiles if x < y)
                  if not a & b and not a & excluded[1] and not b & excluded[2]}
    assert set(counts) == consistent
    expected = draws / len(consistent)
    assert all(abs(count - expected) < 5 * expected ** 0.5 for count in counts.values())
    assert sampler.fallbacks == 0


def test_the_greedy_bot_is_more_accurate_than_the_random_one() -> None:
    """tournament-2p.jsonl: p1 is the greedy bot, p2 the random one (its meta says so)."""
    result = analyze(SAMPLES / "tournament-2p.jsonl", "--format", "json")
    document = json.loads(result.output)
    players = {row["player"]: row for row in document["players"]}
    assert players["p1"]["accuracy"] > players["p2"]["accuracy"] + 3
    assert players["p1"]["mean_error"] < players["p2"]["mean_error"]
    # each decision draws its own numbers: one match alone is weighed as within the whole file
    alone = json.loads(analyze(SAMPLES / "tournament-2p.jsonl", "--match", "t2-000001", "--format", "json").output)
    assert alone["decisions"] == [row for row in document["decisions"] if row["match"] == "t2-000001"]


def test_the_error_comes_with_its_standard_error() -> None:
    state = draw_position([(2, 5)], [(6, 6), (4, 6), (1, 1)], [(0, 0), (0, 1), (3, 3)], (5, 3))
    actions = legal_actions(state, 0)
    result = equities(state, actions)
    assert len(result.per_deal) == 2 and len(result.per_deal[0]) == DEFAULT_SAMPLES
    assert result.difference_error(0, 0) == 0.0 and result.difference_error(0, 1) > 0
    figures, _ = weigh(state, 0, actions, 1, [0, 0], DEFAULT_SAMPLES, random.Random(7))
    assert 0 < figures["error_se"] < figures["error"]  # type: ignore[operator]


def test_the_play_that_leads_to_going_out_beats_the_one_that_blocks() -> None:
    """Draw, stock at the reserve, no unseen tile shows a 1, 3 or 6: [3|3] then [3|6] goes out; [3|6] first blocks.

    Going out wins the opponent's pips X; the block leaves [3|3] (6 pips): X − 6 either way it falls.
    So the difference is 6 points in every deal.
    """
    unseen = [(0, 0), (2, 2), (4, 5), (0, 2), (2, 4)]
    state = draw_position([(3, 3), (3, 6)], unseen[:3], unseen[3:], (3, 1))
    actions = legal_actions(state, 0)
    assert [action.label() for action in actions] == ["[3|3] left", "[3|6] left"]
    result = equities(state, actions)
    assert result.information[0] - result.information[1] == 6.0
    assert result.omniscient == [13.0, 7.0]  # the opponent holds [0|0] [2|2] [4|5]: 13 pips
