"""``drawlog report``: the audit as one self-contained HTML page (tables, boards, charts; nothing fetched).

:func:`render_report` fills the page template (``report.html``, package
data) with the sections built here from the report's data
(:class:`~drawlog.tables.report_data.ReportData`). Every string that comes
from a log (names, ids, messages, paths) is HTML-escaped, and ``://`` is
written ``&#58;//`` so no text of a log reads as a link; the charts'
specifications are JSON in a ``<script type="application/json">`` with
``<`` and ``://`` escaped, so a log cannot end the script element.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from importlib import resources
from typing import Any

from .. import __version__
from .board_svg import board_svg
from .report_charts import CHARTS, chart_specs, vega_runtime
from .terminal import shown as _shown

#: The leaderboard's columns as ``drawlog players`` names them, and how each is shown.
_SHARE, _DECIMAL, _COUNT, _TEXT = "share", "decimal", "count", "text"
LEADERBOARD = (("player", _TEXT), ("variant", _TEXT), ("matches", _COUNT), ("match_wins", _COUNT),
               ("win_share", _SHARE), ("rating", _DECIMAL), ("rating_sigma", _DECIMAL),
               ("invalid_matches", _COUNT), ("rounds", _COUNT), ("rounds_won_domino", _COUNT),
               ("rounds_won_blocked", _COUNT), ("rounds_won_target", _COUNT), ("points_per_round", _DECIMAL),
               ("pips_left_per_lost_round", _DECIMAL), ("draws_per_turn", _DECIMAL),
               ("voluntary_draw_share", _SHARE), ("passes", _COUNT), ("violations", _COUNT),
               ("violations_per_100_moves", _DECIMAL))
RATINGS = (("player", _TEXT), ("variant", _TEXT), ("ordinal", _DECIMAL), ("mu", _DECIMAL), ("sigma", _DECIMAL),
           ("rated_matches", _COUNT))
BY_PLAYER = (("player", _TEXT), ("moves", _COUNT), ("errors", _COUNT), ("warnings", _COUNT),
             ("errors_per_100_moves", _DECIMAL))


def escape(value: Any) -> str:
    """Text for HTML text or a quoted attribute: control characters and bidirectional marks escaped as the
    terminal shows them (``\\u202e``), then HTML-escaped, and ``://`` written ``&#58;//`` (never a link)."""
    text = "" if value is None else _shown(str(value))
    return html.escape(text, quote=True).replace("://", "&#58;//")


def _lines(text: str) -> str:
    """Text of several lines (a rule's examples) for a ``<pre>``: each line escaped as :func:`escape` does."""
    return "\n".join(escape(line) for line in text.split("\n"))


