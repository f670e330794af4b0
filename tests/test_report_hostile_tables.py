"""``drawlog report STATS`` on a statistics folder whose tables and manifest hold hostile values.

A statistics folder is untrusted input (README, security notes on ``report``):
whatever its columns and its manifest's summary hold -- nulls, markup,
``</script>``, bidi marks, 100 KB strings, extreme numbers, a summary value of
any JSON type -- the report exits 0 with an inert page, or 2 with one line,
never a traceback. The property test damages a folder written from
``sample_logs/every-violation.jsonl``; the tests after it pin what it found.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from fuzz.agree_settings import _handlers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drawlog.check.violations import Summary
from drawlog.cli import app
from drawlog.tables.dataset import write_tables
from drawlog.tables.stats import SCHEMAS

EVERY = Path(__file__).parent.parent / "sample_logs" / "every-violation.jsonl"
runner = CliRunner()

#: The summary's keys as drawlog writes them, and a few it does not.
SUMMARY_KEYS = (*Summary.__struct_fields__, "extra", "")
#: The tables of the folder: those ``drawlog stats`` writes and those ``drawlog analyze --out`` adds (the report
#: refuses other columns or types, so values are changed, not types).
TABLES = (*SCHEMAS, "decisions", "analysis_players", "luck")
#: Raw characters no value may bring to the page (outside its own scripts): bidi and line marks, ESC, NUL.
RAW = ("\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\x1b", "\x00")

ODD_TEXT = st.sampled_from([
    "</script><script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\" onmouseover=\"alert(1)",
    "' onfocus='alert(1)", "<!--", "]]>", "\u202egnp.exe", "\u2066x\u2069", "a\u2028b\u2029c", "\x1b[31mred",
    "nul\x00byte", "javascript:alert(1)", "https://example.com/x", "@@BODY@@", "{{x}}", "", " ", "E999", "error",
    "warning", "🀱", "x" * 100_000, "<svg/onload=alert(1)>", "&amp;&lt;", "%s%n", "\\", "null",
])
EXTREME_INT = st.sampled_from([0, -1, 1, -(2**31), 2**31 - 1, -(2**63), 2**63 - 1, 10**12])
EXTREME_FLOAT = st.sampled_from([math.inf, -math.inf, math.nan, -0.0, 1e308, -1e308, 5e-324])
JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**40), max_value=10**40) | st.floats() | ODD_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


@st.composite
def column_change(draw: st.DrawFn) -> tuple[str, int, str, Any, int]:
    """A change of one column of one table: (table, column by place, kind, value, which rows)."""
    table = draw(st.sampled_from(TABLES))
    column = draw(st.integers(0, 63))
    kind = draw(st.sampled_from(["null", "text", "int", "float"]))
    value = {"null": st.none(), "text": ODD_TEXT, "int": EXTREME_INT, "float": EXTREME_FLOAT}[kind]
    return table, column, kind, draw(value), draw(st.integers(0, 3))


def _hits(height: int, mode: int) -> list[bool]:
    """Which rows a change hits: every one, the first, every other one, or the last."""
    return [mode == 0 or (mode == 1 and i == 0) or (mode == 2 and i % 2 == 0) or (mode == 3 and i == height - 1)
            for i in range(height)]


def _changed(frame: pl.DataFrame, column: str, kind: str, value: Any, mode: int) -> pl.DataFrame:
    """``frame`` with ``value`` in ``column`` at the rows ``mode`` picks, where the column's type can hold it."""
    dtype = frame.schema[column]
    old = frame[column].to_list()
    hits = _hits(frame.height, mode)
    if kind == "text" and dtype == pl.List(pl.String):
        values = [[value, *(item or [])] if hit else item for hit, item in zip(hits, old)]
    elif kind == "null" or (kind == "text" and dtype == pl.String) or (kind == "int" and dtype.is_integer()) or (
            kind == "float" and dtype.is_float()):
        values = [value if hit else item for hit, item in zip(hits, old)]
    else:
        return frame
    try:
        series = pl.Series(column, values, dtype=dtype, strict=True)
    except (OverflowError, TypeError, ValueError, pl.exceptions.PolarsError):  # too large for the column's type
        edge = _clamped(value, dtype)
        series = pl.Series(column, [edge if hit else item for hit, item in zip(hits, old)], dtype=dtype)
    return frame.with_columns(series)


def _clamped(value: Any, dtype: pl.DataType) -> Any:
    """An integer at the edge of ``dtype``'s range, toward ``value``."""
    if not isinstance(value, int) or not dtype.is_integer():
        return value
    bits = {"Int8": 8, "Int16": 16, "Int32": 32}.get(type(dtype).__name__, 64)
    return max(-(2 ** (bits - 1)), min(2 ** (bits - 1) - 1, value))


