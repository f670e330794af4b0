"""Known faults on demand: one deliberate violation put into a simulated match.

A :class:`FaultPlan` decides, per match, whether to inject a fault and of
which kind, then rewrites one move, claim or line at a moment where the fault
is the *only* thing wrong: the engine carries the match on exactly as the
validator will replay it, so the fault is the match's first violation. Each
injection is recorded as an :class:`InjectedFault` (match, event index, code).
The kinds depend on the game (:func:`kinds_for`): All Fives adds M210–M212 and
gives M205, M207 and S104 their All Fives meaning.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from ..engine.allfives import NO_TILE, FivesRound
from ..engine.rounds import Round
from ..engine.tiles import FULL_SET, TILES, members
from ..log.events import Draw, Event, Pass, Play

#: Moves: fault kinds that replace a player's move.
MOVE_KINDS = ("M202", "M205", "M206", "M207", "M208")
#: All Fives' moves: also a draw holding a playable tile (M210), a move but placing the playable
#: tile just drawn (M211), a play on an arm not open (M212).
FIVES_MOVE_KINDS = MOVE_KINDS + ("M210", "M211", "M212")
#: Kinds written as a defective line (an unknown field, a tile outside the set, a seq gap).
LINE_KINDS = ("W401", "F002", "F003")
#: Claims and deals: a wrong opener, winner, round points, final scores or a play's points.
CLAIM_KINDS = ("S104", "R302", "R303", "R306", "R308")
#: Draw's kinds.
KINDS = MOVE_KINDS + LINE_KINDS + CLAIM_KINDS
#: All Fives' kinds.
FIVES_KINDS = FIVES_MOVE_KINDS + LINE_KINDS + CLAIM_KINDS


def kinds_for(variant: str) -> tuple[str, ...]:
    """The fault kinds a match of ``variant`` can be given."""
    return FIVES_KINDS if variant == "all-fives" else KINDS


@dataclass(frozen=True)
class InjectedFault:
    """A violation put into a match on purpose: the match, the event's index in it (1-based), the code."""

    match: str
    index: int
    code: str


class Defective(msgspec.Struct):
    """An event written with a defect: ``extra`` fields added (W401) or ``tile`` replaced (F002)."""

    event: Event
    extra: dict[str, Any] | None = None
    tile: list[int] | None = None

    def encode(self) -> bytes:
        """The event's JSON line with its defect."""
        fields = msgspec.to_builtins(self.event)
        if self.extra:
            fields.update(self.extra)
        if self.tile is not None:
            fields["tile"] = self.tile
        return msgspec.json.encode(fields)


