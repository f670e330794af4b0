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
import subprocess
import sys
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
CHART_IDS = ("points", "stock", "voluntary", "wins", "ratings", "scores", "over_time")


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


def _listed(page: str) -> dict:
    """The violations the page lists (the data its script shows a page at a time)."""
    return json.loads(re.search(r'<script type="application/json" id="drawlog-violations">(.*?)</script>', page,
                                re.DOTALL).group(1))


def _rows(page: str) -> list[str]:
    listed = _listed(page)
    return [listed["codes"][row[5]] for row in listed["rows"]]


def _template(page: str, number: int) -> str:
    return re.search(rf"<template id=board-{number}>(.*?)</template>", page, re.DOTALL).group(1)


def test_the_page_holds_no_web_address_and_stays_small(pages):
    for page in pages.values():
        text = page.read_text(encoding="utf-8")
        assert "://" not in text  # no http://, https:// nor file:// (the Vega runtime's are written :\/\/)
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
    listed = _listed(page)
    (row,) = [row for row in listed["rows"] if listed["codes"][row[5]] == "M205"]
    assert row[1] == line and isinstance(row[8], int)
    board = _template(page, row[8])
    assert expected in board
    assert "drawlog replay" in board and f"every-violation.jsonl:{line}" in board


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
    listed = re.compile(r'id="drawlog-violations">.*?</script><div id=violation-boards hidden>.*?</div>', re.DOTALL)
    assert listed.search(target.read_text()).group(0) == listed.search(pages["every"].read_text()).group(0)
    _report(str(stats), "-o", str(target))  # no --logs: the tables' paths are not opened
    page = target.read_text()
    assert "<template id=board-" not in page and "no board: no logs were named for this report" in page
    assert "not checksummed: no logs were named for this report" in page


def test_the_table_is_cut_and_says_how_many_more(tmp_path):
    target = tmp_path / "cut.html"
    _report(str(EVERY), "-o", str(target), "--max-violations", "5", "--boards", "2")
    page = target.read_text()
    total = len(_validate_json(EVERY))
    assert len(_rows(page)) == 5
    assert f"The first 5 violations of {total} are listed; {total - 5} more are not shown" in page
    assert page.count("<template id=board-") <= 2


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
    assert page.count("</script>") == 4  # the violations' and the charts' JSON, the Vega runtime, the page's script
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http:\\/\\/x.example/m" in _data_part(page)  # in the list's JSON: the same string, no address


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
    shown = "return Array.from(document.querySelectorAll('#violation-table tbody tr[data-code]'))"
    rows = browser.execute_script(shown + ".filter(r => !r.hidden).map(r => r.dataset.code)")
    assert sorted(rows) == sorted(item["code"] for item in violations)  # one page, grouped by match

    box = browser.find_element(By.ID, "violation-filter")
    box.send_keys("M207")
    visible = browser.execute_script(shown + ".filter(r => !r.hidden).map(r => r.dataset.code)")
    assert visible == [item["code"] for item in violations if item["code"] == "M207"]
    assert browser.find_element(By.ID, "violation-count").text == f"{len(visible)} of {len(violations)} shown"
    box.clear()
    box.send_keys(" ")
    browser.find_element(By.ID, "violation-group").click()  # one list, not grouped by match
    line_header = browser.find_element(By.XPATH, "//table[@id='violation-table']/thead/tr/th[3]")
    line_header.click()
    lines = browser.execute_script(shown + ".map(r => r.cells[2].textContent)")
    expected = sorted((str(item["line"]) for item in violations if item["line"] is not None), key=int)
    assert lines[:len(expected)] == expected
    line_header.click()
    lines = browser.execute_script(shown + ".map(r => r.cells[2].textContent)")
    assert lines[:len(expected)] == expected[::-1]

    choices = browser.find_elements(By.CSS_SELECTOR, "#chart-scores select option")
    assert len(choices) > 1  # the match to draw is chosen in the page


