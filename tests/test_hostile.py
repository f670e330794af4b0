"""Hostile inputs (issue 14): a log must not forge terminal output, hang the run, lose data or crash it.

Every input is generated here, small, and then made hostile.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from drawlog.cli import app
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.views.terminal import shown

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
#: A match id that would retitle the window and clear the screen if printed raw.
EVIL_MATCH = "m\x1b]0;log is clean\x07\x1b[2J"
#: A player name with a newline, a carriage return, a tab and a right-to-left override.
EVIL_PLAYER = "p\nq\rr\ts\u202e"

runner = CliRunner()


def cli(*args: object, input: bytes | None = None):  # noqa: A002, ANN201
    result = runner.invoke(app, [str(arg) for arg in args], input=input, env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def run_drawlog(args: list[str], stdin: bytes = b"", timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """The real ``drawlog`` command in a child process."""
    command = [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()"]
    return subprocess.run(command + args, input=stdin, capture_output=True, timeout=timeout, check=False)


def match_lines(match_id: str = "m1", seed: int = 1) -> list[bytes]:
    """A clean simulated 2-player match as JSON lines (bytes, newline included)."""
    return encode_events(Simulator(seed, SimulationOptions()).match(match_id))  # type: ignore[arg-type]


def evil_log(path: Path) -> Path:
    """A match whose id and first player's name hold control characters, with a W401 and an F004 about them."""
    text = b"".join(match_lines()).replace(b'"m1"', json.dumps(EVIL_MATCH).encode())
    events = [json.loads(line) for line in text.replace(b'"p1"', json.dumps(EVIL_PLAYER).encode()).splitlines()]
    events[1]["colour\x1b[8m"] = "red"  # W401 naming a field that would hide what follows
    events.append({"type": "pass", "match": EVIL_MATCH, "player": EVIL_PLAYER})  # F004: after the match
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    return path


def assert_no_controls(text: str) -> None:
    """No control character a terminal would act on (line ends of the output itself aside)."""
    assert shown(text.replace("\n", "")) == text.replace("\n", ""), repr(text)


# -- 1. terminal injection ------------------------------------------------------------------------


def test_shown_escapes_control_characters_and_keeps_the_rest() -> None:
    assert shown("plain é ✓ [bold]") == "plain é ✓ [bold]"
    assert shown(EVIL_MATCH) == "m\\x1b]0;log is clean\\x07\\x1b[2J"
    assert shown(EVIL_PLAYER) == "p\\nq\\rr\\ts\\u202e"
    assert shown("\x00\x7f\x9b") == "\\x00\\x7f\\x9b"
    assert shown("a\u061cb\u200fc") == "a\\u061cb\\u200fc"  # bidirectional marks (Arabic letter mark too)
    assert shown(shown(EVIL_MATCH)) == shown(EVIL_MATCH)


def test_validate_text_escapes_ids_names_fields_and_paths(tmp_path: Path) -> None:
    path = evil_log(tmp_path / "log\x1b[31m.jsonl")
    result = cli("validate", path)
    assert result.exit_code == 1
    assert_no_controls(result.stdout)
    assert shown(EVIL_MATCH) in result.stdout
    assert shown(str(path)) in result.stdout
    for code in ("W401", "F004"):
        assert code in result.stdout


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_validate_json_keeps_the_exact_strings(tmp_path: Path, fmt: str) -> None:
    path = evil_log(tmp_path / "log\x1b[31m.jsonl")
    result = cli("validate", path, "--format", fmt)
    lines = result.stdout.splitlines()
    violations = json.loads(result.stdout)["violations"] if fmt == "json" else [json.loads(line) for line in lines[:-1]]
    assert {v["match"] for v in violations} >= {EVIL_MATCH}
    assert EVIL_PLAYER in {v["player"] for v in violations}
    assert {v["file"] for v in violations} == {str(path)}


def test_github_annotations_escape_control_characters(tmp_path: Path) -> None:
    result = cli("validate", evil_log(tmp_path / "log.jsonl"), "--format", "github")
    assert len(result.stdout.splitlines()) == 2
    assert_no_controls(result.stdout)


