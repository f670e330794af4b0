"""A fast rollout engine: a round played out from a state with a fixed policy, no validation.

Legal moves come from bit sets (``hand & line.fitting()``); there is no
violation bookkeeping, no log, no names. The rules are the engine's own
primitives: Draw's :class:`~drawlog.engine.line.Line` (``extend``) and All Fives'
:class:`~drawlog.engine.tableau.Tableau` (``place_tile``, ``count``,
:func:`~drawlog.engine.tableau.scored`), and the round's points from
:func:`~drawlog.engine.scoring.score_round` /
:func:`~drawlog.engine.scoring.score_fives_round`. What is written again here
is the turn loop (whose turn, draw while allowed, pass, domino, block, All
Fives' target); ``tests/test_analyze.py`` plays many random rounds through both
this and the validating engine and requires the same moves and points.

**The rollout policy** (fixed, deterministic, the same for every seat):

* Draw: place the heaviest playable tile (ties: the lowest tile id); a tile
  that fits both ends goes where the ends left, sorted, are higher (a mirror
  image: left). With nothing playable: draw while the stock is above the
  reserve, else pass. Never a voluntary draw.
* All Fives: place for the most points now, then the heaviest tile, then the
  lowest tile id, then the open ends left highest (compared without regard to
  side, so mirror images play alike). With nothing playable: draw (forced)
  until a tile fits or the boneyard is empty, then pass.

Because the choice of end never depends on which side is called left, a round
and its mirror image are played out alike: symmetric actions get the same
equity.
"""

from __future__ import annotations

from typing import Final

from ..engine.allfives import FivesRound
from ..engine.line import DOWN, LEFT, RIGHT, UP, Line
from ..engine.rounds import BLOCKED, DOMINO, TARGET, Round
from ..engine.scoring import score_fives_round, score_round
from ..engine.tableau import Tableau, scored
from ..engine.tiles import PIPS, TILES, members
from .actions import DRAW_ACTION, PASS_ACTION, Action, mirror_shape

#: A seat's play points needed to win at once when there is no match target in play.
NO_TARGET: Final = 1 << 60
_FIVES_ENDS: Final = (LEFT, RIGHT, UP, DOWN)


