"""What the command targets feed drawlog besides logs: options, table damage, settings files and baselines.

:data:`filter_options` is a random ``drawlog filter`` command line (good and bad
values); :func:`table_damage` a list of changes to a statistics folder's Parquet
tables and manifest (hostile strings, huge numbers, nulls, odd dates, columns
dropped or retyped, files truncated); :func:`config_files` random TOML as a
``drawlog.toml``, a ``pyproject.toml`` or a ``--config`` file; :func:`baseline_files`
random JSON as a ``--baseline`` file, most of it a real baseline damaged.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import strategies as st

from .inputs import ODD_TEXT

# --- drawlog filter --------------------------------------------------------------------------------

NAMES = ["p1", "p2", "p3", "p4", "m", "m0", "m1", "m2", "", "\u202ep1", "a" * 300, "x"]
CODES = ["F", "F001", "M", "M2", "M201", "R", "R306", "S", "S101", "W", "W401", "F001,M2", "R3, S", "X9", "", "m2"]
ROUNDS = ["1", "2", "0", "1..", "2..", "..1", "1..3", "3..1", "..", "x", "-1", "99999999999999999999"]
WHEN = ["2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00+05:30", "9999-12-31", "0001-01-01",
        "2024-02-30", "yesterday", "2024-01-01T00:00:00", "2016-12-31T23:59:60Z", ""]


@st.composite
def filter_options(draw: st.DrawFn) -> list[str]:
    """A ``drawlog filter`` command line's options (not the paths nor ``-o``), good and bad values mixed."""
    options: list[str] = []
    which = draw(st.sampled_from([None, None, "--valid", "--valid", "--invalid"]))
    if which:
        options.append(which)
    for name, values in (("--player", NAMES), ("--match", NAMES), ("--winner", NAMES),
                         ("--claimed-winner", NAMES), ("--code", CODES), ("--tournament", ["t", "", "no-tournament"])):
        for value in draw(st.lists(st.sampled_from(values), max_size=2 if name != "--code" else 3)):
            if draw(st.integers(0, 3)) == 0:
                options += [name, value]
    for name, values in (("--variant", ["draw", "all-fives", "chess"]), ("--rounds", ROUNDS), ("--since", WHEN),
                         ("--until", WHEN)):
        if draw(st.integers(0, 3)) == 0:
            options += [name, draw(st.sampled_from(values))]
    options += draw(st.sampled_from([[], [], ["--forfeit"], ["--no-forfeit"]]))
    if draw(st.integers(0, 3)) == 0:
        options.append("--dedupe")
    return options


# --- a statistics folder's tables damaged ----------------------------------------------------------------

HOSTILE_TEXT = ["<script>alert(1)</script>", "</script><script>window.pwned=1</script>", "<img src=x onerror=alert(1)>",
                "'><svg onload=alert(1)>", "\" onmouseover=\"alert(1)", "<!--", "-->", "]]>", "javascript:alert(1)",
                "https://evil.example/x", "file:///etc/passwd", "\u202eecila", "\u2066x\u2069", "\u2028", "\u2029",
                "\x1b[31mred", "\x00", "&amp;", "&#60;script&#62;", "{{7*7}}", "${alert(1)}", "\\u003cscript",
                "a" * 5000, "", " ", "\ufeff", "\U0001f600", "e\u0301", "NaN", "Infinity", "null", "</style>",
                "<style>*{}</style>", "<a href=//evil.example>x</a>", "%3Cscript%3E"]
HUGE_INTS = [2**63 - 1, -(2**63), 2**31, -1, 0, 10**15]
HUGE_FLOATS = [math.inf, -math.inf, math.nan, 1e308, -0.0, 5e-324]
#: Microseconds from 1970: years 10000 and 0, the epoch, the ends of 64-bit time.
ODD_TIMES = [253_402_300_800_000_005, -62_167_219_200_000_000, 0, 2**63 - 1, -(2**63) + 1]


