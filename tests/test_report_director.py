"""``drawlog report`` for a tournament director (issue 24, item 5): the verdict and the results to correct first.

A copy of ``tournament-2p.jsonl`` whose claims are wrong (a match_end claiming
the loser won with 135 points, a round_end naming the wrong winner) gives
exactly two results to correct, with the claimed and recomputed values; its
clean twin none. In headless Chromium (see ``test_report.py``): nothing is
wider than a 1280 px window, the verdict is the first thing on the page, and a
list of about a thousand violations is shown a page at a time, grouped by
match, its filter and links working over every page.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_report import _listed, _open, browser  # noqa: F401 - the browser fixture
from typer.testing import CliRunner

from drawlog.cli import app

runner = CliRunner()
ROOT = Path(__file__).parent.parent
SAMPLES = ROOT / "sample_logs"
CLEAN = SAMPLES / "tournament-2p.jsonl"
ORDER = ["verdict", "corrections", "players", "charts", "by-code", "by-player", "violations", "summary", "rules"]


def _report(*args: str) -> None:
    result = runner.invoke(app, ["report", *args, "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _wrong_claims(folder: Path) -> Path:
    """tournament-2p with two wrong claims: t2-000001's match_end, t2-000002's first round_end."""
    lines = CLEAN.read_text(encoding="utf-8").splitlines(keepends=True)
    assert '"scores":{"p1":111,"p2":35},"winner":"p1"' in lines[197]
    lines[197] = lines[197].replace('"scores":{"p1":111,"p2":35},"winner":"p1"',
                                    '"scores":{"p1":111,"p2":135},"winner":"p2"')
    assert '"round_end","round":1,"reason":"blocked","winner":"p1"' in lines[237] and "t2-000002" in lines[237]
    lines[237] = lines[237].replace('"winner":"p1"', '"winner":"p2"', 1)
    log = folder / "wrong-claims.jsonl"
    log.write_text("".join(lines), encoding="utf-8")
    return log


def _passes(folder: Path, matches: int = 2) -> Path:
    """Simulated matches with a pass, out of turn, after every play: about 460 violations a match."""
    plain = folder / "plain.jsonl"
    result = runner.invoke(app, ["simulate", "-n", str(matches), "--seed", "5", "-o", str(plain), "-q"])
    assert result.exit_code == 0, result.output
    out = []
    for line in plain.read_text(encoding="utf-8").splitlines(keepends=True):
        out.append(line)
        event = json.loads(line)
        if event["type"] == "play":
            out.append(json.dumps({"type": "pass", "match": event["match"], "player": event["player"]}) + "\n")
    log = folder / "passes.jsonl"
    log.write_text("".join(out), encoding="utf-8")
    return log


def _long_match(folder: Path) -> Path:
    """A match of long names and ids whose longest round ends with 20-odd tiles on the line, a violation there."""
    names = ",".join(name * 40 for name in ("ann", "bob"))
    plain = folder / "long-plain.jsonl"
    result = runner.invoke(app, ["simulate", "-n", "4", "--seed", "2", "--names", names, "--match-prefix",
                                 "cup-" + "x" * 150 + "-", "-o", str(plain), "-q"])
    assert result.exit_code == 0, result.output
    lines = plain.read_text(encoding="utf-8").splitlines(keepends=True)
    plays, longest, at = 0, (0, 0), 0
    for index, line in enumerate(lines):
        event = json.loads(line)
        if event["type"] == "round_start":
            plays = 0
        elif event["type"] == "play":
            plays += 1
        elif event["type"] == "round_end" and plays > longest[0]:
            longest, at = (plays, index), index
    assert longest[0] >= 16  # wider than a row: the board bends
    before = json.loads(lines[at - 1])
    lines.insert(at, json.dumps({"type": "pass", "match": before["match"], "player": before["player"]}) + "\n")
    log = folder / ("a-tournament-log-named-at-length-" + "y" * 80 + ".jsonl")
    log.write_text("".join(lines), encoding="utf-8")
    return log


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("director")
    made = {"wrong": _wrong_claims(folder), "clean": CLEAN, "passes": _passes(folder), "long": _long_match(folder),
            "samples": SAMPLES}
    out = {}
    for name, log in made.items():
        out[name] = folder / f"{name}.html"
        _report(str(log), "-o", str(out[name]))
    return out


def _corrections(page: str) -> list[list[str]]:
    """The results to correct as text: each row's cells, tags dropped, spaces squeezed."""
    table = re.search(r"<table id=corrections-table.*?<tbody>(.*?)</tbody>", page, re.DOTALL)
    if table is None:
        return []
    rows = re.findall(r"<tr>(.*?)</tr>", table.group(1), re.DOTALL)
    return [[re.sub(r"\s+", " ", re.sub(r"<br>|</li>", " ", cell)).strip() for cell in
             [re.sub(r"<(?!br>)[^>]+>", "", part.replace("</li>", " ")) for part in re.findall(r"<td[^>]*>(.*?)</td>", row,
                                                                                                 re.DOTALL)]]
            for row in rows]


