"""One match, event by event: the board, the hands and the violations after each line.

:func:`walk` finds a match's lines in a log without decoding the rest (a
byte search for its id, block by block), replays them through the same
:class:`~drawlog.check.validator.Validator` as ``drawlog validate`` — so the
violations are the same, on the same lines — and yields a *frame* per line
of the match: plain data that the views render (text, JSON, SVG). The frame's
fields are listed in the README (``drawlog replay``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from ..engine.allfives import FivesRound
from ..engine.board import Board
from ..engine.line import LEFT
from ..engine.match import Match
from ..engine.rounds import Round
from ..engine.tiles import TILES, label, members, tile_id
from ..log.events import MAX_NESTING, Play, RoundStart
from ..log.ids import bounded_id
from ..log.reader import LongLine, Source, read_blocks, too_deep
from .table import Table
from .validator import Validator

Frame = dict[str, Any]


@dataclass(frozen=True)
class Selection:
    """Which frames to keep: one match, optionally one round, up to a line."""

    match: str
    round: int | None = None
    at: int | None = None


#: A backslash: a line holding one may write a string with escapes, so a byte search cannot rule it out.
_ESCAPE = b"\\"


def match_lines(source: Source, match_id: str) -> Iterator[tuple[int, bytes]]:
    """``(line number, raw line)`` of the lines that may belong to ``match_id`` (its id appears on them).

    Blocks without the id are counted and skipped unread, so a large file is
    scanned at the speed of a byte search. A line with a backslash is always a
    candidate: its strings may write the id with escapes (``"caf\\u00e9"``).
    """
    needle = msgspec.json.encode(match_id)
    for first, block, count in numbered_blocks(source):
        if needle in block or _ESCAPE in block:
            for number, raw in enumerate(block.split(b"\n")[:count], first):
                if needle in raw or _ESCAPE in raw:
                    yield number, raw


def numbered_blocks(source: Source) -> Iterator[tuple[int, bytes, int]]:
    """``(number of its first line, block, lines in it)`` for each block of lines (a line too long is skipped)."""
    number = 1
    for block in read_blocks(source):
        if isinstance(block, LongLine):
            number += 1
            continue
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        yield number, block, count
        number += count


def walk(source: Source, selection: Selection, lines: Iterable[tuple[int, bytes]] | None = None,
         positions: bool = True) -> list[Frame]:
    """The frames of the selected match as a list (raises :class:`~drawlog.errors.InputError` when unreadable).

    :func:`frames` one after another, kept; see there for ``lines`` and ``positions``.
    """
    return list(frames(source, selection, lines, positions))


def frames(source: Source, selection: Selection, lines: Iterable[tuple[int, bytes]] | None = None,
           positions: bool | str = True) -> Iterator[Frame]:
    """The frames of the selected match, one at a time (raises :class:`~drawlog.errors.InputError` when unreadable).

    Memory stays flat however long the match: each frame is yielded once the
    next line of the match is read (the match's ``F006``, found when the input
    ends, belongs on its last frame), and only the board of the round in play
    is kept. ``lines``: the match's ``(number, raw line)`` already picked out of
    the source (by one scan for several matches), instead of
    :func:`match_lines`. ``positions``: write each frame's ``position`` string
    (else None, a little quicker); ``"last"``: only the last frame's (the
    text view shows no other), and those of the selected round. Frames are
    read, not changed: the frames of one round share the board's lists until
    a tile is placed.
    """
    validator = Validator()
    validator.start_input(source.name)
    replay, reporter = validator.replay, validator.reporter
    key = bounded_id(selection.match)  # what the replay holds of a long id
    boards: dict[int, Board] = {}
    last: Frame | None = None
    every = positions is True or (positions == "last" and selection.round is not None)
    drawn: list[Any] = []  # the board last given as data: its lists serve each frame until a tile is placed
    for number, raw in match_lines(source, selection.match) if lines is None else lines:
        if selection.at is not None and number > selection.at:
            break
        event = validator.decode_line(raw, number)
        ours = event.match == selection.match if event is not None else \
            any(violation.match == key for violation in reporter.found)
        if not ours:  # another match's line naming this id (a player, say), or one unreadable as any match's
            reporter.found.clear()
            continue
        table = replay.tables.get(key)
        placed = _placement(table, event)
        if event is not None:
            replay.dispatch(event, number)
        table = replay.tables.get(key) or table
        if isinstance(event, RoundStart) and table is not None and table.round is not None:
            boards = {table.round.number: Board(isinstance(table.round, FivesRound))}  # earlier rounds: done
        state = table.round if table is not None else None
        if placed is not None and state is not None and not state.hands[placed[2]] >> placed[3] & 1:
            boards[state.number].place(placed[0], placed[1])  # the play was carried out
        frame = _frame(number, event, table, boards, list(reporter.flush()), every, drawn)
        if last is not None and _selected(last, selection):
            yield last
        last = frame
    if last is not None and positions == "last" and not every:  # the state is still the last frame's
        last["position"] = _frame(last["line"], None, table, boards, [], True)["position"]
    if selection.at is None:
        replay.end_input()
        tail = list(reporter.flush())
        if tail and last is not None:  # F006: reported on the match's last line
            last["violations"] += [_violation(violation) for violation in tail]
    if last is not None and _selected(last, selection):
        yield last


def _selected(frame: Frame, selection: Selection) -> bool:
    return selection.round is None or frame["round"] == selection.round


def _placement(table: Table | None, event: Any) -> tuple[tuple[int, int], str, int, int] | None:
    """For a play the engine can carry out: the halves as the board lays them, the end, the seat and the tile."""
    if not isinstance(event, Play) or table is None or table.round is None:
        return None
    state = table.round
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


def split_location(argument: str) -> tuple[str, int | None]:
    """``FILE`` or ``FILE:LINE`` (when ``FILE:LINE`` is not itself a file): the path and the line."""
    path, colon, line = argument.rpartition(":")
    if colon and line.isdigit() and not Path(argument).exists() and Path(path).exists():
        return path, int(line)
    return argument, None


def what_is_at(source: Source, line: int) -> tuple[str | None, str]:
    """The id of the match the event on ``line`` belongs to, or None and what is there instead.

    The words complete "line N of FILE …": ``is blank``, ``is not valid JSON``, ``is a
    round_start event that names no match``, ``is longer than 1 MiB``, or (past the end)
    ``is past the end: the file has N lines``.
    """
    number = 1
    for block in read_blocks(source):
        if isinstance(block, LongLine):
            if number == line:
                return None, "is longer than 1 MiB (not read)"
            number += 1
            continue
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        if number + count <= line:
            number += count
            continue
        raw = block.split(b"\n")[line - number]
        if not raw.strip():
            return None, "is blank"
        if too_deep(raw):
            return None, f"nests arrays and objects more than {MAX_NESTING} deep"
        try:
            found = msgspec.json.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            return None, "is not valid JSON"
        if isinstance(found, dict) and isinstance(found.get("match"), str):
            return found["match"], ""
        kind = found.get("type") if isinstance(found, dict) else None
        what = f"an event of type {kind!r}" if isinstance(kind, str) and kind.isidentifier() else "an event"
        return None, f"is {what} that names no match" if isinstance(found, dict) else "is not a JSON object"
    lines = number - 1
    return None, f"is past the end: the file has {lines:,} line{'s' if lines != 1 else ''}"


def match_ids(source: Source, most: int | None = 20) -> list[str]:
    """The ids of the first ``most`` matches started in the source (from its ``match_start`` lines; None: all)."""
    found: list[str] = []
    for block in read_blocks(source):
        if isinstance(block, LongLine) or (b"match_start" not in block and _ESCAPE not in block):
            continue
        for raw in block.split(b"\n"):
            if b"match_start" in raw or _ESCAPE in raw:
                try:
                    event = msgspec.json.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    continue
                if isinstance(event, dict) and event.get("type") == "match_start" \
                        and isinstance(event.get("match"), str) and event["match"] not in found:
                    found.append(event["match"])
                    if len(found) == most:
                        return found
    return found
