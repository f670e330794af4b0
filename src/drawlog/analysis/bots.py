"""Bots that play with the analysis's own tools: an honest ``expert`` and a cheating ``peeker``.

They live here, not in :mod:`drawlog.play.bots`, because ``play/`` must not
import ``analysis/`` (nor this room ``play/``: the two are side by side, so
these bots speak the simulator's bot protocol — ``name``, ``description``,
``choose(state, seat, rng)`` returning ``("draw",)``, ``("pass",)`` or
``("play", halves, end)`` — without subclassing its ``Bot``); ``drawlog
simulate`` joins :data:`ANALYSIS_BOTS` to :data:`drawlog.play.bots.BOTS` and
hands the table to the simulator.

* **expert** (honest): at each decision (two or more different legal actions,
  :func:`~drawlog.analysis.actions.legal_actions`) it deals :data:`EXPERT_SAMPLES`
  deals of the unseen tiles consistent with its own hand, the tiles placed and
  the hand and stock sizes (:class:`~drawlog.analysis.sampler.DealSampler`; it
  keeps no memory of the voids shown by passes, so it knows a little less than
  the analysis credits a player with), plays every action out with the rollout
  policy on the same deals and takes the one with the highest mean equity —
  the analysis's *information* equity with fewer deals.
* **peeker** (a cheater): the same, but its rollouts run on the *true* hands
  and stock order, which a bot can see because it is handed the engine's whole
  round — the analysis's *omniscient* equity. It takes the omniscient-best
  action at every decision.

Both make a forced move (one action, or nothing to place) without weighing.
"""

from __future__ import annotations

import random
from typing import Final

from ..engine.rounds import Round
from ..engine.tiles import TILES
from .actions import Action as Choice
from .actions import legal_actions
from .equity import information_bases, omniscient_bases, rollout_equities
from .sampler import Knowledge

DRAW: Final = ("draw",)
PASS: Final = ("pass",)
#: The simulator's action: ``("draw",)``, ``("pass",)`` or ``("play", halves, end)``.
Move = tuple

#: Deals the expert weighs its actions over at each decision (the analysis uses 64 by default; at 16 the expert
#: was no better than the tactician in Draw on a tuning run, at 32 and 64 it is).
EXPERT_SAMPLES: Final = 32


def as_move(action: Choice) -> Move:
    """The simulator's action (``("play", halves, end)`` or ``("draw",)``) for an analysis action."""
    return DRAW if action.is_draw else ("play", TILES[action.tile], action.end)


def _top(values: list[float]) -> int:
    """The index of the highest value (the first on a tie)."""
    return max(range(len(values)), key=lambda index: (values[index], -index))


class _RolloutBot:
    """What the two bots share: the forced moves, and weighing the actions of a decision."""

    name = "rollout"
    description = ""

    def __init__(self, samples: int = EXPERT_SAMPLES) -> None:
        self.samples = samples

    def choose(self, state: Round, seat: int, rng: random.Random) -> Move:
        """A legal action for ``seat``, which is to move in ``state``."""
        actions = legal_actions(state, seat)
        if not actions:
            return DRAW if state.can_draw(seat) else PASS
        if len(actions) == 1:
            return as_move(actions[0])
        return as_move(actions[_top(self.weigh(state, seat, actions, rng))])

    def weigh(self, state: Round, seat: int, actions: list[Choice], rng: random.Random) -> list[float]:
        """Each action's equity as this bot sees it."""
        raise NotImplementedError


class ExpertBot(_RolloutBot):
    """Honest: the action of highest information equity over a few sampled deals (see the module's docstring)."""

    name = "expert"
    description = f"weighs each action over {EXPERT_SAMPLES} sampled deals of the unseen tiles with rollouts " \
                  f"(honest)"

    def weigh(self, state: Round, seat: int, actions: list[Choice], rng: random.Random) -> list[float]:
        """The information equities over ``samples`` sampled deals."""
        bases, _ = information_bases(state, Knowledge.of(state, seat), self.samples, rng)
        return rollout_equities(bases, seat, actions)


class PeekerBot(_RolloutBot):
    """A cheater: the action of highest equity on the true hands and stock order (see the module's docstring)."""

    name = "peeker"
    description = "sees the other hands and the stock order and plays the best action on them (a cheater)"

    def weigh(self, state: Round, seat: int, actions: list[Choice], rng: random.Random) -> list[float]:
        """The omniscient equities: the true hands and stock order (over shuffles of the stock without it)."""
        return rollout_equities(omniscient_bases(state, self.samples, rng), seat, actions)


#: The analysis's bots by name (the names are also in :data:`drawlog.play.bot_names.ANALYSIS_BOT_NAMES`).
ANALYSIS_BOTS: dict[str, type[_RolloutBot]] = {cls.name: cls for cls in (ExpertBot, PeekerBot)}

__all__ = ["ANALYSIS_BOTS", "DRAW", "EXPERT_SAMPLES", "PASS", "ExpertBot", "PeekerBot", "as_move"]
