"""Per-player figures from weighed decisions, and the two analysis tables.

* **accuracy** (0–100): the mean over a player's decisions of
  ``100 · exp(−error / ACCURACY_SCALE)``, with ``ACCURACY_SCALE`` 10 points:
  a best action counts 100, an error of 2 points 82, 5 points 61, 10 points
  37, 20 points 14. Only-move turns are not decisions and do not count.
* **mean error**: the mean error per decision, in points.
* **blunders, mistakes, inaccuracies**: counts, and per 100 decisions.
* **peek rate**: on the *peek decisions* (no information-best action is also
  omniscient-best), the share where the player took an omniscient-best
  action; ``None`` with no such decision. Its z-score against honest play
  and the verdict are not computed here (columns left null).
* **rounds, result, luck, luck_adjusted** (:mod:`.luck`): over the player's
  settled rounds (a ``round_end`` replayed), the sum of their results
  ``d[p] − mean(d[others])``, the sum of the luck of those rounds' deals and
  draws, and ``result − luck``; totals, in points (the text output divides
  them by ``rounds``). Luck of a round never settled (the match stopped or
  ended inside it) is in the ``luck`` table but not in these sums. A player
  with settled rounds and no decision is listed with ``decisions`` 0 and null
  accuracy and mean error.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from .decisions import Decision
from .fairplay import NO_SIGNAL, Signal, signal
from .luck import LuckValue, RoundResult

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
    #: Settled rounds; the sums of the results, and of the luck (None: luck not valued) over them.
    rounds: int = 0
    result: float = 0.0
    luck: float | None = None
    #: The fair-play figures (:mod:`.fairplay`): the peek z-score's parts and its verdict.
    signal: Signal = NO_SIGNAL

    def per_100(self, count: int) -> float:
        """``count`` per 100 decisions."""
        return 100.0 * count / self.decisions if self.decisions else 0.0

    @property
    def peek_rate(self) -> float | None:
        """Peeks per peek decision (None without any)."""
        return self.peeks / self.peek_decisions if self.peek_decisions else None


def player_figures(decisions: Iterable[Decision], luck: Iterable[LuckValue] | None = None,
                   results: Iterable[RoundResult] = ()) -> list[PlayerFigures]:
    """The figures of every player, per game, in the order of game then name.

    ``results``: the settled rounds' results; ``luck``: the luck values (None:
    luck was not valued, so ``luck`` stays None). Luck counts only in the
    rounds that have a result.
    """
    groups: dict[tuple[str, str], list[Decision]] = {}
    for decision in decisions:
        groups.setdefault((decision.variant, decision.player), []).append(decision)
    rounds: dict[tuple[str, str], int] = {}
    result: dict[tuple[str, str], float] = {}
    settled = set()
    for each in results:
        key = (each.variant, each.player)
        groups.setdefault(key, [])
        rounds[key] = rounds.get(key, 0) + 1
        result[key] = result.get(key, 0.0) + each.result
        settled.add((each.file, each.match, each.round))
    lucky: dict[tuple[str, str], float] | None = None
    if luck is not None:
        lucky = {}
        for value in luck:
            if (value.file, value.match, value.round) in settled:
                key = (value.variant, value.player)
                lucky[key] = lucky.get(key, 0.0) + value.value
    figures = []
    for (variant, player), mine in sorted(groups.items()):
        key = (variant, player)
        count = len(mine)
        classes = [decision.error_class for decision in mine]
        peek = [decision for decision in mine if decision.peek_decision]
        figures.append(PlayerFigures(
            player, variant, count, sum(decision_accuracy(d.error) for d in mine) / count if count else math.nan,
            sum(d.error for d in mine) / count if count else math.nan, classes.count("blunder"),
            classes.count("mistake"), classes.count("inaccuracy"), len(peek), sum(d.peeked for d in peek),
            rounds.get(key, 0), result.get(key, 0.0), None if lucky is None else lucky.get(key, 0.0), signal(peek)))
    return figures


#: The ``decisions`` table's columns and polars types (names of the types, resolved when writing).
DECISION_COLUMNS: Final = (
    ("file", "String"), ("match", "String"), ("round", "Int32"), ("ply", "Int32"), ("line", "Int64"),
    ("player", "String"), ("variant", "String"), ("options", "Int32"), ("action", "String"), ("best", "String"),
    ("omniscient_best", "String"), ("equity", "Float64"), ("best_equity", "Float64"), ("error", "Float64"), ("error_se", "Float64"),
    ("class", "String"), ("omniscient_equity", "Float64"), ("omniscient_best_equity", "Float64"),
    ("samples", "Int32"), ("peek_decision", "Boolean"), ("peeked", "Boolean"), ("swing", "Float64"))
#: The ``analysis_players`` table's columns and polars types.
PLAYER_COLUMNS: Final = (
    ("player", "String"), ("variant", "String"), ("decisions", "Int64"), ("accuracy", "Float64"),
    ("mean_error", "Float64"), ("blunders", "Int64"), ("mistakes", "Int64"), ("inaccuracies", "Int64"),
    ("blunders_per_100", "Float64"), ("mistakes_per_100", "Float64"), ("inaccuracies_per_100", "Float64"),
    ("rounds", "Int64"), ("result", "Float64"), ("luck", "Float64"), ("luck_adjusted", "Float64"), ("peek_decisions", "Int64"), ("peek_rate", "Float64"),
    ("peek_z", "Float64"), ("verdict", "String"))


def decision_row(decision: Decision) -> dict[str, Any]:
    """A ``decisions`` row."""
    row = {name: getattr(decision, name) for name, _ in DECISION_COLUMNS if name != "class"}
    row["class"] = decision.error_class
    return row


#: The ``luck`` table's columns and polars types (``tile`` and ``drawer`` null for a deal).
LUCK_COLUMNS: Final = (
    ("file", "String"), ("match", "String"), ("round", "Int32"), ("line", "Int64"), ("player", "String"),
    ("variant", "String"), ("kind", "String"), ("tile", "String"), ("drawer", "String"), ("value", "Float64"))


def player_row(figures: PlayerFigures) -> dict[str, Any]:
    """An ``analysis_players`` row (luck: see :func:`luck_row`)."""
    return {
        "player": figures.player, "variant": figures.variant, "decisions": figures.decisions,
        "accuracy": figures.accuracy, "mean_error": figures.mean_error, "blunders": figures.blunders,
        "mistakes": figures.mistakes, "inaccuracies": figures.inaccuracies,
        "blunders_per_100": figures.per_100(figures.blunders), "mistakes_per_100": figures.per_100(figures.mistakes),
        "inaccuracies_per_100": figures.per_100(figures.inaccuracies), "luck": None, "luck_adjusted": None,
        "peek_decisions": figures.peek_decisions, "peek_rate": figures.peek_rate,
        "peek_z": figures.signal.z if figures.peek_decisions else None, "verdict": figures.signal.verdict,
    }


def luck_row(figures: PlayerFigures) -> dict[str, Any]:
    """The ``analysis_players`` columns of rounds, results and luck (and accuracy null without decisions)."""
    row: dict[str, Any] = {"rounds": figures.rounds, "result": figures.result, "luck": figures.luck,
                           "luck_adjusted": None if figures.luck is None else figures.result - figures.luck}
    if not figures.decisions:
        row.update(accuracy=None, mean_error=None)
    return row


def frames(decisions: list[Decision], luck: list[LuckValue] | None = None,
           results: list[RoundResult] | tuple[RoundResult, ...] = ()) -> dict[str, Any]:
    """The tables as polars frames: ``decisions``, ``analysis_players`` and ``luck``, typed even when empty."""
    import polars as pl

    def frame(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...]) -> pl.DataFrame:
        schema = {name: getattr(pl, kind) for name, kind in columns}
        return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)

    return {
        "decisions": frame([decision_row(d) for d in decisions], DECISION_COLUMNS),
        "analysis_players": frame([{**player_row(f), **luck_row(f)} for f in player_figures(decisions, luck, results)],
                                  PLAYER_COLUMNS),
        "luck": frame([{name: getattr(value, name) for name, _ in LUCK_COLUMNS} for value in luck or ()],
                      LUCK_COLUMNS),
    }


__all__ = ["ACCURACY_SCALE", "DECISION_COLUMNS", "LUCK_COLUMNS", "PLAYER_COLUMNS", "PlayerFigures", "decision_accuracy",
           "frames", "luck_row", "player_figures"]
