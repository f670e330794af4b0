"""Where the tables and ``-o FILE`` go (issue 14, items 9 and 10): partition folders for any value, a swap
that a kill cannot lose, one run at a time, symlinks and mount points, files written whole or not at all.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from drawlog.atomic import atomic_file
from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import MANIFEST, open_tables, write_tables
from drawlog.tables.partitions import LONGEST_NAME, NULL_NAME, escaped, folder_names

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
#: A process id no system gives (above the kernel's largest pid_max).
DEAD_PID = 4_194_305
runner = CliRunner()


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def match_lines(match_id: str, tournament: str | None = None, seed: int = 1) -> bytes:
    """A clean simulated 2-player match, its ``meta.tournament`` set when given."""
    meta = {} if tournament is None else {"tournament": tournament}
    lines = encode_events(Simulator(seed, SimulationOptions(meta=meta)).match(match_id))  # type: ignore[arg-type]
    return b"".join(lines)


def count(folder: Path) -> int:
    return json.loads(cli("query", folder, "SELECT count(*) AS n FROM matches", "-f", "json").stdout)[0]["n"]


def leftovers(folder: Path) -> list[str]:
    """drawlog's own entries beside ``folder`` and inside it: staging, set-aside tables, locks, temporary files,
    generation folders other than the current one, links on their way."""
    names = [path.name for path in folder.parent.iterdir() if path.name.startswith(f".{folder.name}.")]
    if folder.is_dir():
        current = os.readlink(folder / ".gen-current") if (folder / ".gen-current").is_symlink() else None
        names += [path.name for path in folder.iterdir() if path.name.startswith(".drawlog") or ".new-" in path.name
                  or (path.name.startswith(".gen-") and path.name not in (current, ".gen-current"))]
    return sorted(names)


def as_an_older_drawlog_wrote(folder: Path) -> None:
    """Lay the current generation's tables out as drawlog did before generation folders: directly in ``folder``."""
    generation = folder / os.readlink(folder / ".gen-current")
    for entry in sorted(folder.iterdir()):
        if entry.is_symlink():
            entry.unlink()
    for entry in sorted(generation.iterdir()):
        if entry.name != ".readers.lock":
            entry.rename(folder / entry.name)
    shutil.rmtree(generation)
    assert sorted(path.name for path in folder.iterdir() if path.name.startswith(".")) == []


# -- 9. partition values --------------------------------------------------------------------------------


def test_folder_names_escape_every_odd_byte_and_never_share() -> None:
    values = ["cup", "Cup", "a/b", "a\x00b", "a", "x~y", "Łódź", "end.", "", None, NULL_NAME, "z" * 300,
              "z" * 300 + "!", "%41"]
    names = folder_names(values)
    assert names["cup"] != names["Cup"] and names["cup"].lower() != names["Cup"].lower()
    assert names["a/b"] == "a%2Fb" and names["a\x00b"] == "a%00b" and names["a"] == "a"
    assert names["x~y"] == "x%7Ey" and names["Łódź"] == "%C5%81%C3%B3d%C5%BA" and names["end."] == "end%2E"
    assert names[None] == NULL_NAME and names[NULL_NAME] != NULL_NAME and "~" in names[NULL_NAME]
    assert names["%41"] == "%2541"
    assert len({name.lower() for name in names.values()}) == len(values)
    assert all(len(f"file={name}".encode()) <= 255 and "/" not in name and "\x00" not in name
               for name in names.values())
    assert names["z" * 300].startswith("z" * 90) and len(names["z" * 300]) <= LONGEST_NAME
    assert escaped("plain-name_1.x") == "plain-name_1.x"


def test_a_log_path_seven_folders_deep_partitions_by_file_and_reads_back_whole(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*[f"folder-{index}-" + "d" * 40 for index in range(7)])
    deep.mkdir(parents=True)
    log = deep / "games.jsonl"
    log.write_bytes(match_lines("m1") + match_lines("m2", seed=2))
    assert len(str(log).encode()) > 300
    out = tmp_path / "stats"
    result = cli("stats", log, "--out", out, "--partition-by", "file", "-q")
    assert result.exit_code == 0, result.output
    folders = [path.name for path in (out / "matches").iterdir()]
    assert len(folders) == 1 and all(len(name.encode()) <= 255 for name in folders)
    assert "~" in folders[0], "the long value is cut and hashed"
    found = json.loads(cli("query", out, "SELECT DISTINCT file, path FROM moves", "-f", "json").stdout)
    assert found == [{"file": str(log), "path": str(log)}]
    players = json.loads(cli("players", out, "--by", "file", "-f", "json").stdout)
    assert {row["file"] for row in players} == {str(log)}


