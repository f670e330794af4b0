"""Issue 13: the Dask backend, logs and tables at URLs, and the Python API.

One LocalCluster of two worker processes (loopback only) serves the module.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import cloudpickle
import fsspec
import polars as pl
import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin
from rich.console import Console
from shared_logs import interrupted, sample_lines, write_shared_ids
from typer.testing import CliRunner

import drawlog
from drawlog.check.parts import PartOptions
from drawlog.check.validator import Validator
from drawlog.cli import app
from drawlog.log.reader import expand_paths
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave
from drawlog.tables.cluster import validate_on_cluster
from drawlog.views.progress import ValidateProgress

FILES = 8


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    with Client(cluster) as connected:
        yield connected
    cluster.close()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight simulated logs in two tournaments; the last one starts again a match of the first (F005)."""
    folder = tmp_path_factory.mktemp("logs")
    for index in range(FILES):
        simulator = Simulator(index, SimulationOptions(players="mixed", bots=("greedy", "random"),
                                                        match_prefix=f"f{index}-",
                                                        meta={"tournament": "spring" if index % 2 else "autumn"}))
        events = interleave(list(simulator.matches(4)), random.Random(index))
        (folder / f"night-{index}.jsonl").write_bytes(b"".join(encode_events(events)))
    first = (folder / "night-0.jsonl").read_bytes().splitlines(keepends=True)
    again = [line for line in first if b'"match":"f0-000001"' in line]
    with open(folder / f"night-{FILES - 1}.jsonl", "ab") as log:
        log.writelines(again)
    return folder


def frames(out: str | Path) -> dict[str, pl.DataFrame]:
    return {name: frame.collect() for name, frame in drawlog.read_stats(out).items()}


@pytest.fixture(scope="module")
def local_tables(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[drawlog.Summary, dict]:
    out = tmp_path_factory.mktemp("local") / "stats"
    summary = drawlog.write_stats([str(logs)], out)
    return summary, frames(out)


def test_the_cluster_writes_the_local_tables_row_for_row(client, logs, local_tables, tmp_path):
    summary = drawlog.write_stats([str(logs)], tmp_path / "stats", cluster=client)
    assert summary == local_tables[0]
    written = frames(tmp_path / "stats")
    for name, frame in local_tables[1].items():
        assert written[name].equals(frame), name
    assert written["matches"].height == summary.matches > 0
    parts = sorted(path.name for path in (tmp_path / "stats" / "moves").iterdir())
    assert parts == [f"part-{index:08d}.parquet" for index in range(FILES)]  # named by input order
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".")]  # no staging, no _tmp left
    assert pl.scan_parquet(tmp_path / "stats" / "moves").collect().equals(written["moves"])  # by path, through the link
    assert sorted(os.listdir(tmp_path / "stats" / ".gen-1")) == sorted([".readers.lock", "_drawlog.json", *written])


def test_a_match_started_in_two_files_is_f005_on_the_cluster_too(client, logs, local_tables):
    local = drawlog.validate(logs)
    found = drawlog.validate(logs, cluster=client.scheduler.address)  # tcp://127.0.0.1:PORT
    assert found.summary == local.summary
    assert found.violations == local.violations
    again = [violation for violation in found if violation.code == "F005"]
    assert len(again) == 1
    assert again[0].file == str(logs / f"night-{FILES - 1}.jsonl")
    first = 1 + next(number for number, line in enumerate((logs / "night-0.jsonl").read_bytes().splitlines())
                     if b'"match_start"' in line and b'"f0-000001"' in line)
    assert again[0].message == f"match f0-000001 is started a second time (first at {logs / 'night-0.jsonl'}:{first})"
    tables = local_tables[1]["violations"]
    assert tables.filter(pl.col("code") == "F005").height == 1


def test_partitioned_tables_are_the_local_ones_too(client, logs, tmp_path):
    drawlog.write_stats([str(logs)], tmp_path / "local", partition_by="tournament")
    drawlog.write_stats([str(logs)], tmp_path / "cluster", partition_by="tournament", cluster=client)
    local, cluster = frames(tmp_path / "local"), frames(tmp_path / "cluster")
    for name in local:
        assert cluster[name].equals(local[name]), name
    assert sorted(os.listdir(tmp_path / "cluster" / "matches")) == ["tournament=autumn", "tournament=spring"]


class KillOnce(WorkerPlugin):
    """Ends the worker process (os._exit) when it starts the task of a chosen file, the first time only."""

    name = "kill-once"

    def __init__(self, key_part: str, marker: str) -> None:
        self.key_part, self.marker = key_part, marker

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish == "executing" and self.key_part in str(key) and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os._exit(1)


