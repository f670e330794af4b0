"""#26 item 3: long match ids held as bounded keys, and ``replay`` streaming its frames, in bounded memory.

Peak memory is measured in a subprocess (its ``VmHWM``, else ``getrusage``'s ``ru_maxrss``), never time.
"""

from __future__ import annotations

import gzip
import json
import resource
import subprocess
from pathlib import Path

import pytest
from peak_memory import peak_kb

from drawlog.check.validator import validate_lines
from drawlog.log.ids import KEPT, MARK, MAX_ID, bounded_id

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "tournament-2p.jsonl"
ID_LENGTH = 400_000
MATCHES = 150
#: Peak RSS (KB) a command may reach on the logs below (measured: 33-45 MB; main's code: filter 151 MB,
#: validate 1.1 GB, replay 2-2.9 GB).
BOUND_KB = 80_000
#: ``stats`` loads polars and pyarrow (measured: 90 MB; main's code 2 GB).
STATS_BOUND_KB = 150_000


def _first_match() -> list[dict]:
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    return [event for event in events if event["match"] == events[0]["match"]]


def _long_id(number: int, length: int = ID_LENGTH) -> str:
    tail = f"-{number:06d}"
    return "m" * (length - len(tail)) + tail


@pytest.fixture(scope="module")
def long_ids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MATCHES matches (a match_start and a round_start each) whose ids differ only in their last characters."""
    path = tmp_path_factory.mktemp("ids") / "ids.jsonl.gz"
    events = _first_match()[:2]
    with gzip.open(path, "wt", compresslevel=1) as stream:
        for number in range(MATCHES):
            for event in events:
                stream.write(json.dumps({**event, "match": _long_id(number)}) + "\n")
    return path


@pytest.fixture(scope="module")
def long_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One match of about 200,000 lines: its first round dealt again and again (target 10**9)."""
    path = tmp_path_factory.mktemp("long") / "long.jsonl.gz"
    events = _first_match()
    end_at = next(index for index, event in enumerate(events) if event["type"] == "round_end")
    seq, number = 1, 0
    with gzip.open(path, "wt", compresslevel=1) as stream:
        stream.write(json.dumps({**events[0], "target": 10**9}) + "\n")
        while seq < 200_000:
            number += 1
            for event in events[1:end_at + 1]:
                seq += 1
                stream.write(json.dumps({**event, "seq": seq, **({"round": number} if "round" in event else {})})
                             + "\n")
    return path


def _peak_kb(args: list[str], cwd: Path) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Run ``drawlog ARGS`` in a child; its peak RSS in KB and the result, its output as text."""
    peak, done = peak_kb(args, cwd)
    return peak, subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_bounded_id_keeps_short_ids_and_bounds_long_ones_distinctly() -> None:
    assert bounded_id("t2-000001") == "t2-000001"
    assert bounded_id("x" * MAX_ID) == "x" * MAX_ID
    first, second = bounded_id(_long_id(1)), bounded_id(_long_id(2))
    assert first != second  # they differ only after the first 200 characters
    assert first.startswith("m" * KEPT + MARK) and len(first) == KEPT + 1 + 16 <= MAX_ID
    assert bounded_id(first) == first


def test_validate_names_the_bounded_id_in_messages() -> None:
    match_id = _long_id(7)
    lines = [json.dumps({**event, "match": match_id}) for event in _first_match()[:2]]
    found, _ = validate_lines(lines)
    assert [violation.code for violation in found] == ["F006"]
    assert found[0].match == bounded_id(match_id)
    assert found[0].message == f"input ended inside match {bounded_id(match_id)}: no match_end"


def test_two_long_ids_alike_for_200_characters_are_two_matches_not_f005() -> None:
    lines = []
    for number in (1, 2):
        lines += [json.dumps({**event, "match": _long_id(number, 1000)}) for event in _first_match()]
    found, summary = validate_lines(lines)
    assert "F005" not in [violation.code for violation in found]
    assert summary.matches == 2 and summary.complete_matches == 2


def test_validate_json_on_long_ids_is_bounded_and_distinct(long_ids: Path, tmp_path: Path) -> None:
    peak, done = _peak_kb(["validate", str(long_ids), "--format", "json"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert peak < BOUND_KB
    matches = [violation["match"] for violation in json.loads(done.stdout)["violations"]]
    assert len(matches) == MATCHES and len(set(matches)) == MATCHES
    assert matches[0] == bounded_id(_long_id(0))


def test_stats_on_long_ids_is_bounded_and_its_match_column_distinct(long_ids: Path, tmp_path: Path) -> None:
    import polars as pl

    peak, done = _peak_kb(["stats", str(long_ids), "-o", "out"], tmp_path)
    assert peak < STATS_BOUND_KB, done.stderr
    ids = pl.read_parquet(tmp_path / "out" / "matches").get_column("match").to_list()
    assert sorted(ids) == sorted(bounded_id(_long_id(number)) for number in range(MATCHES))


def test_filter_on_long_ids_is_bounded_and_picks_by_the_whole_id(long_ids: Path, tmp_path: Path) -> None:
    peak, done = _peak_kb(["filter", str(long_ids), "-o", "all.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert peak < BOUND_KB
    assert (tmp_path / "all.jsonl").read_text().count("\n") == 2 * MATCHES


def test_filter_picks_a_long_id_by_the_whole_id(tmp_path: Path) -> None:
    log = tmp_path / "three.jsonl"
    log.write_text("".join(json.dumps({**event, "match": _long_id(number, 1000)}) + "\n"
                           for number in range(3) for event in _first_match()[:2]))
    _, done = _peak_kb(["filter", str(log), "--match", _long_id(1, 1000), "-o", "one.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr
    kept = [json.loads(line) for line in (tmp_path / "one.jsonl").read_text().splitlines()]
    assert [event["match"] for event in kept] == [_long_id(1, 1000)] * 2  # written whole, as logged


@pytest.mark.parametrize("form", ["svg", "json"])
def test_replay_of_a_long_match_streams_in_flat_memory(long_match: Path, tmp_path: Path, form: str) -> None:
    peak, done = _peak_kb(["replay", str(long_match), "--format", form, "-o", f"out.{form}"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert peak < BOUND_KB  # main's code kept every frame: about 2 GB
    out = tmp_path / f"out.{form}"
    if form == "svg":
        assert out.read_text().startswith("<svg")
    else:
        with out.open() as stream:
            first = json.loads(stream.readline())
            count = 1 + sum(1 for _ in stream)
        assert first["line"] == 1 and first["type"] == "match_start"
        assert count == gzip.decompress(long_match.read_bytes()).count(b"\n")


def test_frames_are_the_frames_walk_gave() -> None:
    from drawlog.check.walkthrough import Selection, frames, walk
    from drawlog.log.sources import Source

    source = Source(str(SAMPLE), SAMPLE)
    streamed = list(frames(source, Selection("t2-000001")))
    assert streamed == walk(source, Selection("t2-000001"))
    assert streamed[-1]["type"] == "match_end" and all(frame["position"] is not None or frame["round"] is None
                                                        for frame in streamed[1:2])


def test_resource_module_reports_kilobytes() -> None:
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 1000
