"""Luck: what the deal and each draw were worth, against the average deal and the average tile.

Values are rollout results (:mod:`.rollout`): play the round out with the
rollout policy and give each seat ``d[p] − mean(d[others])``, its change of
score from the moment valued to the round's end minus the mean change of the
others (as :func:`~drawlog.analysis.equity.seat_equity` does). A rollout's
values sum to 0 over the seats, and so does every luck below.

* **Deal luck** of each seat at a round's start (:func:`deal_luck`): the mean
  result of ``samples`` rollouts from the *true* hands, each with the stock
  shuffled anew (the stock's order is draw luck, counted at each draw), minus
  the mean over *fresh* random deals with the same hand sizes, the same opener
  and the same house rules (and, in All Fives, the same points to the match
  target): the average deal (:func:`average_deal`). Keeping the opener keeps
  the opener's advantage out of the luck: it is the rules', not the hands'.
  The average deal does not depend on the hands, so it is estimated once per
  rules, opener and points to the target, from :data:`AVERAGE_DEAL_FACTOR`
  times ``samples`` deals, and remembered (in Draw, where no target is in play
  within a round, every round of a table size shares it; in All Fives the
  points to the target change every round).
* **Draw luck** of each draw (:func:`draw_luck`): every tile in the stock at
  that moment was equally likely to be the next one (the reserve's tiles too: a
  logged or shuffled order does not tell which tiles end up in the reserve).
  For each candidate tile, the drawer takes it and the round is played out
  with the rest of the stock shuffled; the luck is the value with the tile
  actually drawn minus the mean over the candidates. The ``samples`` shuffles
  are shared by every candidate (common random numbers: candidate ``c`` gets
  the shuffle with ``c`` taken out), so the difference is not noise between
  candidates. The draw is valued for **every** seat, not only the drawer's: a
  tile that helps the drawer hurts the others (with two players by exactly as
  much), and a player's luck-adjusted result must take off the luck of the
  opponents' draws too.
* A player's **luck** is the sum of their deal luck and the draw luck of every
  draw of the round (theirs and the others'); their **result** the sum of
  ``d[p] − mean(d[others])`` over the rounds as actually scored; their
  **luck-adjusted result** ``result − luck`` (as GNU Backgammon reports it:
  what the play earned once the dice, here the tiles, are taken out).

Both are estimates with sampling noise, falling as 1/√``samples``: at 64
samples about 2 points per deal and 1.2 per draw in Draw (3 and 1.6 in All
Fives), but a Draw match sums a hundred-odd values, some 28 points in all
(``experiments/luck_noise.py``); raise ``samples`` for one match's luck. Each valuation draws its own random
numbers from the seed, the match, the round and the line (:func:`luck_seed`),
so the figures do not depend on what else is analysed or in which order.

**Cost**: a deal takes ``samples`` rollouts (plus the average deal's
``AVERAGE_DEAL_FACTOR · samples`` when not yet known), a draw ``samples``
rollouts per tile in the stock (up to 14 in a 2-player Draw round).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from ..engine.rounds import Round
from ..engine.tiles import FULL_SET, members
from .rollout import Rollout

#: The average deal is estimated from this many times ``samples`` fresh deals (its noise would be every deal's).
AVERAGE_DEAL_FACTOR: Final = 8
#: Average deals remembered (each a few floats) before the memory is cleared.
MAX_REMEMBERED: Final = 4096
_AVERAGES: dict[tuple[object, ...], tuple[float, ...]] = {}


@dataclass(frozen=True)
class LuckValue:
    """One row of the ``luck`` table: what a deal or a draw was worth to one player, in points.

    ``kind`` is ``deal`` (``tile`` and ``drawer`` None) or ``draw`` (``tile``
    the tile drawn, as ``[3|5]``; ``drawer`` who drew it).
    """

    file: str
    match: str
    round: int
    line: int
    player: str
    variant: str
    kind: str
    tile: str | None
    drawer: str | None
    value: float


@dataclass(frozen=True)
class RoundResult:
    """One player's result in one settled round: ``d[p] − mean(d[others])`` as the round was scored."""

    file: str
    match: str
    round: int
    line: int
    player: str
    variant: str
    result: float


def luck_seed(seed: int, match: str, round_number: int, line: int) -> random.Random:
    """The random numbers of one valuation (a deal or a draw): the same for a seed whatever else is analysed."""
    return random.Random(f"{seed}/{match}/{round_number}/luck/{line}")


