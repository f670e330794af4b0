"""One round of All Fives: the rules where it differs from Draw.

A :class:`FivesRound` is a :class:`~drawlog.engine.rounds.Round` on a
:class:`~drawlog.engine.tableau.Tableau`, with these rules of its own (the
contract's section "Variant all-fives"):

* a player holding a playable tile must place one: drawing then is ``M210``;
* a player who cannot place draws, one tile at a time, until a playable tile
  comes (it must be placed at once: any other move next is ``M211``) or the
  boneyard is empty; there is no reserve (a draw from an empty boneyard is
  ``M205``), and passing is for an empty boneyard only (``M207``);
* ``up`` and ``down`` take tiles once the spinner's both sides are covered
  (``M212`` before: applied when the tile matches the spinner, or the arm's
  end, and impossible otherwise); ``end`` is required whenever a tile fits
  more than one open end (``M204``);
* each placement scores the count when it is a multiple of five; a play that
  brings the player's score to the match target ends the round at once
  (``target``: the player wins the match, nobody loses pips); at any other
  round's end every player loses the pips left, rounded to five
  (:func:`~drawlog.engine.scoring.score_fives_round`).

Turns, the line's left and right, domino and block work as in Draw.
"""

from __future__ import annotations

from typing import Final

from ..errors import Fault
from .line import DOWN, LEFT, RIGHT, UP
from .rounds import _CLEAN, DOMINO, TARGET, Placement, Round, _out_of_order, _out_of_turn, _over
from .scoring import RoundScore, score_fives_round
from .tableau import Tableau, scored
from .tiles import TILES, label, labels, members, tile_id

#: ``must_place`` when no playable tile was just drawn.
NO_TILE: Final = -1
#: What a seat needs to score in a round with no target in play (a match decided already, or a round on its own).
UNREACHABLE: Final = 1 << 60


