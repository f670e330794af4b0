"""The report's list of violations: data for the page's script, grouped by match and shown a page at a time.

A report may list 100,000 violations: as HTML rows that is a table tens of
thousands of pixels long and tens of megabytes. The violations go into the
page as compact JSON instead (a ``<script type="application/json">``, never
run), and the page's own script shows one page of them at a time, grouped by
match (one collapsible group per match), filtered and sorted over all of them.
Each drawn board is an inert ``<template>`` the script copies in when its row
is opened. Strings are shown by the script as text, never parsed as HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .board_svg import board_svg
from .report_html import escape, script_json, shown_values

#: Violations on one page of the list (the page's script cuts the pages; a match's group may run on).
PAGE_ROWS = 50
#: The list's columns, as its header shows them and the script sorts by them.
COLUMNS = (("index", "#", "num"), ("file", "file", ""), ("line", "line", "num"), ("match", "match", ""),
           ("round", "round", "num"), ("player", "player", ""), ("code", "code", ""), ("severity", "severity", ""),
           ("message", "message", ""), ("board", "board", ""))


def board_html(shown: dict[str, Any], where: str | None) -> str:
    """A drawn board (the ``drawlog replay --format svg`` drawing), its state and hands, and how to walk to it."""
    svg = board_svg(shown["board"]).replace(' xmlns="http://www.w3.org/2000/svg"', "", 1).strip()
    hands = "; ".join(f"{escape(name)}: {escape(' '.join(tiles)) or '–'}" for name, tiles in shown["hands"].items())
    state = (f"round {escape(shown['round'])}, stock {escape(shown['stock_left'])} "
             f"({escape(shown['drawable'])} may be drawn)")
    state += f", {escape(shown['turn'])} to act" if shown.get("turn") else f", round over ({escape(shown['over'])})"
    walk = f"<p class=hands>move by move: <code>drawlog replay {escape(where)}</code></p>" if where else ""
    return f"<div class=board>{svg}</div><p class=hands>{state}</p><p class=hands>hands: {hands}</p>{walk}"


def violation_data(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
    """The listed violations as the page's script reads them, and the templates of their boards.

    ``files``, ``matches`` and ``codes`` are lists each row points into (a log of 100,000 violations names
    few of them); a row is ``[file, line, match, round, player, code, severity, message, board]`` where
    ``severity`` is 1 for an error, 0 for a warning, and ``board`` the number of its ``<template
    id=board-N>``, or why there is none (a sentence), or null.
    """
    files: dict[str, int] = {}
    matches: dict[str, int] = {}
    codes: dict[str, int] = {}
    out: list[list[Any]] = []
    templates: list[str] = []
    for row in rows:
        file = files.setdefault(row["file"], len(files))
        match = None if row["match"] is None else matches.setdefault(row["match"], len(matches))
        code = codes.setdefault(row["code"], len(codes))
        shown = row.get("board")
        board: Any = None
        if shown is not None and shown.get("board") is None:
            board = shown["note"]
        elif shown is not None:
            board = len(templates)
            where = f"{row['file']}:{row['line']}"
            templates.append(f"<template id=board-{board}>{board_html(shown, where)}</template>")
        out.append([file, row["line"], match, row["round"], row["player"], code,
                    1 if row["severity"] == "error" else 0, row["message"], board])
    data = {"files": list(files), "matches": list(matches), "codes": list(codes), "rows": out, "page": PAGE_ROWS}
    return shown_values(data), "".join(templates)


def anchors(data: dict[str, Any]) -> Callable[[str | None, str | None, int | None], str | None]:
    """A function giving where a match's wrong claim is in the list, for its file, id and line: the violation's
    row (``v-N``; the page's script shows its page and opens its board), else the match's group (``match-F-M``),
    or None when none of the match's violations is listed."""
    from .terminal import shown

    files = {name: index for index, name in enumerate(data["files"])}
    matches = {name: index for index, name in enumerate(data["matches"])}
    rows: dict[tuple[int, int, int], int] = {}
    for number, row in enumerate(data["rows"], 1):
        if row[2] is not None and row[1] is not None:
            rows.setdefault((row[0], row[2], row[1]), number)

    def anchor(file: str | None, match: str | None, line: int | None) -> str | None:
        if file is None or match is None:  # (a null in an untrusted table: no link)
            return None
        at_file, at_match = files.get(shown(file)), matches.get(shown(match))
        if at_file is None or at_match is None:
            return None
        number = rows.get((at_file, at_match, line)) if line is not None else None
        return f"v-{number}" if number is not None else f"match-{at_file}-{at_match}"

    return anchor


def violations_list(data: dict[str, Any], templates: str) -> str:
    """The list's controls, its empty table (the script fills it a page at a time), its data and boards."""
    head = "".join(f"<th data-key={key}{' class=num' if kind else ''}>{title}</th>" for key, title, kind in COLUMNS)
    widths = "".join(f"<col class=c-{key}>" for key, _, _ in COLUMNS)
    pager = "<div class=pager><button type=button data-go=first>« first</button><button type=button " \
            "data-go=prev>‹ previous</button><span class=page-of></span><button type=button data-go=next>next ›" \
            "</button><button type=button data-go=last>last »</button></div>"
    return (f"{pager.replace('class=pager', 'class=pager id=violation-pager-top')}"
            f"<table id=violation-table class=violations><colgroup>{widths}</colgroup>"
            f"<thead><tr>{head}</tr></thead></table>"
            f"{pager.replace('class=pager', 'class=pager id=violation-pager')}"
            "<noscript><p class=note>The list of violations is shown by the page's script: allow it to run "
            "(the page fetches nothing), or see them with <code>drawlog validate</code>.</p></noscript>"
            f'<script type="application/json" id="drawlog-violations">{script_json(data)}</script>'
            f"<div id=violation-boards hidden>{templates}</div>")
