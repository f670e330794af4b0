"""Issue 24 item 6: ``drawlog filter`` options (--code, --variant, --winner, --claimed-winner, --rounds,
--since/--until, --forfeit/--no-forfeit, --dedupe), each with exact expectations, and an account of every
line read whose numbers add up, with match counts that agree with ``validate``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import drawlog
from drawlog.check.extract import MatchFilter
from drawlog.check.filters import Criteria, parse_rounds, parse_when
from drawlog.cli import app
from drawlog.log.reader import expand_paths
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ENV = {"COLUMNS": "200", "NO_COLOR": "1", "FORCE_COLOR": None}
ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
runner = CliRunner()


def cli(*args: object):
    result = runner.invoke(app, [str(arg) for arg in args], env=ENV)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def events(match_id: str, seed: int = 1, variant: str = "draw") -> list[dict]:
    lines = encode_events(Simulator(seed, SimulationOptions(variant=variant)).match(match_id))
    return [json.loads(line) for line in lines]


def write(path: Path, matches: list[list[dict]]) -> Path:
    path.write_text("".join(json.dumps(event) + "\n" for match in matches for event in match), encoding="utf-8")
    return path


def kept_ids(path: Path) -> list[str]:
    """The match ids of a log, in the order their match_start comes."""
    ids = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "match_start":
            ids.append(event["match"])
    return ids


def run_filter(tmp_path: Path, log: Path, *options: object) -> tuple[list[str], str]:
    out = tmp_path / "out.jsonl"
    result = cli("filter", log, "-o", out, *options)
    assert result.exit_code == 0, result.output
    return kept_ids(out), result.output


def account_of(paths: list[str], criteria: Criteria, work: Path):
    chooser = MatchFilter(criteria, work)
    list(chooser.decide(expand_paths(paths)))
    kept = chooser.spool()
    return chooser, kept


# --- counts that agree with validate ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "matches", "account"), [
    ("every-violation.jsonl", 36, ("1,606 lines read: 1,599 in 36 matches (288 kept; dropped: --valid 29 "
                                   "matches, 1,311 lines), 1 outside any match, 5 blank, 1 invalid")),
    ("interleaved.jsonl", 4, ("1,707 lines read: 1,707 in 4 matches (1,707 kept), 0 outside any match, 0 blank, "
                              "0 invalid")),
])
def test_filter_counts_matches_and_lines_as_validate_does(tmp_path: Path, name: str, matches: int,
                                                          account: str) -> None:
    log = SAMPLES / name
    found = drawlog.validate(str(log))
    assert found.summary.matches == matches
    _, output = run_filter(tmp_path, log, "--valid")
    assert f"wrote {found.summary.valid_matches} match" in output
    assert f"of {matches} (" in output
    assert account in output
    assert f"{found.summary.lines:,} lines read" in output


def test_a_restarted_id_is_two_matches_each_filtered_on_its_own(tmp_path: Path) -> None:
    first, second = events("r1", seed=1), events("r1", seed=2)
    cut = first[:3]  # restarted (F005) after its third line
    log = write(tmp_path / "restart.jsonl", [cut, second])
    found = drawlog.validate(str(log))
    assert (found.summary.matches, found.summary.valid_matches) == (2, 0)  # F005 is an error of the second
    kept, output = run_filter(tmp_path, log, "--valid")
    assert kept == []
    assert (f"{len(cut) + len(second)} in 2 matches (0 kept; dropped: --valid 2 matches, "
            f"{len(cut) + len(second)} lines)") in output
    kept, _ = run_filter(tmp_path, log, "--invalid")
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == log.read_text(encoding="utf-8")
    kept, output = run_filter(tmp_path, log, "--code", "F005")  # the violation is the second match's
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines() == [json.dumps(e) for e in second]
    assert f"({len(second)} kept; dropped: --code 1 match, 3 lines)" in output


# --- each option ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("codes", ["R306", "M2", "F00", "W", "R302,R303", "r30"])
def test_code_keeps_exactly_the_matches_validate_reports_those_codes_in(tmp_path: Path, codes: str) -> None:
    log = SAMPLES / "every-violation.jsonl"
    prefixes = tuple(code.strip().upper() for code in codes.split(","))
    found = drawlog.validate(str(log))
    started = set(kept_ids(log))  # a violation naming an id never started (F004-m2) is of no match
    expected = {v.match for v in found.violations if v.code.startswith(prefixes)} & started
    kept, output = run_filter(tmp_path, log, "--code", codes)
    assert set(kept) == expected
    assert expected  # each of these codes is in the sample
    dropped = found.summary.matches - len(kept)
    assert f"dropped: --code {dropped} match" in output


def test_code_repeated_means_any_and_bad_codes_are_refused(tmp_path: Path) -> None:
    log = SAMPLES / "every-violation.jsonl"
    both, _ = run_filter(tmp_path, log, "--code", "R306", "--code", "R302")
    joined, _ = run_filter(tmp_path, log, "--code", "R306,R302")
    assert both == joined and len(both) == 2
    for bad, message in (("X9", "'X9' matches no rule code"), ("", "names no code"), (",", "names no code")):
        result = cli("filter", log, "-o", tmp_path / "no.jsonl", "--code", bad)
        assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "no.jsonl").exists()


def test_variant(tmp_path: Path) -> None:
    log = write(tmp_path / "mixed.jsonl", [events("d1"), events("a1", variant="all-fives"), events("d2", seed=3)])
    assert run_filter(tmp_path, log, "--variant", "all-fives")[0] == ["a1"]
    kept, output = run_filter(tmp_path, log, "--variant", "draw")
    assert kept == ["d1", "d2"] and "dropped: --variant 1 match" in output
    assert cli("filter", log, "--variant", "domino", "-o", tmp_path / "x.jsonl").exit_code == 2


def _claiming(match: list[dict], winner: str) -> list[dict]:
    end = dict(match[-1])
    assert end["type"] == "match_end"
    end["winner"] = winner
    return [*match[:-1], end]


def test_winner_is_the_replays_and_claimed_winner_the_logs(tmp_path: Path) -> None:
    honest = events("h1", seed=1)
    real = honest[-1]["winner"]
    assert real is not None
    other = next(name for name in honest[0]["players"] if name != real)
    liar = _claiming(events("l1", seed=1), other)  # the same match, claiming the other player won (R306)
    log = write(tmp_path / "claims.jsonl", [honest, liar])
    assert run_filter(tmp_path, log, "--winner", real)[0] == ["h1", "l1"]
    assert run_filter(tmp_path, log, "--winner", other)[0] == []
    assert run_filter(tmp_path, log, "--claimed-winner", other)[0] == ["l1"]
    assert run_filter(tmp_path, log, "--claimed-winner", real)[0] == ["h1"]
    kept, output = run_filter(tmp_path, log, "--winner", real, "--claimed-winner", other)  # AND
    assert kept == ["l1"] and "dropped: --claimed-winner 1 match" in output
    unfinished = events("u1", seed=1)[:-1]  # no match_end: no winner at all
    log = write(tmp_path / "unfinished.jsonl", [unfinished])
    assert run_filter(tmp_path, log, "--winner", real)[0] == []


def test_rounds(tmp_path: Path) -> None:
    matches = [events(f"m{seed}", seed=seed) for seed in range(1, 9)]
    played = {match[0]["match"]: sum(event["type"] == "round_start" for event in match) for match in matches}
    assert len(set(played.values())) > 1
    log = write(tmp_path / "rounds.jsonl", matches)
    low, high = min(played.values()), max(played.values())
    for text, wanted in ((str(low), lambda n: n == low), (f"{low}..{high}", lambda n: True),
                         (f"{low + 1}..", lambda n: n > low), (f"..{high - 1}", lambda n: n < high),
                         (f"{high + 1}..", lambda n: False)):
        kept, _ = run_filter(tmp_path, log, "--rounds", text)
        assert kept == [match_id for match_id, count in played.items() if wanted(count)], text
    for bad in ("x", "3..2", "..", "", "1..2..3", "-1"):
        result = cli("filter", log, "--rounds", bad, "-o", tmp_path / "no.jsonl")
        assert result.exit_code == 2 and "--rounds" in result.output, (bad, result.output)


def test_parse_rounds_and_when() -> None:
    assert parse_rounds("3") == (3, 3)
    assert parse_rounds("2..5") == (2, 5)
    assert parse_rounds("2..") == (2, None)
    assert parse_rounds("..5") == (None, 5)
    assert parse_when("2026-05-01", end=False).isoformat() == "2026-05-01T00:00:00+00:00"
    assert parse_when("2026-05-01", end=True).isoformat() == "2026-05-02T00:00:00+00:00"
    assert parse_when("2026-05-01T12:30:00Z", end=False).isoformat() == "2026-05-01T12:30:00+00:00"
    assert parse_when("2026-05-01T12:30:00+02:00", end=True).isoformat() == "2026-05-01T12:30:00+02:00"
    assert parse_when("2026-05-01 12:30", end=False).isoformat() == "2026-05-01T12:30:00+00:00"
    with pytest.raises(ValueError, match="RFC 3339"):
        parse_when("yesterday", end=False)


def test_since_and_until_by_the_match_start_ts_else_the_first_ts(tmp_path: Path) -> None:
    stamped = events("s1", seed=1)
    stamped[0]["ts"] = "2026-05-01T10:00:00Z"
    later = events("s2", seed=2)  # no ts on its match_start: its round_start's counts
    later[1]["ts"] = "2026-05-02T00:00:00+02:00"  # 2026-05-01T22:00Z
    later[2]["ts"] = "2026-04-01T00:00:00Z"  # a later line's earlier ts does not count
    bare = events("s3", seed=3)
    log = write(tmp_path / "timed.jsonl", [stamped, later, bare])
    kept, output = run_filter(tmp_path, log, "--since", "2026-05-01")
    assert kept == ["s1", "s2"]
    assert f"dropped: no ts 1 match, {len(bare)} lines" in output
    assert run_filter(tmp_path, log, "--until", "2026-05-01")[0] == ["s1", "s2"]  # the whole day
    assert run_filter(tmp_path, log, "--until", "2026-04-30")[0] == []
    assert run_filter(tmp_path, log, "--since", "2026-05-01T12:00:00Z")[0] == ["s2"]
    kept, output = run_filter(tmp_path, log, "--until", "2026-05-01T12:00:00Z")
    assert kept == ["s1"] and "--until 1 match" in output
    assert run_filter(tmp_path, log, "--since", "2026-05-01T23:00:00+02:00")[0] == ["s2"]  # 21:00Z
    assert run_filter(tmp_path, log)[0] == ["s1", "s2", "s3"]  # without either, no ts is needed
    result = cli("filter", log, "--since", "last week", "-o", tmp_path / "no.jsonl")
    assert result.exit_code == 2 and "--since" in result.output and "RFC 3339" in result.output


def _forfeited(match_id: str) -> list[dict]:
    match = events(match_id, seed=4)
    start = match[0]
    cut = next(index for index, event in enumerate(match) if event["type"] == "play") + 1
    players = start["players"]
    end = {"type": "match_end", "match": match_id, "scores": {name: 0 for name in players},
           "winner": None, "forfeit": {"player": players[0], "reason": "timeout"}}
    return [*match[:cut], end]


def test_forfeit_and_no_forfeit(tmp_path: Path) -> None:
    log = write(tmp_path / "forfeits.jsonl", [events("n1"), _forfeited("f1"), events("n2", seed=2)])
    assert run_filter(tmp_path, log, "--forfeit")[0] == ["f1"]
    kept, output = run_filter(tmp_path, log, "--no-forfeit")
    assert kept == ["n1", "n2"] and "dropped: --no-forfeit 1 match" in output


def test_dedupe_a_log_read_twice_and_one_uploaded_again_under_new_ids(tmp_path: Path) -> None:
    once = [events("a", seed=1), events("b", seed=2), events("c", seed=3)]
    single = write(tmp_path / "once.jsonl", once)
    twice = tmp_path / "twice.jsonl"
    twice.write_bytes(single.read_bytes() * 2)
    out = tmp_path / "deduped.jsonl"
    result = cli("filter", twice, "--dedupe", "-o", out)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == single.read_bytes()
    lines = sum(len(match) for match in once)
    assert (f"{2 * lines:,} lines read: {2 * lines:,} in 6 matches ({lines:,} kept; dropped: --dedupe 3 matches, "
            f"{lines:,} lines)") in result.output
    renamed = [{**event, "match": "new-" + event["match"], "ts": "2026-06-01T00:00:00Z"} for event in once[1]]
    for number, event in enumerate(renamed, start=1):
        event["seq"] = number + 100
    changed = events("d", seed=1)
    changed[0]["meta"] = {"table": "other"}  # one field differs: not alike
    log = write(tmp_path / "upload.jsonl", [*once, renamed, changed])
    kept, output = run_filter(tmp_path, log, "--dedupe")
    assert kept == ["a", "b", "c", "d"]
    assert "--dedupe 1 match" in output
    # the first of the matches alike that meet the other conditions is the one kept
    kept, _ = run_filter(tmp_path, log, "--dedupe", "--match", "new-b", "--match", "a")
    assert kept == ["a", "new-b"]


def test_help_names_every_option() -> None:
    result = cli("filter", "--help")
    text = re.sub(r"\s+", " ", result.output)
    for option in ("--code", "--variant", "--winner", "--claimed-winner", "--rounds", "--since", "--until",
                   "--forfeit", "--no-forfeit", "--dedupe", "not the log's claim"):
        assert option in text, option


def test_quiet_prints_no_account(tmp_path: Path) -> None:
    result = cli("filter", SAMPLES / "interleaved.jsonl", "-o", tmp_path / "o.jsonl", "-q")
    assert result.exit_code == 0 and result.output == ""


# --- every line accounted for ---------------------------------------------------------------------------------------

CONDITIONS = {
    "valid": Criteria(valid=True), "invalid": Criteria(valid=False), "player": Criteria(players=frozenset({"p2"})),
    "code": Criteria(codes=frozenset({"R306", "M207", "F003"})), "rounds": Criteria(rounds=(2, None)),
    "winner": Criteria(winners=frozenset({"p1"})), "dedupe": Criteria(dedupe=True),
    "variant": Criteria(variant="all-fives"),
    "since": Criteria(since=parse_when("2020-01-01", end=False)), "forfeit": Criteria(forfeit=False),
    "many": Criteria(valid=True, players=frozenset({"p1"}), rounds=(None, 3), dedupe=True),
}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), share=st.sampled_from([0.3, 0.6, 1.0]),
       hostile=st.lists(st.sampled_from(["after-end", "junk", "blank", "stranger", "restart", "copy", "bad-event",
                                         "early"]), max_size=6),
       variant=st.sampled_from(["draw", "all-fives"]), condition=st.sampled_from(sorted(CONDITIONS)))
def test_every_line_is_accounted_for_once(tmp_path_factory: pytest.TempPathFactory, seed: int, share: float,
                                          hostile: list[str], variant: str, condition: str) -> None:
    folder = tmp_path_factory.mktemp("account")
    log = folder / "sim.jsonl"
    made = cli("simulate", "-n", 5, "--seed", seed, "--faults", share, "--variant", variant,
               "--match-prefix", "m", "-o", log)
    assert made.exit_code == 0, made.output
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    ends = [index for index, line in enumerate(lines) if '"match_end"' in line]
    last = json.loads(lines[-1])["match"]
    for number, kind in enumerate(hostile):
        at = ends[number % len(ends)] + 1
        match = json.loads(lines[at - 1])["match"]
        extra = {"after-end": lines[at - 1], "junk": "{not json\n", "blank": "\n",
                 "stranger": json.dumps({"type": "pass", "match": "nobody", "player": "p1"}) + "\n",
                 "restart": json.dumps({"type": "match_start", "match": match, "players": ["p1", "p2"]}) + "\n",
                 "copy": "".join(lines[:at]),
                 "bad-event": json.dumps({"type": "pass", "match": match, "player": 5}) + "\n",  # F002, in its match
                 "early": json.dumps({"type": "pass", "match": last, "player": "p1"}) + "\n",  # before it starts
                 }[kind]
        if kind == "bad-event":
            at -= 1
        elif kind == "early":
            at = 0
        lines.insert(at, extra)
        ends = [index + (index >= at) for index in ends]
    log.write_text("".join(lines), encoding="utf-8")
    found = drawlog.validate(str(log))
    chooser, kept = account_of([str(log)], CONDITIONS[condition], folder)
    account = chooser.account
    assert account.lines == found.summary.lines
    assert account.total() == account.lines
    assert account.matches() == found.summary.matches == len(chooser.found)
    assert account.kept_matches == len(kept)
    assert account.kept_lines == sum(path.read_bytes().count(b"\n") for _, path in kept)
    assert account.blank == found.summary.blank_lines
    assert account.invalid <= found.summary.invalid_lines


def test_a_match_dropped_is_counted_under_the_first_condition_it_fails(tmp_path: Path) -> None:
    matches = [events("d1"), events("a1", variant="all-fives"), events("d2", seed=3)]
    log = write(tmp_path / "mixed.jsonl", matches)
    lines = [len(match) for match in matches]
    _, output = run_filter(tmp_path, log, "--invalid", "--variant", "all-fives")
    assert f"(0 kept; dropped: --invalid 3 matches, {sum(lines):,} lines)" in output
    _, output = run_filter(tmp_path, log, "--rounds", "99..", "--variant", "all-fives")
    assert (f"(0 kept; dropped: --variant 2 matches, {lines[0] + lines[2]:,} lines; --rounds 1 match, "
            f"{lines[1]:,} lines)") in output


def test_standard_input_and_split_by_are_accounted_for_too(tmp_path: Path) -> None:
    once = write(tmp_path / "once.jsonl", [events("a", seed=1), events("b", seed=2)])
    data = once.read_bytes() * 2 + b"\n{broken\n"
    result = runner.invoke(app, ["filter", "-", "--dedupe", "-o", str(tmp_path / "split"), "--split-by", "match"],
                           env=ENV, input=data)
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in (tmp_path / "split").iterdir()) == ["a.jsonl", "b.jsonl"]
    total = once.read_bytes().count(b"\n")
    assert (f"{2 * total + 2:,} lines read: {2 * total:,} in 4 matches ({total:,} kept; dropped: --dedupe 2 "
            f"matches, {total:,} lines), 0 outside any match, 1 blank, 1 invalid") in result.output
