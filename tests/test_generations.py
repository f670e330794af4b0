"""Issue 26, item 6: readers never fail while ``stats`` re-runs (generation folders), and what a reader holds.

The hammer test reads a statistics folder in threads (``read_stats``, ``query``,
``players``) while ``stats`` re-runs on it with other inputs, plain,
incremental and partitioned; each read must equal one whole generation's
tables. A reader's frames are opened before a re-run and collected after it on
purpose: before generation folders, they reopened the new run's files by path
("File out of specification", a polars panic) or failed on files gone.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import drawlog
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import MANIFEST, write_tables
from drawlog.tables.generations import release_all
from drawlog.tables.reports import leaderboard, query

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
runner = CliRunner()
TABLES = ("matches", "rounds", "players", "moves", "violations", "deals")


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def write_log(path: Path, prefix: str, matches: int, seed: int, tournament: str) -> Path:
    """A log of ``matches`` clean simulated matches, ids ``PREFIX-000000`` on."""
    simulator = Simulator(seed, SimulationOptions(match_prefix=f"{prefix}-", meta={"tournament": tournament}))
    path.write_bytes(b"".join(encode_events([event for match in simulator.matches(matches) for event in match])))
    return path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    return {name: write_log(folder / f"{name}.jsonl", name, matches, seed, tournament)
            for name, matches, seed, tournament in (("a", 3, 1, "spring"), ("b", 2, 2, "fall"),
                                                   ("c", 4, 3, "spring"), ("d", 1, 4, "fall"))}


#: The runs the writer makes, in turn: (inputs, --partition-by). Incremental runs carry parts over (hard links).
RUNS = ((("a",), None), (("a", "b"), None), (("a", "b", "c"), None), (("a", "c"), None),
        (("d", "b"), "tournament"), (("a", "b"), None), (("c",), None), (("a", "b", "c", "d"), None))


def signature(frames: dict[str, pl.DataFrame]) -> tuple:
    """What tells one generation from another: the match ids of each table and the rows of each."""
    return tuple((name, tuple(sorted(frames[name]["match"].unique().to_list())), frames[name].height)
                 for name in TABLES if name != "violations")


def collected(out: Path) -> dict[str, pl.DataFrame]:
    return {name: frame.collect() for name, frame in drawlog.read_stats(out).items() if name in TABLES}


@pytest.fixture(scope="module")
def expected(logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[tuple, int]:
    """Each run's tables written alone: their signatures, by run."""
    found = {}
    for index, (names, partition_by) in enumerate(RUNS):
        out = tmp_path_factory.mktemp("alone") / "stats"
        write_tables([logs[name] for name in names], out, partition_by)
        found[signature(collected(out))] = index
    return found


def test_readers_never_fail_and_read_one_whole_generation_while_stats_reruns(logs, expected, tmp_path):
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    runs = [0]  # re-runs done so far
    done = threading.Event()
    changed = threading.Condition()
    errors: list[str] = []
    reads = {"frames": 0, "query": 0, "players": 0}
    seen: set[int] = set()

    def after_a_rerun(started: int) -> None:
        """Wait (a little) until a re-run has switched the tables since ``started``."""
        with changed:
            changed.wait_for(lambda: runs[0] != started or done.is_set(), timeout=2)

    def frames_reader() -> None:
        while not done.is_set():
            try:
                started = runs[0]
                opened = drawlog.read_stats(out)  # opened now, read after the next re-run
                after_a_rerun(started)
                frames = {name: frame.collect() for name, frame in opened.items() if name in TABLES}
                found = expected.get(signature(frames))
                if found is None:
                    errors.append(f"a mixed read: {signature(frames)}")
                else:
                    seen.add(found)
                reads["frames"] += 1
            except BaseException as error:  # noqa: BLE001 - every failure is the finding
                errors.append(f"read_stats: {type(error).__name__}: {error}")

    def sql_reader() -> None:
        sql = "SELECT (SELECT count(*) FROM matches) AS m, (SELECT count(*) FROM moves) AS v, " \
              "(SELECT count(DISTINCT match) FROM moves) AS d"
        valid = {(dict(sig)["matches"], dict(sig)["moves"]) for sig in
                 ({name: rows for name, _, rows in key} for key in expected)}
        while not done.is_set():
            try:
                row = query(out, sql).row(0)
                if (row[0], row[1]) not in valid or row[0] != row[2]:
                    errors.append(f"a mixed query: {row}")
                reads["query"] += 1
                board = leaderboard(out)
                assert board.height > 0
                reads["players"] += 1
            except BaseException as error:  # noqa: BLE001
                errors.append(f"query/players: {type(error).__name__}: {error}")

    readers = [threading.Thread(target=frames_reader) for _ in range(2)] + [threading.Thread(target=sql_reader)]
    for reader in readers:
        reader.start()
    try:
        for _ in range(2):
            for names, partition_by in RUNS[1:] + RUNS[:1]:
                write_tables([logs[name] for name in names], out, partition_by)
                with changed:
                    runs[0] += 1
                    changed.notify_all()
    finally:
        done.set()
        with changed:
            changed.notify_all()
        for reader in readers:
            reader.join()
    assert errors == [], f"{len(errors)} failed reads of {sum(reads.values())}: {errors[:5]}"
    assert reads["frames"] >= 8 and reads["query"] >= 4, reads
    assert len(seen) >= 3, "the readers read several generations"
    assert expected[signature(collected(out))] == 0, "the last run's tables"
    held = sorted(path.name for path in out.iterdir() if path.name.startswith(".gen-"))
    assert len(held) > 2, "this process holds the generations it read: they stay"
    release_all()  # (as the process's end does)
    write_tables([logs["a"]], out)
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".gen-")) == [".gen-18", ".gen-current"]