def test_in_a_browser_a_screenshot_of_the_sample_report(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["samples"])
    browser.find_element(By.CSS_SELECTOR, "#violation-table .board-button").click()  # one board open
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


# --- a crafted statistics folder (issue 26): the tables are untrusted ------------------------------

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "</script><script>window.pwned=1</script>"
RLO = "\u202eecila"
#: What may not reach the page raw from the data: bidi, line separator, isolate, ESC, comments, markup.
RAW = ("\u202e", "\u2066", "\u2028", "\x1b", "<!--", "<img", "<script>window", "'><b>")
YEAR_10000 = 253_402_300_800_000_000 + 5  # microseconds from 1970: just past 9999-12-31
YEAR_0 = -62_167_219_200_000_000


def _rewrite(folder: Path, table: str, change) -> None:
    import polars as pl

    path = folder / table / "part-00000.parquet"
    change(pl.read_parquet(path)).write_parquet(path)


@pytest.fixture(scope="module")
def crafted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The tables of every-violation.jsonl with hostile names, messages, paths and times, written directly."""
    import polars as pl

    base = tmp_path_factory.mktemp("crafted")
    stats, logs = base / "stats", base / "logs"
    logs.mkdir()
    shutil.copy(EVERY, logs / "every.jsonl")
    secret = base / "secret.txt"
    secret.write_text("the password file\n")
    (logs / "link.jsonl").symlink_to(secret)  # under the logs' folder, but a link out of it
    fifo = logs / "fifo.jsonl"  # under the logs' folder, but no regular file
    os.mkfifo(fifo)
    assert runner.invoke(app, ["stats", str(EVERY), "--out", str(stats), "-q"]).exit_code == 0
    names = {"ann": IMG, "bob": SCRIPT, "cat": RLO}
    paths = ["/dev/zero", str(fifo), "/etc/shadow", str(secret), str(logs / "link.jsonl"), str(logs / "every.jsonl")]

    def hostile(frame: pl.DataFrame) -> pl.DataFrame:
        frame = frame.with_columns(pl.Series("path", [paths[i % len(paths)] for i in range(frame.height)]),
                                   pl.col("file") + pl.Series([f"<!--\u2066{i % len(paths)}" for i in
                                                               range(frame.height)]))
        for column in ("player", "opener", "winner"):
            if frame.schema.get(column) == pl.String:
                frame = frame.with_columns(pl.col(column).replace(names))
        return frame

    for table in ("players", "moves", "rounds"):
        _rewrite(stats, table, hostile)
    _rewrite(stats, "violations", lambda frame: hostile(frame).with_columns(
        pl.col("message") + SCRIPT + "\x1b[31m<!--", pl.when(pl.col("path") == paths[-1]).then("match")  # (the real log's: boards to draw)
        .otherwise(pl.col("match") + "\u2028'\""), pl.col("code") + "'><b>"))
    _rewrite(stats, "matches", lambda frame: hostile(frame).with_columns(
        pl.col("player_names").list.eval(pl.element().replace(names)),
        pl.Series("started_at", [(YEAR_10000, YEAR_0)[i % 2] for i in range(frame.height)]).cast(
            pl.Datetime("us", "UTC"))))
    manifest = json.loads((stats / "_drawlog.json").read_text())
    manifest["inputs"] = [IMG, SCRIPT]
    manifest["summary"]["decompression"] = [SCRIPT]
    manifest["summary"]["files"] = "<b>many</b>"
    (stats / "_drawlog.json").write_text(json.dumps(manifest))
    return {"stats": stats, "logs": logs, "secret": secret, "fifo": fifo}


def _run_report(*args: str, timeout: float = 120, **popen) -> subprocess.CompletedProcess[str]:
    """``drawlog report`` in a process of its own: a hang is a failure after ``timeout`` seconds, not a stuck test."""

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "drawlog", "report", *args, "-q"], check=False,
                          capture_output=True, text=True, timeout=timeout, env=env, **popen)


@pytest.fixture(scope="module")
def crafted_pages(crafted, tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("crafted-pages")
    pages = {}
    for boards in (0, 100):
        target = folder / f"boards-{boards}.html"
        result = _run_report(str(crafted["stats"]), "-o", str(target), "--boards", str(boards),
                             "--logs", str(crafted["logs"]), "--logs", "/dev/zero")  # named, still no file
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        pages[boards] = target
    return pages


def _data_part(page: str) -> str:
    """The page less the report's own scripts (the Vega runtime holds markup in its strings)."""
    return re.sub(r"<script>.*?</script>", "", page, flags=re.DOTALL)


