"""The fair-play signal: does a player take the omniscient-best action more often than honest players do?

A **peek decision** (:mod:`.decisions`) is one where no action that is best
from the player's information is also best on the true hands and stock; the
player *peeked* there when they took an omniscient-best action anyway. An
honest player does that sometimes: by luck, or because the omniscient-best
action was nearly as good from what they knew. A cheater who sees the hands
does it nearly always.

**The expected rate of an honest player depends on the decision.** With two
actions a player who picks at random takes the omniscient-best one half the
time, with six far less often; and when the omniscient-best action costs
little from the player's information (its *peek cost*: the best information
equity − its information equity, the cheapest omniscient-best action,
:func:`peek_cost`), a good honest player often takes it (the sampled deals say
it is about as good), when it costs many points rarely. A single rate for all
peek decisions would flag an honest player whose peek decisions happen to be
two-way choices or close calls. So each peek decision ``i`` gets its own honest
rate ``p_i`` = :data:`HONEST_RATES` of its game, its number of actions (2, 3,
4, 5 or more) and its cost bucket (:data:`COST_EDGES`): the highest rate any
honest bot (random, greedy, tactician, expert) showed in that cell on tuning
seeds — the most honest-looking play we know, so an honest player should not
exceed it. Then, over a player's ``n`` peek decisions with ``k`` peeks::

    z = (k − Σ p_i) / sqrt(Σ p_i (1 − p_i))

which is the binomial ``z = (k − n·p0) / sqrt(n·p0·(1 − p0))`` when every
``p_i`` is ``p0`` (:func:`binomial_z`). **Verdict** (:func:`verdict`): below
:data:`MIN_PEEK_DECISIONS` peek decisions, ``too few decisions (N)``; else
``strong signal`` at ``z ≥`` :data:`STRONG_SIGNAL`, ``look closer`` at
``z ≥`` :data:`LOOK_CLOSER`, else ``no signal``. The rates and thresholds were
fixed on tuning seeds and checked on held-out ones (``experiments/fairplay.py``,
README "Fair play"). A signal is a reason to look at the games, not proof.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .decisions import TIE, Decision

#: Peek-cost buckets (points): below 1, 1 to below 3, 3 to below 6, 6 and above.
COST_EDGES: Final = (1.0, 3.0, 6.0)
#: The most actions told apart: a decision with more counts as one with this many.
MOST_OPTIONS: Final = 5
#: The honest rate per game, per number of actions (2, 3, 4, 5+) and cost bucket: the highest rate any honest
#: bot showed in that cell on tuning seeds (``experiments/fairplay.py --tune``: 240 honest and 120 peeker matches
#: per game, seeds from 1,000,000, 16 deals per decision), rounded up to the hundredth.
HONEST_RATES: Final[dict[str, tuple[tuple[float, ...], ...]]] = {
    "draw": ((0.59, 0.56, 0.45, 0.43), (0.51, 0.47, 0.38, 0.38), (0.42, 0.43, 0.34, 0.27), (0.35, 0.29, 0.25, 0.19)),
    "all-fives": ((0.74, 0.52, 0.53, 0.55), (0.48, 0.44, 0.43, 0.38), (0.48, 0.52, 0.37, 0.28),
                  (0.42, 0.35, 0.31, 0.19)),
}
#: Fewer peek decisions than this give no verdict.
MIN_PEEK_DECISIONS: Final = 30
#: z at or above this: ``look closer``.
LOOK_CLOSER: Final = 3.0
#: z at or above this: ``strong signal``.
STRONG_SIGNAL: Final = 5.0
#: The verdicts, from none to the strongest.
VERDICTS: Final = ("no signal", "look closer", "strong signal")


def peek_cost(decision: Decision) -> float:
    """What taking an omniscient-best action costs from the player's information (points, ≥ 0).

    The best information equity minus the highest information equity among the
    omniscient-best actions (those within :data:`~drawlog.analysis.decisions.TIE`
    of the best omniscient equity); 0 when the decision lists no actions.
    """
    if not decision.actions:
        return 0.0
    top = max(omniscient for _, _, omniscient in decision.actions)
    cheapest = max(information for _, information, omniscient in decision.actions if omniscient >= top - TIE)
    return max(0.0, decision.best_equity - cheapest)


def cost_bucket(cost: float) -> int:
    """The index of ``cost``'s bucket in :data:`COST_EDGES` (0 … len)."""
    return sum(cost >= edge for edge in COST_EDGES)


def honest_rate(variant: str, options: int, cost: float) -> float:
    """The rate at which honest players take the omniscient-best action at a peek decision like this one."""
    return HONEST_RATES[variant][min(options, MOST_OPTIONS) - 2][cost_bucket(cost)]


def binomial_z(peeks: int, decisions: int, rate: float) -> float:
    """``(k − n·p0) / sqrt(n·p0·(1 − p0))``: ``peeks`` in ``decisions`` against an honest ``rate`` ``p0``."""
    return weighted_z(peeks, decisions * rate, decisions * rate * (1.0 - rate))


def weighted_z(peeks: int, expected: float, variance: float) -> float:
    """``(k − Σ p_i) / sqrt(Σ p_i (1 − p_i))``; 0 without variance (no peek decisions)."""
    if variance <= 0.0:
        return 0.0
    return (peeks - expected) / math.sqrt(variance)


def verdict(z: float, peek_decisions: int) -> str:
    """``too few decisions (N)``, ``no signal``, ``look closer`` or ``strong signal``."""
    if peek_decisions < MIN_PEEK_DECISIONS:
        return f"too few decisions ({peek_decisions})"
    if z >= STRONG_SIGNAL:
        return "strong signal"
    return "look closer" if z >= LOOK_CLOSER else "no signal"


@dataclass(frozen=True)
class Signal:
    """One player's fair-play figures in one game."""

    peek_decisions: int
    peeks: int
    expected: float
    variance: float

    @property
    def z(self) -> float:
        """The z-score of the peeks against the honest rates."""
        return weighted_z(self.peeks, self.expected, self.variance)

    @property
    def verdict(self) -> str:
        """The plain-words verdict (:func:`verdict`)."""
        return verdict(self.z, self.peek_decisions)


#: The figures of a player without peek decisions.
NO_SIGNAL: Final = Signal(0, 0, 0.0, 0.0)


def signal(decisions: Iterable[Decision]) -> Signal:
    """The fair-play figures of one player's decisions in one game (only peek decisions count)."""
    count = peeks = 0
    expected = variance = 0.0
    for decision in decisions:
        if not decision.peek_decision:
            continue
        rate = honest_rate(decision.variant, decision.options, peek_cost(decision))
        count += 1
        peeks += decision.peeked
        expected += rate
        variance += rate * (1.0 - rate)
    return Signal(count, peeks, expected, variance)


__all__ = ["COST_EDGES", "HONEST_RATES", "LOOK_CLOSER", "MIN_PEEK_DECISIONS", "MOST_OPTIONS", "NO_SIGNAL", "STRONG_SIGNAL", "VERDICTS", "Signal",
           "binomial_z", "cost_bucket", "honest_rate", "peek_cost", "signal", "verdict", "weighted_z"]
