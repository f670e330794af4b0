"""``drawlog replay``'s model: the seeds' boards from small logs, and frames that agree with the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drawlog.check.walkthrough import Selection, legal_moves, walk
from drawlog.engine.match import Deal, Match
from drawlog.engine.profiles import PROFILES
from drawlog.engine.tiles import FULL_SET, TILES, bits, tile_id
from drawlog.log.reader import Source
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events

ALL = [list(tile) for tile in TILES]


def draw_log(plays: list[list[int]], end_of: dict[int, str] | None = None) -> list[dict]:
    """A two-player Draw round in which ann and bob place ``plays`` in turn (fillers make up their hands)."""
    ann_tiles = plays[0::2]
    bob_tiles = plays[1::2]
    used = {tuple(sorted(tile)) for tile in plays}
    # fillers: tiles that match none of the values in play, so the plays stay the only placements logged
    rest = [tile for tile in ALL if tuple(tile) not in used]
    ann = ann_tiles + [tile for tile in rest if tile not in ann_tiles][: 7 - len(ann_tiles)]
    rest = [tile for tile in rest if tile not in ann]
    bob = bob_tiles + rest[: 7 - len(bob_tiles)]
    stock = [tile for tile in rest if tile not in bob]
    events = [{"type": "match_start", "match": "m1", "players": ["ann", "bob"]},
              {"type": "round_start", "match": "m1", "round": 1, "opener": "ann",
               "hands": {"ann": ann, "bob": bob}, "stock": stock}]
    for index, tile in enumerate(plays):
        event = {"type": "play", "match": "m1", "player": ("ann", "bob")[index % 2], "tile": tile}
        if end_of and index in end_of:
            event["end"] = end_of[index]
        events.append(event)
    return events


def frames_of(tmp_path: Path, events: list[dict], **selection) -> list[dict]:
    path = tmp_path / "board.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events))
    return walk(Source(str(path), path), Selection("m1", **selection))


#: The seeds' worked boards (000_…, 002_…, 003_…; RULES.md): the plays, then tiles, connections, points.
SEED_BOARDS = {
    "[1|4]": ([[1, 4]], {}, ["[1|4]"], [],
              [("[1|4]", "high", 4), ("[1|4]", "low", 1)]),
    "[1|4]+[1|1]": ([[1, 4], [1, 1]], {}, ["[1|4]", "[1|1]"], [("[1|4]", "low", "[1|1]", "A")],
                    [("[1|1]", "B", 1), ("[1|4]", "high", 4)]),
    "[3|6]+[6|6]": ([[3, 6], [6, 6]], {}, ["[3|6]", "[6|6]"], [("[3|6]", "high", "[6|6]", "A")],
                    [("[3|6]", "low", 3), ("[6|6]", "B", 6)]),
    "[0|0]": ([[0, 0]], {}, ["[0|0]"], [], [("[0|0]", "A", 0), ("[0|0]", "B", 0)]),
    "[1|4]+[1|1]+[4|4]": ([[1, 4], [1, 1], [4, 4]], {}, ["[1|4]", "[1|1]", "[4|4]"],
                          [("[1|4]", "low", "[1|1]", "A"), ("[1|4]", "high", "[4|4]", "A")],
                          [("[1|1]", "B", 1), ("[4|4]", "B", 4)]),
    "…+[3|4]": ([[1, 4], [1, 1], [4, 4], [3, 4]], {}, ["[1|4]", "[1|1]", "[4|4]", "[3|4]"],
                [("[1|4]", "low", "[1|1]", "A"), ("[1|4]", "high", "[4|4]", "A"),
                 ("[4|4]", "B", "[3|4]", "high")],
                [("[1|1]", "B", 1), ("[3|4]", "low", 3)]),
    "[2|2]": ([[2, 2]], {}, ["[2|2]"], [], [("[2|2]", "A", 2), ("[2|2]", "B", 2)]),
}


@pytest.mark.parametrize("name", SEED_BOARDS)
def test_the_seeds_boards(tmp_path: Path, name: str):
    plays, ends, tiles, connections, points = SEED_BOARDS[name]
    board = frames_of(tmp_path, draw_log(plays, ends))[-1]["board"]
    assert board["tiles"] == tiles
    assert [(c["tile"], c["side"], c["to_tile"], c["to_side"]) for c in board["connections"]] == connections
    assert [(p["tile"], p["side"], p["value"]) for p in board["open"]] == points


def test_the_contracts_all_fives_example_has_a_spinner_with_arms(tmp_path: Path):
    events = draw_log([[5, 5], [5, 3], [2, 5], [5, 1], [4, 5]], {1: "right", 3: "up", 4: "down"})
    events[0]["variant"] = "all-fives"
    hands = events[1]["hands"]
    ann = [[5, 5], [2, 5], [4, 5], [0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 6]]
    bob = [[3, 5], [1, 5], [1, 1], [1, 2], [1, 3], [1, 4], [1, 6], [2, 2], [2, 3]]
    hands["ann"], hands["bob"] = ann, bob
    dealt = {tuple(t) for t in ann + bob}
    events[1]["stock"] = [t for t in ALL if tuple(t) not in dealt]
    frames = frames_of(tmp_path, events)
    board = frames[-1]["board"]
    assert [frame["board"]["count"] for frame in frames[2:]] == [10, 13, 5, 6, 10]
    assert board["spinner"] == "[5|5]" and board["ends"] == {"left": 2, "right": 3, "up": 1, "down": 4}
    assert [item["tile"] for item in board["chain"]] == ["[2|5]", "[5|5]", "[3|5]"]
    assert board["arms"]["up"][0]["show"] == [5, 1] and board["arms"]["down"][0]["show"] == [5, 4]
    assert ("[5|5]", "up", "[1|5]", "high") in [tuple(c.values()) for c in board["connections"]]
    assert all(frame["violations"] == [] for frame in frames[:-1])
    assert [v["code"] for v in frames[-1]["violations"]] == ["F006"]


def test_violations_are_on_their_line_and_at_stops_there(tmp_path: Path):
    events = draw_log([[1, 4], [1, 1]])
    events.append({"type": "pass", "match": "m1", "player": "ann"})  # stock holds 14: M207
    frames = frames_of(tmp_path, events)
    assert [v["code"] for v in frames[4]["violations"]] == ["M207", "M208", "F006"]  # ann holds [0|1]
    assert frames[4]["line"] == 5
    assert [frame["line"] for frame in frames_of(tmp_path, events, at=3)] == [1, 2, 3]


def test_a_large_file_is_scanned_for_the_match(tmp_path: Path):
    simulator = Simulator(4, SimulationOptions(players=2, bots=("greedy",)))
    path = tmp_path / "many.jsonl"
    with path.open("wb") as handle:
        for match in simulator.matches(40):
            handle.writelines(encode_events(match))
    frames = walk(Source(str(path), path), Selection("m000031"))
    lines = path.read_bytes().split(b"\n")
    assert frames and all(b'"m000031"' in lines[frame["line"] - 1] for frame in frames)
    assert frames[0]["type"] == "match_start" and frames[-1]["type"] == "match_end"


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), variant=st.sampled_from(["draw", "all-fives"]), players=st.integers(2, 4))
def test_frames_agree_with_the_engine(tmp_path_factory, seed: int, variant: str, players: int):
    """After every play the board's open values are the engine's ends; the legal moves are the engine's."""
    simulator = Simulator(seed, SimulationOptions(players=players, bots=("random",), variant=variant))
    lines = encode_events(simulator.match("m1"))
    path = tmp_path_factory.mktemp("walk") / "one.jsonl"
    path.write_bytes(b"".join(lines))
    frames = walk(Source(str(path), path), Selection("m1"))
    assert len(frames) == len(lines) and all(frame["violations"] == [] for frame in frames)
    # replay the same match straight through the engine, comparing as it goes
    names = json.loads(lines[0])["players"]
    match = Match(names, rules=PROFILES[variant].rules_for(len(names)))
    for frame, raw in zip(frames, lines):
        event = json.loads(raw)
        if event["type"] == "round_start":
            hands = [bits(tile_id(tuple(t)) for t in event["hands"][name]) for name in names]
            dealt = 0
            for hand in hands:
                dealt |= hand
            state = match.start_round(Deal(event["round"], names.index(event["opener"]), hands,
                                           FULL_SET & ~dealt, [tile_id(tuple(t)) for t in event["stock"]]))
        elif event["type"] in ("draw", "play", "pass"):
            seat = names.index(event["player"])
            if event["type"] == "play":
                assert state.try_play(seat, tuple(event["tile"]), event.get("end")) == ()
                line = state.line
                ends = frame["board"]["ends"]
                assert (ends["left"], ends["right"]) == (line.left, line.right)
                if variant == "all-fives":
                    assert (ends["up"], ends["down"]) == (line.up, line.down)
            elif event["type"] == "draw":
                state.try_draw(seat, tuple(event["tile"]))
            else:
                state.try_pass(seat)
            expected = legal_moves(state) if state.reason is None else []
            assert frame["legal"] == expected
        elif event["type"] == "round_end":
            match.settle_round()


@pytest.mark.parametrize("lang", ["en", "pl", "tr", "es"])
def test_the_seeds_sentences_from_replayed_logs(tmp_path: Path, lang: str):
    """Each seed board, replayed from a log, is described word for word as the seed (and issue 10) writes it."""
    from test_board_views import SEED_SENTENCES

    from drawlog.views.board import describe
    from drawlog.views.language import catalog

    words = catalog(lang)
    described = [describe(frames_of(tmp_path, draw_log(plays, ends))[-1]["board"], words)
                 for plays, ends, *_ in SEED_BOARDS.values()]
    assert described == SEED_SENTENCES[lang]