def test_the_results_to_correct_are_the_matches_with_wrong_claims(pages):
    page = pages["wrong"].read_text(encoding="utf-8")
    log = "wrong-claims.jsonl"
    rows = _corrections(page)
    assert [row[0].split()[0] for row in rows] == ["t2-000001", "t2-000002"]
    first, second = rows
    assert first[1:5] == ["p2", "p1", "p1 111 p2 135", "p1 111 p2 35"]
    assert first[5] == ("line 198, round 6: R306 claims 135 for p2; the replay gives 35 = 15 + 12 + 8 (rounds 1, 3 "
                        "and 4); claims winner p2; p1 won (p1 111, p2 35)")
    assert second[1:5] == ["p1", "p1", "p1 123 p2 20", "p1 123 p2 20"]
    assert second[5] == "line 238, round 1: R302 claims winner p2; p1 has the lowest hand total (p1 1, p2 23)"
    assert second[6] == "R302 1 error"
    assert "its board and violations" in first[7] and f"-o {pages['wrong'].parent}/wrong-claims.fixed.jsonl" in first[7]
    assert f"drawlog fix {pages['wrong'].parent}/{log}" in first[7]
    # what differs is marked: the claimed winner and p2's score, not p1's
    marked = re.findall(r"<span class=differs>(.*?)</span>", page.split("id=corrections-table")[1].split("</table>")[0])
    assert marked == ["p2", "p1", "p2 135", "p2 35"]
    verdict = re.search(r"<p class=verdict-line[^>]*>(.*?)</p>", page).group(1)
    assert re.sub(r"<[^>]+>", "", verdict) == ("2 of 3 matches need a correction of a claimed result (listed below); "
                                               "2 of 3 matches have errors (2 errors in them).")


def test_the_clean_twin_has_nothing_to_correct(pages):
    page = pages["clean"].read_text(encoding="utf-8")
    assert _corrections(page) == []
    assert "None: every winner and score the logs claim is the replay's." in page
    verdict = re.search(r"<p class=verdict-line[^>]*>(.*?)</p>", page).group(1)
    assert re.sub(r"<[^>]+>", "", verdict) == ("All results stand: every claimed result agrees with the replay; "
                                               "no match has an error.")


def test_the_sections_put_what_to_correct_first(pages):
    for name in ("wrong", "samples"):
        page = pages[name].read_text(encoding="utf-8")
        assert re.findall(r"<section id=[\"']?([a-z-]+)", page) == ORDER
        nav = re.findall(r"<nav>(.*?)</nav>", page)[0]
        assert re.findall(r"href='#([a-z-]+)'", nav) == ORDER


def test_backquoted_names_are_code(pages):
    page = pages["samples"].read_text(encoding="utf-8")
    assert "<p>`round_end` while" not in page
    assert "<p><code>round_end</code> while the round is not over" in page  # R301's summary
    assert "`" not in re.sub(r"<(script|pre|template)\b.*?</\1>", "", page, flags=re.DOTALL)


# --- in a real browser ---------------------------------------------------------------------------