@st.composite
def _table_change(draw: st.DrawFn) -> tuple[Any, ...]:
    kind = draw(st.sampled_from(["text", "text", "text", "number", "number", "null", "null", "time", "drop",
                                 "retype", "truncate", "remove", "empty", "garbage", "manifest", "manifest"]))
    table = draw(st.sampled_from(["violations", "matches", "players", "moves", "rounds", "deals"]))
    column = draw(st.integers(0, 63))  # an index into the table's columns
    if kind == "text":
        return kind, table, column, draw(st.sampled_from(HOSTILE_TEXT) | st.sampled_from(ODD_TEXT)), \
            draw(st.integers(0, 3))
    if kind == "number":
        return kind, table, column, draw(st.sampled_from(HUGE_INTS + HUGE_FLOATS)), draw(st.integers(0, 3))
    if kind == "time":
        return kind, table, column, draw(st.sampled_from(ODD_TIMES)), draw(st.integers(0, 3))
    if kind == "retype":
        return kind, table, column, draw(st.sampled_from(["str", "float", "int32", "bool", "list"]))
    if kind == "truncate":
        return kind, table, draw(st.integers(0, 4000))
    if kind == "manifest":
        return kind, draw(st.sampled_from(["summary", "inputs", "version", "whole", "files", "decompression"])), \
            draw(json_values)
    return kind, table, column


#: Up to four changes to a statistics folder (see :func:`agree_settings.damage_tables`).
table_damage = st.lists(_table_change(), min_size=1, max_size=4)


# --- settings files ----------------------------------------------------------------------------------

SETTING_KEYS = ["select", "ignore", "extend-select", "extend-ignore", "per-file-ignores", "format", "max-per-match",
                "max-per-line", "jobs", "aliases"]
CODE_LISTS = st.lists(st.sampled_from(["M", "M2", "M205", "R", "R306", "S", "W", "W401", "F", "F001", "", " , ",
                                       "M,R", "E501", "m2"]), max_size=3)
GOOD = {
    "select": CODE_LISTS, "ignore": CODE_LISTS, "extend-select": CODE_LISTS, "extend-ignore": CODE_LISTS,
    "per-file-ignores": st.dictionaries(st.sampled_from(["log.jsonl", "*.jsonl", "nomatch-*", "./log.jsonl", "**",
                                                         "logs/*.jsonl", "[", "log.json?"]), CODE_LISTS, max_size=2),
    "format": st.sampled_from(["text", "concise", "json", "jsonl", "github", "sarif", "junit", "gitlab"]),
    "max-per-match": st.integers(1, 5) | st.sampled_from([1000, 2**63 - 1, 10**30]),
    "max-per-line": st.integers(1, 5) | st.sampled_from([100, 2**63 - 1, 10**30]),
    "jobs": st.sampled_from([1, 1, 2, 2**63 - 1, 10**30]),
    "aliases": st.sampled_from(["aliases.toml", "none.json"]),
}
#: TOML values of any type: what a key of the wrong type gets.
toml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | st.sampled_from(ODD_TEXT)
    | st.sampled_from([{"$datetime": "1979-05-27T07:32:00Z"}, {"$datetime": "07:32:00"}]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "select", "k"]), inner,
                                                                max_size=3),
    max_leaves=8)


