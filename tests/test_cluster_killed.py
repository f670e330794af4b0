"""Issue 26, item 6: workers of a ``--cluster local:N`` run killed mid-run give one line, exit 2, the old tables intact.

Before, the run printed dask's tracebacks (``Nanny failed to start``,
``KilledWorker``) and its log lines, or waited for ever for workers that were
gone. Each test starts its own cluster (the command's ``local:2``) and kills
its worker processes from outside, as the OOM killer or an operator does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from shared_logs import sample_lines

pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="finds the workers in Linux's /proc")

COMMAND = [sys.executable, "-c", "from drawlog.cli import main; main()"]


def drawlog(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, timeout=120, check=False)


def descendants(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found += [int(child), *descendants(int(child))]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


def kill_workers(pid: int) -> int:
    """SIGKILL the worker processes under ``pid`` (not the resource tracker); how many."""
    killed = 0
    for child in descendants(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"spawn_main" in command:
                os.kill(child, signal.SIGKILL)
                killed += 1
        except (FileNotFoundError, ProcessLookupError):
            continue
    return killed


@pytest.fixture()
def league(tmp_path: Path) -> tuple[Path, Path]:
    """Eighty logs, and a statistics folder of the first one."""
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = "".join(sample_lines("tournament-2p.jsonl"))
    for index in range(80):
        (logs / f"{index:03d}.jsonl").write_text(lines.replace('"t2-', f'"f{index}-'), encoding="utf-8")
    out = tmp_path / "stats"
    assert drawlog("stats", logs / "000.jsonl", "--out", out, "-q").returncode == 0
    return logs, out


def matches(out: Path) -> int:
    found = drawlog("query", out, "SELECT count(*) AS n FROM matches", "-f", "json")
    assert found.returncode == 0, found.stderr
    return int(json.loads(found.stdout)[0]["n"])


def run_killing(logs: Path, out: Path, started: float, every: float) -> tuple[int, str, int]:
    """``stats --cluster local:2``, its workers killed every ``every`` s once the first task started (``started``:
    0 kills them from the first moment); the exit status, standard error and how many were killed.

    Dask gives a task up when a worker dies running it (no retries: ``allowed-failures`` 0), so that the first
    kill mid-run is enough, whatever the timing.
    """
    env = {**os.environ, "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"}
    proc = subprocess.Popen([*COMMAND, "stats", str(logs), "--out", str(out), "--cluster", "local:2", "-q"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=env)
    try:
        deadline = time.monotonic() + 90
        while started and proc.poll() is None and time.monotonic() < deadline \
                and not list(out.parent.glob("**/_tmp/*")):  # a task writes its part: the run is under way
            time.sleep(0.01)
        killed = 0
        while proc.poll() is None and time.monotonic() < deadline:
            killed += kill_workers(proc.pid)
            time.sleep(every)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, stderr, killed


def assert_one_line_failure(status: int, stderr: str, killed: int) -> None:
    """At least one worker was killed, and the run failed with exit 2 and one line, no traceback."""
    assert killed >= 1
    assert status == 2, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr


def test_workers_killed_mid_run_are_one_line_and_the_old_tables_stay(league):
    logs, out = league
    status, stderr, killed = run_killing(logs, out, started=1, every=0.5)
    assert_one_line_failure(status, stderr, killed)
    assert stderr.startswith("Error: --cluster local:2: "), stderr
    assert "KilledWorker" in stderr or "every worker died" in stderr, stderr
    assert stderr.rstrip().endswith("the run was given up (the old tables, or -o file, are as they were)")
    assert matches(out) == 3, "the old tables"
    assert not [name for name in os.listdir(out.parent) if name.startswith(".stats.partial")]


def test_workers_killed_as_they_start_are_one_line_too(league):
    logs, out = league
    status, stderr, killed = run_killing(logs, out, started=0, every=0.05)
    assert_one_line_failure(status, stderr, killed)
    assert any(said in stderr for said in ("a worker did not start (Nanny failed to start", "every worker died",
                                           "KilledWorker")), stderr
    assert matches(out) == 3


def test_each_failure_of_dask_is_named_in_a_few_words():
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    from drawlog.errors import ClusterFailed
    from drawlog.tables.cluster import _failures_said

    cases = [(KilledWorker("drawlog-stats-3-ab", "tcp://127.0.0.1:1", 3),
              "the workers died (KilledWorker: the workers running drawlog-stats-3-ab died, and dask gave it up)"),
             (CommClosedError("in <TCP (closed)>: Stream is closed"),
              ("the connection to a worker or the scheduler was lost (CommClosedError: in <TCP (closed)>: Stream is "
               "closed)")),
             (RuntimeError("Nanny failed to start."),
              "a worker did not start (Nanny failed to start: its process was killed or could not run)")]
    for error, said in cases:
        with pytest.raises(ClusterFailed) as raised, _failures_said("--cluster local:2"):
            raise error
        assert str(raised.value) == f"--cluster local:2: {said}; the run was given up (the old tables, or -o file, " \
                                    f"are as they were)"
    with pytest.raises(ValueError, match="not dask's"), _failures_said("--cluster local:2"):
        raise ValueError("not dask's")
