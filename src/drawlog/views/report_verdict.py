"""The top of the report: the verdict in one sentence, then the results to correct, one row per match.

A result to correct is a match whose log claims a winner, a round's winner or
points, revealed hands, final scores or a play's points other than the
replay gives (the claims ``drawlog fix`` rewrites). Each row shows the
players, the winner and final scores claimed and recomputed (those that
differ marked), the wrong claims as the validator words them, every error
of the match by code, a link to the match in the list of violations (its
boards), and the ``drawlog fix`` command that writes the corrected log.
"""

from __future__ import annotations

from typing import Any

from .report_html import cut_note, escape, prose, section
from .report_violations import anchors

#: Results to correct on one page of their table (the page's script turns the pages).
PAGE_ROWS = 25


def fixed_name(file: str) -> str:
    """The name ``drawlog fix`` is told to write for ``file``: ``.fixed`` before its ``.jsonl`` (standard input,
    ``-``: ``fixed.jsonl``)."""
    if file == "-":
        return "fixed.jsonl"
    for suffix in (".jsonl.gz", ".jsonl.zst", ".jsonl", ".json", ".gz", ".zst"):
        if file.endswith(suffix):
            return file[: -len(suffix)] + ".fixed" + suffix
    return file + ".fixed.jsonl"


def verdict_sentence(verdict: Any) -> tuple[str, bool]:
    """The verdict as one sentence (HTML), and whether every result stands."""
    errors = (f"{verdict.with_errors:,} of {verdict.matches:,} matches {'has' if verdict.with_errors == 1 else 'have'} "
              f"errors ({verdict.errors:,} error{'' if verdict.errors == 1 else 's'} in them)"
              if verdict.with_errors else "no match has an error")
    if verdict.to_correct:
        need = "needs" if verdict.to_correct == 1 else "need"
        sentence = (f"<b>{verdict.to_correct:,} of {verdict.matches:,} matches {need} a correction</b> of a claimed "
                    f"result (listed below); {errors}.")
        return sentence, False
    if not verdict.matches:
        return "<b>No match was read</b>: there is no result to judge.", True
    return f"<b>All results stand</b>: every claimed result agrees with the replay; {errors}.", True


def verdict_section(data: Any) -> str:
    """The verdict: one sentence and the counts behind it."""
    sentence, good = verdict_sentence(data.verdict)
    return (f"<section id=verdict class='verdict {'good' if good else 'bad'}'><h2>Verdict</h2>"
            f"<p class=verdict-line elementtiming=verdict>{sentence}</p></section>")


def _names_and_values(names: list[str], values: list[Any] | None, other: list[Any] | None) -> str:
    if values is None:
        return "<span class=note>not logged</span>"
    out = []
    for index, name in enumerate(names):
        value = values[index] if index < len(values) else None
        differs = other is not None and index < len(other) and other[index] != value
        shown = "–" if value is None else f"{value:,}" if isinstance(value, int) else escape(value)
        out.append(f"<span{' class=differs' if differs else ''}>{escape(name)} {shown}</span>")
    return "<br>".join(out)


def _winner(name: Any, other: Any, complete: bool, claimed: bool) -> str:
    if name is None:
        said = ("no match_end" if claimed else "not finished") if not complete else "a draw"
        return f"<span class=note>{said}</span>"
    return f"<span{' class=differs' if name != other else ''}>{escape(name)}</span>"


def _round(number: Any) -> str:
    return f", round {escape(number)}" if number else ""


def _row(row: dict[str, Any], anchor: str | None) -> str:
    claimed_winner = _winner(row["claimed_winner"], row["winner"], row["complete"], True)
    winner = _winner(row["winner"], row["claimed_winner"], row["complete"], False)
    claimed = _names_and_values(row["players"], row["claimed_scores"], row["scores"])
    recomputed = _names_and_values(row["players"], row["scores"], row["claimed_scores"])
    wrong = "".join(f"<li>line {escape(item['line'])}{_round(item['round'])}: <code>{escape(item['code'])}</code> "
                    f"{prose(item['message'])}</li>" for item in row["wrong"])
    more = row["wrong_total"] - len(row["wrong"])
    if more > 0:
        wrong += f"<li class=note>and {more:,} more</li>"
    codes = ", ".join(f"<a href='#rule-{escape(code)}'><code>{escape(code)}</code></a>"
                      f"{f' ×{count:,}' if count > 1 else ''}" for code, count in row["codes"])
    link = (f"<a class=to-board href='#{anchor}'>its board and violations</a>" if anchor else
            "<span class=note>its violations are past <code>--max-violations</code></span>")
    fix = f"drawlog fix {row['file']} -o {fixed_name(row['file'])}" + (" < LOG" if row["file"] == "-" else "")
    players = ", ".join(escape(name) for name in row["players"])
    return (f"<tr><td><span class=mono>{escape(row['match'])}</span><br><span class='mono note'>"
            f"{escape(row['file'])}</span><br>{players}</td>"
            f"<td>{claimed_winner}</td><td>{winner}</td><td class=mono>{claimed}</td><td class=mono>{recomputed}</td>"
            f"<td><ul class=claims>{wrong}</ul></td><td>{codes}<br><span class=note>{row['errors']:,} "
            f"error{'s' if row['errors'] != 1 else ''}</span></td>"
            f"<td>{link}<br><code class=fix>{escape(fix)}</code></td></tr>")


def corrections_section(data: Any, violations: dict[str, Any]) -> str:
    """The results to correct (``violations``: the list's data, for the links to each match's group)."""
    rows = data.corrections
    if not rows:
        body = "<p class=all-stand>None: every winner and score the logs claim is the replay's.</p>"
    else:
        head = ("<th>match, file, players</th><th>winner claimed</th><th>winner by the replay</th>"
                "<th>final scores claimed</th><th>final scores by the replay</th><th>wrong claims</th>"
                "<th>errors of the match</th><th>to correct</th>")
        anchor = anchors(violations)
        shown = [_row(row, anchor(row["file"], row["match"], row["first_line"])) for row in rows]
        body = (f"<table id=corrections-table class='corrections paged' data-page={PAGE_ROWS}><thead><tr>{head}</tr>"
                "</thead><tbody>" + "".join(row if index < PAGE_ROWS else row.replace("<tr>", "<tr hidden>", 1)
                                            for index, row in enumerate(shown))
                + "</tbody></table>" + cut_note(len(rows), data.corrections_total, "matches to correct"))
    return section(
        "corrections", "Results to correct",
        "Each match whose log claims a result the replay does not give: a winner, a round's winner or points, "
        "revealed hands, final scores or a play's points (what differs is <span class=differs>marked</span>). "
        "<code>drawlog fix</code> writes a copy of the log with these claims put right (moves are never changed).",
        body)
