"""Issue 25: ``audit`` takes validate's --baseline, --write-baseline, --extend-select, --extend-ignore, and
gives one JSON document with ``--format json``; every command's main output is ``-o/--output``."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.cli import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
EVERY = SAMPLES / "every-violation.jsonl"
runner = CliRunner()


def _run(*args: object) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.stdout, result.stderr


def _validate_summary(*args: object) -> dict:
    code, out, _ = _run("validate", *args, "-f", "json", "-q")
    assert code in (0, 1)
    return json.loads(out)["summary"]


def _audit_json(*args: object) -> tuple[int, dict]:
    code, out, err = _run("audit", *args, "-f", "json", "-q")
    assert code in (0, 1), err
    assert out.count("\n") == 1  # one JSON document, one line
    return code, json.loads(out)


@pytest.fixture(scope="module")
def known(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A baseline of the sample logs' M violations, written by validate."""
    target = tmp_path_factory.mktemp("known") / "known.json"
    assert _run("validate", SAMPLES, "--select", "M", "--write-baseline", target)[0] == 0
    return target


# -- --format json: validate's summary, the tables and their rows -------------------------------------------

def test_audit_json_is_validates_summary_and_the_tables_written(tmp_path: Path):
    out = tmp_path / "stats"
    code, document = _audit_json(SAMPLES, "-o", out)
    assert code == 1  # errors found, as validate
    assert document["summary"] == _validate_summary(SAMPLES)
    assert document["out"] == str(out)
    rows = {name: pl.scan_parquet(out / name / "**" / "*.parquet").select(pl.len()).collect().item()
            for name in ("matches", "rounds", "players", "moves", "violations", "deals")}
    assert document["tables"] == {name: {"rows": count} for name, count in rows.items()}
    assert rows["matches"] == 58 and rows["violations"] == 38
    assert document["inputs"] == {"reused": 0, "replayed": 7, "dropped": 0,
                                  "why_all": "no index of earlier inputs"}
    assert {item["variant"]: item["matches"] for item in document["variants"]} == {"all-fives": 9, "draw": 49}
    assert sum(item["count"] for item in document["by_code"]) == 38
    assert document["files"] == [{"file": str(EVERY), "errors": 33}]
    assert _audit_json(SAMPLES, "-o", out, "--exit-zero")[0] == 0
    assert _audit_json(SAMPLES / "tournament-2p.jsonl", "-o", tmp_path / "clean")[0] == 0


# -- --baseline: counted, not shown, not failing -------------------------------------------------------------

def test_audit_baseline_of_everything_passes_and_shows_no_violation(tmp_path: Path):
    every = tmp_path / "all.json"
    assert _run("validate", SAMPLES, "--write-baseline", every)[0] == 0
    code, out, _ = _run("audit", SAMPLES, "-o", tmp_path / "stats", "--baseline", every, "-q")
    assert code == 0
    assert out.splitlines()[1] == ("7 files, 7,403 lines, 7,396 events, 7 lines skipped (5 blank, 2 invalid), "
                                   "58 matches (29 valid), 0 errors, 0 warnings, 38 in the baseline, not shown")
    assert "violations by code" not in out and "files with most errors" not in out
    # the table still holds every violation: the baseline screens the report, not the data
    assert pl.scan_parquet(tmp_path / "stats" / "violations" / "**" / "*.parquet").select(pl.len()).collect().item() \
        == 38


def test_audit_baseline_reports_as_validate_does(tmp_path: Path, known: Path):
    expected = _validate_summary(SAMPLES, "--baseline", known)
    code, document = _audit_json(SAMPLES, "-o", tmp_path / "stats", "--baseline", known)
    assert code == 1  # the F, R, S errors are new
    assert document["summary"] == expected
    assert expected["baselined"] == 14 and expected["errors"] == 19 and expected["warnings"] == 5
    codes = {item["code"] for item in document["by_code"]}
    assert codes and not any(code.startswith("M") for code in codes)
    assert document["files"] == [{"file": str(EVERY), "errors": 19}]
    assert document["tables"]["violations"] == {"rows": 38}


def test_audit_baseline_warnings_only_pass_unless_strict(tmp_path: Path):
    errors = tmp_path / "errors.json"
    assert _run("validate", SAMPLES, "--ignore", "W", "--write-baseline", errors)[0] == 0
    assert _run("audit", SAMPLES, "-o", tmp_path / "a", "--baseline", errors, "-q")[0] == 0
    assert _run("audit", SAMPLES, "-o", tmp_path / "b", "--baseline", errors, "-q", "--strict")[0] == 1


