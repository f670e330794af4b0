"""One fault, one error: follow-ons, and the readings that keep a replay in step after a fault.

A *root* violation is the first a fault gives; a *follow-on* is one that would
not be there but for it (its ``follows`` is the root's line). The replay
(:mod:`drawlog.check.replay`) marks them with what :class:`Table` keeps here:

* a round with a root (``root``, ``root_round``) reports its later faults and
  its ``round_end`` claims (R301–R304) as follow-ons of it; the next deal's
  opener (S104) too;
* ``match_end`` scores (R306) follow the match's first root when they agree
  with what the log itself claimed (:func:`scores_explained`: the replay's
  totals plus every difference found at a faulty claim); a claim wrong in a way
  those cannot explain is a root of its own.

When a move comes out of turn, the replay does not apply it at once: it holds
it and the rest of the round (:class:`Held`, until the ``round_end`` or
:data:`MAX_HELD` moves) and picks the reading of the fault under which the
round replays with the fewest faults (:func:`resolve`):

* **plain**: the move was made out of turn; it is applied, and the player
  whose turn it was may still move next;
* **missing**: the player after the one to move acts: a move of the one to
  move seems to be missing before this line (a line deleted, or one that could
  not be read), taken as the legal move that lets the rest through;
* **swapped**: the next move is by the player to move: the two lines seem to
  be in the wrong order.

Nothing here runs on a clean log: only a fault reaches it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tiles import label, tile_id
from ..log.events import RoundEnd

if TYPE_CHECKING:
    from .replay import Replay, Table

#: The most moves held for a reading: a round longer than that is read on what was held.
MAX_HELD = 200
#: A match id in a line that could not be decoded (F001), to know whose move it was.
MATCH_ID = re.compile(rb'"match"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
#: After a root, a round is back in step once this many moves a player replayed clean in a row: a move's fault
#: after that is a root of its own (a second, independent fault), not a follow-on. Its claims still follow.
STEADY = 2
#: What a play read into an All Fives log (a move missing) may have scored otherwise: the final scores may differ
#: by a multiple of five up to this much for its player (its points were never claimed).
UNSURE_POINTS = 60
PLAIN, MISSING, SWAPPED = "plain", "missing", "swapped"
#: The readings in the order a tie is settled: the one that explains more first (two lines swapped explain the
#: move out of turn and the turn after it; a move missing, the turn skipped).
RANK = {SWAPPED: 0, MISSING: 1, PLAIN: 2}


class Held:
    """A move out of turn, and the moves of its round after it, not replayed yet (their order kept)."""

    __slots__ = ("events", "lost")

    def __init__(self, lost: int) -> None:
        #: ``(event, line, kind)`` per move held, the one out of turn first.
        self.events: list[tuple[Any, int, int]] = []
        #: The line of a move that could not be read just before (0: none): the reading is a follow-on of it.
        self.lost = lost


class Reading(NamedTuple):
    """A way to read a held move out of turn: its kind, a move put before it, the order to replay the moves in."""

    kind: str
    #: A missing move: ``("play", halves, end)`` or ``("pass",)`` by the player whose turn it was; else None.
    missing: tuple[Any, ...] | None
    order: tuple[int, ...]


def match_of_line(raw: bytes) -> str | None:
    """The match id a line that could not be decoded seems to name (None when none is found)."""
    found = MATCH_ID.search(raw)
    if found is None:
        return None
    try:
        text = found.group(1).decode("utf-8")
        return str(json.loads(f'"{text}"'))
    except (UnicodeDecodeError, ValueError):
        return None


def _verb(kind: int) -> str:
    return ("draws", "plays", "passes")[kind]


def readings(state: Round, seat: int, events: list[tuple[Any, int, int]], seat_of: Mapping[str, int]) -> list[Reading]:
    """The readings of a held move out of turn by ``seat`` (the first of ``events``), plain first."""
    identity = tuple(range(len(events)))
    found = [Reading(PLAIN, None, identity)]
    turn = state.turn
    players = len(state.hands)
    if seat == (turn + 1) % players and state.reason is None:
        plays = state.legal_plays(turn)
        if state.line.is_empty:
            plays += [((b, a), end) for (a, b), end in plays if a != b]
        found += [Reading(MISSING, ("play", halves, end), identity) for halves, end in plays]
        if not plays and state.can_pass(turn):
            found.append(Reading(MISSING, ("pass",), identity))
    if len(events) > 1 and seat_of.get(events[1][0].player) == turn:
        found.append(Reading(SWAPPED, None, (1, 0, *identity[2:])))
    return found


def _apply_missing(state: Round, seat: int, missing: tuple[Any, ...]) -> None:
    if missing[0] == "play":
        state.try_play(seat, missing[1], missing[2])
    else:
        state.try_pass(seat)


def score(state: Round, reading: Reading, events: list[tuple[Any, int, int]], seat_of: Mapping[str, int],
          claim: RoundEnd | None) -> int:
    """How many faults the held moves give under ``reading``, the round's claim included (on a copy)."""
    twin = state.copy()
    alt = state.turn if reading.kind == PLAIN else -1
    faults = 0
    if reading.missing is not None:
        _apply_missing(twin, state.turn, reading.missing)
    for index in reading.order:
        event, _, kind = events[index]
        seat = seat_of.get(event.player)
        if seat is None:
            faults += 1
            continue
        if seat == twin.turn:
            alt = -1
        elif seat == alt:
            twin.turn, alt = seat, -1
        if kind == 1:
            found = twin.try_play(seat, tuple(event.tile), event.end)
            if event.points is not None and not any(fault.impossible for fault in found) \
                    and twin.check_points(event.points) is not None:
                faults += 1
        elif kind == 0:
            found = twin.try_draw(seat, tuple(event.tile))
        else:
            found = twin.try_pass(seat)
        faults += len(found) + sum(fault.impossible for fault in found)
    if claim is not None:
        faults += _claim_faults(twin, claim, seat_of)
    return faults + (reading.kind != PLAIN)


