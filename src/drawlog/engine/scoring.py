"""Round points and match results.

Draw's are exact, never rounded or divided by five; All Fives' end-of-round
penalties are rounded to the nearest five (:func:`round_to_five`).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .tiles import pip_total

#: ``tuple.__new__``, called on a named tuple class with the fields as one tuple.
_NEW_TUPLE: Final = tuple.__new__


class RoundScore(NamedTuple):
    """What a round gives each seat.

    ``points[seat]`` is the change of the seat's score this round: ``play_points``
    (scored by placing tiles, All Fives only) plus ``end_points`` (settled at the
    round's end from the hands left: what ``round_end.points`` claims).
    ``pips[seat]`` is what the seat has left in hand.
    """

    reason: str | None
    winner: int | None
    points: tuple[int, ...]
    pips: tuple[int, ...]
    end_points: tuple[int, ...] = ()
    play_points: tuple[int, ...] = ()


def score_round(hands: list[int], reason: str | None, winner: int | None) -> RoundScore:
    """Score a round from the hands left.

    * ``domino``: the player who went out (``winner``) scores every opponent's pips,
      an opponent holding only ``[0|0]`` included (it gives 0).
    * ``blocked``: the unique lowest hand total scores the opponents' totals minus
      its own once (3, 8, 10 → 8 + 10 − 3 = 15); a tied lowest total scores nothing.
    * anything else (the round is not over): nobody scores.
    """
    seats = len(hands)
    left = [0] * seats
    total = 0
    lowest = -1
    lowest_seat: int | None = None
    for seat in range(seats):
        pips = pip_total(hands[seat])
        left[seat] = pips
        total += pips
        if lowest < 0 or pips < lowest:
            lowest, lowest_seat = pips, seat
        elif pips == lowest:
            lowest_seat = None  # a tie for the lowest total, so far
    points = [0] * seats
    if reason == "domino" and winner is not None:
        points[winner] = total - left[winner]
    elif reason == "blocked" and lowest_seat is not None:
        winner = lowest_seat
        points[winner] = total - lowest - lowest
    else:
        winner = None
    awarded = tuple(points)
    return _round_score(reason, winner, awarded, tuple(left), awarded, (0,) * seats)


def _round_score(reason: str | None, winner: int | None, points: tuple[int, ...], pips: tuple[int, ...],
                 end_points: tuple[int, ...], play_points: tuple[int, ...]) -> RoundScore:
    """A :class:`RoundScore` made without its generated ``__new__`` (a Python-level call each round)."""
    return _NEW_TUPLE(RoundScore, (reason, winner, points, pips, end_points, play_points))


def round_to_five(pips: int) -> int:
    """``pips`` rounded to the nearest multiple of five: 7 → 5, 8 → 10, 2 → 0, 3 → 5."""
    return (pips + 2) // 5 * 5


def score_fives_round(hands: list[int], reason: str | None, winner: int | None,
                      play_points: list[int]) -> RoundScore:
    """Score an All Fives round: each seat loses its pips left, rounded to five; play points stay.

    ``winner`` is who went out (domino), or whose play reached the match target
    (``target``: nobody loses anything at the end then); a blocked round has
    none. A round that is not over keeps its play points and settles nothing at
    its end.
    """
    pips = tuple(pip_total(hand) for hand in hands)
    over = reason == "domino" or reason == "blocked"
    end = tuple(-round_to_five(left) for left in pips) if over else (0,) * len(hands)
    played = tuple(play_points)
    return _round_score(reason, winner if reason == "domino" or reason == "target" else None,
                        tuple(a + b for a, b in zip(end, played)), pips, end, played)


class MatchResult(NamedTuple):
    """Whether a match is decided after a round, and by whom (``winner`` None and ``drawn`` when tied)."""

    decided: bool
    winner: int | None
    drawn: bool


#: The result of a match not decided yet (one for every such match: a tuple, never changed).
UNDECIDED: Final = MatchResult(False, None, False)


def default_target(players: int) -> int:
    """Draw's standard target: 100 points with 2 players, 61 with 3 or 4."""
    return 100 if players == 2 else 61


def won_by(seat: int) -> MatchResult:
    """The result of a match ``seat`` won outright (All Fives: the first to reach the target)."""
    return _NEW_TUPLE(MatchResult, (True, seat, False))


def match_result(scores: list[int], target: int) -> MatchResult:
    """Check the target once a round is settled; the highest score reaching it wins, a tie draws."""
    best = max(scores)
    if best < target:
        return UNDECIDED
    if scores.count(best) > 1:
        return _NEW_TUPLE(MatchResult, (True, None, True))
    return _NEW_TUPLE(MatchResult, (True, scores.index(best), False))
