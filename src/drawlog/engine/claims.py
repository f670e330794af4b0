"""What a log claims of a round and a match, against the replay, with messages that show the arithmetic.

:class:`~drawlog.engine.match.Match` asks these functions about a
``round_end`` (R302, R303, R304) and a ``match_end`` (R305, R306, and a forfeit's
claims, format v1.2). Each message says what the log claims and how the
replay's number comes about: the opponents' pips of a domino, ``10 − 3 = 7``
of a blocked round, All Fives' rounded pips, the rounds a final score adds up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Protocol

from ..errors import Fault
from .profiles import Profile
from .rounds import Round
from .scoring import MatchResult, RoundScore, round_to_five
from .tiles import labels, tile_id


class Match(Protocol):
    """What these checks read of a :class:`~drawlog.engine.match.Match` (a protocol: that module imports this one)."""

    names: tuple[str, ...]
    seat_of: dict[str, int]
    scores: list[int]
    target: int
    profile: Profile
    result: MatchResult
    round: Round | None
    round_points: list[tuple[int, ...]]

    def outcome_text(self) -> str:
        """The scores so far, for messages."""

#: The names that are not players a claim's message lists one by one (R303, R304, R306); the rest are counted.
STRANGERS_LISTED: Final = 3
#: A final score made of more rounds with points than this is said as a sum of so many rounds, not term by term.
TERMS_SHOWN: Final = 5
#: The minus sign of the arithmetic in messages.
MINUS: Final = "\u2212"


def round_claims(match: Match, score: RoundScore, winner: str | None, points: Mapping[str, int]) -> list[Fault]:
    """R302 and R303: a ``round_end``'s ``winner`` and ``points`` against the round's recomputed score."""
    faults = []
    names = match.names
    expected_winner = names[score.winner] if score.winner is not None else None
    if winner != expected_winner:
        faults.append(Fault("R302", f"claims winner {name_or_null(winner)}; {why_winner(match, score)}"))
    awarded = score.end_points
    if len(points) == len(names):  # the usual claim, a number for each player: right unless one differs
        seat = 0
        while seat < len(names) and points.get(names[seat]) == awarded[seat]:
            seat += 1
        if seat == len(names):
            return faults
    wrong = [
        f"claims {points.get(name, 0)} points for {name}; {explain_points(match, score, seat)}"
        for seat, name in enumerate(names)
        if points.get(name, 0) != awarded[seat]
    ]
    strangers = [name for name in points if name not in match.seat_of]
    wrong += [f"claims {points[name]} points for {name}, who is not a player"
              for name in strangers[:STRANGERS_LISTED]]
    wrong += more_strangers(len(strangers), "points claimed")
    if wrong:
        faults.append(Fault("R303", "; ".join(wrong)))
    return faults


def explain_points(match: Match, score: RoundScore, seat: int) -> str:
    """How the replay comes to ``seat``'s end-of-round points, worked out (for R303).

    Draw: ``ann went out: the opponents' pips 0 + 8 = 8``; ``blocked with totals 3
    and 10: 10 − 3 = 7``. All Fives: ``bob's 27 pips left round to 25: −25``.
    """
    names, pips = match.names, score.pips
    awarded = score.end_points[seat]
    reason, winner = score.reason, score.winner
    if reason == "target" and winner is not None:
        return f"{names[winner]} reached the target ({match.target}): nobody takes end-of-round points, 0"
    if reason != "domino" and reason != "blocked":
        return f"the replay gives {awarded}"
    if match.profile.name != "draw":  # All Fives: every player loses the pips left, rounded to five
        rounded = round_to_five(pips[seat])
        return f"{names[seat]}'s {pips[seat]} pips left round to {rounded}: {signed(-rounded)}"
    totals = _listed([str(total) for total in pips])
    if winner is None:
        return f"blocked with the lowest hand total tied (totals {totals}): nobody scores, 0"
    if winner != seat:
        return f"only the round's winner, {names[winner]}, scores: {names[seat]} gets 0"
    others = [pips[other] for other in range(len(names)) if other != seat]
    if reason == "domino":
        if len(others) == 1:
            return f"{names[seat]} went out: {names[1 - seat]}'s pips, {awarded}"
        return f"{names[seat]} went out: the opponents' pips, {' + '.join(map(str, others))} = {awarded}"
    return f"blocked with totals {totals}: {' + '.join(map(str, others))} {MINUS} {pips[seat]} = {awarded}"


def revealed_claims(match: Match, hands: Mapping[str, Sequence[tuple[int, int]]]) -> list[Fault]:
    """R304: the hands a ``round_end`` reveals against the hands the replay leaves (players left out unchecked)."""
    state = match.round
    assert state is not None
    wrong = []
    strangers = 0
    for name, tiles in hands.items():
        seat = match.seat_of.get(name)
        if seat is None:
            strangers += 1
            if strangers <= STRANGERS_LISTED:
                wrong.append(f"reveals a hand for {name}, who is not a player")
            continue
        revealed = 0
        for halves in tiles:
            revealed |= 1 << tile_id(halves)
        held = state.hands[seat]
        if revealed != held or len(tiles) != revealed.bit_count():
            parts = []
            if held & ~revealed:
                parts.append(f"leaves out {labels(held & ~revealed)}, still held")
            if revealed & ~held:
                parts.append(f"shows {labels(revealed & ~held)}, not held")
            if len(tiles) != revealed.bit_count():
                parts.append("lists a tile twice")
            wrong.append(f"{name}'s revealed hand {' and '.join(parts)}")
    wrong += more_strangers(strangers, "hands revealed")
    return [Fault("R304", "; ".join(wrong))] if wrong else []


def match_claims(match: Match, scores: Mapping[str, int], winner: str | None,
                 forfeit: str | None = None) -> list[Fault]:
    """R305 and R306: a ``match_end``'s claims against the replay; ``forfeit``: the player who forfeits (v1.2).

    A forfeit needs no score at the target (no R305): the winner is the highest
    score among the other players (None when they tie), and the match's
    result becomes that (see :func:`forfeit_result`). A forfeit naming someone
    not playing is an R306 of its own; the winner is then not checked.
    """
    faults = []
    names = match.names
    result = match.result
    if forfeit is None and not result.decided:
        faults.append(Fault("R305", f"match_end before any score reached the target "
                                    f"({match.outcome_text()}; target {match.target})"))
    wrong = [
        f"claims {scores.get(name, 0)} for {name}; the replay gives {_worked_score(match, seat)}"
        for seat, name in enumerate(names)
        if scores.get(name, 0) != match.scores[seat]
    ]
    strangers = [name for name in scores if name not in match.seat_of]
    wrong += [f"claims a score for {name}, who is not a player" for name in strangers[:STRANGERS_LISTED]]
    wrong += more_strangers(len(strangers), "scores claimed")
    stopped = match.round
    if wrong and forfeit is not None and stopped is not None and not stopped.is_over:
        scored = "its plays have scored, but it" if match.profile.name != "draw" else "it"
        wrong.append(f"round {stopped.number} was in progress at the forfeit: {scored} takes no end-of-round points")
    if forfeit is not None:
        seat = match.seat_of.get(forfeit)
        if seat is None:
            wrong.append(f"forfeit names {forfeit}, who is not a player of this match")
        else:
            match.result = result = forfeit_result(match.scores, seat)
            expected = names[result.winner] if result.winner is not None else None
            if winner != expected:
                who = f"{name_or_null(winner)}, who forfeits" if winner == forfeit else name_or_null(winner)
                why = (f"{expected} has the highest score of the players left" if expected is not None
                       else "the highest scores of the players left are tied: no winner")
                wrong.append(f"claims winner {who}; after {forfeit}'s forfeit {why} ({match.outcome_text()})")
    elif result.decided:
        expected = names[result.winner] if result.winner is not None else None
        if winner != expected:
            why = f"{expected} won" if expected is not None else "the highest scores are tied: a drawn match"
            wrong.append(f"claims winner {name_or_null(winner)}; {why} ({match.outcome_text()})")
    if wrong:
        faults.append(Fault("R306", "; ".join(wrong)))
    return faults


def forfeit_result(scores: Sequence[int], seat: int) -> MatchResult:
    """The result of a match ``seat`` forfeits: the highest score of the others wins; a tie has no winner.

    The match is decided, and not drawn (nobody shares a win).
    """
    others = [score for other, score in enumerate(scores) if other != seat]
    best = max(others)
    winner = None
    if others.count(best) == 1:
        winner = next(other for other, score in enumerate(scores) if other != seat and score == best)
    return MatchResult(True, winner, False)


def _worked_score(match: Match, seat: int) -> str:
    """A replayed final score and the rounds' points it adds up: ``61 = 15 + 46 (rounds 2 and 4)``."""
    total = signed(match.scores[seat])
    terms = [(number, points[seat]) for number, points in enumerate(match.round_points, 1) if points[seat]]
    if not terms:
        return f"{total}" if not match.round_points else f"{total} (no points in {_rounds(len(match.round_points))})"
    if len(terms) == 1:
        return f"{total} (round {terms[0][0]})"
    if len(terms) > TERMS_SHOWN:
        return f"{total}, the sum of {len(terms)} rounds' points"
    worked = signed(terms[0][1])
    for _, points in terms[1:]:
        worked += f" + {points}" if points >= 0 else f" {MINUS} {-points}"
    return f"{total} = {worked} (rounds {_listed([str(number) for number, _ in terms])})"