class Rollout:
    """A round's state for playing out: hands, stock (next tile last), ends, turn, points so far.

    Build one with :meth:`from_round` (a state from the engine, with the unseen
    tiles replaced by a sampled deal), then :meth:`clone` it per action.
    """

    __slots__ = (
        "fives",
        "hands",
        "line",
        "moves",
        "passed",
        "play_points",
        "reason",
        "reserve",
        "stock",
        "to_win",
        "turn",
        "winner",
    )

    def __init__(self, fives: bool, hands: list[int], stock: list[int], reserve: int, line: Line, turn: int,
                 passed: int, play_points: list[int], to_win: list[int]) -> None:
        self.fives = fives
        self.hands = hands
        #: The stock in reverse draw order: the next tile is popped from the end.
        self.stock = stock
        self.reserve = reserve
        self.line = line
        self.turn = turn
        self.passed = passed
        self.play_points = play_points
        self.to_win = to_win
        self.reason: str | None = None
        self.winner: int | None = None
        #: Moves made so far (plays, draws, passes), for benchmarks.
        self.moves = 0

    @classmethod
    def from_round(cls, state: Round, hands: list[int] | None = None, stock: list[int] | None = None) -> Rollout:
        """The rollout state of ``state``; ``hands`` and ``stock`` (draw order, next first) replace its own.

        Without ``stock`` the logged stock order is used (the stock's tiles in id
        order when none was logged).
        """
        fives = isinstance(state, FivesRound)
        if stock is None:
            order = state.stock_order
            reverse = list(order) if order is not None else list(members(state.stock))[::-1]
        else:
            reverse = stock[::-1]
        if fives:
            assert isinstance(state, FivesRound)
            line: Line = state.tableau.copy()
            to_win = list(state.to_win)
        else:
            line = _line_copy(state.line)
            to_win = [NO_TARGET] * len(state.hands)
        return cls(fives, list(hands if hands is not None else state.hands), reverse, state.reserve, line,
                   state.turn, state.passed, list(state.play_points), to_win)

    def clone(self) -> Rollout:
        """An independent copy."""
        line = self.line.copy() if isinstance(self.line, Tableau) else _line_copy(self.line)
        twin = Rollout(self.fives, list(self.hands), list(self.stock), self.reserve, line, self.turn,
                       self.passed, list(self.play_points), self.to_win)
        twin.reason, twin.winner = self.reason, self.winner
        return twin

    # -- moves -------------------------------------------------------------

    def play(self, tile: int, end: str) -> None:
        """Place ``tile`` (held by the seat to move, fitting ``end``) and pass the turn."""
        seat = self.turn
        hand = self.hands[seat] & ~(1 << tile)
        self.hands[seat] = hand
        self.passed = 0
        self.moves += 1
        self.turn = seat + 1 if seat + 1 < len(self.hands) else 0
        line = self.line
        if self.fives:
            assert isinstance(line, Tableau)
            line.place_tile(TILES[tile], end)
            points = scored(line.count())
            played = self.play_points[seat] + points
            self.play_points[seat] = played
            if points and played >= self.to_win[seat]:
                self.reason, self.winner = TARGET, seat
                return
        else:
            low, high = TILES[tile]
            line.extend(low, high, end)
        if not hand:
            self.reason, self.winner = DOMINO, seat

    def draw(self) -> None:
        """The seat to move takes the stock's next tile and keeps the turn."""
        seat = self.turn
        self.hands[seat] = self.hands[seat] | 1 << self.stock.pop()
        self.passed = 0
        self.moves += 1

    def pass_turn(self) -> None:
        """The seat to move passes; every seat passing in a row with no tile to draw blocks the round."""
        seat = self.turn
        players = len(self.hands)
        self.turn = seat + 1 if seat + 1 < players else 0
        self.passed |= 1 << seat
        self.moves += 1
        if self.passed == (1 << players) - 1 and len(self.stock) <= self.reserve:
            self.reason = BLOCKED
            if not self.fives:  # Draw: the unique lowest hand total wins a blocked round
                self.winner = score_round(self.hands, BLOCKED, None).winner

    def apply(self, action: Action) -> None:
        """Carry out an action: a placement, a draw or (the policy's) a pass."""
        if action.tile >= 0:
            self.play(action.tile, action.end)
        elif action.tile == -1:
            self.draw()
        else:
            self.pass_turn()

    # -- the policy ----------------------------------------------------------

    def step(self) -> None:
        """One move of the rollout policy for the seat to move (see the module's docstring)."""
        seat = self.turn
        playable = self.hands[seat] & self.line.fitting()
        if playable:
            tile, end = self._fives_choice(playable) if self.fives else self._draw_choice(playable)
            self.play(tile, end)
        elif len(self.stock) > self.reserve:
            self.draw()
        else:
            self.pass_turn()

    def policy_move(self) -> Action:
        """The move :meth:`step` makes now, without making it (for tests and tools)."""
        playable = self.hands[self.turn] & self.line.fitting()
        if playable:
            return Action(*(self._fives_choice(playable) if self.fives else self._draw_choice(playable)))
        return DRAW_ACTION if len(self.stock) > self.reserve else PASS_ACTION

    def finish(self) -> tuple[int, ...]:
        """Play the round out with the policy; each seat's points this round (as the engine scores it)."""
        step = self.step
        while self.reason is None:
            step()
        return self.points()

    def points(self) -> tuple[int, ...]:
        """Each seat's points for the round (All Fives: play points, since the round began, plus the end's)."""
        if self.fives:
            return score_fives_round(self.hands, self.reason, self.winner, self.play_points).points
        return score_round(self.hands, self.reason, self.winner).points

    def _draw_choice(self, playable: int) -> tuple[int, str]:
        best, weight = -1, -1
        for tile in members(playable):
            if PIPS[tile] > weight:
                best, weight = tile, PIPS[tile]
        line = self.line
        left, right = line.left, line.right
        if left is None or right is None:
            return best, LEFT
        low, high = TILES[best]
        fits_left = low == left or high == left
        fits_right = low == right or high == right
        if fits_left and fits_right:
            after_left = (high if low == left else low, right)
            after_right = (left, high if low == right else low)
            if sorted(after_right) > sorted(after_left):
                return best, RIGHT
            return best, LEFT
        return best, LEFT if fits_left else RIGHT

    def _fives_choice(self, playable: int) -> tuple[int, str]:
        tableau = self.line
        assert isinstance(tableau, Tableau)
        left, right, up, down = tableau.left, tableau.right, tableau.up, tableau.down
        arms = tableau.arms_open
        options: list[tuple[int, str]] = []
        for tile in members(playable):
            if left is None or right is None:
                options.append((tile, LEFT))
                continue
            a, b = TILES[tile]
            if left == a or left == b:
                options.append((tile, LEFT))
            if right == a or right == b:
                options.append((tile, RIGHT))
            if arms:
                if up == a or up == b:
                    options.append((tile, UP))
                if down == a or down == b:
                    options.append((tile, DOWN))
        if len(options) == 1:
            return options[0]
        best: tuple[int, int, int] = (-1, -1, 0)
        chosen = options[0]
        ties: list[tuple[int, str]] = []
        for tile, end in options:
            key = (scored(count_after(tableau, tile, end)), PIPS[tile], -tile)
            if key > best:
                best, chosen, ties = key, (tile, end), []
            elif key == best:
                ties.append((tile, end))
        for tile, end in ties:  # the same tile on other ends, as good so far: the ends it leaves decide
            if mirror_shape(_placed(tableau, *chosen)) < mirror_shape(_placed(tableau, tile, end)):
                chosen = (tile, end)
        return chosen


def count_after(tableau: Tableau, tile: int, end: str) -> int:
    """The count :meth:`Tableau.count` gives after ``tile`` is placed on the open ``end``, without placing it.

    The same sum as :meth:`Tableau.place_tile` then :meth:`Tableau.count` (a test
    holds the two together): only the end taken changes, to the tile's exposed
    half (both halves for a double).
    """
    left, right = tableau.left, tableau.right
    low, high = TILES[tile]
    if left is None or right is None:
        return low + high
    value = tableau.value(end)
    exposed = high if low == value else low
    part = exposed << 1 if low == high else exposed
    total = 0
    if end != LEFT:
        total += left << 1 if tableau.left_double else left
    if end != RIGHT:
        total += right << 1 if tableau.right_double else right
    up, down = tableau.up, tableau.down
    if end != UP and tableau.up_length and up is not None:
        total += up << 1 if tableau.up_double else up
    if end != DOWN and tableau.down_length and down is not None:
        total += down << 1 if tableau.down_double else down
    return total + part


def _placed(tableau: Tableau, tile: int, end: str) -> Tableau:
    after = tableau.copy()
    after.place_tile(TILES[tile], end)
    return after


def _line_copy(line: Line) -> Line:
    twin = Line()
    twin.left, twin.right, twin.length = line.left, line.right, line.length
    return twin


__all__ = ["Rollout", "count_after"]
