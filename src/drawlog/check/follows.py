"""One fault, one error: follow-ons, what a replay keeps to tell them from roots.

A *root* violation is the first a fault gives; a *follow-on* is one that would
not be there but for it (its ``follows`` is the root's line). The replay
(:mod:`drawlog.check.replay`) marks them with what a match's :class:`Follow`
keeps, made at the match's first fault (a clean match has none):

* a round with a root (``root``, ``root_round``) reports its later move faults
  as follow-ons of it until every player has moved clean :data:`STEADY` times
  in a row (the replay is in step again: a later fault is a root of its own);
  its ``round_end`` claims (R301–R304) follow it in any case, and so does the
  next deal's opener (S104), which that round chose;
* ``match_end`` scores (R306) follow the match's first root when they agree
  with what the log itself claimed (:func:`scores_explained`: the replay's
  totals plus every difference found at a faulty claim); a claim wrong in a way
  those cannot explain is a root of its own.

How a fault is read so that the replay stays in step is :mod:`drawlog.check.readings`.
Nothing here runs on a clean log: only a fault reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..engine.rounds import Round
from ..errors import Fault

if TYPE_CHECKING:
    from .replay import Table

#: After a root, a round is back in step once this many moves a player replayed clean in a row: a move's fault
#: after that is a root of its own (a second, independent fault), not a follow-on. Its claims still follow.
STEADY = 2
#: What a play read into an All Fives log (a move missing) may have scored otherwise: the final scores may differ
#: by a multiple of five up to this much for its player (its points were never claimed).
UNSURE_POINTS = 60
#: The reason of a round ended by a play that reaches the target (All Fives, format v1.2).
TARGET = "target"


class Follow:
    """What a match keeps for its follow-ons, made at its first fault (a clean match has none: no cost)."""

    __slots__ = ("held", "root", "root_round", "match_root", "claim_diff", "unsure", "clean", "lost", "read_round",
                 "readings", "_seats")

    def __init__(self, seats: int) -> None:
        #: A move out of turn and the moves after it, held until a reading is chosen (None: nothing held).
        self.held: Any = None  # (a readings.Held)
        #: The line of the root of the round ``root_round`` (0: none): that round's later faults follow it.
        self.root = 0
        self.root_round = 0
        #: The line of the match's first root (0: none).
        self.match_root = 0
        #: How much more the log claimed than the replay gave, per seat, at faulty claims (None: no difference).
        self.claim_diff: list[int] | None = None
        #: The seats whose score a play read into the log (a move missing, All Fives) makes unsure, as bits.
        self.unsure = 0
        #: Moves replayed clean since the last fault of the round ``root_round`` (see :data:`STEADY`).
        self.clean = 0
        #: The line of a move that could not be read, until the next fault of its round is read with it (0: none).
        self.lost = 0
        #: How many moves out of turn of the round ``read_round`` were held for a reading.
        self.read_round = 0
        self.readings = 0
        self._seats = seats

    def diff(self) -> list[int]:
        """``claim_diff``, made when first needed."""
        if self.claim_diff is None:
            self.claim_diff = [0] * self._seats
        return self.claim_diff


def follow_of(table: Table) -> Follow:
    """The match's :class:`Follow`, made when first needed."""
    follow: Follow | None = table.follow
    if follow is None:
        follow = table.follow = Follow(len(table.seat_of))
    return follow


def round_follows(table: Table, number: int) -> int | None:
    """The root a fault of round ``number`` follows (None: the fault is a root)."""
    follow: Follow | None = table.follow
    return follow.root if follow is not None and follow.root and follow.root_round == number else None


def clean_move(follow: Follow, number: int) -> None:
    """A move replayed clean: one more toward being back in step after a root of its round."""
    if follow.root_round == number:
        follow.clean += 1


def current_root(table: Table, state: Round) -> int | None:
    """The root a fault found now in ``state``'s round follows: None when there is none, or when the replay has
    been in step again since (every player moved clean :data:`STEADY` times): then the fault is a root."""
    follow: Follow | None = table.follow
    follows = round_follows(table, state.number)
    if follows is not None and follow is not None and follow.clean >= STEADY * len(state.names) \
            and state.reason is None:
        return None  # (a move after the round ended in the replay, M209, still follows: only a replay out of
        # step ends a round the log goes on with)
    return follows