@pytest.fixture(scope="module")
def evil_stats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("evil")
    out = folder / "stats"
    result = cli("stats", evil_log(folder / "evil.jsonl"), "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert_no_controls(result.output)
    return out


@pytest.mark.parametrize("command", [
    ["query", "SELECT match, file FROM matches"],
    ["query", 'SELECT player AS "who\x1b[2J" FROM players'],
    ["players"],
    ["ratings"],
])
def test_tables_on_screen_and_in_files_escape_values_and_headers(evil_stats: Path, tmp_path: Path,
                                                                 command: list[str]) -> None:
    result = cli(command[0], evil_stats, *command[1:])
    assert result.exit_code == 0, result.output
    assert_no_controls(result.stdout)
    assert "\\x1b" in result.stdout or "\\n" in result.stdout
    target = tmp_path / "table.txt"
    assert cli(command[0], evil_stats, *command[1:], "-o", target).exit_code == 0
    assert_no_controls(target.read_text(encoding="utf-8"))


def test_query_json_keeps_the_exact_strings(evil_stats: Path) -> None:
    result = cli("query", evil_stats, "SELECT match FROM matches", "--format", "json")
    assert json.loads(result.stdout) == [{"match": EVIL_MATCH}]


def test_replay_and_simulate_messages_escape_ids_paths_and_names(tmp_path: Path) -> None:
    log = tmp_path / "two\x1b]0;t\x07.jsonl"
    log.write_bytes(b"".join(match_lines(EVIL_MATCH)) + b"".join(match_lines("m2", seed=2)))
    for args in (["replay", log], ["replay", f"{log}:999999", "--match", EVIL_PLAYER],
                 ["replay", tmp_path / "missing\x1b[2J.jsonl:3"], ["simulate", "--bots", "x\x1b]0;t\x07,greedy"]):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        assert_no_controls(result.output)
    assert shown(EVIL_MATCH) in cli("replay", log).output


def test_audit_and_errors_escape_paths(evil_stats: Path, tmp_path: Path) -> None:
    audit = cli("audit", evil_log(tmp_path / "evil.jsonl"), "--out", tmp_path / "out\x1b[2J", "-q")
    assert audit.exit_code == 1, audit.output  # errors found
    assert_no_controls(audit.output)
    not_a_folder = tmp_path / "file\x1b[2J"
    not_a_folder.write_text("x")
    missing = tmp_path / "missing\x1b[2J.jsonl"
    for args in (["stats", evil_stats / "..", "--out", not_a_folder], ["query", not_a_folder, "SELECT 1"],
                 ["validate", missing], ["stats", missing, "--out", tmp_path / "o"]):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        assert_no_controls(result.output)
        assert "\\x1b" in result.output


def test_simulate_results_escape_the_faults_file_name(tmp_path: Path) -> None:
    result = cli("simulate", "-n", "3", "--faults", "1", "-o", tmp_path / "log.jsonl",
                 "--faults-file", tmp_path / "faults\x1b[2J.jsonl")
    assert result.exit_code == 0, result.output
    assert_no_controls(result.output)
    assert "faults\\x1b[2J" in result.output


# -- 8. exit status ---------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [[], ["--fail-fast"], ["--exit-zero"], ["--fail-fast", "--exit-zero"],
                                     ["--strict", "--fail-fast"], ["--format", "json", "--fail-fast"]])
@pytest.mark.parametrize("what", ["missing", "empty folder", "both", "unreadable files", "two missing"])
def test_nothing_read_is_exit_2_in_every_mode(tmp_path: Path, options: list[str], what: str) -> None:
    missing, folder, unreadable = tmp_path / "nonexistent.jsonl", tmp_path / "empty", tmp_path / "unreadable"
    folder.mkdir()
    unreadable.mkdir()
    (unreadable / "a.jsonl").write_bytes(b"\x00binary\n")
    (unreadable / "b.jsonl.gz").write_bytes(b"not gzip")
    (unreadable / "c.jsonl").symlink_to(tmp_path / "gone.jsonl")
    paths = {"missing": [missing], "empty folder": [folder], "both": [missing, folder],
             "unreadable files": [unreadable], "two missing": [missing, tmp_path / "gone.jsonl"]}[what]
    result = cli("validate", *paths, *options)
    assert result.exit_code == 2, result.output


def test_fail_fast_after_something_was_read_is_exit_1(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"".join(match_lines()) + b'{"type":"pass","match":"m1","player":"p1"}\n')
    assert cli("validate", log, tmp_path / "nonexistent.jsonl", "--fail-fast").exit_code == 1
    assert cli("validate", log, tmp_path / "nonexistent.jsonl", "--fail-fast", "--exit-zero").exit_code == 0


def test_fail_fast_reads_on_past_unreadable_inputs_until_one_can_be_read(tmp_path: Path) -> None:
    """--fail-fast stops at the first error of a readable input: unreadable ones before it only are reported."""
    log = tmp_path / "b.jsonl"
    log.write_bytes(b"".join(match_lines()) + b'{"type":"pass","match":"m1","player":"p1"}\n')
    (tmp_path / "a.jsonl").write_bytes(b"\x00binary\n")
    (tmp_path / "c.jsonl").write_bytes(b"".join(match_lines()))
    result = cli("validate", tmp_path, "--fail-fast", "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(Path(v["file"]).name, v["code"]) for v in document["violations"]] == [("a.jsonl", "F007"),
                                                                                  ("b.jsonl", "F004")]
    assert (document["summary"]["files"], document["summary"]["unreadable"]) == (1, 1)


# -- 5. hangs and double reads ------------------------------------------------------------------------


def write_log(path: Path, match_id: str = "m1") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(match_lines(match_id)))
    return path


def summary_of(result) -> dict:  # noqa: ANN001
    return json.loads(result.stdout)["summary"]


