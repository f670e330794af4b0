"""Bad and unusual inputs to ``drawlog validate``.

Every bad input must give a one-line error (a violation naming the file and,
where one applies, the line), never a traceback; the run goes on with the other
inputs; exit status 2 means that nothing at all could be read. Every run keeps
the accounting invariant ``lines == events + blank_lines + invalid_lines``.

All logs are generated here from the simulator (clean) and then damaged.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

VIOLATION_KEYS = {"file", "line", "match", "round", "player", "code", "severity", "message", "follows"}  # the contract's, and follows (an addition)
# Wide, colourless output so that rich never wraps or styles what the tests read.
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}

runner = CliRunner()


# -- helpers -------------------------------------------------------------------


def match_lines(match_id: str = "m1", seed: int = 1, **options: object) -> list[bytes]:
    """A clean simulated match as JSON lines (bytes, newline included)."""
    return encode_events(Simulator(seed, SimulationOptions(**options)).match(match_id))  # type: ignore[arg-type]


def edit(line: bytes, **changes: object) -> bytes:
    """The event of ``line`` with fields set (``**changes``), re-encoded as one line."""
    event = json.loads(line)
    event.update(changes)
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"


def write(path: Path, lines: list[bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(lines)
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    elif path.name.endswith(".zst"):
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    return path


def assert_no_traceback(result) -> None:  # noqa: ANN001 - click/typer Result
    exc = result.exception
    detail = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    assert exc is None or isinstance(exc, SystemExit), f"uncaught exception:\n{detail}"
    assert "Traceback" not in result.output


def cli(*args: object, input: bytes | None = None):  # noqa: A002, ANN201
    result = runner.invoke(app, [str(arg) for arg in args], input=input, env=ENV)
    assert_no_traceback(result)
    return result


def check_summary(summary: dict) -> None:
    """The accounting invariant, asserted on every run."""
    assert summary["lines"] == summary["events"] + summary["blank_lines"] + summary["invalid_lines"], summary


def validate(*args: object) -> tuple[int, dict]:
    """``drawlog validate ARGS --format json``: exit status and the parsed document."""
    result = cli("validate", *args, "--format", "json")
    document = json.loads(result.stdout)
    check_summary(document["summary"])
    for violation in document["violations"]:
        assert set(violation) == VIOLATION_KEYS
        assert "\n" not in violation["message"]
    return result.exit_code, document


def codes(document: dict) -> list[tuple[int | None, str]]:
    return [(v["line"], v["code"]) for v in document["violations"]]


def run_subprocess(args: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    """The real ``drawlog`` command in a child process (for standard input)."""
    command = [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()"]
    return subprocess.run(command + args, input=stdin, capture_output=True, timeout=60, check=False)


# -- the bad inputs --------------------------------------------------------------


@dataclass
class Bad:
    """A damaged input and what its error must say."""

    path: Path
    code: str  # the code of its error
    line: int | None  # the line named in the error (None: no line applies, or checked elsewhere)
    readable: bool  # whether any of its lines could be read


def _empty(tmp: Path) -> Bad:
    path = tmp / "empty.jsonl"
    path.write_bytes(b"")
    return Bad(path, "W404", None, False)


def _binary(tmp: Path) -> Bad:
    path = tmp / "binary.jsonl"
    path.write_bytes(bytes(range(256)) * 64)
    return Bad(path, "F007", None, False)


def _bad_utf8(tmp: Path) -> Bad:
    lines = match_lines("bad")
    lines.insert(1, b'{"type":"pass","match":"bad","player":"p\xff\xfe1"}\n')
    return Bad(write(tmp / "utf8.jsonl", lines), "F001", 2, True)


def _truncated_gz(tmp: Path) -> Bad:
    data = gzip.compress(b"".join(match_lines("bad")))
    path = tmp / "truncated.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    return Bad(path, "F007", None, True)


def _corrupt_zst(tmp: Path) -> Bad:
    path = tmp / "corrupt.jsonl.zst"
    path.write_bytes(b"this was never zstd data\n" * 50)
    return Bad(path, "F007", 1, False)


def _huge_line(tmp: Path) -> Bad:
    lines = match_lines("bad")
    lines.insert(1, b'{"type":"pass","match":"bad","player":"' + b"x" * (10 * 1024 * 1024) + b'"}\n')
    return Bad(write(tmp / "huge.jsonl", lines), "F001", 2, True)


def _array(tmp: Path) -> Bad:
    lines = match_lines("bad")
    lines.insert(1, b'[{"type":"pass","match":"bad","player":"p1"}]\n')
    return Bad(write(tmp / "array.jsonl", lines), "F002", 2, True)


def _missing(tmp: Path) -> Bad:
    return Bad(tmp / "no-such-log.jsonl", "F007", None, False)


def _folder_without_logs(tmp: Path) -> Bad:
    folder = tmp / "nologs"
    (folder / "sub").mkdir(parents=True)
    (folder / "notes.txt").write_text("not a log\n")
    (folder / "sub" / "events.json").write_text("{}\n")
    return Bad(folder, "F007", None, False)


BAD_INPUTS: dict[str, Callable[[Path], Bad]] = {
    "binary": _binary,
    "invalid-utf8": _bad_utf8,
    "truncated-gz": _truncated_gz,
    "corrupt-zst": _corrupt_zst,
    "huge-line": _huge_line,
    "json-array": _array,
    "missing-path": _missing,
    "folder-without-logs": _folder_without_logs,
}


@pytest.fixture(params=list(BAD_INPUTS))
def bad(request: pytest.FixtureRequest, tmp_path: Path) -> Bad:
    return BAD_INPUTS[request.param](tmp_path)


@pytest.fixture
def good(tmp_path: Path) -> tuple[Path, int]:
    lines = match_lines("good", seed=7)
    return write(tmp_path / "good.jsonl", lines), len(lines)


# -- every bad input -------------------------------------------------------------


def test_bad_input_alone(bad: Bad) -> None:
    status, document = validate(bad.path)
    assert status == (1 if bad.readable else 2)
    assert document["violations"], "a bad input must be reported"
    assert {v["file"] for v in document["violations"]} == {str(bad.path)}
    mine = [v for v in document["violations"] if v["code"] == bad.code]
    assert mine, codes(document)
    assert all(v["severity"] == "error" and v["message"].strip() for v in mine)
    if bad.line is not None:
        assert mine[0]["line"] == bad.line
    summary = document["summary"]
    assert summary["files"] == (1 if bad.readable else 0)
    assert summary["errors"] >= 1


def test_bad_input_gives_one_line_error_naming_file_and_line(
    bad: Bad, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Relative names: the text table's title wraps long paths (see test_cli.py).
    monkeypatch.chdir(tmp_path)
    bad.path = bad.path.relative_to(tmp_path)
    # jsonl: one self-contained line per violation, naming the file (and line)
    result = cli("validate", bad.path, "--format", "jsonl")
    *rows, last = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows and all(set(row) == VIOLATION_KEYS for row in rows)
    assert set(last) == {"summary"}
    row = next(row for row in rows if row["code"] == bad.code)
    assert row["file"] == str(bad.path)
    if bad.line is not None:
        assert row["line"] == bad.line
    # github: the same error as one annotation line
    result = cli("validate", bad.path, "--format", "github")
    out = result.stdout.splitlines()
    assert len(out) == len(rows)
    hits = [line for line in out if f"title={bad.code} " in line]
    assert hits and hits[0].startswith(f"::error file={bad.path}")
    if bad.line is not None:
        assert f",line={bad.line}," in hits[0]
    # text: the file name and the reason are shown too
    result = cli("validate", bad.path)
    assert str(bad.path) in result.stdout
    assert row["message"] in result.stdout
    # and the invariant holds for the same input
    validate(bad.path)


@pytest.mark.parametrize("order", ["bad-first", "good-first"])
def test_bad_input_does_not_stop_the_run(bad: Bad, good: tuple[Path, int], order: str) -> None:
    good_path, good_lines = good
    paths = [bad.path, good_path] if order == "bad-first" else [good_path, bad.path]
    status, document = validate(*paths)
    assert status == 1
    summary = document["summary"]
    assert summary["files"] == 1 + bad.readable
    assert {v["file"] for v in document["violations"]} == {str(bad.path)}, "the good log is clean"
    assert any(v["code"] == bad.code for v in document["violations"])
    if not bad.readable:
        assert summary["lines"] == summary["events"] == good_lines
        assert summary["matches"] == 1
    else:
        assert summary["lines"] > good_lines


def test_nothing_readable_exits_2_and_reports_each_input(tmp_path: Path) -> None:
    unreadable = [make(tmp_path) for name, make in BAD_INPUTS.items()
                  if name in ("binary", "corrupt-zst", "missing-path", "folder-without-logs")]
    paths = [bad.path for bad in unreadable]
    status, document = validate(*paths)
    assert status == 2
    assert [v["file"] for v in document["violations"]] == [str(p) for p in paths]
    assert all(v["code"] == "F007" for v in document["violations"])
    assert document["summary"]["files"] == 0
    assert document["summary"]["lines"] == 0
    # --exit-zero does not hide that nothing could be read
    status, _ = validate(*paths, "--exit-zero")
    assert status == 2
    # nor does --ignore of the very code that reports it
    result = cli("validate", *paths, "--ignore", "F007")
    assert result.exit_code == 2


def test_unreadable_beside_readable_exits_1_or_0_with_exit_zero(tmp_path: Path, good: tuple[Path, int]) -> None:
    missing = tmp_path / "missing.jsonl"
    status, document = validate(missing, good[0])
    assert status == 1
    assert codes(document) == [(None, "F007")]
    status, _ = validate(missing, good[0], "--exit-zero")
    assert status == 0


# -- each kind of input in detail ------------------------------------------------------


def test_empty_file_is_read_with_a_warning(tmp_path: Path) -> None:
    bad = _empty(tmp_path)
    status, document = validate(bad.path)
    assert status == 0
    assert codes(document) == [(None, "W404")]
    assert "empty" in document["violations"][0]["message"]
    assert document["summary"]["files"] == 1 and document["summary"]["lines"] == 0
    status, _ = validate(bad.path, "--strict")
    assert status == 1
    good = write(tmp_path / "good.jsonl", match_lines("good", seed=7))
    status, document = validate(bad.path, good)
    assert status == 0 and codes(document) == [(None, "W404")]
    assert document["summary"]["files"] == 2
    bom_only = tmp_path / "bom.jsonl"
    bom_only.write_bytes(b"\xef\xbb\xbf")
    assert codes(validate(bom_only)[1]) == [(None, "W404")]


def test_blank_only_file_is_read_and_clean(tmp_path: Path) -> None:
    path = tmp_path / "blanks.jsonl"
    path.write_bytes(b"\n   \n\t\n\r\n")
    status, document = validate(path)
    assert status == 0
    assert document["violations"] == []
    summary = document["summary"]
    assert (summary["files"], summary["lines"], summary["blank_lines"], summary["events"]) == (1, 4, 4, 0)


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "binary.jsonl"
    lines = match_lines("m1")
    path.write_bytes(b"\x00\x00\x00" + b"".join(lines))
    status, document = validate(path)
    assert status == 2
    [violation] = document["violations"]
    assert violation["code"] == "F007" and violation["file"] == str(path)
    assert "binary" in violation["message"] or "NUL" in violation["message"]


def test_nul_padding_after_the_first_line_is_one_bad_line(tmp_path: Path) -> None:
    lines = match_lines("m1")
    path = tmp_path / "padded.jsonl"
    path.write_bytes(b"".join(lines[:3]) + b"\x00" * 4096 + b"\n" + b"".join(lines[3:]))
    status, document = validate(path)
    assert status == 1
    assert codes(document) == [(4, "F001")]
    assert document["summary"]["events"] == len(lines)


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_compressed_data_named_jsonl_is_named_as_such(tmp_path: Path, kind: str) -> None:
    packed = write(tmp_path / f"m.jsonl.{kind}", match_lines("m1"))
    misnamed = tmp_path / "m.jsonl"
    misnamed.write_bytes(packed.read_bytes())
    status, document = validate(misnamed)
    assert status == 2
    [violation] = document["violations"]
    assert violation["code"] == "F007" and f".jsonl.{kind}" in violation["message"]


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_compressed_standard_input_is_decompressed(tmp_path: Path, kind: str) -> None:
    lines = match_lines("m1")
    proc = run_subprocess(["validate", "-", "--format", "json"], write(tmp_path / f"m.jsonl.{kind}", lines).read_bytes())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["events"] == len(lines)


def test_upper_case_suffixes_and_linked_folders_are_found(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write(real / "A.JSONL", match_lines("a"))
    write(real / "b.jsonl.gz", match_lines("b")).rename(real / "b.jsonl.GZ")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "linked").symlink_to(real, target_is_directory=True)
    (logs / "loop").symlink_to(logs, target_is_directory=True)  # a cycle is walked once
    status, document = validate(logs)
    assert status == 0
    assert (document["summary"]["files"], document["summary"]["matches"]) == (2, 2)


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff.jsonl")
    write(tmp_path / name, match_lines("m1")[:-1])  # no match_end: F006 names the file
    status, document = validate(tmp_path / name)
    assert status == 1
    assert document["violations"][0]["file"] == str(tmp_path / "bad\\xff.jsonl")


def test_invalid_utf8_inside_a_line(tmp_path: Path) -> None:
    bad = _bad_utf8(tmp_path)
    status, document = validate(bad.path)
    assert status == 1
    assert codes(document) == [(2, "F001")], "the rest of the match validates clean"
    summary = document["summary"]
    assert summary["invalid_lines"] == 1
    assert summary["matches"] == 1 and summary["events"] == summary["lines"] - 1


def test_truncated_gzip_validates_lines_before_the_cut(tmp_path: Path) -> None:
    lines = match_lines("cut")
    lines[0] = edit(lines[0], colour="red")  # W401 on line 1: proves early lines are checked
    data = gzip.compress(b"".join(lines))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])

    status, document = validate(path)
    assert status == 1
    summary = document["summary"]
    reached = summary["lines"]
    assert 10 < reached < len(lines), "some lines before the cut were read"
    assert summary["events"] == reached
    assert summary["files"] == 1
    violations = document["violations"]
    assert [v["code"] for v in violations] == ["W401", "F007", "F006"]
    w401, f007, f006 = violations
    assert w401["line"] == 1
    # the F007 names the line reached
    assert f007["file"] == str(path)
    assert f007["line"] == reached + 1
    assert str(reached) in f007["message"]
    assert "truncated" in f007["message"] or "ends early" in f007["message"]
    # then the match left open, on its last line read
    assert (f006["match"], f006["line"]) == ("cut", reached)


def test_not_gzip_at_all(tmp_path: Path) -> None:
    path = tmp_path / "fake.jsonl.gz"
    path.write_bytes(b"".join(match_lines("m1")))
    status, document = validate(path)
    assert status == 2
    assert codes(document) == [(1, "F007")]


@pytest.mark.parametrize("how", ["one-shot", "streamed", "two-frames"])
def test_valid_zstd(tmp_path: Path, how: str) -> None:
    first, second = match_lines("z1", seed=3), match_lines("z2", seed=4)
    compressor = zstandard.ZstdCompressor()
    if how == "one-shot":
        data = compressor.compress(b"".join(first + second))
    elif how == "streamed":  # no content size in the frame header
        buffer = io.BytesIO()
        with compressor.stream_writer(buffer, closefd=False) as writer:
            for line in first + second:
                writer.write(line)
        data = buffer.getvalue()
    else:  # two frames, as `zstd >> log.jsonl.zst` makes
        data = compressor.compress(b"".join(first)) + compressor.compress(b"".join(second))
    path = tmp_path / "ok.jsonl.zst"
    path.write_bytes(data)
    status, document = validate(path)
    assert status == 0
    assert document["violations"] == []
    summary = document["summary"]
    assert summary["lines"] == summary["events"] == len(first) + len(second)
    assert summary["matches"] == 2


@pytest.mark.parametrize("data", [
    b"this was never zstd data\n" * 50,
    b"\x28\xb5\x2f\xfd" + bytes(range(256)).replace(b"\x00", b"") * 8,  # zstd magic, then garbage
], ids=["text", "magic-then-garbage"])
def test_corrupt_zstd(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "corrupt.jsonl.zst"
    path.write_bytes(data)
    status, document = validate(path)
    assert status == 2
    [violation] = document["violations"]
    assert violation["code"] == "F007" and violation["file"] == str(path)


@pytest.mark.parametrize("matches", [1, 30], ids=["short", "long"])
def test_truncated_zstd_is_reported(tmp_path: Path, matches: int) -> None:
    lines: list[bytes] = []
    for index in range(matches):
        lines += match_lines(f"z{index}", seed=index)
    data = zstandard.ZstdCompressor().compress(b"".join(lines))
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(data[: len(data) // 2])
    _, document = validate(path)
    f007 = [v for v in document["violations"] if v["code"] == "F007"]
    assert f007, codes(document)
    assert "truncated" in f007[0]["message"] or "corrupt" in f007[0]["message"]
    assert "empty" not in f007[0]["message"]


@pytest.mark.parametrize("where", ["first-line", "middle"])
def test_huge_line_is_f001_and_the_run_goes_on(tmp_path: Path, where: str) -> None:
    lines = match_lines("m1")
    huge = b'{"type":"pass","match":"m1","player":"' + b"x" * (10 * 1024 * 1024) + b'"}\n'
    if where == "first-line":
        lines.insert(0, huge)
        number = 1
    else:
        lines.insert(5, huge)
        number = 6
    path = write(tmp_path / "huge.jsonl", lines)
    status, document = validate(path)
    assert status == 1
    assert codes(document) == [(number, "F001")], "the lines after it validate clean"
    summary = document["summary"]
    assert summary["invalid_lines"] == 1
    assert summary["events"] == len(lines) - 1
    assert summary["complete_matches"] == summary["matches"] == 1


@pytest.mark.parametrize("extra", [0, 1, 30_000])
def test_the_line_limit_holds_for_valid_events_too(tmp_path: Path, extra: int) -> None:
    from drawlog.log.reader import MAX_LINE_BYTES

    head, tail = b'{"type":"match_start","match":"m1","players":["a","b"],"meta":{"pad":"', b'"}}'
    line = head + b"x" * (MAX_LINE_BYTES - len(head) - len(tail) + extra) + tail
    assert len(line) == MAX_LINE_BYTES + extra
    status, document = validate(write(tmp_path / "long.jsonl", [b"\n" * 3, line + b"\n", b"\n"]))
    if extra == 0:
        assert codes(document) == [(4, "F006")], "a line of exactly the limit is read"
    else:
        assert codes(document) == [(4, "F001")]
        assert f"line is {len(line):,} bytes long" in document["violations"][0]["message"]


def validate_with_third_line(tmp_path: Path, line: bytes) -> tuple[int, dict]:
    """Validate a clean match with ``line`` put in as its third line."""
    lines = match_lines("m1")
    lines.insert(2, line + b"\n")
    return validate(write(tmp_path / "third-line.jsonl", lines))


@pytest.mark.parametrize("value", [b"[1,2]", b'"a string"', b"42", b"null", b"true", b"[]"])
def test_json_that_is_not_an_object_is_f002(tmp_path: Path, value: bytes) -> None:
    status, document = validate_with_third_line(tmp_path, value)
    assert status == 1
    assert codes(document) == [(3, "F002")]
    assert document["violations"][0]["match"] is None
    assert document["summary"]["invalid_lines"] == 1


@pytest.mark.parametrize("line", [
    b'{"type":"nope","match":"m1"',  # unknown type, then cut short
    b'{"type":"pass","match":"m1","player":1} trailing',  # mistyped field, then trailing text
    b'{"type":"bogus"}}',  # unknown type, then a stray brace
    b'{"type":"pass","match":"m1","player":"p1","x":"\xff"}',  # unknown field, then invalid UTF-8
], ids=["truncated", "trailing-text", "stray-brace", "utf8-after-unknown-field"])
def test_invalid_json_after_a_schema_error_is_f001(tmp_path: Path, line: bytes) -> None:
    status, document = validate_with_third_line(tmp_path, line)
    assert status == 1
    assert codes(document) == [(3, "F001")]


def test_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "log.jsonl"
    status, document = validate(path)
    assert status == 2
    [violation] = document["violations"]
    assert (violation["file"], violation["code"], violation["line"]) == (str(path), "F007", None)


def test_folder_without_logs(tmp_path: Path) -> None:
    bad = _folder_without_logs(tmp_path)
    status, document = validate(bad.path)
    assert status == 2
    [violation] = document["violations"]
    assert (violation["file"], violation["code"]) == (str(bad.path), "F007")


def test_folder_is_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    names = ["b.jsonl", "a/c.jsonl", "a/z.jsonl.gz", "c/d/e.jsonl.zst", "c/a.jsonl", "0.jsonl"]
    for index, name in enumerate(names):
        lines = match_lines(f"m{index}", seed=index)
        lines[0] = edit(lines[0], note=name)  # a W401 in each, so each file shows in the output
        write(root / name, lines)
    (root / "readme.txt").write_text("ignored\n")
    (root / "a" / "events.json").write_text("ignored\n")
    (root / "dir.jsonl").mkdir()  # a folder with a log suffix is searched, not read

    expected = [str(root / name) for name in sorted(names, key=lambda n: Path(n).parts)]
    assert expected == [str(root / n) for n in ("0.jsonl", "a/c.jsonl", "a/z.jsonl.gz", "b.jsonl",
                                                "c/a.jsonl", "c/d/e.jsonl.zst")]
    status, document = validate(root)
    assert status == 0, "warnings only"
    assert [v["file"] for v in document["violations"]] == expected
    assert all(v["code"] == "W401" for v in document["violations"])
    assert document["summary"]["files"] == len(names)
    assert document["summary"]["matches"] == len(names)

    result = cli("validate", root)  # text output: one block per file, same order
    positions = [result.stdout.find(name) for name in expected]
    assert -1 not in positions and positions == sorted(positions)


def test_standard_input(tmp_path: Path) -> None:
    lines = match_lines("in")
    proc = run_subprocess(["validate", "-", "--format", "json"], b"".join(lines))
    assert proc.returncode == 0, proc.stderr.decode()
    document = json.loads(proc.stdout)
    check_summary(document["summary"])
    assert document["violations"] == []
    assert document["summary"]["lines"] == len(lines)

    lines[0] = edit(lines[0], colour="red")
    del lines[-1]  # no match_end
    proc = run_subprocess(["validate", "-", "--format", "json"], b"".join(lines))
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    document = json.loads(proc.stdout)
    check_summary(document["summary"])
    assert [(v["file"], v["line"], v["code"]) for v in document["violations"]] == [
        ("-", 1, "W401"), ("-", len(lines), "F006")]


def test_standard_input_between_files(tmp_path: Path) -> None:
    before = match_lines("before", seed=1)
    before[0] = edit(before[0], x=1)
    after = match_lines("after", seed=2)
    after[0] = edit(after[0], x=1)
    stdin = match_lines("stdin", seed=3)
    stdin[0] = edit(stdin[0], x=1)
    first, last = write(tmp_path / "1.jsonl", before), write(tmp_path / "2.jsonl", after)
    proc = run_subprocess(["validate", str(first), "-", str(last), "--format", "json"], b"".join(stdin))
    assert proc.returncode == 0, proc.stderr.decode()
    document = json.loads(proc.stdout)
    check_summary(document["summary"])
    assert [v["file"] for v in document["violations"]] == [str(first), "-", str(last)]
    assert document["summary"]["files"] == 3


def test_empty_standard_input(tmp_path: Path) -> None:
    proc = run_subprocess(["validate", "-", "--format", "json"], b"")
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr
    document = json.loads(proc.stdout)
    check_summary(document["summary"])
    assert [(v["file"], v["code"], v["severity"]) for v in document["violations"]] == [("-", "W404", "warning")]
    assert run_subprocess(["validate", "-", "--strict"], b"").returncode == 1


def test_standard_input_through_cli_runner() -> None:
    lines = match_lines("in")
    result = cli("validate", "-", "--format", "json", input=b"".join(lines))
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    check_summary(document["summary"])
    assert document["summary"]["events"] == len(lines)


@pytest.mark.parametrize("compression", ["", ".gz", ".zst"])
def test_crlf_and_last_line_without_newline_validate_clean(tmp_path: Path, compression: str) -> None:
    lines = [line.replace(b"\n", b"\r\n") for line in match_lines("win")]
    lines[-1] = lines[-1].rstrip(b"\r\n")
    path = write(tmp_path / f"windows.jsonl{compression}", lines)
    status, document = validate(path)
    assert status == 0
    assert document["violations"] == []
    summary = document["summary"]
    assert summary["lines"] == summary["events"] == len(lines)
    assert summary["blank_lines"] == summary["invalid_lines"] == 0


def test_last_line_without_newline_is_still_checked(tmp_path: Path) -> None:
    lines = match_lines("m1")
    lines[-1] = edit(lines[-1], colour="red").rstrip(b"\n")
    path = write(tmp_path / "nonl.jsonl", lines)
    status, document = validate(path)
    assert status == 0
    assert codes(document) == [(len(lines), "W401")]


def test_blank_lines_are_ignored_but_counted(tmp_path: Path) -> None:
    lines = match_lines("m1")
    lines[4] = edit(lines[4], colour="red")  # W401, to check that line numbers stay physical
    blanks = [b"\n", b"   \n", b"\t\n", b"\r\n"]
    with_blanks = [b"\n"] + lines[:3] + blanks + lines[3:] + [b"\n", b"  "]
    path = write(tmp_path / "blanks.jsonl", with_blanks)
    status, document = validate(path)
    assert status == 0
    blank_count = 1 + len(blanks) + 2
    assert codes(document) == [(1 + 3 + len(blanks) + 2, "W401")]
    summary = document["summary"]
    assert summary["blank_lines"] == blank_count
    assert summary["invalid_lines"] == 0
    assert summary["events"] == len(lines)
    assert summary["lines"] == len(with_blanks)


def test_a_utf8_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    lines = match_lines("m1")
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(lines))
    status, document = validate(path)
    assert status == 0
    assert document["violations"] == []
    assert document["summary"]["events"] == len(lines)


def test_json_nested_too_deeply_is_reported_not_a_crash(tmp_path: Path) -> None:
    deep_meta = b'{"type":"match_start","match":"m9","players":["a","b"],"meta":' + b"[" * 200_000 + \
        b"]" * 200_000 + b"}\n"
    lines = match_lines("m1")
    path = write(tmp_path / "deep.jsonl", [deep_meta, b"[" * 100_000 + b"\n", *lines])
    status, document = validate(path)
    assert status == 1
    assert codes(document) == [(1, "F002"), (2, "F002")]
    assert "nested too deeply" in document["violations"][0]["message"]
    assert document["summary"]["invalid_lines"] == 2
