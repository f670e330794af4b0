"""Per-player figures from weighed decisions, and the two analysis tables.

* **accuracy** (0–100): the mean over a player's decisions of
  ``100 · exp(−error / ACCURACY_SCALE)``, with ``ACCURACY_SCALE`` 10 points:
  a best action counts 100, an error of 2 points 82, 5 points 61, 10 points
  37, 20 points 14. Only-move turns are not decisions and do not count.
* **mean error**: the mean error per decision, in points.
* **blunders, mistakes, inaccuracies**: counts, and per 100 decisions.
* **peek rate**: on the *peek decisions* (no information-best action is also
  omniscient-best), the share where the player took an omniscient-best
  action; ``None`` with no such decision. Its z-score against honest play,
  luck and the verdict are not computed yet (columns left null).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from .decisions import Decision
from .fairplay import NO_SIGNAL, Signal, signal

#: Points of error that bring a decision's accuracy down to 100/e (about 37).
ACCURACY_SCALE: Final = 10.0


def decision_accuracy(error: float) -> float:
    """A decision's accuracy, 0–100: ``100 · exp(−error / ACCURACY_SCALE)``."""
    return 100.0 * math.exp(-error / ACCURACY_SCALE)


@dataclass(frozen=True)
class PlayerFigures:
    """One player's figures in one game."""

    player: str
    variant: str
    decisions: int
    accuracy: float
    mean_error: float
    blunders: int
    mistakes: int
    inaccuracies: int
    peek_decisions: int
    peeks: int
    #: The fair-play figures (:mod:`.fairplay`): the peek z-score's parts and its verdict.
    signal: Signal = NO_SIGNAL

    def per_100(self, count: int) -> float:
        """``count`` per 100 decisions."""
        return 100.0 * count / self.decisions if self.decisions else 0.0

    @property
    def peek_rate(self) -> float | None:
        """Peeks per peek decision (None without any)."""
        return self.peeks / self.peek_decisions if self.peek_decisions else None


def player_figures(decisions: Iterable[Decision]) -> list[PlayerFigures]:
    """The figures of every player, per game, in the order of game then name."""
    groups: dict[tuple[str, str], list[Decision]] = {}
    for decision in decisions:
        groups.setdefault((decision.variant, decision.player), []).append(decision)
    figures = []
    for (variant, player), mine in sorted(groups.items()):
        count = len(mine)
        classes = [decision.error_class for decision in mine]
        peek = [decision for decision in mine if decision.peek_decision]
        figures.append(PlayerFigures(
            player, variant, count, sum(decision_accuracy(d.error) for d in mine) / count,
            sum(d.error for d in mine) / count, classes.count("blunder"), classes.count("mistake"),
            classes.count("inaccuracy"), len(peek), sum(d.peeked for d in peek), signal(peek)))
    return figures


#: The ``decisions`` table's columns and polars types (names of the types, resolved when writing).
DECISION_COLUMNS: Final = (
    ("file", "String"), ("match", "String"), ("round", "Int32"), ("ply", "Int32"), ("line", "Int64"),
    ("player", "String"), ("variant", "String"), ("options", "Int32"), ("action", "String"), ("best", "String"),
    ("omniscient_best", "String"), ("equity", "Float64"), ("best_equity", "Float64"), ("error", "Float64"), ("error_se", "Float64"),
    ("class", "String"), ("omniscient_equity", "Float64"), ("omniscient_best_equity", "Float64"),
    ("samples", "Int32"), ("peek_decision", "Boolean"), ("peeked", "Boolean"))
#: The ``analysis_players`` table's columns and polars types.
PLAYER_COLUMNS: Final = (
    ("player", "String"), ("variant", "String"), ("decisions", "Int64"), ("accuracy", "Float64"),
    ("mean_error", "Float64"), ("blunders", "Int64"), ("mistakes", "Int64"), ("inaccuracies", "Int64"),
    ("blunders_per_100", "Float64"), ("mistakes_per_100", "Float64"), ("inaccuracies_per_100", "Float64"),
    ("luck", "Float64"), ("luck_adjusted", "Float64"), ("peek_decisions", "Int64"), ("peek_rate", "Float64"),
    ("peek_z", "Float64"), ("verdict", "String"))


def decision_row(decision: Decision) -> dict[str, Any]:
    """A ``decisions`` row."""
    row = {name: getattr(decision, name) for name, _ in DECISION_COLUMNS if name != "class"}
    row["class"] = decision.error_class
    return row


def player_row(figures: PlayerFigures) -> dict[str, Any]:
    """An ``analysis_players`` row (luck: not computed yet, null)."""
    return {
        "player": figures.player, "variant": figures.variant, "decisions": figures.decisions,
        "accuracy": figures.accuracy, "mean_error": figures.mean_error, "blunders": figures.blunders,
        "mistakes": figures.mistakes, "inaccuracies": figures.inaccuracies,
        "blunders_per_100": figures.per_100(figures.blunders), "mistakes_per_100": figures.per_100(figures.mistakes),
        "inaccuracies_per_100": figures.per_100(figures.inaccuracies), "luck": None, "luck_adjusted": None,
        "peek_decisions": figures.peek_decisions, "peek_rate": figures.peek_rate,
        "peek_z": figures.signal.z if figures.peek_decisions else None, "verdict": figures.signal.verdict,
    }


def frames(decisions: list[Decision]) -> dict[str, Any]:
    """The tables as polars frames: ``decisions`` and ``analysis_players``, typed even when empty."""
    import polars as pl

    def frame(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...]) -> pl.DataFrame:
        schema = {name: getattr(pl, kind) for name, kind in columns}
        return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)

    return {
        "decisions": frame([decision_row(d) for d in decisions], DECISION_COLUMNS),
        "analysis_players": frame([player_row(f) for f in player_figures(decisions)], PLAYER_COLUMNS),
    }


__all__ = ["ACCURACY_SCALE", "DECISION_COLUMNS", "PLAYER_COLUMNS", "PlayerFigures", "decision_accuracy",
           "frames", "player_figures"]
