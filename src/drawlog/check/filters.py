"""What ``drawlog filter`` keeps: its conditions (:class:`Criteria`), how their values are read, and the
account of every line read (:class:`Account`).

Each condition is named as its option is (``--valid``, ``--code``, …); :meth:`Criteria.dropped_by`
gives the first one a match fails, in the order of :data:`ORDER`, so every match dropped is
counted under one condition. ``--dedupe`` comes last: it needs the matches' contents, so
:mod:`drawlog.check.extract` applies it while copying.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone

from ..log.ids import bounded_ids
from .rules import select_codes

#: The conditions in the order they are tried; a match dropped is counted under the first it fails.
ORDER = ("--valid", "--invalid", "--player", "--match", "--tournament", "--code", "--variant", "--winner",
         "--claimed-winner", "--rounds", "no ts", "--since", "--until", "--forfeit", "--no-forfeit", "--dedupe")

#: The bound of ``--until 9999-12-31`` (the end of that day, which ``datetime`` cannot hold): nothing is after it.
END_OF_TIME = datetime.max.replace(tzinfo=timezone.utc)


@dataclass
class MatchFacts:
    """What ``filter`` learns of one match in its first pass (see :class:`~drawlog.check.extract.MatchInfo`)."""

    variant: str = "draw"
    #: The winner the replay gives (None: drawn, unfinished, or not replayed).
    winner: str | None = None
    #: The winner the log's match_end claims (None: drawn, or no match_end).
    claimed_winner: str | None = None
    #: Rounds started in the replay.
    rounds: int = 0
    #: Whether the match ended with a ``match_end`` carrying ``forfeit``.
    forfeit: bool = False
    #: The match_start's ``ts``, else the first ``ts`` of the match (None: no line of it has one).
    ts: datetime | None = None
    #: The codes of the violations found in the match (only gathered when ``--code`` is given).
    codes: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Criteria:
    """What ``filter`` keeps: every given condition must hold (each set: any of its values)."""

    valid: bool | None = None
    players: frozenset[str] = frozenset()
    matches: frozenset[str] = frozenset()
    tournaments: frozenset[str] = frozenset()
    #: Keep a match with a violation of one of these codes (empty: no condition).
    codes: frozenset[str] = frozenset()
    variant: str | None = None
    winners: frozenset[str] = frozenset()
    claimed_winners: frozenset[str] = frozenset()
    #: Rounds played, at least and at most (None: no bound).
    rounds: tuple[int | None, int | None] = (None, None)
    forfeit: bool | None = None
    #: Keep matches whose time is at or after ``since`` and before ``until`` (both aware).
    since: datetime | None = None
    until: datetime | None = None
    #: Keep only the first of matches alike (see :mod:`drawlog.check.extract`).
    dedupe: bool = False

    def __post_init__(self) -> None:
        # Matches, players and tournaments are held as bounded keys (drawlog.log.ids): a long one given is compared
        # as one.
        object.__setattr__(self, "players", frozenset(bounded_ids(list(self.players))))
        object.__setattr__(self, "matches", frozenset(bounded_ids(list(self.matches))))
        object.__setattr__(self, "tournaments", frozenset(bounded_ids(list(self.tournaments))))

    def dropped_by(self, facts: MatchFacts, valid: bool, match_id: str, players: list[str],
                   tournament: str | None) -> str | None:
        """The first condition (as its option is named; ``no ts`` for a match without one under --since/--until)
        the match fails, or None when it meets every one (``--dedupe`` is left to the copying)."""
        if self.valid is not None and valid != self.valid:
            return "--valid" if self.valid else "--invalid"
        if self.players and self.players.isdisjoint(players):
            return "--player"
        if self.matches and match_id not in self.matches:
            return "--match"
        if self.tournaments and tournament not in self.tournaments:
            return "--tournament"
        if self.codes and self.codes.isdisjoint(facts.codes):
            return "--code"
        if self.variant is not None and facts.variant != self.variant:
            return "--variant"
        if self.winners and facts.winner not in self.winners:
            return "--winner"
        if self.claimed_winners and facts.claimed_winner not in self.claimed_winners:
            return "--claimed-winner"
        low, high = self.rounds
        if (low is not None and facts.rounds < low) or (high is not None and facts.rounds > high):
            return "--rounds"
        if self.since is not None or self.until is not None:
            if facts.ts is None:
                return "no ts"
            if self.since is not None and facts.ts < self.since:
                return "--since"
            if self.until is not None and facts.ts >= self.until and self.until is not END_OF_TIME:
                return "--until"
        if self.forfeit is not None and facts.forfeit != self.forfeit:
            return "--forfeit" if self.forfeit else "--no-forfeit"
        return None


def parse_codes(values: list[str]) -> frozenset[str]:
    """The codes named by ``--code`` values, read as ``validate --select`` reads them (codes or prefixes, comma
    separated, ``ALL``); ``ValueError`` for an unknown prefix or for values that name nothing."""
    if not any(part.strip() for value in values for part in value.split(",")):
        raise ValueError("names no code (give a code or a prefix, such as R306 or M2)")
    return select_codes(values, None)


_ROUNDS = re.compile(r"^\s*(\d+)?\s*(\.\.)?\s*(\d+)?\s*$")


def parse_rounds(text: str) -> tuple[int | None, int | None]:
    """``N`` (exactly), ``MIN..MAX``, ``MIN..`` or ``..MAX`` (both ends included); ``ValueError`` otherwise."""
    found = _ROUNDS.match(text)
    if not found or not (found.group(1) or found.group(3)) or (found.group(2) is None and found.group(3)):
        raise ValueError(f"{text!r} is not N, MIN..MAX, MIN.. or ..MAX")
    low = int(found.group(1)) if found.group(1) else None
    high = int(found.group(3)) if found.group(3) else None
    if found.group(2) is None:
        high = low
    if low is not None and high is not None and low > high:
        raise ValueError(f"{text!r}: {low} is more than {high}")
    return low, high


def parse_when(text: str, *, end: bool) -> datetime:
    """An RFC 3339 date (``2026-05-01``) or date-time (``2026-05-01T12:00:00Z``, an offset, or none: UTC) as an
    aware datetime. A date starts at its midnight UTC; with ``end`` (``--until``) it means the whole day, so
    its bound is the next midnight. ``ValueError`` otherwise."""
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            if end and day == date.max:  # its next midnight is past the calendar: every time is before it
                return END_OF_TIME
            return datetime.combine(day + timedelta(days=1 if end else 0), time(), tzinfo=timezone.utc)
        when = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise ValueError(f"{text!r} is not an RFC 3339 date (2026-05-01) or date-time (2026-05-01T12:00:00Z)") \
            from None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


@dataclass
class Account:
    """Every line read, each counted once: in a match kept, in a match dropped (by the first condition it
    failed), in no match (before its id's start, after its end: F004, or of no started id), blank, or
    invalid (not a JSON object, or too long to read)."""

    lines: int = 0
    kept_matches: int = 0
    kept_lines: int = 0
    #: Condition → [matches, lines], in :data:`ORDER`.
    dropped: dict[str, list[int]] = field(default_factory=dict)
    outside: int = 0
    blank: int = 0
    invalid: int = 0

    def drop(self, reason: str, lines: int) -> None:
        """Count a match dropped by ``reason`` with its lines."""
        counts = self.dropped.setdefault(reason, [0, 0])
        counts[0] += 1
        counts[1] += lines

    def matches(self) -> int:
        """Every match counted, kept or dropped (as ``validate`` counts them)."""
        return self.kept_matches + sum(count for count, _ in self.dropped.values())

    def total(self) -> int:
        """The lines counted in every way; equal to :attr:`lines`."""
        return (self.kept_lines + sum(lines for _, lines in self.dropped.values()) + self.outside + self.blank
                + self.invalid)

    def as_dict(self) -> dict[str, object]:
        """The account as JSON would hold it."""
        return {"lines": self.lines, "matches": self.matches(),
                "kept": {"matches": self.kept_matches, "lines": self.kept_lines},
                "dropped": {reason: {"matches": self.dropped[reason][0], "lines": self.dropped[reason][1]}
                            for reason in ORDER if reason in self.dropped},
                "outside": self.outside, "blank": self.blank, "invalid": self.invalid}
