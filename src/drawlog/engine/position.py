"""Position strings: one line holding everything needed to continue a round (a FEN for dominoes).

A :class:`Position` is the state of one round in play, with the match around
it: the game and its house rules, the players in seat order with their match
scores before the round, the round number and opener, the line (the tiles in
the order they were placed, each with its end), every hand, the stock (in draw
order when known, else as a set), whose turn it is, and what the engine needs
beyond that (the seats that passed since the last draw or placement, All Fives'
points scored this round and the just-drawn tile that must be placed, M211).

``Position.from_round(state, …)`` reads it off the engine, :meth:`Position.to_string`
writes the line (``dp1 draw h7r2t100 ann:0,bob:0 round=1 …``: the grammar is in
``docs/position.md``), :meth:`Position.parse` reads one back or raises
:class:`~drawlog.errors.PositionError` naming the column, and
:meth:`Position.to_round` gives an engine state to continue the round on with
the engine's own legal moves. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .allfives import NO_TILE, FivesRound
from .board import Board
from .line import DOWN, LEFT, RIGHT, UP
from .position_text import (
    VERSION,
    Laid,
    _ends_text,
    _line_of,
    _line_text,
    _mask_text,
    _name,
    _tile,
    _tiles,
    parse_position,
)
from .profiles import PROFILES
from .rounds import Round
from .tableau import Tableau
from .tiles import members

if TYPE_CHECKING:
    from .match import Match
    from .profiles import GameRules



@dataclass(frozen=True)
class Position:
    """Everything needed to continue a round; hands and ``missing`` are tile bit sets (see :mod:`.tiles`).

    ``target`` is ``None`` when no target is in play this round (a match decided
    already); ``stock`` lists tile ids, in draw order (next first) when
    ``stock_ordered``, else lowest first; ``passed`` is the bit set of seats that
    passed since the last draw or placement; ``points`` what each seat scored by
    placing tiles this round (All Fives); ``must_place`` the tile just drawn that
    must be placed at once (``-1``: none); ``over`` the round's end reason, if any.
    """

    variant: str
    hand: int
    reserve: int
    target: int | None
    names: tuple[str, ...]
    scores: tuple[int, ...]
    round: int
    opener: int
    line: tuple[Laid, ...]
    hands: tuple[int, ...]
    stock: tuple[int, ...]
    stock_ordered: bool
    turn: int
    passed: int = 0
    points: tuple[int, ...] = ()
    must_place: int = NO_TILE
    missing: int = 0
    over: str | None = None
    winner: int | None = None

    # -- from the engine ---------------------------------------------------------

    @classmethod
    def from_round(cls, state: Round, *, rules: GameRules | None = None, scores: Sequence[int] | None = None,
                   board: Board | None = None, line: Sequence[Laid] | None = None) -> Position:
        """The position of ``state``: ``rules`` and ``scores`` (before the round) from its match.

        The line's tiles come from ``board`` (the round's :class:`~.board.Board`)
        or ``line`` (the placements in order); one is needed once a tile is down.
        Without ``rules`` the game's standard hand and target are written.
        """
        fives = isinstance(state, FivesRound)
        profile = PROFILES["all-fives" if fives else "draw"]
        players = len(state.names)
        standard = profile.rules_for(players)
        laid = tuple(line) if line is not None else placements(board) if board is not None else ()
        if len(laid) != state.line.length:
            raise ValueError(f"the line holds {state.line.length} tiles: give the round's board or its placements")
        if isinstance(state, FivesRound):
            target = state.target
            before = list(scores) if scores is not None else [0] * players if target is None \
                else [target - need for need in state.to_win]
        else:
            target = rules.target if rules is not None else standard.target
            before = list(scores) if scores is not None else [0] * players
        order = state.stock_order
        ordered = bool(order) and _bits(order) == state.stock  # type: ignore[arg-type]
        stock = tuple(reversed(order)) if ordered else tuple(members(state.stock))  # type: ignore[arg-type]
        position = cls(
            variant=profile.name, hand=rules.hand if rules is not None else standard.hand, reserve=state.reserve,
            target=target, names=tuple(state.names), scores=tuple(before), round=state.number, opener=state.opener,
            line=laid, hands=tuple(state.hands), stock=stock, stock_ordered=ordered, turn=state.turn,
            passed=state.passed, points=tuple(state.play_points) if fives else (),
            must_place=state.must_place if isinstance(state, FivesRound) else NO_TILE, missing=state.missing,
            over=state.reason, winner=state.winner if state.reason is not None else None)
        position.__dict__["ends_text"] = _ends_text(state.line)  # (the state's own line: no need to rebuild it)
        return position

    @classmethod
    def from_match(cls, match: Match, board: Board | None = None, line: Sequence[Laid] | None = None) -> Position:
        """The position of the match's round (in play, or just settled: its scores then taken back off).

        ``board`` or ``line`` gives the line's tiles, as for :meth:`from_round`.
        """
        state = match.round
        if state is None:
            raise ValueError("no round has started")
        scores = list(match.scores)
        if not match.round_open and match.round_points:
            scores = [score - points for score, points in zip(scores, match.round_points[-1])]
        return cls.from_round(state, rules=match.rules, scores=scores, board=board, line=line)

    # -- to the engine -----------------------------------------------------------

    def to_round(self) -> Round:
        """A new engine state of this position: continue it with the engine's own moves and checks."""
        profile = PROFILES[self.variant]
        fives = self.variant == "all-fives"
        state = profile.new_round(self.names, self.opener, list(self.hands), _bits(self.stock),
                                  list(self.stock) if self.stock_ordered else None, self.round, self.reserve,
                                  list(self.scores) if self.target is not None else None, self.target)
        built = _line_of(fives, self.line)
        if isinstance(state, FivesRound):
            assert isinstance(built, Tableau)
            state.tableau = built
            state.must_place = self.must_place
            state.play_points = list(self.points) if self.points else [0] * len(self.names)
        state.line = built
        state.turn, state.passed, state.missing = self.turn, self.passed, self.missing
        state.reason, state.winner = self.over, self.winner
        return state

    def board(self) -> Board:
        """The line as a :class:`~.board.Board` (its layout, sides and open points), for the views."""
        board = Board(self.variant == "all-fives")
        for halves, end in self.line:
            board.place(halves, end)
        return board

    # -- text ----------------------------------------------------------------------

    def to_string(self) -> str:
        """The one-line text form (``docs/position.md``); :meth:`parse` reads it back equal."""
        names = self.names
        target = "-" if self.target is None else str(self.target)
        tokens = [VERSION, self.variant, f"h{self.hand}r{self.reserve}t{target}",
                  ",".join(f"{_name(name)}:{score}" for name, score in zip(names, self.scores)),
                  f"round={self.round}", f"opener={_name(names[self.opener])}",
                  f"line={_line_text(self.line)}", f"ends={self._ends()}",
                  f"hands={'/'.join(map(_mask_text, self.hands))}",
                  f"stock={'-' if not self.stock else ('order:' if self.stock_ordered else 'set:') + _tiles(self.stock)}",
                  f"turn={_name(names[self.turn])}"]
        if self.passed:
            tokens.append("passed=" + ",".join(_name(names[seat]) for seat in range(len(names)) if self.passed >> seat & 1))
        if any(self.points):
            tokens.append("points=" + ",".join(map(str, self.points)))
        if self.must_place != NO_TILE:
            tokens.append(f"must={_tile(self.must_place)}")
        if self.missing:
            tokens.append(f"missing={_mask_text(self.missing)}")
        if self.over is not None:
            tokens.append(f"over={self.over}" + (f":{_name(names[self.winner])}" if self.winner is not None else ""))
        return " ".join(tokens)

    def _ends(self) -> str:
        """The ``ends=`` value: the open values the line leaves (kept from the engine's line when read off one)."""
        ends = self.__dict__.get("ends_text")
        return ends if ends is not None else _ends_text(_line_of(self.variant == "all-fives", self.line))

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"Position({self.to_string()!r})"

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read a position string, or raise :class:`~drawlog.errors.PositionError` naming the column at fault."""
        return cls(**parse_position(text))


def placements(board: Board) -> tuple[Laid, ...]:
    """The board's tiles in the order placed, each with its end (the opening one as written, on ``left``)."""
    spots: dict[int, Laid] = {}
    first = board.placed[0] if board.placed else -1
    opening = next((index for index, piece in enumerate(board.chain) if piece.tile == first), 0)
    for index, piece in enumerate(board.chain):
        if piece.tile == first:
            spots[piece.tile] = (piece.show, LEFT)
        elif index < opening:
            spots[piece.tile] = ((piece.show[1], piece.show[0]), LEFT)
        else:
            spots[piece.tile] = (piece.show, RIGHT)
    for end in (UP, DOWN):
        for piece in board.arms[end]:
            spots[piece.tile] = (piece.show, end)
    return tuple(spots[tile] for tile in board.placed)



def _bits(tiles: Sequence[int]) -> int:
    mask = 0
    for tile in tiles:
        mask |= 1 << tile
    return mask


__all__ = ["VERSION", "Laid", "Position", "placements"]
