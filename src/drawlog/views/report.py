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
import math
import re
from importlib import resources
from typing import Any

from .. import __version__
from .report_charts import CHARTS, chart_specs, vega_runtime
from .report_html import COUNT as _COUNT
from .report_html import DECIMAL as _DECIMAL
from .report_html import SHARE as _SHARE
from .report_html import TEXT as _TEXT
from .report_html import cells as _cells
from .report_html import cut_note as _cut_note
from .report_html import escape, lines, prose, script_json, section, shown_values
from .report_html import head as _head
from .report_html import number as _number
from .report_html import table as _table
from .report_verdict import corrections_section, verdict_section
from .report_violations import board_html, violation_data, violations_list

__all__ = ["escape", "render_report", "script_hash", "script_json", "shown_values"]

#: The leaderboard's columns as ``drawlog players`` names them, and how each is shown.
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


_section = section


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
    for line in data.summary.decompression:
        extra.append(f"warning: {escape(line)}")
    extra.extend(f"not read: {escape(line)}." for line in getattr(data, "notes", ()))
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
        f"<td class=num>{_number(row['count'], _COUNT)}</td><td>{prose(row['summary'])}</td></tr>" for row in data.by_code)
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
    return f"<td><details><summary>board</summary>{board_html(shown, None)}</details></td>"


def _violations(data: Any, listed: dict[str, Any], templates: str) -> str:
    codes = "".join(f"<option value='{escape(item['code'])}'>{escape(item['code'])} {escape(item['name'])}</option>"
                    for item in sorted(data.by_code, key=lambda item: item["code"] or "")
                    if item["code"] is not None)
    controls = ("<div class=filters><input id=violation-filter type=search placeholder='filter: any words "
                "(file, match, player, message…)' aria-label='filter the violations'>"
                f"<select id=violation-code aria-label='code'><option value=''>every code</option>{codes}</select>"
                "<select id=violation-severity aria-label='severity'><option value=''>every severity</option>"
                "<option value=error>errors</option><option value=warning>warnings</option></select>"
                "<label><input id=violation-group type=checkbox checked> grouped by match</label>"
                "<span id=violation-count class=note></span></div>")
    shown = len(data.violations.rows)
    boards = (f"<p class=note>Each of the first {min(shown, data.boards_limit):,} violations, and the first wrong "
              f"claim of each result to correct, has its board as the replay saw it after that line (open "
              f"<i>board</i>); {data.boards_drawn:,} could be drawn.</p>")
    return _section("violations", "Every violation",
                    "Each violation as <code>drawlog validate</code> reports it, grouped by match in the order "
                    f"found, {listed['page']:,} to a page: click a column to sort, type to filter, pick a code or "
                    "a severity (over every violation listed, not only this page).",
                    boards + _cut_note(shown, data.violations.total, "violations") + controls
                    + violations_list(listed, templates))


#: The short leaderboard of each game (``drawlog players`` without ``--all``), after the rank.
SHORT_LEADERBOARD = (("player", _TEXT), ("matches", _COUNT), ("match_wins", _COUNT), ("win_share", _SHARE),
                     ("rating", _DECIMAL), ("rating_sigma", _DECIMAL))
_GAME_TITLES = {"draw": "Draw", "all-fives": "All Fives"}


def _rankings(rows: list[dict[str, Any]]) -> str:
    """One short ranking per game, in the leaderboard's order (best first), each row with its rank."""
    games: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        games.setdefault(row.get("variant"), []).append(row)
    out = []
    for game, ranked in games.items():
        body = "".join(f'<tr><td class="num" data-sort="{rank}">{rank:,}</td>{_cells(row, SHORT_LEADERBOARD)}</tr>'
                       for rank, row in enumerate(ranked, 1))
        out.append(f"<h3>{escape(_GAME_TITLES.get(game, game))}</h3><div class=wide><table class=\"sortable ranking\">"
                   f"<thead><tr><th class=num>rank</th>{_head(SHORT_LEADERBOARD)}</tr></thead>"
                   f"<tbody>{body}</tbody></table></div>")
    return "".join(out)


def _standings(data: Any) -> str:
    rows = data.leaderboard.rows
    board = _rankings(rows) + _cut_note(len(rows), data.leaderboard.total, "rows") + (
        "<details class=all-columns><summary>Every column (how they won rounds, points, draws, passes, "
        "violations)</summary>" + _table(rows, LEADERBOARD, "leaderboard") + "</details>" if rows else "")
    rated = _table(data.ratings.rows, RATINGS, "ratings") + _cut_note(
        len(data.ratings.rows), data.ratings.total, "ratings")
    return _section("players", "Leaderboard and ratings",
                    "One ranking per game, as <code>drawlog players</code> gives it: results of valid finished "
                    "matches and the rating ± its sigma; every column of <code>drawlog players --all</code> "
                    "below it.",
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
        boxes.append(f"<div class=chart-box><h3>{escape(title)}</h3><p class=note>{prose(lead)}</p>{extra}"
                     f"<div class=chart id='chart-{name}'>{empty}</div></div>")
    return _section("charts", "Charts", "How the games went, from the tables' aggregates.",
                    f"<div class=charts>{''.join(boxes)}</div>")


def _rules(data: Any) -> str:
    items = "".join(
        f"<div class=rule id='rule-{escape(rule['code'])}'><h3><code>{escape(rule['code'])}</code> "
        f"{escape(rule['name'])} <span class='sev-{escape(rule['severity'])}'>({escape(rule['severity'])})</span></h3>"
        f"<p>{prose(rule['summary'])}</p><p><i>Why:</i> {prose(rule['why'])}</p>"
        f"<p class=note>Breaks it:</p><pre>{lines(rule['bad'])}</pre>"
        f"<p class=note>Keeps it:</p><pre>{lines(rule['good'])}</pre></div>" for rule in data.rules)
    return _section("rules", "The rules broken, explained",
                    "Each code found above, as <code>drawlog rule CODE</code> explains it.",
                    items or "<p>No rule was broken.</p>")


#: The page's sections after the list of violations' data is made, in order: what to correct first.
_NAV = (("verdict", "Verdict"), ("corrections", "To correct"), ("players", "Leaderboard"), ("analysis", "Analysis"),
        ("charts", "Charts"), ("by-code", "By code"), ("by-player", "By player"), ("violations", "Violations"),
        ("summary", "Summary"), ("rules", "Rules"))


def render_report(data: Any) -> str:
    """The whole page: the verdict and the results to correct first, then the standings, charts and violations,
    with the Vega runtime inline."""
    inputs = ", ".join(escape(item) for item in data.inputs)
    listed, templates = violation_data(data.violations.rows)
    analysis = _analysis(data)
    header = (f"<header><h1>{escape(data.title)}</h1><p>Written {escape(data.written)} by drawlog "
              f"{escape(__version__)} from {inputs or 'the tables'}.</p></header><nav>"
              + "".join(f"<a href='#{key}'>{name}</a>" for key, name in _NAV if key != "analysis" or analysis)
              + "</nav>")
    parts = (verdict_section(data), corrections_section(data, listed), _standings(data), analysis, _charts(data),
             _by_code(data), _by_player(data), _violations(data, listed, templates), _summary(data), _rules(data))
    body = header + "<main>" + "".join(parts) + "</main>" + (
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
