"""Issue 25 item 4: position strings (``dp1 …``) — the round trip, the rebuilt round, the errors, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drawlog.check.walkthrough import legal_moves
from drawlog.engine.allfives import FivesRound
from drawlog.engine.board import Board
from drawlog.engine.line import LEFT
from drawlog.engine.match import Match
from drawlog.engine.position import Position
from drawlog.engine.profiles import PROFILES
from drawlog.engine.tiles import TILES
from drawlog.errors import DrawlogError, PositionError
from drawlog.log.events import Draw, MatchStart, Pass, Play, RoundEnd, RoundStart
from drawlog.play.simulate import SimulationOptions, Simulator, check_options, encode_events

ROOT = Path(__file__).resolve().parent.parent


def _apply(state, event, seat):
    if isinstance(event, Draw):
        return state.try_draw(seat, event.tile)
    if isinstance(event, Play):
        return state.try_play(seat, event.tile, event.end)
    return state.try_pass(seat)


def _same_state(rebuilt, state):
    """The rebuilt round behaves as the original: legal moves, draws, passes, scores, the end."""
    assert type(rebuilt) is type(state)
    assert rebuilt.hands == state.hands and rebuilt.stock == state.stock and rebuilt.stock_left == state.stock_left
    assert (rebuilt.turn, rebuilt.passed, rebuilt.reason, rebuilt.winner) == \
        (state.turn, state.passed, state.reason, state.winner)
    assert (rebuilt.line.left, rebuilt.line.right, rebuilt.line.length) == \
        (state.line.left, state.line.right, state.line.length)
    assert rebuilt.next_stock_tile() == state.next_stock_tile()
    for seat in range(len(state.names)):
        assert rebuilt.can_draw(seat) == state.can_draw(seat)
        assert rebuilt.can_pass(seat) == state.can_pass(seat)
        assert rebuilt.legal_plays(seat) == state.legal_plays(seat)
    if state.reason is None:
        assert legal_moves(rebuilt) == legal_moves(state)
    assert rebuilt.score() == state.score()
    if isinstance(state, FivesRound):
        assert rebuilt.tableau.count() == state.tableau.count()
        assert rebuilt.to_win == state.to_win and rebuilt.must_place == state.must_place


def _check_match(events):
    """Replay a simulated match; at every ply: parse(to_string(p)) == p, the rebuilt round behaves alike and,
    played on to the round's end with the logged moves, ends alike."""
    start = events[0]
    assert isinstance(start, MatchStart)
    hand, reserve = start.rules.given() if start.rules is not None else (None, None)
    rules = PROFILES[start.variant].rules_for(len(start.players), hand, reserve, start.target)
    match = Match(start.players, rules=rules)
    board = None
    twins = []
    plies = 0
    for event in events[1:]:
        if isinstance(event, RoundStart):
            _, state = match.deal_round(event.round, event.opener, event.hands, event.stock)
            board = Board(isinstance(state, FivesRound))
            twins = []
        elif isinstance(event, RoundEnd):
            match.settle_round()
            closed = Position.from_match(match, board)
            assert Position.parse(closed.to_string()) == closed and closed.over == state.reason
            for twin in twins:
                assert twin.reason == state.reason and twin.score() == state.score()
            continue
        elif isinstance(event, (Draw, Play, Pass)):
            seat = match.seat_of[event.player]
            placed = None
            if isinstance(event, Play):
                empty = state.line.is_empty
                _, placement = state.check_play(seat, event.tile, event.end)
                placed = (event.tile if empty else TILES[placement.tile], LEFT if empty else placement.end)
            faults = _apply(state, event, seat)
            assert faults == ()
            if placed is not None:
                board.place(*placed)
            for twin in twins:
                assert _apply(twin, event, seat) == ()
        else:
            continue
        position = Position.from_match(match, board)
        text = position.to_string()
        assert "\n" not in text and text.startswith("dp1 ")
        again = Position.parse(text)
        assert again == position, text
        assert again.to_string() == text
        rebuilt = again.to_round()
        _same_state(rebuilt, state)
        twins.append(rebuilt)
        plies += 1
    return plies


