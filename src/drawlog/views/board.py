"""The board views of ``drawlog replay``: the seeds' description, the text view (rich) and JSON lines.

Each view renders the frames of the board model (one plain dict per log
event, see ``engine/board.py`` and the README): the event and its
violations, the board, the hands, the stock and the legal moves. The words
come from a message catalog (:func:`~drawlog.views.language.catalog`).

Every string that comes from a log (player names, match ids, messages that
quote them) is printed literally as rich :class:`~rich.text.Text`, never as
markup, with control characters shown as escapes (``\\x1b``, as
:func:`~drawlog.views.terminal.shown` does), never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from .language import in_variant
from .points import ordered_points
from .terminal import shown

Frame = Mapping[str, Any]
Catalog = Mapping[str, str]

_encoder = msgspec.json.Encoder()

#: Styles of the text view.
STYLES = {"error": "bold red", "warning": "bold yellow", "spinner": "bold magenta", "double": "bold",
          "heading": "bold", "event": "bold cyan", "turn": "bold green", "dim": "dim"}

#: The ends in the order the views list them.
ENDS = ("left", "right", "up", "down")


def printable(value: object) -> str:
    """``value`` as text output shows it: control characters escaped as ``validate`` does (``\\x1b``, ``\\n``)."""
    return shown(value if isinstance(value, str) else str(value))


def _side(catalog: Catalog, code: str, spinner: bool = False) -> str:
    """The name of a side: the spinner's own (seed 004's *boki*, *końcówki*) when the tile is the spinner."""
    if spinner and f"spinner.side.{code}" in catalog:
        return catalog[f"spinner.side.{code}"]
    return catalog.get(f"side.{code}", code)


def describe(board: Mapping[str, Any], catalog: Catalog) -> str:
    """The seeds' sentence for a board: ``Tiles: …. Connections: …. Legal continuation points: ….``

    Tiles in the order placed; connections ``tile (side) – tile (side)`` (the
    spinner's sides by their own names, ``spinner.side.*``, where a catalog has them)
    joined with ``; ``; continuation points ``tile (side, value)`` in the
    seeds' order (:func:`~drawlog.views.points.ordered_points`: the same for a
    log and its mirror image); ``none`` (in the catalog's words) for an empty part.
    """
    none = catalog["none"]
    spinner = board.get("spinner")
    tiles = ", ".join(board.get("tiles") or ()) or none
    connections = "; ".join(
        f"{link['tile']} ({_side(catalog, link['side'], link['tile'] == spinner)}) – "
        f"{link['to_tile']} ({_side(catalog, link['to_side'], link['to_tile'] == spinner)})"
        for link in board.get("connections") or ()
    ) or none
    points = "; ".join(
        f"{point['tile']} ({_side(catalog, point['side'], point['tile'] == spinner)}, {point['value']})"
        for point in ordered_points(board)
    ) or none
    return f"{catalog['tiles']}: {tiles}. {catalog['connections']}: {connections}. {catalog['legal_points']}: {points}."


def frames_json(frames: Iterable[Frame]) -> bytes:
    """The frames as JSON lines: one JSON object per frame, each on its own line (UTF-8)."""
    return b"".join(_encoder.encode(frame) + b"\n" for frame in frames)


# -- the text view -------------------------------------------------------------


def render_frames(frames: Iterable[Frame], catalog: Catalog, console: Console) -> None:
    """Print each frame on ``console``: event, violations, board, description, turn, hands, stock, moves.

    Then the last frame's position string, as one line ``position: dp1 …`` (``docs/position.md``).
    """
    newline = Text("\n")
    position = None
    for index, frame in enumerate(frames):
        text = newline.join(frame_lines(frame, catalog, console.width))
        text.no_wrap, text.overflow = True, "ignore"  # wrapped already
        if index:
            console.print()
        console.print(text)
        position = frame.get("position")
    if position:  # the last frame's, on one line however wide, to copy into ``replay --position``
        console.print()
        console.print(Text(f"position: {printable(position)}", no_wrap=True, overflow="ignore"), soft_wrap=True)


def frame_lines(frame: Frame, catalog: Catalog, width: int = 80) -> list[Text]:
    """One frame of the text view as lines of rich text, none wider than ``width``.

    The drawing of the line of play breaks between tiles; the other lines
    are indented, and wrap under their indentation. The words are the
    catalog's for the frame's variant (:func:`~drawlog.views.language.in_variant`).
    """
    catalog = in_variant(catalog, frame.get("variant"))
    lines = _indented([event_text(frame, catalog)], width, indent="")
    body: list[Text] = _violation_lines(frame, catalog)
    board = frame.get("board")
    if board and board.get("tiles"):
        lines.extend(_indented(body, width))
        lines.extend(chain_drawing(board, width, indent="  "))
        body = [_open_values(board, catalog)]
        if board.get("spinner"):
            body.append(_arms(board, catalog))
        body.append(Text(printable(describe(board, catalog))))
    elif board is not None and frame.get("round") is not None:
        body.append(Text(catalog["empty_board"], style=STYLES["dim"]))
    if frame.get("round") is not None and frame.get("hands"):
        body.extend(_round_lines(frame, catalog))
    if frame.get("scores"):
        body.append(_labelled(catalog["scores"], _pairs(frame["scores"])))
    if frame.get("over"):
        body.append(Text(catalog.get(f"over.{frame['over']}", printable(frame["over"])), style=STYLES["heading"]))
    lines.extend(_indented(body, width))
    if frame.get("analysis"):
        lines.extend(_indented(analysis_lines(frame["analysis"]), width))
    return lines


def analysis_lines(analysis: Mapping[str, Any]) -> list[Text]:
    """``replay --analyze``'s table under the board: each action's equities (points), the taken and the best marked."""
    if not analysis.get("decision"):
        return [Text(f"analysis: not a decision ({printable(analysis.get('why'))})", style=STYLES["dim"])]
    lines = [Text(f"analysis of {printable(analysis['player'])}'s decision ({analysis['samples']} deals): "
                  f"error {analysis['error']:.2f} ({printable(analysis['class'])}), "
                  f"swing {analysis['swing']:.2f}", style=STYLES["heading"])]
    rows = [("action", "equity", "omniscient", "")]
    for each in analysis["actions"]:
        marks = [word for word, name in (("taken", analysis["taken"]), ("best", analysis["best"]),
                                         ("omniscient best", analysis["omniscient_best"])) if each["action"] == name]
        rows.append((printable(each["action"]), f"{each['equity']:+.2f}", f"{each['omniscient_equity']:+.2f}",
                     ", ".join(marks)))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        lines.append(Text(f"  {row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2].rjust(widths[2])}  "
                          f"{row[3]}".rstrip()))
    return lines


_measure: list[Console] = []


def _indented(texts: Iterable[Text], width: int, indent: str = "  ") -> list[Text]:
    """``texts`` wrapped to ``width`` under ``indent``, no line with trailing spaces."""
    if not _measure:
        _measure.append(Console(width=80, color_system=None, legacy_windows=False))
    lines = []
    room = max(width - len(indent), 10)
    for text in texts:
        if "\n" not in text.plain and text.cell_len <= room:
            lines.append(Text(indent, no_wrap=True, overflow="ignore").append_text(text))
            continue
        for part in text.wrap(_measure[0], room):
            part.rstrip()
            line = Text(indent, no_wrap=True, overflow="ignore")
            line.append_text(part)
            lines.append(line)
    return lines


def _tile(value: Any) -> str:
    """A tile as logged (``[4, 1]``) shown as ``[4|1]``; anything else literally."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"[{printable(value[0])}|{printable(value[1])}]"
    return printable(value)


def _pairs(mapping: Any) -> str:
    if not isinstance(mapping, Mapping):
        return printable(mapping)
    return " · ".join(f"{printable(name)} {printable(value)}" for name, value in mapping.items())


def event_text(frame: Frame, catalog: Catalog) -> Text:
    """The heading of a frame in the seeds' words: ``line 12  Placed [1|4]  ann  right`` (log strings literal).

    A move is headed as the seeds head their boards (*Dołożono [1|4]*,
    *Oynanan [1|4]*, *Colocada [1|4]*), then who made it and on which end.
    """
    kind = str(frame.get("type") or "")
    event = frame.get("event")
    event = event if isinstance(event, Mapping) else {}
    text = Text()
    if frame.get("line") is not None:  # (a frame of ``replay --position`` has none)
        text.append(f"{catalog['line']} {printable(frame.get('line'))}", style=STYLES["heading"])
        text.append("  ")
    text.append(catalog.get(f"event.{kind}", printable(kind)), style=STYLES["event"])
    if kind in ("draw", "play") and event.get("tile") is not None:
        text.append(f" {_tile(event['tile'])}", style=STYLES["event"])  # the seeds' heading: "Dołożono [1|4]"
    parts: list[str] = []
    if kind == "match_start":
        parts.append(printable(event.get("match", frame.get("match"))))
        players = event.get("players")
        if isinstance(players, list):
            parts.append(", ".join(map(printable, players)))
        parts.append(catalog.get(f"variant.{event.get('variant', frame.get('variant'))}", ""))
        if event.get("target") is not None:
            parts.append(f"{catalog['target']} {printable(event['target'])}")
    elif kind == "position":
        parts.append(f"{catalog['round']} {printable(frame.get('round'))}")
    elif kind == "round_start":
        parts.append(f"{catalog['round']} {printable(event.get('round'))}")
        parts.append(f"{catalog['opener']} {printable(event.get('opener'))}")
    elif kind in ("draw", "play", "pass"):
        parts.append(printable(event.get("player")))
        if kind == "play" and event.get("end") is not None:
            parts.append(catalog.get(f"end.{event['end']}", printable(event["end"])))
        if kind == "play" and event.get("points") is not None:
            parts.append(f"{catalog['points']} {printable(event['points'])}")
    elif kind == "round_end":
        parts.append(f"{catalog['round']} {printable(event.get('round'))}")
        reason = event.get("reason")
        parts.append(catalog.get(f"reason.{reason}", printable(reason)))
        parts.append(_winner(event, catalog))
        parts.append(f"{catalog['points']} {_pairs(event.get('points'))}")
    elif kind == "match_end":
        parts.append(_winner(event, catalog))
        parts.append(f"{catalog['scores']} {_pairs(event.get('scores'))}")
        forfeit = event.get("forfeit")
        if isinstance(forfeit, Mapping):  # (format v1.2) who stopped the match, and why
            parts.append(f"{printable(forfeit.get('player'))} {catalog['forfeit']} ({printable(forfeit.get('reason'))})")
    for part in parts:
        if part:
            text.append("  " + part)
    return text


def _winner(event: Mapping[str, Any], catalog: Catalog) -> str:
    winner = event.get("winner")
    return catalog["no_winner"] if winner is None else f"{catalog['winner']} {printable(winner)}"


def _violation_lines(frame: Frame, catalog: Catalog) -> list[Text]:
    lines = []
    for violation in frame.get("violations") or ():
        severity = str(violation.get("severity", "error"))
        style = STYLES["warning"] if severity == "warning" else STYLES["error"]
        line = Text()
        line.append(printable(violation.get("code", "")), style=style)
        line.append(f" {catalog.get(f'severity.{severity}', printable(severity))}", style=style)
        if violation.get("player") is not None:
            line.append(f"  {printable(violation['player'])}:")
        line.append(f"  {printable(violation.get('message', ''))}")
        lines.append(line)
        code = violation.get("code")
        if f"rule.{code}.name" in catalog:  # the rule in the replay's language
            rule = Text("  ")
            rule.append(catalog[f"rule.{code}.name"], style=STYLES["heading"])
            rule.append(f": {catalog[f'rule.{code}.summary']}", style=STYLES["dim"])
            lines.append(rule)
    return lines


def _columns(board: Mapping[str, Any]) -> list[tuple[str, str, str, str]]:
    """The chain as drawing columns: ``(top, middle, bottom, style)``; a double stands crosswise."""
    columns = []
    for item in board.get("chain") or ():
        left, right = item["show"]
        if item.get("double"):
            style = STYLES["spinner"] if item.get("spinner") else STYLES["double"]
            columns.append((f"┌{left}┐", "│─│", f"└{right}┘", style))
        else:
            columns.append(("     ", f"[{left}|{right}]", "     ", ""))
    return columns


def chain_drawing(board: Mapping[str, Any], width: int = 78, indent: str = "") -> list[Text]:
    """The line of play from its left end to its right end in three rows, wrapped to ``width``.

    A plain tile lies on the middle row as drawn (``[4|1]``); a double stands
    crosswise, its value above and below a bar.
    """
    columns = _columns(board)
    rows: list[list[tuple[str, str, str, str]]] = [[]]
    used = 0
    for column in columns:
        size = len(column[1])
        if rows[-1] and used + size > max(width - len(indent), 5):
            rows.append([])
            used = 0
        rows[-1].append(column)
        used += size
    lines = []
    for row in rows:
        for level in range(3):
            text = Text(indent, no_wrap=True, overflow="ignore")
            for column in row:
                text.append(column[level], style=column[3])
            text.rstrip()
            lines.append(text)
    return lines


def _labelled(label: str, value: str | Text, style: str = "") -> Text:
    text = Text()
    text.append(f"{label}: ", style=STYLES["heading"])
    text.append(value if isinstance(value, Text) else Text(value, style=style))
    return text


def _open_values(board: Mapping[str, Any], catalog: Catalog) -> Text:
    ends = board.get("ends") or {}
    shown = [f"{catalog[f'end.{end}']} {ends[end]}" for end in ENDS if ends.get(end) is not None]
    text = _labelled(catalog["open_values"], " · ".join(shown) or catalog["none"])
    if board.get("count") is not None:
        text.append("   ")
        text.append(f"{catalog['count']}: ", style=STYLES["heading"])
        text.append(str(board["count"]))
    return text


def _arms(board: Mapping[str, Any], catalog: Catalog) -> Text:
    text = _labelled(catalog["spinner"], Text(printable(board["spinner"]), style=STYLES["spinner"]))
    arms = board.get("arms") or {}
    for end in ("up", "down"):
        tiles = " ".join(f"[{item['show'][0]}|{item['show'][1]}]" for item in arms.get(end) or ())
        text.append("   ")
        text.append(f"{catalog[f'arm.{end}']}: ", style=STYLES["heading"])
        text.append(tiles or "—")
    return text


def _round_lines(frame: Frame, catalog: Catalog) -> list[Text]:
    turn = frame.get("turn")
    lines = [_labelled(catalog["turn"], Text(catalog["nobody"]) if turn is None
                       else Text(printable(turn), style=STYLES["turn"]))]
    lines.append(Text(f"{catalog['hands']}:", style=STYLES["heading"]))
    hands = frame.get("hands") or {}
    names = [printable(name) for name in hands]
    wide = max(map(cell_len, names), default=0)
    for name, label in zip(hands, names):
        line = Text("→ " if name == turn else "  ")
        line.append(label, style=STYLES["turn"] if name == turn else "")
        line.append(" " * (wide - cell_len(label)))
        line.append("  " + (" ".join(map(printable, hands[name])) or "—"))
        lines.append(line)
    stock = f"{catalog['stock_left'].format(left=frame.get('stock_left'))}, " \
            f"{catalog['drawable'].format(count=frame.get('drawable'))}"
    lines.append(_labelled(catalog["stock"], stock))
    lines.append(_labelled(catalog["legal_moves"], legal_text(frame.get("legal") or (), catalog)))
    return lines


def legal_text(legal: Sequence[Mapping[str, Any]], catalog: Catalog) -> str:
    """The legal moves in the catalog's words: ``play [4|5] right; draw``."""
    moves = []
    for move in legal:
        action = str(move.get("action"))
        words = [catalog.get(f"action.{action}", printable(action))]
        if move.get("tile") is not None:
            words.append(printable(move["tile"]))
        if move.get("end") is not None:
            words.append(catalog.get(f"end.{move['end']}", printable(move["end"])))
        moves.append(" ".join(words))
    return "; ".join(moves) or catalog["no_moves"]