def test_a_bad_baseline_is_one_line_and_exit_2_before_any_table(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]\n")
    code, out, err = _run("audit", SAMPLES, "-o", tmp_path / "stats", "--baseline", bad)
    assert code == 2 and out == ""
    assert err == (f"Error: {bad} is not a drawlog baseline (version 1): write one with "
                   f"`drawlog validate LOGS --write-baseline {bad}`\n")
    assert not (tmp_path / "stats").exists()
    assert _run("audit", SAMPLES, "-o", tmp_path / "stats", "--baseline", tmp_path / "none.json")[0] == 2


# -- --write-baseline: the file validate writes, one line ------------------------------------------------------

def test_audit_write_baseline_writes_validates_baseline_in_one_line(tmp_path: Path, known: Path):
    target = tmp_path / "audit.json"
    code, out, err = _run("audit", SAMPLES, "-o", tmp_path / "stats", "--select", "M", "--write-baseline", target)
    assert (code, out) == (0, "")
    assert err.splitlines()[0].startswith(f"wrote 14 violations to the baseline {target} (7 files, 7,403 lines")
    assert err.count("\n") == 1  # the only line, as validate's
    assert target.read_text() == known.read_text()
    assert (tmp_path / "stats" / "violations").is_dir()  # the tables are written all the same
    quiet = _run("audit", SAMPLES, "-o", tmp_path / "stats", "--write-baseline", target, "-q")
    assert quiet == (0, "", "")
    refused = _run("audit", SAMPLES, "-o", tmp_path / "s2", "--write-baseline", target, "-f", "json")
    assert refused[0] == 2 and "drop --format json" in refused[2]
    clobber = _run("audit", EVERY, "-o", tmp_path / "s3", "--write-baseline", EVERY)
    assert clobber[0] == 2 and EVERY.stat().st_size > 0


# -- --extend-select, --extend-ignore: as validate ----------------------------------------------------------------

@pytest.mark.parametrize("options", [
    ["--select", "M", "--extend-select", "W401", "--extend-ignore", "M209"],
    ["--extend-ignore", "F,S"],
    ["--select", "R", "--extend-select", "W"],
])
def test_audit_extend_options_report_what_validate_reports(tmp_path: Path, options: list[str]):
    expected = _validate_summary(SAMPLES, *options)
    _, document = _audit_json(SAMPLES, "-o", tmp_path / "stats", *options)
    assert document["summary"] == expected
    _, out, _ = _run("validate", SAMPLES, *options, "--statistics", "-f", "json", "-q")
    by_code = {row["code"]: row["count"] for row in json.loads(out)["statistics"]}
    assert {row["code"]: row["count"] for row in document["by_code"]} == by_code
    assert document["tables"]["violations"] == {"rows": expected["violations"]}


def test_extend_select_comes_from_the_configuration_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "drawlog.toml").write_text('select = ["R"]\nextend-select = ["W401"]\n')
    monkeypatch.chdir(tmp_path)
    _, document = _audit_json(SAMPLES, "-o", tmp_path / "stats")
    assert {row["code"] for row in document["by_code"]} == {f"R30{n}" for n in range(1, 9)} | {"W401"}


# -- -o/--output: every command's main output, old names kept --------------------------------------------------

def test_stats_and_audit_take_output_as_well_as_out(tmp_path: Path):
    for command, extra in (("stats", []), ("audit", ["--exit-zero", "-q"])):
        for option in ("-o", "--out", "--output"):
            folder = tmp_path / f"{command}{option}"
            assert _run(command, SAMPLES / "tournament-2p.jsonl", option, folder, *extra)[0] == 0
            assert (folder / "_drawlog.json").is_file()


def test_validate_takes_output_as_well_as_output_file(tmp_path: Path):
    written = []
    for option in ("-o", "--output", "--output-file"):
        target = tmp_path / f"report{option}.txt"
        code, out, _ = _run("validate", EVERY, "--format", "concise", option, target)
        assert (code, out) == (1, "")
        written.append(target.read_text())
    assert written[0] == written[1] == written[2] and written[0].startswith(f"{EVERY}:")


def test_every_command_writing_a_file_or_folder_takes_o_and_output():
    """The README's table "what -o writes" names every command that takes -o, and each takes --output too."""
    import re

    import typer.main

    group = typer.main.get_command(app)  # (every command module imported)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("**What `-o` writes.**", 1)[1].split("\n\n", 2)[1]
    documented = dict(re.findall(r"^\| `drawlog ([a-z0-9]+)` \| (.+?) \|", section, flags=re.MULTILINE))
    taking = set()
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            if "-o" in getattr(param, "opts", []):
                assert "--output" in param.opts, name
                taking.add(name)
    assert taking == set(documented) - {"analyze"}
    assert "analyze" in documented  # (no -o: its report goes to standard output; the README says so)