def test_a_fifo_found_in_a_folder_is_skipped_with_f007_not_opened(tmp_path: Path) -> None:
    write_log(tmp_path / "logs" / "a.jsonl")
    os.mkfifo(tmp_path / "logs" / "b.jsonl")  # no writer: opening it would block for ever
    proc = run_drawlog(["validate", str(tmp_path / "logs"), "--format", "json"], timeout=30)
    document = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert document["summary"]["files"] == 1 and document["summary"]["unreadable"] == 1
    [violation] = document["violations"]
    assert (violation["code"], violation["file"]) == ("F007", str(tmp_path / "logs" / "b.jsonl"))
    assert "FIFO" in violation["message"]
    for jobs in ("1", "2"):
        proc = run_drawlog(["stats", str(tmp_path / "logs"), "--out", str(tmp_path / f"out{jobs}"), "-j", jobs],
                           timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert b"F007" in proc.stderr and b"Traceback" not in proc.stderr


def _feed_fifo(fifo: Path, data: bytes) -> threading.Thread:
    def feed() -> None:
        with open(fifo, "wb") as stream:
            stream.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("compression", ["", "gzip", "zstd"])
def test_a_fifo_named_on_the_command_line_is_read(tmp_path: Path, compression: str) -> None:
    data = b"".join(match_lines())
    data = {"": data, "gzip": gzip.compress(data), "zstd": zstandard.ZstdCompressor().compress(data)}[compression]
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeder = _feed_fifo(fifo, data)
    proc = run_drawlog(["validate", str(fifo), "--format", "json"], timeout=30)
    feeder.join(5)
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["summary"]["matches"] == 1


def test_process_substitution_is_read(tmp_path: Path) -> None:
    log = write_log(tmp_path / "a.jsonl")
    command = f"{sys.executable} -c 'from drawlog.cli import main; main()' validate <(cat {log}) --format json"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["matches"] == 1


@pytest.mark.parametrize("layout", ["link in folder", "link named", "file named twice", "folder and its file",
                                    "hard link"])
def test_a_file_reached_twice_is_read_once(tmp_path: Path, layout: str) -> None:
    folder = tmp_path / "logs"
    target = write_log(folder / "a.jsonl")
    link = folder / "b.jsonl"
    if layout == "hard link":
        os.link(target, link)
    else:
        link.symlink_to(target)
    paths = {"link in folder": [folder], "link named": [target, link], "file named twice": [target, target],
             "folder and its file": [folder, target], "hard link": [folder]}[layout]
    result = cli("validate", *paths, "--format", "json")
    assert result.exit_code == 0, result.stdout
    assert summary_of(result)["files"] == 1


def test_two_different_files_with_one_name_pattern_are_both_read(tmp_path: Path) -> None:
    write_log(tmp_path / "x" / "a.jsonl", "m1")
    write_log(tmp_path / "y" / "a.jsonl", "m2")
    result = cli("validate", tmp_path / "x", tmp_path / "y", "--format", "json")
    assert summary_of(result)["files"] == 2 and result.exit_code == 0


def test_a_folder_that_cannot_be_listed_is_f007_not_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """os.walk passes over a folder it cannot list unless told: it was silently left out (tests run as root, who
    may list anything, so the refusal is simulated)."""
    for folder in ("a", "b/locked", "c"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "log.jsonl").write_bytes(b"".join(match_lines(folder.replace("/", "-"))))
    scandir = os.scandir

    def refusing(path: object = ".") -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refusing)
    result = cli("validate", tmp_path, "--format", "json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(v["file"], v["code"], v["message"]) for v in document["violations"]] == [
        (str(tmp_path / "b" / "locked"), "F007", "cannot read the folder: Permission denied")]
    assert (document["summary"]["files"], document["summary"]["unreadable"]) == (2, 1)
    alone = json.loads(cli("validate", tmp_path / "b" / "locked", "--format", "json").stdout)
    assert [v["message"] for v in alone["violations"]] == ["cannot read the folder: Permission denied"]


# -- 6. a byte order mark arriving on its own ---------------------------------------------------------

BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("chunk", [1, 2, 3, 4])
def test_a_bom_in_reads_of_its_own_loses_nothing(tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from drawlog.check.validator import validate_paths
    from drawlog.log import compressed, reader

    lines = match_lines()
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + b"".join(lines))
    monkeypatch.setattr(reader, "CHUNK_BYTES", chunk)  # the first read is the mark alone (or part of it)
    monkeypatch.setattr(compressed, "CHUNK_BYTES", chunk)  # (where the reads are made)
    violations, summary = validate_paths([str(path)])
    assert violations == []
    assert (summary.lines, summary.matches) == (len(lines), 1)


def test_a_bom_flushed_alone_through_a_fifo_loses_nothing(tmp_path: Path) -> None:
    lines = match_lines()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb", buffering=0) as stream:
            stream.write(BOM)
            time.sleep(0.3)
            stream.write(b"".join(lines))

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    proc = run_drawlog(["validate", str(fifo), "--format", "json"], timeout=30)
    feeder.join(5)
    summary = json.loads(proc.stdout)["summary"]
    assert proc.returncode == 0, proc.stdout
    assert (summary["lines"], summary["matches"]) == (len(lines), 1)


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
@pytest.mark.parametrize("how", ["file", "standard input"])
def test_a_first_member_or_frame_of_just_the_bom_loses_nothing(tmp_path: Path, suffix: str, how: str) -> None:
    lines = match_lines()
    pack = gzip.compress if suffix == ".jsonl.gz" else zstandard.ZstdCompressor().compress
    data = pack(BOM) + pack(b"".join(lines))
    path = tmp_path / f"bom{suffix}"
    path.write_bytes(data)
    if how == "file":
        proc = run_drawlog(["validate", str(path), "--format", "json"])
    else:
        proc = run_drawlog(["validate", "-", "--format", "json"], stdin=data)
    summary = json.loads(proc.stdout)["summary"]
    assert proc.returncode == 0, proc.stdout
    assert (summary["lines"], summary["matches"]) == (len(lines), 1)


# -- 4. quadratic or deep input -----------------------------------------------------------------------


