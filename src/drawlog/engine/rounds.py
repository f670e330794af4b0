"""One round (deal) of Draw: hands, stock, line, turn, and the three actions.

Each action has one place where its rules live:

* ``check_draw`` / ``check_play`` / ``check_pass`` list every rule the action
  breaks (empty when legal) and say how to carry it out;
* ``can_draw`` / ``can_play`` / ``can_pass`` answer yes or no;
* ``draw`` / ``play`` / ``pass_turn`` raise :class:`IllegalAction` or apply;
* ``apply_draw`` / ``apply_play`` / ``apply_pass`` carry a move out unchecked,
  so a replay can go on after an illegal but physically possible move;
* ``try_draw`` / ``try_play`` / ``try_pass`` are what a replay calls: a fast
  path for the legal move, else ``check_X`` then ``apply_X`` when possible
  (a property test checks they report exactly what ``check_X`` does).

The round knows seats (0 = first player clockwise), not names, and nothing of
logs: :mod:`drawlog.match` and :mod:`drawlog.validator` sit above it.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from ..errors import Fault, IllegalAction
from .line import LEFT, RIGHT, Line
from .scoring import RoundScore, score_round
from .tiles import FULL_SET, TILES, label, labels, members, tile_count, tile_id

#: The stock tiles that may never be drawn in Draw (``rules.reserve`` changes it for a match).
UNTOUCHABLE: Final = 2
#: How many tiles a draw may skip in the logged stock order and still be read as draws missing from the log.
MAX_MISSING_DRAWS: Final = 2

DOMINO: Final = "domino"
BLOCKED: Final = "blocked"
#: All Fives (format v1.2): a play brought the player's score to the match target, which ends round and match.
TARGET: Final = "target"

_CLEAN: Final[tuple[Fault, ...]] = ()


class Placement(NamedTuple):
    """How a play is carried out: the tile id, the end used, and the open ends after it."""

    tile: int
    end: str
    ends: tuple[int, int]


class Round:
    """The state of one deal, from the first move to domino or block.

    ``hands`` and ``stock`` are tile bit sets (see :mod:`drawlog.tiles`).
    ``stock_order``, when known, lists the stock in draw order.
    """

    __slots__ = (
        "number", "names", "opener", "hands", "stock", "stock_left", "stock_order",
        "line", "turn", "passed", "reason", "winner", "_score", "reserve", "play_points", "last_points",
        "missing",
    )

    def __init__(
        self,
        names: tuple[str, ...],
        opener: int,
        hands: list[int],
        stock: int,
        stock_order: list[int] | None = None,
        number: int = 1,
        reserve: int = UNTOUCHABLE,
    ) -> None:
        self.number = number
        self.names = names
        self.opener = opener
        self.hands = hands
        self.stock = stock
        self.stock_left = tile_count(stock) if 0 <= stock <= FULL_SET else stock.bit_count()
        # Kept reversed so the next tile is popped from the end.
        self.stock_order = stock_order[::-1] if stock_order is not None else None
        self.line = Line()
        self.turn = opener
        #: The bit set of the seats that passed since the last draw or placement.
        self.passed = 0
        self.reason: str | None = None
        self.winner: int | None = None
        self._score: RoundScore | None = None
        #: The stock tiles that may never be drawn.
        self.reserve = reserve
        #: Points scored by placing tiles, per seat (always 0 in Draw), and by the last placement.
        self.play_points = [0] * len(hands)
        self.last_points = 0
        #: Tiles the logged stock order skipped: drawn, it seems, in lines missing from the log. Each is
        #: presumed in the hand of the player whose draw skipped it, until a move shows who holds it.
        self.missing = 0

    def copy(self) -> Round:
        """An independent copy of this state (for trying a move, or a bot's look-ahead)."""
        twin = Round(self.names, self.opener, list(self.hands), self.stock, None, self.number, self.reserve)
        self._copy_into(twin)
        return twin

    def _copy_into(self, twin: Round) -> None:
        twin.stock_order = list(self.stock_order) if self.stock_order is not None else None
        twin.line.left, twin.line.right, twin.line.length = self.line.left, self.line.right, self.line.length
        twin.turn, twin.passed = self.turn, self.passed
        twin.reason, twin.winner, twin._score = self.reason, self.winner, self._score
        twin.play_points, twin.last_points = list(self.play_points), self.last_points
        twin.missing = self.missing

    # -- queries -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the round ended (domino, block, or All Fives' target)."""
        return self.reason is not None

    def ended_text(self) -> str:
        """How the round ended, for messages: ``domino: ann went out``, ``blocked: every player passed``."""
        winner = self.winner
        how = "every player passed" if winner is None or self.reason != DOMINO \
            else f"{self.names[winner]} went out"
        return f"{self.reason}: {how}"

    def playable(self, seat: int) -> int:
        """The bit set of the seat's tiles that fit the line now."""
        return self.hands[seat] & self.line.fitting()

    def on_line(self) -> int:
        """The bit set of tiles placed so far (every tile in neither a hand nor the stock)."""
        held = 0
        for hand in self.hands:
            held |= hand
        return FULL_SET & ~held & ~self.stock

    def drawing_allowed(self) -> bool:
        """Whether the stock holds more than the tiles that may never be drawn."""
        return self.stock_left > self.reserve

    def __repr__(self) -> str:
        hands = ", ".join(f"{name!r}: {labels(hand)}" for name, hand in zip(self.names, self.hands))
        state = f"over: {self.reason}" if self.reason is not None else f"turn={self.names[self.turn]!r}"
        return (f"{type(self).__name__}(number={self.number}, {state}, line={self.line!r}, "
                f"stock={self.stock_left}, hands={{{hands}}})")

    def next_stock_tile(self) -> int | None:
        """The tile the next draw takes, when the stock order is known."""
        if self.stock_order:
            return self.stock_order[-1]
        return None

    def score(self) -> RoundScore:
        """The round's result: who scores what from the hands left (nobody while it is not over)."""
        if self._score is not None:
            return self._score
        score = score_round(self.hands, self.reason, self.winner)
        if self.reason is not None:
            self._score = score  # an ended round's hands no longer change
        return score

    def legal_plays(self, seat: int) -> list[tuple[tuple[int, int], str]]:
        """Every legal placement for ``seat`` now, as ``(halves, end)``; distinct lines only."""
        if self.reason is not None or seat != self.turn:
            return []
        plays = []
        for tile in members(self.playable(seat)):
            halves = TILES[tile]
            seen = set()
            for end, ends in self.line.placements(halves).items():
                if ends not in seen:
                    seen.add(ends)
                    plays.append((halves, end))
        return plays

    # -- draw --------------------------------------------------------------

    def check_draw(self, seat: int, halves: tuple[int, int]) -> tuple[tuple[Fault, ...], int | None]:
        """The rules a draw of ``halves`` by ``seat`` breaks, and the tile to take (``None``: impossible)."""
        tile = tile_id(halves)
        faults, settled = self._before_draw(seat, tile)
        if settled:
            return tuple(faults), tile if self.reason is None else None
        if self.stock_left <= self.reserve:
            faults.append(Fault("M205", _no_draw_left(self.stock_left, self.reserve)))
        if not self.stock >> tile & 1:
            faults.append(Fault("M206", f"draws {label(tile)}, which is not in the stock "
                                        f"({self._whereabouts(tile)})", True))
            return tuple(faults), None
        if self.stock_order and self.stock_order[-1] != tile:
            faults.append(_out_of_order(self.stock_order, tile, "stock"))
        return tuple(faults), tile

    def _before_draw(self, seat: int, tile: int) -> tuple[list[Fault], bool]:
        """M209 or M201 for a draw, and whether that settles it: the round is over (nothing drawn), or the
        tile is one a missing draw took (:attr:`missing`: M206 said so when it was skipped)."""
        if self.reason is not None:
            return [_over(self, "draws")], True
        faults = [_out_of_turn(self, seat, "draws")] if seat != self.turn else []
        return faults, bool(self.missing >> tile & 1)

    def can_draw(self, seat: int, halves: tuple[int, int] | None = None) -> bool:
        """Whether ``seat`` may draw now (``halves``: the particular tile, if known)."""
        if halves is None:
            return self.reason is None and seat == self.turn and self.stock_left > self.reserve
        return not self.check_draw(seat, halves)[0]

    def draw(self, seat: int, halves: tuple[int, int]) -> int:
        """Draw ``halves`` for ``seat``, or raise :class:`IllegalAction`; returns the tile id."""
        faults, tile = self.check_draw(seat, halves)
        if faults:
            raise IllegalAction(list(faults))
        self.apply_draw(seat, tile)  # type: ignore[arg-type]
        return tile  # type: ignore[return-value]

    def try_draw(self, seat: int, halves: tuple[int, int]) -> tuple[Fault, ...]:
        """Replay a logged draw: apply it when physically possible; return the rules it breaks."""
        tile = tile_id(halves)
        if self.reason is None and seat == self.turn and self.stock_left > self.reserve \
                and self.stock >> tile & 1:
            order = self.stock_order
            if not order or order[-1] == tile:
                self.apply_draw(seat, tile)
                return _CLEAN
        faults, possible = self.check_draw(seat, halves)
        if possible is not None:
            self.apply_draw(seat, possible)
        return faults

    def apply_draw(self, seat: int, tile: int) -> None:
        """Move ``tile`` from the stock to ``seat``'s hand, unchecked; the seat keeps the turn.

        A tile one or two places down the logged stock order is taken as drawn
        after the tiles above it, which were drawn, it seems, in lines missing
        from the log: they leave the stock for :attr:`missing`, so later draws
        follow the order again and a later move with one of them is not a fault
        twice. A tile further down means the order is not followed: it is no
        longer checked this round.
        """
        bit = 1 << tile
        self.turn = seat
        self.passed = 0
        if self.missing & bit:
            self._claim(seat, bit)
            return
        hands = self.hands  # (an item updated as `a[i] = a[i] | b`: compiled code skips the generic |=)
        hands[seat] = hands[seat] | bit
        self.stock &= ~bit
        self.stock_left -= 1
        order = self.stock_order
        if order:
            if order[-1] == tile:
                order.pop()
            elif tile in order and len(order) - order.index(tile) - 1 <= MAX_MISSING_DRAWS:
                while order[-1] != tile:
                    skipped = 1 << order.pop()
                    self.stock &= ~skipped
                    self.stock_left -= 1
                    self.missing |= skipped
                    hands[seat] = hands[seat] | skipped
                order.pop()
            else:
                self.stock_order = None

    def _claim(self, seat: int, bit: int) -> None:
        """Give ``seat`` a tile of a missing draw (:attr:`missing`), from whichever hand it was presumed in."""
        self.missing &= ~bit
        for other in range(len(self.hands)):
            self.hands[other] = self.hands[other] & ~bit
        self.hands[seat] = self.hands[seat] | bit

    # -- play --------------------------------------------------------------

    def check_play(
        self, seat: int, halves: tuple[int, int], end: str | None = None
    ) -> tuple[tuple[Fault, ...], Placement | None]:
        """The rules placing ``halves`` on ``end`` breaks, and how to place it (``None``: impossible)."""
        tile = tile_id(halves)
        faults = self._before_play(seat, tile)
        if self.reason is not None:
            return tuple(faults), None
        line = self.line
        options = line.placements(halves)
        ends = line.resolve(halves, end)
        if end is not None and ends is None and end != LEFT and end != RIGHT:
            faults.append(Fault("M212", f"plays {label(tile)} {end}: Draw has no spinner, so no up or down end",
                                True))
        elif end is not None and ends is None:
            value = line.left if end == LEFT else line.right
            other = RIGHT if end == LEFT else LEFT
            fits = f"; it fits the {other} end ({line.right if end == LEFT else line.left})" if other in options else ""
            faults.append(Fault("M203", f"{label(tile)} does not match the {end} end ({value}){fits}", True))
        elif not options:
            faults.append(Fault("M203", f"{label(tile)} matches neither end ({line.left} and "
                                        f"{line.right})", True))
        elif ends is None:
            faults.append(Fault("M204", f"{label(tile)} fits both ends ({line.left} and {line.right}) "
                                        f"with different results: say \"end\"; taken as left"))
        if any(fault.impossible for fault in faults):
            return tuple(faults), None
        if ends is None:
            end, ends = LEFT, options[LEFT]
        elif end is None:
            end = LEFT if options.get(LEFT) == ends else RIGHT
        return tuple(faults), Placement(tile, end, ends)

    def _before_play(self, seat: int, tile: int) -> list[Fault]:
        """M209 for a play after the round (nothing else then), else M201 and M202 as they apply."""
        if self.reason is not None:
            return [_over(self, "plays")]
        faults = [_out_of_turn(self, seat, "plays")] if seat != self.turn else []
        if not (self.hands[seat] | self.missing) >> tile & 1:
            faults.append(self._not_held(seat, tile))
        return faults

    def can_play(self, seat: int, halves: tuple[int, int], end: str | None = None) -> bool:
        """Whether ``seat`` may place ``halves`` on ``end`` now."""
        return not self.check_play(seat, halves, end)[0]

    def play(self, seat: int, halves: tuple[int, int], end: str | None = None) -> Placement:
        """Place a tile for ``seat``, or raise :class:`IllegalAction`."""
        faults, placement = self.check_play(seat, halves, end)
        if faults:
            raise IllegalAction(list(faults))
        self.apply_play(seat, placement)  # type: ignore[arg-type]
        return placement  # type: ignore[return-value]

    def try_play(self, seat: int, halves: tuple[int, int], end: str | None = None) -> tuple[Fault, ...]:
        """Replay a logged play: apply it when physically possible; return the rules it breaks."""
        tile = tile_id(halves)
        a, b = halves
        hand = self.hands[seat]
        if self.reason is None and seat == self.turn and hand >> tile & 1 and self.line.extend(a, b, end):
            self._placed(seat, hand & ~(1 << tile))
            return _CLEAN
        faults, placement = self.check_play(seat, halves, end)
        if placement is not None:
            self.apply_play(seat, placement)
        return faults

    def apply_play(self, seat: int, placement: Placement) -> None:
        """Carry out a placement, unchecked; ends the round on the seat's last tile.

        A tile drawn in a line missing from the log (:attr:`missing`, or the
        stock's next one: :meth:`seems_drawn`) is taken as the seat's first.
        """
        self._take_missing(seat, placement.tile)
        self._place(seat, placement.tile, placement.ends)

    def seems_drawn(self, tile: int) -> bool:
        """Whether a tile played from the stock can be read as drawn in a line missing from the log.

        It must be the one the player would have drawn: drawing allowed, and the
        next tile of the logged stock order (with no order logged, nothing tells).
        """
        order = self.stock_order
        return bool(order) and order[-1] == tile and self.stock_left > self.reserve  # type: ignore[index]

    def _not_held(self, seat: int, tile: int) -> Fault:
        """M202; applied as after a missing draw when the tile :meth:`seems_drawn`, else impossible."""
        if self.seems_drawn(tile):
            return Fault("M202", f"plays {label(tile)}, which {self.names[seat]} does not hold: it is in the "
                                 f"stock, and a draw of it seems to be missing before this line")
        return Fault("M202", f"plays {label(tile)}, which {self.names[seat]} does not hold "
                             f"({self._whereabouts(tile)})", True)

    def _take_missing(self, seat: int, tile: int) -> None:
        """Before a play: give ``seat`` a tile it seems to have drawn in a line missing from the log."""
        bit = 1 << tile
        if self.missing & bit:
            self._claim(seat, bit)
        elif not self.hands[seat] & bit and self.stock & bit:
            turn = self.turn
            self.apply_draw(seat, tile)
            self.turn = turn

    def _place(self, seat: int, tile: int, ends: tuple[int, int]) -> None:
        self.line.place(ends)
        self._placed(seat, self.hands[seat] & ~(1 << tile))

    def _placed(self, seat: int, hand: int) -> None:
        """After a tile is placed on the line: ``hand`` is what the seat holds now."""
        self.hands[seat] = hand
        self.passed = 0
        self.last_points = 0
        self.turn = seat + 1 if seat + 1 < len(self.hands) else 0
        if not hand:
            self.reason = DOMINO
            self.winner = seat

    def check_points(self, claimed: int) -> Fault | None:
        """R308: a play's claimed ``points`` against what the last placement scored (never anything in Draw)."""
        if claimed == self.last_points:
            return None
        return Fault("R308", f"claims {claimed} points for the play; placing a tile never scores in Draw")

    # -- pass --------------------------------------------------------------

    def check_pass(self, seat: int) -> tuple[Fault, ...]:
        """The rules a pass by ``seat`` breaks (empty when the pass is legal)."""
        if self.reason is not None:
            return (_over(self, "passes"),)
        faults = []
        if seat != self.turn:
            faults.append(_out_of_turn(self, seat, "passes"))
        if self.stock_left > self.reserve:
            faults.append(Fault("M207", f"passes with {self.stock_left} tiles in the stock: "
                                        f"drawing is allowed until {_count_of(self.reserve)} "
                                        f"{'is' if self.reserve == 1 else 'are'} left"))
        playable = self.playable(seat)
        if playable:
            where = "the empty line" if self.line.is_empty else \
                f"the ends {self.line.left} and {self.line.right}"
            verb = "fits" if playable.bit_count() == 1 else "fit"
            faults.append(Fault("M208", f"passes holding {labels(playable)}, which {verb} {where}"))
        return tuple(faults)

    def can_pass(self, seat: int) -> bool:
        """Whether ``seat`` may pass now."""
        return not self.check_pass(seat)

    def pass_turn(self, seat: int) -> None:
        """Pass for ``seat``, or raise :class:`IllegalAction`."""
        faults = self.check_pass(seat)
        if faults:
            raise IllegalAction(list(faults))
        self.apply_pass(seat)

    def try_pass(self, seat: int) -> tuple[Fault, ...]:
        """Replay a logged pass: apply it unless the round is over; return the rules it breaks."""
        if self.reason is None and seat == self.turn and self.stock_left <= self.reserve \
                and not self.hands[seat] & self.line.fitting():
            self.apply_pass(seat)
            return _CLEAN
        faults = self.check_pass(seat)
        if not faults or not faults[0].impossible:
            self.apply_pass(seat)
        return faults

    def apply_pass(self, seat: int) -> None:
        """Carry out a pass, unchecked.

        The round is blocked once every player has passed, with no draw or
        placement since, and the stock down to two: with more in the stock drawing
        is still possible, so even a table of (illegal) passes does not end the
        round, nor does one player passing again and again out of turn.
        """
        players = len(self.hands)
        self.turn = (seat + 1) % players
        self.passed |= 1 << seat
        if self.passed == (1 << players) - 1 and self.stock_left <= self.reserve:
            self.reason = BLOCKED
            self.winner = self.score().winner

    # -- helpers -----------------------------------------------------------

    def _whereabouts(self, tile: int) -> str:
        for seat, hand in enumerate(self.hands):
            if hand >> tile & 1:
                return f"{self.names[seat]} holds it"
        if self.stock >> tile & 1:
            return "it is in the stock"
        if self.line.is_empty:
            return "it was dealt to nobody"
        return "it is on the line"


def _count_of(number: int) -> str:
    """Small counts in words, as the rules write them (``the last two``)."""
    return ("no", "one", "two", "three", "four")[number] if 0 <= number <= 4 else str(number)


def _out_of_order(order: list[int], tile: int, stock: str) -> Fault:
    """M206 for a tile drawn before the next ones of the logged order (``order`` reversed: next last)."""
    expected = order[-1]
    skipped = order[order.index(tile) + 1:] if tile in order else order
    if len(skipped) > MAX_MISSING_DRAWS:
        return Fault("M206", f"draws {label(tile)}; the logged {stock} order gives {label(expected)} next: "
                             f"the order is not followed, and no longer checked this round")
    listed = ", ".join(label(each) for each in reversed(skipped))
    seems = f"a draw of {listed} seems" if len(skipped) == 1 else f"draws of {listed} seem"
    return Fault("M206", f"draws {label(tile)}; the logged {stock} order gives {label(expected)} next: "
                         f"{seems} to be missing before this line")


def _no_draw_left(stock_left: int, reserve: int) -> str:
    """M205's message: why no tile may be drawn from a stock of ``stock_left`` tiles."""
    if reserve == 0:
        return "draw from an empty stock"
    tiles = f"{stock_left} tile{'s' if stock_left != 1 else ''}"
    return f"draw with {tiles} left in the stock: the last {_count_of(reserve)} " \
           f"{'is' if reserve == 1 else 'are'} never drawn"


def _out_of_turn(state: Round, seat: int, verb: str) -> Fault:
    return Fault("M201", f"{state.names[seat]} {verb} out of turn: it is {state.names[state.turn]}'s turn")


def _over(state: Round, verb: str) -> Fault:
    return Fault("M209", f"{verb} after the round ended ({state.ended_text()})", True)

