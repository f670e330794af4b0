"""Readings of a fault that keep the replay in step: a move missing, two lines swapped, a line lost.

When a move comes out of turn, the replay does not apply it at once: it holds
it and the rest of the round (:class:`Held`, until the ``round_end`` or
:data:`MAX_HELD` moves) and picks the reading under which the round replays
with the fewest faults, its claim included (:func:`resolve`):

* **plain**: the move was made out of turn; it is applied, and the player
  whose turn it was may still move next;
* **missing**: the player after the one to move acts: a move of the one to
  move seems to be missing before this line (a line deleted, or one that could
  not be read: :func:`lost_line`), taken as the legal move that lets the rest
  through;
* **swapped**: the next move is by the player to move: the two lines seem to
  be in the wrong order.

A ``round_end`` claiming a domino by a player left with one tile that fits
reads that last play as missing (:func:`read_round_end`). What is reported
follows the bookkeeping of :mod:`drawlog.check.follows`. Nothing here runs on
a clean log: only a fault reaches it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

from ..engine.allfives import FivesRound
from ..engine.rounds import Round
from ..engine.tiles import label, tile_id
from ..log.events import RoundEnd
from .follows import Follow, follow_of, taint

from .table import Table


class Replay(Protocol):
    """What a reading asks of :class:`~drawlog.check.replay.Replay` (a protocol: it and its base import this module)."""

    def apply_move(self, table: Table, event: Any, line: int, kind: int, may_hold: bool) -> None:
        """Replay a held move of ``table``'s match."""

    def report_root(self, table: Table, code: str, message: str, line: int, player: str | None,
                    follows: int = 0) -> None:
        """Report a reading of a fault and make it the root."""

#: The most moves held for a reading: a round longer than that is read on what was held.
MAX_HELD = 100
#: The most moves out of turn of one round read (held and scored); later ones are taken as made out of turn.
#: Each reading replays the moves held under every reading offered: this bounds what a log of nothing but
#: moves out of turn costs.
MAX_READINGS = 4
#: A match id in a line that could not be decoded (F001), to know whose move it was.
MATCH_ID = re.compile(rb'"match"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
#: The readings: made out of turn, a move missing before it, two lines swapped.
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


def settle(replay: Replay, table: Table, claim: RoundEnd | None) -> None:
    """Read what the match holds, if anything (before any event but a move of its round)."""
    follow: Follow | None = table.follow
    if follow is not None and follow.held is not None:
        resolve(replay, table, claim)


def start_hold(table: Table, state: Round, event: Any, line: int, kind: int) -> bool:
    """Hold a move out of turn for a reading (True), unless :data:`MAX_READINGS` of its round were read."""
    follow = follow_of(table)
    if follow.read_round != state.number:
        follow.read_round, follow.readings = state.number, 0
    if follow.readings >= MAX_READINGS:
        return False
    follow.readings += 1
    held = follow.held = Held(follow.lost)
    follow.lost = 0
    held.events.append((event, line, kind))
    return True


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


def readings(state: Round, seat: int, events: list[tuple[Any, int, int]],
             seat_of: Mapping[str, int]) -> list[Reading]:
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
    follow = follow_of(table)
    held = follow.held
    follow.held = None
    state = table.round
    if state is None or held is None:  # (not reached: a round is open while moves are held)
        return
    events = held.events
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
    explained = 2 if best.kind == SWAPPED else 1  # the moves the reading explains; a later one may be read anew
    for position, index in enumerate(best.order):
        event, at, action = events[index]
        again: Held | None = follow.held
        if again is not None:  # a later move out of turn is held for its own reading: the rest go with it
            again.events.append((event, at, action))
            continue
        if alt >= 0 and table.round is state:
            mover = table.seat_of.get(event.player)
            if mover == state.turn:
                alt = -1
            elif mover == alt and index != 0:
                state.turn, alt = alt, -1
        replay.apply_move(table, event, at, action, position >= explained)
    if follow.held is not None:
        resolve(replay, table, claim)


def hold(replay: Replay, table: Table, event: Any, line: int, kind: int) -> None:
    """Hold one more move of a round with a move out of turn held (read at once past :data:`MAX_HELD`)."""
    held = follow_of(table).held
    assert held is not None
    held.events.append((event, line, kind))
    if len(held.events) >= MAX_HELD:
        resolve(replay, table, None)


def lost_line(replay: Replay, table: Table, line: int) -> None:
    """A move line of ``table``'s match could not be read (F001, F002): it is the root of its round.

    A move out of turn after it is read with it, as a follow-on (:func:`resolve`).
    """
    settle(replay, table, None)
    state = table.round
    if state is not None and state.reason is None:
        taint(table, line)
        follow_of(table).lost = line


def read_round_end(replay: Replay, table: Table, state: Round, claim: RoundEnd, line: int) -> None:
    """A ``round_end`` naming a winner of a round the replay has not ended: their ending play seems missing.

    When one of the winner's plays ends the round as the log says (a domino
    with their last tile; in All Fives also a play that reaches the target), it
    is played and the reading is reported as the R301 the claim would have
    given, so the round's points and the match's scores are the log's again.
    """
    if state.is_over or claim.winner is None or claim.reason == "blocked":
        return
    seat = table.seat_of.get(claim.winner)
    if seat is None:
        return
    turn = state.turn
    state.turn = seat
    plays = state.legal_plays(seat)
    ending = None
    for halves, end in plays:
        twin = state.copy()
        twin.try_play(seat, halves, end)
        if twin.reason == claim.reason and twin.winner == seat:
            ending = halves, end
            break
    if ending is None:
        state.turn = turn
        return
    state.try_play(seat, *ending)
    _unsure(table, state, seat)
    replay.report_root(table, "R301", f"round_end while the round is not over: a play of {claim.winner}'s "
                                      f"{label(tile_id(ending[0]))}, which ends it ({claim.reason}), seems to be "
                                      f"missing before this line (taken as played)", line, None)


def _unsure(table: Table, state: Round, seat: int) -> None:
    """A play read into the log scored what the log never claimed (All Fives): ``seat``'s score is unsure."""
    if isinstance(state, FivesRound):
        follow = follow_of(table)
        follow.diff()
        follow.unsure |= 1 << seat


__all__ = ["MAX_HELD", "MAX_READINGS", "Held", "Reading", "hold", "lost_line", "match_of_line", "read_round_end",
           "readings", "resolve", "score", "settle", "start_hold"]