def test_the_duplicate_player_check_is_linear_and_more_than_4_players_is_one_s101() -> None:
    from drawlog.engine.match import check_players

    names = [f"p{index % 50_000}" for index in range(100_000)]  # a 1 MB line of repeated names
    started = time.perf_counter()
    faults, _ = check_players(names)
    assert time.perf_counter() - started < 5  # quadratic, this took minutes
    assert [(fault.code, fault.message) for fault in faults] == [
        ("S101", "100,000 players: the game is for 2 to 4 players")]
    assert len(check_players(["a", "b", "a", "c", "b"])[0]) == 1
    assert [fault.code for fault in check_players(["a", "a", "b"])[0]] == ["S101"]
    assert [fault.message for fault in check_players(["", "", "b"])[0]] == ['players lists "" more than once']


def test_a_match_start_of_100000_players_is_one_s101(tmp_path: Path) -> None:
    path = tmp_path / "crowd.jsonl"
    names = [f"p{index % 50_000}" for index in range(100_000)]
    path.write_text(json.dumps({"type": "match_start", "match": "m", "players": names}) + "\n")
    result = cli("validate", path, "--format", "json")
    assert [v["code"] for v in json.loads(result.stdout)["violations"]] == ["S101", "F006"]


def _deep(depth: int, inner: str = "1") -> str:
    return '{"a":' * depth + inner + "}" * depth


def deep_log(path: Path, depth: int, where: str) -> Path:
    """A clean match with, on line 1 (match_start) or 3 (a play), a value ``depth`` objects deep."""
    lines = [line.decode() for line in match_lines()]
    target = 0 if where in ("meta", "escaped meta") else 2
    event = lines[target].rstrip("\n")
    key = {"meta": "meta", "escaped meta": "\\u006deta", "unknown field": "extra"}[where]
    value = _deep(depth) if where != "meta" or depth else "{}"
    if where != "unknown field" or target != 0:
        event = event.replace(',"meta":{"bots":["random","random"]}', "")
    lines[target] = f'{event[:-1]},"{key}":{value}}}\n'
    path.write_text("".join(lines), encoding="utf-8")
    return path


def stats_violations(path: Path, out: Path) -> list[tuple[int | None, str, str]]:
    import polars as pl

    result = cli("stats", path, "--out", out, "-q")
    assert result.exit_code == 0, result.output
    table = pl.read_parquet(out / "violations" / "part-00000.parquet")
    return list(zip(table["line"].to_list(), table["code"].to_list(), table["message"].to_list()))


@pytest.mark.parametrize("where", ["meta", "escaped meta", "unknown field"])
@pytest.mark.parametrize("depth", [64, 65, 975, 978, 980, 5000])
def test_nesting_deeper_than_the_limit_is_one_f002_in_validate_and_in_stats(tmp_path: Path, where: str,
                                                                           depth: int) -> None:
    from drawlog.log.reader import MAX_NESTING

    path = deep_log(tmp_path / "deep.jsonl", depth - 1, where)  # the event's own object is one level
    result = cli("validate", path, "--format", "json")
    violations = [(v["line"], v["code"], v["message"]) for v in json.loads(result.stdout)["violations"]]
    line = 1 if where != "unknown field" else 3
    if depth <= MAX_NESTING:
        assert [code for _, code, _ in violations] == (["W401"] if where == "unknown field" else [])
    else:
        assert [(number, code) for number, code, _ in violations if number == line] == [(line, "F002")]
        assert "nested too deeply" in violations[0][2] or "nested too deeply" in violations[-1][2]
    assert stats_violations(path, tmp_path / "stats") == violations


def test_deep_lines_in_many_blocks_agree_between_validate_and_stats(tmp_path: Path) -> None:
    """Deep lines wherever they fall in the blocks of a longer file, some valid and some not."""
    lines = []
    for index in range(40):
        match = [line.decode() for line in match_lines(f"m{index}", seed=index)]
        depth = (60, 64, 70, 978, 980, 2000)[index % 6]
        match[0] = match[0].replace('"meta":{"bots":["random","random"]}', f'"meta":{_deep(depth)}')
        lines += match
    path = tmp_path / "many.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    result = cli("validate", path, "--format", "json")
    violations = [(v["line"], v["code"], v["message"]) for v in json.loads(result.stdout)["violations"]]
    assert sum(code == "F002" for _, code, _ in violations) == sum(index % 6 != 0 for index in range(40))
    assert stats_violations(path, tmp_path / "stats") == violations


def test_an_unclosed_string_of_escaped_quotes_is_read_in_linear_time(tmp_path: Path) -> None:
    """Deep brackets, then a string of 400,000 escaped quotes never closed: the nesting check rescanned the rest of
    the line from every quote (hours for 1 MB). One line reported, then the log after it, in a child with a time
    limit that only a hang reaches."""
    log = tmp_path / "unclosed.jsonl"
    log.write_bytes(b"[" * 70 + b'"' + b'\\"' * 400_000 + b"\n" + b"".join(match_lines()))
    proc = run_drawlog(["validate", str(log), "--format", "concise"], timeout=120)
    lines = proc.stdout.decode().splitlines()
    assert proc.returncode == 1 and len(lines) == 2, proc.stdout
    assert lines[0].startswith(f"{log}:1: F002")
    assert lines[-1].startswith("errors found: 1 file") and "1 match (1 valid)" in lines[-1]