#: Elements wider than their parent (right edges), outside the SVG drawings' insides, and text past the window's
#: right edge; at most 20.
OVERFLOW = """
var out = [];
function scrolled(e) {  // inside a box that scrolls sideways (a wide table's own scroll bar): not an overflow
  for (var a = e.parentElement; a; a = a.parentElement) {
    if (['auto', 'scroll'].indexOf(getComputedStyle(a).overflowX) >= 0) { return true; }
  }
  return false;
}
document.querySelectorAll('body *').forEach(function (e) {
  if (out.length >= 20 || (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') || scrolled(e)) { return; }
  var p = e.parentElement, r = e.getBoundingClientRect(), q = p.getBoundingClientRect();
  if (r.width && (r.right > q.right + 1 || r.right > document.documentElement.clientWidth + 1)) {
    out.push(e.tagName + '#' + e.id + '.' + (typeof e.className === 'string' ? e.className : '') + ' ' +
             Math.round(r.right) + ' > ' + Math.round(q.right));
  }
});
var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), text;  // a word running out of its box
while ((text = walk.nextNode()) && out.length < 20) {
  var range = document.createRange();
  range.selectNodeContents(text);
  if (range.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !scrolled(text.parentElement)) {
    out.push('text in ' + text.parentElement.tagName + ': ' + text.textContent.slice(0, 60));
  }
}
return out;
"""


def _at_1280(browser, page: Path) -> None:  # noqa: F811 - the fixture
    browser.set_window_size(1280, 1000)
    _open(browser, page)


@pytest.mark.parametrize("name", ["samples", "long", "wrong"])
def test_in_a_browser_nothing_is_wider_than_1280_px(browser, pages, name):  # noqa: F811
    _at_1280(browser, pages[name])
    for button in browser.find_elements("css selector", "#violation-table .board-button")[:20]:
        button.click()  # the boards open, each in its row
    assert browser.execute_script(OVERFLOW) == []
    assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280
    top = browser.execute_script("var s = document.querySelector('main section'); "
                                 "return [s.id, Math.round(s.getBoundingClientRect().top), "
                                 "document.getElementById('corrections').getBoundingClientRect().top < window.innerHeight]")
    assert top[0] == "verdict" and top[1] < 200 and top[2]  # the verdict, then the results to correct, at once
    browser.set_window_size(1400, 1000)


def test_in_a_browser_a_long_chain_bends_and_fits(browser, pages):  # noqa: F811
    _at_1280(browser, pages["long"])
    button = browser.find_elements("css selector", "#violation-table .board-button")[-1]
    button.click()
    svg = browser.execute_script("var s = document.querySelector('tr.board-row svg'); var r = s.getBoundingClientRect();"
                                 "return [s.querySelectorAll('path.bend').length, r.width, "
                                 "s.closest('td').getBoundingClientRect().width, s.querySelectorAll('g.tile').length]")
    bends, width, cell, tiles = svg
    assert bends >= 1 and tiles >= 16 and width <= cell
    assert width >= 0.6 * 1000  # drawn near its own size (no more than 960 px of tiles a row): readable
    browser.set_window_size(1400, 1000)


