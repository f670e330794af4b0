"""One fault, one report: a line missing from a log is said once, not on every later line (issue 11, item 6)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from drawlog.check.validator import validate_lines
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events


def simulated(seed: int, variant: str, players: int) -> tuple[list[bytes], list[dict]]:
    lines = encode_events(Simulator(seed, SimulationOptions(players=players, bots=("random", "greedy"),
                                                            variant=variant)).match("m1"))
    return lines, [json.loads(line) for line in lines]


def dropped(kind: str, events: list[dict]) -> int | None:
    """The index of a draw whose next event is the same player's ``kind``: another draw, or playing that tile."""
    for index, (event, after) in enumerate(zip(events, events[1:])):
        if event["type"] == "draw" and after.get("player") == event["player"] and after["type"] == kind \
                and (kind == "draw" or after["tile"] == event["tile"]):
            return index
    return None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 100_000), variant=st.sampled_from(["draw", "all-fives"]), players=st.integers(2, 4),
       kind=st.sampled_from(["draw", "play"]))
def test_a_dropped_draw_line_is_reported_once(seed: int, variant: str, players: int, kind: str):
    lines, events = simulated(seed, variant, players)
    index = dropped(kind, events)
    if index is None:
        return
    found, _ = validate_lines(lines[:index] + lines[index + 1:])
    tile = "[{}|{}]".format(*sorted(events[index]["tile"]))
    assert [(v.line, v.code) for v in found] == [(index + 1, "M206" if kind == "draw" else "M202")]
    assert f"{tile} seems to be missing" in found[0].message or "draw of it seems to be missing" in found[0].message


def test_the_issues_example_a_dropped_draw_then_anothers_draw():
    """The draw line of one player is lost; the next player's draw is reported once, not on every later draw."""
    for seed in range(40):
        lines, events = simulated(seed, "draw", 2)
        draws = [i for i, event in enumerate(events) if event["type"] == "draw"]
        for first, second in zip(draws, draws[1:]):
            between = events[first + 1]
            if events[first]["player"] != events[second]["player"] and second == first + 2 \
                    and between["type"] == "play" and between["tile"] != events[first]["tile"]:
                found, _ = validate_lines(lines[:first] + lines[first + 1:])
                assert [(v.line, v.code) for v in found][:1] == [(second, "M206")]
                assert sum(v.code == "M206" for v in found) == 1
                return
    raise AssertionError("no such match among the seeds")


def test_max_per_match_reports_the_first_n_and_counts_the_rest():
    from drawlog.check.validator import Validator

    lines, events = simulated(11, "draw", 2)
    draws = [i for i, event in enumerate(events) if event["type"] == "draw"]
    broken = list(lines)
    for index in draws[:3]:  # three draws of a tile someone holds: three M206 in one match
        event = dict(events[index], tile=events[1]["hands"][events[index]["player"]][0])
        broken[index] = json.dumps(event).encode() + b"\n"
    everything = list(Validator().validate_lines(broken))
    capped = Validator(max_per_match=2)
    shown = list(capped.validate_lines(broken))
    assert len(everything) > 2 and shown == everything[:2]
    assert capped.summary.suppressed == len(everything) - 2 and capped.summary.violations == 2
