"""#26 item 3: long player names held as bounded keys (as long match ids are) in validate and stats.

Peak memory is measured in a subprocess (its ``VmHWM``, else ``getrusage``'s ``ru_maxrss``), never time; the
tables' and the violations' stored names are checked too.
"""

from __future__ import annotations

import gzip
import json
import resource
import subprocess
from pathlib import Path

import pytest
from peak_memory import peak_kb

from drawlog.check.names import bounded_names
from drawlog.check.validator import validate_lines
from drawlog.log.events import MatchEnd, Pass, RoundEnd, RoundStart
from drawlog.log.ids import MAX_ID, bounded_id

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "tournament-2p.jsonl"
NAME_LENGTH = 300_000  # a deal names each player twice or more: its line stays under the 1 MB limit
MATCHES = 150
#: Peak RSS (KB) validate may reach on the log below (measured: 45 MB; main's code: 1.1 GB).
BOUND_KB = 80_000
#: ``stats`` loads polars and pyarrow (measured: 110 MB; main's code: 2.4 GB).
STATS_BOUND_KB = 160_000


def _name(match: int, seat: int, length: int = NAME_LENGTH) -> str:
    """A long name: those of every match alike but for their last characters."""
    tail = f"-{match:06d}-{seat}"
    return "n" * (length - len(tail)) + tail


def _renamed(event: dict, names: dict[str, str]) -> dict:
    """``event`` with its players renamed (``p1`` to ``names['p1']``, …) wherever a name appears."""
    event = dict(event)
    if "players" in event:
        event["players"] = [names[name] for name in event["players"]]
    for field in ("player", "opener", "winner"):
        if isinstance(event.get(field), str):
            event[field] = names[event[field]]
    for field in ("hands", "points", "scores"):
        if isinstance(event.get(field), dict):
            event[field] = {names[name]: value for name, value in event[field].items()}
    return event


def _first_events(count: int) -> list[dict]:
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()[:count]]
    assert {event["match"] for event in events} == {events[0]["match"]}
    return events


def _match_lines(number: int, length: int = NAME_LENGTH) -> list[str]:
    """A match's start, deal, four plays and a pass by someone not playing (M201), its players long-named."""
    names = {"p1": _name(number, 1, length), "p2": _name(number, 2, length)}
    events = [_renamed(event, names) for event in _first_events(6)]
    events.append({"type": "pass", "player": _name(number, 3, length), "match": events[0]["match"], "seq": 7})
    return [json.dumps({**event, "match": f"n-{number:06d}"}) + "\n" for event in events]


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MATCHES matches whose players' names are NAME_LENGTH characters, alike but for their last ones."""
    path = tmp_path_factory.mktemp("names") / "names.jsonl.gz"
    with gzip.open(path, "wt", compresslevel=1) as stream:
        for number in range(MATCHES):
            stream.writelines(_match_lines(number))
    return path


def _peak_kb(args: list[str], cwd: Path) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Run ``drawlog ARGS`` in a child; its peak RSS in KB and the result, its output as text."""
    peak, done = peak_kb(args, cwd)
    return peak, subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_bounded_names_replaces_only_long_names() -> None:
    short = Pass(player="p1", match="m")
    assert bounded_names(short) is short
    long_pass = Pass(player=_name(1, 1, 1000), match="m")
    assert bounded_names(long_pass).player == bounded_id(_name(1, 1, 1000))
    first, second = _name(1, 1, 1000), _name(1, 2, 1000)
    deal = RoundStart(round=1, opener=first, hands={first: [(1, 2)], second: [(3, 4)]}, match="m")
    bounded = bounded_names(deal)
    assert bounded.opener == bounded_id(first) and list(bounded.hands) == [bounded_id(first), bounded_id(second)]
    assert bounded_id(first) != bounded_id(second) and all(len(name) <= MAX_ID for name in bounded.hands)
    end = RoundEnd(round=1, reason="domino", winner=second, points={first: 0, second: 5}, match="m")
    assert bounded_names(end).points == {bounded_id(first): 0, bounded_id(second): 5}
    over = MatchEnd(scores={first: 1}, winner=None, match="m")
    assert bounded_names(over).scores == {bounded_id(first): 1} and bounded_names(over).winner is None


def test_a_long_named_match_replays_as_a_short_named_one() -> None:
    """The sample's first match with 1,000-character names: no violation, as with p1 and p2."""
    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    match = [event for event in events if event["match"] == events[0]["match"]]
    names = {"p1": _name(0, 1, 1000), "p2": _name(0, 2, 1000)}
    found, summary = validate_lines([json.dumps(_renamed(event, names)) for event in match])
    assert found == [] and summary.valid_matches == 1


def test_fix_writes_the_whole_long_names_back() -> None:
    """``fix`` replays with bounded names but puts a claim right with the names as logged."""
    from drawlog.check.fix import fix_lines

    events = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    names = {"p1": _name(0, 1, 1000), "p2": _name(0, 2, 1000)}
    match = [_renamed(event, names) for event in events if event["match"] == events[0]["match"]]
    end = next(index for index, event in enumerate(match) if event["type"] == "round_end")
    right = match[end]
    match[end] = {**right, "winner": names["p1"] if right["winner"] == names["p2"] else names["p2"],
                  "points": {name: points + 1 for name, points in right["points"].items()}}
    result = fix_lines([json.dumps(event).encode() for event in match], "names.jsonl")
    fixed = json.loads(result.lines[end])
    assert fixed["winner"] == right["winner"] and fixed["points"] == right["points"]
    assert validate_lines([line.decode() for line in result.lines])[0] == []


def test_validate_names_the_bounded_name_in_messages() -> None:
    found, _ = validate_lines(_match_lines(4, 1000))
    m201 = [violation for violation in found if violation.code == "M201"]
    assert len(m201) == 1 and m201[0].player == bounded_id(_name(4, 3, 1000))
    assert m201[0].message == f"{bounded_id(_name(4, 3, 1000))} is not a player of this match"


def test_validate_json_on_long_names_is_bounded(long_names: Path, tmp_path: Path) -> None:
    peak, done = _peak_kb(["validate", str(long_names), "--format", "json"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert peak < BOUND_KB
    violations = json.loads(done.stdout)["violations"]
    players = [violation["player"] for violation in violations if violation["code"] == "M201"]
    assert players == [bounded_id(_name(number, 3)) for number in range(MATCHES)]
    assert max(len(violation["message"]) for violation in violations) < 2 * MAX_ID


def test_stats_on_long_names_is_bounded_and_keeps_players_apart(long_names: Path, tmp_path: Path) -> None:
    import polars as pl

    peak, done = _peak_kb(["stats", str(long_names), "-o", "out"], tmp_path)
    assert peak < STATS_BOUND_KB, done.stderr
    out = tmp_path / "out"
    players = pl.read_parquet(out / "players").get_column("player").to_list()
    assert sorted(set(players)) == sorted(bounded_id(_name(number, seat)) for number in range(MATCHES)
                                          for seat in (1, 2))
    names = pl.read_parquet(out / "matches").get_column("player_names").to_list()
    assert names[0] == [bounded_id(_name(0, 1)), bounded_id(_name(0, 2))]
    for table, column in [("moves", "player"), ("deals", "player"), ("rounds", "opener"), ("violations", "player"),
                          ("players", "player")]:
        values = pl.read_parquet(out / table).get_column(column).drop_nulls()
        assert len(values) and values.str.len_chars().max() <= MAX_ID, table


def test_resource_module_reports_kilobytes() -> None:
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 1000
