"""The properties every fuzzed input must keep: no exception, every line accounted for, one verdict everywhere.

:func:`check_log` writes an input to a file and checks that ``validate`` (the
:class:`~drawlog.check.validator.Validator` reading the file) and ``stats``
(:func:`~drawlog.tables.dataset.write_tables`, whose ``violations`` table is
read back) report the same violations, field for field and in the same order,
and the same summary; and that the in-memory API (``validate_lines``) agrees
with the file reader.
"""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pyarrow.parquet as pq

from drawlog.check.validator import Validator, validate_lines
from drawlog.check.violations import Summary, Violation
from drawlog.errors import NothingRead
from drawlog.tables.dataset import write_tables

BOM = b"\xef\xbb\xbf"
#: The fields of a violation compared between ``validate`` and the ``violations`` table.
COMPARED = ("file", "line", "match", "round", "player", "code", "severity", "message")

Row = tuple[object, ...]


def line_count(data: bytes) -> int:
    """How many lines a reader finds in ``data``: one per newline, and a last line without one."""
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


def accounted(summary: Summary, lines: int) -> None:
    """Every line read is an event, a blank line or an invalid line, and every line of the input was read."""
    assert summary.lines == summary.events + summary.blank_lines + summary.invalid_lines, summary
    assert summary.lines == lines, (summary.lines, lines)
    assert min(summary.events, summary.blank_lines, summary.invalid_lines) >= 0, summary


def rows(violations: list[Violation]) -> list[Row]:
    return [tuple(getattr(violation, name) for name in COMPARED) for violation in violations]


def packed(data: bytes, name: str) -> bytes:
    """``data`` as stored in a file called ``name``: gzip for ``.gz``, zstd for ``.zst``, else as it is."""
    if name.endswith(".gz"):
        return gzip.compress(data, compresslevel=1, mtime=0)
    if name.endswith(".zst"):
        import zstandard

        return zstandard.ZstdCompressor(level=1).compress(data)
    return data


def _stored(data: bytes, path: Path) -> None:
    path.write_bytes(packed(data, path.name))


def validated(path: Path) -> tuple[list[Violation], Summary]:
    """What ``validate`` reports for one file."""
    validator = Validator()
    found = list(validator.validate_paths(str(path)))
    return found, validator.summary


def stats_rows(path: Path, out: Path) -> tuple[list[Row], Summary] | None:
    """The ``violations`` table ``stats`` writes for one file, and its summary (None: nothing could be read)."""
    try:
        summary = write_tables([str(path)], out, rows_per_group=64)
    except NothingRead:
        return None
    table = pq.read_table(out / "violations" / "part-00000.parquet", columns=list(COMPARED))
    return [tuple(row[name] for name in COMPARED) for row in table.to_pylist()], summary


def check_log(data: bytes, suffix: str = ".jsonl", in_memory: bool = True,
              damage: Callable[[bytes], bytes] | None = None) -> list[Violation]:
    """Check ``data`` as a log file: the properties of this module. Returns what ``validate`` reported.

    ``damage`` changes the file's bytes once compressed (a truncated or corrupt ``.jsonl.gz``): then
    the lines read before the fault are accounted for, and nothing is compared with ``data`` in memory.
    """
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        path = Path(folder) / f"log{suffix}"
        _stored(data, path)
        if damage is not None:
            path.write_bytes(damage(path.read_bytes()))
            in_memory = False
        found, summary = validated(path)
        body = data.removeprefix(BOM)
        unreadable = summary.files == 0
        if unreadable:
            assert summary.unreadable == 1 and [violation.code for violation in found] == ["F007"], found
        elif damage is not None:
            accounted(summary, summary.lines)
            assert summary.lines <= line_count(body) or any(violation.code == "F007" for violation in found)
        else:
            accounted(summary, line_count(body))
        written = stats_rows(path, Path(folder) / "stats")
        if written is None:
            assert unreadable, "stats read nothing where validate read the file"
        else:
            table, stats_summary = written
            assert table == rows(found)
            assert msgspec.structs.asdict(stats_summary) == msgspec.structs.asdict(summary)
    if in_memory and not unreadable:
        memory, memory_summary = validate_lines(data, str(path))  # a leading BOM as the file reader takes it
        assert rows(memory) == rows(found)
        accounted(memory_summary, line_count(body))
    return found