def test_in_a_browser_many_violations_are_paged_and_grouped(browser, pages):  # noqa: F811
    from selenium.webdriver.common.by import By

    page = pages["passes"]
    listed = _listed(page.read_text(encoding="utf-8"))
    total = len(listed["rows"])
    assert total > 300 and len(listed["matches"]) == 2
    browser.get_log("browser")
    browser.get(page.resolve().as_uri())  # (no valid match: the win chart has nothing to draw)
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
    shown = "return Array.from(document.querySelectorAll('#violation-table tbody tr[data-code]')).map(r => r.id)"
    size = listed["page"]
    assert size == 50
    assert browser.execute_script(shown) == [f"v-{n}" for n in range(1, size + 1)]  # the first page
    pages_text = browser.find_element(By.CSS_SELECTOR, "#violation-pager .page-of").text
    assert pages_text == f"page 1 of {-(-total // size)} (1–{size})"
    heads = browser.execute_script("return Array.from(document.querySelectorAll('#violation-table tbody'))"
                                   ".map(b => [b.id, b.querySelector('tr.group-head').textContent])")
    assert [head[0] for head in heads] == ["match-0-0"]
    first_match = sum(1 for row in listed["rows"] if row[2] == 0)
    assert re.search(rf"match {listed['matches'][0]} \S+passes.jsonl · {first_match} violations", heads[0][1])
    browser.find_element(By.CSS_SELECTOR, "#violation-pager [data-go=last]").click()
    last = browser.execute_script(shown)
    assert last[-1] == f"v-{total}" and len(last) == total - size * (-(-total // size) - 1)
    # the filter and the code list work over every page
    code = next(code for code in listed["codes"] if code == "M207")
    wanted = [f"v-{n}" for n, row in enumerate(listed["rows"], 1) if listed["codes"][row[5]] == code]
    browser.execute_script("var s = document.getElementById('violation-code'); s.value = arguments[0];"
                           "s.dispatchEvent(new Event('input'));", code)
    assert browser.find_element(By.ID, "violation-count").text == f"{len(wanted)} of {total:,} shown"
    assert browser.execute_script(shown) == wanted[:size]
    # a group collapses and opens again
    toggle = browser.find_element(By.CSS_SELECTOR, "#violation-table tr.group-head button.toggle")
    browser.execute_script("arguments[0].click()", toggle)
    assert browser.execute_script("return Array.from(document.querySelectorAll('#violation-table tbody tr[data-code]'))"
                                  ".filter(r => !r.hidden).length") == 0
    browser.execute_script("arguments[0].click()", toggle)
    # a link to the second match's group: its page is shown, the filter cleared if it hid the match
    browser.execute_script("window.location.hash = '#match-0-1'")
    browser.execute_script("return new Promise(function (done) { setTimeout(done, 200); })")
    group = browser.find_element(By.ID, "match-0-1")
    assert group.is_displayed()
    ids = browser.execute_script("return Array.from(document.querySelectorAll('#match-0-1 tr[data-code]')).map(r => r.id)")
    assert ids and all(listed["rows"][int(item[2:]) - 1][2] == 1 for item in ids)


def test_in_a_browser_a_result_to_correct_links_to_its_board(browser, pages):  # noqa: F811
    from selenium.webdriver.common.by import By

    _open(browser, pages["wrong"])
    links = browser.find_elements(By.CSS_SELECTOR, "#corrections-table a.to-board")
    assert [link.get_attribute("href").split("#")[1] for link in links] == ["v-1", "v-2"]  # lines 198 and 238
    browser.execute_script("document.getElementById('violation-filter').value = 'M205';"
                           "document.getElementById('violation-filter').dispatchEvent(new Event('input'))")
    assert browser.execute_script("return document.querySelectorAll('#violation-table tr[data-code]').length") == 0
    browser.execute_script("arguments[0].click()", links[1])  # the filter hid it: cleared
    browser.execute_script("return new Promise(function (done) { setTimeout(done, 200); })")
    opened = browser.execute_script("var row = document.getElementById('v-2'); return [row.cells[2].textContent, "
                                    "row.nextSibling.className, !!row.nextSibling.querySelector('svg'), "
                                    "row.closest('tbody').id]")
    assert opened == ["238", "board-row", True, "match-0-1"]  # the board at the wrong claim, open, in its group
    assert 0 <= browser.execute_script("return document.getElementById('v-2').getBoundingClientRect().top") < 200


def test_the_verdict_sentence_and_the_fixed_name():
    from drawlog.tables.report_corrections import Verdict
    from drawlog.views.report_verdict import fixed_name, verdict_sentence

    assert verdict_sentence(Verdict(0, 0, 0, 0)) == ("<b>No match was read</b>: there is no result to judge.", True)
    stands = ("<b>All results stand</b>: every claimed result agrees with the replay; 1 of 12 matches has errors "
              "(3 errors in them).")
    assert verdict_sentence(Verdict(12, 0, 1, 3)) == (stands, True)
    assert verdict_sentence(Verdict(5, 1, 1, 1))[0] == ("<b>1 of 5 matches needs a correction</b> of a claimed "
                                                       "result (listed below); 1 of 5 matches has errors (1 error in "
                                                       "them).")
    assert verdict_sentence(Verdict(1_200, 3, 41, 97))[0].startswith(
        "<b>3 of 1,200 matches need a correction</b> of a claimed result (listed below); 41 of 1,200")
    assert [fixed_name(name) for name in ("a/cup.jsonl", "cup.jsonl.gz", "cup.jsonl.zst", "cup.log", "-")] == [
        "a/cup.fixed.jsonl", "cup.fixed.jsonl.gz", "cup.fixed.jsonl.zst", "cup.log.fixed.jsonl", "fixed.jsonl"]


@pytest.mark.parametrize("text", ["`a<b>` & `</code><script>`", "``", "`x", "plain <i>", "`\u202e`"])
def test_backquotes_become_code_and_nothing_else_is_markup(text):
    from drawlog.views.report_html import prose

    shown = prose(text)
    assert "<" not in re.sub(r"</?code>", "", shown) and "\u202e" not in shown
    assert shown.count("<code>") == shown.count("</code>") == text.count("`") // 2 - (text == "``")
