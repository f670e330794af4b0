"""What the fuzz targets feed drawlog: simulated matches, damaged every way a log gets damaged, and raw bytes.

:func:`damaged_logs` starts from real simulated matches (Draw and All Fives, 2–4
players, house rules, some with an injected fault), cuts, interleaves and
renames them, damages their events (odd values, missing fields, lines dropped,
repeated or moved, many players, deep ``meta``, odd Unicode, huge numbers), writes
them in any JSON spelling and line ending, then damages the bytes.
:func:`raw_logs` is bytes with no structure, or JSON-ish tokens run together.
"""

from __future__ import annotations

import json
import os
import random
import re
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from drawlog.log.reader import MAX_LINE_BYTES
from drawlog.play.simulate import SimulationOptions, Simulator, encode_events, interleave

#: Examples per fuzz target in CI; ``DRAWLOG_FUZZ_EXAMPLES`` asks for more (or fewer) on demand.
EXAMPLES = int(os.environ.get("DRAWLOG_FUZZ_EXAMPLES", "0")) or None


def fuzz_settings(ci_examples: int) -> settings:
    """Hypothesis settings of a fuzz target: ``ci_examples`` unless ``DRAWLOG_FUZZ_EXAMPLES`` says otherwise."""
    return settings(max_examples=EXAMPLES or ci_examples, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.large_base_example])


#: (variant, players, house rules, fault rate, seed) of the matches every log is cut from.
_BASES = [
    ("draw", 2, None, 0.0, 1), ("draw", 3, None, 0.0, 2), ("draw", 4, None, 0.0, 3),
    ("draw", 2, None, 1.0, 4), ("draw", 3, {"hand": 3, "reserve": 4}, 0.0, 5), ("draw", 2, {"reserve": 0}, 1.0, 6),
    ("draw", 4, {"hand": 5}, 1.0, 7), ("all-fives", 2, None, 0.0, 8), ("all-fives", 3, None, 1.0, 9),
    ("all-fives", 4, None, 0.0, 10), ("all-fives", 2, {"hand": 5}, 1.0, 11), ("all-fives", 3, {"hand": 5}, 0.0, 12),
]


@lru_cache(maxsize=1)
def base_matches() -> list[list[dict[str, Any]]]:
    """Simulated matches (as decoded JSON events), one per :data:`_BASES` entry."""
    matches = []
    for variant, players, rules, faults, seed in _BASES:
        options = SimulationOptions(players=players, variant=variant, rules=rules, fault_rate=faults,
                                    log_seq=seed % 2 == 0, reveal_hands=seed % 3 == 0, bots=("random", "greedy"))
        lines = encode_events(Simulator(seed, options).match("m"))
        matches.append([json.loads(line) for line in lines])
    return matches


FIELDS = ["type", "match", "player", "tile", "end", "round", "opener", "hands", "stock", "points", "winner", "seq",
          "scores", "players", "reason", "target", "variant", "rules", "meta", "ts"]
ODD_TEXT = ["", " ", "p1", "p2", "p9", "m", "m2", "P1", "p1 ", "\u202ep1", "p\u0000", "\x1b[2J", "\ud800", "\udfff",
            "e\u0301", "\u00e9", "\U0001f600", "\ufeff", "\ufeffp1", "\u2028", "a" * 300, "null", "left", "right",
            "up", "down", "domino", "blocked", "draw", "all-fives", "match_end", "round_end", "2024-01-01T00:00:00Z",
            "9999-12-31T23:59:59+14:00", "10000-01-01T00:00:00Z", "2024-02-30T00:00:00Z"]
HUGE = [2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 10**40, -1, 0, 1.0, -0.0, 1e308,
        1e-320, 0.5, 127, 128, 255, 256, -129]
TIMES = ["2024-01-01T00:00:00Z", "2024-01-01t00:00:00z", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00",
         "2016-12-31T23:59:60Z", "2024-02-30T00:00:00Z", "2024-01-01T00:00:00.123456789+05:30", "2024", "10000-01-01T00:00:00Z",
         "2024-01-01T00:00:00+24:00", "-2024-01-01T00:00:00Z", ""]
odd_scalars = st.one_of(st.none(), st.booleans(), st.sampled_from(HUGE), st.integers(-10, 10),
                        st.sampled_from(ODD_TEXT), st.text(max_size=8))
odd_values = st.recursive(odd_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(ODD_TEXT[:12] + ["hand", "reserve"]), inner,
                                                 max_size=4)), max_leaves=10)
tiles = st.lists(st.integers(-1, 7), min_size=2, max_size=2) | st.sampled_from([[6, 6], [0, 0], [7, 7], [1], []])
house_rules = st.dictionaries(st.sampled_from(["hand", "reserve", "target", "Hand"]),
                              st.integers(-1, 30) | st.sampled_from(HUGE) | odd_scalars, max_size=3)


_DEEP = "\u0000deep:"
_LONG = "\u0000long:"