def _claim_faults(state: Round, claim: RoundEnd, seat_of: Mapping[str, int]) -> int:
    """R301–R303 a ``round_end`` would give against ``state``, counted (R301 not over counts 2)."""
    if not state.is_over:
        return 2
    result = state.score()
    names = state.names
    faults = int(claim.reason != state.reason)
    faults += claim.winner != (names[result.winner] if result.winner is not None else None)
    faults += any(claim.points.get(name, 0) != points for name, points in zip(names, result.end_points))
    return faults


def resolve(replay: Replay, table: Table, claim: RoundEnd | None) -> None:
    """Pick the reading of the held move out of turn that replays best, report it and replay the held moves."""
    held: Held = table.held
    table.held = None
    state = table.round
    events = held.events
    if state is None:  # (not reached: a round is open while moves are held)
        return
    table.read_round = state.number
    first, line, kind = events[0]
    seat = table.seat_of[first.player]
    turn = state.turn
    options = readings(state, seat, events, table.seat_of)
    scores = [score(state, reading, events, table.seat_of, claim) for reading in options]
    chosen = min(zip(scores, [RANK[reading.kind] for reading in options], range(len(options))))
    best = options[chosen[2]]
    alt = turn if best.kind == PLAIN else -1
    if best.kind != PLAIN:
        names = state.names
        if best.kind == MISSING:
            missing = best.missing
            assert missing is not None
            what = f"playing {label(tile_id(missing[1]))}" if missing[0] == "play" else "passing"
            lost = f"line {held.lost}, which could not be read, is read as" if held.lost else \
                "taken as"
            why = f"a move of {names[turn]} seems to be missing before this line ({lost} {names[turn]} {what})"
            _apply_missing(state, turn, missing)
            _unsure(table, state, turn)
        else:
            why = f"lines {line} and {events[1][1]} seem to be swapped (read as {names[turn]}'s move first)"
        message = f"{first.player} {_verb(kind)} out of turn: it is {names[turn]}'s turn; {why}"
        replay.report_root(table, "M201", message, line, first.player, held.lost)
    elif held.lost:
        taint(table, held.lost)
    for index in best.order:
        event, at, action = events[index]
        if alt >= 0 and table.round is state:
            mover = table.seat_of.get(event.player)
            if mover == state.turn:
                alt = -1
            elif mover == alt and index != 0:
                state.turn, alt = alt, -1
        replay.apply_move(table, event, at, action)


def hold(replay: Replay, table: Table, event: Any, line: int, kind: int) -> None:
    """Hold one more move of a round with a move out of turn held (read at once past :data:`MAX_HELD`)."""
    held: Held = table.held
    held.events.append((event, line, kind))
    if len(held.events) >= MAX_HELD:
        resolve(replay, table, None)


def taint(table: Table, line: int, again: bool = False) -> None:
    """Make ``line`` the root of the round in play, unless it has one (``again``: even then): the round's later
    faults follow it."""
    state = table.round
    number = state.number if state is not None else 0
    table.clean = 0
    if table.root_round != number or not table.root or again:
        table.root, table.root_round = line, number
        if not table.match_root:
            table.match_root = line


