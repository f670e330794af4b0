"""``drawlog report``: one self-contained HTML page, checked as text and in a real headless Chromium.

The browser tests drive the system's Chromium (Debian's ``chromium`` and
``chromium-driver``) through selenium; without them they are skipped, unless
``DRAWLOG_REQUIRE_BROWSER=1`` (set by ``.ci/run``), which makes a missing
browser a failure. They write screenshots to ``$DRAWLOG_ARTIFACTS`` (default
``tests/artifacts/``, not committed) for a reviewer to look at.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlparse

import pytest
from typer.testing import CliRunner

from drawlog.cli import app

runner = CliRunner()
ROOT = Path(__file__).parent.parent
SAMPLES = ROOT / "sample_logs"
EVERY = SAMPLES / "every-violation.jsonl"
ARTIFACTS = Path(os.environ.get("DRAWLOG_ARTIFACTS") or Path(__file__).parent / "artifacts")
CHART_IDS = ("points", "stock", "voluntary", "wins", "scores", "over_time")


def _report(*args: str) -> str:
    result = runner.invoke(app, ["report", *args, "-q"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _validate_json(path: Path) -> list[dict]:
    result = runner.invoke(app, ["validate", str(path), "--format", "json"])
    return json.loads(result.stdout)["violations"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report")
    every, samples = folder / "every.html", folder / "samples.html"
    _report(str(EVERY), "-o", str(every))
    _report(str(SAMPLES), "-o", str(samples))
    return {"every": every, "samples": samples}


def _rows(page: str) -> list[str]:
    body = page[page.index("id=violation-table>"):]
    return re.findall(r"<tr data-code='([A-Z0-9]+)'", body[:body.index("</table>")])


def test_the_page_holds_no_web_address_and_stays_small(pages):
    for page in pages.values():
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text
        assert not re.search(r"<(script|img|link|iframe)\b[^>]*\b(src|href)=", text.split("<script>", 1)[0])
        assert "default-src 'none'" in text  # the page may not fetch anything, whatever a script tries
    assert pages["samples"].stat().st_size < 5_000_000


def test_every_violation_is_listed_in_validate_order(pages):
    found = _validate_json(EVERY)
    page = pages["every"].read_text(encoding="utf-8")
    assert _rows(page) == [violation["code"] for violation in found]
    for code in {violation["code"] for violation in found}:
        assert f"id='rule-{code}'" in page  # each code's link has its explanation in the page


def test_a_board_is_the_replay_at_that_line(pages, tmp_path):
    page = pages["every"].read_text(encoding="utf-8")
    line = next(violation["line"] for violation in _validate_json(EVERY) if violation["code"] == "M205")
    target = tmp_path / "board.svg"
    result = runner.invoke(app, ["replay", f"{EVERY}:{line}", "--format", "svg", "-o", str(target)])
    assert result.exit_code == 0, result.output
    expected = target.read_text().replace(' xmlns="http://www.w3.org/2000/svg"', "").strip()
    row = re.search(r"<tr data-code='M205'.*?</tr>", page, re.DOTALL).group(0)
    assert f"<td class=num>{line}</td>" in row
    assert expected in row
    assert "drawlog replay" in row and f"every-violation.jsonl:{line}" in row


def test_the_charts_data_are_the_tables_aggregates(pages):
    page = pages["samples"].read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="drawlog-charts">(.*?)</script>', page, re.DOTALL)
    specs = json.loads(found.group(1))
    assert sorted(specs) == sorted(CHART_IDS)
    points = specs["points"]
    assert points["facet"]["column"]["field"] == "variant"  # the samples hold both games: one panel each
    ended = runner.invoke(app, ["validate", str(SAMPLES), "--format", "json"])  # the samples as read
    assert json.loads(ended.stdout)["summary"]["matches"] == len(specs["scores"]["params"][0]["bind"]["options"])
    rounds = sum(row["rounds"] for row in points["data"]["values"])
    assert rounds == sum(row["rounds"] for row in specs["stock"]["data"]["values"]) > 0
    over_time = specs["over_time"]["data"]["values"]
    assert sum(row["violations"] for row in over_time) == json.loads(ended.stdout)["summary"]["violations"]


def test_from_a_statistics_folder_the_same_violations(pages, tmp_path):
    stats = tmp_path / "stats"
    assert runner.invoke(app, ["stats", str(EVERY), "--out", str(stats), "-q"]).exit_code == 0
    target = tmp_path / "from-stats.html"
    _report(str(stats), "-o", str(target), "--logs", str(SAMPLES))  # the logs it may read again
    table = re.compile(r"<table class=sortable id=violation-table>.*?</table>", re.DOTALL)
    assert table.search(target.read_text()).group(0) == table.search(pages["every"].read_text()).group(0)
    _report(str(stats), "-o", str(target))  # no --logs: the tables' paths are not opened
    page = target.read_text()
    assert "<summary>board</summary>" not in page and "no board: no logs were named for this report" in page
    assert "not checksummed: no logs were named for this report" in page


def test_the_table_is_cut_and_says_how_many_more(tmp_path):
    target = tmp_path / "cut.html"
    _report(str(EVERY), "-o", str(target), "--max-violations", "5", "--boards", "2")
    page = target.read_text()
    total = len(_validate_json(EVERY))
    assert len(_rows(page)) == 5
    assert f"The first 5 violations of {total} are listed; {total - 5} more are not shown" in page
    assert page.count("<summary>board</summary>") <= 2


def test_strings_from_logs_are_escaped(tmp_path):
    log = tmp_path / "hostile.jsonl"
    evil = "</script><script>alert(1)</script>"
    log.write_text(json.dumps({"type": "match_start", "match": "http://x.example/m", "players": [evil, "bob"]}) + "\n"
                   + json.dumps({"type": "pass", "match": "https://y.example/</script>", "player": evil}) + "\n")
    target = tmp_path / "hostile.html"
    _report(str(log), "-o", str(target))
    page = target.read_text()
    assert "<script>alert(1)" not in page
    assert "http://" not in page and "https://" not in page
    assert page.count("</script>") == 3  # the charts' JSON, the Vega runtime, the page's own script
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http&#58;//x.example/m" in page


def test_a_log_without_matches_gives_a_report_without_charts(tmp_path):
    log = tmp_path / "empty.jsonl"
    log.write_text("")
    _report(str(log), "-o", str(tmp_path / "empty.html"))
    page = (tmp_path / "empty.html").read_text()
    assert page.count("Nothing to draw here.") == len(CHART_IDS)
    assert _rows(page) == ["W404"]


def test_an_output_that_cannot_be_written_is_refused_before_the_work(tmp_path):
    result = runner.invoke(app, ["report", str(EVERY), "-o", str(tmp_path / "no" / "r.html")])
    assert result.exit_code == 2
    assert "no folder" in result.output
    result = runner.invoke(app, ["report", str(EVERY), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "is a folder" in result.output


def test_the_vega_runtime_is_bundled_once_then_read_from_the_cache(tmp_path, monkeypatch):
    from unittest import mock

    from drawlog.views import report_charts

    made = []

    def bundle(snippet, vl_version=None):
        made.append(vl_version)
        return f"window.vegaEmbed = vegaEmbed; // see http://example.org {len(made)}"

    runtime = report_charts.vega_runtime.__wrapped__  # (past the cache of this process)
    monkeypatch.setenv("DRAWLOG_CACHE_DIR", str(tmp_path / "cache"))
    with mock.patch("vl_convert.javascript_bundle", bundle):
        first = runtime()
        assert first.startswith("window.vegaEmbed") and "http://" not in first and len(made) == 1
        (kept,) = (tmp_path / "cache").iterdir()
        assert kept.name.startswith("vega-runtime-") and kept.read_text(encoding="utf-8") == first
        assert runtime() == first and len(made) == 1  # read back, not bundled again
        kept.write_text(first[:20], encoding="utf-8")  # a copy cut short is bundled again
        assert runtime().endswith(" 2" + report_charts._RUNTIME_END) and len(made) == 2
        monkeypatch.setenv("DRAWLOG_CACHE_DIR", str(kept))  # a cache that cannot be a folder: still a page
        assert runtime().endswith(" 3" + report_charts._RUNTIME_END)
        monkeypatch.setenv("DRAWLOG_CACHE_DIR", "")  # empty: no cache at all
        assert runtime().endswith(" 4" + report_charts._RUNTIME_END) and report_charts.cache_folder() is None
    monkeypatch.delenv("DRAWLOG_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert report_charts.cache_folder() == tmp_path / "xdg" / "drawlog"


def test_nothing_read_is_exit_2(tmp_path):
    result = runner.invoke(app, ["report", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "r.html"), "-q"])
    assert result.exit_code == 2
    assert not (tmp_path / "r.html").exists()
    assert "no report is written" in result.output and "drawlog-report-" not in result.output  # no scratch folder


# --- in a real browser ---------------------------------------------------------------------------

def _unavailable(reason: str) -> None:
    if os.environ.get("DRAWLOG_REQUIRE_BROWSER") == "1":
        pytest.fail(f"DRAWLOG_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _unavailable("selenium is not installed (pip install '.[test]')")
    chromium = os.environ.get("DRAWLOG_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    driver_path = os.environ.get("DRAWLOG_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (Path(chromium).is_file() and Path(driver_path).is_file()):
        _unavailable("no Chromium (apt-get install chromium chromium-driver)")
    profile = tempfile.mkdtemp(prefix="drawlog-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", "--window-size=1400,1000", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver, page: Path) -> None:
    """Load the page, wait for every chart to be drawn, and check the console and the network."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser"), driver.get_log("performance")  # forget what came before
    url = page.resolve().as_uri()
    driver.get(url)
    drawn = "return Array.from(document.querySelectorAll('.chart')).map(e => !!e.querySelector('svg, canvas'))"
    with contextlib.suppress(TimeoutException):  # said below, chart by chart
        WebDriverWait(driver, 60).until(lambda d: all(d.execute_script(drawn)))
    charts = driver.execute_script("return Array.from(document.querySelectorAll('.chart')).map(e => e.id)")
    assert charts == [f"chart-{name}" for name in CHART_IDS]
    assert driver.execute_script(drawn) == [True] * len(CHART_IDS), "a chart has no svg or canvas"
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    requests = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    sent = [item["params"] for item in requests if item["method"] == "Network.requestWillBeSent"]
    ours = [params["request"]["url"] for params in sent if params.get("documentURL") == url]
    assert ours and all(urlparse(address).scheme in ("file", "data", "blob") for address in ours), ours
    assert not [params["request"]["url"] for params in sent
                if urlparse(params["request"]["url"]).scheme in ("http", "https", "ws", "wss", "ftp")]