def _deep(depth: int) -> str:
    """JSON nested ``depth`` levels deep, objects and arrays in turn."""
    opening = "".join('{"k":' if level % 2 == 0 else "[" for level in range(depth))
    closing = "".join("}" if level % 2 == 0 else "]" for level in reversed(range(depth)))
    return f'{opening}{{"bots":["x"]}}{closing}'


@st.composite
def _edit(draw: st.DrawFn, size: int) -> tuple[Any, ...]:
    """One change to a list of ``size`` events (indices drawn below ``size``)."""
    index = draw(st.integers(0, max(size - 1, 0)))
    kind = draw(st.sampled_from(["set", "set", "set", "del", "drop", "dup", "move", "swap", "players", "rules",
                                 "meta", "tile", "name", "extra", "number", "long", "ts", "claim"]))
    if kind == "set":
        return kind, index, draw(st.sampled_from(FIELDS)), draw(odd_values)
    if kind == "del":
        return kind, index, draw(st.sampled_from(FIELDS))
    if kind in ("move", "swap"):
        return kind, index, draw(st.integers(0, max(size - 1, 0)))
    if kind == "players":
        count = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 8, 60]))
        names = draw(st.lists(st.sampled_from(["p1", "p2", "p3", "p4", "p5", "\ud800", "", "p1\u0000"]),
                              min_size=count, max_size=count))
        return kind, index, names
    if kind == "rules":
        return kind, index, draw(house_rules | st.sampled_from([None, [], "standard", {}]))
    if kind == "meta":
        return kind, index, draw(st.sampled_from([1, 62, 63, 64, 65, 200, 1000, 3000]))
    if kind == "tile":
        return kind, index, draw(tiles)
    if kind == "ts":
        return kind, index, draw(st.sampled_from(TIMES) | st.text(max_size=30))
    if kind == "claim":
        return kind, index, draw(st.sampled_from(HUGE) | st.integers(-300, 300) | odd_scalars)
    if kind == "long":  # a line this many bytes over the limit (under it when negative)
        return kind, index, draw(st.sampled_from([-1, 0, 1, 2, 1000]))
    if kind == "name":  # one player or match id renamed everywhere: a consistent log with odd text
        return kind, index, draw(st.sampled_from(["p1", "p2", "p3", "m0", "m1"])), draw(st.sampled_from(ODD_TEXT))
    if kind == "extra":
        return kind, index, draw(st.sampled_from(["extra", "Type", "\u0000", "type ", "tile\ud800"])), draw(odd_values)
    if kind == "number":
        return kind, index, draw(st.sampled_from(["round", "seq", "points", "target"])), draw(st.sampled_from(HUGE))
    return kind, index


#: Edits that mostly go to a match_start, where the fields they change matter most.
_AT_START = ("players", "rules", "meta", "long", "ts", "claim")


def _apply(events: list[dict[str, Any]], edit: tuple[Any, ...]) -> list[dict[str, Any]]:
    if not events:
        return events
    kind, index = edit[0], edit[1] % len(events)
    if kind in _AT_START and edit[1] % 4:
        wanted = ("round_end", "match_end") if kind == "claim" else ("match_start",)
        found = [number for number, event in enumerate(events) if isinstance(event, dict)
                 and event.get("type") in wanted]
        index = found[edit[1] % len(found)] if found else index
    event = events[index]
    if kind in ("set", "number") and isinstance(event, dict):
        event[edit[2]] = edit[3]
    elif kind == "del" and isinstance(event, dict):
        event.pop(edit[2], None)
    elif kind == "drop":
        del events[index]
    elif kind == "dup":
        events.insert(index, json.loads(json.dumps(event)))
    elif kind == "move":
        events.insert(edit[2] % len(events), events.pop(index))
    elif kind == "swap":
        other = edit[2] % len(events)
        events[index], events[other] = events[other], events[index]
    elif kind == "players" and isinstance(event, dict):
        event["players"] = edit[2]
    elif kind == "rules" and isinstance(event, dict):
        event["rules"] = edit[2]
    elif kind == "meta" and isinstance(event, dict):
        event["meta"] = f"{_DEEP}{edit[2]}"  # written out by _line: too deep for json.dumps
    elif kind == "ts" and isinstance(event, dict):
        event["ts"] = edit[2]
    elif kind == "claim" and isinstance(event, dict):  # a value inside points or scores
        claims = event.get("points") if event.get("type") == "round_end" else event.get("scores")
        if isinstance(claims, dict) and claims:
            claims[sorted(claims)[edit[1] % len(claims)]] = edit[2]
    elif kind == "long" and isinstance(event, dict):
        event["meta"] = f"{_LONG}{edit[2]}"
    elif kind == "tile" and isinstance(event, dict):
        event["tile"] = edit[2]
    elif kind == "extra" and isinstance(event, dict):
        event[edit[2]] = edit[3]
    elif kind == "name":
        old, new = edit[2], edit[3]
        events[:] = [_renamed(event, old, new) for event in events]
    return events


