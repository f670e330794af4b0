"""Round points and match results: exact, never rounded or divided by five."""

from __future__ import annotations

from typing import NamedTuple

from .tiles import pip_total


class RoundScore(NamedTuple):
    """What a finished round gives: ``points[seat]`` awarded and ``pips[seat]`` left in hand."""

    reason: str | None
    winner: int | None
    points: tuple[int, ...]
    pips: tuple[int, ...]


def score_round(hands: list[int], reason: str | None, winner: int | None) -> RoundScore:
    """Score a round from the hands left.

    * ``domino``: the player who went out (``winner``) scores every opponent's pips,
      an opponent holding only ``[0|0]`` included (it gives 0).
    * ``blocked``: the unique lowest hand total scores the opponents' totals minus
      its own once (3, 8, 10 → 8 + 10 − 3 = 15); a tied lowest total scores nothing.
    * anything else (the round is not over): nobody scores.
    """
    pips = tuple(pip_total(hand) for hand in hands)
    points = [0] * len(hands)
    if reason == "domino" and winner is not None:
        points[winner] = sum(pips) - pips[winner]
    elif reason == "blocked":
        lowest = min(pips)
        if pips.count(lowest) == 1:
            winner = pips.index(lowest)
            points[winner] = sum(pips) - lowest - lowest
        else:
            winner = None
    else:
        winner = None
    return RoundScore(reason, winner, tuple(points), pips)


class MatchResult(NamedTuple):
    """Whether a match is decided after a round, and by whom (``winner`` None and ``drawn`` when tied)."""

    decided: bool
    winner: int | None
    drawn: bool


def default_target(players: int) -> int:
    """The standard target: 100 points with 2 players, 61 with 3 or 4."""
    return 100 if players == 2 else 61


def match_result(scores: list[int], target: int) -> MatchResult:
    """Check the target once a round is settled; the highest score reaching it wins, a tie draws."""
    best = max(scores)
    if best < target:
        return MatchResult(False, None, False)
    if scores.count(best) > 1:
        return MatchResult(True, None, True)
    return MatchResult(True, scores.index(best), False)
