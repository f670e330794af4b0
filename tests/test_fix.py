"""``drawlog fix``: the claims rewritten from the replay, every other line byte for byte."""

from __future__ import annotations

import gzip
import json
import os
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drawlog.check.fix import FIXED_CODES, fix_lines
from drawlog.log.rewrite import field_spans, rewrite
from drawlog.check.validator import Validator
from drawlog.cli import app
from drawlog.play.faults import CLAIM_KINDS, FaultPlan
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

HERE = Path(__file__).resolve().parent
CODES_DIR = HERE / "fixtures" / "codes"
SAMPLES = HERE.parent / "sample_logs"
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
#: The kinds of claim faults the simulator injects that fix rewrites (S104, a wrong opener, is a deal's fault).
FIXABLE_KINDS = tuple(kind for kind in CLAIM_KINDS if kind in FIXED_CODES)

runner = CliRunner()


def cli(*args: object, input: bytes | None = None):  # noqa: ANN201, A002
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV, input=input)
    exc = result.exception
    detail = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
    assert exc is None or isinstance(exc, SystemExit), f"uncaught exception:\n{detail}"
    assert "Traceback" not in result.output
    return result


def codes_of(data: bytes, name: str = "fixed.jsonl") -> list[str]:
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return [violation.code for violation in Validator().validate_lines(lines, name)]


def claim_fixtures() -> list[Path]:
    return sorted(path for path in CODES_DIR.glob("R30*.jsonl")
                  if path.name[:4] in FIXED_CODES and ".clean" not in path.name)


# -- each claim kind, on the fixtures ------------------------------------------------


@pytest.mark.parametrize("fixture", claim_fixtures(), ids=lambda path: path.name)
def test_fixture_claims_fixed_and_other_lines_byte_identical(fixture: Path, tmp_path: Path) -> None:
    code = fixture.name[:4]
    original = fixture.read_bytes()
    assert code in codes_of(original, fixture.name)
    out = tmp_path / "fixed.jsonl"
    result = cli("fix", fixture, "-o", out, "--format", "json")
    document = json.loads(result.stdout)
    before, after = original.split(b"\n"), out.read_bytes().split(b"\n")
    assert len(before) == len(after)
    changed = {number for number, (old, new) in enumerate(zip(before, after), 1) if old != new}
    if fixture.name == "R306-forfeit-stranger.jsonl":  # a forfeit of someone not playing: no winner mends it
        assert result.exit_code == 1 and changed == set()
        assert document["unfixed_claims"] == {"R306": 1}
        return
    assert result.exit_code == 0, result.output
    left = codes_of(out.read_bytes())
    assert not set(left) & set(FIXED_CODES), left
    assert changed and changed == {change["line"] for change in document["changes"]}
    assert code in {change["code"] for change in document["changes"]}
    for change in document["changes"]:
        assert set(change) >= {"file", "line", "match", "field", "claimed", "recomputed"}
        assert change["claimed"] != change["recomputed"]
        # a changed line keeps its other fields, in their order
        old, new = json.loads(before[change["line"] - 1]), json.loads(after[change["line"] - 1])
        assert list(old) == [name for name in new if name in old]
        assert new[change["field"]] == change["recomputed"]
        assert {name: value for name, value in old.items() if name not in {c["field"] for c in document["changes"]
                                                                          if c["line"] == change["line"]}} == \
            {name: value for name, value in new.items() if name in old and name not in
             {c["field"] for c in document["changes"] if c["line"] == change["line"]}}


def test_every_violation_sample_fixed_unchanged_lines_identical(tmp_path: Path) -> None:
    source = SAMPLES / "every-violation.jsonl"
    out = tmp_path / "fixed.jsonl"
    changes = tmp_path / "changes.json"
    result = cli("fix", source, "-o", out, "--changes", changes)
    assert result.exit_code == 0, result.output
    assert "left alone" in result.stdout and "R301" in result.stdout
    document = json.loads(changes.read_text())
    fixed_codes = {change["code"] for change in document["changes"]}
    assert fixed_codes == {"R302", "R303", "R304", "R306", "R308"}
    before, after = source.read_bytes().split(b"\n"), out.read_bytes().split(b"\n")
    assert len(before) == len(after)
    lines = {change["line"] for change in document["changes"]}
    assert all(old == new for number, (old, new) in enumerate(zip(before, after), 1) if number not in lines)
    remaining = codes_of(out.read_bytes())
    assert not set(remaining) & set(FIXED_CODES)
    # structural faults and moves are left alone, and counted
    for code in ("R301", "R305", "R307", "M205", "F001"):
        assert code in remaining
        assert document["left_alone"][code] == remaining.count(code)


