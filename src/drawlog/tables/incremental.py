"""``stats --out DIR`` again on a folder it wrote: only what changed is replayed.

The folder keeps an index of its inputs, ``_inputs.json`` (:class:`InputsIndex`):
for each input in order its name and absolute path, size, ``mtime_ns`` and a
content hash (SHA-1), the *generation* of table files that holds its rows,
the match ids it started first (with their lines: an F005 of a later input
names them) and its share of the summary. Each run writes its rows as one new
generation, ``TABLE/part-GGGGG.parquet`` (``TABLE/KEY=NAME/part-GGGGG-N.parquet``
with ``--partition-by``).

A run (:func:`plan`) keeps the longest run of inputs at the front that are the
same as last time (same name and path, same size and ``mtime_ns``, or else the
same content hash): their files are carried over (hard links; the rows of
other inputs filtered out of a generation they share). Every input after the
first one new, changed or gone is replayed, seeded with the match ids the kept
inputs started and the matches they ended lately, exactly as one process
reading all of them would go on: the tables equal a full rebuild's, row for
row. Logs added at the end (a league's new files) cost only themselves; a
changed file replays itself and the ones after it.

Everything is replayed (no index is kept) when an input is standard input or
a URL; and everything is replayed when the index is missing or from another
drawlog, table format, ``--partition-by`` or set of checking options, or on
``--rebuild``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..check.violations import Summary
from ..errors import InputError
from ..log.reader import STDIN, Source, printable

#: The index of a statistics folder's inputs.
INDEX = "_inputs.json"
#: A file whose ``mtime_ns`` was this close to when it was indexed may have changed since within the same clock
#: tick, keeping its size and ``mtime_ns``: it is hashed again (as git treats a "racily clean" file).
RACY_NS = 2_000_000_000
_CHUNK = 1 << 20


class InputNote(msgspec.Struct, kw_only=True):
    """One input as the index keeps it."""

    file: str
    path: str
    size: int
    mtime_ns: int
    hash: str
    generation: int
    #: When the size and ``mtime_ns`` were read (a file changed within :data:`RACY_NS` before is hashed again).
    checked_ns: int = 0
    #: ``{match id: line}`` of each match id this input started first (of all inputs before it and itself).
    starts: dict[str, int] = msgspec.field(default_factory=dict)
    summary: Summary = msgspec.field(default_factory=Summary)
    #: The codes ``per-file-ignores`` drops for this input (sorted).
    ignored: list[str] = msgspec.field(default_factory=list)


class InputsIndex(msgspec.Struct, kw_only=True):
    """``_inputs.json``: what the tables were made from, and with what (see the module)."""

    drawlog: str
    table_format: int
    options: str
    partition_by: str | None
    inputs: list[InputNote]


@dataclass
class Plan:
    """What a run reuses and replays: ``kept`` notes at the front, then ``replay`` (inputs, in order)."""

    kept: list[InputNote] = field(default_factory=list)
    replay: list[Source | InputError] = field(default_factory=list)
    #: Each replayed input's stat and hash, by position in ``replay`` (None: not a local file).
    stats: list[tuple[str, str, int, int, int, str] | None] = field(default_factory=list)
    #: Inputs of the index no longer given.
    dropped: int = 0
    #: Generations of the old folder whose files are carried over whole, and the one shared with replayed inputs.
    whole: set[int] = field(default_factory=set)
    shared: int | None = None
    #: The generation this run writes.
    generation: int = 0
    #: Whether an index is written (every input a local file or an unreadable one).
    indexed: bool = True
    #: Why nothing was reused (None when something was, or nothing could be).
    reason: str | None = None

    @property
    def reused(self) -> int:
        """How many inputs are carried over."""
        return len(self.kept)


def options_key(validator: Any, version: str) -> str:
    """What the replay's options and drawlog are, as one string (a change replays everything)."""
    replay, reporter = validator.replay, validator.reporter
    return json.dumps([version, sorted(validator.codes), replay.max_per_match, reporter.max_per_line,
                       replay.max_open_matches])


