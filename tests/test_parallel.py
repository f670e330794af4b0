"""``--jobs``: runs in parts give what one process gives, row for row (issue 14: parallel runs; issue 11: progress).

Every test here cuts the inputs into one part a file (``SMALLEST_PART`` 1), so
match ids started in several files meet across parts, where only the parent
can see them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from rich.console import Console
from shared_logs import interrupted, write_shared_ids
from typer.testing import CliRunner

from drawlog.check import pool
from drawlog.check.parallel import validate_in_parallel
from drawlog.check.parts import CrossFile, PartFix, PartOptions
from drawlog.check.validator import Validator
from drawlog.check.violations import Summary
from drawlog.cli import app
from drawlog.log.reader import expand_paths
from drawlog.tables.dataset import open_tables, write_tables
from drawlog.views.progress import ValidateProgress

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
runner = CliRunner()


@pytest.fixture(autouse=True)
def a_part_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "SMALLEST_PART", 1)
    monkeypatch.setattr(pool, "PARTS_PER_WORKER", 1_000_000)


def _lines(name: str) -> list[str]:
    return (SAMPLES / name).read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.fixture(scope="module")
def shared_ids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Logs whose match ids meet across files: copies, a log cut mid-match, a match started twice in one file."""
    return write_shared_ids(tmp_path_factory.mktemp("shared") / "logs")