def test_a_reader_holds_its_generation_until_it_ends_and_the_next_run_collects_it(logs, tmp_path):
    release_all()
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "opened"
    write_tables([logs["a"], logs["b"]], out)
    generations = sorted(path.name for path in out.iterdir() if path.name.startswith(".gen-"))
    assert generations == [".gen-1", ".gen-2", ".gen-current"], "the generation a reader holds stays"
    assert os.readlink(out / ".gen-current") == ".gen-2"
    holder.stdin.write("read\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == "3", "the reader reads its own generation: 3 matches, not 5"
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0
    assert len(drawlog.read_stats(out)["matches"].collect()) == 5
    write_tables([logs["a"], logs["b"], logs["c"]], out)
    generations = sorted(path.name for path in out.iterdir() if path.name.startswith(".gen-"))
    assert generations == [".gen-2", ".gen-3", ".gen-current"], \
        "the next run collects the generation no reader holds (this process holds .gen-2)"


HOLD = """
import sys
import drawlog
frames = drawlog.read_stats(sys.argv[1])
print("opened", flush=True)
sys.stdin.readline()
print(frames["matches"].collect().height, flush=True)
sys.stdin.read()
"""


def test_the_layout_external_readers_see(logs, tmp_path):
    """``DIR/TABLE`` and the manifest are links through ``DIR/.gen-current``: one rename switches them all."""
    out = tmp_path / "stats"
    write_tables([logs["a"]], out, "tournament")
    write_tables([logs["a"], logs["b"]], out, "tournament")
    for name in (*TABLES, MANIFEST, "_inputs.json"):
        assert os.readlink(out / name) == f".gen-current/{name}", name
    assert os.readlink(out / ".gen-current") == ".gen-2"
    assert pl.scan_parquet(out / "matches").select(pl.len()).collect().item() == 5
    assert pl.scan_parquet(f"{out}/matches/**/*.parquet").select("tournament").unique().collect().height == 2
    assert json.loads((out / MANIFEST).read_text())["inputs"] == [str(logs["a"]), str(logs["b"])]


def test_a_shared_lock_taken_by_hand_keeps_a_generation(logs, tmp_path):
    """What README tells a user of DuckDB or polars by path who must not see the files go: ``flock -s``."""
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    generation = out / os.readlink(out / ".gen-current")
    with open(generation / ".readers.lock") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        write_tables([logs["b"]], out)
        assert pl.scan_parquet(generation / "matches").select(pl.len()).collect().item() == 3
    write_tables([logs["c"]], out)
    assert not generation.exists()
    assert cli("query", out, "SELECT count(*) AS n FROM matches", "-f", "json").stdout.strip() == '[{"n":4}]'


KILL_AT_THE_SWITCH = """
import os, sys
from pathlib import Path
from drawlog.tables.dataset import write_tables
out, moment = Path(sys.argv[2]), sys.argv[3]
real = os.rename
def rename(source, target):
    if Path(target) == out / ".gen-current" and moment == "before":
        os._exit(9)  # the new generation whole, its names linked, the switch not made
    real(source, target)
    if Path(target) == out / ".gen-current":
        os._exit(9)  # switched: the old generation not yet removed
os.rename = rename
write_tables([sys.argv[1]], out)
"""


@pytest.mark.parametrize("moment", ["before", "after"])
def test_a_run_killed_at_the_switch_leaves_one_whole_generation_and_the_next_run_tidies(logs, tmp_path, moment):
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    killed = subprocess.run([sys.executable, "-c", KILL_AT_THE_SWITCH, str(logs["c"]), str(out), moment], check=False,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert killed.returncode == 9
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".gen-") and ".new-" not in path.name) \
        == [".gen-1", ".gen-2", ".gen-current"]
    matches = 3 if moment == "before" else 4
    assert cli("query", out, "SELECT count(*) AS n FROM matches", "-f", "json").stdout.strip() == f'[{{"n":{matches}}}]'
    write_tables([logs["b"]], out)
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".")) == [".gen-3", ".gen-current"]
    assert sorted(path.name for path in out.iterdir() if not path.name.startswith(".")) == \
        sorted([*TABLES, MANIFEST, "_inputs.json"])
    assert not list(tmp_path.glob(".stats.*")), "no lock, no staging left beside"