def read_index(folder: Path) -> InputsIndex | None:
    """The index of ``folder`` (None when it has none, or one this drawlog cannot read)."""
    try:
        return msgspec.json.decode((folder / INDEX).read_bytes(), type=InputsIndex)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def write_index(folder: Path, index: InputsIndex) -> None:
    """Write ``index`` into ``folder``."""
    (folder / INDEX).write_bytes(msgspec.json.format(msgspec.json.encode(index), indent=1))


def content_hash(path: str) -> str:
    """The SHA-1 digest of a file's bytes, as stored (compressed or not), as ``sha1:HEX``.

    It tells whether a file of the same size changed: SHA-1 runs in hardware on most x86 and ARM processors
    (1.9 GB/s here, against 0.7 GB/s for BLAKE2b, which cost 0.25 of a decode of the log in every ``stats``
    run) and is no slower than BLAKE2b without it. Two different files with the same digest by chance are out
    of reach (2^-160); made on purpose (a SHAttered-style collision) they would only keep old rows of a file
    its maker controls anyway. A digest of an older index (plain hex, BLAKE2b) never equals one: the file is
    replayed once.
    """
    digest = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return f"sha1:{digest.hexdigest()}"


def identity(item: Source | InputError) -> tuple[str, str] | None:
    """``(file, path)`` of an input as the tables name it; None for standard input or a URL."""
    if isinstance(item, InputError):
        name = printable(item.path)
        return name, os.path.abspath(name)
    if item.name == STDIN or item.url is not None or item.path is None:
        return None
    name = printable(item.name)
    return name, os.path.abspath(name)


def _stat(item: Source | InputError) -> tuple[str, str, int, int, int] | None:
    """``(file, path, size, mtime_ns, checked_ns)`` of a readable local file (None otherwise)."""
    found = identity(item)
    if found is None or isinstance(item, InputError):
        return None
    checked = time.time_ns()
    try:
        status = os.stat(item.path)  # type: ignore[arg-type]
    except OSError:
        return None
    return found[0], found[1], status.st_size, status.st_mtime_ns, checked


def plan(index: InputsIndex | None, inputs: list[Source | InputError], options: str, partition_by: str | None,
         table_format: int, version: str, ignored: Any = None, rebuild: bool = False) -> Plan:
    """What to reuse of ``index`` and what to replay of ``inputs`` (see the module)."""
    if any(identity(item) is None for item in inputs):
        return Plan(replay=list(inputs), stats=[None] * len(inputs), indexed=False,
                    reason="standard input or a URL among the inputs")
    result = Plan()
    old = index.inputs if index is not None else []
    if rebuild:
        result.reason = "--rebuild"
        old = []
    elif index is None:
        result.reason = "no index of earlier inputs"
    elif (index.drawlog, index.table_format, index.options, index.partition_by) != \
            (version, table_format, options, partition_by):
        result.reason = "another drawlog, table format, --partition-by or checking options"
        old = []
    position = 0
    for item in inputs:
        if position >= len(old):
            break
        note = old[position]
        status = _stat(item)
        if status is None or status[:2] != (note.file, note.path) or status[2] != note.size \
                or _ignored(ignored, note.file) != note.ignored:
            break
        if status[3] != note.mtime_ns or note.mtime_ns >= note.checked_ns - RACY_NS:
            if content_hash(note.path) != note.hash:
                break
            note = msgspec.structs.replace(note, mtime_ns=status[3], checked_ns=status[4])
        result.kept.append(note)
        position += 1
    result.replay = list(inputs[position:])
    for item in result.replay:
        status = _stat(item)
        result.stats.append(None if status is None else (*status, ""))
    given = {identity(item) for item in inputs}
    result.dropped = sum((note.file, note.path) not in given for note in old)
    kept_generations = {note.generation for note in result.kept}
    if old and position < len(old) and old[position].generation in kept_generations:
        result.shared = old[position].generation
    result.whole = kept_generations - ({result.shared} if result.shared is not None else set())
    result.generation = max(note.generation for note in old) + 1 if result.kept else 0
    return result


