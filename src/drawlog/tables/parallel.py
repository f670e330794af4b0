"""``stats --jobs N``: the tables written in parts by worker processes, joined into the tables one process writes.

Each worker replays a part, a run of consecutive inputs (:func:`stats_part`),
into Arrow streams; the parent joins the parts in input order
(:func:`write_in_parallel`): it corrects what only one process could know
(:class:`~drawlog.check.parts.CrossFile`: F005 of match ids started in
earlier parts, F004's wording, those matches' ``errors`` and ``valid``; and
:class:`EndedKeys`: the keys of violations of matches lately ended in earlier
parts), and writes row groups of ``rows_per_group`` rows as one process does.
The tables are the same, row for row and row group for row group.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from ..check.bookkeeping import ENDED, NOT_STARTED
from ..check.parts import (
    CrossFile,
    Part,
    PartFix,
    PartOptions,
    PartResult,
    StartNotes,
    add_summaries,
    fix_summary,
)
from ..check.pool import ProgressSender, plan_parts, worker_pool
from ..check.validator import Validator
from ..check.violations import Summary, Violation
from ..errors import InputError
from ..log.reader import Source, printable
from .move_sink import MOVE_PARQUET
from .stats import ENDED_KEPT, SCHEMAS, WRITE_SCHEMAS, StatsRecorder
from .writers import ROWS_PER_GROUP, WriterThread, open_writer
from .writing import InputTracker, write_in_one_process

#: Each input's share of a part's summary, in the part's folder (msgpack).
SHARES = "_shares.msgpack"

_KEY_COLUMNS = ("tournament", "table_name", "variant")


def stats_part(part: Part, parquet: bool = False, ended: list[tuple[str, str | None, str | None, str]] | None = None
               ) -> PartResult:
    """A worker's share of the tables: ``part``'s inputs replayed into Arrow streams in ``part.folder``.

    One ``NAME.arrow`` per table (each row group with its own dictionaries;
    ``parquet``: ``NAME.parquet`` files instead, as a cluster's worker keeps).
    Returns the summary, the rows of each table, the match ids first started
    (:class:`~drawlog.check.parts.Start`) and the violations whose match's keys
    the part did not know (``misses``: an earlier part may have ended it lately).
    ``ended``: the keys of the matches earlier parts lately ended
    (:meth:`EndedKeys.kept`), for a part replayed knowing them.
    """
    validator = part.options.validator()
    if part.seen:
        validator.replay.started_before(part.seen)
    notes = StartNotes(validator)
    progress = ProgressSender(lambda: validator.summary.matches)
    validator.on_block = progress.block
    misses: list[tuple[int, str, int]] = []
    count = 0

    def watch(recorder: StatsRecorder, violation: Violation) -> None:
        nonlocal count
        notes.saw(violation)
        match = violation.match
        if match is not None and not recorder.knows(match):
            ended = recorder.sinks["matches"]
            misses.append((count, match, ended.rows + len(ended.pending)))
        count += 1

    tracker = InputTracker(validator, starts=False)
    summary, rows = write_in_one_process(tracker.inputs(_announced(part, progress)), Path(part.folder), validator,
                                          arrow=not parquet, threaded=False, watch=watch, ended=ended)
    Path(part.folder, SHARES).write_bytes(msgspec.msgpack.encode(tracker.summaries))
    return PartResult(summary, notes.starts(), rows=rows, misses=misses)


def _announced(part: Part, progress: ProgressSender) -> Iterator[Source | InputError]:
    """The part's inputs, telling ``progress`` as each starts and ends."""
    for index, item in zip(part.indices, part.inputs):
        progress.start(index)
        yield item
        progress.done()


def write_in_parallel(inputs: list[Source | InputError], folder: Path, jobs: int, validator: Validator,
                      rows_per_group: int = ROWS_PER_GROUP, seen: dict[str, tuple[str, int]] | None = None,
                      ended_keys: list[tuple[str, str | None, str | None, str]] | None = None,
                      on_input: Callable[[Summary, dict[str, int]], None] | None = None,
                      ) -> tuple[Summary, dict[str, int]] | None:
    """Write the tables of ``inputs`` into ``folder`` with ``jobs`` processes (None: one part, use one process).

    ``validator`` gives the options, and hears of the workers' reading as if
    it read itself (its ``on_block`` the bytes, its ``summary.matches`` the
    matches started), for progress displays. ``seen`` and ``ended_keys``: the
    match ids inputs read before started, and the matches they lately ended
    (the run goes on from them). ``on_input`` is called for each input, in
    order, with its share of the summary and the match ids it started first
    (``{id: line}``).
    """
    parts = plan_parts(inputs, jobs)
    if len(parts) < 2:
        return None
    options = PartOptions.of(validator)
    tasks = []
    for number, indices in enumerate(parts):
        (folder / f"_part-{number}").mkdir()
        tasks.append(Part(list(indices), [inputs[index] for index in indices], str(folder / f"_part-{number}"),
                          options))
    listening = validator.on_block

    def on_progress(index: int, size: int, matches: int, done: bool) -> None:
        validator.summary.matches += matches
        if listening is not None:
            listening(size)

    summary = Summary()
    cross, ended = CrossFile(), EndedKeys()
    cross.first.update(seen or {})
    ended.take(ended_keys or [])
    try:
        with worker_pool(min(jobs, len(tasks)), progress=listening is not None) as pool:
            background = WriterThread()  # once the workers are forked: a fork copies only the thread that forks
            groups = {name: RowGroups(open_writer(folder / f"{name}.parquet", schema,
                                                  options=MOVE_PARQUET if name == "moves" else None),
                                      rows_per_group, background)
                      for name, schema in WRITE_SCHEMAS.items()}
            try:
                for task, result in zip(tasks, pool.in_order(stats_part, tasks, on_progress)):
                    result, fix = _fixed(task, result, cross)
                    add_summaries(summary, result.summary)
                    tables = {name: _read_arrow(Path(task.folder) / f"{name}.arrow") for name in SCHEMAS}
                    tables["matches"] = _invalidated(tables["matches"], fix)
                    tables["violations"] = _corrected(tables["violations"], tables["matches"], result, fix, cross,
                                                      ended)
                    ended.add(tables["matches"])
                    if on_input is not None:
                        _each_input(task, result, fix, cross, on_input)
                    cross.add(result)
                    for name, table in tables.items():
                        groups[name].add(table)
                    del tables
                    shutil.rmtree(task.folder, ignore_errors=True)
                for group in groups.values():
                    group.flush()
            finally:
                try:
                    background.close()
                finally:
                    for group in groups.values():
                        group.close()
    finally:
        for task in tasks:  # what a failure left
            shutil.rmtree(task.folder, ignore_errors=True)
    return summary, {name: group.rows for name, group in groups.items()}


def _each_input(task: Part, result: PartResult, fix: PartFix, cross: CrossFile,
                on_input: Callable[[Summary, dict[str, int]], None]) -> None:
    """Tell ``on_input`` of each input of a joined part: its share of the summary (fixed) and the ids it started first."""
    shares = msgspec.msgpack.decode(Path(task.folder, SHARES).read_bytes(), type=list[Summary])
    for item, share in zip(task.inputs, shares):
        name = printable(item.name if isinstance(item, Source) else item.path)
        fix_summary(share, PartFix(inserted=[(at, found) for at, found in fix.inserted if found.file == name],
                                   invalid=[start for start in fix.invalid if start.file == name]))
        first: dict[str, int] = {}
        for start in result.starts:
            if start.file == name and start.match not in cross.first:
                first.setdefault(start.match, start.line)
        on_input(share, first)


def _fixed(task: Part, result: PartResult, cross: CrossFile) -> tuple[PartResult, PartFix]:
    """A part's result and what the join changes in it; the part replayed here again where that is the way."""
    fix = cross.fix(result)
    if fix.again:  # an F005 would crowd a cap: replay the part here, knowing the ids started before
        result = stats_part(dataclasses.replace(task, seen=dict(cross.first)))
        fix = PartFix()
    fix_summary(result.summary, fix)
    return result, fix


def _read_arrow(path: Path) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        return pa.ipc.open_stream(source).read_all()


class RowGroups:
    """A table's Parquet file written ``rows_per_group`` rows a row group, whatever the sizes of the tables added.

    The row groups are those one process writes; dictionary columns (the
    moves') get one dictionary per row group. Writing runs in ``background``.
    """

    def __init__(self, writer: Any, rows_per_group: int, background: WriterThread) -> None:
        self.writer = writer
        self.rows_per_group = rows_per_group
        self.background = background
        #: Rows written so far (handed to the writer thread).
        self.rows = 0
        self._pending: list[pa.Table] = []
        self._count = 0

    def add(self, table: pa.Table) -> None:
        """Add rows; each full row group is written."""
        if not table.num_rows:
            return
        self._pending.append(table)
        self._count += table.num_rows
        while self._count >= self.rows_per_group:
            whole = pa.concat_tables(self._pending)
            self._write(whole.slice(0, self.rows_per_group))
            rest = whole.slice(self.rows_per_group)
            self._pending = [rest] if rest.num_rows else []
            self._count = rest.num_rows

    def flush(self) -> None:
        """Write the rows left as the last row group."""
        if self._count:
            self._write(pa.concat_tables(self._pending))
            self._pending, self._count = [], 0

    def _write(self, table: pa.Table) -> None:
        if any(pa.types.is_dictionary(column.type) for column in table.schema):
            table = table.unify_dictionaries()
        table = table.combine_chunks()
        self.rows += table.num_rows
        self.background.submit(lambda: self.writer.write_table(table, row_group_size=table.num_rows))

    def close(self) -> None:
        """Close the file (rows not flushed are dropped: the run failed)."""
        self.writer.close()


def _row_of_start(matches: pa.Table, starts: list[Any]) -> dict[tuple[str, str, int], int]:
    """The matches row of each first start ``(match, file, line)``: the match started there."""
    wanted = {(start.match, start.file, start.line) for start in starts}
    found = {}
    for row, key in enumerate(zip(matches.column("match").to_pylist(), matches.column("file").to_pylist(),
                                  matches.column("first_line").to_pylist())):
        if key in wanted:
            found[key] = row
    return found


def _invalidated(matches: pa.Table, fix: PartFix) -> pa.Table:
    """The matches table with one error more, and not valid, for each match whose id an earlier part started."""
    if not fix.invalid:
        return matches
    rows = _row_of_start(matches, fix.invalid)
    errors = matches.column("errors").to_pylist()
    valid = matches.column("valid").to_pylist()
    for row in rows.values():
        errors[row] += 1
        valid[row] = False
    schema = matches.schema
    matches = matches.set_column(schema.get_field_index("errors"), schema.field("errors"),
                                 pa.array(errors, schema.field("errors").type))
    return matches.set_column(schema.get_field_index("valid"), schema.field("valid"),
                              pa.array(valid, schema.field("valid").type))


def _corrected(violations: pa.Table, matches: pa.Table, result: PartResult, fix: PartFix, cross: CrossFile,
               ended: EndedKeys) -> pa.Table:
    """The violations table as one process writes it: F004 and F005 worded, keys found, F005s inserted."""
    code, match = violations.column("code"), violations.column("match")
    message = violations.column("message")
    changed = False
    if fix.renamed:
        ids = pa.array(list(fix.renamed), pa.string())
        renamed = pc.and_(pc.equal(code, "F005"), pc.is_in(match, value_set=ids))
        if pc.any(renamed).as_py():
            words = pc.take(pa.array(list(fix.renamed.values()), pa.string()), pc.index_in(match, value_set=ids))
            message, changed = pc.if_else(renamed, words, message), True
    not_started = pc.and_(pc.equal(code, "F004"), pc.ends_with(message, f", {NOT_STARTED}"))
    if pc.any(not_started).as_py():
        ids = pa.array([match_id for match_id in pc.unique(pc.filter(match, not_started)).to_pylist()
                        if cross.started_before(match_id)], pa.string())
        if len(ids):
            before = pc.and_(not_started, pc.is_in(match, value_set=ids))
            worded = pc.replace_substring_regex(message, pattern=re.escape(f", {NOT_STARTED}") + "$",
                                                replacement=f", {ENDED}")
            message, changed = pc.if_else(before, worded, message), True
    if changed:
        violations = violations.set_column(violations.schema.get_field_index("message"), "message", message)
    keys = ended.found(result.misses, matches.column("match").to_pylist())
    if keys:
        violations = _with_keys(violations, keys)
    if fix.inserted:
        violations = _with_f005(violations, matches, fix)
    return violations


def _with_keys(violations: pa.Table, keys: dict[int, tuple[str | None, str | None, str | None]]) -> pa.Table:
    """``violations`` with the keys (tournament, table_name, variant) of some rows filled in."""
    for position, name in enumerate(_KEY_COLUMNS):
        values = violations.column(name).to_pylist()
        for row, found in keys.items():
            values[row] = found[position]
        violations = violations.set_column(violations.schema.get_field_index(name), name,
                                           pa.array(values, pa.string()))
    return violations


def _with_f005(violations: pa.Table, matches: pa.Table, fix: PartFix) -> pa.Table:
    """``violations`` with ``fix``'s F005s inserted, each with the keys of the match started on its line."""
    starts = {(start.match, start.file, start.line): start for start in fix.invalid}
    rows = _row_of_start(matches, fix.invalid)
    keys = {name: matches.column(name).to_pylist() for name in ("path", *_KEY_COLUMNS)}
    pieces, done = [], 0
    for position, violation in fix.inserted:
        assert violation.match is not None and violation.line is not None
        start = starts[(violation.match, violation.file, violation.line)]
        row = rows[(start.match, start.file, start.line)]
        pieces.append(violations.slice(done, position - done))
        pieces.append(pa.Table.from_pylist([{
            "file": violation.file, "path": keys["path"][row], "line": violation.line, "match": violation.match,
            "round": None, "player": None, "code": violation.code, "severity": violation.severity,
            "message": violation.message, **{name: keys[name][row] for name in _KEY_COLUMNS},
            "follows": violation.follows,
        }], schema=violations.schema))
        done = position
    pieces.append(violations.slice(done))
    return pa.concat_tables(pieces)


class EndedKeys:
    """The keys of the matches lately ended (the last ``ENDED_KEPT`` ids) over the parts joined so far.

    As :class:`~drawlog.tables.stats.StatsRecorder` keeps them in one process,
    for violations of a match no longer open: a part knows only its own.
    """

    def __init__(self) -> None:
        self.keys: OrderedDict[str, tuple[str | None, str | None, str | None]] = OrderedDict()

    def found(self, misses: list[tuple[int, str, int]], part_ids: list[str]
              ) -> dict[int, tuple[str | None, str | None, str | None]]:
        """The keys one process gives the part's violations its recorder missed: ``{violation row: keys}``.

        ``part_ids`` are the part's ended matches in order; a miss after ``k``
        of them finds what the earlier parts left, unless it has gone since.
        """
        relevant = [miss for miss in misses if miss[1] in self.keys]
        if not relevant:
            return {}
        kept = OrderedDict(self.keys)
        found = {}
        done = 0
        for row, match, before in sorted(relevant, key=lambda miss: miss[2]):
            for match_id in part_ids[done:before]:
                _end(kept, match_id, None)
            done = max(done, before)
            keys = kept.get(match)
            if keys is not None:
                found[row] = keys
        return found

    def kept(self) -> list[tuple[str, str | None, str | None, str]]:
        """The matches kept, oldest first, each ``(match, tournament, table_name, variant)``."""
        return [(match_id, *keys) for match_id, keys in self.keys.items()]  # type: ignore[misc]

    def take(self, kept: list[tuple[str, str | None, str | None, str]]) -> None:
        """Take what :meth:`kept` gave of the next part (its matches, as :meth:`add` takes them)."""
        for match_id, *keys in kept:
            _end(self.keys, match_id, tuple(keys))

    def add(self, matches: pa.Table) -> None:
        """Take the matches a part ended, in order."""
        ids = matches.column("match").to_pylist()
        latest: dict[str, int] = {}
        for row in range(len(ids) - 1, -1, -1):  # the last ENDED_KEPT ids by their last end
            if ids[row] not in latest:
                latest[ids[row]] = row
                if len(latest) == ENDED_KEPT:
                    break
        columns = [matches.column(name) for name in _KEY_COLUMNS]
        for match_id, row in sorted(latest.items(), key=lambda item: item[1]):
            _end(self.keys, match_id, tuple(column[row].as_py() for column in columns))  # type: ignore[arg-type]


def _end(kept: OrderedDict[str, Any], match_id: str, keys: Any) -> None:
    """``match_id`` ended (with ``keys``; None: a placeholder, for what goes out): it is the latest."""
    kept.pop(match_id, None)
    kept[match_id] = keys
    if len(kept) > ENDED_KEPT:
        kept.popitem(last=False)
