"""What a replay tells an observer as it goes: the :class:`Observer` hooks.

:class:`~drawlog.check.replay.Replay` calls them for every match, round and
move it replays; ``drawlog stats`` (:mod:`drawlog.tables.stats`), ``fix``,
``extract`` and the walkthrough subclass it.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ..engine.rounds import Round
from ..errors import Fault
from ..log.events import Draw, MatchEnd, MatchStart, Pass, Play, RoundEnd, RoundStart
from .table import Table


@mypyc_attr(allow_interpreted_subclasses=True)
class Observer:
    """What a replay tells an observer as it goes (``drawlog.stats`` builds its tables from it).

    Subclass it and override the hooks wanted; here they do nothing. Each hook
    gets the match's :class:`Table` and the line of the event; ``claim`` is the
    log's ``round_end`` / ``match_end``, or ``None`` when the log left it out.
    """

    def match_started(self, table: Table, event: MatchStart, line: int) -> None:
        """A match began (also a match that is not replayed: ``table.match`` is None)."""

    def round_started(self, table: Table, event: RoundStart, line: int) -> None:
        """A deal was replayed; ``table.round`` is the new round."""

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        """A move was replayed (applied unless a fault says it is impossible)."""

    def round_settled(self, table: Table, state: Round, claim: RoundEnd | None, line: int) -> None:
        """A round's points were added to the match's scores."""

    def match_ended(self, table: Table, claim: MatchEnd | None, line: int) -> None:
        """A match ended, or the input ended inside it (``claim`` None)."""