def seat_values(points: tuple[int, ...] | list[int], before: list[int]) -> list[float]:
    """Every seat's ``d[p] − mean(d[others])``, ``d`` the change from ``before`` to ``points``; they sum to 0."""
    changes = [after - start for after, start in zip(points, before)]
    total = sum(changes)
    others = len(changes) - 1
    return [change - (total - change) / others for change in changes]


def round_results(points: tuple[int, ...] | list[int]) -> list[float]:
    """Each seat's result of a round that gave ``points`` (each seat's change of score)."""
    return seat_values(points, [0] * len(points))


def _add(totals: list[float], values: list[float]) -> None:
    for seat, value in enumerate(values):
        totals[seat] += value


def deal_luck(state: Round, samples: int, rng: random.Random, seed: int = 0) -> list[float]:
    """Each seat's deal luck in ``state``, a round just dealt (no move made yet); see the module's docstring.

    ``rng`` shuffles the stock of the true hands; the average deal draws its own numbers from ``seed``.
    """
    before = list(state.play_points)
    base = Rollout.from_round(state, None, [])
    stock = list(members(state.stock))
    dealt = [0.0] * len(state.hands)
    for _ in range(samples):
        game = base.clone()
        rng.shuffle(stock)
        game.stock = list(stock)
        _add(dealt, seat_values(game.finish(), before))
    average = average_deal(state, samples * AVERAGE_DEAL_FACTOR, seed)
    return [mine / samples - usual for mine, usual in zip(dealt, average)]


def average_deal(state: Round, samples: int, seed: int = 0) -> tuple[float, ...]:
    """Each seat's mean result over ``samples`` random deals of ``state``'s rules, opener and points to the target.

    Remembered per rules, opener, points to the target, ``samples`` and
    ``seed`` (the same figures whatever was asked before).
    """
    base = Rollout.from_round(state, None, [])
    sizes = tuple(hand.bit_count() for hand in state.hands)
    key = (base.fives, sizes, base.reserve, base.turn, tuple(base.to_win), tuple(base.play_points), samples, seed)
    known = _AVERAGES.get(key)
    if known is None:
        if len(_AVERAGES) >= MAX_REMEMBERED:
            _AVERAGES.clear()
        known = _AVERAGES[key] = _average_of(base, sizes, samples, random.Random(f"{seed}/average-deal/{key}"))
    return known


def _average_of(base: Rollout, sizes: tuple[int, ...], samples: int, rng: random.Random) -> tuple[float, ...]:
    before = list(base.play_points)
    tiles = list(members(FULL_SET))
    average = [0.0] * len(sizes)
    for _ in range(samples):
        rng.shuffle(tiles)
        hands, start = [], 0
        for size in sizes:
            hand = 0
            for tile in tiles[start:start + size]:
                hand |= 1 << tile
            hands.append(hand)
            start += size
        game = base.clone()
        game.hands = hands
        game.stock = tiles[start:]
        _add(average, seat_values(game.finish(), before))
    return tuple(value / samples for value in average)


def draw_luck(state: Round, tile: int, samples: int, rng: random.Random) -> list[float]:
    """Each seat's luck from the seat to move drawing ``tile`` in ``state`` (before the draw).

    All zeros when the stock holds one tile or fewer, or not ``tile`` (no
    other tile could have come).
    """
    players = len(state.hands)
    stock = list(members(state.stock))
    if len(stock) < 2 or tile not in stock:
        return [0.0] * players
    before = list(state.play_points)
    base = Rollout.from_round(state, None, [])
    base.passed = 0
    totals = {candidate: [0.0] * players for candidate in stock}
    order = list(stock)
    for _ in range(samples):
        rng.shuffle(order)
        for candidate in stock:
            game = base.clone()
            # the stock list is popped from its end: the rest (shuffled), then the candidate on top
            game.stock = [other for other in order if other != candidate]
            game.stock.append(candidate)
            game.draw()
            _add(totals[candidate], seat_values(game.finish(), before))
    count = len(stock)
    mean = [sum(totals[candidate][seat] for candidate in stock) / count for seat in range(players)]
    return [(totals[tile][seat] - mean[seat]) / samples for seat in range(players)]


__all__ = ["AVERAGE_DEAL_FACTOR", "LuckValue", "RoundResult", "average_deal", "deal_luck", "draw_luck", "luck_seed", "round_results", "seat_values"]
