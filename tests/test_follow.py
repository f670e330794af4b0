"""``drawlog validate --follow``: a log validated while it is written (``drawlog.check.follow``, ``drawlog.log.tail``).

Nothing here is timed: a violation must arrive before the writer goes on (a
queue with a generous timeout only keeps a broken build from hanging), and
"nothing yet" is checked once the follower has been idle twice, not after a
sleep. The delays from a write to its violation are measured in
``bench/bench_follow.py``.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
from itertools import pairwise
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from drawlog.check.follow import follow
from drawlog.check.validator import Validator
from drawlog.cli import app
from drawlog.log.tail import Tail
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

SRC = Path(__file__).resolve().parent.parent / "src"
SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
#: Long enough for any machine, however loaded: only a hang waits this long.
PATIENCE = 30
START = b'{"type":"match_start","match":"open","players":["ann","bob"]}\n'
ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
EVERY_VIOLATION = (SAMPLES / "every-violation.jsonl").read_bytes()


def clean_match(match_id: str = "m1", seed: int = 3) -> list[bytes]:
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))


class Follower:
    """``follow`` run in a thread: its violations in a queue (None once it ends), its notices and idle moments."""

    def __init__(self, path: Path | str, **options: object) -> None:
        self.validator = Validator(**options)  # type: ignore[arg-type]
        self.found: queue.Queue[object] = queue.Queue()
        self.notices: queue.Queue[str] = queue.Queue()
        self.idle = threading.Condition()
        self.idles = 0
        self.tail = Tail(str(path), name="log.jsonl", poll=0.01, on_notice=self.notices.put, on_idle=self._idle)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _idle(self) -> None:
        with self.idle:
            self.idles += 1
            self.idle.notify_all()

    def _run(self) -> None:
        try:
            for violation in follow(self.validator, self.tail):
                self.found.put(violation)
        finally:
            self.found.put(None)

    def next(self) -> tuple[str, int | None, str | None]:
        violation = self.found.get(timeout=PATIENCE)
        assert violation is not None, "following ended early"
        return violation.code, violation.line, violation.match  # type: ignore[attr-defined]

    def settle(self) -> None:
        """Wait until the follower has read everything written before now (two idle moments from now on)."""
        with self.idle:
            goal = self.idles + 2
            assert self.idle.wait_for(lambda: self.idles >= goal, timeout=PATIENCE)

    def stop(self) -> list[tuple[str, int | None, str | None]]:
        """Stop following; the violations reported since the last ``next`` (F006 of the matches left open)."""
        return [(violation.code, violation.line, violation.match) for violation in self.stop_all()]

    def stop_all(self) -> list[object]:
        """Stop following; every violation not taken yet."""
        self.tail.stop.set()
        self.thread.join(PATIENCE)
        assert not self.thread.is_alive()
        return list(iter(self.found.get_nowait, None))


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


# -- following a file ---------------------------------------------------------------------


def test_each_violation_arrives_in_order_before_the_writer_writes_the_next_line(tmp_path):
    """A writer thread appends a match with delays, a bad line every few lines, and waits for each violation."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"")
    lines = clean_match()
    bad_at = set(range(3, len(lines), 7))  # a line that is not JSON after every 6 good ones
    written: list[bytes] = []
    for index, line in enumerate(lines):
        if index in bad_at:
            written.append(b"not json %d\n" % index)
        written.append(line)
    follower = Follower(path)
    arrived: list[tuple[str, int | None, str | None]] = []
    late: list[int] = []

    def writer() -> None:
        for number, line in enumerate(written, 1):
            append(path, line)
            threading.Event().wait(0.002 * (number % 5))  # uneven delays
            if line.startswith(b"not json"):
                try:
                    arrived.append(follower.next())  # before the next line is written
                except queue.Empty:
                    late.append(number)

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join(PATIENCE * 5)
    assert late == []
    expected = [number for number, line in enumerate(written, 1) if line.startswith(b"not json")]
    assert arrived == [("F001", number, None) for number in expected]
    follower.settle()
    assert follower.stop() == []  # the match ended: nothing left open
    summary = follower.validator.summary
    assert (summary.files, summary.lines, summary.errors, summary.matches) == (1, len(written), len(expected), 1)


def test_a_line_without_its_newline_waits_for_it(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"{}\n")
    follower = Follower(path)
    assert follower.next()[:2] == ("F002", 1)
    append(path, b"not json")
    follower.settle()
    assert follower.found.empty()  # the line is not whole yet
    append(path, b" at all\n")
    assert follower.next() == ("F001", 2, None)
    assert follower.stop() == []


