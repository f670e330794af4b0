"""Hostile inputs, third pass (issue 26, items 4, 5 and 7): no traceback, no hang, no wrong answer.

Each test reproduces one finding of the issue and fails on the code before the fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import drawlog
from drawlog.check.extract import MAX_NAME, escaped_name, split_names
from drawlog.check.rules import SEVERITY
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
DEEP = 100_000
runner = CliRunner()


def cli(*args: object, input: bytes | None = None):
    """``drawlog ARGS`` in this process; never a traceback."""
    result = runner.invoke(app, [str(arg) for arg in args], input=input, env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def run_drawlog(args: list[str], env: dict[str, str] | None = None, timeout: float = 120
                ) -> subprocess.CompletedProcess[str]:
    """The real ``drawlog`` command in a child process."""
    command = [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()"]
    return subprocess.run(command + args, capture_output=True, text=True, timeout=timeout, check=False,
                          env=env)


def match_lines(match_id: str = "m1", seed: int = 1) -> list[bytes]:
    """A clean simulated 2-player match as JSON lines (bytes, newline included)."""
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))  # type: ignore[arg-type]


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("Error:")]


# --- 4. no traceback from any input -------------------------------------------------------------------------------

def test_replay_of_a_deeply_nested_line_says_what_is_there(tmp_path: Path) -> None:
    log = tmp_path / "deep.jsonl"
    log.write_bytes(b"".join(match_lines()) + b'{"type":"play","match":' + b"[" * DEEP + b"]" * DEEP + b"}\n")
    line = len(match_lines()) + 1
    result = cli("replay", f"{log}:{line}")
    assert result.exit_code == 2
    assert f"line {line:,} of {log} nests arrays and objects more than 64 deep, so it shows no match" in result.output


def test_replay_lists_the_matches_past_a_deeply_nested_match_start(tmp_path: Path) -> None:
    log = tmp_path / "deep.jsonl"
    log.write_bytes(b"".join(match_lines()) + b'{"type":"match_start","x":' + b"[" * DEEP + b"]" * DEEP + b"}\n")
    result = cli("replay", log, "--match", "nosuch")
    assert result.exit_code == 2
    assert f"no match 'nosuch' in {log}; matches in it: m1" in result.output


def test_a_deeply_nested_config_is_one_line_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    config = tmp_path / "ci.toml"
    config.write_text("select = ['M']\nignore = " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    result = cli("validate", log, "--config", config)
    assert result.exit_code == 2
    assert error_lines(result.output) == [f"Error: {config}:2: arrays or tables nested more than 64 deep"]


def test_a_deeply_nested_pyproject_found_upwards_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    (tmp_path / "pyproject.toml").write_text("[tool.drawlog]\nselect = " + "{a=" * 5000 + "1" + "}" * 5000 + "\n",
                                             encoding="utf-8")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    result = cli("validate", log)
    assert result.exit_code == 2
    assert error_lines(result.output) == [(f"Error: {tmp_path / 'pyproject.toml'}:2: arrays or tables nested more "
                                          f"than 64 deep")]


def test_a_config_from_the_zero_device_is_refused_unread(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    result = cli("validate", log, "--config", "/dev/zero")
    assert result.exit_code == 2
    assert error_lines(result.output) == ["Error: /dev/zero: larger than 1 MiB: not a configuration file"]


def test_a_deeply_nested_baseline_is_one_line_naming_it(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    baseline = tmp_path / "known.json"
    baseline.write_text('{"drawlog_baseline": 1,\n "violations": ' + "[" * DEEP + "]" * DEEP + "}\n",
                        encoding="utf-8")
    result = cli("validate", log, "--baseline", baseline)
    assert result.exit_code == 2
    assert error_lines(result.output) == [(f"Error: {baseline}:2: arrays or objects nested more than 64 deep: not "
                                          f"a drawlog baseline")]


def test_a_baseline_from_the_zero_device_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    result = cli("validate", log, "--baseline", "/dev/zero")
    assert result.exit_code == 2
    assert error_lines(result.output) == ["Error: /dev/zero: larger than 256 MiB: not a drawlog baseline"]


def test_stats_to_s3_without_credentials_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("s3fs")
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env.update(AWS_EC2_METADATA_DISABLED="true", AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_CONFIG_FILE=str(tmp_path / "none"), HOME=str(tmp_path))
    result = run_drawlog(["stats", str(log), "--out", "s3://drawlog-no-such-bucket/stats"], env=env)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert error_lines(result.stderr) == [
        ("Error: s3://drawlog-no-such-bucket/stats: NoCredentialsError: Unable to locate credentials (credentials "
        "come from the environment, ~/.aws, gcloud: see README, Larger than one machine)")]


# --- 5. filter and replay: right answers, in linear time -----------------------------------------------------------

def _expected_valid(faults: list[dict[str, object]], ids: list[str]) -> set[str]:
    broken = {fault["match"] for fault in faults if SEVERITY[str(fault["code"])] == "error"}
    return set(ids) - broken


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), share=st.sampled_from([0.3, 0.6, 1.0]),
       hostile=st.lists(st.sampled_from(["after-end", "junk", "blank", "stranger", "bad-start-after"]), max_size=6),
       variant=st.sampled_from(["draw", "all-fives"]))
def test_filter_valid_validates_clean_and_holds_exactly_the_valid_matches(
        tmp_path_factory: pytest.TempPathFactory, seed: int, share: float, hostile: list[str], variant: str) -> None:
    folder = tmp_path_factory.mktemp("valid")
    log, faults_file = folder / "sim.jsonl", folder / "faults.json"
    made = cli("simulate", "-n", 6, "--seed", seed, "--faults", share, "--faults-file", faults_file,
               "--variant", variant, "--match-prefix", "m", "-o", log)
    assert made.exit_code == 0, made.output
    faults = json.loads(faults_file.read_text(encoding="utf-8"))
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    ids = list(dict.fromkeys(json.loads(line)["match"] for line in lines))
    ends = [index for index, line in enumerate(lines) if '"match_end"' in line]
    for number, kind in enumerate(hostile):  # lines that belong to no match, put after a match's end
        at = ends[number % len(ends)] + 1
        match = json.loads(lines[at - 1])["match"]
        extra = {"after-end": lines[at - 1],  # a second match_end: F004, its match has ended
                 "junk": "{not json\n", "blank": "\n",
                 "stranger": json.dumps({"type": "pass", "match": "nobody", "player": "p1"}) + "\n",
                 "bad-start-after": json.dumps({"type": "match_start", "match": match, "players": "p1"}) + "\n",
                 }[kind]
        lines.insert(at, extra)
        ends = [index + (index >= at) for index in ends]
    log.write_text("".join(lines), encoding="utf-8")
    out = folder / "valid.jsonl"
    assert cli("filter", log, "--valid", "-o", out, "-q").exit_code == 0
    found = drawlog.validate(str(out))
    assert found.summary.errors == 0, [f"{v.line}: {v.code} {v.message}" for v in found.violations]
    kept = [json.loads(line)["match"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert set(kept) == _expected_valid(faults, ids)
    assert found.summary.matches == len(set(kept)) == found.summary.valid_matches


def test_split_by_match_gives_distinct_ids_distinct_files(tmp_path: Path) -> None:
    ids = ["a/b", "a_b", "a b", "..", ".", "é", "_", "", "A", "a", "no-tournament", "x" * 300, "x" * 299 + "y"]
    log = tmp_path / "ids.jsonl"
    log.write_text("".join(json.dumps({"type": "match_start", "match": match, "players": ["p1", "p2"]}) + "\n"
                           for match in ids), encoding="utf-8")
    out = tmp_path / "split"
    result = cli("filter", log, "--split-by", "match", "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote {len(ids)} matches of {len(ids)} ({len(ids)} lines) to {len(ids)} files in {out}" in result.output
    files = sorted(out.iterdir())
    assert len(files) == len(ids)
    held = sorted(json.loads(path.read_text(encoding="utf-8"))["match"] for path in files)
    assert held == sorted(ids)
    names = {path.name for path in files}
    assert {"a_2Fb.jsonl", "a_5Fb.jsonl", "a_20b.jsonl", "_2E..jsonl", "_2E.jsonl", "_C3_A9.jsonl", "_5F.jsonl",
            "_.jsonl", "no-tournament.jsonl"} <= names
    assert all(len(name) <= MAX_NAME + len(".jsonl") for name in names)
    assert len({name.casefold() for name in names}) == len(names)  # a case-blind file system keeps them apart


@given(st.lists(st.one_of(st.none(), st.text(max_size=200)), max_size=30))
def test_split_names_are_one_to_one_and_safe(keys: list[str | None]) -> None:
    names = split_names(keys)
    assert len({name.casefold() for name in names.values()}) == len(names) == len(set(keys))
    for name in names.values():
        assert name and not name.startswith(".") and "/" not in name and "\x00" not in name
        assert len(name) <= MAX_NAME and name.isascii()


def test_escaped_names_keep_plain_ids_as_they_are() -> None:
    assert escaped_name("t2-000017.final") == "t2-000017.final"
    assert escaped_name("a/b") == "a_2Fb"


def test_split_by_tournament_keeps_a_tournament_named_no_tournament_apart(tmp_path: Path) -> None:
    events = [{"type": "match_start", "match": "m1", "players": ["p1", "p2"]},
              {"type": "match_start", "match": "m2", "players": ["p1", "p2"], "meta": {"tournament": "no-tournament"}}]
    log = tmp_path / "t.jsonl"
    log.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    assert cli("filter", log, "--split-by", "tournament", "-o", tmp_path / "out").exit_code == 0
    files = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert len(files) == 2 and "no-tournament.jsonl" in files
    assert json.loads((tmp_path / "out" / "no-tournament.jsonl").read_text(encoding="utf-8"))["match"] == "m1"


def test_split_does_not_list_the_folder_for_every_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The split was quadratic: each file written listed the output folder (20,000 matches: 144 s)."""
    log = tmp_path / "many.jsonl"
    log.write_text("".join(json.dumps({"type": "match_start", "match": f"m{n}", "players": ["p1", "p2"]}) + "\n"
                           for n in range(300)), encoding="utf-8")
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path: object = ".") -> object:
        listed.append(str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", counting_scandir)
    out = tmp_path / "split"
    assert cli("filter", log, "--split-by", "match", "-o", out, "-q").exit_code == 0
    assert len(list(out.iterdir())) == 300
    assert sum(1 for path in listed if Path(path).resolve() == out.resolve()) <= 2


def test_replay_of_standard_input_reads_it_once(tmp_path: Path) -> None:
    lines = b"".join(match_lines("solo"))
    shown = cli("replay", "-", input=lines)
    assert shown.exit_code == 0, shown.output
    assert "match solo" in shown.output or "solo" in shown.output
    unknown = cli("replay", "-", "--match", "nosuch", input=lines)
    assert unknown.exit_code == 2
    assert "no match 'nosuch' in -; matches in it: solo" in unknown.output


def test_replay_of_two_matches_on_standard_input_lists_both(tmp_path: Path) -> None:
    lines = b"".join(match_lines("one")) + b"".join(match_lines("two", seed=2))
    result = cli("replay", "-", "--match", "two", "--format", "json", input=lines)
    assert result.exit_code == 0
    frames = [json.loads(line) for line in result.stdout.splitlines()]
    assert frames[0]["match"] == "two" and frames[0]["type"] == "match_start"


# --- 7. selecting nothing, one file read once, outputs that last, binary data ---------------------------------------

def faulty_log(tmp_path: Path) -> Path:
    log = tmp_path / "bad.jsonl"
    lines = match_lines()
    log.write_bytes(b"".join(lines) + lines[-1])  # a match_end again: F004
    return log


@pytest.mark.parametrize("how", ["option", "config"])
def test_an_empty_selection_selects_nothing(tmp_path: Path, how: str) -> None:
    log = faulty_log(tmp_path)
    assert cli("validate", log, "--format", "concise").exit_code == 1
    if how == "option":
        result = cli("validate", log, "--select", "", "--format", "concise")
    else:
        (tmp_path / "ci.toml").write_text("select = []\n", encoding="utf-8")
        result = cli("validate", log, "--config", tmp_path / "ci.toml", "--format", "concise")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [(f"no errors: 1 file, {len(match_lines()) + 1} lines, "
                                          f"{len(match_lines()) + 1} events, 1 match (1 valid), 0 errors, 0 warnings")]


def test_an_empty_selection_says_so_when_matches_are_invalid(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    lines = match_lines()
    log.write_bytes(b"".join(lines[:-1]))  # no match_end: the match is invalid (F006)
    result = cli("validate", log, "--select", "", "--format", "concise")
    assert result.exit_code == 0
    assert result.stdout.startswith("no errors reported (select: nothing); 1 match invalid: ")


def test_an_empty_selection_keeps_extend_select(tmp_path: Path) -> None:
    result = cli("validate", faulty_log(tmp_path), "--select", "", "--extend-select", "F004", "--format", "concise")
    assert result.exit_code == 1
    assert " F004 " in result.stdout.splitlines()[0]


def test_a_path_and_a_file_url_of_the_same_file_are_read_once(tmp_path: Path) -> None:
    pytest.importorskip("fsspec")
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    for order in ([str(log), log.as_uri()], [log.as_uri(), str(log)]):
        result = cli("validate", *order, "--format", "json")
        summary = json.loads(result.stdout)["summary"]
        assert (summary["files"], summary["matches"], summary["errors"]) == (1, 1, 0)


@pytest.mark.parametrize("command", [["stats", "LOG", "--out", "memory://st"],
                                     ["validate", "LOG", "-o", "memory://report.txt"],
                                     ["filter", "LOG", "-o", "memory://kept.jsonl"]])
def test_a_memory_url_output_is_refused_before_anything_runs(tmp_path: Path, command: list[str]) -> None:
    log = tmp_path / "m.jsonl"
    log.write_bytes(b"".join(match_lines()))
    result = cli(*[str(log) if part == "LOG" else part for part in command])
    assert result.exit_code == 2
    lines = error_lines(result.output)
    assert len(lines) == 1 and "memory:// lives in this process's memory, gone when drawlog exits" in lines[0]
    assert not (tmp_path / "memory:").exists() and not Path("memory:").exists()


@pytest.mark.parametrize("at", [70_000, 2_000_000])
def test_a_nul_anywhere_on_the_first_line_is_binary_data(tmp_path: Path, at: int) -> None:
    log = tmp_path / "bin.jsonl"
    log.write_bytes(b'{"type":"x","pad":"' + b"a" * at + b'\x00"}\n' + b"".join(match_lines()))
    result = cli("validate", log, "--format", "concise")
    assert result.exit_code == 2
    assert result.stdout.splitlines()[0] == f"{log}: F007 binary data (NUL bytes), not a JSON Lines log"


def test_a_long_first_line_without_nul_is_one_f001_and_the_rest_is_read(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    log.write_bytes(b'{"type":"x","pad":"' + b"a" * 2_000_000 + b'"}\n' + b"".join(match_lines()))
    summary = json.loads(cli("validate", log, "--format", "json").stdout)["summary"]
    assert (summary["lines"], summary["matches"], summary["valid_matches"]) == (len(match_lines()) + 1, 1, 1)


def test_the_api_takes_an_empty_select_as_nothing_selected() -> None:
    """``drawlog.validate(select=[])`` reports nothing, as ``--select ''`` does; the summary still counts."""
    import drawlog

    log = Path(__file__).resolve().parents[1] / "sample_logs" / "every-violation.jsonl"
    everything = drawlog.validate(log)
    assert everything.violations
    for select in ([], [""], [" , "]):
        nothing = drawlog.validate(log, select=select)
        assert nothing.violations == [] and nothing.summary.errors == 0
        assert nothing.summary.matches == everything.summary.matches
    assert {v.code for v in drawlog.validate(log, select=["M205"]).violations} == {"M205"}