def test_values_with_nul_slash_case_and_length_stay_in_folders_of_their_own(tmp_path: Path) -> None:
    tournaments = ["cup\x00a", "cup\x00b", "cup", "Cup", "a/b", "../up", NULL_NAME, "t" * 400, "t" * 400 + "u", None]
    log = tmp_path / "many.jsonl"
    log.write_bytes(b"".join(match_lines(f"m{index}", name) for index, name in enumerate(tournaments)))
    out = tmp_path / "stats"
    write_tables([log], out, partition_by="tournament")
    folders = sorted((out / "matches").iterdir())
    assert len(folders) == len(tournaments)
    assert len({folder.name.lower() for folder in folders}) == len(folders), "apart on case-blind file systems too"
    for folder in folders:
        assert len(pl.read_parquet(folder / "part-00000-0.parquet")["tournament"].unique()) == 1, folder.name
    assert not (tmp_path / "up").exists()
    tables = open_tables(out)
    for name in ("matches", "rounds", "players", "moves"):
        by_match = dict(tables[name].select("match", "tournament").unique().collect().iter_rows())
        assert by_match == {f"m{index}": value for index, value in enumerate(tournaments)}, name
    rows = json.loads(cli("query", out, "SELECT match, tournament FROM matches ORDER BY match", "-f", "json").stdout)
    assert {row["match"]: row["tournament"] for row in rows} == {f"m{i}": t for i, t in enumerate(tournaments)}


def test_tables_partitioned_by_an_older_drawlog_still_read(tmp_path: Path) -> None:
    """Older folders kept the key in folder names only (hive style): those are read as before."""
    log = tmp_path / "two.jsonl"
    log.write_bytes(match_lines("m1", "spring cup") + match_lines("m2", "fall"))
    out = tmp_path / "stats"
    write_tables([log], out, partition_by="tournament")
    for file in out.rglob("*.parquet"):
        pl.read_parquet(file).drop("tournament").write_parquet(file)
    rows = open_tables(out)["matches"].select("match", "tournament").collect().sort("match").rows()
    assert rows == [("m1", "spring cup"), ("m2", "fall")]


# -- 10. the output swap -----------------------------------------------------------------------------------


@pytest.fixture
def two_logs(tmp_path: Path) -> tuple[Path, Path]:
    """A log of one match and a log of three."""
    one, three = tmp_path / "one.jsonl", tmp_path / "three.jsonl"
    one.write_bytes(match_lines("a1"))
    three.write_bytes(match_lines("b1") + match_lines("b2", seed=2) + match_lines("b3", seed=3))
    return one, three


KILL_BETWEEN_RENAMES = """
import os, sys
from pathlib import Path
from drawlog.tables.dataset import write_tables
out = Path(sys.argv[2])
real = os.rename
def rename(source, target):
    real(source, target)
    if Path(source) == out:  # the old tables set aside, the new ones not yet in: killed here
        os._exit(9)
os.rename = rename
write_tables([sys.argv[1]], out)
"""


@pytest.mark.parametrize("then", ["query", "stats"])
def test_a_kill_between_the_two_renames_is_put_right(tmp_path: Path, two_logs: tuple[Path, Path], then: str) -> None:
    one, three = two_logs
    out = tmp_path / "stats"
    write_tables([one], out)
    as_an_older_drawlog_wrote(out)  # (a folder in generations is never renamed)
    killed = subprocess.run([sys.executable, "-c", KILL_BETWEEN_RENAMES, str(three), str(out)], check=False)
    assert killed.returncode == 9
    assert not out.exists()
    assert [name.rsplit("-", 1)[0] for name in leftovers(out)] == [".stats.lock", ".stats.old", ".stats.partial"]
    if then == "query":
        assert count(out) == 1, "the previous tables are found and put back"
    else:
        assert cli("stats", three, "--out", out, "-q").exit_code == 0
        assert count(out) == 3
    assert leftovers(out) == [], "the set-aside tables went back, the dead run's staging and its lock went"


