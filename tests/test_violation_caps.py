"""Violations bounded per line and per match, and reports written as found (issue 14, item 4b).

One line could hold 170,000 violations, and ``--format json`` held them all: a
10 MB log took 883 MB. Past ``--max-per-line`` / ``--max-per-match`` they are
counted in the summary, not held, and every writer streams.
"""

from __future__ import annotations

import json
import tracemalloc
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.check.validator import Validator
from drawlog.check.violations import MAX_PER_LINE, MAX_PER_MATCH, Summary, Violation
from drawlog.cli import app
from drawlog.views.writers import FORMATS, make_writer

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
runner = CliRunner()


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def crowded_line(fields: int, match: str = "m1") -> str:
    """A match_start with ``fields`` unknown fields: one W401 each."""
    extra = ",".join(f'"x{index}":0' for index in range(fields))
    return f'{{"type":"match_start","players":["p1","p2"],"match":"{match}",{extra}}}\n'


def json_report(*args: object) -> dict:
    return json.loads(cli("validate", *args, "--format", "json").stdout)


def stats_rows(path: Path, out: Path) -> list[tuple[int | None, str, str]]:
    result = cli("stats", path, "--out", out, "-q")
    assert result.exit_code == 0, result.output
    table = pl.read_parquet(out / "violations" / "part-00000.parquet")
    return list(zip(table["line"].to_list(), table["code"].to_list(), table["message"].to_list()))


def test_a_line_of_many_violations_reports_the_cap_and_counts_the_rest(tmp_path: Path) -> None:
    log = tmp_path / "crowded.jsonl"
    log.write_text(crowded_line(MAX_PER_LINE + 150) + crowded_line(3, "m2"))
    document = json_report(log)
    on_line = [(v["line"], v["code"]) for v in document["violations"]]
    assert on_line[:MAX_PER_LINE] == [(1, "W401")] * MAX_PER_LINE
    assert on_line[MAX_PER_LINE:] == [(2, "W401")] * 3 + [(1, "F006"), (2, "F006")]
    summary = document["summary"]
    assert summary["suppressed_per_line"] == 150 and summary["suppressed"] == 0
    assert summary["violations"] == len(document["violations"]) == MAX_PER_LINE + 5
    assert "150 more not shown (--max-per-line)" in cli("validate", log).stdout
    rows = [(v["line"], v["code"], v["message"]) for v in document["violations"]]
    assert stats_rows(log, tmp_path / "stats") == rows  # stats reports the same violations


def test_max_per_line_is_an_option_and_a_configuration_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "crowded.jsonl"
    log.write_text(crowded_line(40))
    summary = json_report(log, "--max-per-line", "10")["summary"]
    assert (summary["violations"], summary["suppressed_per_line"]) == (11, 30)  # 10 W401 and the F006
    monkeypatch.chdir(tmp_path)
    (tmp_path / "drawlog.toml").write_text("max-per-line = 5\n")
    summary = json_report(log)["summary"]
    assert (summary["violations"], summary["suppressed_per_line"]) == (6, 35)
    assert json_report(log, "--max-per-line", "7")["summary"]["suppressed_per_line"] == 33  # the option wins
    (tmp_path / "drawlog.toml").write_text("max-per-line = 0\n")
    result = cli("validate", log)
    assert result.exit_code == 2 and "max-per-line: must be a whole number of 1 or more" in result.output