# -- a clean log, refusals, inputs ------------------------------------------------------


def test_clean_log_is_returned_byte_identical(tmp_path: Path) -> None:
    source = SAMPLES / "tournament-3p.jsonl"
    out = tmp_path / "copy.jsonl"
    result = cli("fix", source, "-o", out)
    assert result.exit_code == 0
    assert "nothing to fix" in result.stdout
    assert out.read_bytes() == source.read_bytes()


def test_unusual_lines_kept_byte_for_byte(tmp_path: Path) -> None:
    original = (CODES_DIR / "R303.jsonl").read_bytes().rstrip(b"\n").split(b"\n")
    end = next(number for number, line in enumerate(original) if b'"round_end"' in line)
    spaced = json.dumps(json.loads(original[end]) | {"note": "x", "ts": "2024-05-01T12:00:00Z"}, indent=None)
    lines = [b"   ", b"not json {", *original[:end], spaced.encode() + b"\r", *original[end + 1:]]
    data = b"\n".join(lines)  # no final newline; a \r kept; a blank and a broken line first
    source = tmp_path / "odd.jsonl"
    source.write_bytes(data)
    out = tmp_path / "fixed.jsonl"
    assert cli("fix", source, "-o", out).exit_code == 0
    fixed = out.read_bytes()
    assert not fixed.endswith(b"\n")
    new_lines = fixed.split(b"\n")
    assert len(new_lines) == len(lines)
    changed = [number for number, (old, new) in enumerate(zip(lines, new_lines)) if old != new]
    assert changed == [end + 2]
    line = new_lines[end + 2]
    assert line.endswith(b"}\r") and b'"note": "x"' in line and b'"ts": "2024-05-01T12:00:00Z"' in line
    assert line.replace(b'"points": {"ann": 123, "bob": 0}', b"") == \
        lines[end + 2].replace(b'"points": {"ann": 129, "bob": 0}', b"")


def test_output_equal_to_input_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "log.jsonl"
    source.write_bytes((CODES_DIR / "R302.jsonl").read_bytes())
    link = tmp_path / "link.jsonl"
    link.symlink_to(source)
    hard = tmp_path / "hard.jsonl"
    os.link(source, hard)
    before = source.read_bytes()
    for output in (source, link, hard, tmp_path / "." / "log.jsonl"):
        result = cli("fix", source, "-o", output)
        assert result.exit_code == 2
        assert "the log itself" in result.output
    result = cli("fix", link, "-o", source)
    assert result.exit_code == 2
    assert source.read_bytes() == before


def test_cannot_run_exits_2(tmp_path: Path) -> None:
    assert cli("fix", tmp_path / "missing.jsonl", "-o", tmp_path / "out.jsonl").exit_code == 2
    assert cli("fix", SAMPLES, "-o", tmp_path / "out.jsonl").exit_code == 2
    assert not (tmp_path / "out.jsonl").exists()


def test_compressed_input_and_output_and_stdin(tmp_path: Path) -> None:
    data = (CODES_DIR / "R306.jsonl").read_bytes()
    packed = tmp_path / "log.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    out = tmp_path / "fixed.jsonl.gz"
    assert cli("fix", packed, "-o", out).exit_code == 0
    fixed = gzip.decompress(out.read_bytes())
    assert "R306" not in codes_of(fixed)
    piped = cli("fix", "-", "-o", "-", "-q", input=data)
    assert piped.exit_code == 0
    assert piped.stdout_bytes == fixed


def test_json_lists_the_changes(tmp_path: Path) -> None:
    result = cli("fix", CODES_DIR / "R308.jsonl", "-o", tmp_path / "f.jsonl", "--format", "json")
    document = json.loads(result.stdout)
    (change,) = document["changes"]
    assert change["code"] == "R308" and change["field"] == "points" and change["match"] == "m1"
    assert (change["claimed"], change["recomputed"]) == (5, 10)
    assert document["summary"]["changes"] == 1


def test_structural_faults_reported_as_left_alone(tmp_path: Path) -> None:
    for name, code in (("R301.jsonl", "R301"), ("R305.jsonl", "R305"), ("R307.jsonl", "R307")):
        source = CODES_DIR / name
        out = tmp_path / name
        result = cli("fix", source, "-o", out)
        assert result.exit_code == 0
        assert "nothing to fix" in result.stdout
        assert f"left alone (not claims): {code} ×1" in result.stdout
        assert out.read_bytes() == source.read_bytes()


# -- the line rewriter ------------------------------------------------------------