def test_a_worker_killed_mid_run_leaves_each_match_once(client, logs, local_tables, tmp_path):
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed"
    client.register_plugin(KillOnce("drawlog-stats-2-", str(marker)))
    try:
        summary = drawlog.write_stats([str(logs)], tmp_path / "stats", cluster=client)
    finally:
        client.unregister_worker_plugin(KillOnce.name)
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists()  # a worker did die
    assert summary == local_tables[0]
    written = frames(tmp_path / "stats")
    for name, frame in local_tables[1].items():
        assert written[name].equals(frame), name
    assert written["matches"].select("file", "match").is_duplicated().sum() == 0


def test_file_urls_in_and_out_on_the_cluster(client, logs, local_tables, tmp_path):
    out = (tmp_path / "stats").as_uri()
    summary = drawlog.write_stats([logs.as_uri()], out, cluster=client)
    assert summary == local_tables[0]
    written = frames(out)
    assert written["matches"].get_column("file").to_list()[0] == f"{logs.as_uri()}/night-0.jsonl"
    for name, frame in local_tables[1].items():
        same = ["file", "path"] if name != "violations" else ["file", "path", "message"]
        assert written[name].drop(same).equals(frame.drop(same)), name


def test_memory_urls_in_and_out(logs, local_tables):
    memory = fsspec.filesystem("memory")
    for log in sorted(logs.iterdir()):
        memory.pipe_file(f"/drawlog-test/logs/{log.name}", log.read_bytes())
    memory.pipe_file("/drawlog-test/logs/deep/packed.jsonl.gz", __import__("gzip").compress(b"\n"))
    summary = drawlog.write_stats(["memory://drawlog-test/logs"], "memory://drawlog-test/stats")
    assert summary.files == FILES + 1 and summary.matches == local_tables[0].matches
    written = frames("memory://drawlog-test/stats")
    assert written["matches"].drop("file", "path").equals(local_tables[1]["matches"].drop("file", "path"))
    assert written["moves"].get_column("path")[0] == "memory://drawlog-test/logs/night-0.jsonl"
    assert memory.isfile("/drawlog-test/stats/_drawlog.json")
    assert not [name for name in memory.ls("/drawlog-test", detail=False) if ".partial-" in name]
    again = drawlog.write_stats(["memory://drawlog-test/logs/night-1.jsonl"], "memory://drawlog-test/stats")
    assert frames("memory://drawlog-test/stats")["matches"].height == again.matches < summary.matches
    memory.rm("/drawlog-test", recursive=True)


def test_a_folder_at_a_url_that_drawlog_did_not_write_is_refused(logs):
    memory = fsspec.filesystem("memory")
    memory.pipe_file("/drawlog-foreign/notes.txt", b"mine")
    with pytest.raises(drawlog.OutputError, match="holds files drawlog did not write"):
        drawlog.write_stats([str(logs)], "memory://drawlog-foreign")
    assert memory.cat_file("/drawlog-foreign/notes.txt") == b"mine"
    memory.rm("/drawlog-foreign", recursive=True)


def test_nothing_read_on_the_cluster_keeps_the_old_tables(client, logs, tmp_path):
    drawlog.write_stats([str(logs / "night-1.jsonl")], tmp_path / "stats")
    before = frames(tmp_path / "stats")
    with pytest.raises(drawlog.NothingRead):
        drawlog.write_stats([str(tmp_path / "missing.jsonl")], tmp_path / "stats", cluster=client)
    after = frames(tmp_path / "stats")
    assert all(after[name].equals(before[name]) for name in before)


def test_a_url_without_fsspec_is_one_clear_f007(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "fsspec", None)
    monkeypatch.setitem(sys.modules, "fsspec.core", None)
    found = drawlog.validate(["s3://bucket/night.jsonl"])
    assert [(violation.code, violation.message) for violation in found] == \
        [("F007", "URLs need fsspec: pip install 'drawlog[cluster]'")]


def test_validate_in_three_lines(logs):
    found = drawlog.validate(logs)
    assert not found.ok and found.summary.errors == len([v for v in found if v.severity == "error"]) == 1
    assert found.to_polars().columns == ["file", "line", "match", "round", "player", "code", "severity", "message", "follows"]


