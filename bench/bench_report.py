"""On-demand benchmark of ``drawlog report`` with 100,000 violations (not part of the test suite).

Usage::

    python bench/bench_report.py [--violations 100000] [--pairs 5] [--baseline /work/main/src]

Makes a log of at least ``--violations`` violations (cached in ``bench/data``): simulated 2-player
matches (``--seed``) into which a ``pass`` by the player who just played is put after every play,
an illegal pass the replay applies, so each match breaks turn order, draws and passes hundreds of
times and claims results the replay does not give (M201, M207, M208, M209, R30x). Then the report of
this tree and of ``--baseline`` (another tree's ``src``, e.g. main before the director's report; none
to skip) are written from the log's statistics folder (made once, so only the page is timed), each at
its default ``--max-violations`` and this tree's also with every violation listed, and each page is
opened in headless Chromium (the system's, through selenium) in turns A B A B ``--pairs`` times:
its size, the time to the ``load`` event, to the first contentful paint, and, for this tree's page,
to the paint of the verdict (Element Timing). Prints the medians and writes ``bench/results/report.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DATA = BENCH / "data"
RESULTS = BENCH / "results" / "report.json"


def drawlog(src: Path, *args: str) -> float:
    """Run ``drawlog ARGS`` from the tree at ``src``; the seconds it took."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "drawlog", *args], check=True, env={**os.environ, "PYTHONPATH": str(src)},
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def make_log(violations: int, seed: int) -> tuple[Path, Path, int]:
    """The log, its statistics folder and its violations (made once, then reused)."""
    folder = DATA / f"report-{violations}-seed{seed}"
    log, stats, meta = folder / "passes.jsonl", folder / "stats", folder / "meta.json"
    if meta.is_file():
        return log, stats, json.loads(meta.read_text())["violations"]
    folder.mkdir(parents=True, exist_ok=True)
    matches = max(1, violations // 400)
    while True:
        plain = folder / "plain.jsonl"
        drawlog(ROOT / "src", "simulate", "-n", str(matches), "--seed", str(seed), "-o", str(plain), "-q")
        with open(plain, encoding="utf-8") as source, open(log, "w", encoding="utf-8") as sink:
            for line in source:
                sink.write(line)
                event = json.loads(line)
                if event.get("type") == "play":  # the player who just played passes: out of turn
                    sink.write(json.dumps({"type": "pass", "match": event["match"], "player": event["player"]}) + "\n")
        plain.unlink()
        drawlog(ROOT / "src", "stats", str(log), "--out", str(stats), "-q")
        import polars as pl

        found = pl.scan_parquet(str(stats / "violations" / "**" / "*.parquet")).select(pl.len()).collect().item()
        if found >= violations:
            break
        matches = int(matches * violations / max(found, 1) * 1.05) + 1
    meta.write_text(json.dumps({"violations": found, "matches": matches, "bytes": log.stat().st_size}))
    return log, stats, found


def browser():  # type: ignore[no-untyped-def]
    """Headless Chromium at 1280 px, as the report's tests drive it."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--window-size=1280,1000", f"--user-data-dir={tempfile.mkdtemp(prefix='bench-report-')}"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


TIMES = """
var nav = performance.getEntriesByType('navigation')[0];
var paint = performance.getEntriesByType('paint').filter(function (e) { return e.name === 'first-contentful-paint'; });
var verdict = (window.__elements || []).filter(function (e) { return e.identifier === 'verdict'; });
return {load: nav.loadEventEnd, fcp: paint.length ? paint[0].startTime : null,
        verdict: verdict.length ? verdict[0].renderTime || verdict[0].loadTime : null,
        rows: document.querySelectorAll('#violation-table tr').length,
        height: document.documentElement.scrollHeight};
"""
OBSERVE = """
window.__elements = [];
new PerformanceObserver(function (list) { window.__elements.push.apply(window.__elements, list.getEntries()); })
  .observe({type: 'element', buffered: true});
"""


def measure(driver, page: Path) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Open ``page`` afresh and read its timings (ms) once it has loaded and settled."""
    driver.get("about:blank")
    driver.get(page.resolve().as_uri())
    driver.execute_script(OBSERVE)
    time.sleep(0.5)
    return driver.execute_script(TIMES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--violations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--baseline", default="/work/main/src", help="another tree's src ('' for none)")
    parser.add_argument("--no-results", action="store_true")
    args = parser.parse_args()
    log, stats, found = make_log(args.violations, args.seed)
    print(f"log: {log.stat().st_size / 1e6:.1f} MB, {found:,} violations", file=sys.stderr)
    out = Path(tempfile.mkdtemp(prefix="bench-report-"))
    pages: dict[str, Path] = {}
    built: dict[str, float] = {}
    variants = [("this", ROOT / "src", ()), ("this-all", ROOT / "src", ("--max-violations", str(found)))]
    if args.baseline:
        variants.append(("baseline", Path(args.baseline), ()))
    for name, src, extra in variants:
        pages[name] = out / f"{name}.html"
        built[name] = drawlog(src, "report", str(stats), "-o", str(pages[name]), "--logs", str(log), "-q", *extra)
    driver = browser()
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in pages}
    try:
        for _ in range(args.pairs):  # A B A B: each page in turn, so drift hits all alike
            for name, page in pages.items():
                runs[name].append(measure(driver, page))
    finally:
        driver.quit()
    summary = {}
    for name, page in pages.items():
        def median(key: str, name: str = name) -> float | None:
            values = [run[key] for run in runs[name] if run[key] is not None]
            return round(statistics.median(values), 1) if values else None

        summary[name] = {"bytes": page.stat().st_size, "built_s": round(built[name], 2), "load_ms": median("load"),
                         "first_paint_ms": median("fcp"), "verdict_paint_ms": median("verdict"),
                         "rows_in_dom": runs[name][0]["rows"], "height_px": runs[name][0]["height"]}
    if "baseline" in runs:
        ratios = [a["load"] / b["load"] for a, b in zip(runs["this"], runs["baseline"])]
        summary["load_ratio_this_vs_baseline"] = round(statistics.median(ratios), 3)
    result = {"violations": found, "log_bytes": log.stat().st_size, "pairs": args.pairs, "pages": summary}
    print(json.dumps(result, indent=2))
    if not args.no_results:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