def _renamed(value: Any, old: str, new: str) -> Any:
    """``value`` with the string ``old`` replaced by ``new`` wherever it is a whole string or a key."""
    if isinstance(value, dict):
        return {(new if key == old else key): _renamed(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return new if value == old else value


@st.composite
def _events(draw: st.DrawFn) -> list[Any]:
    """One to three matches, cut and interleaved, as decoded JSON events."""
    pool = base_matches()
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=3))
    chosen = []
    for number, pick in enumerate(picks):
        match = json.loads(json.dumps(pool[pick]))
        start = draw(st.sampled_from([0, 0, 0, 1, 2]))
        stop = draw(st.sampled_from([len(match), 30, 80, 200, draw(st.integers(1, len(match)))]))
        same = draw(st.booleans()) if number else False  # two matches under one id (F005) now and then
        match_id = "m" if same else f"m{number}"
        chosen.append([{**event, "match": match_id} if isinstance(event, dict) and "match" in event else event
                       for event in match[start:stop]])
    if len(chosen) == 1:
        return chosen[0]
    return interleave([match for match in chosen if match], draw(st.randoms(use_true_random=False)))


def _line(event: Any, rng: random.Random) -> bytes:
    """One event in one of the ways JSON can spell it (escaped or raw Unicode, spaces, lone surrogates)."""
    ascii_only = rng.random() < 0.5
    separators = rng.choice([(",", ":"), (", ", ": "), (" ,", " : ")])
    text = json.dumps(event, ensure_ascii=ascii_only, separators=separators, allow_nan=True)
    if '"\\u0000deep:' in text:
        text = re.sub(r'"\\u0000deep:(\d+)"', lambda found: _deep(int(found.group(1))), text)
    long = re.search(r'"\\u0000long:(-?\d+)"', text)
    if long is not None:  # padded to MAX_LINE_BYTES + the number asked for
        short = text[:long.start()] + '""' + text[long.end():]
        pad = max(MAX_LINE_BYTES + int(long.group(1)) - len(short.encode("utf-8", "surrogatepass")), 0)
        text = text[:long.start()] + '"' + "x" * pad + '"' + text[long.end():]
    return text.encode("utf-8", "surrogatepass")


@st.composite
def damaged_logs(draw: st.DrawFn) -> bytes:
    """A log of simulated matches damaged at the event level and at the byte level."""
    events = draw(_events())
    for edit in draw(st.lists(_edit(max(len(events), 1)), max_size=6)):
        events = _apply(events, edit)
    rng = draw(st.randoms(use_true_random=False))
    lines = [_line(event, rng) for event in events]
    extras = draw(st.lists(st.tuples(st.integers(0, len(lines)), st.sampled_from(
        [b"", b" ", b"\t", b"\r", b"\x0b\x0c", b"\xef\xbb\xbf", b"[]", b"{}", b"null", b"1", b'"x"', b"{} {}",
         b"\x00", b"\xff\xfe", b'{"type":"pass","match":"m0","player":"p1"}{"type":"pass"}', b"\xef\xbb\xbf{}",
         b'{"type":"draw","match":"m0","player":"p1","tile":[0,0],"type":"pass"}', b"\\", b'{"match":"m0"}'])),
        max_size=4))
    for position, extra in extras:
        lines.insert(position, extra)
    ending = draw(st.sampled_from([b"\n", b"\n", b"\r\n", b" \n", b"\n\n"]))
    data = ending.join(lines) + draw(st.sampled_from([ending, ending, b""]))
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    for position, inserted, removed in draw(st.lists(st.tuples(
            st.integers(0, max(len(data) - 1, 0)), st.binary(max_size=8) | st.sampled_from(
                [b"\n", b"\x00", b"\xef\xbb\xbf", b'"', b"{", b"}", b"[", b",", b"\xc3", b"\xed\xa0\x80"]),
            st.integers(0, 16)), max_size=draw(st.sampled_from([0, 0, 1, 3])))):
        data = data[:position] + inserted + data[position + removed:]
    return data


#: Bits of JSON and of log lines that raw bytes are run together from.
TOKENS = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\\u", b"d800", b"\n", b"\r", b" ", b"\x00", b"\xef\xbb\xbf",
          b"\xff", b"\xc3\xa9", b"0", b"-1", b"1e999", b"99999999999999999999", b"null", b"true", b'"type"',
          b'"match"', b'"m"', b'"player"', b'"p1"', b'"tile"', b'"match_start"', b'"round_start"', b'"draw"',
          b'"play"', b'"pass"', b'"round_end"', b'"match_end"', b'"players"', b'"hands"', b'"stock"', b'"round"',
          b'"opener"', b'"meta"', b'"rules"', b'"hand"', b'"variant"', b'"all-fives"', b'"seq"', b"[6,6]"]
raw_logs = st.one_of(st.binary(max_size=400), st.lists(st.sampled_from(TOKENS), max_size=120).map(b"".join))
#: The sizes of the reads a pipe hands its data out in (the rest at once after the last).
read_sizes = st.lists(st.integers(1, 80) | st.sampled_from([1, 2, 3, 4, 4096]), max_size=30)