RULES = {"draw": [None, {"hand": 5}, {"reserve": 0}, {"hand": 6, "reserve": 4}, {"reserve": 1}],
         "all-fives": [None, {"hand": 5}, {"hand": 7}]}


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(["draw", "all-fives"]), players=st.sampled_from([2, 3, 4]),
       rules=st.integers(0, 4), bots=st.sampled_from([("random",), ("greedy", "random"), ("tactician",)]),
       log_stock=st.booleans())
def test_every_ply_of_simulated_matches_round_trips_and_rebuilds_the_same_round(seed, variant, players, rules, bots,
                                                                                log_stock):
    house = RULES[variant][rules % len(RULES[variant])]
    options = SimulationOptions(players=players, variant=variant, rules=house, bots=bots, log_stock=log_stock)
    try:
        check_options(options)
    except ValueError:
        return
    events = Simulator(seed, options).match("m1")
    assert _check_match(events) > 0


def test_a_draw_position_reads_as_documented():
    text = ("dp1 draw h7r2t100 ann:12,bob:30 round=2 opener=bob line=34,45r,31l ends=1,5 "
            "hands=00.11.16.22.55/02.06.26.33.44.46 stock=order:01.12.14.15.24.25.35.36.56.66.03.05.04.23 turn=ann")
    position = Position.parse(text)
    assert position.names == ("ann", "bob") and position.scores == (12, 30) and position.turn == 0
    assert position.line == (((3, 4), "left"), ((4, 5), "right"), ((3, 1), "left"))
    assert str(position) == text
    state = position.to_round()
    assert (state.line.left, state.line.right) == (1, 5)
    assert legal_moves(state) == [{"action": "play", "tile": "[1|1]", "end": "left"},
                                  {"action": "play", "tile": "[1|6]", "end": "left"},
                                  {"action": "play", "tile": "[5|5]", "end": "right"}, {"action": "draw"}]
    assert state.next_stock_tile() == 1


def test_tiles_placed_may_be_written_either_way_round():
    one = Position.parse("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=34,54r ends=3,5 "
                         "hands=-/- stock=set:" + ".".join(f"{a}{b}" for a, b in TILES if (a, b) not in ((3, 4), (4, 5)))
                         + " turn=a")
    assert one.line[1] == ((4, 5), "right")
    assert one.to_string().split()[6] == "line=34,45r"


BAD = [
    ("dp2 draw", 1, "starts with 'dp1'"),
    ("dp1 chess h7r2t100 a:0,b:0", 5, "unknown variant 'chess'"),
    ("dp1 draw h7t100 a:0,b:0", 10, "the rules are h<hand>r<reserve>"),
    ("dp1 all-fives h7r2t250 a:0,b:0", 17, "All Fives has no reserve"),
    ("dp1 draw h7r2t100 a:0,a:0", 23, "seated twice"),
    ("dp1 draw h7r2t100 a:x,b:0", 21, "a score is a whole number"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=c", 42, "the opener 'c' is not at the table"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=34,16r", 52, "[1|6] cannot go right: the right end is 4"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=34,44u", 52, "Draw has no up or down end"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=34,44r ends=3,5", 61, "the line's open ends are 3,4"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=34,44r ends=3,4 hands=00.34/-", 74,
     "[3|4] is in a's hand and on the line too"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=- ends=- hands=0a/-", 64, "a tile is two pips 0–6"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=- ends=- hands=00/- stock=set:11", 75, "are nowhere"),
    ("dp1 draw h7r2t100 a:0,b:0 round=1 opener=a colour=red", 44, "expected key=value"),
    ("dp1 draw h7r2t100 a:0,b:0 round=0", 33, "the round is at least 1"),
]


