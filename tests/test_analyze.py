"""``drawlog analyze``: the sampler, the rollout engine, the equities, the command.

Positions are built on the engine alone; the command runs on ``sample_logs``.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drawlog.analysis.rollout import DRAW_ACTION, PASS_ACTION, Action, Rollout, legal_actions
from drawlog.analysis.sampler import DealSampler, Knowledge, VoidTracker
from drawlog.engine.allfives import FivesRound
from drawlog.engine.rounds import Round
from drawlog.engine.tiles import FULL_SET, TILES, members, tile_count

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
