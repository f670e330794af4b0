"""``stats --out DIR`` again: only new or changed inputs replayed, gone ones dropped, the tables a full rebuild's."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import MANIFEST, open_tables, write_tables
from drawlog.tables.incremental import INDEX, read_index

runner = CliRunner()
TABLES = ("matches", "rounds", "players", "moves", "violations", "deals")


def match_lines(match_id: str, seed: int) -> list[bytes]:
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))


def write_log(folder: Path, name: str, ids: list[str], seed: int = 0) -> Path:
    path = folder / name
    path.write_bytes(b"".join(line for index, match_id in enumerate(ids)
                              for line in match_lines(match_id, seed + index)))
    return path


@pytest.fixture
def league(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    for index in range(5):
        write_log(logs, f"day-{index}.jsonl", [f"d{index}-a", f"d{index}-b"], seed=10 * index)
    return logs


def tables(out: Path) -> dict[str, pl.DataFrame]:
    return {name: frame.collect() for name, frame in open_tables(out).items()}


def assert_same_tables(incremental: Path, full: Path, ordered: bool = True) -> None:
    """The same rows (sorted, and in the same order when ``ordered``) and the same summary."""
    one, two = tables(incremental), tables(full)
    assert sorted(one) == sorted(two) == sorted(TABLES)
    for name in TABLES:
        left, right = one[name], two[name].select(one[name].columns)
        assert sorted(map(repr, left.rows())) == sorted(map(repr, right.rows())), name
        if ordered:
            assert left.equals(right), name
    manifests = [json.loads((folder / MANIFEST).read_text()) for folder in (incremental, full)]
    assert manifests[0]["summary"] == manifests[1]["summary"]
    assert manifests[0]["rows"] == manifests[1]["rows"]


def counts(out: Path) -> tuple[int, int, int]:
    found = json.loads((out / MANIFEST).read_text())["incremental"]
    return found["reused"], found["replayed"], found["dropped"]


def rebuild(logs: Path | list[Path], out: Path, **options: object) -> Path:
    write_tables([logs] if isinstance(logs, Path) else logs, out, rebuild=True, **options)  # type: ignore[arg-type]
    return out


def test_a_new_file_is_all_that_is_replayed_and_its_restart_is_f005_on_its_line(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    assert counts(out) == (0, 5, 0)
    write_log(league, "day-5.jsonl", ["d5-a", "d1-b"], seed=99)  # d1-b was started in day-1.jsonl
    summary = write_tables([league], out)
    assert counts(out) == (5, 1, 0)
    assert summary.matches == 12
    full = rebuild(league, tmp_path / "full")
    assert_same_tables(out, full)
    for folder in (out, full):
        f005 = tables(folder)["violations"].filter(pl.col("code") == "F005")
        assert f005.select("file", "line", "match").rows() == [(str(league / "day-5.jsonl"), 1 + len(
            match_lines("d5-a", 99)), "d1-b")]
        assert f"{league / 'day-1.jsonl'}:" in f005["message"][0]
        restarted = tables(folder)["matches"].filter(pl.col("match") == "d1-b").sort("file")
        assert restarted["valid"].to_list() == [True, False], "the restart counts an error"
    index = read_index(out)
    assert index is not None and [note.generation for note in index.inputs] == [0, 0, 0, 0, 0, 1]
    assert sorted(path.name for path in (out / "matches").iterdir()) == ["part-00000.parquet", "part-00001.parquet"]


def table_files(out: Path) -> list[Path]:
    """The table files of the current generation (the folder ``.gen-current`` names), relative to it."""
    current = out / os.readlink(out / ".gen-current")
    return sorted(path.relative_to(current) for path in current.rglob("*.parquet"))


def test_nothing_new_replays_nothing(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    before = table_files(out)
    write_tables([league], out)
    assert counts(out) == (5, 0, 0)
    assert table_files(out) == before
    assert_same_tables(out, rebuild(league, tmp_path / "full"))


def test_a_changed_file_and_those_after_it_are_replayed(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    write_log(league, "day-2.jsonl", ["d2-a", "d0-a", "d2-c"], seed=77)  # longer, and restarts d0-a
    write_tables([league], out)
    assert counts(out) == (2, 3, 0)
    assert_same_tables(out, rebuild(league, tmp_path / "full"))


def test_a_touched_file_of_the_same_bytes_is_reused_and_same_size_other_bytes_replayed(league: Path,
                                                                                        tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    touched = league / "day-3.jsonl"
    status = touched.stat()
    os.utime(touched, ns=(status.st_atime_ns, status.st_mtime_ns + 5_000_000_000))
    write_tables([league], out)
    assert counts(out) == (5, 0, 0)
    data = touched.read_bytes()
    touched.write_bytes(data.replace(b'"d3-a"', b'"d3-x"'))  # the same size, other bytes
    os.utime(touched, ns=(status.st_atime_ns, status.st_mtime_ns + 9_000_000_000))
    write_tables([league], out)
    assert counts(out) == (3, 2, 0)
    assert "d3-x" in tables(out)["matches"]["match"].to_list()
    assert_same_tables(out, rebuild(league, tmp_path / "full"))


def test_a_file_rewritten_in_the_same_clock_tick_is_hashed_again(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    changed = league / "day-2.jsonl"
    status = changed.stat()
    changed.write_bytes(changed.read_bytes().replace(b'"d2-b"', b'"d2-z"'))  # the same size ...
    os.utime(changed, ns=(status.st_atime_ns, status.st_mtime_ns))  # ... and mtime_ns: only the bytes tell
    write_tables([league], out)
    assert counts(out) == (2, 3, 0)
    assert "d2-z" in tables(out)["matches"]["match"].to_list()


def test_a_file_gone_has_its_rows_dropped(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    (league / "day-4.jsonl").unlink()
    write_tables([league], out)
    assert counts(out) == (4, 0, 1)
    assert "d4-a" not in tables(out)["matches"]["match"].to_list()
    assert_same_tables(out, rebuild(league, tmp_path / "full"))
    (league / "day-1.jsonl").unlink()  # from the middle: its generation is filtered, the rest replayed
    write_tables([league], out)
    assert counts(out) == (1, 2, 1)
    for table in tables(out).values():
        assert not any("day-1" in (path or "") for path in table["path"].to_list())
    assert_same_tables(out, rebuild(league, tmp_path / "full"))


@pytest.mark.parametrize("options", [{"jobs": 2}, {"partition_by": "file"}, {"partition_by": "tournament"}])
def test_jobs_and_partitions_update_as_one_process_does(league: Path, tmp_path: Path, options: dict):
    out = tmp_path / "stats"
    write_tables([league], out, **options)
    write_log(league, "day-5.jsonl", ["d5-a", "d2-a"], seed=5)
    write_log(league, "day-6.jsonl", ["d6-a"], seed=6)
    write_tables([league], out, **options)
    assert counts(out) == (5, 2, 0)
    (league / "day-0.jsonl").unlink()
    write_tables([league], out, **options)
    assert counts(out) == (0, 6, 1)
    assert_same_tables(out, rebuild(league, tmp_path / "full"), ordered="partition_by" not in options)


def test_other_options_or_inputs_from_standard_input_replay_everything(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    write_tables([league], out)
    write_tables([league], out, codes=frozenset({"F005", "R301"}))
    assert counts(out) == (0, 5, 0)
    manifest = json.loads((out / MANIFEST).read_text())
    assert "checking options" in manifest["incremental"]["why_all"]
    write_tables([league], out, partition_by="variant")
    assert counts(out) == (0, 5, 0)
    write_tables([league], out, partition_by="variant")
    assert counts(out) == (5, 0, 0)


def test_the_cli_says_what_it_reused_replayed_and_dropped(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    first = runner.invoke(app, ["stats", str(league), "--out", str(out), "-q"])
    assert first.exit_code == 0, first.output
    assert "inputs: 0 reused, 5 replayed, 0 dropped (all replayed: no index of earlier inputs)" in first.output
    write_log(league, "day-5.jsonl", ["d5-a"], seed=1)
    (league / "day-0.jsonl").rename(tmp_path / "day-0.jsonl")
    second = runner.invoke(app, ["stats", str(league), "--out", str(out), "-q"])
    assert "inputs: 0 reused, 5 replayed, 1 dropped" in second.output
    third = runner.invoke(app, ["stats", str(league), "--out", str(out), "-q"])
    assert "inputs: 5 reused, 0 replayed, 0 dropped" in third.output
    forced = runner.invoke(app, ["stats", str(league), "--out", str(out), "-q", "--rebuild"])
    assert "inputs: 0 reused, 5 replayed, 0 dropped (all replayed: --rebuild)" in forced.output


def test_standard_input_keeps_no_index(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    data = (league / "day-0.jsonl").read_bytes()
    result = runner.invoke(app, ["stats", "-", str(league / "day-1.jsonl"), "--out", str(out), "-q"], input=data)
    assert result.exit_code == 0, result.output
    assert not (out / INDEX).exists()
    assert "(all replayed: standard input or a URL among the inputs)" in result.output


def test_an_unreadable_file_is_kept_and_a_missing_one_replayed_each_time(league: Path, tmp_path: Path):
    out = tmp_path / "stats"
    (league / "day-9.jsonl").write_bytes(b"\x00\x01binary")  # read, found unreadable: an F007 like any row
    inputs = [league, tmp_path / "missing.jsonl"]
    write_tables(inputs, out)
    write_tables(inputs, out)
    assert counts(out) == (6, 1, 0)
    assert tables(out)["violations"].filter(pl.col("code") == "F007").height == 2
    assert_same_tables(out, rebuild(inputs, tmp_path / "full"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(["add", "change", "drop"]), st.integers(0, 9)), min_size=1,
                      max_size=3))
def test_any_sequence_of_changes_gives_a_full_rebuilds_tables(tmp_path_factory: pytest.TempPathFactory,
                                                              steps: list[tuple[str, int]]):
    base = tmp_path_factory.mktemp("steps")
    logs = base / "logs"
    logs.mkdir()
    for index in range(3):
        write_log(logs, f"f{index}.jsonl", [f"m{index}"], seed=index)
    out = base / "stats"
    write_tables([logs], out)
    for number, (step, which) in enumerate(steps):
        present = sorted(logs.iterdir())
        if step == "add" or not present:
            write_log(logs, f"f{which}-{number}.jsonl", [f"m{which % 4}", f"n{number}"], seed=50 + number)
        elif step == "change":
            write_log(logs, present[which % len(present)].name, [f"c{number}", f"m{which % 3}"], seed=70 + number)
        else:
            present[which % len(present)].unlink()
        if not any(logs.iterdir()):
            write_log(logs, "again.jsonl", ["m0"], seed=3)
        write_tables([logs], out)
        full = base / f"full-{number}"
        assert_same_tables(out, rebuild(logs, full))
        shutil.rmtree(full)