def _rounds(count: int) -> str:
    return "1 round" if count == 1 else f"{count} rounds"


def _listed(items: list[str]) -> str:
    """``3``, ``3 and 10``, ``3, 8 and 10``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def signed(points: int) -> str:
    """A number of points with a true minus sign: ``−25``, ``0``, ``10``."""
    return f"{MINUS}{-points}" if points < 0 else str(points)


def more_strangers(count: int, what: str) -> list[str]:
    """After the first :data:`STRANGERS_LISTED` names that are not players, the rest counted in one part."""
    more = count - STRANGERS_LISTED
    return [f"{more:,} more {what} for names that are not players"] if more > 0 else []


def name_or_null(name: str | None) -> str:
    """A claimed name, or ``null``."""
    return name if name is not None else "null"


def why_winner(match: Match, score: RoundScore) -> str:
    """Why the round's winner is who the replay says (for R302)."""
    if score.reason == "domino":
        return f"{match.names[score.winner]} went out"  # type: ignore[index]
    if score.reason == "target":
        return f"{match.names[score.winner]} reached the target ({match.target})"  # type: ignore[index]
    if score.reason == "blocked" and match.profile.name != "draw":
        return f"a blocked round of {match.profile.title} has no winner"
    totals = ", ".join(f"{name} {pips}" for name, pips in zip(match.names, score.pips))
    if score.winner is None:
        return f"the lowest hand total is tied ({totals}): no winner"
    return f"{match.names[score.winner]} has the lowest hand total ({totals})"


__all__ = ["explain_points", "forfeit_result", "match_claims", "revealed_claims", "round_claims"]
