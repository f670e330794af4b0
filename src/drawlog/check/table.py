"""An open match of a replay: the engine's state plus what the log format adds (seq, lines, follow-ons).

:class:`~drawlog.check.replay.Replay` keeps one :class:`Table` per match open
(:class:`~drawlog.check.bookkeeping.ReplayBookkeeping`);
the observers (:mod:`drawlog.tables.stats`, :mod:`drawlog.check.extract`) and
the follow-on bookkeeping (:mod:`drawlog.check.follows`) read it.
"""

from __future__ import annotations

from typing import Any, Final

from ..engine.match import Match, seating
from ..engine.profiles import GameRules
from ..engine.rounds import Round

#: What an open match weighs before its id and names (measured: 1,000,000 matches, 50,000 of them open at a time;
#: see :data:`~drawlog.check.bookkeeping.MAX_OPEN_BYTES`).
TABLE_BYTES: Final = 400


class Table:
    """A match being replayed: the engine's state plus what the log format adds (seq, lines)."""

    __slots__ = ("id", "_match", "_rules", "seat_of", "round", "last_seq", "top_seq", "last_line", "errors",
                 "reported", "finished", "observed", "weight", "follow")

    def __init__(self, match_id: str, match: Match | None, line: int) -> None:
        self.id = match_id
        self._match = match
        #: The rules of a match to replay whose :class:`Match` is not built yet (see :meth:`set_up`).
        self._rules: GameRules | None = None
        self.seat_of = match.seat_of if match is not None else {}
        self.round: Round | None = None
        #: The last ``seq`` read, and the highest: either may be followed by the next number.
        self.last_seq = 0
        self.top_seq = 0
        self.last_line = line
        self.errors = 0
        #: Violations of this match reported so far (for ``max_per_match``).
        self.reported = 0
        #: Whether the log's match_end was replayed (the match is counted complete).
        self.finished = False
        #: Whatever the replay's observer keeps for this match; the replay never reads it.
        self.observed: Any = None
        #: About how many bytes the match holds while open (see :data:`MAX_OPEN_BYTES`).
        self.weight = TABLE_BYTES + len(match_id)
        #: What :mod:`drawlog.check.follows` keeps of the match from its first fault on (None until then).
        self.follow: Any = None

    @property
    def match(self) -> Match | None:
        """The match's replayed state (None when it is not replayed), built when first asked for."""
        match = self._match
        if match is None and self._rules is not None:
            match = self._match = Match(list(self.seat_of), rules=self._rules)
            self._rules = None
        return match

    @property
    def replayed(self) -> bool:
        """Whether the match is replayed (it has a :attr:`match`), without building its :class:`Match`."""
        return self._match is not None or self._rules is not None

    def set_up(self, seats: list[str], rules: GameRules) -> None:
        """Replay the match with ``seats`` under ``rules``; its :class:`Match` is built at its first use.

        So a match open without a round yet holds no more than its seating (shared) and rules.
        """
        self._match = None
        self._rules = rules
        self.seat_of = seating(seats)[1]

    def round_number(self) -> int | None:
        """The round in play, or the last one started (None before any)."""
        if self.round is not None:
            return self.round.number
        if self._match is not None and self._match.rounds_started:
            return self._match.rounds_started
        return None

    def upcoming_round(self) -> int | None:
        """The number the replay gives the next round_start (None when the match is not replayed)."""
        if self._match is not None:
            return self._match.rounds_started + 1
        return 1 if self._rules is not None else None



__all__ = ["TABLE_BYTES", "Table"]