def test_claims_for_many_names_that_are_not_players_make_short_messages(tmp_path: Path) -> None:
    """30,000 strangers in a round_end's points, its hands and a match_end's scores: three names, then a count."""
    events = [json.loads(line) for line in match_lines()]
    strangers = {f"x{index}": 1 for index in range(30_000)}
    round_end = next(index for index, event in enumerate(events) if event["type"] == "round_end")
    events[round_end]["points"].update(strangers)
    events[round_end]["hands"] = {name: [] for name in strangers}
    events[-1]["scores"].update(strangers)
    path = tmp_path / "strangers.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    document = json.loads(cli("validate", path, "--format", "json").stdout)
    messages = {v["code"]: v["message"] for v in document["violations"]}
    assert messages["R303"].endswith("29,997 more points claimed for names that are not players")
    assert messages["R303"].startswith("claims 1 points for x0, who is not a player; claims 1 points for x1")
    assert messages["R304"].endswith("29,997 more hands revealed for names that are not players")
    assert "29,997 more scores claimed for names that are not players" in messages["R306"]
    assert max(len(message) for message in messages.values()) < 400


# -- 7. no traceback, ever ----------------------------------------------------------------------------


def test_query_of_a_date_python_cannot_hold_prints_it(tmp_path: Path) -> None:
    lines = match_lines()
    event = json.loads(lines[0])
    event["ts"] = "9999-12-31T23:59:59-01:00"  # the year 10000 in UTC
    path = tmp_path / "y10k.jsonl"
    path.write_bytes(json.dumps(event).encode() + b"\n" + b"".join(lines[1:]))
    out = tmp_path / "stats"
    assert cli("stats", path, "--out", out, "-q").exit_code == 0
    sql = "SELECT match, started_at FROM matches"
    for options in ([], ["-o", tmp_path / "table.txt"]):
        result = cli("query", out, sql, *options)
        assert result.exit_code == 0, result.output
    assert "10000-01-01 00:59:59" in result.stdout + (tmp_path / "table.txt").read_text()
    assert json.loads(cli("query", out, sql, "-f", "json").stdout)[0]["started_at"].startswith("+10000-01-01")
    assert cli("players", out).exit_code == 0 and cli("ratings", out).exit_code == 0


@pytest.mark.parametrize("args", [["validate", "LOG"], ["validate", "LOG", "--format", "json"], ["rule", "M205"],
                                  ["schema"], ["validate", "LOG", "-o", "OUT"]])