def test_a_crafted_folder_is_escaped_for_every_context(crafted_pages):
    for page in crafted_pages.values():
        text = page.read_text(encoding="utf-8")
        data = _data_part(text)
        assert [raw for raw in RAW if raw in data] == []
        assert "&lt;img src=x onerror=alert(1)&gt;" in data  # shown, as text
        assert "\\u202eecila" in data and "\\u2066" in data and "\\u2028" in data  # as the terminal shows them
        assert data.count("</script>") == 2  # the violations' and the charts' JSON only
        charts = re.search(r'id="drawlog-charts">(.*?)</script>', data, re.DOTALL).group(1)
        assert "\\\\u202eecila" in charts  # the charts show it escaped too (a backslash, in JSON)
        assert "&lt;b&gt;many&lt;/b&gt;" not in data and "<b>many" not in data  # a count that is no number: 0


def test_the_policy_runs_only_the_pages_own_scripts(crafted_pages):
    import base64
    import hashlib

    text = crafted_pages[100].read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text).group(1)
    script_src = next(part.split()[1:] for part in policy.split(";") if part.split()[0] == "script-src")
    assert "'unsafe-inline'" not in script_src and "'unsafe-hashes'" not in script_src
    own = re.findall(r"<script>(.*?)</script>", text, re.DOTALL)
    hashes = {"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'" for body in own}
    assert len(own) == 2 and set(script_src) - {"'unsafe-eval'"} == hashes
    assert "default-src 'none'" in policy and "base-uri 'none'" in policy


def test_stored_paths_are_opened_only_under_the_logs_named(crafted, crafted_pages):
    import hashlib

    text = crafted_pages[100].read_text(encoding="utf-8")
    files = re.findall(r"<tr><td class=mono>(.*?)</td><td class=num>(.*?)</td><td class='mono hash'>(.*?)</td>",
                       text)
    by_end = {name[-1]: (size, said) for name, size, said in files}
    every = hashlib.sha256(EVERY.read_bytes()).hexdigest()
    assert by_end["5"] == (format(EVERY.stat().st_size, ","), every)  # a regular file under --logs
    assert by_end["0"][1] == "not checksummed: /dev/zero is not a regular file"
    assert by_end["1"][1] == f"not checksummed: {crafted['fifo']} is not a regular file"
    for outside in ("2", "3", "4"):  # /etc/shadow, a file beside the logs, a link out of the logs' folder
        assert by_end[outside][0] == "–" and "is not a log named for this report" in by_end[outside][1]
    assert hashlib.sha256(crafted["secret"].read_bytes()).hexdigest() not in text
    assert "<template id=board-" in text  # the boards of the log under --logs are drawn
    assert "no board: /dev/zero is not a regular file" in text
    alone = crafted_pages[100].with_name("no-logs.html")
    result = _run_report(str(crafted["stats"]), "-o", str(alone))
    assert result.returncode == 0, result.stderr
    assert "<template id=board-" not in alone.read_text() and every not in alone.read_text()


def test_the_time_chart_draws_years_10000_and_0_at_the_calendars_ends(crafted_pages):
    text = crafted_pages[0].read_text(encoding="utf-8")
    charts = json.loads(re.search(r'id="drawlog-charts">(.*?)</script>', text, re.DOTALL).group(1))
    bars = charts["over_time"]["data"]["values"]
    assert bars[0]["start"].startswith("0001-01-01") and max(bar["end"] for bar in bars).startswith("9999-12-31")
    assert "matches logged outside the years 1 to 9999, counted at the nearest end" in text