def score_follows(table: Table, state: Round, claimed: str | None = None) -> int | None:
    """The match's first root, when the replay's scores differ from the log's (a reported fault made them differ)
    and the round ends at the target (All Fives v1.2: in the replay, or ``claimed`` by the log): then where the
    round ends follows from those scores, not from a fault of the round."""
    follow: Follow | None = table.follow
    if follow is None or follow.claim_diff is None or not follow.match_root:
        return None
    return follow.match_root if state.reason == TARGET or claimed == TARGET else None


def move_follows(table: Table, state: Round, faults: tuple[Fault, ...], line: int) -> int | None:
    """The root a move's faults follow (None: they are a root, and a move fault makes its line the round's)."""
    follow = follow_of(table)
    follows = current_root(table, state) or score_follows(table, state)
    if follows is None and follow.lost:  # the first fault after a line lost follows it, however much later
        follows, follow.lost = follow.lost, 0
    if follows is None and any(fault.code[0] == "M" for fault in faults):
        taint(table, line, True)
    follow.clean = 0
    return follows


def taint(table: Table, line: int, again: bool = False) -> None:
    """Make ``line`` the root of the round in play, unless it has one (``again``: even then): the round's later
    faults follow it."""
    follow = follow_of(table)
    state = table.round
    number = state.number if state is not None else 0
    follow.clean = 0
    if follow.root_round != number or not follow.root or again:
        follow.root, follow.root_round = line, number
        if not follow.match_root:
            follow.match_root = line


def deal_follows(table: Table, previous: int, code: str) -> int | None:
    """The root a fault of a ``round_start`` follows: a wrong opener (S104) the previous round's, whose end
    chose the opener; a round after the match was decided (R305) the match's, when scores differed."""
    follow: Follow | None = table.follow
    if follow is None:
        return None
    if code == "S104" and follow.root and follow.root_round == previous:
        return follow.root
    if code == "R305" and follow.claim_diff is not None and follow.match_root:
        return follow.match_root
    return None


def end_follows(table: Table, code: str, scores: Mapping[str, int], winner: str | None) -> int | None:
    """The root a ``match_end`` fault follows: R306 when the log agrees with itself, R305 when scores differed."""
    follow: Follow | None = table.follow
    if follow is None or not follow.match_root:
        return None
    if code == "R305" and follow.claim_diff is not None or code == "R306" and scores_explained(table, scores, winner):
        return follow.match_root
    return None


def scores_explained(table: Table, scores: Mapping[str, int], winner: str | None) -> bool:
    """Whether a ``match_end``'s claimed scores are the replay's plus the differences found at faulty claims.

    Then the log agrees with itself, and its scores differ only where an
    earlier fault (reported) made the replay differ: R306 follows from it.
    """
    match = table.match
    follow: Follow | None = table.follow
    diff = follow.claim_diff if follow is not None else None
    if match is None or diff is None or follow is None:
        return False
    names = match.names
    claimed = [scores.get(name, 0) for name in names]
    for seat in range(len(names)):
        off = claimed[seat] - match.scores[seat] - diff[seat]
        if off and not (follow.unsure >> seat & 1 and off % 5 == 0 and abs(off) <= UNSURE_POINTS):
            return False
    if any(name not in table.seat_of for name in scores):
        return False
    top = max(claimed)
    leaders = [name for name, value in zip(names, claimed) if value == top]
    return winner == (leaders[0] if len(leaders) == 1 else None)


def note_claim(table: Table, seat: int, difference: int) -> None:
    """Note that the log claims ``difference`` points more for ``seat`` than the replay gives (a faulty claim)."""
    if difference:
        follow_of(table).diff()[seat] += difference


def note_round_claims(table: Table, state: Round, points: Mapping[str, int]) -> None:
    """After a faulty ``round_end``: note how its claimed points differ from the replay's."""
    result = state.score()
    end_points = result.end_points if result.end_points else result.points
    for seat, name in enumerate(state.names):
        replayed = end_points[seat] if seat < len(end_points) else 0
        note_claim(table, seat, points.get(name, 0) - replayed)


__all__ = ["STEADY", "UNSURE_POINTS", "Follow", "clean_move", "current_root", "deal_follows", "end_follows",
           "follow_of", "move_follows", "score_follows", "note_claim", "note_round_claims", "round_follows",
           "scores_explained", "taint"]
