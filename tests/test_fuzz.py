"""Damaged logs never crash the validator or the statistics writer, and every line is accounted for."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drawlog.check.validator import Validator
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events
from drawlog.tables.dataset import write_tables

BASE = b"".join(encode_events(Simulator(5, SimulationOptions(players=3, log_seq=True, reveal_hands=True))
                              .match("m1")))
EVENTS = [json.loads(line) for line in BASE.splitlines()]
ODD_VALUES = st.sampled_from([None, 0, -1, 7, 2**70, "p1", "p9", "", [], {}, [1, 2], [6, 6], [0, 0, 0],
                              {"p1": 3}, True, 1.5, "left", "domino", "blocked", "m1", "pass", "round_end"])


def accounted(lines: list[bytes]) -> Validator:
    validator = Validator()
    list(validator.validate_lines(lines))
    summary = validator.summary
    assert summary.lines == summary.events + summary.blank_lines + summary.invalid_lines
    return validator


@settings(max_examples=150, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, len(BASE) - 1), st.binary(max_size=12), st.integers(0, 20)),
                      min_size=1, max_size=6))
def test_byte_damage_is_reported_not_raised(edits):
    data = bytearray(BASE)
    for position, inserted, removed in edits:
        data[position:position + removed] = inserted
    accounted(bytes(data).splitlines(keepends=True))


@settings(max_examples=150, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, len(EVENTS) - 1), st.sampled_from(
    ["type", "match", "player", "tile", "end", "round", "opener", "hands", "stock", "points", "winner", "seq",
     "scores", "players", "reason", "target"]), ODD_VALUES), min_size=1, max_size=5))
def test_field_damage_is_reported_not_raised(edits):
    events = json.loads(json.dumps(EVENTS))
    for index, field, value in edits:
        events[index][field] = value
    accounted([json.dumps(event).encode() for event in events])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, len(EVENTS) - 1), st.sampled_from(
    ["type", "match", "player", "tile", "round", "opener", "points", "winner"]), ODD_VALUES), min_size=1,
    max_size=5))
def test_damaged_logs_still_give_tables(tmp_path: Path, edits):
    events = json.loads(json.dumps(EVENTS))
    for index, field, value in edits:
        events[index][field] = value
    log = tmp_path / "damaged.jsonl"
    log.write_bytes(b"".join(json.dumps(event).encode() + b"\n" for event in events))
    summary = write_tables([str(log)], tmp_path / "stats", rows_per_group=16)
    assert summary.lines == len(events)