def toml_value(value: Any) -> str:
    """``value`` written as TOML (``None`` as a bare word, which TOML has not: a bad file)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else "inf" if value == math.inf else "-inf" if value == -math.inf \
            else repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a basic string (a lone surrogate's \ud800: a bad file)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict) and set(value) == {"$datetime"}:
        return str(value["$datetime"])
    return "{" + ", ".join(f"{json.dumps(key)} = {toml_value(item)}" for key, item in value.items()) + "}"


@st.composite
def config_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """``(where, bytes)``: where the file goes (``drawlog.toml``, ``pyproject.toml``, ``--config``) and its bytes."""
    where = draw(st.sampled_from(["drawlog.toml", "pyproject.toml", "--config"]))
    settings: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(SETTING_KEYS), max_size=5, unique=True)):
        settings[key] = draw(GOOD[key])
    for _ in range(draw(st.sampled_from([0, 0, 0, 1]))):  # a wrong type, an unknown key
        settings[draw(st.sampled_from(SETTING_KEYS + ["ignroe", "select_", "Select", "tool", "x"]))] = draw(toml_values)
    tool = where == "pyproject.toml" or draw(st.booleans())
    lines = ["[project]", 'name = "x"', ""] if where == "pyproject.toml" and draw(st.booleans()) else []
    table = draw(st.sampled_from(["tool.drawlog", "tool.drawlog", "tool.drawlog.per-file-ignores"])) if tool else ""
    if table:
        lines.append(f"[{table}]" if table == "tool.drawlog" else "[tool.drawlog]")
    for key, value in settings.items():
        if key == "per-file-ignores" and isinstance(value, dict) and draw(st.booleans()):
            continue  # written as a table of its own below
        lines.append(f"{json.dumps(key) if draw(st.integers(0, 4)) == 0 else key} = {toml_value(value)}")
    globs = settings.get("per-file-ignores")
    if isinstance(globs, dict) and not any(line.startswith("per-file-ignores") for line in lines):
        lines.append(f"[{'tool.drawlog.' if tool else ''}per-file-ignores]")
        lines += [f"{json.dumps(glob)} = {toml_value(codes)}" for glob, codes in globs.items()]
    if draw(st.integers(0, 5)) == 0:  # deep nesting, within the limit or past it
        depth = draw(st.sampled_from([10, 63, 64, 65, 1000]))
        lines.append(f"[{'other' if not tool else 'tool.other'}]")
        lines.append("deep = " + "[" * depth + "]" * depth)
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))
    data = text.encode("utf-8", "surrogatepass")
    for position, inserted in draw(st.lists(st.tuples(st.integers(0, max(len(data), 1)), st.sampled_from(
            [b"\xff", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"=", b"[", b"]", b'"', b"\n", b"\n[tool.drawlog]\n",
             b"\nselect = 1\n", b"#"])), max_size=draw(st.sampled_from([0, 0, 0, 2])))):
        data = data[:position] + inserted + data[position:]
    if draw(st.integers(0, 19)) == 0:  # over the 1 MiB a configuration may be: refused unread
        data += b"\n#" + b"x" * (1 << 20)
    return where, data


# --- baseline files ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from([2**64, 10**40, -1, 0, 1.0, 1e308])
    | st.floats(allow_nan=False) | st.text(max_size=10) | st.sampled_from(ODD_TEXT + HOSTILE_TEXT[:12]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["file", "code", "match", "message", "count", "fingerprint", "violations",
                         "drawlog_baseline", "x"]), inner, max_size=4),
    max_leaves=12)


@st.composite
def _entry_change(draw: st.DrawFn) -> tuple[Any, ...]:
    kind = draw(st.sampled_from(["count", "count", "drop", "dup", "field", "del", "extra", "entry"]))
    return kind, draw(st.integers(0, 10_000)), draw(st.sampled_from(["file", "code", "match", "message", "count",
                                                                     "fingerprint"])), draw(json_values)


@st.composite
def baseline_changes(draw: st.DrawFn) -> tuple[list[tuple[Any, ...]], Any, list[tuple[int, bytes]]]:
    """Changes to a real baseline's entries, what to put in its place (``...``: keep it; else a random JSON
    value), and bytes to insert into its text."""
    changes = draw(st.lists(_entry_change(), max_size=5))
    counts = draw(st.sampled_from([1, 2, 0, -1, 2**64, 10**40, True, 1.0, "1", None]))
    changes = [(kind, index, field, counts if kind == "count" and draw(st.booleans()) else value)
               for kind, index, field, value in changes]
    instead = draw(st.sampled_from([..., ..., ..., ..., "version", "deep"]) | json_values.map(lambda value: ("doc", value)))
    inserted = draw(st.lists(st.tuples(st.integers(0, 100_000), st.sampled_from(
        [b"\xff", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf", b",", b"]", b"{", b'"', b"\\u", b"9" * 5000])),
        max_size=draw(st.sampled_from([0, 0, 0, 1]))))
    return changes, instead, inserted
