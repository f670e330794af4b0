"""What the fuzz targets found, each as the smallest input that showed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from drawlog.check.validator import validate_lines
from drawlog.cli import app
from drawlog.log.reader import MAX_LINE_BYTES

from .agree import check_chunked, check_log, packed, validated_stdin
from .agree_commands import invoke, one_line_error, parse_account


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


# --- found by the command targets (test_fuzz_commands.py) ---------------------------------------------------

EVERY = Path(__file__).parents[2] / "sample_logs" / "every-violation.jsonl"
TOURNAMENT = Path(__file__).parents[2] / "sample_logs" / "tournament-2p.jsonl"


@pytest.mark.parametrize("option", ["--until", "--since"])
def test_filter_until_the_last_day_of_the_calendar_keeps_every_timed_match(tmp_path: Path, option: str) -> None:
    """``filter --until 9999-12-31`` raised OverflowError (the day's end, the next midnight, is past year 9999)."""
    log = tmp_path / "timed.jsonl"
    log.write_text('{"type":"match_start","match":"a","players":["p","q"],"ts":"9999-12-31T23:59:59.999999Z"}\n'
                   '{"type":"match_start","match":"b","players":["p","q"],"ts":"2024-01-01T00:00:00Z"}\n'
                   '{"type":"match_start","match":"c","players":["p","q"]}\n', encoding="utf-8")
    result = invoke("filter", str(log), option, "9999-12-31", "-o", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 0, result.output
    account = parse_account(result.stderr)
    if option == "--until":  # every time is before the end of 9999-12-31
        assert (account["kept_lines"], account["dropped"]) == (2, {"no ts": (1, 1)})
    else:  # only the match at its last microsecond is at or after its start
        assert (account["kept_lines"], account["dropped"]) == (1, {"no ts": (1, 1), "--since": (1, 1)})
    assert account["lines"] == 3


def test_the_verdict_names_each_code_ignored_once(tmp_path: Path) -> None:
    """``--ignore '' --extend-ignore M2 --extend-ignore M2`` said "ignore: ,M2,M2" where drawlog.toml's ignore = []
    and extend-ignore = ["M2"] said "ignore: M2" (a configuration and its command line differed)."""
    result = invoke("validate", str(EVERY), "--isolated", "--format", "concise", "--select", "W",
                    "--ignore", "", "--extend-ignore", "M2", "--extend-ignore", "M2, W401")
    assert "(select: W; ignore: M2,W401)" in result.stdout.splitlines()[-1]


def test_replay_at_a_move_out_of_turn_shows_its_violation_and_the_board_after_it() -> None:
    """``drawlog validate`` names line 224 of every-violation.jsonl (M201, a move of bob missing) with
    ``drawlog replay FILE:224``; there the replay showed no violation and ann still holding [0|2]: the
    replay holds a move out of turn (check/readings.py) until its round ends, and the walkthrough
    (check/walkthrough.py) gives each frame what the validator handed out by then, not what is on its line.
    The whole match showed line 224's M201 on line 233 (its round_end)."""
    result = invoke("replay", f"{EVERY}:224", "--format", "json")
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["line"] == 224
    assert [item["code"] for item in last["violations"]] == ["M201"]
    assert "[0|2]" not in last["hands"]["ann"]


@pytest.mark.parametrize("version", ["true", "1.0", '"1"'])
def test_a_baseline_whose_version_is_not_the_number_1_is_refused(tmp_path: Path, version: str) -> None:
    """``"drawlog_baseline": true`` (or 1.0) was read as version 1 (true == 1 in Python), and its entries absorbed."""
    known = tmp_path / "known.json"
    known.write_text(f'{{"drawlog_baseline": {version}, "violations": []}}', encoding="utf-8")
    result = invoke("validate", str(EVERY), "--isolated", "--baseline", str(known))
    assert one_line_error(result, str(known), "is not a drawlog baseline (version 1)")


def test_replay_reads_a_broken_line_among_a_matchs_lines_as_validate_does(tmp_path: Path) -> None:
    """A line that cannot be read and names no match, while one match is open, is read by ``validate`` as that
    match's lost move: the move out of turn after it follows from it ("line 18, which could not be read, is read
    as bob passing"). The walkthrough reads only the lines that name the match, so ``replay`` made the same move
    a root error of its own, with other words, shown on the round's last line."""
    lines = EVERY.read_text(encoding="utf-8").splitlines()[205:234]
    assert lines[17] == ""
    lines[17] = '{"type":"pass","player":"bob"'
    log = tmp_path / "lost.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    said = json.loads(invoke("validate", str(log), "--isolated", "--format", "json").stdout)["violations"]
    assert [(item["line"], item["code"], item["follows"]) for item in said] == [(18, "F001", None), (19, "M201", 18)]
    frames = [json.loads(line) for line in invoke("replay", str(log), "--format", "json").stdout.splitlines()]
    shown = [(frame["line"], item["message"]) for frame in frames for item in frame["violations"]
             if item["code"] == "M201"]
    assert shown == [(19, said[1]["message"])]


@pytest.mark.parametrize(("key", "value"), [("files", [1]), ("files", ["<img src=x onerror=alert(1)>", None]),
                                            ("decompression", 10**40), ("decompression", 5)])
def test_report_of_a_manifest_summary_of_another_type_is_a_page_or_one_line(tmp_path: Path, key: str,
                                                                          value: object) -> None:
    """``_drawlog.json`` with ``summary.files`` a list: ``drawlog report STATS`` raised TypeError (int() of a
    list, in tables/report_data.py's overview) where a string there is read as 0; with
    ``summary.decompression`` a number (a list of warnings), TypeError "'int' object is not iterable"
    (views/report.py's summary)."""
    from drawlog.tables.dataset import write_tables

    from .agree_settings import inert

    stats = tmp_path / "stats"
    write_tables([str(EVERY)], stats)
    manifest = json.loads((stats / "_drawlog.json").read_text(encoding="utf-8"))
    manifest["summary"][key] = value
    (stats / "_drawlog.json").write_text(json.dumps(manifest), encoding="utf-8")
    page = tmp_path / "page.html"


    result = CliRunner().invoke(app, ["report", str(stats), "-o", str(page), "-q"])
    if result.exit_code == 2:
        one_line_error(result)
    else:
        assert result.exit_code == 0, result.output
        inert(page.read_text(encoding="utf-8"))


def test_a_pyproject_with_a_drawlog_table_and_a_byte_not_utf8_is_an_error_not_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pyproject.toml holding ``[tool.drawlog]`` and one byte that is not UTF-8 was skipped as if it had no
    drawlog table: its settings silently not applied (one that is not valid TOML is an error naming it)."""
    (tmp_path / "pyproject.toml").write_bytes(b'[project]\nname = "caf\xe9"\n[tool.drawlog]\nselect = ["W"]\n')
    (tmp_path / "log.jsonl").write_bytes(EVERY.read_bytes())
    monkeypatch.chdir(tmp_path)
    line = one_line_error(invoke("validate", "log.jsonl"), "pyproject.toml", "not valid TOML")
    assert "utf-8" in line


@pytest.mark.parametrize("column", ["code", "file"])
def test_report_of_a_violation_with_a_null_code_or_file_is_a_page_or_one_line(tmp_path: Path, column: str) -> None:
    """A null ``violations.code`` raised TypeError (sorting the codes, views/report.py); a null
    ``violations.file`` with ``--logs`` raised AttributeError (a board's source named None,
    tables/report_boards.py)."""
    import polars as pl

    from drawlog.tables.dataset import write_tables

    from .agree_settings import inert

    stats = tmp_path / "stats"
    write_tables([str(EVERY)], stats)
    part = stats / "violations" / "part-00000.parquet"
    frame = pl.read_parquet(part)
    frame.with_columns(pl.lit(None, dtype=pl.String).alias(column)).write_parquet(part)
    page = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["report", str(stats), "-o", str(page), "-q", "--logs", str(EVERY)])
    if result.exit_code == 2:
        one_line_error(result)
    else:
        assert result.exit_code == 0, result.output
        inert(page.read_text(encoding="utf-8"))


def test_replay_lists_no_match_whose_start_is_nested_too_deep(tmp_path: Path) -> None:
    """A match_start nested more than 64 deep is F002 (no match started), yet ``replay FILE:1`` said "line 1 …
    nests arrays and objects more than 64 deep, so it shows no match; … matches in it: m0", and
    ``replay FILE`` picked m0 and found no line of it: ``match_ids`` (check/walkthrough.py) decodes lines
    without the depth limit."""
    from drawlog.check.walkthrough import match_ids
    from drawlog.log.reader import Source

    meta = '{"k":[' * 40 + "1" + "]}" * 40
    log = tmp_path / "deep.jsonl"
    log.write_text(f'{{"type":"match_start","match":"m0","players":["a","b"],"meta":{meta}}}\n', encoding="utf-8")
    said = json.loads(invoke("validate", str(log), "--isolated", "--format", "json").stdout)
    assert said["summary"]["matches"] == 0 and [item["code"] for item in said["violations"]] == ["F002"]
    one_line_error(invoke("replay", f"{log}:1"), "more than 64 deep", "so it shows no match")
    assert not match_ids(Source(str(log), log), None)
