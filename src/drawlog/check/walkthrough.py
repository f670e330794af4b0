"""One match, event by event: the board, the hands and the violations after each line.

:func:`walk` finds a match's lines in a log without decoding the rest (a
byte search for its id, block by block), replays them through the same
:class:`~drawlog.check.validator.Validator` as ``drawlog validate`` — so the
violations are the same, on the same lines — and yields a *frame* per line
of the match: plain data that the views render (text, JSON, SVG). A broken
line naming no match is this match's lost move only if no other is open then,
as for ``validate``: :mod:`drawlog.check.opened` knows which are. The frame's
fields are listed in the README (``drawlog replay``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import msgspec

from ..engine.allfives import FivesRound
from ..engine.board import Board
from ..engine.line import DOWN, LEFT, RIGHT, UP
from ..engine.match import Match
from ..engine.rounds import Round
from ..engine.tiles import TILES, label, members, tile_id
from ..errors import Fault
from ..log.events import Draw, Pass, Play, RoundStart
from ..log.ids import bounded_id
from ..log.reader import Source
from .locate import match_ids, match_lines, numbered_blocks, split_location, what_is_at
from .observer import Observer
from .opened import OpenMatches
from .readings import settle
from .table import Table
from .validator import Validator
from .violations import Violation

Frame = dict[str, Any]


@dataclass(frozen=True)
class Selection:
    """Which frames to keep: one match, optionally one round, up to a line."""

    match: str
    round: int | None = None
    at: int | None = None


def walk(source: Source, selection: Selection, lines: Iterable[tuple[int, bytes]] | None = None,
         positions: bool = True) -> list[Frame]:
    """The frames of the selected match as a list (raises :class:`~drawlog.errors.InputError` when unreadable).

    :func:`frames` one after another, kept; see there for ``lines`` and ``positions``.
    """
    return list(frames(source, selection, lines, positions))


def frames(source: Source, selection: Selection, lines: Iterable[tuple[int, bytes]] | None = None,
           positions: bool | str = True) -> Iterator[Frame]:
    """The frames of the selected match, one at a time (raises :class:`~drawlog.errors.InputError` when unreadable).

    Each frame shows the violations ``drawlog validate`` reports on its line
    and the board after that line as ``validate`` reads it. Memory stays flat
    however long the match: a frame is yielded once the next line of the match
    is read (the match's ``F006``, found when the input ends, belongs on its
    last frame); only while the replay holds moves of a round for a reading of
    a move out of turn (:mod:`drawlog.check.readings`, at most a round) are
    their frames kept, to be given the state each move leaves once the reading
    is chosen — past ``selection.at`` too, so the frame at a held move shows
    it. Only the board of the round in play is kept. ``lines``: the match's
    ``(number, raw line)`` already picked out of the source (by one scan for
    several matches), instead of :func:`match_lines`. ``positions``: write each
    frame's ``position`` string (else None, a little quicker); ``"last"``: only
    the last frame's (the text view shows no other), and those of the selected
    round. Frames are read, not changed: the frames of one round share the
    board's lists until a tile is placed.
    """
    validator = Validator()
    validator.start_input(source.name)
    replay, reporter = validator.replay, validator.reporter
    replay.open_in_input = OpenMatches(source).before  # (a line naming no match: whose lost move, as validate reads it)
    key = bounded_id(selection.match)  # what the replay holds of a long id
    every = positions is True or (positions == "last" and selection.round is not None)
    steps = _Steps(key, every)
    replay.observer = steps
    table: Table | None = None
    every_line = match_lines(source, selection.match, lambda: key in replay.tables) if lines is None else lines
    for number, raw in every_line:
        past = selection.at is not None and number > selection.at
        if past and not steps.waiting:
            break
        table = replay.tables.get(key) or table
        event = validator.decode_line(raw, number)
        ours = event.match == selection.match if event is not None else \
            any(violation.match == key and violation.line == number for violation in reporter.found)
        if not ours:  # another match's line naming this id (a player, say), or one unreadable as any match's
            steps.route(reporter.flush())  # (a broken line read as this match's lost move settles what it held)
            steps.settled(replay.tables.get(key) or table)
            yield from steps.ready(selection)
            continue
        placed = _placement(table.round if table is not None else None, table, event)
        step = None if past else steps.open(number, event)
        if event is not None:
            replay.dispatch(event, number)
        table = replay.tables.get(key) or table
        state = table.round if table is not None else None
        if isinstance(event, RoundStart) and state is not None:
            steps.boards = {state.number: Board(isinstance(state, FivesRound))}  # earlier rounds: done
        if _held(table, number):
            steps.hold(state)
        else:
            if placed is not None and state is not None and not state.hands[placed[2]] >> placed[3] & 1:
                steps.place(state.number, placed[0], placed[1])  # the play was carried out
            if step is not None:
                steps.snapshot(step, table)
        steps.route(reporter.flush())
        steps.settled(table)
        yield from steps.ready(selection)
    if selection.at is None:
        replay.end_input()
    elif steps.waiting and table is not None:  # the input ended while moves were held: read them as it does
        settle(replay, table, None)
    steps.route(reporter.flush())
    steps.settled(table)
    if positions == "last" and not every:
        steps.last_position(table)
    yield from steps.ready(selection, True)


class _Steps(Observer):
    """The frames not given out yet, and the boards drawn beside the replay; hears of each move replayed.

    A frame is *open* from its line until the state after it is known (:meth:`snapshot`): at once for a
    line replayed as it comes, when the reading is chosen for a move held.
    """

    def __init__(self, key: str, positions: bool) -> None:
        self.key = key
        self.positions = positions
        self.boards: dict[int, Board] = {}
        self.drawn: list[Any] = []  # the board last given as data: its lists serve each frame until a tile is placed
        #: The frames not given out yet, in line order; a held move's is open (its state not known yet).
        self.kept: list[Frame] = []
        self.open_lines: set[int] = set()
        #: The round as it stood before the moves held were replayed (then after each): where their tiles go.
        self.before: Round | None = None
        #: The lines of the moves held that were replayed since.
        self.replayed: set[int] = set()

    @property
    def waiting(self) -> bool:
        """Whether a frame waits for the reading of moves held."""
        return bool(self.open_lines)

    def open(self, number: int, event: Any) -> Frame:
        """The frame of line ``number``, kept open until :meth:`snapshot`."""
        frame: Frame = {"line": number, "event": event, "violations": []}
        self.kept.append(frame)
        self.open_lines.add(number)
        return frame

    def hold(self, state: Round | None) -> None:
        """The move just read is held: remember the round as it stands, if no move was held before."""
        if self.before is None and state is not None:
            self.before = state.copy()

    def place(self, round_number: int, halves: tuple[int, int], end: str) -> None:
        """Draw a tile the engine placed (a play the board cannot draw, as on an arm with no value, is left out)."""
        board = self.boards.get(round_number)
        if board is not None:
            try:
                board.place(halves, end)
            except ValueError:
                pass

    def snapshot(self, frame: Frame, table: Table | None, position: bool = False) -> None:
        """Fill ``frame`` with the state after its line, as the replay stands now (``position``: write its string)."""
        self.open_lines.discard(frame["line"])
        violations = frame["violations"]
        frame.update(_frame(frame["line"], frame["event"], table, self.boards, [], self.positions or position,
                            self.drawn))
        frame["violations"] = violations

    def moved(self, table: Table, state: Round, seat: int, event: Draw | Play | Pass, line: int,
              could_play: bool, faults: tuple[Fault, ...]) -> None:
        """A move was replayed: when it was held (a reading chosen), draw its tile and fill its frame."""
        before = self.before
        if table.id != self.key or before is None:
            return
        played = 1 << tile_id(event.tile) if isinstance(event, Play) else 0
        for tile in members(state.on_line() & ~before.on_line() & ~played):
            self._read_in(before, state.number, tile)  # a play a reading put before it (a move missing)
        if isinstance(event, Play):
            placed = _placement(before, table, event)
            if placed is not None and not state.hands[placed[2]] >> placed[3] & 1:
                self.place(state.number, placed[0], placed[1])
        self.before = state.copy()
        self.replayed.add(line)
        for frame in self.kept:  # in line order, each once the held moves up to its line are replayed
            if frame["line"] in self.open_lines:
                if frame["line"] not in self.replayed:
                    break  # (two lines swapped: the first is replayed second, and both show the state after both)
                self.snapshot(frame, table, True)

    def settled(self, table: Table | None) -> None:
        """After a line: once nothing is held, every frame still open shows the state as it stands."""
        held = table.follow.held if table is not None and table.follow is not None else None
        if held is None:
            for frame in self.kept:
                if frame["line"] in self.open_lines:
                    self.snapshot(frame, table, True)
            self.before = None
            self.replayed.clear()

    def _read_in(self, before: Round, round_number: int, tile: int) -> None:
        """Draw a tile placed by a reading (a move read as missing): where it fits ``before``, which takes it."""
        seat = next((seat for seat, hand in enumerate(before.hands) if hand >> tile & 1), None)
        if seat is None:
            return
        halves = TILES[tile]
        for end in (None, LEFT, RIGHT, UP, DOWN):
            _, placement = before.check_play(seat, halves, end)
            if placement is not None:
                self.place(round_number, halves if before.line.is_empty else TILES[placement.tile],
                           LEFT if before.line.is_empty else placement.end)
                before.apply_play(seat, placement)
                return

    def route(self, found: Iterable[Violation]) -> None:
        """Give each violation of the match to the frame of its line (else, as ``F006`` at the end, to the last)."""
        for violation in found:
            if violation.match != self.key or not self.kept:
                continue
            frame = next((frame for frame in reversed(self.kept) if frame["line"] == violation.line), self.kept[-1])
            if violation.line is not None and violation.line > frame["line"]:
                continue  # a line past the last shown (read on past --at to settle a move held)
            frame["violations"].append(_violation(violation))

    def ready(self, selection: Selection, end: bool = False) -> Iterator[Frame]:
        """The frames whose state is known, in line order, but the last (the next line may add to it) unless ``end``."""
        while self.kept and (len(self.kept) > 1 or end) and self.kept[0]["line"] not in self.open_lines:
            frame = self.kept.pop(0)
            if _selected(frame, selection):
                yield frame
        if end:
            self.kept.clear()

    def last_position(self, table: Table | None) -> None:
        """The last frame's position string (the state is still the last frame's)."""
        if self.kept and table is not None and self.kept[-1].get("position", "") is None:
            self.kept[-1]["position"] = _frame(self.kept[-1]["line"], None, table, self.boards, [], True)["position"]


def _held(table: Table | None, number: int) -> bool:
    """Whether the move on line ``number`` is held for a reading."""
    held = table.follow.held if table is not None and table.follow is not None else None
    return held is not None and any(at == number for _, at, _ in held.events)


def _selected(frame: Frame, selection: Selection) -> bool:
    return selection.round is None or frame["round"] == selection.round


def _placement(state: Round | None, table: Table | None,
               event: Any) -> tuple[tuple[int, int], str, int, int] | None:
    """For a play the engine can carry out on ``state``: the halves as the board lays them, the end, the seat and
    the tile."""
    if not isinstance(event, Play) or table is None or state is None:
        return None
    seat = table.seat_of.get(event.player)
    if seat is None:
        return None
    _, placement = state.check_play(seat, event.tile, event.end)
    if placement is None:
        return None
    halves = event.tile if state.line.is_empty else TILES[placement.tile]
    end = LEFT if state.line.is_empty else placement.end
    return halves, end, seat, placement.tile


def _violation(violation: Any) -> dict[str, Any]:
    return {"code": violation.code, "severity": violation.severity, "message": violation.message,
            "player": violation.player}


def _frame(number: int, event: Any, table: Table | None, boards: dict[int, Board],
           violations: list[Any], positions: bool = True, drawn: list[Any] | None = None) -> Frame:
    """Everything a view shows after the event on line ``number``."""
    match = table.match if table is not None else None
    state = table.round if table is not None else None
    if state is None and match is not None:
        state = match.round  # the round just ended, as it stands
    frame: Frame = {
        "line": number,
        "event": msgspec.to_builtins(event) if event is not None else None,
        "type": event.__struct_config__.tag if event is not None else None,
        "match": table.id if table is not None else None,
        "round": state.number if state is not None else None,
        "variant": match.profile.name if match is not None else None,
        "violations": [_violation(violation) for violation in violations],
        "board": None, "hands": {}, "stock_left": None, "drawable": None, "turn": None, "legal": [],
        "scores": dict(zip(match.names, match.scores)) if match is not None else {},
        "over": state.reason if state is not None else None,
        "position": None,
    }
    if state is None or match is None:
        return frame
    board = boards.get(state.number) or Board(isinstance(state, FivesRound))
    data = _board_data(board, drawn if drawn is not None else [])
    data["count"] = state.tableau.count() if isinstance(state, FivesRound) else None
    frame.update({
        "board": data,
        "hands": {name: list(_labels(hand)) for name, hand in zip(state.names, state.hands)},
        "stock_left": state.stock_left,
        "drawable": max(0, state.stock_left - state.reserve),
        "turn": state.names[state.turn] if state.reason is None else None,
        "legal": legal_moves(state) if state.reason is None else [],
        "position": position_string(match, state, boards.get(state.number)) if positions else None,
    })
    return frame


def _board_data(board: Board, drawn: list[Any]) -> dict[str, Any]:
    """``board.as_data()``, made again only when a tile was placed since ``drawn`` (``[board, tiles, data]``) was
    kept: the frames of a draw or a pass share the lists of the frame before (a fresh dict each, to fill in)."""
    if drawn and drawn[0] is board and drawn[1] == len(board.placed):
        return dict(drawn[2])
    data = board.as_data()
    drawn[:] = [board, len(board.placed), data]
    return dict(data)


@lru_cache(maxsize=4096)
def _labels(hand: int) -> tuple[str, ...]:
    """The labels of the tiles of a hand (a set of tile ids as bits), in the order of their ids."""
    return tuple(label(tile) for tile in members(hand))


def position_string(match: Match, state: Round, board: Board | None) -> str | None:
    """The position string of ``state`` (``docs/position.md``); None when the line cannot be told (no board)."""
    from ..engine.position import Position

    try:
        if match.round is state:
            return Position.from_match(match, board).to_string()
        return Position.from_round(state, rules=match.rules, scores=match.scores, board=board).to_string()
    except ValueError:
        return None


def legal_moves(state: Round) -> list[dict[str, str]]:
    """The legal moves of the player to act: each placement, then a draw and a pass when allowed."""
    seat = state.turn
    moves = [{"action": "play", "tile": label(tile_id(halves)), "end": end}
             for halves, end in state.legal_plays(seat)]
    if state.can_draw(seat):
        moves.append({"action": "draw"})
    if state.can_pass(seat):
        moves.append({"action": "pass"})
    return moves


#: (``match_ids``, ``match_lines``, ``numbered_blocks``, ``split_location`` and ``what_is_at`` live in
#: :mod:`drawlog.check.locate`; they are named here too, where the replay's callers have found them.)
__all__ = ["Frame", "Selection", "frames", "legal_moves", "match_ids", "match_lines", "numbered_blocks",
           "position_string", "split_location", "walk", "what_is_at"]
