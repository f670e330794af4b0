"""The equity of each legal action at a decision: rollouts over sampled deals, and over the true deal.

**Equity** of an action for the player ``p`` to move: play the action, then the
round out with the rollout policy (:mod:`.rollout`); take each seat's change of
score from the decision to the round's end, ``d``; the equity is
``d[p] − mean(d[q] for the other seats q)``, in points, averaged over the deals.

* Draw: ``d`` is the round's award (:func:`~drawlog.engine.scoring.score_round`):
  domino — the winner gets every opponent's pips; blocked — the unique lowest
  hand total gets the others' totals minus its own once, a tied lowest total
  gives nobody anything (all ``d`` are 0).
* All Fives: ``d`` is the play points scored from the decision on (the count of
  each placement, a positive multiple of five) plus the end-of-round points
  (each seat's pips left, rounded to five, taken off; after a blocked round
  too). A play that reaches the match target ends the round there, with no
  pips taken off (as the engine scores it); winning the match is worth no more
  than those points.

**Information equity** averages over ``samples`` deals of the unseen tiles
(:class:`~drawlog.analysis.sampler.DealSampler`), the same deals for every
action of the decision (common random numbers). **Omniscient equity** plays the
same rollouts once on the true hands and logged stock order (when the log has
no stock order, over ``samples`` shuffles of the true stock).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..engine.rounds import Round
from ..engine.tiles import members
from .actions import Action
from .defaults import DEFAULT_SAMPLES
from .rollout import Rollout
from .sampler import DealSampler, Knowledge


@dataclass(frozen=True)
class Equities:
    """The equities of a decision's actions, in the actions' order; ``fallbacks``: biased deals used.

    ``per_deal[action][deal]``: each action's equity in each sampled deal (for paired standard errors).
    """

    information: list[float]
    omniscient: list[float]
    samples: int
    fallbacks: int = 0
    per_deal: tuple[tuple[float, ...], ...] = ()

    def difference_error(self, better: int, worse: int) -> float:
        """The standard error of ``information[better] − information[worse]`` (paired: the same deals)."""
        if better == worse or len(self.per_deal) <= max(better, worse) or self.samples < 2:
            return 0.0
        differences = [a - b for a, b in zip(self.per_deal[better], self.per_deal[worse])]
        mean = sum(differences) / len(differences)
        variance = sum((value - mean) ** 2 for value in differences) / (len(differences) - 1)
        return math.sqrt(variance / len(differences))


def seat_equity(points: tuple[int, ...], before: list[int], seat: int) -> float:
    """``seat``'s change of score minus the mean change of the others (``before``: points at the decision)."""
    changes = [after - start for after, start in zip(points, before)]
    others = len(changes) - 1
    return changes[seat] - (sum(changes) - changes[seat]) / others


def rollout_values(bases: list[Rollout], seat: int, actions: list[Action]) -> list[list[float]]:
    """Each action's equity from each of ``bases``: the action played, then the round out with the policy."""
    values: list[list[float]] = [[] for _ in actions]
    for base in bases:
        before = list(base.play_points)
        for index, action in enumerate(actions):
            game = base.clone()
            game.apply(action)
            values[index].append(seat_equity(game.finish(), before, seat))
    return values


def rollout_equities(bases: list[Rollout], seat: int, actions: list[Action]) -> list[float]:
    """The mean equity of each action over ``bases`` (see :func:`rollout_values`)."""
    return [sum(each) / len(each) for each in rollout_values(bases, seat, actions)]


def information_bases(state: Round, knowledge: Knowledge, samples: int, rng: random.Random) -> tuple[list[Rollout], int]:
    """``samples`` rollout states of ``state`` with the unseen tiles dealt anew; and how many deals were biased."""
    sampler = DealSampler(knowledge)
    bases = []
    for _ in range(samples):
        hands, stock = sampler.deal(rng)
        bases.append(Rollout.from_round(state, hands, stock))
    return bases, sampler.fallbacks


def omniscient_bases(state: Round, samples: int, rng: random.Random) -> list[Rollout]:
    """The true state as a rollout; without a logged stock order, ``samples`` shuffles of the true stock."""
    if state.stock_order is not None or state.stock_left == 0:
        return [Rollout.from_round(state)]
    bases = []
    for _ in range(samples):
        stock = list(members(state.stock))
        rng.shuffle(stock)
        bases.append(Rollout.from_round(state, None, stock))
    return bases


def evaluate(state: Round, seat: int, actions: list[Action], knowledge: Knowledge, samples: int,
             rng: random.Random) -> Equities:
    """The information and omniscient equities of ``actions`` for ``seat``, to move in ``state``."""
    bases, fallbacks = information_bases(state, knowledge, samples, rng)
    values = rollout_values(bases, seat, actions)
    information = [sum(each) / len(each) for each in values]
    omniscient = rollout_equities(omniscient_bases(state, samples, rng), seat, actions)
    return Equities(information, omniscient, samples, fallbacks, tuple(tuple(each) for each in values))


__all__ = ["DEFAULT_SAMPLES", "Equities", "evaluate", "information_bases", "omniscient_bases", "rollout_equities",
           "rollout_values", "seat_equity"]
