"""Plain text written without rich is exactly what rich prints, only faster.

The text output's tables (``views/plain_table``), the concise format's lines
and ``query``'s tables, when nothing is coloured.
"""

from __future__ import annotations

import io
from unittest import mock

import msgspec
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn

from drawlog.check.rules import SEVERITY
from drawlog.check.violations import Violation
from drawlog.views import ci_formats, writers
from drawlog.views.ci_formats import ConciseWriter
from drawlog.views.frames import frame_tables, plain_tables, plain_text
from drawlog.views.plain_table import plain_table
from drawlog.views.terminal import PLAIN, RICH, STYLED, Drawn, make_console, writing_mode
from drawlog.views.writers import VIOLATION_COLUMNS, TextWriter, _cells, violations_table

CODES = sorted(SEVERITY)


def rich_drawn(violations: list[Violation], width: int) -> str:
    stream = io.StringIO()
    console = make_console(stream, "never")
    console.width = width
    console.print(violations_table(violations))
    return stream.getvalue()


def plain_drawn(violations: list[Violation], width: int) -> str | None:
    return plain_table(VIOLATION_COLUMNS, [_cells(v) for v in violations], width)


def violation(line: int | None = 7, match: str | None = "m1", round_number: int | None = 1,
              player: str | None = "ann", code: str = "M207", message: str = "passes holding a tile that fits",
              file: str = "a.jsonl") -> Violation:
    return Violation(file=file, line=line, match=match, round=round_number, player=player, code=code,
                     severity=SEVERITY[code], message=message)


texts = st.text(max_size=30)
violations = st.builds(violation, line=st.none() | st.integers(1, 10**12), match=st.none() | texts,
                       round_number=st.none() | st.integers(1, 10**6), player=st.none() | texts,
                       code=st.sampled_from(CODES), message=texts, file=texts)


@settings(max_examples=400, deadline=None)
@given(st.lists(violations, min_size=1, max_size=6), st.sampled_from([30, 60, 100, 1000]))
def test_a_plain_table_is_the_table_rich_draws(rows: list[Violation], width: int) -> None:
    plain = plain_drawn(rows, width)
    if plain is not None:
        assert plain == rich_drawn(rows, width)


@pytest.mark.parametrize("rows", [
    [violation()],
    [violation(line=None, match=None, round_number=None, player=None, code="W404", message="empty: no lines")],
    [violation(line=123456, player="Łukasz", match="turniej-ąę"), violation(player="José Núñez", round_number=12)],
    [violation(player="Şükrü Çağlar", match="maç-1"), violation(player="日本語", message="全角 text")],
    [violation(player="esc\x1b]0;clean\x07", match="tab\there")],  # escaped before it is measured
], ids=["ascii", "no-line", "polish-spanish", "turkish-wide", "controls"])
def test_common_rows_are_drawn_plain_and_the_same(rows: list[Violation]) -> None:
    plain = plain_drawn(rows, 1000)
    assert plain is not None
    assert plain == rich_drawn(rows, 1000)


@pytest.mark.parametrize(("rows", "width"), [
    ([violation(player="ann ")], 1000),  # rich drops a cell's trailing space
    ([violation(match=" m1")], 1000),
    ([violation(player="e\u0301")], 1000),  # a combining mark: no width of its own
    ([violation(message="x" * 200)], 120),  # too wide: rich folds the message
], ids=["trailing-space", "leading-space", "combining", "too-wide"])
def test_rows_rich_would_draw_otherwise_are_left_to_rich(rows: list[Violation], width: int) -> None:
    assert plain_drawn(rows, width) is None


def written(violations_by_file: dict[str, list[Violation]], color: str = "never") -> str:
    stream = io.StringIO()
    writer = TextWriter(stream, console=make_console(stream, color), rows_per_table=2)
    for file, rows in violations_by_file.items():
        writer.start_file(file)
        for row in rows:
            writer.add(row)
        writer.end_file()
    return stream.getvalue()


FILES = {"a.jsonl": [violation(line=n) for n in (3, 9, 27)],
         "b\x1b[2J.jsonl": [violation(file="b\x1b[2J.jsonl", player="ann ")],  # rich draws this one
         "c.jsonl": [violation(file="c.jsonl", line=None, match=None, code="W404", message="empty")]}


