"""The replay's fast paths (issue 14, speed) give exactly what the general code gives."""

from __future__ import annotations

import itertools

import msgspec

from drawlog.check.replay import _END, _MATCH_ID, _PLAYER, _POINTS, _SEQ, _TILE, MOVE_FIELDS
from drawlog.check.validator import validate_lines
from drawlog.engine.line import LEFT, RIGHT, Line


def test_move_fields_are_where_the_replay_reads_them():
    for kind, fields in MOVE_FIELDS.items():
        assert kind.__struct_fields__ == fields
        assert fields[_PLAYER] == "player" and fields[_MATCH_ID] == "match" and fields[_SEQ] == "seq"
        if "tile" in fields:
            assert fields[_TILE] == "tile"
    play = MOVE_FIELDS[next(kind for kind in MOVE_FIELDS if "end" in kind.__struct_fields__)]
    assert (play[_END], play[_POINTS]) == ("end", "points")
    event = msgspec.json.decode(b'{"type":"play","match":"m","seq":3,"player":"p","tile":[1,2],"end":"left",'
                                b'"points":0}', type=next(iter(MOVE_FIELDS)))
    fields = msgspec.structs.astuple(event)
    assert (fields[_MATCH_ID], fields[_SEQ], fields[_PLAYER], fields[_TILE]) == ("m", 3, "p", (1, 2))


def test_extend_places_a_tile_exactly_where_resolve_says():
    states = [None, *itertools.product(range(7), repeat=2)]
    for state, a, b, end in itertools.product(states, range(7), range(7), (None, LEFT, RIGHT, "up", "down")):
        line, twin = Line(), Line()
        if state is not None:
            line.place(state)
            twin.place(state)
        ends = line.resolve((a, b), end)
        placed = twin.extend(a, b, end)
        assert placed == (ends is not None), (state, a, b, end)
        if ends is not None:
            line.place(ends)
        assert (twin.left, twin.right, twin.length) == (line.left, line.right, line.length), (state, a, b, end)


def _start(match: str) -> list[str]:
    return [f'{{"type":"match_start","match":"{match}","players":["a","b"]}}',
            (f'{{"type":"round_start","match":"{match}","round":1,"opener":"a",'
             '"hands":{"a":[[0,0],[0,1],[0,2],[0,3],[0,4],[0,5],[0,6]],'
             '"b":[[1,1],[1,2],[1,3],[1,4],[1,5],[1,6],[2,2]]}}')]


def test_the_last_match_is_never_taken_for_one_ended_or_started_again():
    lines = [*_start("m1"), *_start("m2"),
             '{"type":"play","match":"m1","player":"a","tile":[0,1]}',
             '{"type":"play","match":"m2","player":"a","tile":[0,1]}',
             '{"type":"play","match":"m1","player":"b","tile":[1,1]}',
             '{"type":"match_end","match":"m1","scores":{"a":0,"b":0},"winner":null}',
             '{"type":"play","match":"m1","player":"a","tile":[0,0]}',
             *_start("m2"),
             '{"type":"play","match":"m2","player":"b","tile":[1,1]}']
    found, summary = validate_lines(lines)
    # After its match_end, m1 is unknown (line 9) though it was the last match seen; the restarted m2 is
    # replayed from its new deal, where a opens: b plays out of turn (line 12).
    assert [(violation.line, violation.code) for violation in found] == [
        (8, "R307"), (8, "R305"), (9, "F004"), (10, "F005"), (12, "M201"), (12, "F006")]
    assert "which has ended" in found[2].message
    assert summary.matches == 3