def test_a_failure_at_the_second_rename_leaves_the_previous_tables(tmp_path: Path, two_logs: tuple[Path, Path],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    one, three = two_logs
    out = tmp_path / "stats"
    write_tables([one], out)
    as_an_older_drawlog_wrote(out)
    real, calls = os.rename, []

    def rename(source: object, target: object) -> None:
        calls.append(source)
        if len(calls) > 1:
            raise KeyboardInterrupt  # every rename after the first: not even the roll-back gets through
        real(source, target)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        write_tables([three], out)
    monkeypatch.undo()
    assert not out.exists()
    assert count(out) == 1
    assert leftovers(out) == []


def test_stale_staging_of_dead_runs_is_removed_and_a_live_runs_kept(tmp_path: Path,
                                                                    two_logs: tuple[Path, Path]) -> None:
    one, _ = two_logs
    out = tmp_path / "stats"
    dead = tmp_path / f".stats.partial-{DEAD_PID}"
    (dead / "_flat").mkdir(parents=True)
    (dead / "_flat" / "moves.parquet").write_bytes(b"half")
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".stats.partial-{alive.pid}"
        live.mkdir()
        assert cli("stats", one, "--out", out, "-q").exit_code == 0
        assert not dead.exists()
        assert live.is_dir(), "a run still alive keeps its staging folder"
    finally:
        alive.kill()
        alive.wait()
    assert cli("stats", one, "--out", out, "-q").exit_code == 0
    assert leftovers(out) == []


def test_a_second_run_on_a_locked_folder_refuses_in_one_line(tmp_path: Path, two_logs: tuple[Path, Path]) -> None:
    one, three = two_logs
    out = tmp_path / "stats"
    assert cli("stats", one, "--out", out, "-q").exit_code == 0
    lock = tmp_path / ".stats.lock"
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("4242\n")
        held.flush()
        result = cli("stats", three, "--out", out, "-q")
        assert result.exit_code == 2
        assert result.output == f"Error: another drawlog run (process 4242) is writing {out}; wait for it to end, " \
                                f"or choose another --out\n"
        assert count(out) == 1, "the tables stay, and a reader still reads them"
    assert cli("stats", three, "--out", out, "-q").exit_code == 0
    assert count(out) == 3
    assert not lock.exists(), "the lock file goes with the run"


def test_a_symlinked_out_is_written_through(tmp_path: Path, two_logs: tuple[Path, Path]) -> None:
    one, three = two_logs
    real = tmp_path / "real-stats"
    link = tmp_path / "stats"
    link.symlink_to(real, target_is_directory=True)
    for log, matches in ((one, 1), (three, 3)):
        assert cli("stats", log, "--out", link, "-q").exit_code == 0
        assert link.is_symlink() and os.readlink(link) == str(real)
        assert (real / MANIFEST).is_file()
        assert count(link) == matches
    assert leftovers(real) == [] and leftovers(link) == []


def fake_mount(monkeypatch: pytest.MonkeyPatch, mount: Path) -> None:
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == mount or real(path))