def test_the_text_output_is_the_same_drawn_plain_or_by_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = written(FILES)
    monkeypatch.setattr(writers, "plain_table", lambda *args, **options: None)
    assert plain == written(FILES)
    assert plain.count("┏") == 4 and "b\\x1b[2J.jsonl\n" in plain and "\x1b" not in plain


def test_a_coloured_output_is_drawn_by_rich() -> None:
    coloured = written({"a.jsonl": [violation()]}, color="always")
    assert "\x1b[" in coloured and "M207" in coloured


def terminal(stream: io.StringIO, colors: str, width: int = 1000) -> Console:
    """A console as a terminal with ``colors`` (``standard``, ``256``, ``truecolor``) gets it."""
    return Console(file=stream, force_terminal=True, color_system=colors, width=width, highlight=False, emoji=False)


def concise(rows: list[Violation], mode: str, colors: str | None = None) -> str:
    stream = io.StringIO()
    console = make_console(stream, "never") if colors is None else terminal(stream, colors)
    with mock.patch.object(ci_formats, "writing_mode", lambda console: mode):
        writer = ConciseWriter(stream, console=console, quiet=True)
    for row in rows:
        writer.add(row)
    writer.end_file()  # (concise writes an input's violations, in line order, when it ends)
    return stream.getvalue()


@settings(max_examples=200, deadline=None)
@given(st.lists(violations, min_size=1, max_size=5), st.sampled_from(["standard", "256", "truecolor"]))
def test_concise_lines_are_the_same_written_without_rich_or_by_it(rows: list[Violation], colors: str) -> None:
    assert concise(rows, PLAIN) == concise(rows, RICH)
    styled_lines = concise(rows, STYLED, colors)
    assert styled_lines == concise(rows, RICH, colors)
    assert "\x1b[1;3" in styled_lines  # the code, bold red or yellow


def styled_output(violations_by_file: dict[str, list[Violation]], colors: str, width: int, mode: str) -> str:
    stream = io.StringIO()
    with mock.patch.object(writers, "writing_mode", lambda console: mode):
        writer = TextWriter(stream, console=terminal(stream, colors, width), rows_per_table=3, quiet=True)
    for file, rows in violations_by_file.items():
        writer.start_file(file)
        for row in rows:
            writer.add(msgspec.structs.replace(row, file=file))
        writer.end_file()
    return stream.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(texts, st.lists(violations, min_size=1, max_size=5), min_size=1, max_size=3),
       st.sampled_from(["standard", "256", "truecolor"]), st.sampled_from([60, 120, 1000]))
def test_styled_tables_are_the_ones_rich_writes_to_a_terminal(violations_by_file: dict[str, list[Violation]],
                                                              colors: str, width: int) -> None:
    assert styled_output(violations_by_file, colors, width, STYLED) == \
        styled_output(violations_by_file, colors, width, RICH)


def test_a_colour_terminal_gets_styled_text_without_rich() -> None:
    stream = io.StringIO()
    console = terminal(stream, "truecolor")
    assert writing_mode(console) == STYLED
    writer = TextWriter(stream, console=console, quiet=True)
    printed = []
    with mock.patch.object(console, "print", lambda renderable, **options: printed.append(renderable)):
        writer.add(violation(line=12345))
        writer.add(violation(line=None, match=None, code="W404", message="empty"))
        writer.end_file()
    assert len(printed) == 2 and all(isinstance(drawn, Drawn) for drawn in printed)  # title, table: rich only
    for drawn in printed:  # writes them out (a progress bar may be on)
        console.print(drawn, crop=False, end="")
    out = stream.getvalue()
    assert out.startswith("\x1b[1;4ma.jsonl\x1b[0m\n┏")
    assert "│\x1b[36m \x1b[0m\x1b[36m12345\x1b[0m\x1b[36m \x1b[0m│\x1b[1m \x1b[0m\x1b[1;31mM207\x1b[0m" in out
    assert "\x1b[1;33mW404\x1b[0m" in out and "\x1b[2mdrawlog replay a.jsonl:12345\x1b[0m" in out