@pytest.mark.parametrize("text,column,words", BAD, ids=[case[2][:30] for case in BAD])
def test_a_bad_string_names_the_column(text, column, words):
    with pytest.raises(PositionError) as raised:
        Position.parse(text)
    assert raised.value.column == column, str(raised.value)
    assert words in str(raised.value)
    assert str(raised.value).startswith(f"column {column}: ")
    assert isinstance(raised.value, DrawlogError)


def test_a_missing_field_is_named_at_the_end():
    with pytest.raises(PositionError, match=r"column 34: opener= is missing"):
        Position.parse("dp1 draw h7r2t100 a:0,b:0 round=1")


def test_names_are_percent_encoded_so_any_name_round_trips():
    events = Simulator(5, SimulationOptions(variant="draw")).match("m1")
    position = None
    match = Match(["a b", "-"], rules=PROFILES["draw"].rules_for(2))
    start = events[1]
    match.deal_round(1, "-", {"a b": start.hands["p1"], "-": start.hands["p2"]}, start.stock)
    position = Position.from_match(match, Board())
    text = position.to_string()
    assert "a%20b:0,%2D:0" in text and "opener=%2D" in text
    assert Position.parse(text) == position


@pytest.mark.parametrize("variant", ["draw", "all-fives"])
def test_every_frame_of_a_faulty_log_has_a_position_that_rebuilds_its_board(variant, tmp_path):
    """Logs with one injected violation a match (M202, M206, M212 applied, S104 …): each frame's string reads
    back, writes again the same, and the rebuilt round has the frame's hands, stock and legal moves."""
    from drawlog.check.walkthrough import Selection, walk
    from drawlog.log.reader import Source
    from drawlog.views.position_view import position_frame

    simulator = Simulator(1, SimulationOptions(variant=variant, fault_rate=1.0))
    checked = 0
    for index in range(8):
        path = tmp_path / f"m{index}.jsonl"
        path.write_bytes(b"".join(encode_events(simulator.match(f"m{index}"))))
        for frame in walk(Source(str(path), path), Selection(f"m{index}")):
            if frame["type"] == "match_start":
                assert frame["position"] is None
                continue
            position = Position.parse(frame["position"])
            assert position.to_string() == frame["position"]
            shown = position_frame(position)
            for field in ("hands", "stock_left", "drawable", "legal", "over", "variant", "round"):
                assert shown[field] == frame[field], (field, frame["line"])
            assert shown["board"] == frame["board"]
            checked += 1
    assert checked > 300


def _drawlog(*args, stdin=None):
    import subprocess
    import sys

    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "drawlog", *args], capture_output=True, text=True, env=env,
                          input=stdin, cwd=ROOT, check=False)


def test_replay_prints_the_position_and_replay_position_shows_the_same_board(tmp_path):
    path = tmp_path / "fives.jsonl"
    path.write_bytes(b"".join(encode_events(Simulator(4, SimulationOptions(variant="all-fives")).match("m1"))))
    shown = _drawlog("replay", f"{path}:9")
    assert shown.returncode == 0, shown.stderr
    last = shown.stdout.splitlines()[-1]
    assert last.startswith("position: dp1 all-fives h9r0t250 p1:0,p2:0 round=1 opener=p1 line=")
    text = last.removeprefix("position: ")
    frames = _drawlog("replay", f"{path}:9", "--format", "json")
    import json

    assert json.loads(frames.stdout.splitlines()[-1])["position"] == text
    again = _drawlog("replay", "--position", text)
    assert again.returncode == 0, again.stderr
    body = shown.stdout.split("\n\n")[-2].split("\n", 1)[1]  # the last frame, without its heading
    assert again.stdout.startswith("Position  round 1\n")
    assert body in again.stdout
    assert again.stdout.splitlines()[-1] == last
    one = json.loads(_drawlog("replay", "--position", text, "-f", "json").stdout)
    assert one["type"] == "position" and one["position"] == text and one["legal"]
    svg = _drawlog("replay", "--position", text, "-f", "svg").stdout
    assert svg.startswith("<svg") and svg.count('class="tile"') == text.split("line=")[1].split()[0].count(",") + 1


