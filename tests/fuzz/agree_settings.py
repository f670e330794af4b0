"""The properties of ``report`` on damaged tables, and of configuration and baseline files: an inert page or
one line and exit 2; a settings file's run equal to ``validate`` with the same options on the command line.

:func:`check_report` writes a statistics folder from a damaged log, damages its
tables (:func:`damage_tables`) and runs ``drawlog report DIR``: exit 0 and a page in
which every value is escaped (:func:`inert`), or exit 2, one line, no page.
:func:`check_config` runs ``validate`` under a random ``drawlog.toml``,
``pyproject.toml`` or ``--config`` file and compares it with ``--isolated`` and the
equivalent options; :func:`check_baseline` runs ``validate --baseline`` with a
damaged baseline and compares it with what the baseline format says it absorbs.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from drawlog.errors import NothingRead
from drawlog.tables.dataset import write_tables

from .agree_commands import invoke, one_line_error

# --- report --------------------------------------------------------------------------------------------


def _parts(folder: Path, table: str) -> list[Path]:
    return sorted((folder / table).rglob("*.parquet")) if (folder / table).is_dir() else []


def _rows(height: int, mode: int) -> list[bool]:
    """Which rows a change hits: all, the first, every other, or the last."""
    return [mode == 0 or (mode == 1 and i == 0) or (mode == 2 and i % 2 == 0) or (mode == 3 and i == height - 1)
            for i in range(height)]


def _changed(frame: Any, change: tuple[Any, ...]) -> Any:
    """``frame`` with one change of :data:`hostile.table_damage` made (or as it was, when it does not apply)."""
    import polars as pl

    kind = change[0]
    if not frame.width:
        return frame
    name = frame.columns[change[2] % frame.width]
    dtype = frame.schema[name]
    if kind == "drop":
        return frame.drop(name)
    if kind == "empty":
        return frame.clear()
    if kind == "retype":
        target = change[3]
        if target == "list":
            return frame.with_columns(pl.concat_list([pl.col(name)]).alias(name))
        cast = {"str": pl.String, "float": pl.Float64, "int32": pl.Int32, "bool": pl.Boolean}[target]
        return frame.with_columns(pl.col(name).cast(cast, strict=False))
    hits = _rows(frame.height, change[4] if kind != "null" else change[2] % 4)
    old = frame[name].to_list()
    if kind == "null":
        return frame.with_columns(pl.Series(name, [None if hit else value for hit, value in zip(hits, old)],
                                            dtype=dtype))
    value = change[3]
    if kind == "text":
        if dtype == pl.String:
            values = [value if hit else item for hit, item in zip(hits, old)]
        elif dtype == pl.List(pl.String):
            values = [[value, *(item or [])] if hit else item for hit, item in zip(hits, old)]
        else:
            return frame
        return frame.with_columns(pl.Series(name, values, dtype=dtype))
    if kind == "time":
        if not isinstance(dtype, pl.Datetime):
            return frame
        micros = frame[name].cast(pl.Int64).to_list()
        return frame.with_columns(pl.Series(name, [value if hit else item for hit, item in zip(hits, micros)],
                                            dtype=pl.Int64).cast(dtype))
    if not dtype.is_numeric():  # a number
        return frame
    values = [value if hit else item for hit, item in zip(hits, old)]
    try:
        return frame.with_columns(pl.Series(name, values, dtype=dtype, strict=True))
    except (OverflowError, TypeError, ValueError, pl.exceptions.PolarsError):
        return frame.with_columns(pl.Series(name, values, strict=False))  # another type: retyped


def damage_tables(folder: Path, changes: list[tuple[Any, ...]]) -> None:
    """Make ``changes`` to the statistics folder ``folder`` (see :data:`hostile.table_damage`)."""
    import polars as pl

    for change in changes:
        kind = change[0]
        if kind == "manifest":
            _damage_manifest(folder, change[1], change[2])
            continue
        parts = _parts(folder, change[1])
        if not parts:
            continue
        part = parts[0]
        if kind == "truncate":
            data = part.read_bytes()
            part.write_bytes(data[:change[2] % max(len(data), 1)])
        elif kind == "remove":
            part.unlink()
        elif kind == "garbage":
            part.write_bytes(hashlib.sha256(part.read_bytes()).digest() * 40)
        else:
            try:
                frame = pl.read_parquet(part)
            except Exception:  # noqa: BLE001, S112 - damaged by an earlier change: left as it is
                continue
            try:
                changed = _changed(frame, change)
            except (pl.exceptions.PolarsError, UnicodeEncodeError):  # a cast polars has not, a lone surrogate
                continue
            changed.write_parquet(part)


def _damage_manifest(folder: Path, key: str, value: Any) -> None:
    manifest = folder / "_drawlog.json"
    try:
        document = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if key == "whole":
        document = value
    elif key in ("files", "decompression") and isinstance(document.get("summary"), dict):
        document["summary"][key] = value
    elif isinstance(document, dict):
        document[key] = value
    manifest.write_text(json.dumps(document), encoding="utf-8")


#: What may not reach the page raw from the data: bidi and line-separator marks, ESC, NUL, comments.
RAW = ("\u202e", "\u2066", "\u2069", "\u2028", "\u2029", "\x1b", "\x00", "<!--")
_OWN_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def _handlers(page: str) -> list[tuple[str, str]]:
    """Every ``on…`` attribute (an event handler) of every element of ``page``, as a browser's parser reads them."""
    from html.parser import HTMLParser

    found: list[tuple[str, str]] = []

    class Attributes(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.extend((tag, name) for name, _ in attrs if name.lower().startswith("on"))

        handle_startendtag = handle_starttag

    parser = Attributes(convert_charrefs=True)
    parser.feed(page)
    parser.close()
    return found


def inert(page: str) -> None:
    """Every value of ``page`` escaped: only the report's own two scripts (named in its policy) and its two JSON
    data scripts (the charts, the violations list), no event handler, no ``://``, no raw bidi or control
    characters outside the scripts."""
    own = _OWN_SCRIPT.findall(page)
    assert len(own) == 2, len(own)
    data = _OWN_SCRIPT.sub("", page)
    assert data.lower().count("<script") == 2 and data.lower().count("</script") == 2, \
        re.findall(r"(?i).{0,80}<script.{0,80}", data)
    for name in ("drawlog-charts", "drawlog-violations"):
        held = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', data, re.DOTALL)
        assert held is not None, name
        json.loads(held.group(1))
        assert "<" not in held.group(1) and ">" not in held.group(1)
    assert "://" not in page, re.findall(r".{0,60}://.{0,60}", page)[:3]  # (the Vega runtime's too: written :\/\/)
    handlers = _handlers(data)
    assert not handlers, handlers[:3]
    assert [raw for raw in RAW if raw in data] == [], [raw for raw in RAW if raw in data]
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    hashes = {"'sha256-" + base64.b64encode(hashlib.sha256(body.encode()).digest()).decode() + "'" for body in own}
    script_src = next(part.split()[1:] for part in policy.group(1).split(";") if part.split()[0] == "script-src")
    assert set(script_src) - {"'unsafe-eval'"} == hashes, script_src
    assert "default-src 'none'" in policy.group(1)


def check_report(data: bytes, changes: list[tuple[Any, ...]], logs: bool) -> None:
    """``drawlog report STATS -o PAGE`` on the tables of ``data`` damaged by ``changes`` (``logs``: and --logs)."""
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        log, stats, page = Path(folder) / "log.jsonl", Path(folder) / "stats", Path(folder) / "page.html"
        log.write_bytes(data)
        try:
            write_tables([str(log)], stats)
        except NothingRead:
            return
        damage_tables(stats, changes)
        result = invoke("report", str(stats), "-o", str(page), "-q", *(["--logs", str(log)] if logs else []))
        if result.exit_code == 2:
            one_line_error(result)
            assert not page.exists(), "a page left after exit 2"
            return
        assert result.exit_code == 0, result.output
        inert(page.read_text(encoding="utf-8"))


# --- configuration ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """The current folder is ``folder`` for a while (a configuration is found from there)."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def _parsed(data: bytes, project: bool) -> dict[str, Any] | None:
    """The settings table of a configuration's bytes as TOML reads it (None: not a valid file of settings; a
    ``pyproject.toml`` that cannot be read and does not say ``[tool.drawlog`` is not drawlog's: no settings)."""
    import tomllib

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return {} if project and b"[tool.drawlog" not in data else None
    tool = document.get("tool")
    table = tool.get("drawlog") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else {} if project else document


def equivalent_options(settings: dict[str, Any], log: str) -> list[str]:
    """The command-line options that do what ``settings`` does for ``log`` (per-file ignores that match it
    as ``--extend-ignore``)."""
    options: list[str] = []
    for key in ("select", "ignore"):
        if key in settings:
            options += [item for value in settings[key] or [""] for item in (f"--{key}", value)]
    for key in ("extend-select", "extend-ignore"):
        options += [item for value in settings.get(key, []) for item in (f"--{key}", value)]
    for glob, codes in settings.get("per-file-ignores", {}).items():
        glob = glob.removeprefix("./")
        if fnmatchcase(log, glob):
            options += [item for value in codes for item in ("--extend-ignore", value)]
    for key in ("format", "max-per-match", "max-per-line", "jobs"):
        if key in settings:
            options += [f"--{key}", str(settings[key])]
    return options


def check_config(data: bytes, where: str, log_data: bytes) -> None:
    """``validate log.jsonl`` under a configuration ``data`` placed at ``where``: one line naming the file and
    exit 2, or the run of ``validate --isolated`` with the equivalent options, output and exit status."""
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        work = Path(folder)
        (work / "log.jsonl").write_bytes(log_data)
        name = "ci.toml" if where == "--config" else where
        (work / name).write_bytes(data)
        with _inside(work):
            configured = invoke("validate", "log.jsonl", *(["--config", name] if where == "--config" else []))
            if configured.exit_code == 2 and "Error" in configured.stderr:  # (an unreadable log: F007, exit 2)
                assert name in one_line_error(configured), configured.stderr
                return
            settings = _parsed(data, where == "pyproject.toml")
            assert settings is not None, configured.stderr
            plain = invoke("validate", "log.jsonl", "--isolated", *equivalent_options(settings, "log.jsonl"))
        assert configured.exit_code == plain.exit_code, (configured.output, plain.output)
        if settings.get("per-file-ignores"):  # the verdict says "per-file-ignores" where the other names codes
            note = re.compile(r" \((?:select|ignore|per-file-ignores)[^)]*\)")
            assert note.sub("", configured.stdout) == note.sub("", plain.stdout)
        else:
            assert configured.stdout == plain.stdout


# --- baselines -----------------------------------------------------------------------------------------


def _baseline_bytes(document: Any, changes: list[tuple[Any, ...]], instead: Any,
                    inserted: list[tuple[int, bytes]]) -> bytes:
    """A baseline ``document`` with ``changes`` made to its entries, or ``instead`` of it, as bytes."""
    if instead == "version":
        document["drawlog_baseline"] = True
    elif instead == "deep":
        return b'{"drawlog_baseline": 1, "violations": ' + b"[" * 70 + b"]" * 70 + b"}"
    elif isinstance(instead, tuple):
        document = instead[1]
    entries = document.get("violations") if isinstance(document, dict) else None
    for kind, index, field, value in changes if isinstance(entries, list) else []:
        if not entries and kind != "entry":
            continue
        at = index % max(len(entries), 1)
        if kind == "count" and isinstance(entries[at], dict):
            entries[at]["count"] = value
        elif kind == "drop":
            del entries[at]
        elif kind == "dup":
            entries.insert(at, json.loads(json.dumps(entries[at])))
        elif kind == "field" and isinstance(entries[at], dict):
            entries[at][field] = value
        elif kind == "del" and isinstance(entries[at], dict):
            entries[at].pop(field, None)
        elif kind == "extra" and isinstance(entries[at], dict):
            entries[at]["unknown"] = value
        elif kind == "entry":
            entries.insert(at, value)
    text = json.dumps(document, ensure_ascii=bool(len(changes) % 2)).encode("utf-8", "surrogatepass")
    for position, piece in inserted:
        position %= len(text) + 1
        text = text[:position] + piece + text[position:]
    return text


def _entries(data: bytes) -> Counter[tuple[Any, ...]] | None:
    """The entries of a baseline as the format defines them (None: the file is no baseline, exit 2)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or type(document.get("drawlog_baseline")) is not int \
            or document["drawlog_baseline"] != 1 or not isinstance(document.get("violations"), list):
        return None
    counts: Counter[tuple[Any, ...]] = Counter()
    for entry in document["violations"]:
        if not isinstance(entry, dict) or not all(isinstance(entry.get(name), str) for name in
                                                  ("file", "code", "message")) \
                or "match" not in entry or not isinstance(entry["match"], (str, type(None))):
            return None
        count = entry.get("count", 1)
        if type(count) is not int or count < 1:
            return None
        counts[(entry["file"], entry["code"], entry["match"], entry["message"])] += count
    return counts


def check_baseline(log_data: bytes, changes: list[tuple[Any, ...]], instead: Any,
                   inserted: list[tuple[int, bytes]]) -> None:
    """``validate --baseline B`` with a damaged baseline: one line naming B and exit 2 when it is no baseline,
    else the violations of the plain run less those the entries absorb, in order, and the exit status of what
    is left."""
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        log, baseline = Path(folder) / "log.jsonl", Path(folder) / "known.json"
        log.write_bytes(log_data)
        plain = invoke("validate", str(log), "--format", "json", "--isolated")
        if plain.exit_code == 2:
            return
        written = invoke("validate", str(log), "--isolated", "--write-baseline", str(baseline), "-q")
        assert written.exit_code == 0, written.output
        document = json.loads(baseline.read_text(encoding="utf-8"))
        assert document["drawlog_baseline"] == 1
        data = _baseline_bytes(document, changes, instead, inserted)
        baseline.write_bytes(data)
        screened = invoke("validate", str(log), "--format", "json", "--isolated", "--baseline", str(baseline))
        counts = _entries(data)
        if counts is None:
            one_line_error(screened, str(baseline))
            return
        assert screened.exit_code in (0, 1), screened.output
        report, shown = json.loads(plain.stdout), json.loads(screened.stdout)
        left, absorbed = [], 0
        for violation in report["violations"]:
            item = (violation["file"], violation["code"], violation["match"], violation["message"])
            if counts[item] > 0:
                counts[item] -= 1
                absorbed += 1
            else:
                left.append(violation)
        assert shown["violations"] == left
        assert shown["summary"]["baselined"] == absorbed
        failed = any(violation["severity"] == "error" for violation in left) or shown["summary"]["suppressed_errors"]
        assert screened.exit_code == (1 if failed else 0), (screened.exit_code, shown["summary"])