@pytest.mark.parametrize(("environment", "colors", "mode"), [
    ({}, "truecolor", STYLED), ({"NO_COLOR": "1"}, "truecolor", RICH), ({}, "windows", RICH), ({}, None, PLAIN)])
def test_writing_mode_leaves_to_rich_what_it_cannot_write_the_same(monkeypatch: pytest.MonkeyPatch,
                                                                   environment: dict[str, str], colors: str | None,
                                                                   mode: str) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=colors is not None, color_system=colors, legacy_windows=False)
    assert writing_mode(console) == mode


def test_concise_lines_are_written_plain_without_colour() -> None:
    stream = io.StringIO()
    writer = ConciseWriter(stream, console=make_console(stream, "never"))
    with mock.patch.object(writer.console, "print", side_effect=AssertionError("rich was asked to print")):
        writer.add(violation(line=None, match=None, code="W404", message="empty"))
        writer.add(violation(match="m1\x1b[2J"))
        writer.end_file()
    assert stream.getvalue() == "a.jsonl: W404 empty\na.jsonl:7: M207 match m1\\x1b[2J: passes holding a tile that fits\n"


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    names = draw(st.lists(texts, min_size=1, max_size=6, unique=True))
    kinds = [draw(st.sampled_from(["int", "float", "text"])) for _ in names]
    height = draw(st.integers(0, 5))
    columns = {}
    for name, kind in zip(names, kinds):
        values = {"int": st.none() | st.integers(-10**6, 10**6), "float": st.none() | st.floats(allow_nan=False),
                  "text": st.none() | texts}[kind]
        dtype = {"int": pl.Int64, "float": pl.Float64, "text": pl.String}[kind]
        columns[name] = pl.Series(name, draw(st.lists(values, min_size=height, max_size=height)), dtype=dtype)
    return pl.DataFrame(columns)


@settings(max_examples=300, deadline=None)
@given(frames(), st.sampled_from([40, 80, 200]), st.none() | texts)
def test_a_query_table_drawn_plain_is_the_one_rich_draws(frame: pl.DataFrame, width: int, title: str | None) -> None:
    plain = plain_tables(frame, width, title)
    if plain is not None:
        assert plain == plain_text(frame_tables(frame, width, title), width)


def test_a_wide_query_result_is_drawn_plain_in_several_tables() -> None:
    frame = pl.DataFrame({"player": ["ann", "bob"], **{f"column_{n}": [n, n * 1000] for n in range(12)}})
    plain = plain_tables(frame, 80, "players")
    assert plain is not None and plain.count("┏") > 1 and plain.startswith("players ")
    assert plain == plain_text(frame_tables(frame, 80, "players"), 80)


def test_query_columns_named_like_patterns_are_cut_by_place_and_named_literally() -> None:
    frame = pl.DataFrame({"player": ["ann"], "*": [1], "^a.*$": [2], "a\\": [3], **{f"m_{n}": [n] for n in range(9)}})
    tables = frame_tables(frame, 50)  # before: polars read "*" as every column, and rich showed "a\\" doubled
    assert len(tables) > 1
    assert [str(column.header) for column in tables[0].columns][:4] == ["player", "*", "^a.*$", "a\\"]
    text = plain_text(tables, 50)
    assert "┃ a\\ ┃" in text and plain_tables(frame, 50) == text


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_rows_go_above_a_progress_bar_on_the_same_terminal_as_rich_puts_them(fmt: str) -> None:
    def shown_with_a_bar(mode: str) -> str:
        stream = io.StringIO()
        console = terminal(stream, "truecolor", 120)
        module, kind = (writers, TextWriter) if fmt == "text" else (ci_formats, ConciseWriter)
        with mock.patch.object(module, "writing_mode", lambda console: mode):
            writer = kind(stream, console=console, quiet=True)
        with Progress(TextColumn("validating"), BarColumn(), console=console, auto_refresh=False) as bar:
            task = bar.add_task("validating", total=3)
            for line in (3, 9, 27):
                writer.add(violation(line=line))
                writer.end_file()
                bar.advance(task)
        return stream.getvalue()

    drawn = shown_with_a_bar(STYLED)
    assert drawn == shown_with_a_bar(RICH)
    assert drawn.count("validating") >= 3 and drawn.count("M207") == 3