def test_a_bad_position_on_the_command_line_is_one_line_with_the_column_and_exit_2():
    bad = _drawlog("replay", "--position", "dp1 draw h7r2t100 a:0,b:0 round=1 opener=c")
    assert bad.returncode == 2
    assert bad.stderr == "Error: --position: column 42: the opener 'c' is not at the table (a, b)\n"
    assert bad.stdout == ""
    neither = _drawlog("replay")
    assert neither.returncode == 2 and "give a log (FILE or FILE:LINE) or --position STRING" in neither.stderr
    mixed = _drawlog("replay", "--position", "dp1", "--at", "3")
    assert mixed.returncode == 2 and "a position string shows one board" in mixed.stderr


# -- API manners -----------------------------------------------------------------------------------------------


def _dict_log():
    events = Simulator(2, SimulationOptions(variant="draw")).match("m1")
    return [json.loads(line) for line in encode_events(events)]


def test_validate_takes_plain_dicts_as_events_and_finds_what_the_file_would():
    import drawlog

    dicts = _dict_log()
    clean = drawlog.validate(dicts)
    assert clean.ok and clean.summary.matches == 1 and clean.summary.lines == len(dicts)
    dicts[3] = {**dicts[3], "tile": [7, 1]}
    found = drawlog.validate_events(iter(dicts), file="mine")
    assert (found.violations[0].file, found.violations[0].line, found.violations[0].code) == ("mine", 4, "F002")
    assert "$.tile[0]" in found.violations[0].message
    structs = drawlog.validate(Simulator(2, SimulationOptions(variant="draw")).match("m1"))
    assert structs.ok and structs.summary.lines == len(dicts)
    with pytest.raises(TypeError, match="event 1 of <events> is not JSON data"):
        drawlog.validate_events([{"type": "match_start", "match": "m", "players": [object()]}])


def test_events_and_positions_show_tiles_as_in_the_rules():
    import drawlog
    from drawlog.log.events import Play

    assert repr(Play(match="m1", player="ann", tile=(3, 4), end="left")) == \
        "Play(match='m1', player='ann', tile=[3|4], end='left')"
    start = Simulator(2, SimulationOptions()).match("m1")[1]
    assert "hands={'p1': [[" in repr(start) and "|" in repr(start)
    text = "dp1 draw h7r2t100 a:0,b:0 round=1 opener=a line=- ends=- hands=-/- stock=set:" + \
        ".".join(f"{a}{b}" for a, b in TILES) + " turn=a"
    assert repr(drawlog.Position.parse(text)) == f"Position({text!r})"
    assert drawlog.PositionError.__mro__[1] is drawlog.DrawlogError


_SAMPLE = ("dp1 all-fives h9r0t250 p1:0,p2:0 round=1 opener=p2 line=66,64l,43l,62r,35l,24r ends=5,4,6,6 "
           "hands=00.14.15.16.44.55/01.02.05.11.12.22.33 stock=order:06.04.03.23.36.56.25.13.45 turn=p2 "
           "points=5,15 must=05")


@settings(max_examples=300, deadline=None)
@given(at=st.integers(0, len(_SAMPLE)), cut=st.integers(0, 3),
       insert=st.text(alphabet="0123456789-=:,./%lrud abcxyz\u00e9\x00", max_size=3))
def test_an_edited_string_reads_or_names_a_column_never_anything_else(at, cut, insert):
    text = _SAMPLE[:at] + insert + _SAMPLE[at + cut:]
    try:
        position = Position.parse(text)
    except PositionError as error:
        assert 1 <= error.column <= len(text) + 1
        assert "\n" not in str(error)
    else:
        assert Position.parse(position.to_string()) == position
        position.to_round()