def check_cli(data: bytes) -> None:
    """``drawlog validate FILE --format json`` and ``drawlog stats FILE`` report the same violations and summary."""
    import json

    from typer.testing import CliRunner

    from drawlog.cli import app

    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        path, out = Path(folder) / "log.jsonl", Path(folder) / "stats"
        path.write_bytes(data)
        report = _validate_command(path)
        written = CliRunner().invoke(app, ["stats", str(path), "--out", str(out), "-q"])
        assert written.exception is None or isinstance(written.exception, SystemExit), written.output
        if report is None:  # nothing could be read
            assert written.exit_code == 2, written.output
            return
        assert written.exit_code == 0, written.output
        table = pq.read_table(out / "violations" / "part-00000.parquet", columns=list(COMPARED)).to_pylist()
        assert [tuple(row[name] for name in COMPARED) for row in table] == \
            [tuple(violation[name] for name in COMPARED) for violation in report["violations"]]
        manifest = json.loads((out / "_drawlog.json").read_text(encoding="utf-8"))
        assert manifest["summary"] == report["summary"]


def check_files(logs: list[bytes], jobs: int = 2, cli: bool = True) -> None:
    """Several files in a folder: ``stats`` in one process and in ``jobs`` agree with ``validate`` of the folder,
    and so do the ``validate`` command's reports in one process and in ``jobs`` (``cli``)."""
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        logs_folder = Path(folder) / "logs"
        logs_folder.mkdir()
        for index, data in enumerate(logs):
            _stored(data, logs_folder / f"{index:02d}.jsonl")
        found, summary = validated(logs_folder)
        expected = rows(found)
        for processes in (1, jobs):
            try:
                stats_summary = write_tables([str(logs_folder)], Path(folder) / f"stats{processes}", jobs=processes,
                                             rows_per_group=64)
            except NothingRead:
                assert summary.files == 0, (processes, found)
                continue
            table = pq.read_table(Path(folder) / f"stats{processes}" / "violations" / "part-00000.parquet", columns=list(COMPARED))
            assert [tuple(row[name] for name in COMPARED) for row in table.to_pylist()] == expected, processes
            assert msgspec.structs.asdict(stats_summary) == msgspec.structs.asdict(summary), processes
        if cli:
            for processes in (1, jobs):
                report = _validate_command(logs_folder, "--jobs", str(processes))
                if report is None:
                    assert summary.files == 0, (processes, found)
                    continue
                assert [tuple(violation[name] for name in COMPARED) for violation in report["violations"]] == \
                    expected, processes
                assert report["summary"] == msgspec.to_builtins(summary), processes


def _validate_command(*args: object) -> dict[str, Any] | None:
    """``drawlog validate ARGS --format json --isolated``: its report (None when it exits 2, nothing read)."""
    import json

    from typer.testing import CliRunner

    from drawlog.cli import app

    result = CliRunner().invoke(app, ["validate", *map(str, args), "--format", "json", "--isolated"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    if result.exit_code == 2:
        return None
    assert result.exit_code in (0, 1), result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


class _Chunked:
    """A stream that hands out ``data`` in reads of the given sizes (then the rest at once), as a pipe may."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.data, self.sizes, self.at = data, list(sizes), 0

    def read1(self, size: int = -1) -> bytes:
        want = self.sizes.pop(0) if self.sizes else len(self.data)
        piece = self.data[self.at:self.at + max(1, min(want, size if size > 0 else want))]
        self.at += len(piece)
        return piece

    read = read1

    def peek(self, size: int = 0) -> bytes:  # as io.BufferedReader's: at most one read of the pipe
        return self.data[self.at:self.at + max(self.sizes[0] if self.sizes else len(self.data), 1)]


def validated_stdin(data: bytes, sizes: list[int]) -> tuple[list[Violation], Summary]:
    """What ``validate -`` reports for ``data`` arriving on standard input in reads of ``sizes`` bytes."""
    import sys
    from types import SimpleNamespace

    from drawlog.log.reader import STDIN, Source

    stdin = sys.stdin
    sys.stdin = SimpleNamespace(buffer=_Chunked(data, sizes))  # type: ignore[assignment]  # only .buffer is read
    try:
        validator = Validator()
        return list(validator.validate_inputs([Source(STDIN)])), validator.summary
    finally:
        sys.stdin = stdin


def check_chunked(data: bytes, sizes: list[int], suffix: str = ".jsonl") -> None:
    """``data`` read from standard input in reads of ``sizes`` bytes is validated as the same bytes in a file.

    With ``suffix`` ``.jsonl.gz`` or ``.jsonl.zst`` the file is compressed, and so is standard input.
    """
    with tempfile.TemporaryDirectory(prefix="drawlog-fuzz-") as folder:
        path = Path(folder) / f"log{suffix}"
        _stored(data, path)
        found, summary = validated(path)
        packed = path.read_bytes()
    piped, piped_summary = validated_stdin(packed, sizes)
    named = [(row[1:-1], row[-1].replace(f"(first at {path}:", "(first at -:")) for row in rows(found)]  # F005
    assert [(row[1:-1], row[-1]) for row in rows(piped)] == named
    assert msgspec.structs.asdict(piped_summary) == msgspec.structs.asdict(summary)
