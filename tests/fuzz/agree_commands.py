"""The properties of ``replay`` and ``filter`` on damaged logs: no traceback, every line accounted for, and
the same verdict as ``validate`` wherever the two overlap.

:func:`check_replay` replays every match of a log through the walkthrough API and
the ``replay`` command (``FILE:LINE`` and ``--match``, text and JSON), and checks
that each frame's violations are those ``validate`` reports on that line for that
match; a line of no match, or an id of none, is the documented one-line error.
:func:`check_filter` runs ``drawlog filter`` with random options and checks its
account of the lines read against ``validate``'s summary, and that ``--valid``
writes only valid matches.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from drawlog.check.violations import Violation
from drawlog.check.walkthrough import Selection, frames, match_ids, what_is_at
from drawlog.cli import app
from drawlog.errors import InputError
from drawlog.log.ids import bounded_id
from drawlog.log.reader import Source

from .agree import BOM, line_count, validated

#: The most matches of one log replayed through the API (each replay scans the whole file).
MOST_MATCHES = 4


def invoke(*args: str) -> Any:
    """``drawlog ARGS`` in this process: never an exception other than the exit."""
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        raise AssertionError(f"drawlog {args[0]} raised {result.exception!r}\n{args}\n"
                             + "".join(traceback.format_exception(*result.exc_info)))
    assert "Traceback" not in result.output, result.output
    return result


def one_line_error(result: Any, *words: str) -> str:
    """Exit 2 with one ``Error: …`` line on standard error (holding ``words``); that line."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    errors = [line for line in result.stderr.split("\n") if line.startswith("Error")]
    assert len(errors) == 1, result.stderr
    for word in words:
        assert word in errors[0], (word, errors[0])
    return errors[0]


def _frame_rows(frame: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(item["code"], item["severity"], item["message"], item["player"]) for item in frame["violations"]]


def _validate_rows(found: list[Violation], line: int, key: str) -> list[tuple[Any, ...]]:
    return [(violation.code, violation.severity, violation.message, violation.player) for violation in found
            if violation.line == line and violation.match == key]


def _difference(got: list[Any], expected: list[Any]) -> str:
    """Where two lists first differ (a short assertion message)."""
    at = next((index for index, (one, other) in enumerate(zip(got, expected)) if one != other),
              min(len(got), len(expected)))
    return f"at {at} of {len(got)} / {len(expected)}: {got[at:at + 2]} / {expected[at:at + 2]}"


def agrees(shown: list[dict[str, Any]], found: list[Violation], key: str, up_to: int | None = None) -> None:
    """Each frame's violations are those ``validate`` reports on its line for match ``key``."""
    for frame in shown:
        rows = _frame_rows(frame)
        expected = _validate_rows(found, frame["line"], key)
        if up_to is not None and frame is shown[-1]:  # F006 is found at the end of the input only
            expected = [row for row in expected if row[0] != "F006"]
        assert rows == expected, (key, frame["line"], rows, expected)


def check_replay(data: bytes, line: int, which: int, output_format: str) -> None:
    """Replay ``data``'s matches (API, then ``replay FILE:LINE`` and ``replay --match`` in ``output_format``)."""
    _check_replay(data, line, which, output_format)


def _check_replay(data: bytes, line: int, which: int, output_format: str) -> None:
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        path = Path(folder) / "log.jsonl"
        path.write_bytes(data)
        found, summary = validated(path)
        source = Source(str(path), path)
        if summary.files == 0:  # unreadable (binary): the API raises InputError, the command exits 2
            try:
                match_ids(source)
            except InputError:
                pass
            one_line_error(invoke("replay", f"{path}:{line}"))
            return
        ids = match_ids(source, None)
        for match in ids[:MOST_MATCHES]:
            key = bounded_id(match)
            every = list(frames(source, Selection(match)))
            assert every, match  # (match_ids lists only matches started: not a match_start nested too deep)
            lines = [frame["line"] for frame in every]
            assert lines == sorted(set(lines)), lines
            agrees(every, found, key)
            json.dumps(every)  # the frames are plain data
        _check_line(path, found, line, output_format)
        if ids:
            _check_match(path, found, ids[which % len(ids)], output_format)
        missing = invoke("replay", str(path), "--match", "no such match \u2603")
        one_line_error(missing, "no match", "no such match")


def _check_line(path: Path, found: list[Violation], line: int, output_format: str) -> None:
    """``replay FILE:LINE``: the frames of that line's match up to it, or the one-line error of a line of none."""
    source = Source(str(path), path)
    match, there = what_is_at(source, line)
    result = invoke("replay", f"{path}:{line}", "--format", output_format)
    if match is None:
        error = one_line_error(result, f"line {line:,} of", "so it shows no match")
        if "past the end" in there:
            lines = line_count(path.read_bytes().removeprefix(BOM))
            assert f"the file has {lines:,} line{'s' if lines != 1 else ''}" in error, error
        return
    if result.exit_code == 2:  # the line names a match but is no event of it (F002, say): no frame up to it
        one_line_error(result, "no line of match")
        assert not list(frames(source, Selection(match, at=line)))
        return
    assert result.exit_code == 0, result.output
    _check_output(result.stdout, found, match, output_format, up_to=line)


def _check_match(path: Path, found: list[Violation], match: str, output_format: str) -> None:
    result = invoke("replay", str(path), "--match", match, "--format", output_format)
    if result.exit_code == 2:  # (the known case above: an id of a match_start nested too deep)
        one_line_error(result, "no line of match")
        assert not list(frames(Source(str(path), path), Selection(match)))
        return
    assert result.exit_code == 0, result.output
    _check_output(result.stdout, found, match, output_format)