def test_the_matches_open_are_reported_when_following_stops(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(START)
    follower = Follower(path)
    follower.settle()
    assert follower.found.empty()  # an F006 is only known once the file is left
    assert follower.stop() == [("F006", 1, "open")]


def test_a_truncated_file_is_read_again_from_its_start(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(START + b"not json\n")
    follower = Follower(path)
    assert follower.next() == ("F001", 2, None)
    path.write_bytes(b"")  # truncated (as logrotate's copytruncate does), then written again
    follower.settle()
    assert follower.notices.get(timeout=PATIENCE) == "log.jsonl was truncated: reading it again from its start"
    assert follower.next() == ("F006", 1, "open")  # the match left open in what was cut away
    append(path, b"bad\n")
    assert follower.next() == ("F001", 1, None)  # the new lines count from 1
    assert follower.stop() == []
    assert (follower.validator.summary.files, follower.validator.summary.lines) == (2, 3)


def test_a_rotated_file_is_read_to_its_end_then_the_new_one_from_its_start(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(START + b"not json\n")
    follower = Follower(path)
    assert follower.next() == ("F001", 2, None)
    os.rename(path, tmp_path / "log.jsonl.1")
    append(tmp_path / "log.jsonl.1", b"late line of the old file\n")  # the server writes on before it reopens
    path.write_bytes(b"")
    append(path, START.replace(b"open", b"next") + b"bad\n")
    assert follower.next() == ("F001", 3, None)  # the old file's last line first
    assert follower.next() == ("F006", 1, "open")  # its open match, as the old file is left
    assert follower.next() == ("F001", 2, None)  # the new file, from its first line
    notices = [follower.notices.get(timeout=PATIENCE) for _ in range(follower.notices.qsize())]
    assert notices[-1] == "log.jsonl was replaced (rotated): following the new file from its start"
    assert follower.stop() == [("F006", 1, "next")]


def test_a_file_not_there_yet_is_waited_for(tmp_path):
    path = tmp_path / "later.jsonl"
    follower = Follower(path)
    assert follower.notices.get(timeout=PATIENCE) == "log.jsonl is not there yet: waiting for it to appear"
    path.write_bytes(b"bad\n")
    assert follower.next() == ("F001", 1, None)
    assert follower.stop() == []


def test_following_gives_the_violations_validate_gives(tmp_path, monkeypatch):
    """One code path: the sample log written in pieces that cut lines anywhere gives what validating it gives."""
    data = (SAMPLES / "every-violation.jsonl").read_bytes()
    (tmp_path / "whole").mkdir()
    (tmp_path / "whole" / "log.jsonl").write_bytes(data)
    monkeypatch.chdir(tmp_path / "whole")
    whole = Validator()
    expected = list(whole.validate_paths("log.jsonl"))
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"")
    follower = Follower(path)
    for start in range(0, len(data), 997):
        append(path, data[start:start + 997])
    follower.settle()
    got = follower.stop_all()
    assert [(v.code, v.line, v.match, v.message) for v in got] == \
        [(v.code, v.line, v.match, v.message) for v in expected]
    assert follower.validator.summary == whole.summary


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 60_000), max_size=12))
def test_data_cut_anywhere_into_chunks_gives_the_violations_of_the_whole(cuts):
    """``Validator.validate_chunks`` (what following feeds) against validating the same bytes as one input."""
    data = EVERY_VIOLATION + b'{"type":"match_start","match":"left open","players":["a","b"]}\n{"tail": 1'
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    chunks = [data[start:end] for start, end in pairwise(points)]
    chunked = Validator()
    got = list(chunked.validate_chunks(iter(chunks), "log.jsonl"))
    whole = Validator()
    expected = list(whole.validate_lines(data, "log.jsonl"))
    assert [msgspec.to_builtins(v) for v in got] == [msgspec.to_builtins(v) for v in expected]
    assert chunked.summary == whole.summary


# -- the command line -------------------------------------------------------------------------


runner = CliRunner()


def test_standard_input_in_memory_gives_what_validate_gives():
    data = (SAMPLES / "every-violation.jsonl").read_bytes()
    plain = runner.invoke(app, ["validate", "-", "--format", "jsonl"], input=data, env=ENV)
    followed = runner.invoke(app, ["validate", "--follow", "-", "--format", "jsonl"], input=data, env=ENV)
    assert (followed.exit_code, followed.stdout) == (plain.exit_code, plain.stdout) == (1, plain.stdout)
    assert len(plain.stdout.splitlines()) == 38  # 37 violations, then the summary


