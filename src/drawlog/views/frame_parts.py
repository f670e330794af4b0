"""What the text view of ``drawlog replay`` says about a frame, as runs of text and style, for any renderer.

A frame's view is a list of *pieces*: a line of :data:`Run` s under an
indentation (wrapped to the width by the renderer), or the board, whose line of
play is drawn (:func:`chain_rows`, laid out for the width). The rich view
(:mod:`drawlog.views.board`) makes styled ``Text`` of them; the plain view
(:mod:`drawlog.views.frame_plain`) joins their strings, far faster. Both show
the very same characters. Every string that comes from a log passes through
:func:`printable` (control characters escaped).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len

from .language import in_variant
from .points import ordered_points
from .terminal import shown

Frame = Mapping[str, Any]
Catalog = Mapping[str, str]
#: A stretch of text and its rich style ("" for none).
Run = tuple[str, str]
#: A piece of a frame's view: ``(indent, runs)``, a line to wrap under ``indent``; or a board (a mapping), the
#: drawing of its line of play.
Piece = tuple[str, list[Run]] | Mapping[str, Any]

#: Styles of the text view.
STYLES = {"error": "bold red", "warning": "bold yellow", "spinner": "bold magenta", "double": "bold",
          "heading": "bold", "event": "bold cyan", "turn": "bold green", "dim": "dim"}

#: The ends in the order the views list them.
ENDS = ("left", "right", "up", "down")

#: The indentation of a frame's lines under its heading.
BODY = "  "


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


def frame_pieces(frame: Frame, catalog: Catalog, in_its_variant: bool = True) -> list[Piece]:
    """One frame of the text view: event, violations, board, description, turn, hands, stock, moves, analysis.

    The words are the catalog's for the frame's variant (:func:`~drawlog.views.language.in_variant`;
    ``in_its_variant=False``: ``catalog`` is that already).
    """
    if in_its_variant:
        catalog = in_variant(catalog, frame.get("variant"))
    pieces: list[Piece] = [("", event_runs(frame, catalog))]
    body: list[list[Run]] = violation_runs(frame, catalog)
    board = frame.get("board")
    if board and board.get("tiles"):
        pieces.extend((BODY, runs) for runs in body)
        pieces.append(board)
        body = [_open_values(board, catalog)]
        if board.get("spinner"):
            body.append(_arms(board, catalog))
        body.append([(printable(describe(board, catalog)), "")])
    elif board is not None and frame.get("round") is not None:
        body.append([(catalog["empty_board"], STYLES["dim"])])
    if frame.get("round") is not None and frame.get("hands"):
        body.extend(_round_runs(frame, catalog))
    if frame.get("scores"):
        body.append(_labelled(catalog["scores"], [(_pairs(frame["scores"]), "")]))
    if frame.get("over"):
        body.append([(catalog.get(f"over.{frame['over']}", printable(frame["over"])), STYLES["heading"])])
    if frame.get("analysis"):
        body.extend(analysis_runs(frame["analysis"]))
    pieces.extend((BODY, runs) for runs in body)
    return pieces


def analysis_runs(analysis: Mapping[str, Any]) -> list[list[Run]]:
    """``replay --analyze``'s table under the board: each action's equities (points), the taken and the best marked."""
    if not analysis.get("decision"):
        return [[(f"analysis: not a decision ({printable(analysis.get('why'))})", STYLES["dim"])]]
    heading = (f"analysis of {printable(analysis['player'])}'s decision ({analysis['samples']} deals): "
               f"error {analysis['error']:.2f} ({printable(analysis['class'])}), swing {analysis['swing']:.2f}")
    lines = [[(heading, STYLES["heading"])]]
    rows = [("action", "equity", "omniscient", "")]
    for each in analysis["actions"]:
        marks = [word for word, name in (("taken", analysis["taken"]), ("best", analysis["best"]),
                                         ("omniscient best", analysis["omniscient_best"])) if each["action"] == name]
        rows.append((printable(each["action"]), f"{each['equity']:+.2f}", f"{each['omniscient_equity']:+.2f}",
                     ", ".join(marks)))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for row in rows:
        lines.append([(f"  {row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2].rjust(widths[2])}  "
                       f"{row[3]}".rstrip(), "")])
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


def event_runs(frame: Frame, catalog: Catalog) -> list[Run]:
    """The heading of a frame in the seeds' words: ``line 12  Placed [1|4]  ann  right`` (log strings literal).

    A move is headed as the seeds head their boards (*Dołożono [1|4]*,
    *Oynanan [1|4]*, *Colocada [1|4]*), then who made it and on which end.
    """
    kind = str(frame.get("type") or "")
    event = frame.get("event")
    event = event if isinstance(event, Mapping) else {}
    runs: list[Run] = []
    if frame.get("line") is not None:  # (a frame of ``replay --position`` has none)
        runs += [(f"{catalog['line']} {printable(frame.get('line'))}", STYLES["heading"]), ("  ", "")]
    runs.append((catalog.get(f"event.{kind}", printable(kind)), STYLES["event"]))
    if kind in ("draw", "play") and event.get("tile") is not None:
        runs.append((f" {_tile(event['tile'])}", STYLES["event"]))  # the seeds' heading: "Dołożono [1|4]"
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
    runs.extend(("  " + part, "") for part in parts if part)
    return runs


def _winner(event: Mapping[str, Any], catalog: Catalog) -> str:
    winner = event.get("winner")
    return catalog["no_winner"] if winner is None else f"{catalog['winner']} {printable(winner)}"


def violation_runs(frame: Frame, catalog: Catalog) -> list[list[Run]]:
    """A line per violation of the frame (code, severity, player, message), and the rule's name in the catalog's
    language where it has one."""
    lines = []
    for violation in frame.get("violations") or ():
        severity = str(violation.get("severity", "error"))
        style = STYLES["warning"] if severity == "warning" else STYLES["error"]
        line = [(printable(violation.get("code", "")), style),
                (f" {catalog.get(f'severity.{severity}', printable(severity))}", style)]
        if violation.get("player") is not None:
            line.append((f"  {printable(violation['player'])}:", ""))
        line.append((f"  {printable(violation.get('message', ''))}", ""))
        lines.append(line)
        code = violation.get("code")
        if f"rule.{code}.name" in catalog:  # the rule in the replay's language
            lines.append([("  ", ""), (catalog[f"rule.{code}.name"], STYLES["heading"]),
                          (f": {catalog[f'rule.{code}.summary']}", STYLES["dim"])])
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


def chain_rows(board: Mapping[str, Any], width: int = 78, indent: str = "") -> list[list[Run]]:
    """The line of play from its left end to its right end in three rows, wrapped to ``width``: each line's runs.

    A plain tile lies on the middle row as drawn (``[4|1]``); a double stands
    crosswise, its value above and below a bar. Lines end with no space.
    """
    rows: list[list[tuple[str, str, str, str]]] = [[]]
    used = 0
    for column in _columns(board):
        size = len(column[1])
        if rows[-1] and used + size > max(width - len(indent), 5):
            rows.append([])
            used = 0
        rows[-1].append(column)
        used += size
    lines = []
    for row in rows:
        for level in range(3):
            runs = [(indent, ""), *((column[level], column[3]) for column in row)]
            while runs and not runs[-1][0].rstrip():  # trailing space dropped, as rich's ``Text.rstrip``
                runs.pop()
            if runs:
                runs[-1] = (runs[-1][0].rstrip(), runs[-1][1])
            lines.append(runs)
    return lines


def _labelled(label: str, value: list[Run]) -> list[Run]:
    return [(f"{label}: ", STYLES["heading"]), *value]


def _open_values(board: Mapping[str, Any], catalog: Catalog) -> list[Run]:
    ends = board.get("ends") or {}
    shown_ends = [f"{catalog[f'end.{end}']} {ends[end]}" for end in ENDS if ends.get(end) is not None]
    runs = _labelled(catalog["open_values"], [(" · ".join(shown_ends) or catalog["none"], "")])
    if board.get("count") is not None:
        runs += [("   ", ""), (f"{catalog['count']}: ", STYLES["heading"]), (str(board["count"]), "")]
    return runs


def _arms(board: Mapping[str, Any], catalog: Catalog) -> list[Run]:
    runs = _labelled(catalog["spinner"], [(printable(board["spinner"]), STYLES["spinner"])])
    arms = board.get("arms") or {}
    for end in ("up", "down"):
        tiles = " ".join(f"[{item['show'][0]}|{item['show'][1]}]" for item in arms.get(end) or ())
        runs += [("   ", ""), (f"{catalog[f'arm.{end}']}: ", STYLES["heading"]), (tiles or "—", "")]
    return runs


def _round_runs(frame: Frame, catalog: Catalog) -> list[list[Run]]:
    turn = frame.get("turn")
    lines = [_labelled(catalog["turn"], [(catalog["nobody"], "")] if turn is None
                       else [(printable(turn), STYLES["turn"])])]
    lines.append([(f"{catalog['hands']}:", STYLES["heading"])])
    hands = frame.get("hands") or {}
    names = [printable(name) for name in hands]
    wide = max(map(cell_len, names), default=0)
    for name, label in zip(hands, names):
        lines.append([("→ " if name == turn else "  ", ""), (label, STYLES["turn"] if name == turn else ""),
                      (" " * (wide - cell_len(label)), ""),
                      ("  " + (" ".join(map(printable, hands[name])) or "—"), "")])
    stock = f"{catalog['stock_left'].format(left=frame.get('stock_left'))}, " \
            f"{catalog['drawable'].format(count=frame.get('drawable'))}"
    lines.append(_labelled(catalog["stock"], [(stock, "")]))
    lines.append(_labelled(catalog["legal_moves"], [(legal_text(frame.get("legal") or (), catalog), "")]))
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