def damage(folder: Path, changes: list[tuple[str, str | int, str, Any, int]], summary: dict[str, Any]) -> None:
    """Make ``changes`` to the first part of each table named (a column by name or by place), and set
    ``summary``'s keys in the manifest."""
    for table, column, kind, value, mode in changes:
        part = min((folder / table).rglob("*.parquet"))
        frame = pl.read_parquet(part)
        if frame.height:
            name = column if isinstance(column, str) else frame.columns[column % frame.width]
            _changed(frame, name, kind, value, mode).write_parquet(part)
    if summary:
        manifest = folder / "_drawlog.json"
        held = json.loads(manifest.read_text(encoding="utf-8"))
        if "whole" in summary:
            held["summary"] = summary["whole"]
        else:
            held["summary"].update(summary)
        manifest.write_text(json.dumps(held), encoding="utf-8")


_OWN_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
_DATA_SCRIPT = re.compile(r'<script type="application/json" id="([a-z-]+)">(.*?)</script>', re.DOTALL)


def inert(page: str) -> None:
    """No script but the page's own two and its JSON data, no event handler, no raw bidi or control character."""
    assert len(_OWN_SCRIPT.findall(page)) == 2
    data = _OWN_SCRIPT.sub("", page)
    for _, text in _DATA_SCRIPT.findall(data):
        json.loads(text)
        assert "<" not in text and ">" not in text
    rest = _DATA_SCRIPT.sub("", data)
    assert "<script" not in rest.lower() and "</script" not in rest.lower(), \
        re.findall(r"(?i).{0,80}</?script.{0,80}", rest)[:3]
    assert not _handlers(rest), _handlers(rest)[:3]
    assert "://" not in rest, re.findall(r".{0,60}://.{0,60}", rest)[:3]
    assert [raw for raw in RAW if raw in rest] == []


def one_line(result: Any) -> str:
    """Exit 2 with one ``Error: …`` line on standard error; that line."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    errors = [line for line in result.stderr.split("\n") if line.startswith("Error")]
    assert len(errors) == 1, result.stderr
    return errors[0]


def report(stats: Path, page: Path, *more: str) -> Any:
    """``drawlog report STATS -o PAGE`` (no exception escapes but SystemExit: a traceback fails here)."""
    result = runner.invoke(app, ["report", str(stats), "-o", str(page), *more])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"report raised {result.exception!r}") from result.exception
    return result


def page_or_one_line(result: Any, page: Path) -> str | None:
    """The page (exit 0, inert) or None (exit 2, one line, no page)."""
    if result.exit_code == 2:
        one_line(result)
        assert not page.exists()
        return None
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    inert(text)
    return text


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A statistics folder of the sample log with every violation, with its analysis tables (one deal sampled
    per decision), copied before each change."""
    stats = tmp_path_factory.mktemp("hostile") / "stats"
    write_tables([str(EVERY)], stats)
    done = runner.invoke(app, ["analyze", str(EVERY), "--samples", "1", "--out", str(stats)])
    assert done.exit_code == 0, done.output
    assert all((stats / name).is_dir() for name in TABLES)
    return stats


def _copy(written: Path, where: Path) -> Path:
    stats = where / "stats"
    shutil.copytree(written, stats, symlinks=True)
    return stats


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(changes=st.lists(column_change(), min_size=1, max_size=4),
       summary=st.dictionaries(st.sampled_from(SUMMARY_KEYS), JSON_VALUE, max_size=3)
       | st.builds(lambda value: {"whole": value}, JSON_VALUE),
       logs=st.booleans(), quiet=st.booleans())
def test_report_of_hostile_tables_is_an_inert_page_or_one_line(
        written: Path, tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[str, str | int, str, Any, int]],
        summary: dict[str, Any], logs: bool, quiet: bool) -> None:
    where = tmp_path_factory.mktemp("example")
    stats = _copy(written, where)
    damage(stats, changes, summary)
    page = where / "page.html"
    result = report(stats, page, *(["--logs", str(EVERY)] if logs else []), *(["-q"] if quiet else []))
    page_or_one_line(result, page)


# --- what the property test and the fuzz targets found, pinned ------------------------------------------


