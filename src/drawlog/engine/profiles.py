"""Game profiles: what differs between Draw and All Fives, and a match's house rules.

A :class:`Profile` holds a game's few decisions: the standard deal, the
reserve (stock tiles never drawn), the standard targets, which round class
plays a deal (where the draw, play and pass rules live), and who opens the next
round. Everything else (turns, the line's ends, domino and block, claims) is
shared. A third game is one more profile.

:class:`GameRules` are the settings one match is played under: a profile plus
the hand size, reserve and target, standard or set by the log's ``rules`` and
``target`` (:func:`house_rules` checks them).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ..errors import Fault
from .allfives import FivesRound
from .rounds import DOMINO, TARGET, Round
from .scoring import UNDECIDED, MatchResult, match_result, won_by
from .tiles import TILE_COUNT


class Profile:
    """Draw, the primary game; :class:`AllFivesProfile` changes what differs."""

    def __init__(self, name: str, title: str, reserve: int, hands: tuple[int, int, int],
                 targets: tuple[int, int]) -> None:
        #: The ``variant`` value in ``match_start``.
        self.name = name
        self.title = title
        #: The standard reserve: stock tiles that may never be drawn.
        self.reserve = reserve
        self._hands = hands
        self._targets = targets

    def standard_hand(self, players: int) -> int:
        """Tiles dealt to each player as standard (2, 3 or 4 players)."""
        return self._hands[min(max(players, 2), 4) - 2]

    def standard_target(self, players: int) -> int:
        """The standard target (2 players, or 3–4)."""
        return self._targets[0] if players <= 2 else self._targets[1]

    def new_round(self, names: tuple[str, ...], opener: int, hands: list[int], stock: int,
                  stock_order: list[int] | None, number: int, reserve: int,
                  scores: list[int] | None = None, target: int | None = None) -> Round:
        """The state of a new deal (``scores`` before it and ``target``: All Fives checks it after every play)."""
        return Round(names, opener, hands, stock, stock_order, number, reserve)

    def result_after(self, scores: list[int], target: int, settled: Round) -> MatchResult:
        """The match result once ``settled`` is added to ``scores``. Draw: the highest score reaching the target."""
        return match_result(scores, target)

    def next_opener(self, previous: Round) -> int | None:
        """Who must open the round after ``previous`` (None: any player). Draw: the seat after its opener."""
        return (previous.opener + 1) % len(previous.names)

    def why_opener(self, previous: Round, expected: int) -> str:
        """Why ``expected`` opens the round after ``previous`` (for S104)."""
        return f"the seat clockwise after the previous opener ({previous.names[previous.opener]}) is " \
               f"{previous.names[expected]}"

    def rules_for(self, players: int, hand: int | None = None, reserve: int | None = None,
                  target: int | None = None) -> GameRules:
        """The settings of a match: the standard ones, or those given."""
        return GameRules(self, hand if hand is not None else self.standard_hand(players),
                         reserve if reserve is not None else self.reserve,
                         target if target is not None else self.standard_target(players))


class AllFivesProfile(Profile):
    """All Fives: no reserve, scoring during play, and the first to reach the target wins at once.

    The player who went out opens the next round.
    """

    def new_round(self, names: tuple[str, ...], opener: int, hands: list[int], stock: int,
                  stock_order: list[int] | None, number: int, reserve: int,
                  scores: list[int] | None = None, target: int | None = None) -> Round:
        """The state of a new All Fives deal: the target (with the scores before it) ends it at once."""
        return FivesRound(names, opener, hands, stock, stock_order, number, reserve, scores, target)

    def result_after(self, scores: list[int], target: int, settled: Round) -> MatchResult:
        """Only a play decides an All Fives match (``target``): end-of-round points never reach the target."""
        winner = settled.winner
        return won_by(winner) if settled.reason == TARGET and winner is not None else UNDECIDED

    def next_opener(self, previous: Round) -> int | None:
        """The player who went out; after a blocked (or unfinished) round, any player."""
        return previous.winner if previous.reason == DOMINO else None

    def why_opener(self, previous: Round, expected: int) -> str:
        """Why ``expected`` opens the round after ``previous`` (for S104)."""
        return f"{previous.names[expected]} went out in the previous round and opens this one"


class GameRules(NamedTuple):
    """The settings a match is played under."""

    profile: Profile
    hand: int
    reserve: int
    target: int


DRAW: Final = Profile("draw", "Draw", 2, (7, 7, 6), (100, 61))
ALL_FIVES: Final = AllFivesProfile("all-fives", "All Fives", 0, (9, 7, 5), (250, 200))
#: The profiles by their ``variant`` name.
PROFILES: Final[dict[str, Profile]] = {DRAW.name: DRAW, ALL_FIVES.name: ALL_FIVES}


def differences(rules: GameRules, players: int) -> list[tuple[str, int, int]]:
    """``(setting, value, standard)`` for each of target, hand and reserve that is not the game's standard."""
    standard = rules.profile.rules_for(players)
    return [(setting, value, usual) for setting, value, usual in (
        ("target", rules.target, standard.target), ("hand", rules.hand, standard.hand),
        ("reserve", rules.reserve, standard.reserve)) if value != usual]


def tiles_needed(rules: GameRules, players: int) -> int:
    """The tiles a deal takes: every player's hand and the reserve."""
    return players * rules.hand + rules.reserve


def house_rules(profile: Profile, players: int, hand: int | None, reserve: int | None,
                target: int | None) -> tuple[list[Fault], GameRules | None]:
    """W402 for settings other than the standard (one warning naming each), S101 for a deal that cannot fit.

    Returns the faults and the rules to replay under (None when no deal can fit).
    """
    rules = profile.rules_for(players, hand, reserve, target)
    changed = differences(rules, players)
    faults = []
    if changed:
        faults.append(Fault("W402", f"non-standard {profile.title} rules with {players} players: "
                                    f"{', '.join(f'{what} {value} (standard: {usual})' for what, value, usual in changed)}"))
    needed = tiles_needed(rules, players)
    if needed > TILE_COUNT:
        faults.append(Fault("S101", f"{players} players × {rules.hand} tiles + a reserve of {rules.reserve} "
                                    f"need {needed} tiles; the set has {TILE_COUNT}"))
        return faults, None
    return faults, rules
