"""``validate --show-source``: the log line under each violation, the field at fault marked (ruff's full output)."""

from __future__ import annotations

import gzip
from pathlib import Path

from typer.testing import CliRunner

from drawlog.check.violations import Violation
from drawlog.cli import app
from drawlog.log.reader import LongLine
from drawlog.views.source_view import source_lines

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
LOG = SAMPLES / "every-violation.jsonl"
runner = CliRunner()


def validate(*args: str, stdin: str | None = None) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["validate", *args], input=stdin)
    return result.exit_code, result.stdout.splitlines()


def source_line(number: int) -> str:
    return LOG.read_text(encoding="utf-8").split("\n")[number - 1]


def test_each_violation_has_its_line_and_the_field_marked() -> None:
    status, lines = validate(str(LOG), "--show-source", "--select", "M206,R303", "-q")
    assert status == 1
    assert lines[0].startswith(f"{LOG}:366: M206 ")
    assert lines[1:4] == ["    |", f"366 | {source_line(366)}",
                          "    | " + " " * source_line(366).index('"tile":') + "^" * len('"tile"')]
    assert lines[4].startswith(f"{LOG}:923: R303 ")
    assert lines[6] == f"923 | {source_line(923)}"
    assert lines[7] == "    | " + " " * source_line(923).index('"points":') + "^" * len('"points"')
    assert len(lines) == 8


def test_schema_mismatch_marks_the_field_msgspec_names_and_a_broken_line_is_shown_unmarked() -> None:
    status, lines = validate(str(LOG), "--show-source", "--select", "F001,F002", "-q")
    assert status == 1
    f001, f002 = lines.index(next(x for x in lines if ": F001 " in x)), lines.index(
        next(x for x in lines if ": F002 " in x))
    assert lines[f001 + 2] == f"19 | {source_line(19)}" and lines[f001 + 3].startswith(f"{LOG}:")
    assert lines[f002 + 3] == "   | " + " " * source_line(49).index('"tile":') + "^^^^^^"


def test_compressed_logs_are_read_again_and_standard_input_is_not(tmp_path: Path) -> None:
    packed = tmp_path / "faulty.jsonl.gz"
    packed.write_bytes(gzip.compress(LOG.read_bytes()))
    status, lines = validate(str(packed), "--show-source", "--select", "M206", "-q")
    assert status == 1 and lines[2] == f"366 | {source_line(366)}"
    status, lines = validate("-", "--show-source", "--select", "M206", "-q", stdin=LOG.read_text(encoding="utf-8"))
    assert status == 1 and len(lines) == 1 and lines[0].startswith("-:366: M206 ")  # read once: nothing to show


def test_the_same_with_two_processes() -> None:
    one = validate(str(SAMPLES), "--show-source", "-q")
    assert one[0] == 1 and len(one[1]) > 100
    assert validate(str(SAMPLES), "--show-source", "-q", "--jobs", "2") == one


def test_other_formats_are_refused() -> None:
    result = runner.invoke(app, ["validate", str(LOG), "--show-source", "--format", "json"])
    assert result.exit_code == 2 and "--show-source" in result.output
    assert validate(str(LOG), "--show-source", "--format", "concise", "--select", "M206", "-q")[1][2] == \
        f"366 | {source_line(366)}"


def violation(code: str, message: str = "", line: int | None = 7) -> Violation:
    return Violation(file="x.jsonl", line=line, match="m1", round=1, player="ann", code=code, severity="error",
                     message=message)


def test_a_line_is_cut_to_the_width_around_the_mark() -> None:
    text = '{"type":"round_start","match":"m1",' + '"pad":"' + "x" * 200 + '","stock":[[1,2]],"opener":"ann"}'
    gutter, shown, mark = source_lines(violation("S103"), text.encode(), width=60)
    assert gutter == "  |" and len(shown) == 60  # the width, gutter included
    assert shown.startswith("7 | …") and shown.endswith('"opener":"ann"}')  # cut where it had to be only
    column = mark.index("^")
    assert shown[column:column + len('"stock"')] == '"stock"' and mark.count("^") == len('"stock"')
    middle = text.replace('"stock":[[1,2]],', "") + "y" * 200 + ',"stock":[]' + "z" * 200
    _, shown, mark = source_lines(violation("S103"), middle.encode(), width=60)
    assert len(shown) == 60 and shown.startswith("7 | …") and shown.endswith("…")
    assert shown[mark.index("^"):mark.index("^") + 7] == '"stock"'
    assert source_lines(violation("S103"), text.encode(), width=None)[1] == f"7 | {text}"  # a file: whole


def test_long_lines_and_lines_not_read_again() -> None:
    assert source_lines(violation("F001"), LongLine(2_000_000), 80) == \
        ["  |", "7 | (a line of 2,000,000 bytes, not shown)"]
    assert source_lines(violation("F001"), None, 80) == []
    assert source_lines(violation("F007", line=None), b"{}", 80) == []
    # a field the line does not hold: the line, unmarked
    assert source_lines(violation("R302"), b'{"type":"round_end"}', None) == ["  |", '7 | {"type":"round_end"}']