@pytest.mark.parametrize(("raw", "counts", "notes"), [
    ({"files": [1], "lines": 7}, {"files": 0, "lines": 7},
     ["the manifest's summary.files is a list, not a count: shown as 0"]),
    ({"files": 10**40, "events": -1, "errors": True, "warnings": 2.0, "matches": None, "blank_lines": "3"},
     {"files": 0, "events": 0, "errors": 0, "warnings": 0, "matches": 0, "blank_lines": 0},
     ["the manifest's summary.files is a number over 2**63 - 1, not a count: shown as 0",
      "the manifest's summary.events is a negative number, not a count: shown as 0",
      "the manifest's summary.matches is null, not a count: shown as 0",
      "the manifest's summary.errors is true or false, not a count: shown as 0",
      "the manifest's summary.warnings is a fraction, not a count: shown as 0",
      "the manifest's summary.blank_lines is text, not a count: shown as 0"]),
    ({"lines": 2**63 - 1, "extra": [1]}, {"lines": 2**63 - 1}, []),
    ({"decompression": 5}, {"decompression": []},
     ["the manifest's summary.decompression is a number, not a list of warnings: none shown"]),
    ({"decompression": ["a.gz decompresses 30,000×", None, {}]}, {"decompression": ["a.gz decompresses 30,000×"]},
     ["2 of the manifest's summary.decompression warnings are not text: left out"]),
    ([1, 2], {"files": 0}, ["the manifest's summary is a list, not an object: its counts are shown as 0"]),
    (None, {"files": 0}, ["the folder's manifest holds no validation summary: its counts are shown as 0"]),
])
def test_the_summary_is_read_field_by_field_and_each_value_not_read_is_said(
        raw: Any, counts: dict[str, Any], notes: list[str]) -> None:
    from drawlog.tables.report_summary import read_summary

    summary, said = read_summary(raw)
    assert {key: getattr(summary, key) for key in counts} == counts
    assert said == notes


def test_a_list_as_summary_files_is_a_page_showing_0_and_saying_so(written: Path, tmp_path: Path) -> None:
    stats = _copy(written, tmp_path)
    damage(stats, [], {"files": ["<img src=x onerror=alert(1)>", None], "decompression": 10**40})
    page = tmp_path / "page.html"
    result = report(stats, page)
    text = page_or_one_line(result, page)
    assert text is not None
    assert "<div class=card><b>0</b><span>files read</span></div>" in text
    assert ("<p class=note>not read: the manifest&#x27;s summary.files is a list, not a count: shown as 0.</p>"
            in text)
    assert "summary.decompression is a number over 2**63 - 1, not a list of warnings: none shown" in text
    assert result.stderr.splitlines()[:2] == [
        f"warning: {stats}: the manifest's summary.files is a list, not a count: shown as 0",
        (f"warning: {stats}: the manifest's summary.decompression is a number over 2**63 - 1, not a list of "
         "warnings: none shown")]
    assert result.stderr.splitlines()[2].startswith(f"wrote {page} (")


@pytest.mark.parametrize("column", ["code", "file", "match", "line", "severity", "message", "player", "round"])
def test_a_null_in_every_row_of_a_violations_column_is_a_page(written: Path, tmp_path: Path, column: str) -> None:
    stats = _copy(written, tmp_path)
    damage(stats, [("violations", column, "null", None, 0)], {})
    page = tmp_path / "page.html"
    text = page_or_one_line(report(stats, page, "-q", "--logs", str(EVERY)), page)
    assert text is not None
    listed = json.loads(re.search(r'id="drawlog-violations">(.*?)</script>', text, re.DOTALL).group(1))  # type: ignore[union-attr]
    assert len(listed["rows"]) == 37
    if column == "file":
        assert listed["files"] == [None]
        assert {row[8] for row in listed["rows"]} <= {"no board: the violation names no file", None}
        assert "Results to correct" in text and "None: every winner and score the logs claim" in text
    if column == "code":
        assert listed["codes"] == [None]
        assert "<option value=''>every code</option></select>" in text


def test_a_match_whose_names_and_scores_differ_in_length_is_left_out_of_the_ratings(
        written: Path, tmp_path: Path) -> None:
    """Its Plackett-Luce update raised ValueError (openskill: one score to each team)."""
    from drawlog.tables.reports import ratings

    stats = _copy(written, tmp_path)
    before = ratings(stats)
    part = min((stats / "matches").rglob("*.parquet"))
    frame = pl.read_parquet(part)
    counted = frame.filter(pl.col("valid") & pl.col("complete") & pl.col("scores").is_not_null())
    assert counted.height > 0
    damage(stats, [("matches", "player_names", "text", "extra", 0)], {})
    after = ratings(stats)
    assert after.height == 0 and before.height > 0
    page = tmp_path / "page.html"
    assert page_or_one_line(report(stats, page, "-q"), page) is not None


@pytest.mark.parametrize("column", ["line", "error", "swing", "file", "match"])
def test_a_decision_with_a_null_is_counted_but_never_a_critical_moment(
        written: Path, tmp_path: Path, column: str) -> None:
    """A null ``decisions.swing`` raised TypeError (analysis/moments.py compares it with 0)."""
    stats = _copy(written, tmp_path)
    damage(stats, [("decisions", column, "null", None, 0)], {})
    page = tmp_path / "page.html"
    text = page_or_one_line(report(stats, page, "-q", "--logs", str(EVERY)), page)
    assert text is not None
    assert '<section id="analysis"><h2>Analysis</h2>' in text
    if column in ("file", "match"):  # no match to list moments of
        assert "<table class=moments>" not in text
    else:  # every match listed, none with a moment
        assert text.count("<table class=moments>") == text.count("no decision with an error or a swing") > 0