def test_closed_standard_output_is_one_error_line_not_a_traceback(tmp_path: Path, args: list[str]) -> None:
    """Started with standard output closed (``drawlog … >&-``), Python has no sys.stdout: exit 2, or the file."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"".join(match_lines()))
    out = tmp_path / "report.txt"
    args = [str(log) if arg == "LOG" else str(out) if arg == "OUT" else arg for arg in args]
    command = [sys.executable, "-c", "import sys; from drawlog.cli import main; sys.argv[0] = 'drawlog'; main()", *args]
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120, check=False,
                          preexec_fn=lambda: os.close(1))  # noqa: PLW1509 - the child must start without fd 1
    assert b"Traceback" not in proc.stderr
    if "-o" in args:
        assert proc.returncode == 0 and "no errors" in out.read_text()
    else:
        assert proc.returncode == 2
        assert proc.stderr.decode().strip() == "Error: cannot write standard output: standard output is closed"


@pytest.mark.parametrize("command", ["stats", "audit"])
def test_an_out_folder_named_in_bytes_that_are_not_utf8_is_refused_in_one_line(tmp_path: Path, command: str) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"".join(match_lines()))
    for out in (os.fsdecode(bytes(tmp_path) + b"/stats\xff"), os.fsdecode(bytes(tmp_path) + b"/d\xff/stats")):
        result = cli(command, log, "--out", out)
        assert result.exit_code == 2
        assert "is not a UTF-8 name" in result.output and "\\xff" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["log.jsonl"]


@pytest.mark.parametrize("fmt", ["table", "json", "jsonl", "csv"])
def test_query_of_a_date_past_the_calendar_writes_its_number(tmp_path: Path, fmt: str) -> None:
    """A timestamp of 2^63 - 1 microseconds (or a date in the year 5,000,000) made polars panic: a traceback."""
    import polars as pl

    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(match_lines()))
    out = tmp_path / "stats"
    assert cli("stats", path, "--out", out, "-q").exit_code == 0
    matches = out / "matches" / "part-00000.parquet"
    frame = pl.read_parquet(matches)
    frame.with_columns(pl.lit(2**63 - 1).cast(pl.Datetime("us", "UTC")).alias("started_at")).write_parquet(matches)
    result = cli("query", out, "SELECT match, started_at FROM matches", "-f", fmt)
    assert result.exit_code == 0, result.output
    assert str(2**63 - 1) in result.stdout
    assert "started_at holds a date more than 250,000 years from 1970" in result.stderr
    sql = "SELECT CAST(2000000000 AS DATE) AS d"
    assert "2000000000" in cli("query", out, sql, "-f", fmt).stdout


@pytest.mark.parametrize("moment", ["workers starting", "parts joining"])
def test_ctrl_c_during_parallel_stats_prints_no_traceback_and_keeps_the_old_tables(tmp_path: Path,
                                                                                    moment: str) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = match_lines()
    for index in range(600):  # small files: the workers often wait for work, where a Ctrl-C used to hit them
        (logs / f"{index:03d}.jsonl").write_bytes(b"".join(lines[:3]).replace(b'"m1"', f'"f{index}"'.encode()))
    out = tmp_path / "out"
    assert cli("stats", logs / "000.jsonl", "--out", out, "-q").exit_code == 0
    before = sorted(path.name for path in out.rglob("*"))
    command = [sys.executable, "-c", "from drawlog.cli import main; main()", "stats", str(logs), "--out", str(out),
               "--jobs", "2", "-q"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    first_part = out / ".gen-2" / "_flat" / "_part-0"  # (the new generation, written beside the current one)
    seen = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        seen = seen or first_part.exists()
        if seen and (moment == "workers starting" or not first_part.exists()):  # made; or joined, then removed
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: every process of the terminal's group
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr.decode()
    assert b"Traceback" not in stderr and b"KeyboardInterrupt" not in stderr, stderr.decode()
    assert sorted(path.name for path in out.rglob("*")) == before
    assert not list(tmp_path.glob(".out.partial-*")) and not (out / ".gen-2").exists()
    result = cli("query", out, "SELECT count(*) AS n FROM matches", "-f", "json")
    assert json.loads(result.stdout) == [{"n": 1}]


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started and that still run (Linux: /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc to find the workers")
def test_killing_a_parallel_stats_run_ends_its_workers_and_frees_the_lock(tmp_path: Path) -> None:
    """A killed parent (kill -9) left its workers running, holding the lock they inherited: every later run on that
    --out was refused until someone killed them by hand."""
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = b"".join(match_lines())
    for index in range(3_000):
        (logs / f"{index:04d}.jsonl").write_bytes(lines.replace(b'"m1"', f'"f{index}"'.encode()))
    out = tmp_path / "out"
    command = [sys.executable, "-c", "from drawlog.cli import main; main()", "stats", str(logs), "--out", str(out),
               "--jobs", "2", "-q"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
        workers = [child for child in _children(proc.pid)
                   if b"resource_tracker" not in Path(f"/proc/{child}/cmdline").read_bytes()]
        time.sleep(0.01)
    assert proc.poll() is None and len(workers) >= 2, "the run ended before its workers could be seen"
    time.sleep(0.3)  # the workers at work
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(worker) for worker in workers):
        time.sleep(0.05)
    assert not any(_alive(worker) for worker in workers), "workers outlived their parent"
    result = cli("stats", logs / "0000.jsonl", "--out", out, "-q")
    assert result.exit_code == 0, result.output
    assert not list(tmp_path.glob(".out.partial-*"))


# -- 3. compression bombs and blank runs ----------------------------------------------------------------


def peak_rss_mb(args: list[str]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """The peak memory (MB) of ``drawlog ARGS`` in a fresh child process, and what it printed."""
    code = ("import resource, sys\nfrom drawlog.cli import main\nsys.argv = ['drawlog', *sys.argv[1:]]\n"
            "try:\n    main()\nfinally:\n"
            "    sys.stderr.write(f'\\nPEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=300, check=False)
    peak = int(proc.stderr.rsplit(b"PEAK ", 1)[1]) / 1024
    return peak, proc


def zstd_bomb(path: Path, unit: bytes, frame_bytes: int = 1 << 26, frames: int = 4) -> Path:
    """``frames`` zstd frames of ``frame_bytes`` of ``unit`` repeated: 256 MB in a few KB."""
    frame = zstandard.ZstdCompressor(level=19).compress(unit * (frame_bytes // len(unit)))
    path.write_bytes(frame * frames)
    return path


def test_a_zstd_bomb_is_read_in_bounded_memory_as_one_f001_and_warned_once(tmp_path: Path) -> None:
    bomb = zstd_bomb(tmp_path / "bomb.jsonl.zst", b"x")  # one line of 256 MB
    small = write_log(tmp_path / "small.jsonl")
    assert bomb.stat().st_size < 16_000
    base, _ = peak_rss_mb(["validate", str(small), "-f", "json"])
    peak, proc = peak_rss_mb(["validate", str(bomb), "-f", "json"])
    document = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert [(v["line"], v["code"]) for v in document["violations"]] == [(1, "F001")]
    assert "268,435,456 bytes long" in document["violations"][0]["message"]
    [said] = document["summary"]["decompression"]
    assert said.startswith(f"{bomb} decompresses ") and said.endswith("×")
    assert peak - base < 64, (base, peak)  # the bomb inflates to 256 MB


def test_a_zstd_of_newlines_is_counted_in_bounded_memory(tmp_path: Path) -> None:
    bomb = zstd_bomb(tmp_path / "blank.jsonl.zst", b"\n", frames=2)
    small = write_log(tmp_path / "small.jsonl")
    base, _ = peak_rss_mb(["validate", str(small), "-f", "json"])
    peak, proc = peak_rss_mb(["validate", str(bomb), "-f", "json"])
    summary = json.loads(proc.stdout)["summary"]
    assert proc.returncode == 0
    assert summary["lines"] == summary["blank_lines"] == 2 << 26
    assert len(summary["decompression"]) == 1
    assert peak - base < 64, (base, peak)
    text = run_drawlog(["validate", str(bomb)]).stdout.decode()
    assert "decompresses" in text and "(a compression bomb?)" in text


@pytest.mark.parametrize("kind", ["zstd", "gzip"])
@pytest.mark.parametrize("how", ["standard input", "a FIFO named like a log"])
def test_a_bomb_through_a_pipe_is_warned_as_a_file_is(tmp_path: Path, kind: str, how: str) -> None:
    """A compressed input that is a pipe (standard input, a FIFO named *.jsonl.gz): no ``tell`` (an F007 "Illegal
    seek" after the last line), and the ratio measured from the bytes read."""
    if kind == "zstd":
        bomb = zstd_bomb(tmp_path / "bomb.bin", b"\n", frames=2).read_bytes()
    else:
        bomb = gzip.compress(b"\n" * (1 << 27), compresslevel=9)
    if how == "standard input":
        proc = run_drawlog(["validate", "-", "--format", "json"], stdin=bomb, timeout=120)
    else:
        fifo = tmp_path / f"bomb.jsonl.{'zst' if kind == 'zstd' else 'gz'}"
        os.mkfifo(fifo)
        feeder = threading.Thread(target=fifo.write_bytes, args=(bomb,))
        feeder.start()
        proc = run_drawlog(["validate", str(fifo), "--format", "json"], timeout=120)
        feeder.join()
    document = json.loads(proc.stdout)
    assert proc.returncode == 0 and document["violations"] == []
    assert document["summary"]["blank_lines"] == 1 << 27
    [said] = document["summary"]["decompression"]
    assert said.endswith("×") and "decompresses" in said


def test_zstd_on_standard_input_may_start_with_a_skippable_frame(tmp_path: Path) -> None:
    import struct

    log = b"".join(match_lines())
    data = struct.pack("<II", 0x184D2A53, 4) + b"junk" + zstandard.ZstdCompressor().compress(log)
    proc = run_drawlog(["validate", "-", "--format", "json"], stdin=data)
    document = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    assert document["summary"]["lines"] == log.count(b"\n") and document["summary"]["valid_matches"] == 1


def test_compressed_twice_and_a_window_too_large_are_said_as_such(tmp_path: Path) -> None:
    log = b"".join(match_lines())
    twice = tmp_path / "twice.jsonl.gz"
    twice.write_bytes(gzip.compress(gzip.compress(log)))
    wide = tmp_path / "wide.jsonl.zst"  # a frame asking for a 2 GB window: zstd refuses it by default
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=31, write_content_size=0)
    streaming = zstandard.ZstdCompressor(compression_params=params).compressobj()  # size unknown: window kept
    wide.write_bytes(streaming.compress(log) + streaming.flush())
    messages = {Path(v["file"]).name: v["message"]
                for v in json.loads(cli("validate", twice, wide, "--format", "json").stdout)["violations"]}
    assert messages["twice.jsonl.gz"] == "gzip-compressed data inside the compressed data: compressed twice?"
    assert messages["wide.jsonl.zst"].startswith("zstd data that needs too much memory to decompress")


