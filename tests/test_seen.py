"""check.seen.SeenIds: the exact, compact record of the match ids started (issue 14's memory target)."""

from __future__ import annotations

import pytest

from drawlog.check.replay import Replay
from drawlog.check.rules import RULES_BY_CODE
from drawlog.check.seen import SeenIds
from drawlog.check.violations import Reporter, Summary
from drawlog.log.events import Draw, MatchStart


def test_add_returns_the_first_location_and_keeps_it():
    seen = SeenIds()
    assert seen.add("m1", 0, 3) is None
    assert seen.add("m2", 1, 7) is None
    assert seen.add("m1", 2, 99) == (0, 3)
    assert seen.location("m1") == (0, 3)
    assert seen.location("m2") == (1, 7)
    assert seen.location("m3") is None
    assert "m1" in seen and "m2" in seen and "m3" not in seen
    assert 5 not in seen
    assert len(seen) == 2


def test_every_hash_the_same_still_exact():
    seen = SeenIds(hash_of=lambda key: 42)
    ids = [f"m{number}" for number in range(300)]
    for line, match_id in enumerate(ids, 1):
        assert seen.add(match_id, 0, line) is None
    for line, match_id in enumerate(ids, 1):
        assert seen.location(match_id) == (0, line)
        assert seen.add(match_id, 1, 10_000) == (0, line)
    assert "m300" not in seen and "m" not in seen and "" not in seen
    assert len(seen) == 300


def test_hashes_alike_in_their_low_bits_and_ids_of_one_length():
    # Same 32 low bits (what the index keeps) for different ids: only the bytes tell them apart.
    seen = SeenIds(hash_of=lambda key: (len(key) << 40) | 7)
    assert seen.add("ab", 0, 1) is None
    assert seen.add("ba", 0, 2) is None
    assert seen.add("abc", 0, 3) is None
    assert seen.location("ab") == (0, 1)
    assert seen.location("ba") == (0, 2)
    assert seen.location("abc") == (0, 3)
    assert "cab" not in seen


def test_growth_keeps_every_id_and_the_index_under_half_full():
    seen = SeenIds()
    count = 50_000
    for number in range(count):
        assert seen.add(f"match-{number}", number % 3, number + 1) is None
    assert len(seen) == count
    for number in range(0, count, 7):
        assert seen.location(f"match-{number}") == (number % 3, number + 1)
    assert "match-50000" not in seen
    assert seen.nbytes < 40 * count


def test_the_empty_id_non_ascii_and_lone_surrogates():
    seen = SeenIds()
    ids = ["", "é", "e\u0301", "\U0001f600", "\ud83d\ude00", "\ud83d", "\ude00", "\udcff", "\x00", "a\x00b"]
    for line, match_id in enumerate(ids, 1):
        assert seen.add(match_id, 0, line) is None, match_id
    for line, match_id in enumerate(ids, 1):
        assert seen.location(match_id) == (0, line)
    assert len(seen) == len(ids)
    # A surrogate pair written as two escapes is not the character it would pair into.
    assert seen.location("\U0001f600") != seen.location("\ud83d\ude00")


def test_lines_and_file_indexes_past_32_bits():
    seen = SeenIds()
    seen.add("small", 3, 5)
    seen.add("far", 300, 1 << 40)
    seen.add("farther", (1 << 33) + 1, (1 << 63) + 9)
    assert seen.location("small") == (3, 5)
    assert seen.location("far") == (300, 1 << 40)
    assert seen.location("farther") == ((1 << 33) + 1, (1 << 63) + 9)


def test_a_negative_line_is_refused():
    with pytest.raises(OverflowError):
        SeenIds().add("m", 0, -1)


def _replay() -> tuple[Replay, Reporter]:
    reporter = Reporter(Summary(), frozenset(RULES_BY_CODE))
    reporter.file = "a.jsonl"
    return Replay(reporter), reporter


def test_replay_reports_a_second_start_and_an_ended_match_through_the_record():
    replay, reporter = _replay()
    replay.dispatch(MatchStart(match="\ud800x", players=["a", "b"]), 4)
    replay.end_input()
    reporter.file = "b.jsonl"
    replay.dispatch(Draw(match="\ud800x", player="a", tile=(0, 0)), 1)
    replay.dispatch(Draw(match="never", player="a", tile=(0, 0)), 2)
    replay.dispatch(MatchStart(match="\ud800x", players=["a", "b"]), 3)
    messages = [(found.code, found.line, found.message) for found in reporter.found]
    assert messages == [
        ("F006", 4, "input ended inside match \ud800x: no match_end"),
        ("F004", 1, "draw event of match \ud800x, which has ended"),
        ("F004", 2, "draw event of match never, which has not started"),
        ("F005", 3, "match \ud800x is started a second time (first at a.jsonl:4)"),
    ]


def test_started_before_keeps_the_first_start():
    replay, reporter = _replay()
    replay.started_before({"m1": ("first.jsonl", 10), "m2": ("second.jsonl", 2)})
    replay.started_before({"m1": ("later.jsonl", 1)})
    replay.dispatch(MatchStart(match="m1", players=["a", "b"]), 5)
    assert [(found.code, found.message) for found in reporter.found] == [
        ("F005", "match m1 is started a second time (first at first.jsonl:10)")]


def test_slots_widen_when_they_cannot_hold_the_entries():
    # With 30 bits of hash in a 32-bit slot, only entries 1-3 fit: the fourth makes the index 64-bit.
    seen = SeenIds(hash_of=lambda key: hash(key) if key != b"x" else 0, tag_bits=30)
    ids = [f"id{number}" for number in range(40)] + ["x"]
    for line, match_id in enumerate(ids, 1):
        assert seen.add(match_id, 0, line) is None
    for line, match_id in enumerate(ids, 1):
        assert seen.add(match_id, 1, 1) == (0, line)
    assert "y" not in seen