class FivesRound(Round):
    """The state of one All Fives deal; ``line`` is a :class:`Tableau`.

    ``target`` is the match target, and ``scores`` the match scores before this
    round (each seat wins at once when its play points this round reach
    ``target - score``); without a target the round ends by domino or block only.
    """

    __slots__ = ("tableau", "must_place", "target", "to_win")

    def __init__(
        self,
        names: tuple[str, ...],
        opener: int,
        hands: list[int],
        stock: int,
        stock_order: list[int] | None = None,
        number: int = 1,
        reserve: int = 0,
        scores: list[int] | None = None,
        target: int | None = None,
    ) -> None:
        super().__init__(names, opener, hands, stock, stock_order, number, 0)
        self.tableau = Tableau()
        self.line = self.tableau
        #: The playable tile the player to move has just drawn and must place at once (``NO_TILE``: none).
        self.must_place = NO_TILE
        #: The match target (``None``: not in play this round).
        self.target = target
        #: The play points each seat needs this round to reach the target.
        self.to_win = [UNREACHABLE] * len(hands) if target is None or scores is None \
            else [target - score for score in scores]

    def copy(self) -> FivesRound:
        """An independent copy of this state."""
        twin = FivesRound(self.names, self.opener, list(self.hands), self.stock, None, self.number)
        self._copy_into(twin)
        twin.target, twin.to_win = self.target, self.to_win
        twin.tableau = self.tableau.copy()
        twin.line = twin.tableau
        twin.must_place = self.must_place
        return twin

    def score(self) -> RoundScore:
        """Play points so far plus, once the round is over, each seat's pips left (rounded to five) taken off."""
        if self._score is not None:
            return self._score
        score = score_fives_round(self.hands, self.reason, self.winner, self.play_points)
        if self.reason is not None:
            self._score = score
        return score

    def legal_plays(self, seat: int) -> list[tuple[tuple[int, int], str]]:
        """Every legal placement for ``seat`` now, as ``(halves, end)``: each open end a tile fits."""
        if self.reason is not None or seat != self.turn:
            return []
        playable = self.playable(seat)
        if self.must_place != NO_TILE:
            playable &= 1 << self.must_place
        plays = []
        for tile in members(playable):
            halves = TILES[tile]
            if self.tableau.is_empty:
                plays.append((halves, LEFT))
            else:
                plays += [(halves, end) for end in self.tableau.ends_for(halves)]
        return plays

    # -- draw --------------------------------------------------------------

    def check_draw(self, seat: int, halves: tuple[int, int]) -> tuple[tuple[Fault, ...], int | None]:
        """M205 (empty boneyard), M210 (holds a playable tile), M211, M206, M201, M209."""
        tile = tile_id(halves)
        faults, settled = self._before_draw(seat, tile)
        if settled:
            return tuple(faults), tile if self.reason is None else None
        if self.stock_left == 0:
            faults.append(Fault("M205", f"draws {label(tile)} from an empty boneyard", True))
            return tuple(faults), None
        just_drawn = self._just_drawn(seat)
        if just_drawn:
            faults.append(just_drawn)
        else:
            playable = self.playable(seat)
            if playable:
                faults.append(Fault("M210", f"draws holding {labels(playable)}, which "
                                            f"{_fit(playable)} {self._where()}: a player who can place must place, "
                                            f"not draw"))
        if not self.stock >> tile & 1:
            faults.append(Fault("M206", f"draws {label(tile)}, which is not in the boneyard "
                                        f"({self._whereabouts(tile)})", True))
            return tuple(faults), None
        if self.stock_order and self.stock_order[-1] != tile:
            faults.append(_out_of_order(self.stock_order, tile, "boneyard"))
        return tuple(faults), tile

    def can_draw(self, seat: int, halves: tuple[int, int] | None = None) -> bool:
        """Whether ``seat`` may draw now: its turn, nothing to place, and a tile in the boneyard."""
        if halves is None:
            return self.reason is None and seat == self.turn and self.stock_left > 0 \
                and not self.playable(seat)
        return not self.check_draw(seat, halves)[0]

    def try_draw(self, seat: int, halves: tuple[int, int]) -> tuple[Fault, ...]:
        """Replay a logged draw: apply it when physically possible; return the rules it breaks."""
        tile = tile_id(halves)
        if self.reason is None and seat == self.turn and self.stock >> tile & 1 \
                and not self.hands[seat] & self.tableau.fitting():
            order = self.stock_order
            if not order or order[-1] == tile:
                self.apply_draw(seat, tile)
                return _CLEAN
        faults, possible = self.check_draw(seat, halves)
        if possible is not None:
            self.apply_draw(seat, possible)
        return faults

    def apply_draw(self, seat: int, tile: int) -> None:
        """Take ``tile`` from the boneyard, unchecked; a playable tile drawn by a player who had none must be placed."""
        fitting = self.tableau.fitting()
        had_none = not self.hands[seat] & fitting
        super().apply_draw(seat, tile)
        self.must_place = tile if had_none and fitting >> tile & 1 else NO_TILE

    # -- play --------------------------------------------------------------

    def check_play(
        self, seat: int, halves: tuple[int, int], end: str | None = None
    ) -> tuple[tuple[Fault, ...], Placement | None]:
        """M202, M203, M204, M211, M212, M201, M209; and how to place the tile (``None``: impossible)."""
        tile = tile_id(halves)
        faults = self._before_play(seat, tile)
        if self.reason is not None:
            return tuple(faults), None
        tableau = self.tableau
        held = (self.hands[seat] | self.missing) >> tile & 1
        if held and seat == self.turn and self.must_place != NO_TILE and tile != self.must_place:
            faults.append(Fault("M211", f"plays {label(tile)}; {label(self.must_place)}, just drawn, fits "
                                        f"and must be placed at once"))
        if tableau.is_empty:  # the opening tile: ``end`` is ignored, the tile opens as written
            if any(fault.impossible for fault in faults):
                return tuple(faults), None
            return tuple(faults), Placement(tile, LEFT, halves)
        if end is not None:
            value = tableau.value(end)
            if (end == UP or end == DOWN) and value is None:
                faults.append(self._early_arm(tile, halves, end))
            elif value is None or value not in halves:
                faults.append(Fault("M203", f"{label(tile)} does not match the {end} end ({value})"
                                            f"{_fits_instead(tableau, halves)}", True))
        else:
            ends = tableau.ends_for(halves)
            if not ends:
                faults.append(Fault("M203", f"{label(tile)} matches no open end ({self._open_text()})", True))
            elif len(ends) > 1:
                faults.append(Fault("M204", f"{label(tile)} fits the {' and '.join(ends)} ends "
                                            f"({self._open_text()}): say \"end\"; taken as {ends[0]}"))
            if ends:
                end = ends[0]
        if any(fault.impossible for fault in faults):
            return tuple(faults), None
        assert end is not None
        after = _ends_after(tableau.left, tableau.right, halves, end, tableau.value(end))  # type: ignore[arg-type]
        return tuple(faults), Placement(tile, end, after)

    def try_play(self, seat: int, halves: tuple[int, int], end: str | None = None) -> tuple[Fault, ...]:
        """Replay a logged play: apply it when physically possible; return the rules it breaks."""
        tile = tile_id(halves)
        tableau = self.tableau
        if self.reason is None and seat == self.turn and self.hands[seat] >> tile & 1 \
                and (self.must_place == NO_TILE or self.must_place == tile) and not tableau.is_empty:
            if end is None:
                only = tableau.only_end(halves[0], halves[1])
                if only is not None:
                    self._lay(seat, tile, halves, only)
                    return _CLEAN
            else:
                value = tableau.value(end)
                if value is not None and (value == halves[0] or value == halves[1]):
                    self._lay(seat, tile, halves, end)
                    return _CLEAN
        faults, placement = self.check_play(seat, halves, end)
        if placement is not None:
            self.apply_play(seat, placement)
        return faults

    def apply_play(self, seat: int, placement: Placement) -> None:
        """Carry out a placement, unchecked: the count scores, the turn passes, the last tile ends the round."""
        halves = placement.ends if self.tableau.is_empty else TILES[placement.tile]
        self._take_missing(seat, placement.tile)
        self._lay(seat, placement.tile, halves, placement.end)

    def _lay(self, seat: int, tile: int, halves: tuple[int, int], end: str) -> None:
        hand = self.hands[seat] & ~(1 << tile)
        self.hands[seat] = hand
        self.tableau.place_tile(halves, end)
        points = scored(self.tableau.count())
        self.last_points = points
        played = self.play_points[seat] + points
        self.play_points[seat] = played
        self.passed = 0
        self.must_place = NO_TILE
        self.turn = seat + 1 if seat + 1 < len(self.hands) else 0
        if points and played >= self.to_win[seat]:  # the first to reach the target wins at once
            self.reason = TARGET
            self.winner = seat
        elif not hand:
            self.reason = DOMINO
            self.winner = seat

    def ended_text(self) -> str:
        """How the round ended, for messages: ``target: ann reached 250`` too."""
        if self.reason == TARGET and self.winner is not None:
            return f"target: {self.names[self.winner]} reached {self.target}"
        return super().ended_text()

    def check_points(self, claimed: int) -> Fault | None:
        """R308: a play's claimed ``points`` against what the count after it scores."""
        if claimed == self.last_points:
            return None
        count = self.tableau.count()
        scores = f"scores {count}" if self.last_points else "scores nothing"
        return Fault("R308", f"claims {claimed} points for the play; the count after it is {count} "
                             f"({self._open_text()}), which {scores}")

    # -- pass --------------------------------------------------------------

    def check_pass(self, seat: int) -> tuple[Fault, ...]:
        """M211, M207 (boneyard not empty), M208 (holds a playable tile), M201, M209."""
        if self.reason is not None:
            return (_over(self, "passes"),)
        faults = []
        if seat != self.turn:
            faults.append(_out_of_turn(self, seat, "passes"))
        just_drawn = self._just_drawn(seat)
        if just_drawn:
            faults.append(just_drawn)
        if self.stock_left > 0:
            faults.append(Fault("M207", f"passes with {self.stock_left} tile{'s' if self.stock_left != 1 else ''}"
                                        f" in the boneyard: a player who cannot place draws until it is empty"))
        playable = self.playable(seat)
        if playable and not just_drawn:
            faults.append(Fault("M208", f"passes holding {labels(playable)}, which {_fit(playable)} "
                                        f"{self._where()}"))
        return tuple(faults)

    def try_pass(self, seat: int) -> tuple[Fault, ...]:
        """Replay a logged pass: apply it unless the round is over; return the rules it breaks."""
        if self.reason is None and seat == self.turn and self.stock_left == 0 \
                and not self.hands[seat] & self.tableau.fitting():
            self.apply_pass(seat)
            return _CLEAN
        faults = self.check_pass(seat)
        if not faults or not faults[0].impossible:
            self.apply_pass(seat)
        return faults

    def apply_pass(self, seat: int) -> None:
        """Carry out a pass, unchecked: blocked once every player has passed with the boneyard empty."""
        self.must_place = NO_TILE
        super().apply_pass(seat)

    # -- helpers -----------------------------------------------------------

    def _just_drawn(self, seat: int) -> Fault | None:
        """M211 for any move but placing the playable tile ``seat`` just drew."""
        if seat != self.turn or self.must_place == NO_TILE:
            return None
        return Fault("M211", f"{label(self.must_place)} was just drawn and fits: it must be placed at once")

    def _open_text(self) -> str:
        tableau = self.tableau
        return ", ".join(f"{end} {tableau.value(end)}" for end in tableau.open_ends())

    def _where(self) -> str:
        return "the empty line" if self.tableau.is_empty else f"an open end ({self._open_text()})"

    def _early_arm(self, tile: int, halves: tuple[int, int], end: str) -> Fault:
        """M212 for a play on an arm before it opens: applied when the tile matches the spinner (or the arm's end)."""
        value = self.tableau.early_value(end)
        if value is not None and (value == halves[0] or value == halves[1]):
            return Fault("M212", f"plays {label(tile)} {end}: {self._arms_closed()}; it matches the arm's "
                                 f"{value}, so it is placed there early")
        why = "" if value is None else f", and it does not match the arm's {value}"
        return Fault("M212", f"plays {label(tile)} {end}: {self._arms_closed()}{why}", True)

    def _arms_closed(self) -> str:
        tableau = self.tableau
        if tableau.spinner < 0:
            return "there is no spinner yet (the first double placed)"
        sides = int(tableau.left_spinner) + int(tableau.right_spinner)
        return f"up and down open once both sides of the spinner {label(tableau.spinner)} are covered " \
               f"({sides} still open)"


def _fit(playable: int) -> str:
    return "fits" if playable & (playable - 1) == 0 else "fit"


def _ends_after(left: int, right: int, halves: tuple[int, int], end: str,
                value: int | None) -> tuple[int, int]:
    """The line's left and right after placing ``halves`` on ``end`` (an arm, even early, leaves them as they are)."""
    exposed = halves[1] if halves[0] == value else halves[0]
    if end == LEFT:
        return (exposed, right)
    if end == RIGHT:
        return (left, exposed)
    return (left, right)


def _fits_instead(tableau: Tableau, halves: tuple[int, int]) -> str:
    """For M203: ``; it fits the right end (5)``, or the ends it fits, or nothing when it fits none."""
    ends = tableau.ends_for(halves)
    if not ends:
        return ""
    named = " and the ".join(f"{end} end ({tableau.value(end)})" for end in ends)
    return f"; it fits the {named}"


__all__ = ["NO_TILE", "FivesRound"]

