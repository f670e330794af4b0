"""``drawlog replay`` agrees with ``drawlog validate``: five faults the fuzz targets found (tests/fuzz/test_regressions.py).

Each frame shows the violations ``validate`` reports on its line and the board after that line, as
``validate`` reads it: a move held for a reading (check/readings.py) included, a broken line that names no
match read as the open match's lost move (only when no other match is open, started before it or after), a
match_start nested too deep never listed, and a play on an All Fives arm that is not open yet drawn, never a
traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzz.inputs import damaged_logs
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from drawlog.check.validator import validate_paths
from drawlog.check.walkthrough import Selection, match_ids, walk
from drawlog.cli import app
from drawlog.engine.board import Board
from drawlog.errors import InputError
from drawlog.log.ids import bounded_id
from drawlog.log.reader import Source

EVERY = Path(__file__).parents[1] / "sample_logs" / "every-violation.jsonl"


def invoke(*args: str) -> Any:
    """``drawlog ARGS`` in this process; any exception but the exit fails the test."""
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output, result.output
    return result


def validated(log: Path) -> list[dict[str, Any]]:
    """``drawlog validate LOG --format json``'s violations."""
    return json.loads(invoke("validate", str(log), "--isolated", "--format", "json").stdout)["violations"]


def replayed(*args: str) -> list[dict[str, Any]]:
    """``drawlog replay ARGS --format json``'s frames."""
    result = invoke("replay", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def by_line(frames: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """``(line, code, message)`` of every violation the frames show."""
    return [(frame["line"], item["code"], item["message"]) for frame in frames for item in frame["violations"]]


def of_match(violations: list[dict[str, Any]], match: str) -> list[tuple[int, str, str]]:
    """``(line, code, message)`` of ``validate``'s violations of one match."""
    return [(item["line"], item["code"], item["message"]) for item in violations if item["match"] == match]


def test_replay_at_a_move_out_of_turn_shows_its_violation_and_the_board_after_it() -> None:
    """``replay FILE:224`` of every-violation.jsonl: line 224 is bob's move out of turn read with ann's move
    missing (M201); the replay held it until its round ended, and the frame showed no violation and ann still
    holding [0|2] (the move read as missing). Now the frame shows line 224's M201 and the board after it."""
    said = [item for item in validated(EVERY) if item["line"] == 224]
    assert [item["code"] for item in said] == ["M201"]
    frames = replayed(f"{EVERY}:224")
    last = frames[-1]
    assert last["line"] == 224
    assert [(item["code"], item["message"]) for item in last["violations"]] == [("M201", said[0]["message"])]
    assert "[0|2]" not in last["hands"]["ann"]
    assert [tile for tile in last["board"]["tiles"] if tile == "[0|2]"] == ["[0|2]"]
    assert last["position"] is not None


def test_each_frame_of_every_violation_shows_the_violations_validate_reports_on_its_line() -> None:
    """The whole of every match of every-violation.jsonl: frame by frame, ``validate``'s violations of the match on
    that line (line 224's M201 on line 224, not on the round_end at line 233)."""
    said = validated(EVERY)
    for match in sorted({item["match"] for item in said if item["match"] is not None}):
        frames = replayed(str(EVERY), "--match", match)
        lines = {frame["line"] for frame in frames}
        expected = [(item["line"], item["code"], item["message"]) for item in said
                    if item["match"] == match and item["line"] in lines]
        assert sorted(by_line(frames)) == sorted(expected), match
        assert [frame["line"] for frame in frames] == sorted(lines)


def test_replay_reads_a_broken_line_among_a_matchs_lines_as_validate_does(tmp_path: Path) -> None:
    """A line that cannot be read and names no match, while one match is open, is that match's lost move for
    ``validate``: bob's move out of turn after it is read with it ("line 18, which could not be read, is read
    as bob passing"). The walkthrough read only lines naming the match and made it a root error of its own."""
    lines = EVERY.read_text(encoding="utf-8").splitlines()[205:234]
    assert lines[17] == ""
    lines[17] = '{"type":"pass","player":"bob"'
    log = tmp_path / "lost.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    said = validated(log)
    assert [(item["line"], item["code"], item["follows"]) for item in said] == [(18, "F001", None), (19, "M201", 18)]
    assert "line 18, which could not be read, is read as" in said[1]["message"]
    frames = replayed(str(log))
    assert by_line(frames) == [(19, "M201", said[1]["message"])]
    assert 18 not in [frame["line"] for frame in frames]  # the F001 is of no match: no frame of its own
    at_19 = replayed(f"{log}:19")[-1]
    assert (at_19["line"], [item["code"] for item in at_19["violations"]]) == (19, ["M201"])


def _beside_another_match(before: list[str], after: list[str]) -> str:
    """Match B (M201-m1 of every-violation.jsonl: a broken line naming no match, bob's pass, then ann's move out
    of turn), another match's lines ``before`` B's start and ``after`` it, before B's deal."""
    lines = [line.replace("M201-m1", "B") for line in EVERY.read_text(encoding="utf-8").splitlines()[205:234]]
    lines[17] = '{"type":"pass","player":"bob"'
    return "\n".join(before + lines[:1] + after + lines[1:]) + "\n"


@pytest.mark.parametrize(("before", "after", "lost", "other"), [
    (['{"type":"match_start","match":"A","players":["cy","di"]}'], [], False, (1, "A", "F006")),
    ([], ['{"type":"match_start","match":"C","players":["cy","di"]}',
          '{"type":"match_end","match":"C","scores":{"cy":0,"di":0},"winner":null}'], True, (3, "C", "R305")),
], ids=["started-before-still-open", "started-after-ended"])
def test_replay_reads_a_broken_line_beside_another_match_as_validate_does(
        tmp_path: Path, before: list[str], after: list[str], lost: bool, other: tuple[int, str, str]) -> None:
    """A broken line naming no match is a lost move of the match open only when no other is: ``validate`` reads
    it as B's lost move when C, started after B, has ended, and not while A, started before B, is open. The
    walkthrough replayed B alone: it took the line for B's beside A and left it out after C had started, so
    ``replay --match B`` and ``replay LOG:LINE`` said the opposite of ``validate`` in the move out of turn's M201
    (read with the lost line or not)."""
    log = tmp_path / "two.jsonl"
    log.write_text(_beside_another_match(before, after), encoding="utf-8")
    broken = 18 + len(before) + len(after)  # (line 18 of B alone)
    said = validated(log)
    assert sorted((item["line"], item["match"] or "", item["code"], item["follows"]) for item in said) == sorted([
        (broken, "", "F001", None), (broken + 1, "B", "M201", broken if lost else None), (*other, None)])
    missing = f"line {broken}, which could not be read, is read as bob passing" if lost else "taken as bob passing"
    m201 = f"ann plays out of turn: it is bob's turn; a move of bob seems to be missing before this line ({missing})"
    assert of_match(said, "B") == [(broken + 1, "M201", m201)]
    frames = replayed(str(log), "--match", "B")
    assert by_line(frames) == [(broken + 1, "M201", m201)]
    assert broken not in [frame["line"] for frame in frames]  # (the F001 is of no match)
    at = replayed(f"{log}:{broken + 1}")
    assert at[-1]["line"] == broken + 1
    assert by_line(at) == [(broken + 1, "M201", m201)]


def test_replay_lists_no_match_whose_start_is_nested_too_deep(tmp_path: Path) -> None:
    """A match_start nested more than 64 deep is F002 (no match started); ``match_ids`` decoded it without the
    depth limit and listed m0, so ``replay FILE`` picked m0 and found no line of it."""
    meta = '{"k":[' * 40 + "1" + "]}" * 40
    log = tmp_path / "deep.jsonl"
    log.write_text(f'{{"type":"match_start","match":"m0","players":["a","b"],"meta":{meta}}}\n', encoding="utf-8")
    assert [item["code"] for item in validated(log)] == ["F002"]
    assert match_ids(Source(str(log), log), None) == []
    result = invoke("replay", str(log))
    assert result.exit_code == 2
    assert "holds 0 matches" in result.stderr
    result = invoke("replay", f"{log}:1")
    assert result.exit_code == 2
    assert "more than 64 deep, so it shows no match" in result.stderr


ARM_PLAYED_EARLY = [
    '{"type":"match_start","players":["p1","p2","p3"],"variant":"all-fives","match":"m0"}',
    ('{"type":"round_start","round":3,"opener":"p3","hands":{"p1":[[4,1],[0,0],[0,1],[5,2],[5,0],[2,2],[3,3]],'
     '"p2":[[5,3],[1,6],[2,3],[6,3],[6,5],[4,5],[1,1]],"p3":[[6,0],[3,4],[0,3],[6,6],[4,4],[2,0],[4,6]]},'
     '"stock":[[1,2],[2,6],[2,4],[0,4],[1,3],[1,5],[5,5]],"match":"m0"}'),
    '{"type":"play","player":"p3","tile":[0,6],"points":0,"match":"m0"}',
    '{"type":"draw","player":"p3","tile":[2,6],"match":"m0"}',
    '{"type":"draw","player":"p3","tile":[2,4],"match":"m0"}',
    '{"type":"play","player":"p1","tile":[2,5],"points":0,"match":"m0"}',
    '{"type":"play","player":"p3","tile":[2,6],"end":"left","points":0,"match":"m0"}',
    '{"type":"play","player":"p1","tile":[2,2],"end":"right","points":0,"match":"m0"}',
    '{"type":"play","player":"p3","tile":[0,3],"points":0,"match":"m0"}',
    "\\",
    '{"type":"play","player":"p3","tile":[1,2],"end":"up","points":0,"match":"m0"}',
]


def test_replay_of_an_arm_played_early_after_a_broken_line_draws_its_board(tmp_path: Path) -> None:
    """``replay`` raised TypeError (engine/board.py's Piece.side) on this All Fives log, where ``validate`` reports
    line 11's play on the up arm as M212: the board drawn beside the replay left out the moves held for a
    reading, so it had no spinner where the engine had one. Now every tile the engine placed is drawn."""
    log = tmp_path / "early.jsonl"
    log.write_text("\n".join(ARM_PLAYED_EARLY) + "\n", encoding="utf-8")
    said = validated(log)
    assert ("M212", 11) in [(item["code"], item["line"]) for item in said]
    for output_format in ("json", "text", "svg"):
        result = invoke("replay", str(log), "--format", output_format)
        assert result.exit_code == 0, result.output
    frames = replayed(str(log))
    last = frames[-1]
    assert last["line"] == 11
    assert ("M212", 11) in [(item["code"], frame["line"]) for frame in frames for item in frame["violations"]]
    on_board = set(last["board"]["tiles"])
    in_hands = {tile for hand in last["hands"].values() for tile in hand}
    assert len(on_board) == len(last["board"]["tiles"]) and not on_board & in_hands
    assert len(on_board) + len(in_hands) + last["stock_left"] == 28
    assert last["board"]["arms"]["up"][-1]["tile"] == "[1|2]"
    assert sorted(by_line(frames)) == sorted(of_match(said, "m0"))


@pytest.mark.parametrize("end", ["up", "down", "middle"])
def test_a_board_refuses_an_end_that_holds_no_value_and_stays_as_it_was(end: str) -> None:
    """Board.place on an arm before any spinner (or on no end at all) raised TypeError deep in Piece.side; now a
    ValueError naming the tile and the end, the board unchanged (the walkthrough draws what it can)."""
    board = Board(spinner_rules=True)
    board.place((0, 6), "left")
    before = board.as_data()
    with pytest.raises(ValueError, match=rf"\[1\|2\] cannot be laid on '{end}': that end holds no value"):
        board.place((1, 2), end)
    assert board.as_data() == before


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=damaged_logs())
def test_each_frame_of_a_damaged_match_shows_what_validate_reports_on_its_line(tmp_path_factory: pytest.TempPathFactory,
                                                                              data: bytes) -> None:
    """A damaged log (tests/fuzz/inputs.py): for each of its first three matches, every frame's violations are
    ``validate``'s of the match on that line, and each of them is on a frame (the held moves' too; a lost line
    naming no match read as this match's when no other match is open, started before it or after). Before the
    fixes these examples found a frame without its M201 (line 3 lost, line 4 out of turn), and (when it tested
    logs of one match only) could not test a lost line beside another match."""
    path = tmp_path_factory.mktemp("damaged") / "log.jsonl"
    path.write_bytes(data)
    source = Source(str(path), path)
    try:
        ids = match_ids(source, None)
    except InputError:  # (unreadable: binary, say; replay says so in one line, tested elsewhere)
        return
    found, _ = validate_paths(path)
    for match in ids[:3]:
        key = bounded_id(match)
        frames = walk(source, Selection(match))
        for frame in frames:
            shown = sorted((item["code"], item["message"]) for item in frame["violations"])
            said = sorted((violation.code, violation.message) for violation in found
                          if violation.line == frame["line"] and violation.match == key)
            assert shown == said, (match, frame["line"], shown, said)
        lines = {frame["line"] for frame in frames}
        assert [(violation.line, violation.code) for violation in found
                if violation.match == key and violation.line not in lines] == [], match


def test_replay_up_to_a_held_move_reads_on_but_shows_nothing_of_the_lines_after_it(tmp_path: Path) -> None:
    """``replay FILE:19`` at a move out of turn reads on to its round's end to know the reading; a violation of a
    later line read then (line 21's W401) is not put on line 19's frame, and no frame after 19 is shown."""
    lines = EVERY.read_text(encoding="utf-8").splitlines()[205:234]
    assert '"type":"play"' in lines[20]
    lines[20] = lines[20].replace('{"type":"play"', '{"type":"play","why":"x"')
    log = tmp_path / "later.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    said = {item["code"]: item for item in validated(log)}  # (W401 found first: the M201 once its round ends)
    assert sorted((item["line"], code) for code, item in said.items()) == [(19, "M201"), (21, "W401")]
    frames = replayed(f"{log}:19")
    assert frames[-1]["line"] == 19
    assert by_line(frames) == [(19, "M201", said["M201"]["message"])]
    assert by_line(replayed(str(log))) == [(19, "M201", said["M201"]["message"]),
                                           (21, "W401", said["W401"]["message"])]
