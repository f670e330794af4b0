"""The arena's results: a crosstable of pairwise scores and Elo ratings with 95 % intervals.

Every match is read as games between each pair of its players: the match's
winner beats every other player; two players who did not win compare their
final scores (equal scores: a draw); a player who forfeits loses to everyone.
With two players that is simply the match.

A bot's **rating** is its Elo difference against the average opponent it met:
``400 · log10(s / (1 − s))`` for its score share ``s`` over its pairwise
games (a draw is half a point). The **95 % interval** comes from
the standard error of ``s`` over independent units, carried through the Elo
curve (delta method): a unit is one duplicate deal (all its rotations
together), or one match with ``--no-duplicate``, so that matches played on
one deal are not counted as independent. Zero width means every unit gave the same result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959964
#: Score shares are clamped this far from 0 and 1 so that a clean sweep has a finite (large) rating.
CLAMP = 0.5 / 1000


@dataclass
class Cell:
    """One bot's pairwise results against one opponent."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Pairwise games played."""
        return self.wins + self.draws + self.losses

    @property
    def share(self) -> float:
        """Points over games (a draw is half)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5


@dataclass
class BotLine:
    """One bot's totals: matches, match wins, forfeits (by reason), and per-unit points for the interval."""

    matches: int = 0
    wins: int = 0
    forfeits: dict[str, int] = field(default_factory=dict)
    #: unit → (points, games) of pairwise games in that unit.
    units: dict[str, list[float]] = field(default_factory=dict)


def elo(share: float) -> float:
    """The Elo difference a score share means."""
    share = min(max(share, CLAMP), 1 - CLAMP)
    return 400.0 * math.log10(share / (1.0 - share))


@dataclass
class Standings:
    """Results so far; :meth:`add` one finished match at a time."""

    bots: list[str]
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)
    lines: dict[str, BotLine] = field(default_factory=dict)
    matches: int = 0

    def __post_init__(self) -> None:
        for bot in self.bots:
            self.lines.setdefault(bot, BotLine())

    def add(self, bots: tuple[str, ...], scores: tuple[int, ...], winner: int | None, forfeit: int | None,
            unit: str, reason: str | None = None) -> None:
        """Count one match: who sat where, final scores, the winning seat, the seat that forfeited (and why)."""
        self.matches += 1
        for seat, bot in enumerate(bots):
            line = self.lines.setdefault(bot, BotLine())
            line.matches += 1
            line.wins += winner == seat
            if forfeit == seat:
                line.forfeits[reason or "forfeit"] = line.forfeits.get(reason or "forfeit", 0) + 1
        for first in range(len(bots)):
            for second in range(first + 1, len(bots)):
                outcome = _pairwise(first, second, scores, winner, forfeit)
                self._game(bots[first], bots[second], outcome, unit)
                self._game(bots[second], bots[first], 1.0 - outcome, unit)

    def _game(self, bot: str, opponent: str, points: float, unit: str) -> None:
        cell = self.cells.setdefault((bot, opponent), Cell())
        if points == 1.0:
            cell.wins += 1
        elif points == 0.0:
            cell.losses += 1
        else:
            cell.draws += 1
        tally = self.lines[bot].units.setdefault(unit, [0.0, 0.0])
        tally[0] += points
        tally[1] += 1

    def record(self, bot: str, opponent: str) -> tuple[int, int, int]:
        """``bot``'s wins, draws and losses against ``opponent`` so far (what a sequential test reads)."""
        cell = self.cells.get((bot, opponent), Cell())
        return cell.wins, cell.draws, cell.losses

    def share(self, bot: str) -> tuple[float, float]:
        """``bot``'s pairwise score share and its standard error over units."""
        units = list(self.lines[bot].units.values())
        points = sum(unit[0] for unit in units)
        games = sum(unit[1] for unit in units)
        if not games:
            return 0.5, math.inf
        share = points / games
        if len(units) < 2:
            return share, math.inf
        mean_games = games / len(units)
        spread = sum(((unit[0] - share * unit[1]) / mean_games) ** 2 for unit in units) / (len(units) - 1)
        return share, math.sqrt(spread / len(units))

    def rating(self, bot: str) -> tuple[float, float, float]:
        """``bot``'s Elo and its 95 % interval (low, high)."""
        share, error = self.share(bot)
        if math.isinf(error):
            return elo(share), -math.inf, math.inf
        return elo(share), elo(share - Z95 * error), elo(share + Z95 * error)

    def ranked(self) -> list[str]:
        """The bots, best rating first."""
        return sorted(self.bots, key=lambda bot: (-self.share(bot)[0], bot))

    def as_data(self) -> dict[str, object]:
        """Everything as plain data (the arena's ``--out`` file)."""
        rows = []
        for bot in self.ranked():
            line = self.lines[bot]
            rating, low, high = self.rating(bot)
            share, error = self.share(bot)
            rows.append({
                "bot": bot, "matches": line.matches, "wins": line.wins, "forfeits": dict(line.forfeits),
                "score_share": share, "share_error": None if math.isinf(error) else error,
                "elo": rating, "elo_low": None if math.isinf(low) else low,
                "elo_high": None if math.isinf(high) else high,
                "against": {opponent: vars(cell).copy() for (me, opponent), cell in sorted(self.cells.items())
                            if me == bot},
            })
        return {"matches": self.matches, "bots": rows}


def _pairwise(first: int, second: int, scores: tuple[int, ...], winner: int | None, forfeit: int | None) -> float:
    """``first``'s points against ``second`` in one match: 1, ½ or 0."""
    if forfeit == first:
        return 0.0
    if forfeit == second:
        return 1.0
    if winner == first:
        return 1.0
    if winner == second:
        return 0.0
    if scores[first] == scores[second]:
        return 0.5
    return 1.0 if scores[first] > scores[second] else 0.0