def test_tables_of_other_types_are_refused(crafted, tmp_path):
    import polars as pl

    folder = tmp_path / "typed"
    shutil.copytree(crafted["stats"], folder)
    _rewrite(folder, "violations", lambda frame: frame.with_columns(pl.col("line").cast(pl.String) + IMG))
    result = runner.invoke(app, ["report", str(folder), "-o", str(tmp_path / "r.html"), "-q"])
    assert result.exit_code == 2 and "violations.line is String, not Int64" in result.output
    assert not (tmp_path / "r.html").exists()


def test_a_checksum_has_a_size_cap_and_a_time_limit(tmp_path, monkeypatch):
    from drawlog.tables import report_data

    log = tmp_path / "log.jsonl"
    log.write_bytes(b"x" * 3_000_000)
    assert report_data.sha256_of(log)[0] == 3_000_000
    with pytest.raises(OSError, match="over 0 s"):
        report_data.sha256_of(log, seconds=0)
    monkeypatch.setattr(report_data, "MAX_OPEN_BYTES", 1000)
    with pytest.raises(OSError, match="larger than 1,000 bytes"):
        report_data.sha256_of(log)
    assert "larger than 1,000 bytes" in report_data.LogAccess.of([str(tmp_path)]).check(str(log))
    with pytest.raises(OSError):
        report_data.sha256_of("/dev/zero")  # a device: refused when opened, never read


def test_a_fifo_is_read_once_and_hashed_as_read(tmp_path):
    import hashlib
    import threading

    fifo = tmp_path / "piped.jsonl"
    os.mkfifo(fifo)
    data = EVERY.read_bytes()

    def write() -> None:
        with open(fifo, "wb") as stream:
            stream.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    target = tmp_path / "fifo.html"
    result = _run_report(str(fifo), str(fifo), "-o", str(target), timeout=120)  # named twice: read once
    writer.join(5)
    assert result.returncode == 0, result.stderr
    assert f"<td class=mono>{fifo}</td>" in target.read_text(encoding="utf-8").split("<h3>Input files")[1]
    page = target.read_text(encoding="utf-8")
    assert f"<td class='mono hash'>{hashlib.sha256(data).hexdigest()}</td>" in page
    assert f"<td class=mono>{fifo}</td>" in page and "drawlog-report-" not in page  # its name, not the copy's
    assert "<template id=board-" in page  # boards from what was read
    piped = tmp_path / "stdin.html"
    result = _run_report("-", "-o", str(piped), input=data.decode())
    assert result.returncode == 0 and hashlib.sha256(data).hexdigest() in piped.read_text(), result.stderr


def test_in_a_browser_no_script_from_the_tables_runs(browser, crafted_pages):
    from selenium.common.exceptions import NoAlertPresentException

    for page in crafted_pages.values():
        _open(browser, page)  # every chart drawn, no error (a blocked script would log one), no request
        assert browser.execute_script("return typeof window.pwned") == "undefined"
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert.text  # noqa: B018 - no alert(1) is open
        rendered = browser.execute_script("return document.getElementById('by-player').textContent")
        assert IMG in rendered and "\\u202eecila" in rendered  # the names as text, the override escaped
        # The policy itself: an inline handler or script slipped into the page does not run.
        browser.execute_script(
            "document.body.insertAdjacentHTML('beforeend', '<img src=\"data:,x\" onerror=\"window.handler=1\">"
            "<svg onload=\"window.handler=2\"></svg>');"
            "var s = document.createElement('script'); s.textContent = 'window.injected = 1';"
            "document.body.appendChild(s);")
        browser.execute_script("return new Promise(function (done) { setTimeout(done, 300); })")
        assert browser.execute_script("return [typeof window.handler, typeof window.injected]") == [
            "undefined", "undefined"]
        browser.get_log("browser")  # (the refusals just provoked are logged: forget them)