def shown_values(value: Any) -> Any:
    """``value`` (lists and dicts of plain values) with every string as :func:`~drawlog.views.terminal.shown`
    shows it, keys too: what the charts draw holds no control character or bidirectional mark."""
    if isinstance(value, str):
        return _shown(value)
    if isinstance(value, dict):
        return {shown_values(key): shown_values(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [shown_values(item) for item in value]
    return value


def script_json(value: Any) -> str:
    """JSON to put inside a ``<script>`` element: ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\u`` escapes,
    ``://`` as ``:\\/\\/``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("://", ":\\/\\/"))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if not _is_number(value):  # (the tables' types are checked; never formatted unescaped all the same)
        return escape(value)
    if kind == _SHARE:
        return f"{value:.1%}"
    if kind == _DECIMAL:
        return f"{value:,.2f}"
    if kind == _COUNT:
        return f"{value:,}"
    return escape(value)


def _cells(row: dict[str, Any], columns: tuple[tuple[str, str], ...]) -> str:
    out = []
    for name, kind in columns:
        value = row.get(name)
        if kind == _TEXT:
            out.append(f"<td>{escape(value)}</td>")
        else:
            sort = "" if value is None else f"{value!r}"
            out.append(f'<td class="num" data-sort="{escape(sort)}">{_number(value, kind)}</td>')
    return "".join(out)


def _head(columns: tuple[tuple[str, str], ...]) -> str:
    return "".join(f'<th{"" if kind == _TEXT else " class=num"}>{escape(name.replace("_", " "))}</th>'
                   for name, kind in columns)


def _table(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...], element_id: str) -> str:
    body = "".join(f"<tr>{_cells(row, columns)}</tr>" for row in rows)
    return (f'<table class="sortable" id="{element_id}"><thead><tr>{_head(columns)}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _cut_note(shown: int, total: int, what: str) -> str:
    if total <= shown:
        return ""
    return f'<p class="note">The first {shown:,} {what} of {total:,} are listed; {total - shown:,} more are not ' \
           f"shown here (all are in the tables: <code>drawlog stats</code>, <code>drawlog query</code>).</p>"


def _section(element_id: str, title: str, lead: str, body: str) -> str:
    return f'<section id="{element_id}"><h2>{escape(title)}</h2><p class="lead">{lead}</p>{body}</section>'


def _summary(data: Any) -> str:
    view = data.overview
    cards = [
        (f"{view['files']:,}", "files read" + (f" ({view['unreadable']:,} unreadable)" if view["unreadable"] else "")),
        (f"{view['lines']:,}", f"lines ({view['blank_lines']:,} blank, {view['invalid_lines']:,} invalid)"),
        (f"{view['events']:,}", "events"),
        (f"{view['matches']:,}", (f"matches: {view['valid']:,} valid, {view['invalid']:,} with errors, "
                                  f"{view['unfinished']:,} unfinished")),
        (f"{view['rounds']:,}", "rounds"),
        (f"{view['moves']:,}", f"moves by {view['players']:,} players"),
        (f"{view['violations']:,}", (f'violations: <span class="sev-error">{view["errors"]:,} errors</span>, '
                                     f'<span class="sev-warning">{view["warnings"]:,} warnings</span>')),
    ]
    html_cards = "".join(f"<div class=card><b>{value}</b><span>{label}</span></div>" for value, label in cards)
    extra = []
    if view["suppressed"]:
        extra.append(f"{view['suppressed']:,} violations past the per-match limit were counted, not listed.")
    if view["closed_early"]:
        extra.append(f"{view['closed_early']:,} matches were closed early (too many open at once).")
    for line in data.summary.get("decompression") or []:
        extra.append(f"warning: {escape(line)}")
    rows = "".join(
        f"<tr><td class=mono>{escape(item['file'])}</td><td class=num>"
        f"{_number(item['bytes'], _COUNT)}</td>"
        f"<td class='mono hash'>{escape(item['sha256'] or item['note'])}</td></tr>" for item in data.files)
    files = (f"<h3>Input files</h3><p class=note>SHA-256 of each file as stored (a compressed log as compressed), "
             f"computed when this report was written, to match the report to the logs "
             f"(<code>sha256sum FILE</code>).</p><table><thead><tr><th>file</th><th class=num>bytes</th>"
             f"<th>SHA-256</th></tr></thead><tbody>{rows}</tbody></table>")
    notes = "".join(f"<p class=note>{line}</p>" for line in extra)
    return _section("summary", "Audit summary",
                    "What was read and checked: every match was replayed through the rules engine, every illegal "
                    "move and every wrong claimed score reported as a violation.",
                    f"<div class=cards>{html_cards}</div>{notes}{files}")


def _by_code(data: Any) -> str:
    rows = "".join(
        f"<tr><td><a href='#rule-{escape(row['code'])}'><code>{escape(row['code'])}</code></a></td>"
        f"<td>{escape(row['name'])}</td><td class='sev-{escape(row['severity'])}'>{escape(row['severity'])}</td>"
        f"<td class=num>{_number(row['count'], _COUNT)}</td><td>{escape(row['summary'])}</td></tr>" for row in data.by_code)
    body = (f"<table class=sortable id=by-code><thead><tr><th>code</th><th>name</th><th>severity</th>"
            f"<th class=num>count</th><th>what it checks</th></tr></thead><tbody>{rows}</tbody></table>"
            if data.by_code else "<p>No violation was found.</p>")
    return _section("by-code", "Violations by code",
                    "How often each rule was broken; the code links to the rule's explanation at the end of the "
                    "report.", body)


def _by_player(data: Any) -> str:
    body = _table(data.by_player.rows, BY_PLAYER, "by-player") + _cut_note(
        len(data.by_player.rows), data.by_player.total, "players")
    return _section("by-player", "Violations by player",
                    "Errors and warnings that name a player (a move of theirs), and errors per 100 of their moves "
                    "(as <code>drawlog players</code> counts them, over every game). Violations of no player "
                    "(a broken line, a wrong claimed result) are in the table below.", body)


def _board_cell(row: dict[str, Any]) -> str:
    shown = row.get("board")
    if shown is None:
        return "<td class=note>–</td>"
    if shown.get("board") is None:
        return f"<td><span class=note>{escape(shown['note'])}</span></td>"
    svg = board_svg(shown["board"]).replace(' xmlns="http://www.w3.org/2000/svg"', "", 1).strip()
    hands = "; ".join(f"{escape(name)}: {escape(' '.join(tiles)) or '–'}" for name, tiles in shown["hands"].items())
    state = (f"round {escape(shown['round'])}, stock {escape(shown['stock_left'])} "
             f"({escape(shown['drawable'])} may be drawn)")
    state += f", {escape(shown['turn'])} to act" if shown.get("turn") else f", round over ({escape(shown['over'])})"
    where = f"{row['file']}:{row['line']}"
    return (f"<td><details><summary>board</summary><div class=board>{svg}</div>"
            f"<p class=hands>{state}</p><p class=hands>hands: {hands}</p>"
            f"<p class=hands>move by move: <code>drawlog replay {escape(where)}</code></p></details></td>")


def _violations(data: Any) -> str:
    rows = []
    for index, row in enumerate(data.violations.rows, 1):
        severity, code = escape(row["severity"]), escape(row["code"])
        line = escape(row["line"])
        rows.append(
            f"<tr data-code='{code}' data-severity='{severity}'><td class=num>{index}</td>"
            f"<td class=mono>{escape(row['file'])}</td><td class=num>{line}</td>"
            f"<td class=mono>{escape(row['match'])}</td><td class=num>{escape(row['round'])}</td>"
            f"<td>{escape(row['player'])}</td><td><a href='#rule-{code}'><code>{code}</code></a></td>"
            f"<td class='sev-{severity}'>{severity}</td><td class=message>{escape(row['message'])}</td>"
            f"{_board_cell(row)}</tr>")
    codes = "".join(f"<option value='{escape(item['code'])}'>{escape(item['code'])} {escape(item['name'])}</option>"
                    for item in sorted(data.by_code, key=lambda item: item["code"]))
    controls = ("<div class=filters><input id=violation-filter type=search placeholder='filter: any words "
                "(file, match, player, message…)' aria-label='filter the violations'>"
                f"<select id=violation-code aria-label='code'><option value=''>every code</option>{codes}</select>"
                "<select id=violation-severity aria-label='severity'><option value=''>every severity</option>"
                "<option value=error>errors</option><option value=warning>warnings</option></select>"
                "<span id=violation-count class=note></span></div>")
    head = ("<th class=num>#</th><th>file</th><th class=num>line</th><th>match</th><th class=num>round</th>"
            "<th>player</th><th>code</th><th>severity</th><th>message</th><th>board</th>")
    shown = len(data.violations.rows)
    boards = (f"<p class=note>Each of the first {min(shown, data.boards_limit):,} violations has its board as "
              f"the replay saw it after that line (open <i>board</i>); {data.boards_drawn:,} could be drawn.</p>")
    table = (f"{controls}<table class=sortable id=violation-table><thead><tr>{head}</tr></thead>"
             f"<tbody>{''.join(rows)}</tbody></table>")
    return _section("violations", "Every violation",
                    "Each violation as <code>drawlog validate</code> reports it, in the order found; click a "
                    "column to sort, type to filter.",
                    boards + _cut_note(shown, data.violations.total, "violations") + table)


def _standings(data: Any) -> str:
    board = _table(data.leaderboard.rows, LEADERBOARD, "leaderboard") + _cut_note(
        len(data.leaderboard.rows), data.leaderboard.total, "rows")
    rated = _table(data.ratings.rows, RATINGS, "ratings") + _cut_note(
        len(data.ratings.rows), data.ratings.total, "ratings")
    return _section("players", "Leaderboard and ratings",
                    "The leaderboard of <code>drawlog players</code>: per player and game, results of valid "
                    "finished matches, how rounds were won, drawing habits and errors per 100 moves.",
                    board + "<h3>Ratings</h3><p class=note>Plackett–Luce ratings (<code>drawlog ratings</code>) from "
                            "valid finished matches in time order; ordinal = mu − 3·sigma.</p>" + rated)


#: The Analysis section's player columns (``analysis_players``), and how each is shown.
ANALYSIS_PLAYERS = (("player", _TEXT), ("variant", _TEXT), ("decisions", _COUNT), ("accuracy", _DECIMAL),
                    ("mean_error", _DECIMAL), ("blunders_per_100", _DECIMAL), ("mistakes_per_100", _DECIMAL),
                    ("rounds", _COUNT), ("result", _DECIMAL), ("luck", _DECIMAL), ("luck_adjusted", _DECIMAL),
                    ("peek_rate", _SHARE), ("peek_z", _DECIMAL), ("verdict", _TEXT))
#: What a null of the analysis tables shows (not computed, or nothing to compute it from).
NOTHING = "—"


def _analysis_cells(row: dict[str, Any]) -> str:
    out = []
    for name, kind in ANALYSIS_PLAYERS:
        value = row.get(name)
        if value is None or (isinstance(value, float) and math.isnan(value)):  # null, or NaN
            out.append(f'<td{"" if kind == _TEXT else " class=num"}>{NOTHING}</td>')
        elif kind == _TEXT:
            out.append(f"<td>{escape(value)}</td>")
        else:
            out.append(f'<td class="num" data-sort="{escape(repr(value))}">{_number(value, kind)}</td>')
    return "".join(out)


def _moment_row(row: dict[str, Any]) -> str:
    why = ", ".join(escape(item) for item in row.get("why") or ())
    replay = f"<code>{escape(row['replay'])} --analyze</code>" if row.get("replay") else NOTHING
    board = _board_cell({**row, "board": row.get("board")})
    return (f"<tr><td class=num>{escape(row['line'])}</td><td class=num>{escape(row['round'])}</td>"
            f"<td>{escape(row['player'])}</td><td class=mono>{escape(row['action'])}</td>"
            f"<td class=mono>{escape(row['best'])}</td><td class=num>{_number(row['error'], _DECIMAL)}</td>"
            f"<td>{escape(row['class'])}</td><td class=num>{_number(row['swing'], _DECIMAL)}</td><td>{why}</td>"
            f"<td>{replay}</td>{board}</tr>")


def _analysis(data: Any) -> str:
    """The Analysis section (empty when the tables hold no analysis)."""
    shown = getattr(data, "analysis", None)
    if not shown:
        return ""
    rows = "".join(f"<tr>{_analysis_cells(row)}</tr>" for row in shown["players"])
    players = (f"<table class=sortable id=analysis-players><thead><tr>{_head(ANALYSIS_PLAYERS)}</tr></thead>"
               f"<tbody>{rows}</tbody></table>" + _cut_note(len(shown["players"]), shown["players_total"],
                                                              "players"))
    head = ("<th class=num>line</th><th class=num>round</th><th>player</th><th>played</th><th>best</th>"
            "<th class=num>error</th><th>class</th><th class=num>swing</th><th>why</th><th>replay</th><th>board</th>")
    matches = []
    for each in shown["moments"]:
        body = "".join(_moment_row(row) for row in each["moments"]) or \
            "<tr><td colspan=11 class=note>no decision with an error or a swing</td></tr>"
        matches.append(f"<h3>{escape(each['match'])} <span class=note>({escape(each['file'])}, "
                       f"{_number(each['decisions'], _COUNT)} decisions)</span></h3>"
                       f"<table class=moments><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    more = shown["matches_total"] - len(shown["moments"])
    cut = (f"<p class=note>The critical moments of the first {len(shown['moments']):,} matches of "
           f"{shown['matches_total']:,} are listed (all decisions are in the <code>decisions</code> table).</p>"
           if more > 0 else "")
    return _section(
        "analysis", "Analysis",
        "How well each player chose, from <code>drawlog analyze</code>: accuracy (0–100), mean error (points "
        "per decision), blunders and mistakes per 100 decisions; result, luck and luck-adjusted result in points "
        f"over the settled rounds; the peek rate with its z-score and verdict ({NOTHING}: none). "
        "Errors are against the best action by what the player could know.",
        players + "<h3>Critical moments</h3><p class=note>Per match, the largest errors and swings, in the order "
                  "played, with the board after the move (open <i>board</i>); "
                  f"{shown['boards']:,} boards could be drawn.</p>" + cut + "".join(matches))


def _charts(data: Any) -> str:
    boxes = []
    for name, title, lead in CHARTS:
        note = (data.charts.get(name) or {}).get("note")
        extra = f"<p class=note>Shown: {escape(note)}.</p>" if note else ""
        empty = "" if (data.charts.get(name) or {}).get("records") else "<p class=note>Nothing to draw here.</p>"
        boxes.append(f"<div class=chart-box><h3>{escape(title)}</h3><p class=note>{escape(lead)}</p>{extra}"
                     f"<div class=chart id='chart-{name}'>{empty}</div></div>")
    return _section("charts", "Charts", "How the games went, from the tables' aggregates.",
                    f"<div class=charts>{''.join(boxes)}</div>")


def _rules(data: Any) -> str:
    items = "".join(
        f"<div class=rule id='rule-{escape(rule['code'])}'><h3><code>{escape(rule['code'])}</code> "
        f"{escape(rule['name'])} <span class='sev-{escape(rule['severity'])}'>({escape(rule['severity'])})</span></h3>"
        f"<p>{escape(rule['summary'])}</p><p><i>Why:</i> {escape(rule['why'])}</p>"
        f"<p class=note>Breaks it:</p><pre>{_lines(rule['bad'])}</pre>"
        f"<p class=note>Keeps it:</p><pre>{_lines(rule['good'])}</pre></div>" for rule in data.rules)
    return _section("rules", "The rules broken, explained",
                    "Each code found above, as <code>drawlog rule CODE</code> explains it.",
                    items or "<p>No rule was broken.</p>")


def render_report(data: Any) -> str:
    """The whole page: the sections of ``data`` (a ReportData), its charts, and the Vega runtime, inline."""
    inputs = ", ".join(escape(item) for item in data.inputs)
    header = (f"<header><h1>{escape(data.title)}</h1><p>Written {escape(data.written)} by drawlog "
              f"{escape(__version__)} from {inputs or 'the tables'}.</p></header>"
              "<nav><a href='#summary'>Summary</a><a href='#by-code'>By code</a><a href='#by-player'>By player</a>"
              "<a href='#violations'>Violations</a><a href='#players'>Leaderboard</a>"
              + ("<a href='#analysis'>Analysis</a>" if getattr(data, "analysis", None) else "")
              + "<a href='#charts'>Charts</a>"
              "<a href='#rules'>Rules</a></nav>")
    body = header + "<main>" + "".join(part(data) for part in (
        _summary, _by_code, _by_player, _violations, _standings, _analysis, _charts, _rules)) + "</main>" + (
        "<footer>This page is self-contained: its scripts (Vega, Vega-Lite and Vega-Embed for the charts) and "
        "data are inside it, and it fetches nothing from the network.</footer>")
    filled = {"TITLE": escape(data.title), "VERSION": escape(__version__), "BODY": body,
              "CHARTS": script_json(chart_specs(shown_values(data.charts))), "VEGA": vega_runtime()}
    template = resources.files("drawlog.views").joinpath("report.html").read_text(encoding="utf-8")

    def fill(text: str) -> str:
        return re.sub(r"@@([A-Z]+)@@", lambda found: filled[found.group(1)], text)

    # The page's own scripts, as they will stand in it: the only ones the policy lets run.
    filled["SCRIPTS"] = " ".join(script_hash(fill(script)) for script in _OWN_SCRIPT.findall(template))
    return fill(template)


#: A script of the page's own in the template (a plain ``<script>``; the charts' JSON is not run).
_OWN_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def script_hash(text: str) -> str:
    """The Content-Security-Policy source that lets an inline script of exactly ``text`` run."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"