@pytest.fixture(scope="module")
def small_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 small files: the sample logs cut into runs of lines."""
    logs = tmp_path_factory.mktemp("small") / "logs"
    logs.mkdir()
    lines = [line for name in ("tournament-2p.jsonl", "tournament-4p.jsonl", "all-fives.jsonl") for line in _lines(name)]
    size = len(lines) // 300 + 1
    for index in range(300):
        (logs / f"{index:03d}.jsonl").write_text("".join(lines[index * size:(index + 1) * size]), encoding="utf-8")
    return logs


def _tables(folder: Path) -> dict[str, pl.DataFrame]:
    return {name: frame.collect() for name, frame in open_tables(folder).items()}


def _row_groups(folder: Path) -> dict[str, int]:
    return {name: pq.ParquetFile(folder / name / "part-00000.parquet").num_row_groups for name in _tables(folder)}


@pytest.fixture
def joined(monkeypatch: pytest.MonkeyPatch) -> list[PartFix]:
    """What the parent changed in each part it joined (a part a file: one each), as the run goes."""
    fixes: list[PartFix] = []
    real = CrossFile.fix
    monkeypatch.setattr(CrossFile, "fix", lambda self, result: fixes.append(real(self, result)) or fixes[-1])
    return fixes


def _both(logs: Path, tmp_path: Path, **options: object) -> tuple[Path, Path, Summary, Summary]:
    rows_per_group = options.pop("rows_per_group", 65_536)
    one, two = tmp_path / "one", tmp_path / "two"
    first = write_tables([str(logs)], one, validator=Validator(**options), rows_per_group=rows_per_group)
    second = write_tables([str(logs)], two, validator=Validator(**options), jobs=2, rows_per_group=rows_per_group)
    return one, two, first, second


def _assert_same_tables(one: Path, two: Path) -> None:
    left, right = _tables(one), _tables(two)
    for name in left:
        assert left[name].equals(right[name]), name
    assert _row_groups(one) == _row_groups(two)


# -- stats --jobs 2: the row groups of one process ----------------------------------------------------------


@pytest.mark.parametrize("rows_per_group", [64, 65_536])
def test_jobs_2_writes_the_row_groups_of_one_process(small_files: Path, tmp_path: Path, rows_per_group: int,
                                                    joined: list[PartFix]):
    one, two, first, second = _both(small_files, tmp_path, rows_per_group=rows_per_group)
    assert len(joined) == 300  # in parts, a file each
    assert first == second
    _assert_same_tables(one, two)
    groups = _row_groups(two)
    rows = json.loads((two / "_drawlog.json").read_text())["rows"]
    assert groups == {name: -(-count // rows_per_group) for name, count in rows.items()}
    assert groups["matches"] < 300  # not a row group a file


# -- match ids started in several files ----------------------------------------------------------------------


def test_ids_started_in_several_files_give_the_tables_of_one_process(shared_ids: Path, tmp_path: Path,
                                                                     joined: list[PartFix]):
    one, two, first, second = _both(shared_ids, tmp_path)
    assert len(joined) == len(list(shared_ids.iterdir()))
    copied, again = (len({json.loads(line)["match"] for line in _lines(name) if '"match_start"' in line})
                     for name in ("tournament-2p.jsonl", "every-violation.jsonl"))
    assert sum(len(fix.inserted) for fix in joined) == 2 * copied + 1 + again  # b, c, e and g: joined, not redone
    assert not any(fix.again for fix in joined)
    assert first == second
    _assert_same_tables(one, two)
    tables = _tables(two)
    f005 = tables["violations"].filter(pl.col("file").str.ends_with("b-copy.jsonl") & (pl.col("code") == "F005"))
    first_start = tables["matches"].filter(pl.col("file").str.ends_with("a-copy.jsonl")).row(0, named=True)
    again = f005.filter(pl.col("match") == first_start["match"]).row(0, named=True)
    assert again["message"] == (f"match {first_start['match']} is started a second time "
                                f"(first at {first_start['file']}:{first_start['first_line']})")
    assert again["tournament"] == "sample-cup" and again["path"] == str((shared_ids / "b-copy.jsonl").resolve())
    copies = tables["matches"].filter(pl.col("file").str.contains("-copy"))
    assert copies.filter(pl.col("file").str.ends_with("a-copy.jsonl"))["valid"].any()
    assert not copies.filter(~pl.col("file").str.ends_with("a-copy.jsonl"))["valid"].any()  # an F005 each
    ended = tables["violations"].filter((pl.col("code") == "F004") & pl.col("file").str.contains("d-cut"))
    assert ended.height and ended["message"].str.ends_with("which has ended").all()
    assert ended["tournament"].null_count() == 0  # the keys of the match the earlier file ended


@pytest.mark.parametrize("options", [{"max_per_match": 1}, {"max_per_line": 1}, {"max_per_line": 3},
                                     {"codes": ["F004", "F006", "M205"]}, {"max_open_matches": 1}],
                         ids=["per-match-1", "per-line-1", "per-line-3", "no-F005", "open-1"])
def test_caps_and_selections_give_the_tables_of_one_process(shared_ids: Path, tmp_path: Path, options: dict,
                                                           joined: list[PartFix]):
    one, two, first, second = _both(shared_ids, tmp_path, **options)
    assert len(joined) == len(list(shared_ids.iterdir()))
    assert any(fix.again for fix in joined) == ("codes" not in options and "max_open_matches" not in options)
    assert first == second
    _assert_same_tables(one, two)


def test_validate_in_parts_reports_what_one_process_reports(shared_ids: Path):
    inputs = list(expand_paths([str(shared_ids)]))
    for options in ({}, {"max_per_match": 2}, {"max_per_line": 2}, {"codes": ["F005"]}):
        validator = Validator(**options)
        expected = list(validator.validate_inputs(inputs))
        summary = Summary()
        found = [violation for _, violations in validate_in_parallel(inputs, PartOptions.of(validator), 2, summary)
                 for violation in violations]
        assert found == expected, options
        assert summary == validator.summary, options


# -- progress with --jobs -------------------------------------------------------------------------------------


def test_stats_progress_hears_of_the_workers_reading(small_files: Path, tmp_path: Path):
    validator = Validator()
    read: list[int] = []
    validator.on_block = read.append
    summary = write_tables([str(small_files)], tmp_path / "out", validator=validator, jobs=2)
    assert sum(read) == sum(path.stat().st_size for path in small_files.iterdir())
    assert len(read) >= 300  # at least as each file ends
    assert validator.summary.matches == summary.matches > 0


def test_validate_progress_counts_files_and_megabytes_from_the_workers(small_files: Path):
    inputs = list(expand_paths([str(small_files)]))
    progress = ValidateProgress(inputs, Console(file=open(os.devnull, "w"), force_terminal=True),  # noqa: SIM115
                                enabled=True)
    reports: list[tuple[int, int, int, bool]] = []

    def heard(*report: object) -> None:
        reports.append(report)  # type: ignore[arg-type]
        progress.worker_read(*report)  # type: ignore[arg-type]

    for _, violations in validate_in_parallel(inputs, PartOptions.of(Validator()), 2, Summary(), heard):
        list(violations)
    assert sorted(index for index, _, _, done in reports if done) == list(range(300))
    task = progress.progress.tasks[0]
    assert task.fields["files"] == 300
    assert task.completed == sum(path.stat().st_size for path in small_files.iterdir())


# -- validate --jobs 2 on the command line ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "text", "concise", "jsonl", "sarif", "junit"])
def test_validate_jobs_2_prints_what_jobs_1_prints(shared_ids: Path, fmt: str):
    outputs = []
    for jobs in ("1", "2"):
        result = runner.invoke(app, ["validate", str(shared_ids), "--format", fmt, "--jobs", jobs, "--color", "never"])
        assert result.exit_code == 1, result.output
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert "F005" in outputs[0]


def test_validate_takes_jobs_from_the_config(shared_ids: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from drawlog.check import parallel

    asked: list[int] = []
    real = parallel.validate_in_parallel
    monkeypatch.setattr(parallel, "validate_in_parallel",
                        lambda inputs, options, jobs, *rest: asked.append(jobs) or real(inputs, options, jobs, *rest))
    config = tmp_path / "drawlog.toml"
    config.write_text("jobs = 2\n")
    result = runner.invoke(app, ["validate", str(shared_ids), "--format", "json", "--config", str(config)])
    assert asked == ([2] if (os.cpu_count() or 1) >= 2 else [])
    alone = runner.invoke(app, ["validate", str(shared_ids), "--format", "json", "--isolated"])
    assert result.stdout == alone.stdout


def test_validate_jobs_with_fail_fast_stops_where_one_process_stops(shared_ids: Path):
    outputs = [runner.invoke(app, ["validate", str(shared_ids), "--format", "json", "--fail-fast", "-j", jobs]).stdout
               for jobs in ("1", "2")]
    assert outputs[0] == outputs[1]
    assert len(json.loads(outputs[0])["violations"]) == 1


def test_ctrl_c_during_validate_jobs_prints_no_traceback(tmp_path: Path):
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = _lines("tournament-2p.jsonl")
    for index in range(600):
        (logs / f"{index:03d}.jsonl").write_text("".join(lines).replace('"t2-', f'"f{index}-'), encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    status, stderr = interrupted(["validate", str(logs), "--jobs", "2", "--format", "json"],
                                 lambda: bool(list(scratch.glob("drawlog-validate-*/part-1"))), {"TMPDIR": str(scratch)})
    assert status == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert not list(scratch.iterdir())  # the parts' scratch folder is gone


def test_validate_jobs_2_keeps_baselines_and_per_file_ignores(shared_ids: Path, tmp_path: Path):
    config = tmp_path / "drawlog.toml"
    config.write_text('[per-file-ignores]\n"b-copy.jsonl" = ["F005"]\n"d-cut-*" = ["F004"]\n')
    baseline = tmp_path / "known.json"
    assert runner.invoke(app, ["validate", str(shared_ids / "a-copy.jsonl"), str(shared_ids / "f-every-violation.jsonl"),
                               "--write-baseline", str(baseline), "-q"]).exit_code == 0
    outputs = []
    for jobs in ("1", "2"):
        result = runner.invoke(app, ["validate", str(shared_ids), "--format", "json", "--config", str(config),
                                     "--baseline", str(baseline), "--jobs", jobs])
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    found = json.loads(outputs[0])
    assert found["summary"]["baselined"] > 0
    assert not [v for v in found["violations"] if v["code"] == "F005" and v["file"].endswith("b-copy.jsonl")]
    assert [v for v in found["violations"] if v["code"] == "F005" and v["file"].endswith("c-copy.jsonl")]


def test_an_interrupted_writer_thread_finishes_its_row_groups_before_the_files_close():
    import signal
    import threading
    import time

    from drawlog.tables.writers import WriterThread

    class Interrupted(Exception):
        pass

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    background = WriterThread()
    release, finished = threading.Event(), []
    background.submit(lambda: release.wait(10) and finished.append(True))
    previous = signal.signal(signal.SIGUSR1, interrupt)  # as a Ctrl-C would, while close() waits
    try:
        threading.Timer(0.2, lambda: (os.kill(os.getpid(), signal.SIGUSR1), time.sleep(0.2), release.set())).start()
        with pytest.raises(Interrupted):
            background.close()
        assert finished == [True]  # the row group was written whole before close() let the interruption go on
    finally:
        signal.signal(signal.SIGUSR1, previous)