def test_read_stats_is_lazy_and_pushes_filters_down(local_tables, logs, tmp_path):
    drawlog.write_stats([str(logs)], tmp_path / "stats", partition_by="tournament")
    moves = drawlog.read_stats(tmp_path / "stats")["moves"]
    assert isinstance(moves, pl.LazyFrame)
    query = moves.filter(pl.col("match") == "f1-000002").select("ply")
    plan = query.explain()
    assert 'SELECTION: col("match") == "f1-000002"' in plan  # the filter is applied as the files are read
    assert "PROJECT 2/" in plan  # and only the columns it needs are read
    assert query.collect().height == local_tables[1]["moves"].filter(pl.col("match") == "f1-000002").height > 0


def test_replay_gives_the_frames_of_a_match(logs):
    frames_of_match = drawlog.replay(logs / "night-1.jsonl", "f1-000001")
    assert frames_of_match[0]["type"] == "match_start" and frames_of_match[0]["match"] == "f1-000001"
    assert frames_of_match[-1]["type"] == "match_end"
    with pytest.raises(ValueError, match="holds 4 matches"):
        drawlog.replay(logs / "night-1.jsonl")


# -- ids that meet across files, on the cluster: validate --cluster, keys of matches ended earlier ----------------

runner = CliRunner()