def _ignored(ignored: Any, file: str) -> list[str]:
    return sorted(ignored(file)) if ignored is not None else []


def hashed(stats: tuple[str, str, int, int, int, str] | None) -> tuple[str, str, int, int, int, str] | None:
    """``stats`` with the file's content hash filled in."""
    if stats is None:
        return None
    try:
        digest = content_hash(stats[1])
        status = os.stat(stats[1])
    except OSError:
        return None
    if (status.st_size, status.st_mtime_ns) != stats[2:4]:
        digest = ""  # changed while it was read: replayed next time
    try:
        return (*stats[:5], digest)
    except OSError:
        return None


def generation_files(folder: Path, generation: int) -> list[Path]:
    """The table files of one generation in a statistics folder, relative to it."""
    prefix = f"part-{generation:05d}"
    found = []
    from .stats import TABLES

    for name in TABLES:
        table = folder / name
        for file in sorted(table.rglob("part-*.parquet")) if table.is_dir() else []:
            stem = file.name.removesuffix(".parquet")
            if stem == prefix or stem.startswith(prefix + "-"):
                found.append(file.relative_to(folder))
    return found


def carry_over(old: Path, staging: Path, plan_: Plan) -> None:
    """Put the kept inputs' rows into ``staging``: whole generations linked, a shared one filtered."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    for generation in sorted(plan_.whole):
        for relative in generation_files(old, generation):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(old / relative, target)
            except OSError:
                shutil.copyfile(old / relative, target)
    if plan_.shared is None:
        return
    paths = pa.array([note.path for note in plan_.kept if note.generation == plan_.shared], pa.string())
    for relative in generation_files(old, plan_.shared):
        table = pq.read_table(old / relative)
        kept = table.filter(pc.is_in(table.column("path"), value_set=paths))
        if kept.num_rows == 0 and len(relative.parts) > 2:  # an emptied partition folder's file: dropped
            continue
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(kept, target, compression="zstd")


def ended_before(old: Path, plan_: Plan) -> list[tuple[str, str | None, str | None, str]]:
    """The matches the kept inputs ended lately, oldest first, as :class:`~drawlog.tables.parallel.EndedKeys` keeps them."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from .parallel import EndedKeys

    if not plan_.kept:
        return []
    order = {note.path: position for position, note in enumerate(plan_.kept)}
    generations = sorted({note.generation for note in plan_.kept})
    pieces = []
    for generation in generations:
        for relative in generation_files(old, generation):
            if relative.parts[0] == "matches":
                pieces.append(pq.read_table(old / relative, columns=["match", "tournament", "table_name", "variant",
                                                                      "path", "last_line"]))
    if not pieces:
        return []
    matches = pa.concat_tables(pieces)
    matches = matches.filter(pc.is_in(matches.column("path"), value_set=pa.array(list(order), pa.string())))
    position = pa.array([order[path] for path in matches.column("path").to_pylist()], pa.int64())
    rows = pa.array(range(matches.num_rows), pa.int64())
    matches = matches.append_column("_input", position).append_column("_row", rows)
    partitioned = any(len(relative.parts) > 2 for relative in generation_files(old, generations[-1]))
    matches = matches.sort_by([("_input", "ascending"), ("last_line" if partitioned else "_row", "ascending")])
    kept = EndedKeys()
    kept.add(matches)
    return kept.kept()


def seen_before(plan_: Plan) -> dict[str, tuple[str, int]]:
    """``{match id: (file, line)}`` of the match ids the kept inputs started first."""
    seen: dict[str, tuple[str, int]] = {}
    for note in plan_.kept:
        for match_id, line in note.starts.items():
            seen.setdefault(match_id, (note.file, line))
    return seen


def summed(notes: list[InputNote], summary: Summary) -> Summary:
    """``summary`` with the kept inputs' shares added in front."""
    from ..check.parts import add_summaries

    total = Summary()
    for note in notes:
        add_summaries(total, note.summary)
    add_summaries(total, summary)
    return total
