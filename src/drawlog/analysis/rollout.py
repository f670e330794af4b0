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

**Speed.** :meth:`Rollout.finish` plays Draw out in one loop over local
variables (the line as two ints, written back at the end) rather than by
:meth:`Rollout.step`: the same moves (``tests/test_analyze_parallel.py`` holds
the two together), about 4x faster. That loop is why this module runs past 400
lines. The module is compiled with mypyc (``setup.py``).
"""

from __future__ import annotations

from typing import Final

from ..engine.allfives import FivesRound
from ..engine.line import DOWN, LEFT, RIGHT, UP, Line
from ..engine.rounds import BLOCKED, DOMINO, TARGET, Round
from ..engine.scoring import score_fives_round, score_round
from ..engine.tableau import Tableau, scored
from ..engine.tiles import PIPS, SUIT, TILES, members
from .actions import DRAW_ACTION, PASS_ACTION, Action, mirror_shape

#: A seat's play points needed to win at once when there is no match target in play.
NO_TARGET: Final = 1 << 60
_FIVES_ENDS: Final = (LEFT, RIGHT, UP, DOWN)
#: Each tile's lower and higher half, as flat tuples (one index, no tuple unpacking in the hot loops).
_LOW: Final[tuple[int, ...]] = tuple(low for low, _ in TILES)
_HIGH: Final[tuple[int, ...]] = tuple(high for _, high in TILES)


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
        """Play the round out with the policy; each seat's points this round (as the engine scores it).

        The same moves as calling :meth:`step` until the round ends (a test
        holds the two together), in one loop over local variables: Draw's line
        is two ints there, written back at the end.
        """
        if self.fives:
            self._finish_fives()
        elif self.reason is None:
            self._finish_draw()
        return self.points()

    def _finish_fives(self) -> None:
        # a loop of its own: a test of ``self.reason`` before it would narrow its type for mypyc inside it
        step = self.step
        while self.reason is None:
            step()

    def _finish_draw(self) -> None:
        """Draw's round played out by the policy (:meth:`step`'s moves), the state kept in locals meanwhile."""
        hands = self.hands
        stock = self.stock
        reserve = self.reserve
        line = self.line
        left = -1 if line.left is None else line.left
        right = -1 if line.right is None else line.right
        length = line.length
        turn = self.turn
        passed = self.passed
        moves = self.moves
        players = len(hands)
        everyone = (1 << players) - 1
        low_of = _LOW
        high_of = _HIGH
        pips = PIPS
        suit = SUIT
        reason = ""
        winner = -1
        while True:
            hand = hands[turn]
            playable = hand if left < 0 else hand & (suit[left] | suit[right])
            if playable:
                best = -1
                weight = -1
                rest = playable
                while rest:
                    bit = rest & -rest
                    tile = bit.bit_length() - 1
                    if pips[tile] > weight:
                        best = tile
                        weight = pips[tile]
                    rest ^= bit
                low = low_of[best]
                high = high_of[best]
                if left < 0:
                    left = low
                    right = high
                else:
                    fits_left = low == left or high == left
                    fits_right = low == right or high == right
                    if fits_left and fits_right:
                        new_left = high if low == left else low
                        new_right = high if low == right else low
                        # the ends each placement leaves, sorted: the higher pair wins (equal: left)
                        left_low, left_high = (new_left, right) if new_left <= right else (right, new_left)
                        right_low, right_high = (left, new_right) if left <= new_right else (new_right, left)
                        if right_low > left_low or (right_low == left_low and right_high > left_high):
                            right = new_right
                        else:
                            left = new_left
                    elif fits_left:
                        left = high if low == left else low
                    else:
                        right = high if low == right else low
                length += 1
                hand &= ~(1 << best)
                hands[turn] = hand
                passed = 0
                moves += 1
                seat = turn
                turn = turn + 1 if turn + 1 < players else 0
                if not hand:
                    reason = DOMINO
                    winner = seat
                    break
            elif len(stock) > reserve:
                hands[turn] = hand | 1 << stock.pop()
                passed = 0
                moves += 1
            else:
                passed |= 1 << turn
                moves += 1
                turn = turn + 1 if turn + 1 < players else 0
                if passed == everyone and len(stock) <= reserve:
                    reason = BLOCKED
                    break
        line.left = left
        line.right = right
        line.length = length
        self.turn = turn
        self.passed = passed
        self.moves = moves
        self.reason = reason
        if reason == DOMINO:
            self.winner = winner
        else:  # the unique lowest hand total wins a blocked round
            self.winner = score_round(hands, BLOCKED, None).winner

    def points(self) -> tuple[int, ...]:
        """Each seat's points for the round (All Fives: play points, since the round began, plus the end's)."""
        if self.fives:
            return score_fives_round(self.hands, self.reason, self.winner, self.play_points).points
        return score_round(self.hands, self.reason, self.winner).points

    def _draw_choice(self, playable: int) -> tuple[int, str]:
        best, weight = -1, -1
        rest = playable
        while rest:
            bit = rest & -rest
            tile = bit.bit_length() - 1
            if PIPS[tile] > weight:
                best, weight = tile, PIPS[tile]
            rest ^= bit
        line = self.line
        left, right = line.left, line.right
        if left is None or right is None:
            return best, LEFT
        low, high = _LOW[best], _HIGH[best]
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
        """The most points now, then the heaviest tile, then the lowest id; a tie of ends: the ends left highest.

        Placements are tried tile by tile (ascending id), end by end (left, right,
        up, down); the count each would make is the tableau's count with the
        end taken replaced by the tile's exposed half (:func:`count_after`).
        """
        tableau = self.line
        assert isinstance(tableau, Tableau)
        left, right = tableau.left, tableau.right
        if left is None or right is None:  # the opening tile: its pips are the count
            best_tile, best_points, best_weight = -1, -1, -1
            rest = playable
            while rest:
                bit = rest & -rest
                tile = bit.bit_length() - 1
                points = scored(PIPS[tile])
                if points > best_points or (points == best_points and PIPS[tile] > best_weight):
                    best_tile, best_points, best_weight = tile, points, PIPS[tile]
                rest ^= bit
            return best_tile, LEFT
        arms = tableau.arms_open
        up = tableau.up if arms and tableau.up is not None else -1
        down = tableau.down if arms and tableau.down is not None else -1
        # each end's share of the count now
        left_part = left << 1 if tableau.left_double else left
        right_part = right << 1 if tableau.right_double else right
        up_part = 0
        if tableau.up_length and tableau.up is not None:
            up_part = tableau.up << 1 if tableau.up_double else tableau.up
        down_part = 0
        if tableau.down_length and tableau.down is not None:
            down_part = tableau.down << 1 if tableau.down_double else tableau.down
        total = left_part + right_part + up_part + down_part
        best_points, best_weight, best_tile = -1, -1, -1
        chosen_end = LEFT
        ties: list[str] | None = None
        rest = playable
        while rest:
            bit = rest & -rest
            tile = bit.bit_length() - 1
            rest ^= bit
            a, b = _LOW[tile], _HIGH[tile]
            weight = PIPS[tile]
            double = a == b
            for end_index in range(4):
                if end_index == 0:
                    value, part = left, left_part
                elif end_index == 1:
                    value, part = right, right_part
                elif end_index == 2:
                    value, part = up, up_part
                else:
                    value, part = down, down_part
                if value < 0 or (a != value and b != value):
                    continue
                exposed = b if a == value else a
                count = total - part + (exposed << 1 if double else exposed)
                points = count if count > 0 and count % 5 == 0 else 0
                # the key (points, weight, -tile): tiles come in ascending id, so a later tile never wins a tie
                if points > best_points or (points == best_points and weight > best_weight):
                    best_points, best_weight, best_tile = points, weight, tile
                    chosen_end = _FIVES_ENDS[end_index]
                    ties = None
                elif points == best_points and weight == best_weight and tile == best_tile \
                        and not _mirrored(tableau, chosen_end, end_index):
                    if ties is None:
                        ties = []
                    ties.append(_FIVES_ENDS[end_index])
        if ties is not None:  # the same tile on other ends, as good so far: the ends it leaves decide
            for end in ties:
                if mirror_shape(_placed(tableau, best_tile, chosen_end)) < mirror_shape(
                        _placed(tableau, best_tile, end)):
                    chosen_end = end
        return best_tile, chosen_end


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


def _mirrored(tableau: Tableau, end: str, other: int) -> bool:
    """Whether a tile on ``end`` and on ``_FIVES_ENDS[other]`` leave mirror images: both sides (or arms) alike."""
    if end == LEFT and other == 1:
        return tableau.left == tableau.right and tableau.left_double == tableau.right_double \
            and tableau.left_spinner == tableau.right_spinner
    if end == UP and other == 3:
        return tableau.up == tableau.down and tableau.up_double == tableau.down_double \
            and (tableau.up_length > 0) == (tableau.down_length > 0)
    return False


def _placed(tableau: Tableau, tile: int, end: str) -> Tableau:
    after = tableau.copy()
    after.place_tile(TILES[tile], end)
    return after


def _line_copy(line: Line) -> Line:
    twin = Line()
    twin.left, twin.right, twin.length = line.left, line.right, line.length
    return twin


__all__ = ["Rollout", "count_after"]