class FaultPlan:
    """Chooses and injects at most one fault per match, at a rate, from ``kinds``."""

    def __init__(self, rng: random.Random, rate: float, kinds: tuple[str, ...] = KINDS) -> None:
        self.rng = rng
        self.rate = rate
        self.kinds = kinds
        self.injected: list[InjectedFault] = []
        self.pending: str | None = None
        self._match = ""

    def start_match(self, match_id: str, log_seq: bool) -> None:
        """Decide whether this match gets a fault, and which kind."""
        self._match = match_id
        self.pending = None
        if self.rate > 0 and self.rng.random() < self.rate:
            kinds = [kind for kind in self.kinds if log_seq or kind != "F003"]
            self.pending = self.rng.choice(kinds) if kinds else None

    def _done(self, index: int) -> None:
        self.injected.append(InjectedFault(self._match, index, self.pending))  # type: ignore[arg-type]
        self.pending = None

    def wants(self, *kinds: str) -> bool:
        """Whether the pending fault is one of ``kinds`` (and it is time to try it)."""
        return self.pending in kinds and self.rng.random() < 0.25

    # -- deals and claims ----------------------------------------------------

    def opener(self, expected: int, players: int, index: int) -> int:
        """The opener to log for round 2 on: a wrong seat when S104 is due."""
        if self.wants("S104"):
            self._done(index)
            return (expected + 1) % players
        return expected

    def round_claims(self, names: tuple[str, ...], winner: str | None, points: dict[str, int],
                     index: int) -> str | None:
        """Rewrite a round's claimed winner (R302) or points (R303); returns the winner to log."""
        if self.wants("R303"):
            points[names[0]] += 1
            self._done(index)
        elif self.wants("R302"):
            self._done(index)
            return next(name for name in names if name != winner)
        return winner

    def final_claims(self, names: tuple[str, ...], scores: dict[str, int], index: int) -> None:
        """Rewrite the claimed final scores (R306)."""
        if self.pending == "R306":
            scores[names[-1]] += 1
            self._done(index)

    # -- lines and moves -----------------------------------------------------

    def defect(self, event: Event, index: int) -> Event | Defective:
        """Write a move with an unknown field (W401), a play with wrong points (R308), or skip a seq number (F003)."""
        if isinstance(event, Play) and self.wants("R308"):
            self._done(index)
            return msgspec.structs.replace(event, points=0 if event.points else 5)
        if self.wants("W401"):
            self._done(index)
            return Defective(event, extra={"comment": "injected"})
        if self.wants("F003"):
            self._done(index)
        return event

    def seq_gaps(self, match_id: str) -> set[int]:
        """Event indexes of ``match_id`` before which a seq number is skipped (F003)."""
        return {fault.index for fault in self.injected if fault.match == match_id and fault.code == "F003"}

    def extra_line(self, event: Event, index: int) -> Defective | None:
        """A copy of a move with a tile outside the set, as an extra line before it (F002)."""
        if isinstance(event, (Draw, Play)) and self.wants("F002"):
            self._done(index)
            return Defective(msgspec.structs.replace(event, seq=None), tile=[7, event.tile[0]])
        return None

    def move(self, state: Round, seat: int, match_id: str, index: int) -> Event | None:
        """Replace ``seat``'s move with an illegal one when the state allows the pending kind.

        The engine carries out what is physically possible (as a replay does):
        an illegal draw or pass is applied, a tile not held or not in the stock is not.
        """
        kind = self.pending
        if kind not in FIVES_MOVE_KINDS or self.rng.random() >= 0.25:
            return None
        if isinstance(state, FivesRound):
            event = self._fives_move(state, seat, match_id, kind)
        else:
            event = self._draw_move(state, seat, match_id, kind)
        if event is not None:
            self._done(index)
        return event

    def _draw_move(self, state: Round, seat: int, match_id: str, kind: str | None) -> Event | None:
        player = state.names[seat]
        drawing = state.drawing_allowed()
        playable = state.playable(seat)
        if kind == "M205" and not drawing and state.stock_left > 0:
            tile = state.next_stock_tile()
            state.apply_draw(seat, tile)  # type: ignore[arg-type]
            return Draw(match=match_id, player=player, tile=TILES[tile])  # type: ignore[index]
        if kind == "M206" and drawing:
            return Draw(match=match_id, player=player, tile=TILES[self._held_elsewhere(state, seat)])
        if kind == "M207" and drawing and not playable or kind == "M208" and not drawing and playable:
            state.apply_pass(seat)
            return Pass(match=match_id, player=player)
        if kind == "M202":
            return Play(match=match_id, player=player, tile=TILES[self._held_elsewhere(state, seat)], end="left")
        return None

    def _fives_move(self, state: FivesRound, seat: int, match_id: str, kind: str | None) -> Event | None:
        """All Fives: each kind where it is the only rule the move breaks."""
        player = state.names[seat]
        boneyard = state.stock_left > 0
        playable = state.playable(seat)
        free = state.must_place == NO_TILE
        if kind == "M211" and not free and boneyard or kind == "M210" and free and playable and boneyard:
            tile = state.next_stock_tile()
            state.apply_draw(seat, tile)  # type: ignore[arg-type]
            return Draw(match=match_id, player=player, tile=TILES[tile])  # type: ignore[index]
        if not free:
            return None
        if kind == "M205" and not boneyard and not playable:
            placed = FULL_SET & ~state.stock & ~state.hands[seat]
            return Draw(match=match_id, player=player, tile=TILES[self.rng.choice(list(members(placed)))])
        if kind == "M206" and boneyard and not playable:
            return Draw(match=match_id, player=player, tile=TILES[self._held_elsewhere(state, seat)])
        if kind == "M207" and boneyard and not playable or kind == "M208" and not boneyard and playable:
            state.apply_pass(seat)
            return Pass(match=match_id, player=player)
        if kind == "M212" and not state.tableau.is_empty and not state.tableau.arms_open:
            return self._early_arm_play(state, seat, match_id)
        if kind == "M202":
            return Play(match=match_id, player=player, tile=TILES[self._held_elsewhere(state, seat)], end="left")
        return None

    def _early_arm_play(self, state: FivesRound, seat: int, match_id: str) -> Play:
        """M212: any tile of the hand on ``up`` or ``down`` before they open, replayed as the validator will.

        A tile that matches the spinner (or the arm's end) is placed there (v1.2): it scores what the
        count gives, and may even end the round; any other tile, or any tile with no spinner, is not.
        """
        halves = TILES[self.rng.choice(list(members(state.hands[seat])))]
        end: Literal["up", "down"] = self.rng.choice(("up", "down"))  # type: ignore[assignment]
        faults = state.try_play(seat, halves, end)
        assert [fault.code for fault in faults] == ["M212"], faults
        applied = not faults[0].impossible
        return Play(match=match_id, player=state.names[seat], tile=halves, end=end,
                    points=state.last_points if applied else None)

    def _held_elsewhere(self, state: Round, seat: int) -> int:
        """A tile another player holds."""
        return self.rng.choice([tile for other, hand in enumerate(state.hands) if other != seat
                                for tile in members(hand)])