@pytest.mark.parametrize(("args", "words"), [
    (["--format", "json"], "--format json is one document"),
    (["--format", "sarif"], "--format sarif is one document"),
    (["-o", "out.txt"], "drop -o"),
    (["--statistics"], "drop --statistics"),
    (["EXTRA"], "give one PATH"),
    (["--format", "jsonl", "FOLDER"], "not a folder"),
])
def test_what_follow_refuses_is_one_line_and_exit_2(tmp_path, args, words):
    log = tmp_path / "log.jsonl"
    log.write_bytes(START)
    args = [str(tmp_path) if arg == "FOLDER" else str(log) if arg == "EXTRA" else arg for arg in args]
    paths = [] if str(tmp_path) in args else [str(log)]
    result = runner.invoke(app, ["validate", "--follow", *paths, *args], env=ENV)
    assert result.exit_code == 2
    assert words in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr


def test_a_compressed_file_is_refused(tmp_path):
    result = runner.invoke(app, ["validate", "--follow", str(tmp_path / "log.jsonl.gz")], env=ENV)
    assert result.exit_code == 2
    assert "not compressed data" in " ".join(result.stderr.split())


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "drawlog", "validate", "--follow", *args]


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    return env


def _read_line(stream) -> str:
    """The next line the process prints (a hang fails the test instead of the run)."""
    ready, _, _ = select.select([stream], [], [], PATIENCE)
    assert ready, "no output"
    return stream.readline().decode()  # (unbuffered: nothing is read ahead of what select saw)


@pytest.mark.skipif(sys.platform == "win32", reason="select on pipes")
def test_standard_input_streams_each_violation_before_the_next_line():
    process = subprocess.Popen(_command("-", "--format", "jsonl", "--stdin-filename", "bot.jsonl"),
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(),
                               bufsize=0)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(b"not json\n")
        process.stdin.flush()
        first = json.loads(_read_line(process.stdout))
        assert (first["file"], first["line"], first["code"]) == ("bot.jsonl", 1, "F001")
        process.stdin.write(b"".join(clean_match()) + START)
        process.stdin.flush()
        process.stdin.write(b"{}\n")
        process.stdin.flush()
        second = json.loads(_read_line(process.stdout))
        assert (second["line"], second["code"]) == (len(clean_match()) + 3, "F002")
        out, err = process.communicate(timeout=PATIENCE)  # standard input ends: the open match, the summary
    finally:
        process.kill()
    rest = [json.loads(line) for line in out.decode().splitlines()]
    assert [item.get("code") for item in rest] == ["F006", None]
    assert rest[-1]["summary"]["errors"] == 3 and rest[-1]["summary"]["matches"] == 2
    assert (process.returncode, err) == (1, b"")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT and select on pipes")
@pytest.mark.parametrize("fmt", ["jsonl", "text", "github"])
def test_ctrl_c_prints_the_summary_and_exits_as_validate_does(tmp_path, fmt):
    path = tmp_path / "log.jsonl"
    path.write_bytes(START + b"not json\n")
    process = subprocess.Popen(_command(str(path), "--format", fmt), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=_env(), cwd=tmp_path, bufsize=0)
    try:
        assert process.stdout is not None
        shown = ""
        while "not valid JSON" not in shown:  # the violation is out while following
            shown += _read_line(process.stdout)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        process.kill()
    out = out.decode()
    assert (process.returncode, err) == (1, b"")
    if fmt == "jsonl":
        rest = [json.loads(line) for line in out.splitlines()]
        assert [(item.get("code"), item.get("line")) for item in rest] == [("F006", 1), (None, None)]
        assert rest[-1]["summary"]["errors"] == 2
    elif fmt == "text":
        assert "F006" in out and "input ended inside match open" in out
        assert out.splitlines()[-1].startswith("errors found: 1 file, 2 lines")
    else:
        assert out.startswith("::error file=") and "F006" in out


def test_ctrl_c_twice_interrupts_at_once(tmp_path):
    """The first Ctrl-C ends the following; a second one (a run stuck writing, say) ends the run: exit 130."""
    from drawlog.check.follow import interrupt_stops

    stop = threading.Event()
    with pytest.raises(KeyboardInterrupt), interrupt_stops(stop):
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.wait(PATIENCE)
        os.kill(os.getpid(), signal.SIGINT)
        threading.Event().wait(PATIENCE)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