def test_a_table_no_longer_written_loses_its_name_and_one_added_gains_it(logs, tmp_path):
    """analyze --out adds tables; a run that drops a name (here: by hand) leaves no dangling link."""
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    assert cli("analyze", logs["a"], "--out", out, "--samples", "2").exit_code == 0
    assert os.readlink(out / "decisions") == ".gen-current/decisions"
    assert pl.scan_parquet(out / "decisions").select(pl.len()).collect().item() > 0
    write_tables([logs["a"], logs["b"]], out)
    assert (out / "decisions").is_dir(), "stats keeps analyze's tables"
    generation = out / os.readlink(out / ".gen-current")
    (out / "stale").symlink_to(".gen-current/stale")  # what a run killed before its switch leaves: a name ahead
    write_tables([logs["a"]], out)
    assert not os.path.lexists(out / "stale") and not generation.exists()


@pytest.mark.parametrize("how", ["plain", "jobs", "partitioned", "incremental"])
def test_polars_and_duckdb_read_every_table_by_path_whatever_wrote_it(logs, tmp_path, how):
    """The layout promise of #24, through the links: ``pl.scan_parquet("DIR/TABLE")``, ``read_parquet('DIR/TABLE/**')``."""
    out = tmp_path / "stats"
    inputs = [logs["a"], logs["b"], logs["c"]]
    if how == "incremental":
        write_tables(inputs[:2], out)
    write_tables(inputs, out, "tournament" if how == "partitioned" else None, jobs=2 if how == "jobs" else 1)
    frames = {name: frame.collect() for name, frame in drawlog.read_stats(out).items()}
    for name in TABLES:
        by_path = pl.scan_parquet(out / name).collect()
        assert sorted(by_path.rows()) == sorted(frames[name].select(by_path.columns).rows()), name
    import duckdb  # (the test extras install it: this check always runs)

    for name in TABLES:
        found = duckdb.sql(f"SELECT count(*) FROM read_parquet('{out}/{name}/**')").fetchall()
        assert found == [(frames[name].height,)], name


def test_a_command_lets_go_of_its_generation_when_it_ends(logs, tmp_path):
    """``scoped``: what the command line wraps each command in; a hold from outside a block lasts."""
    from drawlog.tables.generations import scoped

    release_all()
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    with scoped():
        assert drawlog.read_stats(out)["matches"].collect().height == 3
        with scoped():
            drawlog.read_stats(out)
        write_tables([logs["b"]], out)
        assert (out / ".gen-1").is_dir(), "held while the block runs (an inner block's end does not let go)"
    write_tables([logs["c"]], out)
    assert not (out / ".gen-1").exists() and not (out / ".gen-2").exists()
    drawlog.read_stats(out)  # outside a block: to the end of the process
    with scoped():
        drawlog.read_stats(out)
    write_tables([logs["d"]], out)
    assert (out / ".gen-3").is_dir()
    release_all()


def test_a_ctrl_c_just_after_the_switch_keeps_the_new_generation(logs, tmp_path, monkeypatch):
    out = tmp_path / "stats"
    write_tables([logs["a"]], out)
    real = os.rename

    def rename(source, target):
        real(source, target)
        if Path(target) == out / ".gen-current":
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        write_tables([logs["c"]], out)
    monkeypatch.undo()
    assert os.readlink(out / ".gen-current") == ".gen-2" and (out / ".gen-2" / MANIFEST).is_file()
    assert cli("query", out, "SELECT count(*) AS n FROM matches", "-f", "json").stdout.strip() == '[{"n":4}]'
    write_tables([logs["b"]], out)
    assert sorted(path.name for path in out.iterdir() if path.name.startswith(".")) == [".gen-3", ".gen-current"]
