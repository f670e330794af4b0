"""What the fuzz targets found, each as the smallest input that showed it."""

from __future__ import annotations

import json

import pytest

from drawlog.check.validator import validate_lines
from drawlog.log.reader import MAX_LINE_BYTES

from .agree import check_chunked, check_log, packed, validated_stdin


def _padded_line(length: int) -> bytes:
    """A match_start line of exactly ``length`` bytes (without its newline)."""
    line = json.dumps({"type": "match_start", "match": "m", "players": ["a", "b"], "meta": {"pad": ""}}).encode()
    return line.replace(b'"pad": ""', b'"pad": "' + b"x" * (length - len(line)) + b'"')


@pytest.mark.parametrize("over", [-1, 0, 1, 2])
def test_a_line_over_the_limit_is_one_f001_in_memory_as_in_a_file(over: int) -> None:
    """validate_lines held a line over MAX_LINE_BYTES whole and replayed it; the file reader said F001."""
    line = _padded_line(MAX_LINE_BYTES + over)
    for given in (line + b"\n", [line], [line.decode()], [b"{}", line + b"\n", b"{}"]):
        found, summary = validate_lines(given)
        number = 2 if isinstance(given, list) and len(given) == 3 else 1
        too_long = [(violation.line, violation.code, violation.message) for violation in found
                    if violation.code == "F001"]
        if over > 0:
            assert too_long == [(number, "F001", f"line is {len(line):,} bytes long; the limit is {MAX_LINE_BYTES:,}")]
        else:
            assert too_long == []
        assert summary.lines == summary.events + summary.blank_lines + summary.invalid_lines
    check_log(line + b"\n" + b'{"type":"match_end","match":"m","scores":{"a":0,"b":0}}\n')


@pytest.mark.parametrize("given", [["\ud800"], "\ud800\n", ['{"type":"match_start","match":"\udc00","players":["a","b"]}']])
def test_a_str_holding_a_lone_surrogate_is_one_f001_not_an_exception(given: list[str] | str) -> None:
    """validate_lines encoded a str strictly: a lone surrogate (from surrogateescape) raised UnicodeEncodeError."""
    found, summary = validate_lines(given)
    assert [(violation.line, violation.code) for violation in found] == [(1, "F001")]
    assert "not valid JSON" in found[0].message
    assert (summary.lines, summary.invalid_lines) == (1, 1)


START = '{"type":"match_start","match":"m","players":["a","b"]}'


@pytest.mark.parametrize("given", ["\ufeff" + START, ("\ufeff" + START).encode(), ["\ufeff" + START],
                                   [("\ufeff" + START + "\n").encode(), START.replace('"m"', '"n"')]])
def test_a_bom_before_the_first_line_is_dropped_in_memory_as_in_a_file(given: list[str | bytes] | str | bytes) -> None:
    """validate_lines read a leading BOM as part of line 1 (F001, the match lost); a file drops it."""
    found, summary = validate_lines(given)
    assert [(violation.line, violation.code) for violation in found] == \
        [(number, "F006") for number in range(1, summary.lines + 1)]
    assert summary.invalid_lines == 0


@pytest.mark.parametrize("given", [b"\xef\xbb\xbf", "\ufeff"])
def test_a_bom_alone_is_an_empty_input_in_memory_as_in_a_file(given: bytes | str) -> None:
    found, summary = validate_lines(given)
    assert [(violation.line, violation.code) for violation in found] == [(None, "W404")]
    assert summary.lines == 0


def test_a_bom_after_the_first_line_is_still_f001_in_memory() -> None:
    found, _ = validate_lines([START, "\ufeff" + START.replace('"m"', '"n"')])
    assert [(violation.line, violation.code) for violation in found] == [(2, "F001"), (1, "F006")]


@pytest.mark.parametrize("sizes", [[1], [3], [2, 1, 1], [4, 4, 4], [100]])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_nul_on_the_first_line_is_binary_data_however_the_reads_arrive(sizes: list[int], bom: bytes) -> None:
    """From a pipe whose first read held part of line 1, a NUL later on that line was F001 and the rest read;
    the same bytes in one read (a file) were F007, nothing read."""
    data = bom + b'{"type":"match_start","ma\x00tch":"m","players":["a","b"]}\n{}\n'
    check_chunked(data, sizes)
    found, _ = validated_stdin(data, sizes)
    assert [(violation.line, violation.code) for violation in found] == [(None, "F007")]
    assert "binary data" in found[0].message



@pytest.mark.parametrize("sizes", [[1], [2], [3], [1, 1, 1, 1], [100]])
@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_compressed_standard_input_is_unpacked_however_its_first_bytes_arrive(sizes: list[int], suffix: str) -> None:
    """Standard input whose first read was shorter than the gzip or zstd magic was taken for plain text and
    refused with F007 ("name the file .jsonl.gz", which standard input has no way to do)."""
    data = b'{"type":"match_start","match":"m","players":["a","b"]}\n'
    check_chunked(data, sizes, suffix)
    found, _ = validated_stdin(packed(data, suffix), sizes)
    assert [(violation.line, violation.code) for violation in found] == [(1, "F006")]