@pytest.fixture(scope="module")
def shared_ids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Logs whose match ids meet across files: a copy, a log cut mid-match, a match started twice in one file."""
    return write_shared_ids(tmp_path_factory.mktemp("shared") / "logs", copies=("a", "b"), cut=240,
                            samples=("every-violation.jsonl",))


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--color", "never"] if args[0] == "validate" else list(args))
    return result.exit_code, result.stdout


@pytest.mark.parametrize("fmt", ["json", "jsonl", "text", "concise", "sarif", "junit", "gitlab", "github"])
def test_validate_cluster_prints_what_one_process_prints(client, shared_ids, fmt):
    alone = _cli("validate", str(shared_ids), "--format", fmt)
    assert alone[0] == 1 and "F005" in alone[1]
    assert _cli("validate", str(shared_ids), "--format", fmt, "--cluster", client.scheduler.address) == alone


@pytest.mark.parametrize("options", [["--max-per-match", "1"], ["--max-per-line", "1"], ["--select", "F004,F006"],
                                     ["--statistics"], ["--exit-zero", "--max-open-matches", "1"]],
                         ids=["per-match-1", "per-line-1", "select", "statistics", "exit-zero"])
def test_validate_cluster_keeps_caps_selections_and_exit_status(client, shared_ids, options):
    alone = _cli("validate", str(shared_ids), "--format", "json", *options)
    assert _cli("validate", str(shared_ids), "--format", "json", *options, "--cluster", client.scheduler.address) \
        == alone
    assert alone[0] == (0 if "--exit-zero" in options else 1)


def test_validate_cluster_with_per_file_ignores_and_a_baseline(client, shared_ids, tmp_path):
    config = tmp_path / "drawlog.toml"
    config.write_text('[per-file-ignores]\n"b-copy.jsonl" = ["F005"]\n"d-cut-*" = ["F004"]\n')
    baseline = tmp_path / "known.json"
    assert _cli("validate", str(shared_ids / "f-every-violation.jsonl"), "--write-baseline", str(baseline),
                "-q")[0] == 0
    asked = ["validate", str(shared_ids), "--format", "json", "--config", str(config), "--baseline", str(baseline)]
    alone = _cli(*asked)
    assert _cli(*asked, "--cluster", client.scheduler.address) == alone
    found = json.loads(alone[1])
    assert found["summary"]["baselined"] > 0
    assert not [v for v in found["violations"] if v["code"] == "F005" and v["file"].endswith("b-copy.jsonl")]


def test_validate_cluster_refuses_what_it_cannot_do(client, shared_ids):
    for extra, words in ((["--fail-fast"], "drop --cluster or --fail-fast"),
                         (["-"], "not standard input"),
                         (["--cluster", "local:none"], "give local:N")):
        cluster = [] if "--cluster" in extra else ["--cluster", client.scheduler.address]
        result = runner.invoke(app, ["validate", str(shared_ids), *cluster, *extra])
        assert result.exit_code == 2 and words in result.output, result.output


def test_validate_progress_is_fed_from_the_cluster(client, shared_ids):
    inputs = list(expand_paths([str(shared_ids)]))
    progress = ValidateProgress(inputs, Console(file=open(os.devnull, "w"), force_terminal=True),  # noqa: SIM115
                                enabled=True)
    heard: list[int] = []

    def done(index: int, summary: drawlog.Summary) -> None:
        heard.append(index)
        progress.worker_read(index, 0, summary.matches, True)

    for _, violations in validate_on_cluster(inputs, client, PartOptions.of(Validator()), drawlog.Summary(), done):
        list(violations)
    assert sorted(heard) == list(range(len(inputs)))
    task = progress.progress.tasks[0]
    assert task.fields["files"] == len(inputs)
    assert task.completed == sum(path.stat().st_size for path in shared_ids.iterdir())


@pytest.mark.parametrize("options", [{}, {"max_per_match": 1}, {"codes": frozenset({"F004", "F006", "M205"})}],
                         ids=["defaults", "per-match-1", "no-F005"])
def test_stats_on_the_cluster_carry_keys_of_matches_ended_in_earlier_files(client, shared_ids, tmp_path, options):
    first = drawlog.write_stats([str(shared_ids)], tmp_path / "one", validator=Validator(**options))
    second = drawlog.write_stats([str(shared_ids)], tmp_path / "two", validator=Validator(**options), cluster=client)
    assert first == second
    local, cluster = frames(tmp_path / "one"), frames(tmp_path / "two")
    for name in local:
        assert cluster[name].equals(local[name]), name
    ended = cluster["violations"].filter((pl.col("code") == "F004") & pl.col("file").str.contains("d-cut"))
    assert ended.height and ended["message"].str.ends_with("which has ended").all()
    assert ended["tournament"].null_count() == 0  # the keys of the match an earlier file (another task) ended


def test_ctrl_c_during_validate_cluster_prints_no_traceback(shared_ids, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = "".join(sample_lines("tournament-2p.jsonl"))
    for index in range(80):
        (logs / f"{index:03d}.jsonl").write_text(lines.replace('"t2-', f'"f{index}-'), encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    status, stderr = interrupted(["validate", str(logs), "--cluster", "local:2", "--format", "json", "-o",
                                  str(tmp_path / "report.json")],
                                 lambda: bool(list(scratch.glob("drawlog-part-*"))), {"TMPDIR": str(scratch)})
    assert status == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert not (tmp_path / "report.json").exists()


# -- statistics folders at URLs: query, players, ratings, report --------------------------------------------


def test_query_players_ratings_and_report_read_a_folder_at_a_url(logs, tmp_path):
    drawlog.write_stats([str(logs)], tmp_path / "stats")
    drawlog.write_stats([str(logs)], "memory://drawlog-read/stats")
    try:
        by_tournament = "SELECT tournament, count(*) AS n FROM matches GROUP BY tournament ORDER BY tournament"
        for command in (["query", "{}", by_tournament, "--format", "csv"], ["players", "{}", "--format", "csv"],
                        ["ratings", "{}", "--format", "csv"]):
            local = _cli(*[str(tmp_path / "stats") if part == "{}" else part for part in command])
            remote = _cli(*["memory://drawlog-read/stats" if part == "{}" else part for part in command])
            assert local[0] == 0 and remote == local, command
            assert local[1].count("\n") > 2
        assert "spring" in _cli("query", "memory://drawlog-read/stats", "SELECT * FROM matches")[1]
        wrong = runner.invoke(app, ["query", "memory://drawlog-nothing", "SELECT 1"])
        assert wrong.exit_code == 2 and "not a drawlog statistics folder" in wrong.output
        page = tmp_path / "report.html"
        result = runner.invoke(app, ["report", "memory://drawlog-read/stats", "-o", str(page), "-q"])
        assert result.exit_code == 0, result.output
        assert "night-0.jsonl" in page.read_text(encoding="utf-8")
    finally:
        fsspec.filesystem("memory").rm("/drawlog-read", recursive=True)


def test_two_local_clusters_at_once_say_nothing_of_ports(tmp_path):
    """Two ``--cluster local:1`` runs at once: neither prints Dask's "Port 8787 is already in use" (each scheduler's
    HTTP server takes a free local port), and both write the same tables."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), os.environ.get("PYTHONPATH", "")])}
    runs = [subprocess.Popen([sys.executable, "-m", "drawlog", "stats", str(root / "sample_logs"), "--out",
                              str(tmp_path / f"out{index}"), "--cluster", "local:1", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for index in range(2)]
    said = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    for _, stderr in said:
        assert "already in use" not in stderr
        assert stderr.startswith("wrote ") and stderr.count("\n") == 1
    first, second = (pl.read_parquet(tmp_path / f"out{index}" / "moves" / "**" / "*.parquet") for index in range(2))
    assert first.equals(second) and first.height > 0
