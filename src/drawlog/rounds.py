"""One round (deal) of Draw: hands, stock, line, turn, and the three actions.

Each action has one place where its rules live:

* ``check_draw`` / ``check_play`` / ``check_pass`` list every rule the action
  breaks (empty when legal) and say how to carry it out;
* ``can_draw`` / ``can_play`` / ``can_pass`` answer yes or no;
* ``draw`` / ``play`` / ``pass_turn`` raise :class:`IllegalAction` or apply;
* ``apply_draw`` / ``apply_play`` / ``apply_pass`` carry a move out unchecked,
  so a replay can go on after an illegal but physically possible move.

The round knows seats (0 = first player clockwise), not names, and nothing of
logs: :mod:`drawlog.match` and :mod:`drawlog.validator` sit above it.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import Fault, IllegalAction
from .line import LEFT, RIGHT, Line
from .scoring import RoundScore, score_round
from .tiles import TILES, label, labels, members, tile_id

#: The stock tiles that may never be drawn.
UNTOUCHABLE = 2

DOMINO = "domino"
BLOCKED = "blocked"

_CLEAN: tuple[Fault, ...] = ()


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
        "line", "on_line", "turn", "passes_in_row", "reason", "winner",
    )

    def __init__(
        self,
        names: tuple[str, ...],
        opener: int,
        hands: list[int],
        stock: int,
        stock_order: list[int] | None = None,
        number: int = 1,
    ) -> None:
        self.number = number
        self.names = names
        self.opener = opener
        self.hands = hands
        self.stock = stock
        self.stock_left = stock.bit_count()
        # Kept reversed so the next tile is popped from the end.
        self.stock_order = list(reversed(stock_order)) if stock_order is not None else None
        self.line = Line()
        self.on_line = 0
        self.turn = opener
        self.passes_in_row = 0
        self.reason: str | None = None
        self.winner: int | None = None

    # -- queries -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the round ended by domino or block."""
        return self.reason is not None

    @property
    def players(self) -> int:
        """How many players sit at the table."""
        return len(self.names)

    def playable(self, seat: int) -> int:
        """The bit set of the seat's tiles that fit the line now."""
        return self.hands[seat] & self.line.fitting()

    def drawing_allowed(self) -> bool:
        """Whether the stock holds more than the two untouchable tiles."""
        return self.stock_left > UNTOUCHABLE

    def next_stock_tile(self) -> int | None:
        """The tile the next draw takes, when the stock order is known."""
        if self.stock_order:
            return self.stock_order[-1]
        return None

    def score(self) -> RoundScore:
        """The round's result (call once the round is over)."""
        return score_round(self.hands, self.reason, self.winner)

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
        if self.reason is None and seat == self.turn and self.stock_left > UNTOUCHABLE:
            order = self.stock_order
            if self.stock >> tile & 1 and (not order or order[-1] == tile):
                return _CLEAN, tile
        faults = []
        if self.reason is not None:
            return (_over(self, "draws"),), None
        if seat != self.turn:
            faults.append(_out_of_turn(self, seat, "draws"))
        if self.stock_left <= UNTOUCHABLE:
            faults.append(Fault(
                "M205",
                f"draw with {self.stock_left} tile{'s' if self.stock_left != 1 else ''} left in the "
                f"stock: the last two are never drawn",
            ))
        if not self.stock >> tile & 1:
            faults.append(Fault("M206", f"draws {label(tile)}, which is not in the stock "
                                        f"({self._whereabouts(tile)})", True))
            return tuple(faults), None
        if self.stock_order and self.stock_order[-1] != tile:
            faults.append(Fault("M206", f"draws {label(tile)}; the logged stock order gives "
                                        f"{label(self.stock_order[-1])} next"))
        return tuple(faults), tile

    def can_draw(self, seat: int, halves: tuple[int, int] | None = None) -> bool:
        """Whether ``seat`` may draw now (``halves``: the particular tile, if known)."""
        if halves is None:
            return self.reason is None and seat == self.turn and self.stock_left > UNTOUCHABLE
        return not self.check_draw(seat, halves)[0]

    def draw(self, seat: int, halves: tuple[int, int]) -> int:
        """Draw ``halves`` for ``seat``, or raise :class:`IllegalAction`; returns the tile id."""
        faults, tile = self.check_draw(seat, halves)
        if faults:
            raise IllegalAction(list(faults))
        self.apply_draw(seat, tile)  # type: ignore[arg-type]
        return tile  # type: ignore[return-value]

    def apply_draw(self, seat: int, tile: int) -> None:
        """Move ``tile`` from the stock to ``seat``'s hand, unchecked; the seat keeps the turn."""
        bit = 1 << tile
        self.stock &= ~bit
        self.stock_left -= 1
        self.hands[seat] |= bit
        order = self.stock_order
        if order:
            if order[-1] == tile:
                order.pop()
            elif tile in order:
                order.remove(tile)
        self.turn = seat
        self.passes_in_row = 0

    # -- play --------------------------------------------------------------

    def check_play(
        self, seat: int, halves: tuple[int, int], end: str | None = None
    ) -> tuple[tuple[Fault, ...], Placement | None]:
        """The rules placing ``halves`` on ``end`` breaks, and how to place it (``None``: impossible)."""
        tile = tile_id(halves)
        options = self.line.placements(halves)
        held = self.hands[seat] >> tile & 1
        if self.reason is None and seat == self.turn and held:
            if end is not None:
                if end in options:
                    return _CLEAN, Placement(tile, end, options[end])
            elif len(options) == 1 or (options and options[LEFT] == options[RIGHT]):
                end, ends = next(iter(options.items()))
                return _CLEAN, Placement(tile, end, ends)
        if self.reason is not None:
            return (_over(self, "plays"),), None
        faults = []
        if seat != self.turn:
            faults.append(_out_of_turn(self, seat, "plays"))
        if not held:
            faults.append(Fault("M202", f"plays {label(tile)}, which {self.names[seat]} does not hold "
                                        f"({self._whereabouts(tile)})", True))
        line = self.line
        if end is not None and end not in options:
            value = line.left if end == LEFT else line.right
            faults.append(Fault("M203", f"{label(tile)} does not match the {end} end ({value})", True))
        elif not options:
            faults.append(Fault("M203", f"{label(tile)} matches neither end ({line.left} and "
                                        f"{line.right})", True))
        elif end is None and len(options) == 2 and options[LEFT] != options[RIGHT]:
            faults.append(Fault("M204", f"{label(tile)} fits both ends ({line.left} and {line.right}) "
                                        f"with different results: say \"end\"; taken as left"))
        if any(fault.impossible for fault in faults):
            return tuple(faults), None
        chosen = end if end is not None else next(iter(options))
        return tuple(faults), Placement(tile, chosen, options[chosen])

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

    def apply_play(self, seat: int, placement: Placement) -> None:
        """Carry out a placement, unchecked; ends the round on the seat's last tile."""
        bit = 1 << placement.tile
        self.hands[seat] &= ~bit
        self.on_line |= bit
        self.line.place(placement.ends)
        self.passes_in_row = 0
        self.turn = (seat + 1) % len(self.hands)
        if not self.hands[seat]:
            self.reason = DOMINO
            self.winner = seat

    # -- pass --------------------------------------------------------------

    def check_pass(self, seat: int) -> tuple[Fault, ...]:
        """The rules a pass by ``seat`` breaks (empty when the pass is legal)."""
        if self.reason is not None:
            return (_over(self, "passes"),)
        faults = []
        if seat != self.turn:
            faults.append(_out_of_turn(self, seat, "passes"))
        if self.stock_left > UNTOUCHABLE:
            faults.append(Fault("M207", f"passes with {self.stock_left} tiles in the stock: "
                                        f"drawing is allowed until two are left"))
        playable = self.playable(seat)
        if playable:
            where = "the empty line" if self.line.is_empty else \
                f"the ends {self.line.left} and {self.line.right}"
            faults.append(Fault("M208", f"passes holding {labels(playable)}, which fit{'s' if playable.bit_count() == 1 else ''} {where}"))
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

    def apply_pass(self, seat: int) -> None:
        """Carry out a pass, unchecked; the round is blocked once every player passed in a row."""
        players = len(self.hands)
        self.turn = (seat + 1) % players
        self.passes_in_row += 1
        if self.passes_in_row >= players:
            self.reason = BLOCKED
            self.winner = self.score().winner

    # -- helpers -----------------------------------------------------------

    def _whereabouts(self, tile: int) -> str:
        if self.on_line >> tile & 1:
            return "it is on the line"
        for seat, hand in enumerate(self.hands):
            if hand >> tile & 1:
                return f"{self.names[seat]} holds it"
        if self.stock >> tile & 1:
            return "it is in the stock"
        return "it is nowhere in this deal"


def _out_of_turn(state: Round, seat: int, verb: str) -> Fault:
    return Fault("M201", f"{state.names[seat]} {verb} out of turn: it is {state.names[state.turn]}'s turn")


def _over(state: Round, verb: str) -> Fault:
    how = f"{state.names[state.winner]} went out" if state.reason == DOMINO else "every player passed"
    return Fault("M209", f"{verb} after the round ended ({state.reason}: {how})", True)

