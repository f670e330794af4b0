"""drawlog from Python (a notebook, a script): validate, write and read the tables, replay and analyse matches.

Nothing here prints; everything returns data. Paths may be local files and
folders or URLs (``s3://``, ``gs://``, ``abfs://``, ``memory://``,
``file://``, with ``pip install 'drawlog[cluster]'``); ``cluster`` runs the
work on a Dask cluster (``"local:4"``, ``"tcp://HOST:8786"``, or a
``distributed.Client``)::

    import drawlog
    found = drawlog.validate("logs/")
    found.summary.errors, found.to_polars().group_by("code").len()
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .analysis.defaults import DEFAULT_SAMPLES
from .check.limits import MAX_OPEN_MATCHES
from .check.rules import select_codes
from .check.validator import Validator, as_path_list
from .check.violations import MAX_PER_MATCH, Summary, Violation
from .log.reader import STDIN, Source
from .log.remote import is_url

if TYPE_CHECKING:
    import polars as pl

#: What ``paths`` may be: one path or URL, or several.
Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


class Validation:
    """What :func:`validate` found: ``summary`` (the counts) and ``violations`` (in input order).

    Iterating gives the violations; :meth:`to_polars` gives them as a DataFrame.
    """

    def __init__(self, summary: Summary, violations: list[Violation]) -> None:
        self.summary = summary
        self.violations = violations

    @property
    def ok(self) -> bool:
        """Whether no error was found (warnings allowed), counting errors past a cap that were not kept."""
        return not self.summary.failed()

    def __iter__(self) -> Iterator[Violation]:
        return iter(self.violations)

    def __len__(self) -> int:
        return len(self.violations)

    def to_polars(self) -> pl.DataFrame:
        """The violations as a polars DataFrame (the JSON fields as columns; see :func:`violations_frame`)."""
        from .tables.violations import violations_frame

        return violations_frame(self.violations)

    def __repr__(self) -> str:
        summary = self.summary
        return (f"Validation({summary.files} files, {summary.matches} matches, {summary.errors} errors, "
                f"{summary.warnings} warnings)")


def _codes(select: Iterable[str] | None, ignore: Iterable[str] | None) -> frozenset[str] | None:
    """The codes reported under ``select`` and ``ignore`` (codes or prefixes); None: every code.

    An empty ``select`` (``[]``, ``[""]``) selects nothing, as ``--select ''`` does.
    """
    if select is None and ignore is None:
        return None
    chosen = list(select) if select is not None else None
    if chosen is not None and not any(part.strip() for value in chosen for part in value.split(",")):
        return frozenset()
    return select_codes(chosen, list(ignore) if ignore is not None else None)


def validate(paths: Paths, *, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
             max_per_match: int | None = MAX_PER_MATCH, max_open_matches: int = MAX_OPEN_MATCHES,
             cluster: Any = None) -> Validation:
    """Validate log files, folders and URLs; every violation, in input order, and the summary.

    ``paths`` may instead be events in memory (plain dicts or event structs): see :func:`validate_events`.

    ``select`` and ``ignore`` take codes or prefixes (``"M"``, ``"M20"``,
    ``"M205"``), as ``drawlog validate --select`` does. ``cluster``: replay
    the files on a Dask cluster (the same violations, in the same order).
    """
    events, paths = _events_given(paths)
    if events is not None:
        return validate_events(events, select=select, ignore=ignore, max_per_match=max_per_match)
    codes = _codes(select, ignore)
    names = as_path_list(paths)
    validator = Validator(codes, max_per_match, max_open_matches)
    if cluster is not None:
        from .check.parts import PartOptions
        from .tables.cluster import cluster_inputs, validate_on_cluster

        summary = Summary()
        found = [violation for _, violations in validate_on_cluster(cluster_inputs(names), cluster,
                                                                     PartOptions.of(validator), summary)
                 for violation in violations]
        return Validation(summary, found)
    found = list(validator.validate_paths(names))
    return Validation(validator.summary, found)


def validate_events(events: Iterable[Any], *, select: Iterable[str] | None = None,
                    ignore: Iterable[str] | None = None, file: str = "<events>",
                    max_per_match: int | None = MAX_PER_MATCH) -> Validation:
    """Validate events held in memory: plain dicts (as ``json.loads`` gives a log line), event structs, or lines.

    The n-th event counts as line n of ``file``. Each is checked exactly as the
    same line of a log file would be, so a dict off the schema is an ``F002``
    naming its field, not an exception::

        drawlog.validate_events([{"type": "match_start", "match": "m1", "players": ["ann", "bob"]}, …])

    A value JSON cannot hold (a set, an object) raises ``TypeError`` naming the event's number.
    """
    import msgspec

    def lines() -> Iterator[bytes | str]:
        for number, event in enumerate(events, 1):
            if isinstance(event, (bytes, str)):
                yield event
                continue
            try:
                yield msgspec.json.encode(event)
            except (TypeError, msgspec.EncodeError) as error:
                raise TypeError(f"event {number} of {file} is not JSON data ({error})") from None

    validator = Validator(_codes(select, ignore), max_per_match)
    found = list(validator.validate_lines(lines(), file))
    return Validation(validator.summary, found)


def _events_given(paths: Any) -> tuple[Iterable[Any] | None, Any]:
    """``(events, None)`` when ``paths`` holds events (dicts or event structs) rather than paths, else ``(None, paths)``."""
    import msgspec

    if isinstance(paths, (str, bytes, os.PathLike)) or not isinstance(paths, Iterable):
        return None, paths
    items = iter(paths)
    first = next(items, None)
    if first is None:
        return None, []
    rest = itertools.chain([first], items)
    return (rest, None) if isinstance(first, (dict, msgspec.Struct)) else (None, rest)


def write_stats(paths: Paths, out: str | os.PathLike[str], *, partition_by: str | None = None, jobs: int = 1,
                cluster: Any = None, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
                validator: Validator | None = None, on_file: Any = None, rebuild: bool = False) -> Summary:
    """Validate the logs and write the six Parquet tables to ``out`` (a folder or a URL), replaced whole.

    ``jobs`` replays that many files at once in local processes; ``cluster``
    on a Dask cluster instead. Either way the tables are the same, row for
    row, as one process writes. A folder drawlog did not write is refused
    (:class:`~drawlog.errors.OutputError`); when no input could be read,
    :class:`~drawlog.errors.NothingRead` is raised and the old tables stay.
    ``validator`` gives the options (codes, caps, ``per-file-ignores``) and,
    in local runs, hears of the reading for a progress display; ``on_file``
    (cluster runs) is called with each file's index and summary as it is done.
    A local ``out`` written before from the same inputs is updated: only new
    or changed inputs are replayed (``rebuild``: all of them).
    """
    from .tables.dataset import write_tables

    codes = _codes(select, ignore) if validator is None else validator.codes
    names = as_path_list(paths)
    target = os.fspath(out)
    if cluster is not None:
        from .tables.cluster import write_tables_on_cluster

        return write_tables_on_cluster(names, target, cluster, partition_by=partition_by,
                                       validator=validator or Validator(codes), on_file=on_file)
    if is_url(target):
        from .tables.dataset import write_tables_at_url

        return write_tables_at_url(names, target, partition_by=partition_by, validator=validator, jobs=jobs,
                                   codes=codes)
    return write_tables(names, target, partition_by, validator=validator, jobs=jobs, codes=codes, rebuild=rebuild)


def read_stats(out: str | os.PathLike[str]) -> dict[str, pl.LazyFrame]:
    """The tables ``write_stats`` wrote, as polars LazyFrames by name.

    They are matches, rounds, players, moves, violations and deals, and decisions, analysis_players and luck
    when ``drawlog analyze --out`` wrote them there too.

    Nothing is read until a query is collected, and then only what it needs:
    a filter on the ``--partition-by`` column skips the other folders' files,
    and row groups are skipped by their statistics.
    """
    target = os.fspath(out)
    if is_url(target):
        from .tables.storage import open_tables_at_url

        return open_tables_at_url(target)
    from .tables.dataset import open_tables

    frames: dict[str, pl.LazyFrame] = open_tables(target)
    return frames


def replay(path: str | os.PathLike[str], match: str | None = None, *, round: int | None = None,
           at: int | None = None) -> list[dict[str, Any]]:
    """The frames of one match, event by event: the board, hands, stock, legal moves and violations after each.

    ``match`` may be left out when the log holds one match. ``round`` keeps
    one round; ``at`` stops at that line. Each frame is the dict that
    ``drawlog replay --format json`` writes (fields in the README). An empty
    list: no line of the match (up to ``at``). An unreadable log raises
    :class:`~drawlog.errors.InputError`; a log of several matches with no
    ``match`` given raises ``ValueError`` naming them.
    """
    from .check.walkthrough import Selection, match_ids, walk

    name = os.fspath(path)
    source = Source(STDIN) if name == STDIN else Source(name, url=name) if is_url(name) else Source(name, Path(name))
    if match is None:
        ids = match_ids(source)
        if len(ids) != 1:
            raise ValueError(f"{name} holds {len(ids)} matches: say which ({', '.join(ids[:10])}"
                             f"{', …' if len(ids) > 10 else ''})")
        match = ids[0]
    return walk(source, Selection(match, round, at))


def analyze(paths: Paths, *, samples: int = DEFAULT_SAMPLES, seed: int = 0, match: str | None = None, jobs: int = 1,
            cluster: Any = None) -> dict[str, pl.DataFrame]:
    """Weigh every decision of the logs, as ``drawlog analyze`` does; the tables its ``--out`` writes, by name.

    ``decisions`` (one row per decision: the action taken, the best, the
    equities and the error, in points), ``analysis_players`` (accuracy,
    error classes per 100 decisions, luck and the luck-adjusted result, peek
    rate, per player and game) and ``luck`` (each deal's and draw's luck), as
    polars DataFrames. ``samples`` deals per decision, ``seed`` for the random
    numbers (the same seed gives the same figures), ``match`` one match id
    alone. ``jobs`` weighs matches in that many processes, ``cluster`` on a
    Dask cluster (``"local:4"``, ``"tcp://HOST:8786"``, a ``distributed.Client``):
    the same frames, row for row. An unreadable input raises
    :class:`~drawlog.errors.InputError`; a ``match`` in none of them, ``ValueError``.
    """
    from .analysis.parallel import analyze_in_parallel
    from .analysis.summary import frames
    from .errors import InputError

    if samples < 1:
        raise ValueError(f"samples must be 1 or more, not {samples}")
    matches = []
    with contextlib.ExitStack() as stack:
        if cluster is not None:
            from .tables.cluster import connect

            cluster = stack.enter_context(connect(cluster))
        for item in analyze_in_parallel(as_path_list(paths), samples, seed, match, max(1, jobs), cluster):
            if isinstance(item, InputError):
                raise item
            matches.append(item)
    if match is not None and not matches:
        raise ValueError(f"no match {match!r} in the logs given")
    tables: dict[str, pl.DataFrame] = frames([d for a in matches for d in a.decisions],
                                             [v for a in matches for v in a.luck],
                                             [r for a in matches for r in a.results])
    return tables


__all__ = ["Validation", "analyze", "read_stats", "replay", "validate", "validate_events", "write_stats"]