@pytest.mark.parametrize("where", ["options", "config"])
def test_stats_and_audit_take_validates_caps_and_report_the_same(tmp_path: Path, where: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "crowded.jsonl"
    log.write_text(crowded_line(40) + '{"type":"pass","player":"p1","match":"m1"}\n' * 20)
    monkeypatch.chdir(tmp_path)
    caps = ["--max-per-line", "10", "--max-per-match", "15"]
    if where == "config":
        (tmp_path / "drawlog.toml").write_text("max-per-line = 10\nmax-per-match = 15\n")
        caps = []
    document = json_report(log, *caps)
    assert len(document["violations"]) == 10 + 15  # the line's W401 are not the replay's: F004 fill the match's 15
    assert (document["summary"]["suppressed_per_line"], document["summary"]["suppressed"]) == (30, 6)
    rows = [(v["line"], v["code"], v["message"]) for v in document["violations"]]
    result = cli("audit", log, "--out", tmp_path / "audited", "-q", "--exit-zero", *caps)
    assert result.exit_code == 0, result.output
    table = pl.read_parquet(tmp_path / "audited" / "violations" / "part-00000.parquet")
    assert list(zip(table["line"].to_list(), table["code"].to_list(), table["message"].to_list())) == rows
    if where == "options":
        result = cli("stats", log, "--out", tmp_path / "stats", "-q", *caps)
        assert result.exit_code == 0, result.output
        assert pl.read_parquet(tmp_path / "stats" / "violations" / "part-00000.parquet").height == 25


def test_the_count_per_line_starts_again_in_each_input(tmp_path: Path) -> None:
    validator = Validator(max_per_line=3)
    first = list(validator.validate_lines([crowded_line(5)], "same.jsonl"))
    second = list(validator.validate_lines([crowded_line(5, "m2")], "same.jsonl"))
    assert [v.code for v in first] == [v.code for v in second] == ["W401"] * 3 + ["F006"]
    assert validator.summary.suppressed_per_line == 4


def test_a_match_is_bounded_by_default_and_validate_and_stats_agree(tmp_path: Path) -> None:
    """Every pass of a match with no round in play is F004: one a line, past the per-match default."""
    log = tmp_path / "long.jsonl"
    passes = MAX_PER_MATCH + 20
    log.write_text('{"type":"match_start","players":["p1","p2"],"match":"m1"}\n'
                   + '{"type":"pass","player":"p1","match":"m1"}\n' * passes)
    document = json_report(log)
    assert [v["code"] for v in document["violations"]] == ["F004"] * MAX_PER_MATCH
    assert document["summary"]["suppressed"] == 21  # the rest of the F004 and the F006
    assert document["summary"]["violations"] == MAX_PER_MATCH
    rows = [(v["line"], v["code"], v["message"]) for v in document["violations"]]
    assert stats_rows(log, tmp_path / "stats") == rows
    assert json_report(log, "--max-per-match", "5")["summary"]["suppressed"] == passes + 1 - 5


def test_a_tile_dealt_many_times_and_hands_of_strangers_are_one_s102_each() -> None:
    deal = {"type": "round_start", "round": 1, "opener": "p1", "match": "m1", "stock": [],
            "hands": {"p1": [[0, 0]] * 50_000, "p2": [[1, 1], [1, 1], [1, 1]],
                      **{f"z{index}": [] for index in range(3_000)}}}
    lines = ['{"type":"match_start","players":["p1","p2"],"match":"m1"}', json.dumps(deal)]
    s102 = [v.message for v in Validator().validate_lines(lines) if v.code == "S102"]
    assert s102 == [
        "p1 is dealt 50000 tiles; each player gets 7 with 2 players",
        "[0|0] is dealt 50,000 times (in p1's hand)",
        "p2 is dealt 3 tiles; each player gets 7 with 2 players",
        "[1|1] is dealt 3 times (in p2's hand)",
        "hands are dealt to z0, z1, z2 and 2,997 more, who are not players of this match",
    ]
    deal["hands"] = {"p1": [[0, 1]] * 7, "p2": [[0, 1]] * 7, "zed": []}
    s102 = [v.message for v in Validator().validate_lines([lines[0], json.dumps(deal)]) if v.code == "S102"]
    assert s102 == ["[0|1] is dealt 14 times (to p1 and p2)",
                    "a hand is dealt to zed, who is not a player of this match"]


def test_json_of_many_violations_parses_and_its_counts_match(tmp_path: Path) -> None:
    log = tmp_path / "many.jsonl"
    log.write_text("".join(crowded_line(30, f"m{index}") for index in range(200)) + "not json\n")
    document = json_report(log)
    summary, violations = document["summary"], document["violations"]
    assert len(violations) == summary["violations"] == 200 * 31 + 1
    assert summary["errors"] == sum(v["severity"] == "error" for v in violations) == 201
    assert summary["warnings"] == 200 * 30
    assert json_report(tmp_path / "missing.jsonl")["violations"][0]["code"] == "F007"
    empty = tmp_path / "clean.jsonl"
    empty.write_text("")
    assert json_report(empty)["summary"]["files"] == 1


def violations(count: int) -> Iterator[Violation]:
    for index in range(count):
        yield Violation(file=f"f{index % 3}.jsonl", line=index + 1, match=f"m{index}", round=1, player="p1",
                        code="W401" if index % 2 else "M205", severity="warning" if index % 2 else "error",
                        message=f"violation number {index} " + "x" * 200)


class Recorder:
    """A stream that keeps only how much was written."""

    def __init__(self) -> None:
        self.written = 0

    def write(self, text: str) -> int:
        self.written += len(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_the_json_writer_writes_each_violation_as_it_comes() -> None:
    stream = Recorder()
    writer = make_writer("json", stream)  # type: ignore[arg-type]
    before = 0
    for violation in violations(50):
        writer.add(violation)
        assert stream.written > before  # written now, not at the end
        before = stream.written
    assert not any(isinstance(value, list) for value in vars(writer).values())


@pytest.mark.parametrize("fmt", [fmt for fmt in FORMATS if fmt not in ("text", "concise", "github")])
def test_every_report_format_holds_no_violations(tmp_path: Path, fmt: str) -> None:
    """40,000 violations of ~300 bytes: 12 MB if held; the writers keep well under 4 MB."""
    path = tmp_path / f"report.{fmt}"
    with open(path, "w", encoding="utf-8") as stream:
        writer = make_writer(fmt, stream)
        tracemalloc.start()
        for file in ("f0.jsonl", "f1.jsonl", "f2.jsonl"):
            writer.start_file(file)
            for violation in violations(40_000 // 3):
                writer.add(Violation(**{**{name: getattr(violation, name) for name in violation.__struct_fields__},
                                        "file": file}))
            writer.end_file()
        summary = Summary(files=3, violations=39_999)
        writer.finish(summary)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 4_000_000, peak
    text = path.read_text(encoding="utf-8")
    if fmt == "junit":
        root = ET.fromstring(text)
        cases = list(root.iter("testcase"))  # one per violation
        assert len(cases) == 3 * 13_333 and [case.get("file") for case in cases[::13_333]] == ["f0.jsonl", "f1.jsonl",
                                                                                              "f2.jsonl"]
        assert len(list(root.iter("failure"))) == 3 * (13_333 // 2 + 1)
    elif fmt == "jsonl":
        assert len(text.splitlines()) == 39_999 + 1
    else:
        document = json.loads(text)
        found = {"json": lambda: document["violations"], "gitlab": lambda: document,
                 "sarif": lambda: document["runs"][0]["results"]}[fmt]()
        assert len(found) == 39_999


def test_validating_a_log_of_many_violations_into_json_holds_none(tmp_path: Path) -> None:
    log = tmp_path / "many.jsonl"
    log.write_text("".join(crowded_line(40, f"m{index}") for index in range(1_500)))
    validator = Validator()
    with open(tmp_path / "report.json", "w", encoding="utf-8") as stream:
        writer = make_writer("json", stream)
        tracemalloc.start()
        for violation in validator.validate_paths(log):
            writer.add(violation)
        writer.finish(validator.summary)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    document = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert len(document["violations"]) == document["summary"]["violations"] == 1_500 * 41
    assert peak < 8_000_000, peak  # 61,500 violations held would be over 25 MB


def test_warnings_filling_a_line_never_crowd_out_its_error(tmp_path: Path) -> None:
    """An error past --max-per-line takes the place of one of its line's warnings: the run still fails."""
    log = tmp_path / "hidden.jsonl"
    extra = ",".join(f'"x{index}":0' for index in range(MAX_PER_LINE + 20))
    log.write_text(f'{{"type":"match_start","players":["p1","p1"],"match":"m1",{extra}}}\n')
    result = cli("validate", log, "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    codes = [(v["line"], v["code"]) for v in document["violations"]]
    assert codes[:MAX_PER_LINE] == [(1, "W401")] * (MAX_PER_LINE - 1) + [(1, "S101")]
    summary = document["summary"]
    assert (summary["errors"], summary["warnings"], summary["suppressed_per_line"]) == (2, MAX_PER_LINE - 1, 21)
    assert summary["suppressed_errors"] == 0


def test_an_error_held_back_by_a_cap_still_fails_the_run(tmp_path: Path) -> None:
    """Past --max-per-match the error is not shown, but the exit status and the verdict count it."""
    log = tmp_path / "capped.jsonl"
    log.write_text('{"type":"match_start","players":["p1","p2"],"target":50,"match":"m1"}\n'
                   '{"type":"round_end","round":1,"reason":"domino","winner":"p1","points":{"p1":1},"match":"m1"}\n'
                   '{"type":"match_end","scores":{"p1":0,"p2":0},"winner":null,"match":"m1"}\n')
    result = cli("validate", log, "--format", "json", "--max-per-match", "1")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(v["line"], v["code"]) for v in document["violations"]] == [(1, "W402")]
    summary = document["summary"]
    assert (summary["errors"], summary["suppressed"], summary["suppressed_errors"]) == (0, 2, 2)  # F004, R305
    text = cli("validate", log, "--max-per-match", "1")
    assert text.exit_code == 1
    assert text.stdout.strip().splitlines()[-1].startswith("errors found:")
    assert "2 errors among those not shown" in text.stdout
    assert cli("validate", log, "--max-per-match", "1", "--exit-zero").exit_code == 0