@pytest.mark.parametrize("how", ["ismount", "EBUSY"])
def test_a_mount_point_out_is_swapped_inside(tmp_path: Path, two_logs: tuple[Path, Path],
                                             monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    one, three = two_logs
    out = tmp_path / "volume"
    out.mkdir()
    if how == "ismount":
        fake_mount(monkeypatch, out)
        (out / "lost+found").mkdir()
    else:
        real = os.rename

        def rename(source: object, target: object) -> None:
            if Path(str(source)) == out:
                raise OSError(errno.EBUSY, "Device or resource busy", str(source))
            real(source, target)

        monkeypatch.setattr(os, "rename", rename)
    inode = out.stat().st_ino
    for log, matches in ((one, 1), (three, 3), (one, 1)):
        write_tables([log], out, partition_by="tournament" if matches == 3 else None)
        assert out.stat().st_ino == inode, "the folder itself stays: its contents were swapped"
        assert count(out) == matches
        assert leftovers(out) == []
    assert (out / "lost+found").is_dir() == (how == "ismount")
    assert not list((out / "matches").glob("tournament=*")), "nothing of the partitioned run is left beside the new tables"


@pytest.mark.parametrize("killed_at", [1, 4, 8, 9, 10, 14, 19])  # a folder an older drawlog wrote: renames 1-8 set
# the old tables aside, 9 marks it done, 10-19 bring the new ones in (the generation, its link, the names, the manifest last)
def test_a_swap_inside_a_mount_point_stopped_halfway_is_undone(tmp_path: Path, two_logs: tuple[Path, Path],
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               killed_at: int) -> None:
    one, three = two_logs
    out = tmp_path / "volume"
    out.mkdir()
    fake_mount(monkeypatch, out)
    write_tables([one], out)
    as_an_older_drawlog_wrote(out)
    real, calls = os.rename, []

    def rename(source: object, target: object) -> None:
        calls.append(source)
        if len(calls) == killed_at:
            raise KeyboardInterrupt
        real(source, target)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        write_tables([three], out, partition_by="tournament")
    monkeypatch.setattr(os, "rename", real)
    assert leftovers(out) == [], "undone at once"
    assert count(out) == 1, "the previous tables"
    assert sorted(path.name for path in out.iterdir()) == sorted(
        [MANIFEST, "_inputs.json", "matches", "moves", "players", "rounds", "violations", "deals"])


# -- 10. -o FILE: whole or not at all ---------------------------------------------------------------------


def test_atomic_file_keeps_the_previous_file_when_interrupted(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    with pytest.raises(KeyboardInterrupt), atomic_file(target) as handle:
        handle.write(b"half")
        raise KeyboardInterrupt
    assert not target.exists() and list(tmp_path.iterdir()) == []
    target.write_bytes(b"before\n")
    target.chmod(0o640)
    with pytest.raises(KeyboardInterrupt), atomic_file(target) as handle:
        handle.write(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"before\n" and list(tmp_path.iterdir()) == [target]
    with atomic_file(target) as handle:
        handle.write(b"after\n")
    assert target.read_bytes() == b"after\n" and target.stat().st_mode & 0o777 == 0o640


def test_atomic_file_writes_through_a_symlink_and_into_devices(tmp_path: Path) -> None:
    real, link = tmp_path / "real.txt", tmp_path / "link.txt"
    real.write_text("old")
    link.symlink_to(real)
    with atomic_file(link, "w", encoding="utf-8") as handle:
        handle.write("new")
    assert link.is_symlink() and real.read_text() == "new"
    with atomic_file(os.devnull) as handle:
        handle.write(b"nothing")
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()
    fresh = tmp_path / "fresh.txt"
    with atomic_file(fresh) as handle:
        handle.write(b"x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.fixture(scope="module")
def stats_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stats")
    log = folder / "log.jsonl"
    log.write_bytes(match_lines("m1") + match_lines("m2", seed=2))
    write_tables([log], folder / "stats")
    return folder / "stats"


def interrupt_after_writing(monkeypatch: pytest.MonkeyPatch, where: object, name: str) -> None:
    """Make ``where.name`` write a few bytes to its stream argument, then be interrupted (Ctrl-C)."""
    def interrupted(*args: object, **kwargs: object) -> None:
        stream = next(arg for arg in (*args, *kwargs.values()) if hasattr(arg, "write"))
        stream.write(b"half a table")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(where, name, interrupted)


@pytest.mark.parametrize("command", ["query", "players", "ratings"])
def test_an_interrupted_table_output_leaves_no_file_and_keeps_the_old_one(
        stats_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    from drawlog.views import frames

    args = [command, stats_folder, *(["SELECT * FROM matches"] if command == "query" else [])]
    interrupt_after_writing(monkeypatch, frames, "_encode_frame")
    fresh, kept = tmp_path / "new.csv", tmp_path / "kept.csv"
    kept.write_text("previous\n")
    for target in (fresh, kept):
        result = runner.invoke(app, [str(arg) for arg in [*args, "-o", target]], env=ENV)
        assert result.exit_code != 0
    assert not fresh.exists() and kept.read_text() == "previous\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["kept.csv"]
    monkeypatch.undo()
    assert cli(*args, "-o", fresh).exit_code == 0 and fresh.read_text().count("\n") >= 2


def test_an_interrupted_validate_report_leaves_no_file_and_keeps_the_old_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from drawlog.check.validator import Validator

    log = tmp_path / "bad.jsonl"
    log.write_bytes(b"not json\n" * 5 + match_lines("m1"))
    original = Validator.validate_inputs

    def interrupted(self, inputs):
        for index, violation in enumerate(original(self, inputs)):
            yield violation
            if index == 2:
                raise KeyboardInterrupt

    monkeypatch.setattr(Validator, "validate_inputs", interrupted)
    fresh, kept = tmp_path / "report.txt", tmp_path / "kept.json"
    kept.write_text("previous\n")
    for target, fmt in ((fresh, "text"), (kept, "json")):
        result = cli("validate", log, "-o", target, "-f", fmt, "-q")
        assert result.exit_code == 130
    assert not fresh.exists() and kept.read_text() == "previous\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.jsonl", "kept.json"]
    monkeypatch.undo()
    assert cli("validate", log, "-o", fresh, "-f", "concise", "-q").exit_code == 1
    assert fresh.read_text().count(f"{log}:") == 5


@pytest.mark.parametrize("name", ["games.jsonl", "games.jsonl.gz", "games.jsonl.zst"])
def test_an_interrupted_simulate_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    from drawlog.play import recording  # (the command imports it when it runs: patched where it lives)

    interrupt_after_writing(monkeypatch, recording, "record")
    target = tmp_path / name
    result = runner.invoke(app, ["simulate", "-n", "3", "-o", str(target), "-q"], env=ENV)
    assert result.exit_code != 0
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_filter_keeps_the_previous_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib

    from drawlog.play import recording as logs  # (the command imports open_output when it runs)

    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1") + match_lines("m2", seed=2))
    target = tmp_path / "chosen.jsonl"
    target.write_text("previous\n")
    real = logs.open_output

    class Breaking:
        def __init__(self, stream: object) -> None:
            self.stream = stream

        def write(self, data: bytes) -> None:
            self.stream.write(data[:10])  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def interrupted(path: str):
        with real(path) as stream:
            yield Breaking(stream)

    monkeypatch.setattr(logs, "open_output", interrupted)
    result = runner.invoke(app, ["filter", str(log), "--match", "m1", "-o", str(target), "-q"], env=ENV)
    assert result.exit_code != 0
    assert target.read_text() == "previous\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["chosen.jsonl", "log.jsonl"]


@pytest.mark.skipif(sys.platform == "win32", reason="the limit of open files is POSIX")
def test_many_partitions_under_a_low_limit_of_open_files(tmp_path: Path) -> None:
    """Arrow kept up to 1,024 partition files open: under `ulimit -n 1024` a run of ~1,000 partitions hung for ever
    (with 256, it failed). The files kept open now stay well under the limit."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for index in range(300):
        (logs / f"{index:03d}.jsonl").write_bytes(match_lines(f"f{index}"))
    out = tmp_path / "out"
    code = ("import resource, sys\nresource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit("
            "resource.RLIMIT_NOFILE)[1]))\nfrom drawlog.cli import main\nsys.argv[0] = 'drawlog'\nmain()")
    proc = subprocess.run([sys.executable, "-c", code, "stats", str(logs), "--out", str(out), "--partition-by",
                           "file", "-q"], capture_output=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(list((out / "matches").iterdir())) == 300
    assert count(out) == 300


def test_an_input_inside_out_is_refused_not_deleted(tmp_path: Path) -> None:
    """The run replaces --out whole: a log kept in it was deleted without a word."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1"))
    out = tmp_path / "stats"
    assert cli("stats", log, "--out", out, "-q").exit_code == 0
    kept = out / "mine.jsonl"
    kept.write_bytes(match_lines("m2"))
    for inputs in ([kept], [out], [log, out]):
        result = cli("stats", *inputs, "--out", out, "-q")
        assert result.exit_code == 2 and "which the run replaces whole" in result.output
    assert kept.read_bytes() == match_lines("m2")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_the_tables_keep_the_permissions_and_group_of_the_folder_they_replace(tmp_path: Path) -> None:
    import grp

    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1"))
    out = tmp_path / "shared"
    out.mkdir()
    group = next((entry.gr_gid for entry in grp.getgrall() if entry.gr_gid != os.getgid()), os.getgid())
    try:
        os.chown(out, -1, group)
    except PermissionError:
        group = os.stat(out).st_gid
    os.chmod(out, 0o2770)
    for _ in range(2):  # the empty folder, then the folder of tables
        assert cli("stats", log, "--out", out, "-q").exit_code == 0
        status = os.stat(out)
        assert (oct(status.st_mode & 0o7777), status.st_gid) == (oct(0o2770), group)


def test_a_loop_of_symbolic_links_as_out_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1"))
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    result = cli("stats", log, "--out", tmp_path / "loop1", "-q")
    assert result.exit_code == 2 and "too many levels of symbolic links" in result.output
    assert (tmp_path / "loop1").is_symlink()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["log.jsonl", "loop1", "loop2"]


def test_what_a_killed_write_of_a_file_left_is_removed_by_the_next(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    left = tmp_path / f".report.json.{dead}.abcd1234.tmp"
    alive = tmp_path / f".report.json.{os.getppid()}.wxyz5678.tmp"  # a run still writing it
    other = tmp_path / f".other.json.{dead}.abcd1234.tmp"
    for path in (left, alive, other):
        path.write_text("half")
    with atomic_file(target) as handle:
        handle.write(b"{}")
    assert target.read_bytes() == b"{}"
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([target.name, alive.name, other.name])


def test_an_out_name_too_long_for_the_names_beside_it_works(tmp_path: Path) -> None:
    """The lock and staging names add up to 22 bytes to --out's: a 250-byte name failed (and left its lock)."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1"))
    out = tmp_path / ("d" * 250)
    for _ in range(2):
        assert cli("stats", log, "--out", out, "-q").exit_code == 0
    assert count(out) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["log.jsonl", out.name])


SETPRIV = ["setpriv", "--inh-caps=-dac_override,-dac_read_search,-fowner",
           "--bounding-set=-dac_override,-dac_read_search,-fowner"]


@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0 or not any(
    os.access(os.path.join(folder, "setpriv"), os.X_OK) for folder in os.environ.get("PATH", "").split(os.pathsep)),
    reason="drops root's power over permissions with setpriv")
def test_an_out_folder_in_a_parent_it_may_not_write_is_written_inside(tmp_path: Path) -> None:
    """The lock and staging folder went beside --out, in its parent: a writable folder in a closed parent was
    refused. They go inside it then, as for a mount point."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(match_lines("m1"))
    parent = tmp_path / "parent"
    out = parent / "stats"
    out.mkdir(parents=True)
    os.chown(parent, 65534, -1)  # nobody's: root without its capabilities may not write there
    os.chmod(parent, 0o755)
    command = [*SETPRIV, sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; "
               "main()", "stats", str(log), "--out", str(out), "-q"]
    for _ in range(2):
        proc = subprocess.run(command, capture_output=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr.decode()
    assert count(out) == 1
    assert sorted(path.name for path in parent.iterdir()) == ["stats"]
    assert not [name for name in os.listdir(out) if name.startswith(".drawlog")]


def test_a_tournament_that_is_not_a_string_is_kept_as_its_json(tmp_path: Path) -> None:
    """meta is free-form: a tournament of true was stored as Python's "True"."""
    lines = []
    for index, tournament in enumerate([True, {"cup": 1}, "spring", None]):
        for line in match_lines(f"m{index}").splitlines(keepends=True):
            event = json.loads(line)
            if event["type"] == "match_start" and tournament is not None:
                event["meta"] = {"tournament": tournament}
            lines.append(json.dumps(event) + "\n")
    log = tmp_path / "log.jsonl"
    log.write_text("".join(lines))
    out = tmp_path / "stats"
    assert cli("stats", log, "--out", out, "-q").exit_code == 0
    table = pl.read_parquet(out / "matches" / "part-00000.parquet").sort("match")
    assert table["tournament"].to_list() == ["true", '{"cup":1}', "spring", None]