def _check_output(stdout: str, found: list[Violation], match: str, output_format: str,
                  up_to: int | None = None) -> None:
    """JSON: one frame a line, each with ``validate``'s violations; text: each violation's code and line shown."""
    key = bounded_id(match)
    if output_format == "json":
        shown = [json.loads(line) for line in stdout.split("\n") if line]
        assert shown, stdout
        lines = [frame["line"] for frame in shown]
        assert lines == sorted(set(lines)) and (up_to is None or lines[-1] <= up_to), lines
        agrees(shown, found, key, up_to)
    else:
        for violation in found:
            if violation.match == key and (up_to is None or (violation.line or 0) <= up_to) \
                    and violation.code != "F006":
                assert violation.code in stdout, violation


# --- filter --------------------------------------------------------------------------------------------

_ACCOUNT = re.compile(r"^([\d,]+) lines? read: ([\d,]+) in ([\d,]+) match(?:es)? \(([\d,]+) kept"
                      r"(?:; dropped: (.*))?\), ([\d,]+) outside any match, ([\d,]+) blank, ([\d,]+) invalid$")
_DROPPED = re.compile(r"^(\S+(?: ts)?) ([\d,]+) match(?:es)?, ([\d,]+) lines?$")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def parse_account(stderr: str) -> dict[str, Any]:
    """The account ``filter`` prints on standard error, as numbers."""
    lines = [line for line in stderr.split("\n") if " read: " in line]
    assert len(lines) == 1, stderr
    parts = _ACCOUNT.match(lines[0])
    assert parts is not None, lines[0]
    dropped = {}
    for item in (parts.group(5) or "").split("; ") if parts.group(5) else []:
        reason = _DROPPED.match(item)
        assert reason is not None, item
        dropped[reason.group(1)] = (_number(reason.group(2)), _number(reason.group(3)))
    return {"lines": _number(parts.group(1)), "in_matches": _number(parts.group(2)),
            "matches": _number(parts.group(3)), "kept_lines": _number(parts.group(4)), "dropped": dropped,
            "outside": _number(parts.group(6)), "blank": _number(parts.group(7)), "invalid": _number(parts.group(8))}


def _filter_stdin(data: bytes, options: list[str], out: Path) -> tuple[Any, bytes]:
    """``drawlog filter - OPTIONS -o OUT`` with ``data`` on standard input: the result and what it wrote."""
    result = CliRunner().invoke(app, ["filter", "-", *options, "-o", str(out)], input=data)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 0, result.output
    return result, out.read_bytes()


def check_filter(data: bytes, options: list[str], split: str | None) -> None:
    """``drawlog filter LOG OPTIONS -o OUT``: every line accounted for, matches counted as ``validate`` counts them,
    and the output of ``--valid`` validating clean."""
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        path, out = Path(folder) / "log.jsonl", Path(folder) / ("split" if split else "out.jsonl")
        path.write_bytes(data)
        _, summary = validated(path)
        result = invoke("filter", str(path), *options, "-o", str(out), *(["--split-by", split] if split else []))
        if result.exit_code == 2:
            if "Error" in result.stderr:  # a bad option: one line, before anything is read
                one_line_error(result)
            else:  # nothing could be read: the log's F007, one line
                assert summary.files == 0 and result.stderr.count("\n") == 1 and "F007" in result.stderr, \
                    result.stderr
            assert not out.exists()
            return
        assert summary.files, "filter read a log validate could not"
        assert result.exit_code == 0, result.output
        account = parse_account(result.stderr)
        body = data.removeprefix(BOM)
        assert account["lines"] == summary.lines == line_count(body), (account, summary)
        dropped_lines = sum(lines for _, lines in account["dropped"].values())
        assert account["in_matches"] == account["kept_lines"] + dropped_lines
        assert account["lines"] == account["in_matches"] + account["outside"] + account["blank"] + account["invalid"]
        assert account["matches"] == summary.matches, (account, summary)
        assert account["blank"] == summary.blank_lines, (account, summary)
        kept = account["matches"] - sum(matches for matches, _ in account["dropped"].values())
        wrote = re.search(r"^wrote ([\d,]+) match(?:es)? of ([\d,]+) \(([\d,]+) lines?\)", result.stderr, re.MULTILINE)
        assert wrote is not None and _number(wrote.group(1)) == kept and _number(wrote.group(2)) == summary.matches
        assert _number(wrote.group(3)) == account["kept_lines"]
        if "--valid" in options:
            assert account["dropped"].get("--valid", (0, 0))[0] == summary.matches - summary.valid_matches
        if "--invalid" in options:
            assert account["dropped"].get("--invalid", (0, 0))[0] == summary.valid_matches
        written = sorted(out.glob("*.jsonl")) if split else [out]
        if split:
            assert not [name for name in out.iterdir() if name.name.startswith(".")]  # no staging folder left
            assert (len(written) == 0) == (kept == 0)
        text = b"".join(file.read_bytes() for file in written)
        assert line_count(text) == account["kept_lines"] and (not text or text.endswith(b"\n"))
        if split is None and not data.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd")):  # (stdin unpacks these)
            piped, out_piped = _filter_stdin(data, options, Path(folder) / "piped.jsonl")
            assert parse_account(piped.stderr) == account
            assert out_piped == text
        if "--valid" in options and written and text:
            again, again_summary = validated(written[0] if not split else out)
            assert again_summary.errors == 0 and again_summary.suppressed_errors == 0, \
                [(v.line, v.code, v.message) for v in again if v.severity == "error"]
            assert again_summary.matches == again_summary.valid_matches == kept, again_summary