def lost_line(replay: Replay, table: Table, line: int) -> None:
    """A move line of ``table``'s match could not be read (F001, F002): it is the root of its round.

    A move out of turn after it is read with it, as a follow-on (:func:`resolve`).
    """
    if table.held is not None:
        resolve(replay, table, None)
    state = table.round
    if state is not None and state.reason is None:
        taint(table, line)
        replay.lost[table.id] = line


def deal_follows(table: Table, previous: int, code: str) -> int | None:
    """The root a fault of a ``round_start`` follows: a wrong opener (S104) the previous round's, whose end
    chose the opener; a round after the match was decided (R305) the match's, when scores differed."""
    if code == "S104" and table.root and table.root_round == previous:
        return table.root
    if code == "R305" and table.claim_diff is not None and table.match_root:
        return table.match_root
    return None


def end_follows(table: Table, code: str, scores: Mapping[str, int], winner: str | None) -> int | None:
    """The root a ``match_end`` fault follows: R306 when the log agrees with itself, R305 when scores differed."""
    if not table.match_root:
        return None
    if code == "R305" and table.claim_diff is not None or code == "R306" and scores_explained(table, scores, winner):
        return table.match_root
    return None


def read_round_end(replay: Replay, table: Table, state: Round, claim: RoundEnd, line: int) -> None:
    """A ``round_end`` claiming a domino by a player left with one tile: their last play seems to be missing.

    When that tile fits, it is played (the round is over, as the log says) and
    the reading is reported as the R301 the claim would have given, so the
    round's points and the match's scores are the log's again.
    """
    if state.is_over or claim.reason != "domino" or claim.winner is None:
        return
    seat = table.seat_of.get(claim.winner)
    if seat is None or state.hands[seat].bit_count() != 1:
        return
    turn = state.turn
    state.turn = seat
    plays = state.legal_plays(seat)
    if not plays:
        state.turn = turn
        return
    halves, end = plays[0]
    state.try_play(seat, halves, end)
    _unsure(table, state, seat)
    replay.report_root(table, "R301", f"round_end while the round is not over: {claim.winner} still holds "
                                      f"{label(tile_id(halves))}, which fits; a play of it seems to be missing "
                                      f"before this line (taken as played)", line, None)


def _unsure(table: Table, state: Round, seat: int) -> None:
    """A play read into the log scored what the log never claimed (All Fives): ``seat``'s score is unsure."""
    if isinstance(state, FivesRound):
        if table.claim_diff is None:
            table.claim_diff = [0] * len(table.seat_of)
        table.unsure |= 1 << seat


def scores_explained(table: Table, scores: Mapping[str, int], winner: str | None) -> bool:
    """Whether a ``match_end``'s claimed scores are the replay's plus the differences found at faulty claims.

    Then the log agrees with itself, and its scores differ only where an
    earlier fault (reported) made the replay differ: R306 follows from it.
    """
    match = table.match
    diff = table.claim_diff
    if match is None or diff is None:
        return False
    names = match.names
    claimed = [scores.get(name, 0) for name in names]
    for seat in range(len(names)):
        off = claimed[seat] - match.scores[seat] - diff[seat]
        if off and not (table.unsure >> seat & 1 and off % 5 == 0 and abs(off) <= UNSURE_POINTS):
            return False
    if any(name not in table.seat_of for name in scores):
        return False
    top = max(claimed)
    leaders = [name for name, value in zip(names, claimed) if value == top]
    return winner == (leaders[0] if len(leaders) == 1 else None)


def note_claim(table: Table, seat: int, difference: int) -> None:
    """Note that the log claims ``difference`` points more for ``seat`` than the replay gives (a faulty claim)."""
    if difference:
        diff = table.claim_diff
        if diff is None:
            diff = table.claim_diff = [0] * len(table.seat_of)
        diff[seat] += difference


def note_round_claims(table: Table, state: Round, points: Mapping[str, int]) -> None:
    """After a faulty ``round_end``: note how its claimed points differ from the replay's."""
    result = state.score()
    end_points = result.end_points if result.end_points else result.points
    for seat, name in enumerate(state.names):
        replayed = end_points[seat] if seat < len(end_points) else 0
        note_claim(table, seat, points.get(name, 0) - replayed)


__all__ = ["MAX_HELD", "Held", "Reading", "deal_follows", "end_follows", "hold", "lost_line", "match_of_line",
           "note_claim", "note_round_claims", "read_round_end", "readings", "resolve", "score", "scores_explained",
           "taint"]