def test_rewrite_keeps_spacing_order_and_unknown_fields() -> None:
    raw = b'{ "type" : "round_end","match":"m","seq":4, "winner":"bob" ,"x":{"a":"}\\""},"points":{"bob":1}}'
    fixed = rewrite(raw, {"winner": "ann", "points": {"bob": 0, "ann": 7}})
    assert fixed == b'{ "type" : "round_end","match":"m","seq":4, "winner":"ann" ,"x":{"a":"}\\""},' \
                    b'"points":{"bob":0,"ann":7}}'
    assert [name for name, _, _ in field_spans(fixed)] == ["type", "match", "seq", "winner", "x", "points"]


# -- simulated matches ----------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.sampled_from([2, 3, 4]),
       variant=st.sampled_from(["draw", "all-fives"]), log_seq=st.booleans(), reveal=st.booleans())
def test_fix_undoes_an_injected_claim_fault(seed: int, players: int, variant: str, log_seq: bool,
                                            reveal: bool) -> None:
    simulator = Simulator(seed, SimulationOptions(players=players, bots=("greedy", "random"), variant=variant,
                                                  log_seq=log_seq, reveal_hands=reveal, fault_rate=1.0))
    simulator.faults = FaultPlan(simulator.rng, 1.0, FIXABLE_KINDS)
    lines = encode_events(simulator.match("m1"))
    lines = [line.rstrip(b"\n") for line in lines]
    result = fix_lines(lines, "sim.jsonl")
    left = [violation.code for violation in Validator().validate_lines(result.lines, "sim.jsonl")]
    assert not set(left) & set(FIXED_CODES), left
    assert left == []
    changed = {number for number, (old, new) in enumerate(zip(lines, result.lines), 1) if old != new}
    injected = {fault.index for fault in simulator.injected}
    assert changed == injected
    assert {change.line for change in result.changes} == injected
    if simulator.injected:
        assert {change.code for change in result.changes} == {simulator.injected[0].code}


def test_byte_order_mark_kept(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + (CODES_DIR / "R302.jsonl").read_bytes()
    for name, packed in (("log.jsonl", data), ("log.jsonl.gz", gzip.compress(data))):
        source = tmp_path / name
        source.write_bytes(packed)
        out = tmp_path / f"fixed-{name}.jsonl"
        assert cli("fix", source, "-o", out).exit_code == 0
        fixed = out.read_bytes()
        assert fixed.startswith(b"\xef\xbb\xbf{")
        assert len([1 for old, new in zip(data.split(b"\n"), fixed.split(b"\n")) if old != new]) == 1


def test_unwritable_output_exits_2(tmp_path: Path) -> None:
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    result = cli("fix", CODES_DIR / "R302.jsonl", "-o", folder)
    assert result.exit_code == 2
    assert "cannot write" in result.output


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), tables=st.integers(min_value=2, max_value=4),
       variant=st.sampled_from(["draw", "all-fives"]))
def test_fix_interleaved_matches_changes_only_the_injected_lines(seed: int, tables: int, variant: str) -> None:
    import random

    from drawlog.play.simulate import interleave

    simulator = Simulator(seed, SimulationOptions(players="mixed", bots=("random", "greedy"), variant=variant,
                                                  log_seq=True, fault_rate=1.0))
    simulator.faults = FaultPlan(simulator.rng, 1.0, FIXABLE_KINDS)
    matches = [simulator.match(f"t{table}") for table in range(tables)]
    injected = {(fault.match, fault.index) for fault in simulator.injected}
    items = interleave(matches, random.Random(seed))
    lines = [line.rstrip(b"\n") for line in encode_events(items)]
    result = fix_lines(lines, "sim.jsonl")
    assert [v.code for v in Validator().validate_lines(result.lines, "sim.jsonl")] == []
    # the n-th line of a match in the file is its n-th event
    seen: dict[str, int] = {}
    where = {}
    for number, line in enumerate(lines, 1):
        match = json.loads(line)["match"]
        seen[match] = seen.get(match, 0) + 1
        where[(match, seen[match])] = number
    changed = {number for number, (old, new) in enumerate(zip(lines, result.lines), 1) if old != new}
    assert changed == {where[key] for key in injected}


def test_json_and_fixed_log_cannot_share_standard_output(tmp_path: Path) -> None:
    result = cli("fix", CODES_DIR / "R302.jsonl", "-o", "-", "--format", "json")
    assert result.exit_code == 2


def test_only_a_byte_order_mark_is_copied(tmp_path: Path) -> None:
    source = tmp_path / "bom.jsonl"
    source.write_bytes(b"\xef\xbb\xbf")
    out = tmp_path / "out.jsonl"
    assert cli("fix", source, "-o", out).exit_code == 0
    assert out.read_bytes() == source.read_bytes()