def test_in_a_browser_the_report_loads_offline_and_draws(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["every"])
    violations = _validate_json(EVERY)
    rows = browser.find_elements(By.CSS_SELECTOR, "#violation-table tbody tr")
    assert len(rows) == len(violations)

    box = browser.find_element(By.ID, "violation-filter")
    box.send_keys("M207")
    visible = browser.execute_script("return Array.from(document.querySelectorAll('#violation-table tbody tr'))"
                                     ".filter(r => !r.hidden).map(r => r.dataset.code)")
    assert visible == [item["code"] for item in violations if item["code"] == "M207"]
    box.clear()
    box.send_keys(" ")
    line_header = browser.find_element(By.XPATH, "//table[@id='violation-table']/thead/tr/th[3]")
    line_header.click()
    lines = browser.execute_script("return Array.from(document.querySelectorAll('#violation-table tbody tr'))"
                                   ".map(r => r.cells[2].textContent)")
    expected = sorted((str(item["line"]) for item in violations if item["line"] is not None), key=int)
    assert lines[:len(expected)] == expected
    line_header.click()
    lines = browser.execute_script("return Array.from(document.querySelectorAll('#violation-table tbody tr'))"
                                   ".map(r => r.cells[2].textContent)")
    assert lines[:len(expected)] == expected[::-1]

    choices = browser.find_elements(By.CSS_SELECTOR, "#chart-scores select option")
    assert len(choices) > 1  # the match to draw is chosen in the page


def test_in_a_browser_a_screenshot_of_the_sample_report(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["samples"])
    browser.find_element(By.CSS_SELECTOR, "#violation-table details summary").click()  # one board open
    height = browser.execute_script("return document.documentElement.scrollHeight")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.set_window_size(1400, min(height, 16_000))
    try:
        assert browser.save_screenshot(str(ARTIFACTS / "report-sample-logs.png"))
        for section in ("summary", "violations", "charts"):
            browser.find_element(By.ID, section).screenshot(str(ARTIFACTS / f"report-{section}.png"))
    finally:
        browser.set_window_size(1400, 1000)
    assert (ARTIFACTS / "report-sample-logs.png").stat().st_size > 10_000