def test_a_zstd_log_is_cut_into_the_blocks_of_a_plain_file() -> None:
    import io

    from drawlog.log.compressed import CHUNK_BYTES, _unzstd

    data = b"".join(line for index in range(40) for line in match_lines(f"m{index}", index))
    packed = b"".join(zstandard.ZstdCompressor().compress(data[start:start + 300_000])
                      for start in range(0, len(data), 300_000))
    chunks = list(_unzstd(io.BytesIO(packed), "log.jsonl.zst"))
    assert b"".join(chunks) == data
    assert {len(chunk) for chunk in chunks[:-1]} == {CHUNK_BYTES}
    with pytest.raises(Exception, match="ends early"):
        list(_unzstd(io.BytesIO(packed[:-5]), "log.jsonl.zst"))


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".jsonl.zst"])
def test_runs_of_blank_lines_are_counted_at_once_and_lines_keep_their_numbers(
        tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from drawlog.check.validator import Validator

    lines = match_lines()
    blank = b"\n" * 300_000 + b"  \r\n\t\n" * 1000
    events = [json.loads(line) for line in lines]
    events[3]["seq"] = 99  # an F003 on the 4th event
    encoded = [json.dumps(event).encode() + b"\n" for event in events]
    data = blank + b"".join(encoded[:3]) + blank + b"".join(encoded[3:6]) + blank + b"".join(encoded[6:]) + blank
    pack = {".jsonl": bytes, ".jsonl.gz": gzip.compress, ".jsonl.zst": zstandard.ZstdCompressor().compress}[suffix]
    path = tmp_path / f"blank{suffix}"
    path.write_bytes(pack(data))
    calls = 0
    decode_line = Validator.decode_line

    def counted(self: Validator, raw: bytes, number: int) -> object:
        nonlocal calls
        calls += 1
        return decode_line(self, raw, number)

    monkeypatch.setattr(Validator, "decode_line", counted)
    validator = Validator()
    found = list(validator.validate_paths([str(path)]))
    blank_lines = blank.count(b"\n")
    assert calls < 100  # not one call per blank line
    assert validator.summary.lines == 4 * blank_lines + len(lines)
    assert validator.summary.blank_lines == 4 * blank_lines
    assert validator.summary.events == len(lines)
    assert [(v.line, v.code) for v in found][:1] == [(2 * blank_lines + 4, "F003")]


def test_a_gzip_of_blank_lines_costs_little(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * (1 << 23), 9))  # 8 KB
    proc = run_drawlog(["validate", str(path), "-f", "json"])
    summary = json.loads(proc.stdout)["summary"]
    assert proc.returncode == 0
    assert summary["blank_lines"] == 1 << 23
    assert summary["decompression"] == []  # under the size that warns


