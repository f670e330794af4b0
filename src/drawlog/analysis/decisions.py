"""Every decision of a match, weighed: its actions' equities, the best, the error and its class.

A **decision** is a turn where the player to move had two or more different
legal actions (:func:`~drawlog.analysis.rollout.legal_actions`: each tile on
each end giving a different line, and in Draw the voluntary draw). A forced
move (one placement, a forced draw, a pass) is an *only move* and not counted.

For each decision (:func:`weigh`): the equity of every action from what the
player could know and from the true deal (:mod:`.equity`); the **best** action
(highest information equity; the first in the action order on a tie), the
**error** of the action taken (best equity − its equity, in points, never
below 0; ``error_se``, its standard error over the sampled deals, paired) and
its **class**:

========== ===============
class      error (points)
========== ===============
best       0 (a best action)
good       below 2
inaccuracy 2 to below 5
mistake    5 to below 10
blunder    10 or more
========== ===============

The thresholds are provisional (a Draw round is worth about 10–40 points to
its winner): the calibration experiments of issue #22 are to set them.

The **swing** of a decision is its best information equity minus its worst
(points): how much was at stake, whatever was played. The largest errors and
swings of a match are its *critical moments* (:mod:`.moments`).

**Peek decisions**: those where no information-best action is also an
omniscient-best one (ties within :data:`TIE` count as best); on them the
player *peeked* when the action taken is omniscient-best.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from .actions import Action
from .equity import evaluate
from .sampler import Knowledge

#: Errors at or above these (points) are a blunder, a mistake, an inaccuracy; below the last, ``good``.
BLUNDER: Final = 10.0
MISTAKE: Final = 5.0
INACCURACY: Final = 2.0
#: Equities closer than this are equal (floating-point sums of the same rollouts in another order).
TIE: Final = 1e-9
#: The classes of a decision, best to worst.
CLASSES: Final = ("best", "good", "inaccuracy", "mistake", "blunder")


def error_class(error: float) -> str:
    """The class of an action whose equity is ``error`` points below the best."""
    if error >= BLUNDER:
        return "blunder"
    if error >= MISTAKE:
        return "mistake"
    if error >= INACCURACY:
        return "inaccuracy"
    return "good" if error > TIE else "best"


@dataclass(frozen=True)
class Decision:
    """One weighed decision; equities in points (see :mod:`.equity`)."""

    file: str
    match: str
    round: int
    ply: int
    line: int
    player: str
    variant: str
    options: int
    action: str
    best: str
    omniscient_best: str
    equity: float
    best_equity: float
    error: float
    #: The standard error of ``error`` from the sampled deals (paired differences; 0 for a best action).
    error_se: float
    error_class: str
    omniscient_equity: float
    omniscient_best_equity: float
    samples: int
    peek_decision: bool
    peeked: bool
    #: The best information equity minus the worst: how much was at stake (points, ≥ 0).
    swing: float
    #: All the actions, with their information and omniscient equities (for ``--format json``).
    actions: tuple[tuple[str, float, float], ...] = ()


def decision_seed(seed: int, match: str, round_number: int, ply: int) -> random.Random:
    """The random numbers of one decision: the same for a seed whatever else is analysed, in any order."""
    return random.Random(f"{seed}/{match}/{round_number}/{ply}")


def _best(values: list[float]) -> tuple[int, set[int]]:
    top = max(values)
    ties = {index for index, value in enumerate(values) if value >= top - TIE}
    return min(ties), ties


def weigh(state: Round, seat: int, actions: list[Action], taken: int, excluded: list[int], samples: int,
          rng: random.Random) -> tuple[dict[str, object], tuple[tuple[str, float, float], ...]]:
    """The figures of the decision of ``seat`` in ``state`` that took ``actions[taken]``.

    Returns the :class:`Decision` fields that depend on the equities, and each
    action with its equities.
    """
    equities = evaluate(state, seat, actions, Knowledge.of(state, seat, excluded), samples, rng)
    information, omniscient = equities.information, equities.omniscient
    best, best_set = _best(information)
    omniscient_best, omniscient_set = _best(omniscient)
    error = max(0.0, information[best] - information[taken])
    if error <= TIE:
        error = 0.0
    error_se = equities.difference_error(best, taken) if error else 0.0
    peek_decision = not best_set & omniscient_set
    figures: dict[str, object] = {
        "options": len(actions), "action": actions[taken].label(), "best": actions[best].label(),
        "omniscient_best": actions[omniscient_best].label(), "equity": information[taken],
        "best_equity": information[best], "error": error, "error_se": error_se, "error_class": error_class(error),
        "omniscient_equity": omniscient[taken], "omniscient_best_equity": omniscient[omniscient_best],
        "samples": samples, "peek_decision": peek_decision,
        "peeked": peek_decision and taken in omniscient_set, "swing": max(information) - min(information),
    }
    table = tuple((action.label(), information[index], omniscient[index]) for index, action in enumerate(actions))
    return figures, table


def variant_of(state: Round) -> str:
    """``draw`` or ``all-fives``."""
    return "all-fives" if isinstance(state, FivesRound) else "draw"


__all__ = ["BLUNDER", "CLASSES", "INACCURACY", "MISTAKE", "TIE", "Decision", "decision_seed", "error_class",
           "variant_of", "weigh"]