@pytest.mark.parametrize("damage", ["a frame cut short", "garbage after the frames"])
def test_lines_decompressed_before_a_damaged_zstd_frame_are_all_read(tmp_path: Path, damage: str) -> None:
    """Up to 64 KB decompressed but not yet cut into lines was dropped with the error: a whole match went missing."""
    lines = b"".join(line for number in range(1, 7) for line in match_lines(f"m{number}", seed=number))
    compressor = zstandard.ZstdCompressor()
    tail = compressor.compress(b"".join(match_lines("m7", seed=7)))[:100] if damage == "a frame cut short" \
        else b"\x00garbage"
    path = tmp_path / "damaged.jsonl.zst"
    path.write_bytes(compressor.compress(lines) + tail)
    document = json.loads(cli("validate", path, "--format", "json").stdout)
    count = lines.count(b"\n")
    assert document["summary"]["lines"] >= count and document["summary"]["valid_matches"] == 6
    assert [(v["code"], v["line"]) for v in document["violations"]][-1:] == [("F007", document["summary"]["lines"] + 1)]


# -- 2. memory per open match ---------------------------------------------------------------------------


def starts_log(path: Path, count: int) -> Path:
    """``count`` match_start lines, every match left open."""
    path.write_text("".join(json.dumps({"type": "match_start", "match": f"m{index}", "seq": 1,
                                        "players": ["alice", "bob"]}) + "\n" for index in range(count)))
    return path


def test_past_max_open_matches_the_oldest_is_closed_with_f006_and_counted(tmp_path: Path) -> None:
    log = starts_log(tmp_path / "starts.jsonl", 10)
    lines = b"".join(match_lines("late"))  # a whole match after them: replayed as usual
    log.write_bytes(log.read_bytes() + lines)
    result = cli("validate", log, "--max-open-matches", "3", "--format", "json")
    document = json.loads(result.stdout)
    f006 = [(v["line"], v["match"], v["message"]) for v in document["violations"] if v["code"] == "F006"]
    assert f006[:7] == [(line, f"m{line - 1}", f"match m{line - 1} closed: more than 3 matches open at once "
                                               f"(--max-open-matches)") for line in range(1, 8)]
    assert [match for _, match, _ in f006[7:]] == ["m7", "m8", "m9"]  # closed early by the late match, or at the end
    assert document["summary"]["closed_early"] == 8
    assert {v["code"] for v in document["violations"]} == {"F006"}
    text = cli("validate", log, "--max-open-matches", "3").stdout
    assert "8 matches closed early (--max-open-matches)" in text


def test_open_matches_holding_long_names_are_closed_past_the_byte_budget(tmp_path: Path) -> None:
    """The cap counts matches, not bytes: 1,000 matches of four 200 KB names took 835 MB. Past the byte budget the
    oldest is closed as past --max-open-matches; no seating of long names is kept for later matches either. (Long
    names are now held as bounded keys, so what weighs here is each match's 79 KB tournament name.)"""
    from drawlog.check.validator import Validator
    from drawlog.engine.match import _SEATINGS

    names = [letter * 20_000 for letter in "abcd"]
    log = tmp_path / "long-names.jsonl"
    log.write_text("".join(json.dumps({"type": "match_start", "match": f"m{index}",
                                       "players": [f"{name}{index}" for name in names],
                                       "meta": {"tournament": "t" * 79_000}}) + "\n"
                           for index in range(40)))
    validator = Validator(codes=["F006"])
    validator.replay.max_open_bytes = 1 << 20  # 13 such matches: each weighs 400 bytes, its id, names, meta
    found = list(validator.validate_paths([str(log)]))
    early = [v for v in found if "closed" in v.message]
    assert len(early) == validator.summary.closed_early == 27
    assert early[0].match == "m0" and early[0].line == 1
    assert early[0].message == "match m0 closed: the matches open at once hold more than 1 MB (--max-open-matches)"
    assert len(found) == 40 and [v.line for v in early] == list(range(1, 28))
    assert all(sum(map(len, seats)) <= 256 for seats in _SEATINGS)


def test_stats_of_matches_with_long_names_and_tournaments_stays_in_bounded_memory(tmp_path: Path) -> None:
    """Rows were written by their number only, and ended matches kept 4,096 at a time whatever their size: 1,000
    matches with a 300 KB tournament name took 1.3 GB, four 200 KB player names 2.4 GB."""
    log = tmp_path / "long-text.jsonl"
    with log.open("w") as handle:
        for index in range(250):
            meta = {"tournament": f"{index}" + "t" * 200_000, "table": f"{index}" + "x" * 100_000}
            handle.write(json.dumps({"type": "match_start", "match": f"m{index}", "meta": meta,
                                     "players": [f"{letter * 50_000}{index}" for letter in "abcd"]}) + "\n")
    small = write_log(tmp_path / "small.jsonl")
    base, _ = peak_rss_mb(["stats", str(small), "--out", str(tmp_path / "base"), "-q"])
    peak, proc = peak_rss_mb(["stats", str(log), "--out", str(tmp_path / "out"), "-q"])
    assert proc.returncode == 0, proc.stderr.decode()
    assert peak - base < 350, (base, peak)  # the log holds 125 MB of text (it took 600 MB more than a small log)
    import polars as pl

    assert pl.read_parquet(tmp_path / "out" / "matches" / "part-00000.parquet").height == 250


def test_many_open_matches_cost_bounded_memory(tmp_path: Path) -> None:
    from drawlog.check.validator import Validator

    log = starts_log(tmp_path / "starts.jsonl", 60_000)
    validator = Validator(codes=["F005"], max_open_matches=1_000)
    import tracemalloc

    tracemalloc.start()
    assert list(validator.validate_paths([str(log)])) == []
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert validator.summary.closed_early == 59_000
    assert peak < 30_000_000, peak  # 1,000 open matches and 60,000 ids seen, not 60,000 open matches
